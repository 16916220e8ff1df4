//! Issues 52 and 53: the two remote causes `mcplogs fix` fixes with a settings file,
//! replayed from real builds' logs (tests/fixtures/remote/): an untrusted certificate
//! gets `NODE_EXTRA_CA_CERTS` (a CA file checked by a TLS handshake with a loopback
//! server this test starts, certificates in tests/fixtures/fix-remote/), a refusing proxy
//! gets the server's host merged into `NO_PROXY`. Diff, refusals, undo byte for byte,
//! and `scan` saying the fix is in place.
#![cfg(not(any(windows, target_os = "macos")))]

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use crate::common::*;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fix-remote")
}

/// A loopback TLS server (port 0) presenting tests/fixtures/fix-remote/server.pem; it
/// completes handshakes and nothing more. Its port.
fn tls_server() -> u16 {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(fixtures().join("server.pem"))
            .unwrap()
            .map(Result::unwrap)
            .collect();
    let key = PrivateKeyDer::from_pem_file(fixtures().join("server.key")).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let config = Arc::clone(&config);
            std::thread::spawn(move || {
                let mut conn = rustls::ServerConnection::new(config).unwrap();
                while conn.is_handshaking() {
                    if conn.complete_io(&mut s).is_err() {
                        return;
                    }
                }
                let _ = conn.complete_io(&mut s);
            });
        }
    });
    port
}

/// A plain listener on 127.0.0.2 (port 0): the proxied server, reachable directly.
fn direct_server() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.2:0").unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    managed: PathBuf,
    proj: PathBuf,
    elsewhere: PathBuf,
    env: Vec<(String, String)>,
}

impl Home {
    fn new() -> Home {
        let dir = fixed_length_tempdir();
        let base = dir.path().join("h");
        let home = base.join("me");
        let managed = base.join("managed");
        let proj = home.join("work/proj");
        let elsewhere = base.join("elsewhere");
        for d in [&home, &managed, &proj, &elsewhere] {
            fs::create_dir_all(d).unwrap();
        }
        Home {
            _dir: dir,
            home,
            managed,
            proj,
            elsewhere,
            env: Vec::new(),
        }
    }

