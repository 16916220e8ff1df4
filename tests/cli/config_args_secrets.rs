//! A stdio server's `args` and the URLs of its `env` hold secrets the launch line hides
//! by its rules (`--api-token T`, `--password=P`, `postgres://user:P@host`): the
//! adversarial pass of session 16 found a server echoing them bare on stderr printed
//! whole (by `scan -v`, `scan --json`, `report`) and kept in the index. Each is learned
//! from the configuration now and hidden wherever it reappears; `--no-redact` shows each,
//! so every check can fail.

use std::path::Path;

use crate::common::*;

/// The value after `--api-token`.
const FLAG_VALUE: &str = "Tok3nValueAbc123";
/// The value of `--password=`.
const EQ_VALUE: &str = "eqPassw0rd55";
/// The password of a URL among the arguments.
const ARG_URL_PW: &str = "ArgPassw0rdQQ";
/// The password of a URL in the server's `env` (under a key that says nothing).
const ENV_URL_PW: &str = "EnvPassw0rdQQ";

const ALL: [&str; 4] = [FLAG_VALUE, EQ_VALUE, ARG_URL_PW, ENV_URL_PW];

const SESSION: &str = "6f1c2d3e-0000-4000-8000-000000000016";

fn write(p: &Path, s: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, s).unwrap();
}

fn home(h: &Path) {
    let project = h.join("work/proj");
    std::fs::create_dir_all(&project).unwrap();
    let key = project.to_string_lossy().into_owned();
    let server = serde_json::json!({
        "command": "pg-mcp",
        "args": ["--api-token", FLAG_VALUE, format!("--password={EQ_VALUE}"),
                 format!("postgres://admin:{ARG_URL_PW}@db.example.com/prod"), "--verbose"],
        "env": {"DATABASE_URL": format!("postgres://admin:{ENV_URL_PW}@db.example.com/prod")}
    });
    write(
        &h.join(".claude.json"),
        &serde_json::json!({"projects": {key.clone(): {"mcpServers": {"db": server}}}}).to_string(),
    );
    let rec = |level: &str, msg: &str| {
        serde_json::json!({level: msg, "timestamp": "2026-11-29T12:00:00.000Z",
                           "sessionId": SESSION, "cwd": key})
        .to_string()
    };
    let echoed = ALL.join(", ");
    let lines = [
        rec("debug", "Starting connection with timeout of 30000ms"),
        rec(
            "error",
            &format!("Server stderr: FATAL: authentication failed (tried {echoed})\n"),
        ),
        rec(
            "error",
            &format!("Connection failed (CONNECTION_CLOSED): Connection closed ({echoed})"),
        ),
    ];
    let f = h
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(&key))
        .join("mcp-logs-db/2026-11-29T12-00-00-000Z.jsonl");
    write(&f, &(lines.join("\n") + "\n"));
    // old enough for the index to keep what it read
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&f)
        .unwrap()
        .set_modified(old)
        .unwrap();
}

/// A log of one failed session of server `name` in project `key` under home `h`: its
/// start, one stderr line (`stderr`), and the connection's failure.
fn write_failing_log(h: &Path, key: &str, name: &str, stderr: &str) {
    let rec = |level: &str, msg: &str| {
        serde_json::json!({level: msg, "timestamp": "2026-11-29T12:00:00.000Z",
                           "sessionId": SESSION, "cwd": key})
        .to_string()
    };
    let f = h
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(key))
        .join(format!("mcp-logs-{name}/2026-11-29T12-00-00-000Z.jsonl"));
    write(
        &f,
        &([
            rec("debug", "Starting connection with timeout of 30000ms"),
            rec("error", &format!("Server stderr: {stderr}\n")),
            rec(
                "error",
                "Connection failed (CONNECTION_CLOSED): Connection closed",
            ),
        ]
        .join("\n")
            + "\n"),
    );
}

/// Home `h` with one project (`h/work/proj`, made) configuring `server` as `name` in
/// `~/.claude.json`, and its failed session ([`write_failing_log`]).
fn failing_server_home(h: &Path, name: &str, server: serde_json::Value, stderr: &str) {
    let project = h.join("work/proj");
    std::fs::create_dir_all(&project).unwrap();
    let key = project.to_string_lossy().into_owned();
    write(
        &h.join(".claude.json"),
        &serde_json::json!({"projects": {key.clone(): {"mcpServers": {name: server}}}}).to_string(),
    );
    write_failing_log(h, &key, name, stderr);
}

