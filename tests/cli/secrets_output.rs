//! No command prints a secret unless `--no-redact`: `scan` (table, `--verbose`,
//! `--json`) and `explain` (text and `--json`) hide the secrets in the log text they
//! show; home folders stay, and the JSON is otherwise exactly the same.

use crate::common::*;

const BEARER: &str = "eyJhbGciOiJIUzI1NiJ9.abcdefghijklmnop";
const ANTHROPIC: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv";
const URL_PASSWORD: &str = "hunter2pass";

/// A log tree whose deciding record carries three secrets.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("-home-u-work").join("mcp-logs-api");
    std::fs::create_dir_all(&logs).unwrap();
    let base = r#""timestamp":"2026-11-29T12:44:17.856Z","sessionId":"s1","cwd":"/home/u/work""#;
    let failed = format!(
        "Connection failed (401): SSE error: Unauthorized; sent Authorization: Bearer {BEARER} to https://bob:{URL_PASSWORD}@api.example.com/mcp with ANTHROPIC_API_KEY={ANTHROPIC}"
    );
    let text = format!(
        "{{\"debug\":\"Initializing HTTP transport\",{base}}}\n{{\"error\":{},{base}}}\n",
        serde_json::to_string(&failed).unwrap()
    );
    std::fs::write(logs.join("2026-11-29T12-44-17-845Z.jsonl"), text).unwrap();
    dir
}

fn assert_no_secret(out: &str) {
    for s in [BEARER, ANTHROPIC, URL_PASSWORD] {
        assert!(!out.contains(s), "{s} printed:\n{out}");
    }
}

fn scan(dir: &std::path::Path, args: &[&str]) -> Run {
    let home = tempfile::tempdir().unwrap();
    run(mcplogs(home.path()).arg("scan").arg(dir).args(args))
}

#[test]
fn scan_hides_secrets_in_the_table_verbose_and_json() {
    let dir = tree();
    let table = scan(dir.path(), &[]);
    assert!(table.stdout.contains("api"), "{}", table.stdout);
    assert_no_secret(&table.stdout);

    let verbose = scan(dir.path(), &["--verbose"]);
    assert!(
        verbose.stdout.contains("[REDACTED:authorization]"),
        "{}",
        verbose.stdout
    );
    assert!(verbose.stdout.contains("[REDACTED:url-credentials]"));
    assert!(verbose.stdout.contains("[REDACTED:anthropic-api-key]"));
    assert_no_secret(&verbose.stdout);
    assert_no_secret(&verbose.stderr);

    let json = scan(dir.path(), &["--json"]);
    assert_no_secret(&json.stdout);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let evidence = &doc["servers"][0]["evidence"];
    let message = evidence
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .find(|m| m.starts_with("Connection failed"))
        .unwrap();
    // Exactly the record, only the secrets replaced.
    assert_eq!(
        message,
        "Connection failed (401): SSE error: Unauthorized; sent Authorization: Bearer [REDACTED:authorization] to https://[REDACTED:url-credentials]@api.example.com/mcp with ANTHROPIC_API_KEY=[REDACTED:anthropic-api-key]"
    );
    // Paths are not secrets: the log file and the project stay as they are.
    assert!(json.stdout.contains(&dir.path().display().to_string()));
}

#[test]
fn scan_no_redact_shows_them() {
    let dir = tree();
    let r = scan(dir.path(), &["--verbose", "--no-redact"]);
    for s in [BEARER, ANTHROPIC, URL_PASSWORD] {
        assert!(r.stdout.contains(s), "{s} missing:\n{}", r.stdout);
    }
    let r = scan(dir.path(), &["--json", "--no-redact"]);
    assert!(r.stdout.contains(ANTHROPIC));
}

const PASTED: &str = "Checking MCP server health...\n\n\
    crm: npx -y crm-mcp --api-key=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv - ✗ Failed to connect\n\
    remote: https://bob:hunter2pass@api.example.com/mcp (HTTP) - ✓ Connected\n";

#[test]
fn explain_hides_secrets_in_text_and_json() {
    let home = tempfile::tempdir().unwrap();
    let input = home.path().join("pasted.txt");
    std::fs::write(&input, PASTED).unwrap();
    let text = run(mcplogs(home.path()).arg("explain").arg(&input));
    assert!(text.stdout.contains("crm"), "{}", text.stdout);
    assert_no_secret(&text.stdout);

    let (r, doc) = run_json(mcplogs(home.path()).args(["explain", "--json"]).arg(&input));
    assert_no_secret(&r.stdout);
    assert_eq!(
        doc["servers"][0]["target"],
        "npx -y crm-mcp --api-key=[REDACTED:anthropic-api-key]"
    );
    assert_eq!(
        doc["servers"][1]["target"],
        "https://[REDACTED:url-credentials]@api.example.com/mcp (HTTP)"
    );
    // The verdicts are those of the unredacted text.
    assert_eq!(doc["servers"][0]["verdict"], "connection-failed");
    assert_eq!(doc["servers"][1]["verdict"], "healthy");

    let raw = run(mcplogs(home.path())
        .args(["explain", "--json", "--no-redact"])
        .arg(&input));
    assert!(raw.stdout.contains(ANTHROPIC) && raw.stdout.contains(URL_PASSWORD));
}

