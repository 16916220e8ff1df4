//! The sanitizer and the redactor on any text: nothing unsafe survives any sink, safe
//! text passes unchanged, JSON escaping keeps the value, and redaction never panics,
//! never adds or removes a line, and leaves nothing its own rules still find.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcplogs::redact::Redactor;
use mcplogs::text::sanitize;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    let t = sanitize::text(&s);
    assert!(!sanitize::has_raw_control(&t) && !t.contains(['\n', '\t']));
    let m = sanitize::multiline(&s);
    assert!(!sanitize::has_raw_control(&m));
    if !s.chars().any(sanitize::is_unsafe) {
        assert_eq!(t, s);
    }
    assert_eq!(sanitize::output(&m, false), m);
    assert!(!sanitize::has_raw_control(&sanitize::output(&s, false)));

    let v = serde_json::Value::String(s.to_string());
    let doc = sanitize::json_document(&v);
    assert!(!sanitize::has_raw_control(&doc));
    let back: serde_json::Value = serde_json::from_str(&doc).expect("still JSON");
    assert_eq!(back, v);

    let r = Redactor::secrets_only([s.as_ref()]);
    let red = r.redact(&s);
    assert_eq!(red.matches('\n').count(), s.matches('\n').count());
    assert_eq!(r.redact(&red), red, "redaction is idempotent");
});