/// The views a secret could reach (the screen, `-v`, `--json`, both reports): run by
/// `cmd`, none shows any of `secrets`, and each shows `kept` (what is around them).
fn hidden_in_every_view(cmd: impl Fn(&[&str]) -> Run, secrets: &[&str], kept: &str) {
    for args in [
        &["scan"][..],
        &["scan", "-v"],
        &["scan", "--json"],
        &["report", "--force"],
        &["report", "--json", "--force"],
    ] {
        let r = cmd(args);
        assert!(r.code <= 1, "{args:?}: {}{}", r.stdout, r.stderr);
        let out = format!("{}{}", r.stdout, r.stderr);
        let shown: Vec<&&str> = secrets.iter().filter(|v| out.contains(**v)).collect();
        assert!(shown.is_empty(), "{args:?} shows {shown:?}:\n{out}");
        if args != ["scan"] {
            assert!(out.contains(kept), "{args:?} lacks {kept:?}:\n{out}");
        }
    }
}

/// Every file under `dir`, read as text where it is.
fn texts_under(dir: &Path) -> String {
    let mut out = String::new();
    for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if e.file_type().is_file() {
            out.push_str(&String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()));
        }
    }
    out
}

#[test]
fn secrets_of_a_servers_args_and_env_urls_are_hidden_wherever_they_reappear() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    home(h);
    let cache = h.join("mcplogs-cache");
    let cmd = |args: &[&str]| {
        let mut c = mcplogs(h);
        c.env("MCPLOGS_CACHE_DIR", &cache)
            .args(args)
            .args(["--home", h.to_str().unwrap()]);
        run(&mut c)
    };
    hidden_in_every_view(cmd, &ALL, "authentication failed");
    // the index the scans wrote holds none of them either
    let kept = texts_under(&cache);
    assert!(!kept.is_empty(), "no index written");
    for v in ALL {
        assert!(!kept.contains(v), "the index keeps {v}");
    }
    // what the redacted views hide is there to hide
    let raw = cmd(&["scan", "-v", "--no-redact", "--no-cache"]);
    for v in ALL {
        assert!(
            raw.stdout.contains(v),
            "--no-redact lacks {v}:\n{}",
            raw.stdout
        );
    }
}

/// A plain word after a flag is configuration, not a secret: a server started with
/// `--auth-provider github --no-auth stdio` keeps its name `github` on every screen, and
/// the word `stdio` stays readable in mcplogs' own sentences and in its stderr (learned
/// as secrets, both were hidden everywhere).
#[test]
fn a_plain_word_after_a_flag_is_not_learned_as_a_secret() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    failing_server_home(
        h,
        "github",
        serde_json::json!({
            "command": "gh-mcp",
            "args": ["--auth-provider", "github", "--no-auth", "stdio", "--token-type", "bearer"]
        }),
        "github stdio transport: bearer auth missing",
    );
    let r = run(mcplogs(h)
        .env("MCPLOGS_CACHE_DIR", h.join("mcplogs-cache"))
        .args(["scan", "-v", "--no-cache", "--home", h.to_str().unwrap()]));
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("[REDACTED:config]"), "{}", r.stdout);
    assert!(r.stdout.contains("github stdio transport"), "{}", r.stdout);
    assert!(
        r.stdout.contains("\n  github "),
        "the name is hidden:\n{}",
        r.stdout
    );
}

/// A plain word after a flag that holds a secret (`--password horsebatterystaplez`,
/// `--token=quietmeadowlark`, after a switch too) is a configured secret whatever its
/// shape: hidden where the server echoes it (helper-92 #4: `scan -v` and `scan --json`
/// showed both; the report hid them by its rules alone).
#[test]
fn a_plain_word_after_a_secret_flag_is_a_configured_secret() {
    const PASSWORD: &str = "horsebatterystaplez";
    const TOKEN: &str = "quietmeadowlark";
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    failing_server_home(
        h,
        "db",
        serde_json::json!({
            "command": "db-mcp",
            "args": ["--stdio", "--password", PASSWORD, format!("--token={TOKEN}")]
        }),
        &format!("login as {PASSWORD} with {TOKEN} refused"),
    );
    hidden_but_with_no_redact(h, &[PASSWORD, TOKEN], "refused");
}

/// A number under a password's or a secret's key in a server's `env` (and after
/// `--password` in its args) is a configured secret: hidden where the server echoes it
/// bare (helper-92 #4: all digits was taken for harmless, and `scan -v` showed it); a
/// number under a key about the secret stays.
#[test]
fn a_number_under_a_passwords_key_is_a_configured_secret() {
    const SECRETS: [&str; 3] = ["83927461", "55512345", "19283746"];
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    failing_server_home(
        h,
        "db",
        serde_json::json!({
            "command": "db-mcp",
            "args": ["--stdio", "--password", SECRETS[2]],
            "env": {"DB_PASSWORD": SECRETS[0], "NUMPIN_SECRET": SECRETS[1],
                    "PASSWORD_MIN_LENGTH": "12345678"}
        }),
        &format!(
            "pool refused {} {} {}; minimum 12345678",
            SECRETS[0], SECRETS[1], SECRETS[2]
        ),
    );
    hidden_but_with_no_redact(h, &SECRETS, "minimum 12345678");
}

