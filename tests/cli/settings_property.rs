//! For generated settings objects in generated layouts: fix then parse gives the same
//! object plus the one key (key order kept), fix twice equals fix once, and undo (both
//! the backup restore and the key-only restore) gives back the original bytes. For any
//! bytes, serde_json and json5 (not mcplogs' own parser) decide whether a fix must
//! succeed, and the file it leaves is checked against them.

use proptest::prelude::*;
use serde_json::{Map, Value};

use mcplogs::settings::edit::{restore_key, set_legacy};
use mcplogs::settings::fix::{FixOptions, FixPlan, apply_fix, plan_fix};
use mcplogs::settings::undo::{UndoPlan, apply_undo, plan_undo};

const KEY: &str = "MCP_PROTOCOL_NEGOTIATION";

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z_][a-zA-Z0-9_]{0,12}",
        "[a-zé日 \"\\\\/\t]{0,6}",
        Just("env".to_string()),
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-zA-Z0-9 éü✓日本\"\\\\\n\t/]{0,12}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn env_object() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(("[A-Z_]{1,10}", "[a-z0-9é]{0,8}"), 0..4),
        prop::option::of(prop_oneof![
            Just(Value::from("auto")),
            Just(Value::from("legacy")),
            Just(Value::from("other")),
            Just(Value::from(1)),
        ]),
    )
        .prop_map(|(kv, negotiation)| {
            let mut m: Map<String, Value> =
                kv.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
            if let Some(v) = negotiation {
                m.insert(KEY.to_string(), v);
            }
            Value::Object(m)
        })
}

fn settings() -> impl Strategy<Value = Map<String, Value>> {
    (
        prop::collection::vec((key(), value()), 0..6),
        prop::option::of(env_object()),
    )
        .prop_map(|(kv, env)| {
            let mut m: Map<String, Value> = kv.into_iter().filter(|(k, _)| k != "env").collect();
            if let Some(e) = env {
                m.insert("env".to_string(), e);
            }
            m
        })
}

/// Layouts people and tools write: compact, 2 spaces, 4 spaces, tabs; LF or CRLF;
/// with or without a final newline.
fn layout(obj: &Map<String, Value>, indent: usize, crlf: bool, final_newline: bool) -> String {
    let mut text = match indent {
        0 => serde_json::to_string(obj).unwrap(),
        n => {
            let unit: &[u8] = match n {
                1 => b"  ",
                2 => b"    ",
                _ => b"\t",
            };
            let mut out = Vec::new();
            let f = serde_json::ser::PrettyFormatter::with_indent(unit);
            let mut ser = serde_json::Serializer::with_formatter(&mut out, f);
            serde::Serialize::serialize(obj, &mut ser).unwrap();
            String::from_utf8(out).unwrap()
        }
    };
    if final_newline {
        text.push('\n');
    }
    if crlf {
        text = text.replace('\n', "\r\n");
    }
    text
}

fn ordered_keys(m: &Map<String, Value>) -> Vec<&String> {
    m.keys().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn fix_adds_one_key_is_idempotent_and_undoes_exactly(
        obj in settings(),
        indent in 0usize..4,
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
    ) {
        let original = layout(&obj, indent, crlf, final_newline);
        let already = obj
            .get("env")
            .and_then(|e| e.get(KEY))
            .is_some_and(|v| v == "legacy");

        let fixed = set_legacy(&original).unwrap();
        let parsed: Map<String, Value> = serde_json::from_str(&fixed).unwrap();
        // The same object plus the one key.
        let mut expected = obj.clone();
        let env = expected.entry("env").or_insert_with(|| Value::Object(Map::new()));
        env.as_object_mut().unwrap().insert(KEY.into(), Value::from("legacy"));
        prop_assert_eq!(&parsed, &expected);
        // Every original key keeps its place among the others.
        let kept: Vec<&String> = ordered_keys(&parsed).into_iter().filter(|k| obj.contains_key(*k)).collect();
        prop_assert_eq!(kept, ordered_keys(&obj));
        // Line endings and the final newline are the file's own.
        prop_assert_eq!(fixed.contains("\r\n"), crlf && original.contains('\n'));
        prop_assert_eq!(fixed.ends_with('\n'), final_newline);
        if already {
            prop_assert_eq!(&fixed, &original);
        }
        // Fix twice equals fix once.
        prop_assert_eq!(set_legacy(&fixed).unwrap(), fixed.clone());

        // Key-only undo (the path for a file changed since the fix) is exact too.
        let env_existed = obj.contains_key("env");
        let previous = obj.get("env").and_then(|e| e.get(KEY)).map(|v| serde_json::to_string(v).unwrap());
        prop_assert_eq!(restore_key(&fixed, previous.as_deref(), env_existed).unwrap(), original.clone());

        // Through the files: fix, fix again, undo gives the original bytes back.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, &original).unwrap();
        match plan_fix(&path, FixOptions::default()).unwrap() {
            FixPlan::AlreadyLegacy { .. } => prop_assert!(already),
            FixPlan::Pending(p) => {
                prop_assert!(!already);
                apply_fix(&p).unwrap();
                prop_assert_eq!(std::fs::read_to_string(&path).unwrap(), fixed.clone());
                let twice = plan_fix(&path, FixOptions::default()).unwrap();
                prop_assert!(matches!(twice, FixPlan::AlreadyLegacy { .. }), "second fix must be a no-op");
                let UndoPlan::Pending(u) = plan_undo(&path, false).unwrap() else {
                    panic!("nothing to undo")
                };
                apply_undo(&u).unwrap();
                prop_assert_eq!(std::fs::read(&path).unwrap(), original.as_bytes());
            }
        }
    }
}

