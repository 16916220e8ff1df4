//! The short reason shown next to a verdict: what went wrong in a few words, such as
//! `ttlMs: expected number, got string` or `tools[2].inputSchema.type must be "object"`,
//! instead of raw evidence cut at a fixed width. Read from the decisive record (zod
//! issue lists are parsed, not pattern-matched).

use serde_json::Value;

use crate::classify::verdict::{Cause, Transport, Verdict};
use crate::scan::ServerReport;
use crate::text::terminal_safe;

const TOOLS_LIST: &str = "Invalid result for tools/list:";

/// The reason for `s`'s verdict, one line, terminal-safe; empty for a healthy server.
pub fn short_reason(s: &ServerReport) -> String {
    let d = &s.diagnosis;
    if let Some(r) = cache_reason(s) {
        return terminal_safe(&r, false);
    }
    let decisive = s
        .evidence
        .iter()
        .rev()
        .map(|e| &*e.message)
        .find(|m| !m.starts_with("Connection established"))
        .unwrap_or("");
    let text = match d.verdict {
        Verdict::Healthy if crate::advice::legacy_removed_note(s).is_some() => {
            crate::advice::LEGACY_REMOVED_REASON.to_string()
        }
        Verdict::Healthy => String::new(),
        Verdict::Tolerated => {
            if d.filled_fields.is_empty() {
                "Claude Code fills in missing fields".to_string()
            } else {
                format!("Claude Code fills in {}", d.filled_fields.join(", "))
            }
        }
        Verdict::ToolsFetchFailed if d.cause == Some(Cause::NoToolsCapability) => {
            "no tools capability declared".to_string()
        }
        Verdict::ToolsFetchFailed if d.cause == Some(Cause::ToolsTimeout) => match d.timeout_ms {
            Some(t) => format!("tools/list timed out (MCP_TIMEOUT {t} ms)"),
            None => "tools/list timed out (MCP_TIMEOUT)".to_string(),
        },
        Verdict::ToolsFetchFailed => tools_reason(decisive, d.cause, d.bad_tool_path.as_deref()),
        Verdict::Degraded => match d.cause {
            Some(Cause::PaginationTruncated) => format!(
                "tools/list cut at {} pages",
                crate::claude_code::lifecycle::PAGE_CAP.value
            ),
            Some(Cause::ListsRejected) => format!(
                "{} rejected; tools load",
                if d.lost_lists.is_empty() {
                    "resources/prompts".to_string()
                } else {
                    d.lost_lists.join(" and ")
                }
            ),
            Some(Cause::StaleAfterRefresh) => {
                "refetch failed; first listing's tools kept".to_string()
            }
            Some(Cause::ToolNameTooLong) => format!(
                "{} lost: name over {} chars",
                tools_phrase(d.tools_not_sent),
                crate::claude_code::lifecycle::TOOL_NAME_MAX_CHARS.value
            ),
            Some(Cause::ToolHeaderInvalid) => {
                "tool left out: invalid x-mcp-header declaration".to_string()
            }
            _ => "part of the server's offer lost".to_string(),
        },
        Verdict::VersionUnsupported if d.cause == Some(Cause::ModernOnly) => {
            match decisive.split_once("is not supported: ") {
                Some((_, v)) => format!(
                    "speaks only protocol {}; the legacy handshake was used",
                    first_line(v)
                ),
                None => "speaks only the new protocol; the legacy handshake was used".to_string(),
            }
        }
        Verdict::VersionUnsupported => match decisive.split_once("is not supported: ") {
            Some((_, v)) => format!("protocol version {} not supported", first_line(v)),
            None => "protocol version not supported".to_string(),
        },
        Verdict::ConnectionFailed if d.cause == Some(Cause::ModernOnly) => {
            "refused the legacy handshake's protocol version".to_string()
        }
        Verdict::ConnectionFailed => match d.cause {
            Some(Cause::CommandNotFound) => match decisive.split_once("not found in $PATH: ") {
                Some((_, cmd)) => format!("command not found: {}", first_line(cmd)),
                None => "command not found".to_string(),
            },
            Some(Cause::ConnectionClosed) if d.transport == Some(Transport::Remote) => {
                "connection closed during start-up".to_string()
            }
            Some(Cause::ConnectionClosed) => "server exited during start-up".to_string(),
            Some(Cause::Timeout) => "no answer in time".to_string(),
            Some(Cause::NeedsAuth) => "needs authentication".to_string(),
            _ => crate::advice::remote::remote_reason(d, decisive)
                .or_else(|| http_answer(decisive))
                .unwrap_or_else(|| connection_detail(decisive)),
        },
        Verdict::Unknown => "no decisive record in the logs".to_string(),
    };
    terminal_safe(&text, false)
}

