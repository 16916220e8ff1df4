//! The settings reader (issue 10, item 2) on arbitrary text, nested arbitrarily deep:
//! it never crashes or recurses, it agrees with serde_json wherever serde_json can
//! decide (serde_json stops at 128 levels, out-of-range numbers and lone surrogates,
//! all valid to `JSON.parse`), a strict file takes the legacy edit with every other
//! member's text kept, and `--rewrite-strict` of a JSON5 file either writes strict JSON
//! whose numbers and strings are the original's, or names the value it cannot keep.
//!
//! The first byte picks a nesting depth (0 to 100,000 levels of `[`, `{"k":`) wrapped
//! around the rest, so deep documents are the rule, not a lucky find.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcplogs::settings::edit::{EditError, rewrite_strict, set_legacy};
use mcplogs::settings::json::{self, Dialect};
use mcplogs::settings::layers::negotiation_in;
use mcplogs::settings::strictness::{self, Strictness};

fuzz_target!(|data: &[u8]| {
    let Some((&shape, rest)) = data.split_first() else {
        return;
    };
    let Ok(inner) = std::str::from_utf8(rest) else {
        return;
    };
    let depth = usize::from(shape & 0x7f) * 800;
    let text = if shape & 0x80 == 0 {
        format!(
            "{{\"x\": {}{inner}{}}}",
            "[".repeat(depth),
            "]".repeat(depth)
        )
    } else {
        format!("{}{inner}{}", "{\"k\":".repeat(depth), "}".repeat(depth))
    };
    check_text(inner);
    check_text(&text);
});

fn check_text(text: &str) {
    let verdict = strictness::check(text);
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(v) => assert_eq!(
            matches!(verdict, Strictness::Strict(_)),
            v.is_object(),
            "serde_json and the reader disagree"
        ),
        Err(e) => {
            let m = e.to_string();
            let serde_limit = m.contains("recursion limit")
                || m.contains("number out of range")
                || m.contains("surrogate")
                || body.trim_matches([' ', '\t', '\n', '\r']).is_empty();
            if !serde_limit {
                assert!(
                    !matches!(verdict, Strictness::Strict(_)),
                    "strict, yet serde_json says {m}"
                );
            }
        }
    }
    match verdict {
        Strictness::Strict(_) => {
            if let Ok(new) = set_legacy(text) {
                let new_body = new.strip_prefix('\u{feff}').unwrap_or(&new);
                let doc = json::parse(new_body, Dialect::Strict).expect("the edit is strict JSON");
                assert!(negotiation_in(&doc).is_some_and(|v| v.is_legacy()));
            }
        }
        Strictness::NonStrict { doc, .. } => match rewrite_strict(text, &doc) {
            Ok(new) => {
                let new_body = new.strip_prefix('\u{feff}').unwrap_or(&new);
                let d = json::parse(new_body, Dialect::Strict).expect("rewrite is strict JSON");
                assert!(negotiation_in(&d).is_some_and(|v| v.is_legacy()));
            }
            Err(EditError::CannotKeep { .. } | EditError::EnvNotAnObject | EditError::TooDeep) => {}
            Err(e) => panic!("rewrite failed its own check: {e}"),
        },
        Strictness::Invalid { .. } => {}
    }
}
