//! Claude Code debug logs (`--debug`, `--debug-file PATH`, `~/.claude/debug/<id>.txt`).
//!
//! Each entry is `<ISO timestamp> [LEVEL] <message>`. A multi-line message is either one
//! JSON string literal (in `-p` mode with JSON output) or raw text whose continuation
//! lines carry no timestamp. Older builds printed `[LEVEL] message` with no timestamp.
//! Only entries about an MCP server become records; the rest is unrelated chatter.

use std::io::{self, BufRead};
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use regex::bytes::Regex;

use super::lines::{Line, LineReader};
use super::{Damage, MAX_LINE_BYTES};
use crate::logs::record::{Level, Record};

static ENTRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?) )?\[(VERBOSE|DEBUG|INFO|WARN|WARNING|ERROR)\] ?",
    )
    .expect("valid regex")
});

pub(super) fn looks_like_entry(line: &[u8]) -> bool {
    ENTRY.is_match(line)
}

struct Entry {
    timestamp: Option<String>,
    level: Level,
    line: usize,
    text: String,
    clipped: bool,
}

pub(super) fn decode<R: BufRead>(
    reader: R,
    file: &Arc<PathBuf>,
    sink: &mut dyn FnMut(Record),
) -> io::Result<Damage> {
    let mut damage = Damage::default();
    let mut lines = LineReader::new(reader, MAX_LINE_BYTES);
    let mut current: Option<Entry> = None;
    while let Some(line) = lines.next_line()? {
        damage.lines += 1;
        let line_no = line.no;
        let bytes = match line.content {
            Line::TooLong(_) => {
                damage.too_long += 1;
                continue;
            }
            Line::Text(t) => t,
        };
        if let Some(caps) = ENTRY.captures(bytes) {
            if let Some(done) = current.take() {
                flush(done, file, sink);
            }
            let whole = caps.get(0).expect("group 0").end();
            let timestamp = caps
                .get(1)
                .map(|m| String::from_utf8_lossy(m.as_bytes()).into_owned());
            let level = Level::parse(&String::from_utf8_lossy(&caps[2])).unwrap_or(Level::Debug);
            let text = to_text(&bytes[whole..], &mut damage);
            current = Some(Entry {
                timestamp,
                level,
                line: line_no,
                text,
                clipped: false,
            });
        } else if let Some(entry) = current.as_mut() {
            // A continuation line of a raw multi-line message.
            if entry.clipped || entry.text.len() + bytes.len() > MAX_LINE_BYTES {
                entry.clipped = true;
                continue;
            }
            entry.text.push('\n');
            entry.text.push_str(&to_text(bytes, &mut damage));
        } else if !bytes.trim_ascii().is_empty() {
            damage.not_a_record += 1;
        }
    }
    if let Some(done) = current.take() {
        flush(done, file, sink);
    }
    Ok(damage)
}

fn to_text(bytes: &[u8], damage: &mut Damage) -> String {
    match std::str::from_utf8(bytes) {
        Ok(t) => t.to_string(),
        Err(_) => {
            damage.invalid_utf8 += 1;
            String::from_utf8_lossy(bytes).into_owned()
        }
    }
}

fn flush(entry: Entry, file: &Arc<PathBuf>, sink: &mut dyn FnMut(Record)) {
    let text = entry.text.trim_end();
    // `-p` with JSON output writes a multi-line message as one JSON string literal.
    let decoded = if text.starts_with('"') {
        serde_json::from_str::<String>(text).ok().or_else(|| {
            // A lone surrogate or bad escape costs one character, not the record.
            serde_json::from_str::<String>(&super::escapes::repair(text)?).ok()
        })
    } else {
        None
    };
    let message = decoded.as_deref().unwrap_or(text);
    let Some((server, rest)) = split_mcp_prefix(message) else {
        return;
    };
    sink(Record {
        message: rest.to_string(),
        level: entry.level,
        timestamp: entry.timestamp,
        session_id: None,
        cwd: None,
        server: Some(server.to_string()),
        file: Arc::clone(file),
        line: entry.line,
    });
}

/// Splits `MCP server "<name>": <msg>` (debug) or `MCP server "<name>" <msg>` (error)
/// into the server name and the message.
pub fn split_mcp_prefix(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix("MCP server \"")?;
    let close = rest.find('"')?;
    let name = &rest[..close];
    let after = &rest[close + 1..];
    let after = after.strip_prefix(':').unwrap_or(after);
    let after = after.strip_prefix(' ').unwrap_or(after);
    Some((name, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_str(s: &str) -> (Vec<Record>, Damage) {
        let mut out = Vec::new();
        let d = decode(s.as_bytes(), &Arc::new(PathBuf::from("d.txt")), &mut |r| {
            out.push(r)
        })
        .unwrap();
        (out, d)
    }

    #[test]
    fn splits_both_prefix_forms() {
        assert_eq!(
            split_mcp_prefix("MCP server \"a.b\": Starting connection"),
            Some(("a.b", "Starting connection"))
        );
        assert_eq!(
            split_mcp_prefix("MCP server \"x\" Connection failed: boom"),
            Some(("x", "Connection failed: boom"))
        );
        assert_eq!(split_mcp_prefix("Loaded settings"), None);
    }

    #[test]
    fn decodes_json_literal_and_raw_continuations() {
        let log = "2026-11-29T11:50:31.216Z [DEBUG] \"MCP server \\\"ttl\\\": tools/list failed (Invalid result for tools/list: [\\n  {\\n  }\\n])\"\n\
                   2026-11-29T11:50:31.300Z [DEBUG] Loaded plugins\n\
                   2026-11-29T11:50:31.400Z [ERROR] MCP server \"ttl\" Failed to fetch tools: Invalid result for tools/list: [\n  {\n    \"expected\": \"number\"\n  }\n]\n\
                   [DEBUG] MCP server \"old\": Connection established\n";
        let (records, damage) = decode_str(log);
        assert!(damage.is_clean(), "{damage:?}");
        assert_eq!(records.len(), 3);
        assert_eq!(records[0].server.as_deref(), Some("ttl"));
        assert_eq!(
            records[0].message,
            "tools/list failed (Invalid result for tools/list: [\n  {\n  }\n])"
        );
        assert_eq!(
            records[0].timestamp.as_deref(),
            Some("2026-11-29T11:50:31.216Z")
        );
        assert_eq!(records[1].level, Level::Error);
        assert_eq!(records[1].line, 3);
        assert!(
            records[1]
                .message
                .ends_with("\"expected\": \"number\"\n  }\n]")
        );
        assert_eq!(records[2].server.as_deref(), Some("old"));
        assert_eq!(records[2].timestamp, None);
    }
}
