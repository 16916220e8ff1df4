//! The JSON contract (docs/json.md): the checked-in schemas under docs/schema/ are the
//! ones generated from `mcplogs::json_doc`, every document built from the bundled samples
//! survives a round trip through its struct, and every command's `--json` output on
//! the samples validates against the checked-in schema.
//!
//! Regenerate the schemas after changing a wire struct:
//! `SCHEMAS=overwrite cargo test --test cli json_doc::schemas`.

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;
use mcplogs::disk::du;
use mcplogs::json_doc;
use mcplogs::logs::discovery::Request;
use mcplogs::redact::RedactorBuilder;
use mcplogs::scan::{ScanOptions, scan};
use mcplogs::settings::fix::{FixOptions, FixPlan, apply_fix, plan_fix};
use mcplogs::settings::{Sources, effective_negotiation, undo};
use mcplogs::{explain, render, report, settings};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const SAMPLE_HOMES: &[&str] = &["linux-home", "macos-home", "windows-home"];

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema")
}

/// How every document is printed: pretty, with a final newline.
fn pretty<T: Serialize>(doc: &T) -> String {
    let mut s = serde_json::to_string_pretty(doc).expect("serializes");
    s.push('\n');
    s
}

fn checked_in_schema(name: &str) -> Value {
    let path = schema_dir().join(format!("{name}.schema.json"));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("schema is JSON")
}

/// Validation errors of `doc` against docs/schema/<name>.schema.json.
fn schema_errors(name: &str, doc: &Value) -> Vec<String> {
    let schema = checked_in_schema(name);
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

pub(crate) fn schema_errors_of(name: &str, doc: &Value) -> Vec<String> {
    schema_errors(name, doc)
}

/// The attribute names the export schema lists (`ExportAttributes`' properties).
pub(crate) fn export_schema_attribute_names() -> BTreeSet<String> {
    let s = checked_in_schema("export");
    s["$defs"]["ExportAttributes"]["properties"]
        .as_object()
        .expect("ExportAttributes in docs/schema/export.schema.json")
        .keys()
        .cloned()
        .collect()
}

pub(crate) fn assert_valid(name: &str, doc: &Value) {
    let errors = schema_errors(name, doc);
    assert!(
        errors.is_empty(),
        "{name} document does not match docs/schema/{name}.schema.json:\n{}\n{doc:#}",
        errors.join("\n")
    );
}

/// Printed text -> struct -> printed text is exact, and struct -> text -> struct too.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(name: &str, doc: &T) {
    let text = pretty(doc);
    let back: T =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name} reads back ({e}):\n{text}"));
    assert_eq!(&back, doc, "{name}");
    assert_eq!(pretty(&back), text, "{name}");
    assert_valid(name, &serde_json::from_str(&text).unwrap());
}

/// Command output: valid against the checked-in schema, and read back into its struct
/// (unknown fields refused) it prints the same bytes.
pub(crate) fn check_output<T: Serialize + DeserializeOwned>(name: &str, stdout: &str) -> Value {
    let doc: Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("{name} output is JSON ({e}):\n{stdout}"));
    assert_valid(name, &doc);
    let typed: T = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("{name} output reads into its struct ({e})"));
    assert_eq!(
        pretty(&typed),
        stdout,
        "{name}: printed exactly as the struct"
    );
    doc
}

#[test]
fn schemas_checked_in_match_the_generated_ones() {
    let overwrite = std::env::var("SCHEMAS").is_ok_and(|v| v == "overwrite");
    let dir = schema_dir();
    let mut stale = Vec::new();
    let mut names = BTreeSet::new();
    for (name, schema) in json_doc::schemas() {
        let file = format!("{name}.schema.json");
        let path = dir.join(&file);
        let want = pretty(&schema);
        if fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            if overwrite {
                fs::create_dir_all(&dir).unwrap();
                fs::write(&path, want).unwrap();
            } else {
                stale.push(file.clone());
            }
        }
        names.insert(file);
    }
    assert!(
        stale.is_empty(),
        "docs/schema/ differs from the wire structs: {stale:?}. Regenerate with \
         `SCHEMAS=overwrite cargo test --test cli json_doc::schemas` and note the change in docs/json.md"
    );
    let on_disk: BTreeSet<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        on_disk, names,
        "docs/schema/ holds exactly one file per document"
    );
    for required in ["scan", "explain", "du", "settings", "fix", "report"] {
        assert!(names.contains(&format!("{required}.schema.json")));
    }
}

