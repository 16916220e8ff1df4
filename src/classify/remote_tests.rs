//! The remote-server causes of issue 52 on the real runs kept under
//! tests/fixtures/remote/ (2.1.287, 2.1.310, 2.1.336): every log gives the cause its
//! `expected.json` names, from the record that names it.
#![allow(clippy::disallowed_methods)] // tests read the checked-in fixtures

use std::path::{Path, PathBuf};

use super::classify;
use super::verdict::{Cause, Verdict};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/remote")
}

/// The `debug`/`error` texts of the one log of `case` on `build`, in order.
fn messages(case: &str, build: &str) -> Vec<String> {
    let dir = fixtures().join(case).join(build);
    let folder = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap_or_else(|| panic!("no log folder in {}", dir.display()));
    let mut out = Vec::new();
    for f in std::fs::read_dir(folder).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let m = v.get("debug").or_else(|| v.get("error")).unwrap();
            out.push(m.as_str().unwrap().to_string());
        }
    }
    out
}

/// The text each remote cause's deciding record holds (what a user would grep for).
fn evidence_word(cause: Cause) -> Option<&'static str> {
    Some(match cause {
        Cause::TlsUntrusted => "certificate",
        Cause::TlsExpired => "CERT_HAS_EXPIRED",
        Cause::TlsHostname => "ERR_TLS_CERT_ALTNAME_INVALID",
        Cause::ProxyRefused => "Proxy",
        Cause::NameNotResolved => "ENOTFOUND",
        Cause::ConnectionRefused => "ECONNREFUSED",
        Cause::OauthNoRegistration => "does not support dynamic client registration",
        Cause::AuthHeaderRejected => "rejected the configured Authorization header",
        _ => return None,
    })
}

#[test]
fn every_remote_fixture_gets_its_expected_cause_from_its_own_record() {
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("expected.json")).unwrap())
            .unwrap();
    let mut seen = std::collections::BTreeSet::new();
    let mut checked = 0;
    for (case, builds) in expected["cases"].as_object().unwrap() {
        for (build, want) in builds.as_object().unwrap() {
            let ms = messages(case, build);
            let d = classify(&ms);
            let verdict = Verdict::ALL
                .iter()
                .copied()
                .find(|v| v.as_str() == want["verdict"].as_str().unwrap())
                .unwrap();
            let cause = want["cause"].as_str().map(|c| Cause::parse(c).unwrap());
            assert_eq!((d.verdict, d.cause), (verdict, cause), "{case} on {build}");
            if let Some(word) = cause.and_then(evidence_word) {
                let last = *d.evidence.last().unwrap();
                assert!(
                    ms[last].contains(word),
                    "{case} on {build}: the deciding record {:?} lacks {word:?}",
                    ms[last]
                );
                seen.insert(cause.unwrap());
            }
            checked += 1;
        }
    }
    assert!(checked >= 60, "only {checked} fixtures read");
    // every remote cause has a real run behind it
    for c in [
        Cause::TlsUntrusted,
        Cause::TlsExpired,
        Cause::TlsHostname,
        Cause::ProxyRefused,
        Cause::NameNotResolved,
        Cause::ConnectionRefused,
        Cause::OauthNoRegistration,
        Cause::AuthHeaderRejected,
    ] {
        assert!(seen.contains(&c), "no fixture shows {c}");
    }
}

/// A proxy's `407 Proxy Authentication Required` is the proxy's, not the server asking
/// for credentials; a server whose `Authorization` header was refused is not one that
/// needs the OAuth sign-in (Claude Code says `failed`, not `needs-auth`).
#[test]
fn proxy_and_header_refusals_are_not_read_as_needs_auth() {
    let d = classify(&[
        "HTTP Connection failed after 25ms: Proxy refused to open a tunnel: 407 Proxy Authentication Required (code: ERR_PROXY_TUNNEL, errno: none)",
    ]);
    assert_eq!(d.cause, Some(Cause::ProxyRefused));
    let d = classify(&[
        "Connection failed after 32ms, 32ms of it awake (407): Error POSTing to endpoint: 407 Proxy Authentication Required (x)",
    ]);
    assert_eq!(d.cause, Some(Cause::ProxyRefused));
    let d = classify(&[
        r#"HTTP Connection failed after 63ms: Error POSTing to endpoint: {"error": "invalid_token"} (code: CLIENT_HTTP_NOT_IMPLEMENTED, errno: none)"#,
        "Server rejected the configured Authorization header (HTTP 401). Check that the token is valid for this MCP endpoint — OAuth fallback is disabled when headers.Authorization is set.",
    ]);
    assert_eq!(d.cause, Some(Cause::AuthHeaderRejected));
    assert_eq!(d.evidence, vec![0, 1]);
    // the same words in the server's stderr decide nothing
    let d = classify(&["Server stderr: getaddrinfo ENOTFOUND db.internal"]);
    assert_eq!(d.verdict, Verdict::Unknown);
    // a reconnection that succeeds clears a refused one
    let d = classify(&[
        "Connection failed (ECONNREFUSED): ECONNREFUSED: Unable to connect. Is the computer able to access the url?",
        "Successfully connected (transport: http) in 112ms",
    ]);
    assert_eq!(d.verdict, Verdict::Healthy);
}