    /// The real failing session of remote fixture `case` (2.1.336), as run in the
    /// project by server `corp`, configured at `url`.
    fn failing(&self, case: &str, url: &str) {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/remote")
            .join(case)
            .join("2.1.336")
            .join(format!("mcp-logs-{case}"));
        let file = fs::read_dir(&src).unwrap().next().unwrap().unwrap().path();
        let group = if case.starts_with("tls") {
            "net"
        } else {
            "proxy-407"
        };
        let text = fs::read_to_string(file).unwrap().replace(
            &format!("/tmp/mcplogs-remote/2.1.336/{group}/home/work/proj"),
            &self.proj.display().to_string(),
        );
        let slug: String = self
            .proj
            .display()
            .to_string()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let d = self
            .home
            .join(".cache/claude-cli-nodejs")
            .join(slug)
            .join("mcp-logs-corp");
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("2026-12-05T17-43-43-423Z.jsonl"), text).unwrap();
        let doc = serde_json::json!({
            "hasCompletedOnboarding": true,
            "mcpServers": { "corp": { "type": "http", "url": url } },
            "projects": { self.proj.display().to_string(): { "hasTrustDialogAccepted": true } },
        });
        fs::write(
            self.home.join(".claude.json"),
            serde_json::to_string_pretty(&doc).unwrap() + "\n",
        )
        .unwrap();
    }

    fn run(&self, args: &[&str]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mcplogs"));
        c.args(args)
            .arg("--managed-dir")
            .arg(&self.managed)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("NO_COLOR", "1")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&self.elsewhere)
            .stdin(Stdio::null());
        clock_env(&mut c);
        c.output().unwrap()
    }

    fn fix(&self, extra: &[&str]) -> Output {
        let mut args = vec!["fix"];
        args.extend_from_slice(extra);
        if !extra.contains(&"--claude-version") {
            args.extend_from_slice(&["--claude-version", "2.1.336"]);
        }
        self.run(&args)
    }

    /// Every file under the home's `.claude` and the project (not the logs), with its
    /// bytes; `.claude` itself listed when it exists.
    fn files(&self) -> Vec<(PathBuf, Option<Vec<u8>>)> {
        let mut out = Vec::new();
        for d in [
            self.home.clone(),
            self.home.join(".claude"),
            self.proj.join(".claude"),
        ] {
            let Ok(entries) = fs::read_dir(&d) else {
                continue;
            };
            out.push((d.clone(), None));
            for p in entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()) {
                let bytes = fs::read(&p).unwrap();
                out.push((p, Some(bytes)));
            }
        }
        out.sort();
        out
    }

    fn user_settings(&self) -> PathBuf {
        self.home.join(".claude/settings.json")
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn env_of(path: &Path) -> serde_json::Value {
    let doc: serde_json::Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    doc["env"].clone()
}

/// After a fix: `scan` says it is in place; undo gives back every file byte for byte
/// and leaves nothing behind (a `~/.claude` the fix created included).
fn in_place_then_undo(h: &Home, before: &[(PathBuf, Option<Vec<u8>>)]) {
    let scan = h.run(&["scan"]);
    let t = text(&scan);
    assert!(
        t.contains("already fixed (restart Claude Code to check)"),
        "{t}"
    );
    let undo = h.run(&["fix", "--undo", "--yes"]);
    assert_eq!(undo.status.code(), Some(0), "{}", text(&undo));
    assert_eq!(h.files(), before, "{}", text(&undo));
}

#[test]
fn a_ca_file_that_verifies_is_written_where_no_claude_folder_was_and_undone_to_nothing() {
    let h = Home::new();
    let port = tls_server();
    h.failing("tls-untrusted-ca", &format!("https://127.0.0.1:{port}/mcp"));
    let before = h.files();
    assert!(!h.home.join(".claude").exists());
    let ca = fixtures().join("ca.pem");
    let ca = ca.to_str().unwrap();
    let dry = h.fix(&["--ca-file", ca, "--dry-run"]);
    let t = text(&dry);
    assert_eq!(dry.status.code(), Some(0), "{t}");
    assert!(t.contains("(trusted-ca)"), "{t}");
    assert!(
        t.contains(&format!("+    \"NODE_EXTRA_CA_CERTS\": \"{ca}\"")),
        "{t}"
    );
    assert!(t.contains("verified the server's chain"), "{t}");
    assert!(!t.contains("REJECT_UNAUTHORIZED"), "{t}");
    assert_eq!(h.files(), before);
    let fixed = h.fix(&["--ca-file", ca, "--yes"]);
    assert_eq!(fixed.status.code(), Some(0), "{}", text(&fixed));
    assert_eq!(
        env_of(&h.user_settings()),
        serde_json::json!({"NODE_EXTRA_CA_CERTS": ca})
    );
    in_place_then_undo(&h, &before);
    assert!(
        !h.home.join(".claude").exists(),
        "the folder the fix made is left"
    );
}

/// helper-102 #1: with `NODE_EXTRA_CA_CERTS` naming another CA in the environment
/// Claude Code starts in (or in a project's settings), the value `fix --ca-file` wrote
/// replaced it: the server that CA verified stopped connecting (observed on 2.1.336).
/// `fix` writes nothing then and prints the commands that make one file of both; that
/// file is written.
#[test]
fn a_ca_file_never_replaces_the_one_in_effect_that_it_does_not_hold() {
    let mut h = Home::new();
    let port = tls_server();
    h.failing("tls-untrusted-ca", &format!("https://127.0.0.1:{port}/mcp"));
    let other = fixtures().join("other-ca.pem");
    h.env = vec![("NODE_EXTRA_CA_CERTS".into(), other.display().to_string())];
    let before = h.files();
    let ca = fixtures().join("ca.pem");
    let refused = h.fix(&["--ca-file", ca.to_str().unwrap(), "--yes"]);
    let t = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{t}");
    let cat = format!(
        "`mkdir -p ~/.claude && cat {} {} > ~/.claude/ca-bundle.pem`, then `mcplogs fix --ca-file ~/.claude/ca-bundle.pem`",
        other.display(),
        ca.display()
    );
    assert!(t.contains(&cat), "{t}");
    assert_eq!(h.files(), before);
    // the bundle the commands make: written
    let bundle = h.home.join("ca-bundle.pem");
    let mut both = fs::read(&other).unwrap();
    both.extend(fs::read(&ca).unwrap());
    fs::write(&bundle, both).unwrap();
    let fixed = h.fix(&["--ca-file", bundle.to_str().unwrap(), "--yes"]);
    assert_eq!(fixed.status.code(), Some(0), "{}", text(&fixed));
    assert_eq!(
        env_of(&h.user_settings())["NODE_EXTRA_CA_CERTS"],
        bundle.display().to_string()
    );

    // helper-105 #2, #3: the value in the very file the fix writes (a bundle made as
    // advised) is not replaced either, and the bundle the commands name is never the
    // file they read (`cat OLD NEW > OLD` empties OLD first)
    let mut h = Home::new();
    h.failing("tls-untrusted-ca", &format!("https://127.0.0.1:{port}/mcp"));
    let old = h.home.join(".claude/ca-bundle.pem");
    fs::create_dir_all(h.home.join(".claude")).unwrap();
    fs::copy(&other, &old).unwrap();
    fs::write(
        h.user_settings(),
        serde_json::json!({ "env": { "NODE_EXTRA_CA_CERTS": old } }).to_string(),
    )
    .unwrap();
    h.env = Vec::new();
    let before = h.files();
    let refused = h.fix(&["--ca-file", ca.to_str().unwrap(), "--yes"]);
    let t = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{t}");
    assert!(
        t.contains(&format!(
            "cat ~/.claude/ca-bundle.pem {} > ~/.claude/ca-bundle-2.pem`, then `mcplogs fix --ca-file ~/.claude/ca-bundle-2.pem`",
            ca.display()
        )),
        "{t}"
    );
    assert_eq!(h.files(), before);
}

#[test]
fn a_ca_file_that_does_not_verify_is_refused_and_nothing_is_written() {
    let h = Home::new();
    let port = tls_server();
    h.failing("tls-untrusted-ca", &format!("https://127.0.0.1:{port}/mcp"));
    let before = h.files();
    let other = fixtures().join("other-ca.pem");
    let o = h.fix(&["--ca-file", other.to_str().unwrap(), "--yes"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(
        t.contains(
            "the server's certificate was not signed by a certificate authority in the file"
        ),
        "{t}"
    );
    assert!(t.contains("Only you can fix corp"), "{t}");
    assert!(t.contains("nothing written"), "{t}");
    assert_eq!(h.files(), before);
}

#[test]
fn without_ca_file_what_the_machine_trusts_is_proposed_only_when_it_verifies() {
    let h = Home::new();
    let port = tls_server();
    h.failing("tls-untrusted-ca", &format!("https://127.0.0.1:{port}/mcp"));
    let before = h.files();
    // SSL_CERT_FILE names a file that does not verify (nor does the system bundle)
    let mut refused = Home {
        env: Vec::new(),
        ..h
    };
    refused.env = vec![(
        "SSL_CERT_FILE".into(),
        fixtures().join("other-ca.pem").display().to_string(),
    )];
    let o = refused.fix(&["--yes"]);
    let t = text(&o);
    assert!(t.contains("Only you can fix corp"), "{t}");
    assert!(t.contains("NODE_EXTRA_CA_CERTS"), "{t}");
    assert!(
        t.contains("other-ca.pem: the server's certificate was not signed by a certificate authority in the file"),
        "{t}"
    );
    assert_eq!(refused.files(), before);
    // SSL_CERT_FILE names the CA: proposed, checked, written
    refused.env = vec![(
        "SSL_CERT_FILE".into(),
        fixtures().join("ca.pem").display().to_string(),
    )];
    let o = refused.fix(&["--yes"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("SSL_CERT_FILE, which your machine trusts"),
        "{t}"
    );
    assert_eq!(
        env_of(&refused.user_settings())["NODE_EXTRA_CA_CERTS"],
        fixtures().join("ca.pem").display().to_string()
    );
    in_place_then_undo(&refused, &before);
}

#[test]
fn a_ca_file_that_is_not_a_file_of_certificates_is_a_usage_error() {
    let h = Home::new();
    let port = tls_server();
    h.failing("tls-untrusted-ca", &format!("https://127.0.0.1:{port}/mcp"));
    let before = h.files();
    let fifo = h.elsewhere.join("ca.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let key = fixtures().join("server.key");
    for (path, says) in [
        (fifo.clone(), "a FIFO"),
        (h.elsewhere.clone(), "a folder, not a regular file"),
        (h.elsewhere.join("missing.pem"), "it does not exist"),
        (key, "holds no PEM certificate"),
    ] {
        let o = h.fix(&["--ca-file", path.to_str().unwrap(), "--yes"]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{path:?}: {t}");
        assert!(t.contains("--ca-file"), "{t}");
        assert!(t.contains(says), "{path:?}: {t}");
        assert_eq!(h.files(), before);
    }
}

#[test]
fn no_proxy_is_merged_with_the_value_in_effect_and_goes_where_it_wins() {
    let (_l, port) = direct_server();
    let url = format!("http://127.0.0.2:{port}/mcp");
    // the user file sets it (with a host in another case and spacing): kept, in order,
    // nothing duplicated; the proxy in the same env untouched
    let mut h = Home::new();
    h.failing("proxy-407-http", &url);
    fs::create_dir_all(h.home.join(".claude")).unwrap();
    let user = "{\n    \"env\": {\n        \"HTTPS_PROXY\": \"http://127.0.0.1:9\",\n        \"NO_PROXY\": \"LOCALHOST, .corp.test,127.0.0.1\"\n    }\n}\n";
    fs::write(h.user_settings(), user).unwrap();
    h.env = vec![("NO_PROXY".into(), "127.0.0.1,localhost".into())];
    let before = h.files();
    let dry = h.fix(&["--dry-run"]);
    let t = text(&dry);
    assert!(t.contains("(no-proxy)"), "{t}");
    assert!(
        t.contains("+        \"NO_PROXY\": \"LOCALHOST,.corp.test,127.0.0.1,127.0.0.2\""),
        "{t}"
    );
    assert!(!t.contains("-        \"HTTPS_PROXY\""), "{t}");
    let o = h.fix(&["--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let env = env_of(&h.user_settings());
    assert_eq!(env["NO_PROXY"], "LOCALHOST,.corp.test,127.0.0.1,127.0.0.2");
    assert_eq!(env["HTTPS_PROXY"], "http://127.0.0.1:9");
    // a second fix finds it in place: nothing more to write
    let again = h.fix(&["--yes", "--dry-run"]);
    assert!(!text(&again).contains("(no-proxy)"), "{}", text(&again));
    in_place_then_undo(&h, &before);

    // the environment's value when no file sets it: into the user file; a lowercase
    // `no_proxy` there wins over `NO_PROXY` wherever that is set (observed on 2.1.336:
    // `NO_PROXY` written beside the shell's `no_proxy` changed nothing, helper-102 #3),
    // so it is merged and written as `no_proxy`
    for (env, file_sets) in [
        (
            vec![
                ("NO_PROXY".to_string(), "127.0.0.1,localhost".to_string()),
                ("no_proxy".to_string(), "localhost,::1".to_string()),
            ],
            None,
        ),
        (
            vec![("no_proxy".to_string(), "localhost,::1".to_string())],
            Some("{\"env\": {\"NO_PROXY\": \"127.0.0.1\"}}\n"),
        ),
    ] {
        let mut h = Home::new();
        h.failing("proxy-407-http", &url);
        if let Some(text) = file_sets {
            fs::create_dir_all(h.home.join(".claude")).unwrap();
            fs::write(h.user_settings(), text).unwrap();
        }
        h.env = env;
        let before = h.files();
        let o = h.fix(&["--yes"]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(text(&o).contains("spelled no_proxy"), "{}", text(&o));
        let written = env_of(&h.user_settings());
        assert_eq!(written["no_proxy"], "localhost,::1,127.0.0.2", "{written}");
        in_place_then_undo(&h, &before);
    }

    // the project's shared file sets it: the merged value goes into its local file
    let mut h = Home::new();
    h.failing("proxy-407-http", &url);
    fs::create_dir_all(h.proj.join(".claude")).unwrap();
    fs::write(
        h.proj.join(".claude/settings.json"),
        "{\"env\": {\"NO_PROXY\": \"127.0.0.1\"}}\n",
    )
    .unwrap();
    h.env = vec![("NO_PROXY".into(), "elsewhere.test".into())];
    let before = h.files();
    let o = h.fix(&["--yes"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("the local settings"), "{t}");
    assert_eq!(
        env_of(&h.proj.join(".claude/settings.local.json")),
        serde_json::json!({"NO_PROXY": "127.0.0.1,127.0.0.2"})
    );
    assert!(!h.user_settings().exists());
    in_place_then_undo(&h, &before);
}

#[test]
fn outside_the_builds_it_was_observed_on_the_fix_says_so_and_writes_nothing() {
    let (_l, port) = direct_server();
    let h = Home::new();
    h.failing("proxy-407-http", &format!("http://127.0.0.2:{port}/mcp"));
    let before = h.files();
    let o = h.fix(&["--yes", "--claude-version", "2.1.337"]);
    let t = text(&o);
    assert!(
        t.contains(
            "does not offer its no-proxy fix here: observed to work on Claude Code 2.1.287 to 2.1.336; this machine runs 2.1.337"
        ),
        "{t}"
    );
    assert_eq!(h.files(), before);
    let tls = Home::new();
    let port = tls_server();
    tls.failing("tls-untrusted-ca", &format!("https://127.0.0.1:{port}/mcp"));
    let before = tls.files();
    let ca = fixtures().join("ca.pem");
    let o = tls.fix(&[
        "--yes",
        "--ca-file",
        ca.to_str().unwrap(),
        "--claude-version",
        "2.1.286",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(
        t.contains("does not offer its trusted-ca fix here: observed to work on Claude Code 2.1.287 to 2.1.336"),
        "{t}"
    );
    assert_eq!(tls.files(), before);
}

#[test]
fn a_server_not_reachable_without_the_proxy_gets_no_no_proxy() {
    // a port nothing listens on: NO_PROXY would not help
    let port = {
        let l = TcpListener::bind("127.0.0.2:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let h = Home::new();
    h.failing("proxy-407-http", &format!("http://127.0.0.2:{port}/mcp"));
    let before = h.files();
    let o = h.fix(&["--yes"]);
    let t = text(&o);
    assert!(t.contains("cannot be reached without the proxy"), "{t}");
    assert_eq!(h.files(), before);
}

#[test]
fn a_check_that_did_not_run_says_so_and_writes_nothing() {
    // nothing listens: the handshake never reaches the server's chain
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let h = Home::new();
    h.failing("tls-untrusted-ca", &format!("https://127.0.0.1:{port}/mcp"));
    let before = h.files();
    let ca = fixtures().join("ca.pem");
    let o = h.fix(&["--ca-file", ca.to_str().unwrap(), "--yes"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("did not run (could not reach 127.0.0.1"), "{t}");
    assert!(t.contains("nothing is written"), "{t}");
    assert_eq!(h.files(), before);
}

/// helper-102 #2: `probe` ignored `NODE_EXTRA_CA_CERTS` (in the settings, or the
/// environment) and predicted an untrusted certificate for a server Claude Code
/// connected (observed on 2.1.336). It trusts the file's certificates as Claude Code does.
#[test]
fn probe_trusts_the_ca_file_claude_code_trusts() {
    use std::io::BufRead;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stub = std::process::Command::new("python3")
        .arg(root.join("tests/e2e/remote_stub.py"))
        .arg("mcp")
        .arg("--cert")
        .arg(fixtures().join("server.pem"))
        .arg("--key")
        .arg(fixtures().join("server.key"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut port = String::new();
    std::io::BufReader::new(stub.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    let url = format!("https://127.0.0.1:{}/mcp", port.trim());
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    fs::create_dir_all(h.join(".claude")).unwrap();
    fs::write(
        h.join(".claude.json"),
        serde_json::json!({ "mcpServers": { "corp": { "type": "http", "url": url } } }).to_string(),
    )
    .unwrap();
    let probe = |env: &[(&str, &Path)]| {
        let mut c = crate::common::mcplogs(h);
        c.args(["probe", "--claude-version", "2.1.336", "corp"])
            .current_dir(h);
        for (k, v) in env {
            c.env(k, v);
        }
        crate::common::run(&mut c)
    };
    let ca = fixtures().join("ca.pem");
    let without = probe(&[]);
    assert_eq!(without.code, 1, "{without:?}");
    assert!(without.stdout.contains("tls-untrusted"), "{without:?}");
    let in_env = probe(&[("NODE_EXTRA_CA_CERTS", &ca)]);
    fs::write(
        h.join(".claude/settings.json"),
        serde_json::json!({ "env": { "NODE_EXTRA_CA_CERTS": ca } }).to_string(),
    )
    .unwrap();
    let in_settings = probe(&[]);
    let _ = stub.kill();
    let _ = stub.wait();
    for r in [&in_env, &in_settings] {
        assert_eq!(r.code, 0, "{r:?}");
        assert!(r.stdout.contains("keep the tools"), "{r:?}");
    }
}
