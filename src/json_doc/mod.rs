//! The JSON documents mcplogs writes, as typed structs: the one place their shape is
//! defined. `docs/json.md` describes every field; `docs/schema/*.schema.json` are
//! generated from these types ([`schemas`]) and a test fails when they differ.
//!
//! A leaf: nothing here imports a pipeline stage. The stages fill these structs
//! (`render::*` per command, `report::json`, `settings::undo`); the binary prints
//! them. One file per document.
//!
//! Rules for changing a document: add fields, never rename or remove one without
//! bumping [`SCHEMA_VERSION`] and noting it in docs/json.md's changelog. Field order is
//! the order of the struct fields. Every field is always written (`null` when absent),
//! and the structs deny unknown fields, so a round trip through them is exact.

use schemars::JsonSchema;

/// `schemaVersion` of every document. 2: all names camelCase (`settings`' `in_effect`
/// and `ignored_env_keys`, and the fix undo record's fields), and `settings --json`
/// and the undo record carry `schemaVersion`.
pub const SCHEMA_VERSION: u32 = 3;

mod du;
mod explain;
mod export;
mod hook;
mod model;
mod probe;
mod prune;
mod report;
mod scan;
mod settings;
mod shared;
mod undo;

pub use du::*;
pub use explain::*;
pub use export::*;
pub use hook::*;
pub use model::*;
pub use probe::*;
pub use prune::*;
pub use report::*;
pub use scan::*;
pub use settings::*;
pub use shared::*;
pub use undo::*;

// ---------------------------------------------------------------------------------
// Schemas

/// Every document's JSON Schema, by the name of its file under `docs/schema/`
/// (`<name>.schema.json`).
pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {
    fn one<T: JsonSchema>() -> schemars::Schema {
        schemars::generate::SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>()
    }
    vec![
        ("scan", one::<ScanDocument>()),
        ("explain", one::<ExplainDocument>()),
        ("du", one::<DuDocument>()),
        ("prune", one::<PruneDocument>()),
        ("settings", one::<SettingsDocument>()),
        ("fix", one::<FixRecord>()),
        ("report", one::<ReportDocument>()),
        ("probe", one::<ProbeDocument>()),
        ("transcript", one::<TranscriptEvent>()),
        ("hook", one::<HookOutput>()),
        ("model", one::<ModelDocument>()),
        ("export", one::<ExportRecord>()),
    ]
}