/// `Connection failed (400): Error POSTing to endpoint: {"jsonrpc":...,"error":{...,
/// "message":"Bad Request: Unsupported protocol version: ..."}}` -> `HTTP 400: Bad
/// Request: Unsupported protocol version: ...`: the server's own words.
fn http_answer(m: &str) -> Option<String> {
    let line = first_line(m);
    let (head, body) = line.split_once("Error POSTing to endpoint: ")?;
    let v = serde_json::Deserializer::from_str(body)
        .into_iter::<Value>()
        .next()?
        .ok()?;
    let message = v.pointer("/error/message")?.as_str()?;
    let status = head
        .split_once('(')
        .and_then(|(_, r)| r.split_once(')'))
        .map(|(s, _)| s)
        .filter(|s| s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()));
    Some(match status {
        Some(s) => format!("HTTP {s}: {}", first_line(message)),
        None => first_line(message).to_string(),
    })
}

/// `1 tool`, `3 tools` (`tools` when the count is not known).
fn tools_phrase(n: usize) -> String {
    match n {
        0 => "tools".to_string(),
        1 => "1 tool".to_string(),
        n => format!("{n} tools"),
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

/// `Connection failed (ECONNREFUSED): ECONNREFUSED: Unable to ...` -> `ECONNREFUSED: Unable to ...`.
fn connection_detail(m: &str) -> String {
    let line = first_line(m);
    let rest = line
        .split_once("): ")
        .map(|(_, r)| r)
        .or_else(|| line.strip_prefix("Connection failed: "))
        .unwrap_or(line);
    rest.to_string()
}

fn tools_reason(m: &str, cause: Option<Cause>, bad_tool_path: Option<&str>) -> String {
    if let Some(i) = m.find(TOOLS_LIST) {
        let rest = m[i + TOOLS_LIST.len()..].trim_start();
        if rest.starts_with('[') {
            let mut it = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
            if let Some(Ok(Value::Array(issues))) = it.next()
                && let Some(first) = issues.first()
            {
                let more = if issues.len() > 1 {
                    format!(" (+{} more)", issues.len() - 1)
                } else {
                    String::new()
                };
                return format!("{}{more}", zod_issue(first));
            }
        }
        let line = first_line(rest);
        if line.starts_with("missing required resultType") {
            return "resultType missing (revision 2026-07-28 requires it)".to_string();
        }
        // 2.1.288's plain form: `tools.2.inputSchema.type: Invalid input: expected "object"`.
        if let Some((path, msg)) = line.split_once(": ") {
            return plain_issue(&dotted_path(path), msg);
        }
        return line.to_string();
    }
    match (cause, bad_tool_path) {
        (Some(Cause::InvalidToolDefinition), Some(p)) => format!("{p} is invalid"),
        _ => first_line(m.strip_prefix("Failed to fetch tools: ").unwrap_or(m)).to_string(),
    }
}

/// `["tools",2,"inputSchema","type"]` -> `tools[2].inputSchema.type`.
/// `tools.2.inputSchema.type` -> `tools[2].inputSchema.type`.
fn dotted_path(p: &str) -> String {
    let mut out = String::new();
    for seg in p.split('.') {
        if !seg.is_empty() && seg.chars().all(|c| c.is_ascii_digit()) {
            out.push_str(&format!("[{seg}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(seg);
        }
    }
    out
}

fn zod_issue(issue: &Value) -> String {
    let path = crate::text::json_path(issue["path"].as_array().into_iter().flatten());
    let msg = issue["message"].as_str().unwrap_or("");
    if let (Some(exp), Some(got)) = (issue["expected"].as_str(), issue["received"].as_str()) {
        return expected_got(&path, exp, got);
    }
    plain_issue(&path, msg)
}

fn expected_got(path: &str, expected: &str, got: &str) -> String {
    if got == "undefined" {
        format!("{path} missing (expected {expected})")
    } else {
        format!("{path}: expected {expected}, got {got}")
    }
}

/// Reads zod's message text: `Invalid input: expected number, received string`,
/// `Invalid input: expected "object"`, `Invalid option: expected one of "a"|"b"`.
fn plain_issue(path: &str, msg: &str) -> String {
    let body = msg.split_once(": ").map(|(_, b)| b).unwrap_or(msg);
    if let Some(rest) = body.strip_prefix("expected one of ") {
        return format!("{path} must be one of {}", rest.replace('|', ", "));
    }
    if let Some(rest) = body.strip_prefix("expected ") {
        return match rest.split_once(", received ") {
            Some((exp, got)) => expected_got(path, exp, got),
            None => format!("{path} must be {rest}"),
        };
    }
    if msg.is_empty() {
        format!("{path} is invalid")
    } else {
        format!("{path}: {msg}")
    }
}

/// The short reason of a server Claude Code's discovery cache decided (issue 54).
fn cache_reason(s: &ServerReport) -> Option<String> {
    use crate::scan::CacheServedKind;
    let c = s.discovery_cache.as_deref()?;
    let at = |t: Option<u64>| {
        t.map_or_else(
            || "an unknown time".to_string(),
            |t| crate::time::local_time(&crate::time::format_iso(t as i64)),
        )
    };
    match c.kind {
        CacheServedKind::Served => Some(format!(
            "served from cache, not contacted this session; cached at {}; live state unknown",
            at(c.cached_at)
        )),
        CacheServedKind::Kept => Some(format!(
            "cached tools kept while the live list fails, until {}",
            at(c.until)
        )),
        CacheServedKind::Deleted | CacheServedKind::Struck => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zod_lists_become_one_short_reason() {
        let m = "Failed to fetch tools: Invalid result for tools/list: [\n  {\n    \"expected\": \"number\",\n    \"code\": \"invalid_type\",\n    \"path\": [\n      \"ttlMs\"\n    ],\n    \"message\": \"Invalid input: expected number, received string\"\n  },\n  {\n    \"code\": \"invalid_value\",\n    \"values\": [\"public\", \"private\"],\n    \"path\": [\"cacheScope\"],\n    \"message\": \"Invalid option: expected one of \\\"public\\\"|\\\"private\\\"\"\n  }\n]";
        assert_eq!(
            tools_reason(m, None, None),
            "ttlMs: expected number, got string (+1 more)"
        );
        let undefined = m.replace("received string", "received undefined");
        assert_eq!(
            tools_reason(&undefined, None, None),
            "ttlMs missing (expected number) (+1 more)"
        );
        let tool = "Failed to fetch tools: Invalid result for tools/list: [{\"code\":\"invalid_value\",\"values\":[\"object\"],\"path\":[\"tools\",2,\"inputSchema\",\"type\"],\"message\":\"Invalid input: expected \\\"object\\\"\"}]";
        assert_eq!(
            tools_reason(tool, None, None),
            "tools[2].inputSchema.type must be \"object\""
        );
    }

    #[test]
    fn plain_forms_too() {
        assert_eq!(
            tools_reason(
                "Failed to fetch tools: Invalid result for tools/list: tools.2.inputSchema.type: Invalid input: expected \"object\"",
                None,
                None
            ),
            "tools[2].inputSchema.type must be \"object\""
        );
        assert_eq!(
            tools_reason(
                "Failed to fetch tools: Invalid result for tools/list: missing required resultType — servers implementing protocol revision 2026-07-28 MUST include it",
                None,
                None
            ),
            "resultType missing (revision 2026-07-28 requires it)"
        );
        assert_eq!(
            tools_reason(
                "Failed to fetch tools: Internal error: tool registry unavailable",
                None,
                None
            ),
            "Internal error: tool registry unavailable"
        );
        assert_eq!(
            connection_detail("Connection failed (ECONNREFUSED): ECONNREFUSED: Unable to connect."),
            "ECONNREFUSED: Unable to connect."
        );
    }
}