/// The schemas are strict: a document with a field too many or one missing, or a
/// field of the wrong type, fails. (Otherwise validating output against them proves
/// little.)
#[test]
fn schemas_refuse_extra_missing_and_mistyped_fields() {
    let home = samples().join("macos-home");
    let doc = serde_json::to_value(du_doc(&home)).unwrap();
    assert!(schema_errors("du", &doc).is_empty());

    let mut extra = doc.clone();
    extra["projects"][0]["servers"][0]["sizeOnDisk"] = json!(1);
    assert!(!schema_errors("du", &extra).is_empty(), "unknown field");

    let mut missing = doc.clone();
    missing["projects"][0]
        .as_object_mut()
        .unwrap()
        .remove("newestSession");
    assert!(
        !schema_errors("du", &missing).is_empty(),
        "missing nullable field"
    );

    let mut mistyped = doc.clone();
    mistyped["bytes"] = json!("53.6 KiB");
    assert!(!schema_errors("du", &mistyped).is_empty(), "wrong type");

    let mut snake = doc;
    let v = snake["projects"][0]
        .as_object_mut()
        .unwrap()
        .remove("oldestSession")
        .unwrap();
    snake["projects"][0]["oldest_session"] = v;
    assert!(!schema_errors("du", &snake).is_empty(), "snake_case name");
}

/// Every field of every document is described in docs/json.md.
#[test]
fn docs_describe_every_field() {
    let docs = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json.md"))
        .expect("docs/json.md");
    fn fields(v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(props)) = m.get("properties") {
                    out.extend(props.keys().cloned());
                }
                m.values().for_each(|x| fields(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| fields(x, out)),
            _ => {}
        }
    }
    for (name, schema) in json_doc::schemas() {
        let mut names = BTreeSet::new();
        fields(&serde_json::to_value(&schema).unwrap(), &mut names);
        assert!(names.len() > 2, "{name}");
        for f in names {
            // `name`, or the end of a path such as `layers[].name`.
            assert!(
                docs.contains(&format!("`{f}`")) || docs.contains(&format!(".{f}`")),
                "docs/json.md does not describe `{f}` ({name})"
            );
        }
    }
}

// ---------------------------------------------------------------------------------
// Round trips through the library, on the bundled samples

fn scan_home(home: &Path) -> mcplogs::scan::ScanReport {
    scan(&ScanOptions {
        request: Request {
            homes: vec![home.to_path_buf()],
            paths: Vec::new(),
        },
        ..ScanOptions::default()
    })
    .expect("sample scans")
}

fn du_doc(home: &Path) -> json_doc::DuDocument {
    let d = du::disk_use(&ScanOptions {
        request: Request {
            homes: vec![home.to_path_buf()],
            paths: Vec::new(),
        },
        ..ScanOptions::default()
    })
    .expect("du");
    render::du::du_json(&d)
}

/// Settings with every kind of layer: managed (strict), local (not JSON at all),
/// project (JSON5, so ignored), user (strict, legacy), and the environment.
fn varied_settings(tmp: &Path) -> settings::EffectiveNegotiation {
    let project = tmp.join("project");
    let managed = tmp.join("managed");
    let user = tmp.join("user");
    for d in [project.join(".claude"), managed.clone(), user.clone()] {
        fs::create_dir_all(d).unwrap();
    }
    fs::write(managed.join("managed-settings.json"), "{\"env\": {}}").unwrap();
    fs::write(project.join(".claude/settings.local.json"), "not json").unwrap();
    fs::write(
        project.join(".claude/settings.json"),
        "{\n  // a comment\n  \"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"auto\",},\n}\n",
    )
    .unwrap();
    fs::write(
        user.join("settings.json"),
        "{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\"}}",
    )
    .unwrap();
    effective_negotiation(&Sources {
        project_dir: project,
        managed_dir: managed,
        user_dir: Some(user),
        environment_value: Some("auto".into()),
        sdk_generation: None,
        environment: true,
    })
}

