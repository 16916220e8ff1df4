//! For generated settings objects in generated layouts: fix then parse gives the same
//! object plus the one key (key order kept), fix twice equals fix once, and undo (both
//! the backup restore and the key-only restore) gives back the original bytes.

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
        let previous = obj.get("env").and_then(|e| e.get(KEY));
        prop_assert_eq!(restore_key(&fixed, previous, env_existed).unwrap(), original.clone());

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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Bytes that are neither JSON nor JSON5 (or not an object, or not UTF-8) are refused,
    /// with or without --rewrite-strict, and left exactly as they were: no backup, no
    /// undo record.
    #[test]
    fn non_json_bytes_are_refused_and_left_untouched(
        data in prop_oneof![
            prop::collection::vec(any::<u8>(), 1..256),
            "[\\[\\]{}\":,a-z0-9 \n]{1,40}".prop_map(String::into_bytes),
        ],
        rewrite_strict in any::<bool>(),
    ) {
        use mcplogs::settings::strictness::{check, Strictness};
        let is_object = std::str::from_utf8(&data)
            .is_ok_and(|t| !matches!(check(t), Strictness::Invalid { .. }));
        prop_assume!(!is_object);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, &data).unwrap();
        let refused = plan_fix(&path, FixOptions { rewrite_strict }).is_err();
        prop_assert!(refused, "planned a fix of {:?}", data);
        prop_assert_eq!(std::fs::read(&path).unwrap(), data);
        prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
