//! The redaction corpus (issue 10, item 10): more than 60 planted secrets, in every shape
//! and encoding the redactor claims (raw, JSON-escaped `\/` and `\u0041`, twice-escaped,
//! URL-encoded, glued to a word, split across two lines of one record, quoted with spaces,
//! semicolons and escaped quotes), planted in real sample logs: decisive records, server
//! stderr lines, a server's folder name and a zod path. Each carries markers; not one
//! marker may appear in any output of any command. The same runs with `--no-redact` show
//! every marker, which proves the plants reach the output at all.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::Value;

/// One planted text and the markers (parts of its secret) that must never be shown.
struct Plant {
    text: &'static str,
    markers: &'static [&'static str],
}

const fn p(text: &'static str, markers: &'static [&'static str]) -> Plant {
    Plant { text, markers }
}

/// Planted in log records (every entry is one secret).
const CORPUS: &[Plant] = &[
    // Provider formats, raw.
    p("sk-ant-api03-SKRa01aaaaaaaaaaaaaaaaaa", &["SKRa01"]),
    p("sk-proj-SKRa02bbbbbbbbbbbbbbbbbbbbbb", &["SKRa02"]),
    p("ghp_SKRa03cccccccccccccccccccccccccccccc", &["SKRa03"]),
    p("github_pat_11SKRa04dddddddddddddddddddddd", &["SKRa04"]),
    p("xoxb-123456789012-SKRa05slack", &["SKRa05"]),
    p("AKIASKRA06ABCDEFGHIJ", &["SKRA06"]),
    p(
        "AWS_SECRET_ACCESS_KEY=SKRa07JalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLE",
        &["SKRa07"],
    ),
    p(
        r#"{"aws_secret_access_key": "SKRa08JalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLE"}"#,
        &["SKRa08"],
    ),
    p("sk_live_SKRa09abcdefghijklmnop", &["SKRa09"]),
    p("rk_live_SKRa10abcdefghijklmnop", &["SKRa10"]),
    p(
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTS1IxMSJ9.SKRa11signature",
        &["SKRa11", "eyJzdWIiOiJTS1IxMSJ9"],
    ),
    p(
        "-----BEGIN PRIVATE KEY-----\nMIIESKRa12lineone\nSKRb12linetwo==\n-----END PRIVATE KEY-----",
        &["SKRa12", "SKRb12"],
    ),
    p("MYSQL_PWD=SKRa13mysql", &["SKRa13"]),
    p("DB_PASS=SKRa14dbpass", &["SKRa14"]),
    p("PGPASS=SKRa15pgpass", &["SKRa15"]),
    p("AUTH=SKRa16auth", &["SKRa16"]),
    p("PASS=SKRa17pass", &["SKRa17"]),
    p(
        "Cookie: session=SKRa18ck; theme=SKRb18ck",
        &["SKRa18", "SKRb18"],
    ),
    p("Set-Cookie: sid=SKRa19sc; Path=/; HttpOnly", &["SKRa19"]),
    p("--token SKRa20tokarg", &["SKRa20"]),
    p("--password SKRa21pwarg", &["SKRa21"]),
    p("--api-key=SKRa22keyarg", &["SKRa22"]),
    p(
        r#"PASSWORD="SKRa23 SKRb23 b; SKRc23 c""#,
        &["SKRa23", "SKRb23", "SKRc23"],
    ),
    p(
        r#"PASSWORD="SKRa24 \"SKRb24\" SKRc24""#,
        &["SKRa24", "SKRb24", "SKRc24"],
    ),
    p("Authorization: Bearer SKRa25bearer", &["SKRa25"]),
    p("Authorization: Basic SKRa26basic=", &["SKRa26"]),
    p(
        "https://SKRa27user:SKRb27pass@host.example/x",
        &["SKRa27", "SKRb27"],
    ),
    p("SKRa28.person@example.org", &["SKRa28"]),
    p(
        "auth_hash=SKRa29f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7",
        &["SKRa29"],
    ),
    p(
        "signature 5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d",
        &["5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d"],
    ),
    p("AIzaSKRa31googlegooglegooglegoogle12345", &["SKRa31"]),
    p("X-Api-Key: SKRa32hdr", &["SKRa32"]),
    p(r#""client_secret": "SKRa33cs""#, &["SKRa33"]),
    p("AWS_SESSION_TOKEN=SKRa34sess", &["SKRa34"]),
    p("NPM_TOKEN=SKRa35npm", &["SKRa35"]),
    // JSON-escaped: `\u`-escaped letters, `\/`, escaped quotes, twice-escaped.
    p(r"\u0073k-ant-api03-SKRa36Q\u0041bbbbbbbbbbbbb", &["SKRa36"]),
    p(
        r"https:\/\/SKRa37user:SKRb37pass@host\/x",
        &["SKRa37", "SKRb37"],
    ),
    p(r#"{\"DB_PASSWORD\":\"SKRa38dbpw\"}"#, &["SKRa38"]),
    p(r#"{\\\"DB_PASSWORD\\\":\\\"SKRa52dbpw\\\"}"#, &["SKRa52"]),
    p(r"sk\u005flive\u005fSKRa47abcdefghijk", &["SKRa47"]),
    p(r"\u0067hp_SKRa64eeeeeeeeeeeeeeeeeeeeeeeeeeee", &["SKRa64"]),
    p(
        r"-----BEGIN RSA PRIVATE KEY-----\nSKRa53lineone\nSKRb53linetwo\n-----END RSA PRIVATE KEY-----",
        &["SKRa53", "SKRb53"],
    ),
    p(r#"{\"Authorization\":\"Bearer SKRa59bt\"}"#, &["SKRa59"]),
    // URL-encoded.
    p("%22sk-ant-api03-SKRa39aaaaaaaaaaaaa%22", &["SKRa39"]),
    p(
        "https%3A%2F%2FSKRa40user%3ASKRb40pass%40host",
        &["SKRa40", "SKRb40"],
    ),
    p("password%3DSKRa48urlpw", &["SKRa48"]),
    p("api_key%3DSKRa62urlkey", &["SKRa62"]),
    // Glued to a word.
    p("tok_ghp_SKRa42ffffffffffffffffffffffffffff", &["SKRa42"]),
    p("token_xoxp-SKRa57-slack-token", &["SKRa57"]),
    p("keyAKIASKRA58ABCDEFGHIJ", &["SKRA58"]),
    p(
        "idtoken_eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTS1I2MyJ9.SKRa63sig",
        &["SKRa63"],
    ),
    // Split across two lines of one record.
    p(
        "ghp_SKRa44gggggggggg\nSKRb44hhhhhhhhhhhhhhhhhh",
        &["SKRa44", "SKRb44"],
    ),
    p(
        "sk-ant-api03-SKRa45iiii\n  SKRb45jjjjjjjjjjjj",
        &["SKRa45", "SKRb45"],
    ),
    // Quoted with spaces; other key spellings.
    p(r#"--token "SKRa50 SKRb50""#, &["SKRa50", "SKRb50"]),
    p("password: SKRa51yaml", &["SKRa51"]),
    p("bearer SKRa54bearer", &["SKRa54"]),
    p(
        r#""cookie": "sid=SKRa55ck; other=SKRb55ck""#,
        &["SKRa55", "SKRb55"],
    ),
    p(r#"MYSQL_PWD="SKRa56 spaced pw""#, &["SKRa56"]),
    p("npx server --password=SKRa60pwarg", &["SKRa60"]),
    p("https://SKRa61tok@github.com/x", &["SKRa61"]),
    p(
        "?jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTS1I0OSJ9.SKRa49sig",
        &["SKRa49"],
    ),
    p("PGPASSWORD='SKRa65 single'", &["SKRa65"]),
    // Issue 23: GitLab, Hugging Face, npm, SendGrid, `.netrc`, `password V` with a
    // space, in every encoding above.
    p("glpat-SKRa66gitlabxxxxxxxxxxxx", &["SKRa66"]),
    p("hf_SKRa67huggingfacexxxxxxxxxxxxxxxx", &["SKRa67"]),
    p("npm_SKRa68npmxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", &["SKRa68"]),
    p(
        "SG.SKRa69sendgridxxxxxxx.SKRb69sendgridyyyyyyyyyyyyyyyyyyyyy",
        &["SKRa69", "SKRb69"],
    ),
    p(
        "machine api.example.com login jane password SKRa70netrc",
        &["SKRa70"],
    ),
    p("password SKRa71spaced", &["SKRa71"]),
    p("secret SKRa72spaced", &["SKRa72"]),
    p("token SKRa73spaced", &["SKRa73"]),
    p("passwd SKRa74spaced", &["SKRa74"]),
    p(r"\u0067lpat-SKRa75gitlabxxxxxxxxxxxx", &["SKRa75"]),
    p(r"hf\u005fSKRa76huggingfacexxxxxxxxxxxxxxxx", &["SKRa76"]),
    p(
        r"npm\u005fSKRa77npmxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        &["SKRa77"],
    ),
    p(
        r"SG\u002eSKRa78sendgridxxxxxxx\u002eSKRb78sendgridyyyyyyyyyyyyyyyyyyyyy",
        &["SKRa78", "SKRb78"],
    ),
    p(r"machine h login u password\u0020SKRa79netrc", &["SKRa79"]),
    p(r"password\u0020SKRa80spaced", &["SKRa80"]),
    p(
        r#"{\\\"note\\\":\\\"glpat-SKRa81gitlabxxxxxxxxxxxx\\\"}"#,
        &["SKRa81"],
    ),
    p(
        r#"{\\\"note\\\":\\\"password SKRa82twice\\\"}"#,
        &["SKRa82"],
    ),
    p("%22glpat-SKRa83gitlabxxxxxxxxxxxx%22", &["SKRa83"]),
    p("hf%5FSKRa84huggingfacexxxxxxxxxxxxxxxx", &["SKRa84"]),
    p("npm%5FSKRa85npmxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", &["SKRa85"]),
    p(
        "SG%2ESKRa86sendgridxxxxxxx%2ESKRb86sendgridyyyyyyyyyyyyyyyyyyyyy",
        &["SKRa86", "SKRb86"],
    ),
    p(
        "machine%20h%20login%20u%20password%20SKRa87netrc",
        &["SKRa87"],
    ),
    p("password%20SKRa88spaced", &["SKRa88"]),
    p("tok_glpat-SKRa89gitlabxxxxxxxxxxxx", &["SKRa89"]),
    p("tok_hf_SKRa90huggingfacexxxxxxxxxxxxxxxx", &["SKRa90"]),
    p(
        "tok_npm_SKRa91npmxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        &["SKRa91"],
    ),
    p(
        "tok_SG.SKRa92sendgridxxxxxxx.SKRb92sendgridyyyyyyyyyyyyyyyyyyyyy",
        &["SKRa92", "SKRb92"],
    ),
    p(
        "glpat-SKRa93gitlabxx\nSKRb93gitlabyyyyyyyy",
        &["SKRa93", "SKRb93"],
    ),
    p(
        "hf_SKRa94huggingface\n  SKRb94huggingfaceyyyyy",
        &["SKRa94", "SKRb94"],
    ),
    p(
        "npm_SKRa95npmxxxxxxxxxxx\nSKRb95npmyyyyyyyyyyyyyyyyy",
        &["SKRa95", "SKRb95"],
    ),
    p(
        "SG.SKRa96sendgridxxxxxxx.SKRb96sendgrid\nSKRc96sendgridyyyyyyyyyy",
        &["SKRa96", "SKRb96", "SKRc96"],
    ),
    p("machine h\n  login u\n  password SKRa97", &["SKRa97"]),
    p(r#"password "SKRa98 spaced pw""#, &["SKRa98"]),
    p("token 'SKRa99 single q'", &["SKRa99"]),
    // An OAuth challenge is kept as a challenge, its URL's query credential is not; a
    // padded token at the end of a quoted string is still a token.
    p(
        r#"WWW-Authenticate: Bearer realm="x", resource_metadata="https://a.test/prm?access_token=SKRq01prm""#,
        &["SKRq01"],
    ),
    p(r#"{"auth":"Bearer SKRq02bearer="}"#, &["SKRq02"]),
];

/// A secret in a server's folder name (glued to a word) and one in a zod path element.
const SERVER_SECRET: &str = "tok_ghp_SKRa43kkkkkkkkkkkkkkkkkkkkkkkkkk";
const ZOD_SECRET: &str = "sk-ant-api03-SKRa46zodpathsecret";

fn all_markers() -> Vec<&'static str> {
    let mut v: Vec<&str> = CORPUS
        .iter()
        .flat_map(|p| p.markers.iter().copied())
        .collect();
    v.push("SKRa43");
    v.push("SKRa46");
    v
}

struct Tree {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    managed: PathBuf,
    paste: PathBuf,
}

fn plant() -> Tree {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_tree(&samples().join("linux-home"), &home);
    let project = tmp.path().join("proj");
    fs::create_dir_all(&project).unwrap();
    let managed = tmp.path().join("managed");
    fs::create_dir_all(&managed).unwrap();

    let all: String = CORPUS
        .iter()
        .map(|p| p.text)
        .collect::<Vec<_>>()
        .join(" |\n");
    let cache = home.join(".cache/claude-cli-nodejs");
    for entry in walkdir::WalkDir::new(&cache) {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|e| e == "jsonl") {
            plant_file(entry.path(), &all);
        }
    }
    // A secret glued into a server's folder name.
    let proj_dir = fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    fs::rename(
        proj_dir.join("mcp-logs-exits-early"),
        proj_dir.join(format!("mcp-logs-{SERVER_SECRET}")),
    )
    .unwrap();

    // Logs old enough for `prune` to plan deleting them (its table names the folders).
    age_all(&cache, 3);
    // A configured server for `probe`: the secret in its name, every plant as one of
    // its arguments (a flag and its value are two JSON strings), in its env and its
    // command. The command does not exist, so the probe fails at once.
    let args: Vec<&str> = CORPUS
        .iter()
        .flat_map(|p| match p.text.split_once(' ') {
            Some((flag, v)) if flag.starts_with("--") => vec![flag, v],
            _ => vec![p.text],
        })
        .collect();
    let config = serde_json::json!({"mcpServers": {
        SERVER_SECRET: {
            "command": format!("/nonexistent/{ZOD_SECRET}"),
            "args": args,
            "env": {"API_KEY": "SKRa20tokarg", "MYSQL_PWD": "SKRa13mysql"},
        }
    }});
    fs::write(home.join(".claude.json"), config.to_string()).unwrap();

    let paste = tmp.path().join("paste.txt");
    fs::write(
        &paste,
        format!("srv: npx srv --token SKRa20tokarg - \u{2717} Failed to connect\nConnection failed: {all}\n"),
    )
    .unwrap();
    Tree {
        _tmp: tmp,
        home,
        project,
        managed,
        paste,
    }
}

/// Appends the corpus to every decisive record and stderr line, and puts a secret into
/// the zod path of the wrong-types server's tools/list failure.
fn plant_file(path: &Path, all: &str) {
    let text = fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let Ok(mut v) = serde_json::from_str::<Value>(line) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let obj = v.as_object_mut().unwrap();
        for key in ["debug", "error"] {
            if let Some(Value::String(m)) = obj.get_mut(key) {
                if m.starts_with("Server stderr") {
                    m.push_str(&format!(" {all}"));
                } else if m.starts_with("Failed to fetch tools") {
                    *m = m.replace("\"ttlMs\"", &format!("\"{ZOD_SECRET}\""));
                    m.push_str(&format!(" [{all}]"));
                } else if m.starts_with("Connection failed")
                    || m.starts_with("HTTP Connection failed")
                {
                    m.push_str(&format!(" [{all}]"));
                }
            }
        }
        out.push_str(&serde_json::to_string(&v).unwrap());
        out.push('\n');
    }
    fs::write(path, out).unwrap();
}

/// Every string in a JSON document, one per line (so markers are found however JSON
/// escaped them).
fn json_strings(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| json_strings(x, out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| {
            out.push_str(k);
            out.push('\n');
            json_strings(x, out);
        }),
        _ => {}
    }
}

/// stdout (its strings, for JSON) and stderr of one run.
fn shown(t: &Tree, args: &[&str]) -> String {
    let mut cmd = mcplogs(&t.home);
    cmd.args(args)
        .env("USER", "nobody-here")
        .current_dir(&t.project);
    let r = run(&mut cmd);
    assert!(
        matches!(r.code, 0 | 1),
        "{args:?}: exit {}: {}",
        r.code,
        r.stderr
    );
    let mut s = if args.contains(&"--json") {
        let v: Value =
            serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e})"));
        let mut s = String::new();
        json_strings(&v, &mut s);
        s
    } else {
        r.stdout
    };
    s.push_str(&r.stderr);
    s
}

fn args<'a>(t: &'a Tree, cmd: &[&'a str]) -> Vec<&'a str> {
    let mut v: Vec<&str> = cmd.to_vec();
    match cmd[0] {
        "scan" | "du" => v.extend(["--home", t.home.to_str().unwrap()]),
        "report" => v.extend([
            "--home",
            t.home.to_str().unwrap(),
            "--managed-dir",
            t.managed.to_str().unwrap(),
        ]),
        "explain" => v.push(t.paste.to_str().unwrap()),
        "prune" => v.extend(["--home", t.home.to_str().unwrap()]),
        "probe" => v.extend(["--claude-version", "2.1.332"]),
        _ => {}
    }
    v
}

#[test]
fn the_corpus_is_large_enough() {
    let n = CORPUS.len() + 2;
    assert!(n >= 60, "{n} planted secrets");
}

#[test]
fn every_planted_secret_reaches_the_unredacted_output() {
    let t = plant();
    for cmd in [
        &["scan", "--verbose", "--no-redact"][..],
        &["scan", "--json", "--no-redact"],
        &["report", "--no-redact"],
        &["report", "--json", "--no-redact"],
        &["probe", "--json", "--no-redact"],
    ] {
        let out = shown(&t, &args(&t, cmd));
        let missing: Vec<&str> = all_markers()
            .into_iter()
            .filter(|m| !out.contains(m))
            .collect();
        assert!(missing.is_empty(), "{cmd:?} does not show {missing:?}");
    }
}

#[test]
fn no_planted_secret_appears_in_any_output() {
    let t = plant();
    for cmd in [
        &["scan"][..],
        &["scan", "--verbose"],
        &["scan", "--json"],
        &["report"],
        &["report", "--json"],
        &["report", "--keep-hosts"],
        &["du"],
        &["du", "--json"],
        &["explain"],
        &["explain", "--json"],
        &["prune", "--dry-run"],
        &["prune", "--dry-run", "--json"],
        &["probe"],
        &["probe", "--json"],
        &["report", "--probe"],
        &["report", "--probe", "--json"],
    ] {
        let out = shown(&t, &args(&t, cmd));
        let leaks: Vec<String> = all_markers()
            .into_iter()
            .filter(|m| out.contains(m))
            .map(|m| {
                let line = out.lines().find(|l| l.contains(m)).unwrap_or("");
                format!("{m} in: {}", line.chars().take(300).collect::<String>())
            })
            .collect();
        assert!(leaks.is_empty(), "{cmd:?} leaks:\n{}", leaks.join("\n"));
        assert!(out.contains("[REDACTED:"), "{cmd:?} redacted nothing?");
    }
}

#[test]
fn settings_and_fix_diffs_show_no_secret_value() {
    let t = plant();
    let dir = t.home.join(".claude");
    fs::create_dir_all(&dir).unwrap();
    let settings = dir.join("settings.json");
    let markers = [
        "SKRs01", "SKRs02", "SKRs03", "SKRs04", "SKRs05", "SKRs06", "SKRs07",
    ];
    // Secret values under the keys the issue names, one on the line after its key. A fix
    // diff shows three lines around the change, so two files show them all.
    let files = [
        (
            "{\n  \"env\": {\n    \"MYSQL_PWD\": \"SKRs01mysql\",\n    \"PGPASS\": \"SKRs02pg\",\n    \"AUTH\": \"SKRs03auth\",\n    \"X\": \"sk-ant-api03-SKRs07anthropic\"\n  }\n}\n",
            &["MYSQL_PWD", "PGPASS", "AUTH"][..],
        ),
        (
            "{\n  \"env\": {\n    \"PASS\": \"SKRs04pass\",\n    \"DB_PASSWORD\":\n      \"SKRs05nextline\",\n    \"HTTPS_PROXY\": \"http://u:SKRs06proxy@proxy:3128\"\n  }\n}\n",
            &["PASS", "DB_PASSWORD"][..],
        ),
    ];
    let settings_s = settings.to_str().unwrap();
    let project = t.project.to_str().unwrap();
    let managed = t.managed.to_str().unwrap();
    let home = t.home.to_str().unwrap();
    for (content, keys) in files {
        fs::write(&settings, content).unwrap();
        for cmd in [
            vec!["settings", "--project", project, "--managed-dir", managed],
            vec![
                "settings",
                "--json",
                "--project",
                project,
                "--managed-dir",
                managed,
            ],
            vec![
                "fix",
                "--dry-run",
                "--force",
                "--settings",
                settings_s,
                "--project",
                project,
                "--managed-dir",
                managed,
                "--home",
                home,
            ],
        ] {
            let out = shown(&t, &cmd);
            for m in markers {
                assert!(!out.contains(m), "{cmd:?} shows {m}:\n{out}");
            }
            if cmd[0] == "fix" {
                // The diff shows those lines (keys visible), so the test can fail.
                for k in keys {
                    assert!(out.contains(&format!("\"{k}\"")), "{k} not in diff:\n{out}");
                }
            }
        }
    }
}

/// A secret in the settings file's path (a project folder named after a token, glued to
/// a word) is hidden in the `fix` diff's header lines, as in every other line.
#[test]
fn a_secret_in_the_settings_path_is_hidden_in_the_fix_diff() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp
        .path()
        .join("proj_ghp_SKRd01cccccccccccccccccccccccccccccc");
    fs::create_dir_all(project.join(".claude")).unwrap();
    let settings = project.join(".claude/settings.local.json");
    fs::write(&settings, "{\n  \"env\": {}\n}\n").unwrap();
    let managed = tmp.path().join("managed");
    fs::create_dir_all(&managed).unwrap();
    let r = run(mcplogs(tmp.path())
        .args(["fix", "--dry-run", "--force", "--settings"])
        .arg(&settings)
        .arg("--managed-dir")
        .arg(&managed));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("--- "), "{}", r.stdout);
    assert!(!r.stdout.contains("SKRd01"), "{}", r.stdout);
    assert!(
        r.stdout.contains("proj_[REDACTED:github-token]"),
        "{}",
        r.stdout
    );
}

/// Issue 23, item 3: the new shapes where the second adversarial pass found them raw:
/// in record messages, in `cwd`s (and so in the project folder's encoded name) and in
/// server folder names, across `report`, `report --json`, `scan --json` and
/// `scan --verbose`; and unique-local and link-local IPv6 in `report` (Markdown and
/// JSON), masked as RFC 1918 IPv4 is. `--no-redact` (and `--keep-hosts` for the
/// addresses) shows every one, so the test can fail.
#[test]
fn new_shapes_in_records_cwds_and_folder_names_are_hidden() {
    const SHAPES: &[&str] = &[
        "glpat-SKRe01gitlabxxxxxxxxxxxx",
        "hf_SKRe02huggingfacexxxxxxxxxxxxxxxx",
        "npm_SKRe03npmxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "SG.SKRe04sendgridxxxxxxx.SKRf04sendgridyyyyyyyyyyyyyyyyyyyyy",
        "machine api.example.com login jane password SKRe05netrc",
        "password SKRe06spaced",
    ];
    const ADDRESSES: &[&str] = &["fd12:3456:789a:1::beef", "fe80::1ce:c0ff:fe12:3456%eth0"];
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_tree(&samples().join("linux-home"), &home);
    let managed = tmp.path().join("managed");
    fs::create_dir_all(&managed).unwrap();
    // The project's path holds two tokens; its folder is that path, encoded.
    let project = tmp
        .path()
        .join("work")
        .join("glpat-SKRe11gitlabxxxxxxxxxxxx")
        .join("hf_SKRe12huggingfacexxxxxxxxxxxxxxxx");
    fs::create_dir_all(&project).unwrap();
    let cwd = project.to_str().unwrap().to_string();
    let cache = home.join(".cache/claude-cli-nodejs");
    let folder = cache.join(mcplogs::claude_code::names::encode_folder_name(&cwd));
    fs::rename(
        cache.join("-tmp-mcplogs-samples-home-linux-work-api"),
        &folder,
    )
    .unwrap();
    // Server folders named after tokens (Claude Code spells `_` and `.` as `-`).
    for (old, new) in [
        ("exits-early", "npm-SKRe13npmxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        (
            "missing-cmd",
            "SG-SKRe14sendgridxxxxxxx-SKRf14sendgridyyyyyyyyyyyyyyyyyyyyy",
        ),
    ] {
        fs::rename(
            folder.join(format!("mcp-logs-{old}")),
            folder.join(format!("mcp-logs-{new}")),
        )
        .unwrap();
    }
    let said = format!("{} at {}", SHAPES.join(" | "), ADDRESSES.join(" and "));
    for entry in walkdir::WalkDir::new(&folder) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text = fs::read_to_string(entry.path()).unwrap();
        let mut out = String::new();
        for line in text.lines() {
            let mut v: Value = serde_json::from_str(line).unwrap();
            let obj = v.as_object_mut().unwrap();
            if obj.contains_key("cwd") {
                obj.insert("cwd".into(), Value::String(cwd.clone()));
            }
            for key in ["debug", "error"] {
                if let Some(Value::String(m)) = obj.get_mut(key)
                    && (m.starts_with("Server stderr")
                        || m.starts_with("Connection failed")
                        || m.starts_with("Failed to fetch tools"))
                {
                    m.push_str(&format!(" [{said}]"));
                }
            }
            out.push_str(&serde_json::to_string(&v).unwrap());
            out.push('\n');
        }
        fs::write(entry.path(), out).unwrap();
    }
    let secrets: Vec<&str> = (1..=14)
        .filter(|n| ![7, 8, 9, 10].contains(n))
        .map(|n| &*format!("SKRe{n:02}").leak())
        .chain(["SKRf04", "SKRf14"])
        .collect();
    let addresses = ["fd12:3456:789a", "fe80::1ce:c0ff"];
    let home_s = home.to_str().unwrap();
    let managed_s = managed.to_str().unwrap();
    let shown = |args: &[&str]| {
        let mut cmd = mcplogs(&home);
        cmd.args(args).current_dir(&project);
        if args[0] == "report" {
            cmd.args(["--managed-dir", managed_s]);
        }
        all_it_shows(cmd, args)
    };
    for cmd in [
        &["report", "--home", home_s][..],
        &["report", "--json", "--home", home_s],
        &["scan", "--json", "--home", home_s],
        &["scan", "--verbose", "--home", home_s],
    ] {
        let out = shown(cmd);
        for m in &secrets {
            assert!(!out.contains(m), "{cmd:?} shows {m}:\n{out}");
        }
        if cmd[0] == "report" {
            for a in addresses {
                assert!(!out.contains(a), "{cmd:?} shows {a}:\n{out}");
            }
            assert!(out.contains("[REDACTED:private-host]"), "{cmd:?}");
        }
        // The Markdown report shows only what its readers need (the servers' authors'
        // report has no project path), so the plants are proven reachable through the
        // JSON report, which has every field; the Markdown is checked for leaks above.
        if cmd[0] == "report" && !cmd.contains(&"--json") {
            continue;
        }
        let raw = [cmd, &["--no-redact"]].concat();
        let out = shown(&raw);
        let planted = secrets.iter().chain(if cmd[0] == "report" {
            &addresses[..]
        } else {
            &[]
        });
        for m in planted {
            assert!(out.contains(m), "{raw:?} does not show {m}");
        }
    }
}

/// Issue 23, item 3: a `fix` diff masks the new shapes on every line it shows, values of
/// keys that do not look secret included, and in the settings path of its header.
#[test]
fn new_shapes_in_fix_diffs_are_hidden() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp
        .path()
        .join("proj_npm_SKRg01npmxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    fs::create_dir_all(project.join(".claude")).unwrap();
    let settings = project.join(".claude/settings.local.json");
    let managed = tmp.path().join("managed");
    fs::create_dir_all(&managed).unwrap();
    // A fix diff shows three lines around the change: two files show every value.
    let files = [
        (
            "{\n  \"env\": {\n    \"GL\": \"glpat-SKRg02gitlabxxxxxxxxxxxx\",\n    \"HF\": \"hf_SKRg03huggingfacexxxxxxxxxxxxxxxx\",\n    \"SG\": \"SG.SKRg04sendgridxxxxxxx.SKRh04sendgridyyyyyyyyyyyyyyyyyyyyy\"\n  }\n}\n",
            &["\"GL\"", "\"HF\"", "\"SG\""][..],
        ),
        (
            "{\n  \"env\": {\n    \"NETRC\": \"machine h login u password SKRg05netrc\",\n    \"NOTE\": \"password SKRg06spaced\"\n  }\n}\n",
            &["\"NETRC\"", "\"NOTE\""][..],
        ),
    ];
    let markers = [
        "SKRg01", "SKRg02", "SKRg03", "SKRg04", "SKRh04", "SKRg05", "SKRg06",
    ];
    for (content, keys) in files {
        fs::write(&settings, content).unwrap();
        let r = run(mcplogs(tmp.path())
            .args(["fix", "--dry-run", "--force", "--settings"])
            .arg(&settings)
            .arg("--managed-dir")
            .arg(&managed));
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.starts_with("--- "), "{}", r.stdout);
        let out = format!("{}{}", r.stdout, r.stderr);
        for m in markers {
            assert!(!out.contains(m), "the diff shows {m}:\n{out}");
        }
        // the lines are there, their keys visible, so the test can fail
        for k in keys {
            assert!(out.contains(k), "{k} not in the diff:\n{out}");
        }
    }
}