/// Settings text of every kind: strict JSON in every layout, the same with JSON5
/// additions (comments, trailing commas), objects whose `env` is not an object, text
/// that is almost JSON, and arbitrary bytes.
fn settings_bytes() -> impl Strategy<Value = Vec<u8>> {
    let strict = || {
        (settings(), 0usize..4, any::<bool>(), any::<bool>())
            .prop_map(|(obj, indent, crlf, nl)| layout(&obj, indent, crlf, nl))
    };
    prop_oneof![
        strict().prop_map(String::into_bytes),
        (strict(), any::<bool>(), any::<bool>()).prop_map(|(text, comment, trailing)| {
            let mut t = text;
            if comment {
                t = format!("// mine\n{t}");
            }
            // A trailing comma before the last closing brace of a non-empty object.
            if let Some(i) = t
                .rfind('}')
                .filter(|&i| trailing && !t[..i].trim_end().ends_with('{'))
            {
                t.insert(i, ',');
            }
            t.into_bytes()
        }),
        (value(), prop::option::of(scalar())).prop_map(|(v, env)| serde_json::to_vec(
            &serde_json::json!({"a": v, "env": env.unwrap_or(Value::Null)})
        )
        .unwrap()),
        "[\\[\\]{}\":,a-z0-9 \n/*]{1,40}".prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 1..256),
    ]
}

/// The object a fix must leave: `obj` with `env.MCP_PROTOCOL_NEGOTIATION` = `legacy`,
/// or `None` when the fix must refuse (an `env` that is not an object).
fn with_legacy(obj: &Map<String, Value>) -> Option<Map<String, Value>> {
    let mut out = obj.clone();
    let env = out
        .entry("env")
        .or_insert_with(|| Value::Object(Map::new()));
    env.as_object_mut()?
        .insert(KEY.into(), Value::from("legacy"));
    Some(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever the bytes, a fix (planned and applied, as `mcplogs fix --yes` does) either
    /// leaves a file that serde_json reads as the original object plus the one key, or is
    /// refused and leaves the bytes exactly as they were, with no backup. Which one is
    /// decided by independent parsers: serde_json for strict JSON, json5 for JSON5 (which
    /// only `--rewrite-strict` may convert).
    #[test]
    fn fix_result_agrees_with_independent_parsers(
        data in settings_bytes(),
        rewrite_strict in any::<bool>(),
    ) {
        let text = std::str::from_utf8(&data).ok();
        // A file of only JSON white space (space, tab, line feed, carriage return)
        // counts as empty, as a missing one does: the fix writes a fresh file. Other
        // white space (a vertical tab) is neither JSON nor empty: refused.
        let blank = text.is_some_and(|t| t.trim_matches([' ', '\t', '\n', '\r']).is_empty());
        let strict = text
            .and_then(|t| serde_json::from_str::<Map<String, Value>>(t).ok())
            .or_else(|| blank.then(Map::new));
        let json5 = text.and_then(|t| json5::from_str::<Map<String, Value>>(t).ok());
        let want = match (&strict, &json5) {
            _ if blank => with_legacy(&Map::new()),
            (Some(obj), _) => with_legacy(obj),
            (None, Some(obj)) if rewrite_strict => with_legacy(obj),
            _ => None,
        };

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, &data).unwrap();
        let outcome = plan_fix(&path, FixOptions { rewrite_strict }).and_then(|plan| match plan {
            FixPlan::AlreadyLegacy { .. } => Ok(false),
            FixPlan::Pending(p) => apply_fix(&p).map(|_| true),
        });
        let after = std::fs::read(&path).unwrap();
        match want {
            Some(expected) => {
                let wrote = outcome.unwrap_or_else(|e| panic!("refused {:?}: {e}", String::from_utf8_lossy(&data)));
                let parsed: Map<String, Value> = serde_json::from_slice(&after).unwrap();
                prop_assert_eq!(parsed, expected);
                if !wrote {
                    prop_assert_eq!(&after, &data);
                }
            }
            None => {
                prop_assert!(outcome.is_err(), "fixed {:?}", String::from_utf8_lossy(&data));
                prop_assert_eq!(&after, &data);
                prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
            }
        }
    }
}