/// `secrets` hidden in every view of home `h` ([`hidden_in_every_view`], `kept` shown),
/// and each shown by `scan -v --no-redact` (the server did echo it).
fn hidden_but_with_no_redact(h: &std::path::Path, secrets: &[&str], kept: &str) {
    let cmd = |args: &[&str]| {
        let mut c = mcplogs(h);
        c.env("MCPLOGS_CACHE_DIR", h.join("mcplogs-cache"))
            .args(args)
            .args(["--home", h.to_str().unwrap()]);
        run(&mut c)
    };
    hidden_in_every_view(cmd, secrets, kept);
    let raw = cmd(&["scan", "-v", "--no-redact", "--no-cache"]);
    for v in secrets {
        assert!(raw.stdout.contains(v), "{}", raw.stdout);
    }
}

/// A configured value written `${VAR}` is the variable's value: Claude Code expands it
/// before it starts the server, which may echo it. With `--home` (another home's
/// files), the variable was left unexpanded and the value a server echoed printed whole
/// (helper-77 #5): it is taken from this environment now, whichever home is read.
#[test]
fn a_configured_variable_is_hidden_as_its_value_for_any_home() {
    const VALUE: &str = "a8F3kQ9zLm2Pw7Rt";
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path().join("other-home");
    failing_server_home(
        &h,
        "acme",
        serde_json::json!({
            "command": "acme-mcp",
            "env": {"ACME_API_KEY": "${ACME_API_KEY}"}
        }),
        &format!("Error: 401 Unauthorized for {VALUE}"),
    );
    let cmd = |args: &[&str]| {
        let mut c = mcplogs(tmp.path());
        c.env("ACME_API_KEY", VALUE)
            .env("MCPLOGS_CACHE_DIR", tmp.path().join("cache"))
            .args(args)
            .args(["--home", h.to_str().unwrap()]);
        run(&mut c)
    };
    hidden_in_every_view(cmd, &[VALUE], "401 Unauthorized for");
    let raw = cmd(&["scan", "-v", "--no-redact", "--no-cache"]);
    assert!(raw.stdout.contains(VALUE), "{}", raw.stdout);
}

/// A `~/.claude.json` cut short (a write interrupted) cannot be parsed: the scan said
/// nothing of it, and the secrets it configures were printed where a server echoed them
/// (helper-77 #6). Its problem is a warning now, and the values it holds under a key
/// that says secret are hidden all the same.
#[test]
fn a_claude_json_cut_short_is_said_and_its_secrets_stay_hidden() {
    const VALUE: &str = "Zq81mXcutShortKey";
    const ARG: &str = "ArgSecret9876abc";
    const VAR: &str = "VarSecret9876abc";
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path().join("home");
    let key = "/nowhere/proj";
    let whole = serde_json::json!({
        "projects": {key: {"mcpServers": {"acme": {
            "command": "acme-mcp", "args": ["serve", "--api-key", ARG],
            "env": {"ACME_API_KEY": VALUE, "OTHER_TOKEN": "${TRUNC_VAR}"}}}}},
        "tipsHistory": {"a": 1}
    })
    .to_string();
    write(&h.join(".claude.json"), &whole[..whole.len() - 3]);
    write_failing_log(
        &h,
        key,
        "acme",
        &format!("Error: 401 for {VALUE} {ARG} {VAR}"),
    );
    let cmd = |args: &[&str]| {
        let mut c = mcplogs(tmp.path());
        c.env("MCPLOGS_CACHE_DIR", tmp.path().join("cache"))
            .env("TRUNC_VAR", VAR)
            .args(args)
            .args(["--home", h.to_str().unwrap()]);
        run(&mut c)
    };
    let r = cmd(&["scan", "-v"]);
    assert!(
        r.stderr.contains(".claude.json: not valid JSON ("),
        "{}",
        r.stderr
    );
    hidden_in_every_view(cmd, &[VALUE, ARG, VAR], "401 for");
    let json = cmd(&["scan", "--json"]);
    assert!(
        json.stdout.contains("\"message\": \"not valid JSON ("),
        "{}",
        json.stdout
    );
    // the report does not say the server is configured nowhere (helper-78 M8)
    let md = cmd(&["report", "--force"]).stdout;
    assert!(
        md.contains("not known: `~/.claude.json` could not be read as JSON"),
        "{md}"
    );
    assert!(!md.contains("not found in `~/.claude.json`"), "{md}");
    // `fix` and `export` say it too, once (helper-78 L3)
    for args in [&["fix", "--dry-run"][..], &["export", "--dry-run"]] {
        let r = cmd(args);
        assert_eq!(
            r.stderr.matches(".claude.json: not valid JSON (").count(),
            1,
            "{args:?}: {}",
            r.stderr
        );
    }
    let raw = cmd(&["scan", "-v", "--no-redact", "--no-cache"]);
    for v in [VALUE, ARG, VAR] {
        assert!(raw.stdout.contains(v), "{}", raw.stdout);
    }
}
