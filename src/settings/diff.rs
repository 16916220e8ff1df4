//! The unified diff shown before every write, as plain data: one file, lines as in the
//! file. Masking secrets and escaping control characters is the binary's step
//! (`redact::diff::for_display`): settings does not depend on redaction.

use similar::{ChangeTag, TextDiff};

/// Lines of context around each change, as `diff -u`.
const CONTEXT: usize = 3;

/// A unified diff from `old` (`None`: the file does not exist) to `new` (`None`: the
/// file is removed), labelled with `path`. Empty when nothing changes. The lines are as
/// in the files, secrets and control characters included: show it through
/// `redact::diff::for_display`, which masks and escapes them.
pub fn unified(old: Option<&str>, new: Option<&str>, path: &str) -> String {
    let (a, b) = (old.unwrap_or(""), new.unwrap_or(""));
    if old == new {
        return String::new();
    }
    let diff = TextDiff::from_lines(a, b);
    let mut out = String::new();
    // The path is one header line: a line break or tab in a folder name is escaped, or
    // it would forge lines of the diff.
    let path = crate::text::terminal_safe(path, false);
    let path = path.as_str();
    out.push_str(&format!(
        "--- {}\n+++ {}\n",
        if old.is_some() { path } else { "/dev/null" },
        if new.is_some() { path } else { "/dev/null" },
    ));
    for hunk in diff.unified_diff().context_radius(CONTEXT).iter_hunks() {
        out.push_str(&format!("{}\n", hunk.header()));
        for change in hunk.iter_changes() {
            let sign = match change.tag() {
                ChangeTag::Equal => ' ',
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
            };
            let value = change.value();
            // CRLF files: show the line, not a stray carriage return.
            let line = value.trim_end_matches('\n').trim_end_matches('\r');
            out.push(sign);
            out.push_str(line);
            out.push('\n');
            if change.missing_newline() {
                out.push_str("\\ No newline at end of file\n");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_only_changed_lines_as_they_are() {
        let old = "{\n  \"env\": {\n    \"GH_TOKEN\": \"ghp_secret\"\n  }\n}\n";
        let new = "{\n  \"env\": {\n    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n    \"GH_TOKEN\": \"ghp_secret\"\n  }\n}\n";
        // redact::diff's tests start from this text.
        assert_eq!(
            unified(Some(old), Some(new), "s.json"),
            "--- s.json\n+++ s.json\n@@ -1,5 +1,6 @@\n {\n   \"env\": {\n+    \"MCP_PROTOCOL_NEGOTIATION\": \"legacy\",\n     \"GH_TOKEN\": \"ghp_secret\"\n   }\n }\n"
        );
        assert_eq!(
            unified(Some("{\"a\": \"\u{1b}[2J\"}"), Some("{}\n"), "-- x"),
            "--- -- x\n+++ -- x\n@@ -1 +1 @@\n-{\"a\": \"\u{1b}[2J\"}\n\\ No newline at end of file\n+{}\n"
        );
    }

    #[test]
    fn new_and_removed_files() {
        let d = unified(None, Some("{}\n"), "s.json");
        assert!(d.starts_with("--- /dev/null\n+++ s.json\n"));
        assert!(d.ends_with("+{}\n"));
        let d = unified(Some("{}"), None, "s.json");
        assert!(d.contains("+++ /dev/null\n"));
        assert!(d.contains("-{}\n\\ No newline at end of file\n"));
        assert_eq!(unified(Some("x"), Some("x"), "s"), "");
    }

    #[test]
    fn crlf_lines_print_without_carriage_returns() {
        let d = unified(Some("{\r\n}\r\n"), Some("{\r\n  \"a\": 1\r\n}\r\n"), "s");
        assert!(!d.contains('\r'));
        assert!(d.contains("+  \"a\": 1\n"));
    }
}