/// helper-97's secrets in a server's stderr (an XML element, `user:password@host`
/// without a scheme, a session cookie, a YAML block value, a Digest response, a no-break
/// space before `=`, a German label, a short value after `credentials:`) are hidden in
/// the report (Markdown and JSON), `scan -v` and `scan --json`; and a pasted `claude mcp
/// list`'s random command words (a short flag's value, a bare positional word) in
/// `explain`'s command and advice. `--no-redact` shows every one, so the test can fail.
#[test]
fn helper_97_shapes_in_stderr_and_a_pasted_command_are_hidden() {
    const LINES: &[&str] = &[
        "xml: <password>X10xq7Lm2Pz9Rt5Wv8Yb3Nk6</password>",
        "noscheme: connecting admin:X22xq7Lm2Pz9Rt5Wv8Yb3Nk6@db.internal:5432",
        "sessid: sessionid=X41xq7Lm2Pz9Rt5Wv8Yb3Nk6",
        "yamlblock: password:\n  X19xq7Lm2Pz9Rt5Wv8Yb3Nk6",
        r#"digest: Authorization: Digest username="u", response="X26xq7Lm2Pz9Rt5Wv8Yb3Nk6""#,
        "nbsp: password\u{a0}= X15xq7Lm2Pz9Rt5Wv8Yb3Nk6",
        "de: pässwort=X50xq7Lm2Pz9Rt5Wv8Yb3Nk6",
        "creds: credentials: C51xq7Lm2Pz9",
        "pin: (password: 83927461)",
        "done",
    ];
    const MARKERS: &[&str] = &[
        "X10xq7", "X22xq7", "X41xq7", "X19xq7", "X26xq7", "X15xq7", "X50xq7", "C51xq7", "83927461",
    ];
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let project = tmp.path().join("proj");
    fs::create_dir_all(&project).unwrap();
    fs::create_dir_all(home.join(".claude")).unwrap();
    let cwd = project.to_str().unwrap();
    fs::write(
        home.join(".claude.json"),
        serde_json::json!({"hasCompletedOnboarding": true, "projects": {cwd: {"mcpServers": {"s": {"command": "node", "args": ["x"]}}}}}).to_string(),
    )
    .unwrap();
    let dir = home
        .join(".cache/claude-cli-nodejs")
        .join(mcplogs::claude_code::names::encode_folder_name(cwd))
        .join("mcp-logs-s");
    fs::create_dir_all(&dir).unwrap();
    let records = [
        serde_json::json!({"debug": "Starting connection with timeout of 30000ms"}),
        serde_json::json!({"error": format!("Server stderr: {}\n", LINES.join("\n"))}),
        serde_json::json!({"error": "Connection failed (CONNECTION_CLOSED): Connection closed"}),
    ];
    let log: String = records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut r = r.clone();
            r["timestamp"] = format!("2026-12-01T10:00:0{i}.000Z").into();
            r["sessionId"] = "11111111-2222-3333-4444-555555555555".into();
            r["cwd"] = cwd.into();
            format!("{r}\n")
        })
        .collect();
    fs::write(dir.join("2026-12-01T10-00-00-000Z.jsonl"), log).unwrap();
    let paste = tmp.path().join("list.txt");
    fs::write(
        &paste,
        "d6: node s.js -k E06xq7Lm2Pz9Rt5Wv8Yb3Nk6 - \u{2718} Failed to connect \u{2014} CONNECTION_CLOSED: Connection closed\n\
         d10: npx some-mcp E10xq7Lm2Pz9Rt5Wv8Yb3Nk6 - \u{2718} Failed to connect \u{2014} CONNECTION_CLOSED: Connection closed\n",
    )
    .unwrap();
    let home_s = home.to_str().unwrap();
    let paste_s = paste.to_str().unwrap();
    let shown = |args: &[&str]| {
        let mut cmd = mcplogs(&home);
        cmd.args(args).current_dir(&project);
        all_it_shows(cmd, args)
    };
    for (cmd, markers) in [
        (&["report", "--home", home_s][..], MARKERS),
        (&["report", "--json", "--home", home_s], MARKERS),
        (&["scan", "--verbose", "--home", home_s], &MARKERS[3..]),
        (&["scan", "--json", "--home", home_s], &MARKERS[3..]),
        (&["explain", paste_s], &["E06xq7", "E10xq7"][..]),
    ] {
        let out = shown(cmd);
        for m in markers {
            assert!(!out.contains(m), "{cmd:?} shows {m}:\n{out}");
        }
        // the lines are there (`scan` shows the last ones), and their words
        assert!(out.contains("[REDACTED:"), "{cmd:?}:\n{out}");
        if cmd[0] == "explain" {
            assert!(out.contains("node s.js -k [REDACTED:"), "{out}");
            assert!(out.contains("npx some-mcp [REDACTED:"), "{out}");
        } else {
            assert!(
                out.contains("(password: [REDACTED:secret])"),
                "{cmd:?}:\n{out}"
            );
        }
        let raw = [cmd, &["--no-redact"]].concat();
        let out = shown(&raw);
        for m in markers {
            assert!(out.contains(m), "{raw:?} does not show {m}:\n{out}");
        }
    }
}

/// Everything a command (run with `args`, exit 0 or 1) shows: its stdout (a JSON
/// document's strings, for `--json`) and its stderr.
fn all_it_shows(mut cmd: std::process::Command, args: &[&str]) -> String {
    let r = run(&mut cmd);
    assert!(matches!(r.code, 0 | 1), "{args:?}: {}", r.stderr);
    let mut s = if args.contains(&"--json") {
        let mut s = String::new();
        json_strings(&serde_json::from_str(&r.stdout).unwrap(), &mut s);
        s
    } else {
        r.stdout
    };
    s.push_str(&r.stderr);
    s
}