/// `settings` shows env key names and the one value it is about, never other values,
/// also when the file is JSON5 or broken (the parser messages quote no content).
/// `fix` diffs mask secret values in every line shown.
#[test]
fn settings_and_fix_diff_show_no_secret_values() {
    let home = tempfile::tempdir().unwrap();
    let claude = home.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let settings = claude.join("settings.json");
    let secret_lines = format!(
        "    \"ANTHROPIC_API_KEY\": \"{ANTHROPIC}\",\n    \"AWS_BEARER_TOKEN_BEDROCK\": \"{BEARER}\",\n    \"HTTPS_PROXY\": \"http://bob:{URL_PASSWORD}@proxy:3128\",\n"
    );
    for text in [
        format!("{{\n  \"env\": {{\n{secret_lines}    \"A\": \"1\"\n  }}\n}}\n"),
        format!("{{\n  // JSON5\n  \"env\": {{\n{secret_lines}    \"A\": \"1\",\n  }},\n}}\n"),
        format!("{{\n  \"env\": {{\n{secret_lines}    \"A\": \"1\" oops\n  }}\n}}\n"),
    ] {
        std::fs::write(&settings, &text).unwrap();
        let managed = home.path().join("managed");
        for args in [&["settings"][..], &["settings", "--json"]] {
            let r = run(mcplogs(home.path())
                .current_dir(home.path())
                .args(args)
                .arg("--managed-dir")
                .arg(&managed));
            assert_no_secret(&r.stdout);
            assert_no_secret(&r.stderr);
        }
        for extra in [None, Some("--rewrite-strict")] {
            let r = run(mcplogs(home.path())
                .current_dir(home.path())
                .args(["fix", "--dry-run", "--force", "--managed-dir"])
                .arg(&managed)
                .args(extra));
            assert_no_secret(&r.stdout);
            assert_no_secret(&r.stderr);
        }
    }
}

/// A warning names a file; the file's name can hold a token (a folder named after it,
/// a pasted key). Warnings go to stderr, which no later pass redacts: they are hidden
/// in the report before printing, in `scan` and `du` alike.
#[cfg(unix)]
#[test]
fn warnings_name_files_without_their_secrets() {
    let dir = tree();
    let logs = dir.path().join("-home-u-work").join("mcp-logs-api");
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let fifo = logs.join(format!("{token}.jsonl"));
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for args in [&["scan", "--verbose"][..], &["du"][..]] {
        let home = tempfile::tempdir().unwrap();
        let r = run(mcplogs(home.path()).args(args).arg(dir.path()));
        assert!(r.stderr.contains("warning"), "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("[REDACTED:github-token]"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains(token), "{args:?}: {}", r.stderr);
    }
}

/// `scan --server` that matches nothing lists the servers it knows on stderr, with a
/// "did you mean"; a server named after its folder can hold a token there.
#[test]
fn an_unknown_server_lists_the_known_ones_without_their_secrets() {
    let dir = tree();
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let logs = dir
        .path()
        .join("-home-u-work")
        .join(format!("mcp-logs-evil-{token}"));
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::copy(
        dir.path()
            .join("-home-u-work/mcp-logs-api/2026-11-29T12-44-17-845Z.jsonl"),
        logs.join("2026-11-29T12-44-17-845Z.jsonl"),
    )
    .unwrap();
    let r = scan(dir.path(), &["--server", "evil"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("Known servers"), "{}", r.stderr);
    assert!(
        r.stderr.contains("evil-[REDACTED:github-token]"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains(token), "{}", r.stderr);
    assert_no_secret(&r.stderr);
}

/// `scan --json` rows (`redact::pretty`) leave a struct's field names as they are: the
/// rules change none of the field names of mcplogs' documents (found in their schemas),
/// so the text is the one the Value path makes.
#[test]
fn no_field_name_of_any_document_is_changed_by_the_rules() {
    fn names(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                if let Some(serde_json::Value::Object(props)) = o.get("properties") {
                    out.extend(props.keys().cloned());
                }
                o.values().for_each(|x| names(x, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| names(x, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    for (_, schema) in mcplogs::json_doc::schemas() {
        names(&serde_json::to_value(schema).unwrap(), &mut all);
    }
    assert!(all.len() > 100, "{} names", all.len());
    assert!(all.iter().any(|n| n == "legacyFixApplies"));
    let r = mcplogs::redact::Redactor::secrets_only(std::iter::empty());
    for n in &all {
        assert_eq!(r.redacted(n), None, "{n}");
    }
    // A field named like a secret would be written as it is, where the Value path
    // would hide it: the check above is what keeps the two paths one.
    #[derive(serde::Serialize)]
    struct Odd {
        #[serde(rename = "ghp_0123456789abcdefghijABCDEFGHIJ")]
        x: u8,
    }
    let odd = mcplogs::redact::pretty::to_secrets_pretty(&Odd { x: 1 }, 0).unwrap();
    assert!(odd.contains("ghp_0123456789"), "{odd}");
    assert!(r.redacted("ghp_0123456789abcdefghijABCDEFGHIJ").is_some());
}