#[test]
fn scan_du_and_report_documents_round_trip_on_every_sample_home() {
    let tmp = tempfile::tempdir().unwrap();
    let negotiation = varied_settings(tmp.path());
    for home in SAMPLE_HOMES {
        let home = samples().join(home);
        let scanned = scan_home(&home);
        assert!(!scanned.servers.is_empty(), "{}", home.display());

        let doc = render::scan::scan_json(
            &scanned,
            mcplogs::render::settings::settings_layers_json(&negotiation),
        );
        assert_eq!(doc.schema_version, json_doc::SCHEMA_VERSION);
        assert!(doc.servers.iter().any(|s| !s.evidence.is_empty()));
        round_trip("scan", &doc);

        round_trip("du", &du_doc(&home));

        let mut rep = report::build(
            &scanned,
            &report::stderr::ServerStderr::default(),
            &negotiation,
            report::Versions::this_machine(Some("2.1.288 (Claude Code)".into())),
        );
        round_trip("report", &report::json::report_json(&rep));
        rep.redact(RedactorBuilder::new().home(&home.display().to_string()));
        let redacted = report::json::report_json(&rep);
        assert!(redacted.redacted);
        round_trip("report", &redacted);
    }
}

#[test]
fn explain_documents_round_trip_on_every_pasted_sample() {
    let mut dir: Vec<PathBuf> = fs::read_dir(samples().join("mcp-list"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dir.sort();
    assert!(!dir.is_empty());
    for path in dir {
        let text = fs::read_to_string(&path).unwrap();
        let doc = render::explain::explain_json(&explain::explain(&text));
        assert!(!doc.servers.is_empty(), "{}", path.display());
        round_trip("explain", &doc);
    }
    // One pasted message (no `claude mcp list` lines).
    let doc = render::explain::explain_json(&explain::explain(
        "MCP server \"docs\": Connection failed: spawn docs-server ENOENT",
    ));
    assert_eq!(doc.servers.len(), 1);
    round_trip("explain", &doc);
}

#[test]
fn settings_document_round_trips_with_every_kind_of_layer() {
    let tmp = tempfile::tempdir().unwrap();
    let doc = mcplogs::render::settings::settings_json(&varied_settings(tmp.path()), &[]);
    let statuses: Vec<&str> = doc.layers.iter().map(|l| l.status.as_str()).collect();
    for s in ["strict", "invalid", "ignored", "environment"] {
        assert!(statuses.contains(&s), "{s} in {statuses:?}");
    }
    assert!(doc.layers.iter().any(|l| l.problem.is_some()));
    assert!(doc.layers.iter().any(|l| !l.ignored_env_keys.is_empty()));
    round_trip("settings", &doc);
}

#[test]
fn fix_record_round_trips_and_version_1_records_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("settings.json");
    fs::write(
        &path,
        "{\"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"auto\"}}\n",
    )
    .unwrap();
    let FixPlan::Pending(pending) = plan_fix(&path, FixOptions::default()).unwrap() else {
        panic!("auto is not legacy: a fix is planned");
    };
    apply_fix(&pending).unwrap();
    let text = fs::read_to_string(undo::state_path(&path)).unwrap();
    let record: json_doc::FixRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(record.version, mcplogs::settings::undo::UndoState::VERSION);
    assert_eq!(record.previous_json.as_deref(), Some("\"auto\""));
    assert_eq!(
        pretty(&record),
        text,
        "the record on disk is the struct, printed"
    );
    round_trip("fix", &record);
    assert!(text.contains("\"schemaVersion\": 2") && text.contains("\"writtenSha256\""));

    // The same record as mcplogs wrote it before the camelCase names: refused, since
    // it carries no checksum of the backup (issue 10), and the settings are untouched.
    let v1 = json!({
        "version": 1,
        "settings_path": record.settings_path,
        "written_path": record.written_path,
        "kind": record.kind,
        "created_file": record.created_file,
        "backup_path": record.backup_path,
        "written_sha256": record.written_sha256,
        "env_existed": record.env_existed,
        "previous_value": "auto",
    });
    fs::write(undo::state_path(&path), pretty(&v1)).unwrap();
    let before = fs::read(&path).unwrap();
    assert!(
        undo::load_state(&path).is_err(),
        "a version-1 record is refused"
    );
    assert_eq!(fs::read(&path).unwrap(), before);
}

// ---------------------------------------------------------------------------------
// The binary's --json output against the checked-in schemas

#[test]
fn scan_and_du_output_on_the_samples_matches_the_schema() {
    for home in SAMPLE_HOMES {
        let tmp = tempfile::tempdir().unwrap();
        let home = samples().join(home);
        let r = run(mcplogs(tmp.path())
            .current_dir(tmp.path())
            .args(["scan", "--json", "--home"])
            .arg(&home));
        let doc = check_output::<json_doc::ScanDocument>("scan", &r.stdout);
        assert_eq!(doc["schemaVersion"], 3);
        assert!(doc["settings"]["layers"][0]["inEffect"].is_boolean());

        let r = run(mcplogs(tmp.path())
            .current_dir(tmp.path())
            .args(["du", "--json", "--home"])
            .arg(&home));
        assert_eq!(r.code, 0, "{}", r.stderr);
        check_output::<json_doc::DuDocument>("du", &r.stdout);
    }
    // Debug logs and the old `.txt` format, named as paths.
    let tmp = tempfile::tempdir().unwrap();
    let r = run(mcplogs(tmp.path())
        .current_dir(tmp.path())
        .args(["scan", "--json"])
        .arg(samples().join("debug-logs"))
        .arg(samples().join("old-format")));
    let doc = check_output::<json_doc::ScanDocument>("scan", &r.stdout);
    assert!(doc["servers"].as_array().unwrap().len() > 1);
}

#[test]
fn explain_output_on_the_samples_matches_the_schema() {
    let tmp = tempfile::tempdir().unwrap();
    for entry in fs::read_dir(samples().join("mcp-list")).unwrap() {
        let path = entry.unwrap().path();
        let r = run(mcplogs(tmp.path()).args(["explain", "--json"]).arg(&path));
        check_output::<json_doc::ExplainDocument>("explain", &r.stdout);
    }
}

#[test]
fn report_output_on_the_samples_matches_the_schema() {
    for home in SAMPLE_HOMES {
        let tmp = tempfile::tempdir().unwrap();
        let r = run(mcplogs(tmp.path())
            .current_dir(tmp.path())
            .args(["report", "--json", "--managed-dir"])
            .arg(tmp.path())
            .arg("--home")
            .arg(samples().join(home)));
        let doc = check_output::<json_doc::ReportDocument>("report", &r.stdout);
        assert_eq!(doc["redacted"], true);
        assert!(!doc["servers"].as_array().unwrap().is_empty());
    }
}

#[cfg(unix)]
#[test]
fn settings_output_and_the_fix_record_match_their_schemas() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.project.join(".claude")).unwrap();
    fs::write(
        sb.project.join(".claude/settings.json"),
        "{\n  // JSON5\n  \"env\": {\"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",},\n}\n",
    )
    .unwrap();
    write_with_mode(&sb.user_settings(), b"{\"env\": {}}\n", 0o600);
    let out = sb.run(&["settings", "--json"]);
    let doc = check_output::<json_doc::SettingsDocument>("settings", &stdout(&out));
    assert_eq!(doc["schemaVersion"], 3);
    let project = &doc["layers"][2];
    assert_eq!(project["layer"], "project");
    assert_eq!(project["inEffect"], false);
    assert_eq!(
        project["ignoredEnvKeys"],
        json!(["MCP_PROTOCOL_NEGOTIATION"])
    );

    sb.add_server_needing_fix();
    let out = sb.run(&["fix", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let record = fs::read_to_string(undo::state_path(&sb.user_settings())).unwrap();
    check_output::<json_doc::FixRecord>("fix", &record);
}
