//! What to do about a remote (HTTP) server whose log names why it could not connect
//! (issue 52): its certificate, the proxy, its host name, its port, its OAuth
//! registration or its configured `Authorization` header. Each sentence names the exact
//! setting or command; a setting is named as a fix only where a real build was observed
//! connecting after it ([`observed_settings_fix`], the runs under
//! tests/fixtures/remote/). Certificate checks are never advised off.

use crate::classify::verdict::{Cause, Diagnosis, Verdict};
use crate::scan::ServerReport;

/// A settings change observed to fix a class of failure: the variable to set in the
/// `env` block of `~/.claude/settings.json` (or in the environment Claude Code starts
/// in), what its value is, and the builds and fixtures it was observed on. The fix
/// engine (`mcplogs fix`) may offer exactly these; nothing else here is a settings fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObservedSettingsFix {
    /// The `env` variable (`NODE_EXTRA_CA_CERTS`, `NO_PROXY`).
    pub variable: &'static str,
    /// What its value must hold, in words.
    pub value: &'static str,
    /// The oldest and newest builds it was observed to fix, from the settings file's
    /// `env` as well as from the environment.
    pub builds: (&'static str, &'static str),
    /// The fixtures (tests/fixtures/remote/) of the failing run and of the run the
    /// setting fixed, in the settings file and in the environment.
    pub failing: &'static str,
    pub fixed_in_settings: &'static str,
    pub fixed_in_environment: &'static str,
}

/// The settings change observed to fix `cause`, if any: `NODE_EXTRA_CA_CERTS` for an
/// untrusted certificate, `NO_PROXY` for a proxy that refuses (observed on 2.1.287,
/// 2.1.310 and 2.1.336, both in `~/.claude/settings.json` `env` and in the
/// environment). An expired certificate, a certificate for another name, a name that
/// does not resolve, a refused port, OAuth and a refused header have none.
pub fn observed_settings_fix(cause: Cause) -> Option<ObservedSettingsFix> {
    match cause {
        Cause::TlsUntrusted => Some(ObservedSettingsFix {
            variable: "NODE_EXTRA_CA_CERTS",
            value: "the path of a PEM file holding the certificate authority that signed the server's certificate (for a TLS-inspecting company proxy, that proxy's CA)",
            builds: ("2.1.287", "2.1.336"),
            failing: "tls-untrusted-ca",
            fixed_in_settings: "tls-ca-settings",
            fixed_in_environment: "tls-ca-env",
        }),
        Cause::ProxyRefused => Some(ObservedSettingsFix {
            variable: "NO_PROXY",
            value: "a comma-separated list of host names (a leading dot for a whole domain) reached without the proxy; keep the hosts already there",
            builds: ("2.1.287", "2.1.336"),
            failing: "proxy-407-http",
            fixed_in_settings: "no-proxy-settings",
            fixed_in_environment: "no-proxy-env",
        }),
        _ => None,
    }
}

/// The host of a URL (`https://mcp.example.com:8443/mcp` -> `mcp.example.com`), for the
/// `NO_PROXY` advice; `None` when it has none.
fn host_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        authority.split(':').next()?
    };
    (!host.is_empty() && host.chars().all(|c| c.is_ascii_graphic())).then_some(host)
}

/// The advice for a remote failure of `d` whose cause names it; `name` the server's
/// configured name and `url` its URL when known (the sentences then name them).
pub fn remote_advice(d: &Diagnosis, name: Option<&str>, url: Option<&str>) -> Option<String> {
    if d.verdict != Verdict::ConnectionFailed {
        return None;
    }
    let login = match name.and_then(|n| crate::text::shell_command(&["claude", "mcp", "login", n]))
    {
        Some(c) => format!("`{c}`"),
        None => "`claude mcp login <server name>`".to_string(),
    };
    let cause = d.cause?;
    let settings_form = |fix: ObservedSettingsFix, value: &str| {
        format!(
            "set {}={value} in the \"env\" block of ~/.claude/settings.json (observed to work from Claude Code {} to {}) or in the environment Claude Code starts in, then restart Claude Code",
            fix.variable, fix.builds.0, fix.builds.1
        )
    };
    Some(match cause {
        Cause::TlsUntrusted => {
            let fix = observed_settings_fix(cause)?;
            format!(
                "Claude Code does not trust the server's TLS certificate (self-signed, or signed by a certificate authority it does not know, such as a company proxy that inspects TLS): {}, where the value is the path of a PEM file holding that certificate authority; or have the server use a certificate from a public authority.",
                settings_form(fix, "/path/to/ca.pem")
            )
        }
        Cause::TlsExpired => {
            "The server's TLS certificate has expired: its operator must renew it. No Claude Code setting fixes this (NODE_EXTRA_CA_CERTS does not: observed).".to_string()
        }
        Cause::TlsHostname => format!(
            "The server's TLS certificate is for another host name than the one in its URL{}: use the host name the certificate names in the server's URL, or have its operator issue a certificate for this name. No Claude Code setting fixes this (NODE_EXTRA_CA_CERTS does not: observed).",
            url.and_then(host_of)
                .map(|h| format!(" ({h})"))
                .unwrap_or_default()
        ),
        Cause::ProxyRefused => {
            let fix = observed_settings_fix(cause)?;
            let value = match url.and_then(host_of) {
                Some(h) => format!("<the hosts already there>,{h}"),
                None => "<the hosts already there>,<the server's host>".to_string(),
            };
            format!(
                "The proxy in HTTPS_PROXY/HTTP_PROXY refused the connection (403: not allowed there; 407: it wants credentials). If the server is reached without the proxy, {}; otherwise ask the proxy's administrators to allow the server's host.",
                settings_form(fix, &value)
            )
        }
        Cause::NameNotResolved => format!(
            "The server's host name{} does not resolve on this machine: check its URL for a typo, and that the DNS (or the VPN) that knows the name is in use. No Claude Code setting fixes this.",
            url.and_then(host_of)
                .map(|h| format!(" ({h})"))
                .unwrap_or_default()
        ),
        Cause::ConnectionRefused => {
            "Nothing accepts connections at the server's host and port (ECONNREFUSED): start the server, or correct the port in its URL; when HTTPS_PROXY or HTTP_PROXY is set, check that the proxy itself is running. No Claude Code setting fixes this.".to_string()
        }
        Cause::OauthNoRegistration => format!(
            "The server's authorization server offers no dynamic client registration, so Claude Code cannot register itself: ask the server's operator for an OAuth client id, add the server again with it (`claude mcp add --transport http --client-id <client id> {} {}`, plus `--client-secret`, which prompts for it, when they gave you a secret too), then sign in with {login}.",
            name.and_then(|n| crate::text::shell_command(&[n]))
                .unwrap_or_else(|| "<server name>".to_string()),
            url.and_then(|u| crate::text::shell_command(&[u]))
                .unwrap_or_else(|| "<url>".to_string()),
        ),
        Cause::AuthHeaderRejected => format!(
            "The server refused the Authorization header set in the server's \"headers\" (HTTP 401 or 403), and while that header is set Claude Code does not try OAuth: replace the token with one valid for this endpoint, or remove the header and sign in with {login} if the server offers OAuth."
        ),
        Cause::NeedsAuth => format!(
            "The server needs authentication: sign in with {login} (or /mcp in Claude Code); for a token the server's operator gave you, set it in the server's \"headers\" instead."
        ),
        _ => return None,
    })
}

/// [`remote_advice`] for a scanned server: its name, and its URL when the configuration
/// has its entry.
pub fn for_remote_server(s: &ServerReport) -> Option<String> {
    let url = s
        .launch
        .as_ref()
        .filter(|l| !l.is_stdio())
        .map(|l| l.url.as_str())
        .filter(|u| !u.is_empty());
    remote_advice(&s.diagnosis, Some(&s.name), url)
}

/// The few words beside the verdict for a remote cause (`None` for the others).
pub fn remote_reason(d: &Diagnosis, decisive: &str) -> Option<String> {
    Some(match d.cause? {
        Cause::TlsUntrusted => {
            "TLS certificate not trusted (self-signed or unknown CA)".to_string()
        }
        Cause::TlsExpired => "TLS certificate expired".to_string(),
        Cause::TlsHostname => "TLS certificate is for another host name".to_string(),
        Cause::ProxyRefused => match status_in(decisive) {
            Some(s) => format!("proxy refused ({s})"),
            None => "proxy refused".to_string(),
        },
        Cause::NameNotResolved => "host name does not resolve".to_string(),
        Cause::ConnectionRefused => "connection refused (nothing listens there)".to_string(),
        Cause::OauthNoRegistration => "auth server offers no client registration".to_string(),
        Cause::AuthHeaderRejected => match status_in(decisive) {
            Some(s) => format!("configured Authorization header refused (HTTP {s})"),
            None => "configured Authorization header refused".to_string(),
        },
        _ => return None,
    })
}

/// The proxy's or server's status in a deciding record: `tunnel: 407 Proxy ...`,
/// `(407)`, `(HTTP 401)`.
fn status_in(m: &str) -> Option<&str> {
    let three = |s: &'static str| -> Option<usize> { m.find(s).map(|i| i + s.len()) };
    let at = three("tunnel: ")
        .or_else(|| three("(HTTP "))
        .or_else(|| three("("))?;
    let s = m.get(at..at + 3)?;
    s.bytes().all(|b| b.is_ascii_digit()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(cause: Cause) -> Diagnosis {
        Diagnosis {
            cause: Some(cause),
            ..Diagnosis::new(Verdict::ConnectionFailed)
        }
    }

    #[test]
    fn a_settings_fix_is_named_only_where_one_was_observed() {
        let with_fix: Vec<Cause> = Cause::ALL
            .iter()
            .copied()
            .filter(|c| observed_settings_fix(*c).is_some())
            .collect();
        assert_eq!(with_fix, vec![Cause::TlsUntrusted, Cause::ProxyRefused]);
        for c in [Cause::TlsUntrusted, Cause::ProxyRefused] {
            let fix = observed_settings_fix(c).unwrap();
            let a =
                remote_advice(&failed(c), Some("corp"), Some("https://mcp.corp.test/mcp")).unwrap();
            assert!(a.contains(fix.variable), "{a}");
            assert!(a.contains("~/.claude/settings.json"), "{a}");
            // each fixture the fact rests on is kept
            let root =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/remote");
            for f in [fix.failing, fix.fixed_in_settings, fix.fixed_in_environment] {
                for b in [fix.builds.0, fix.builds.1] {
                    assert!(root.join(f).join(b).is_dir(), "{f}/{b}");
                }
            }
        }
        for c in [
            Cause::TlsExpired,
            Cause::TlsHostname,
            Cause::NameNotResolved,
            Cause::ConnectionRefused,
        ] {
            let a = remote_advice(&failed(c), Some("corp"), None).unwrap();
            assert!(a.contains("No Claude Code setting fixes this"), "{a}");
        }
        for &c in Cause::ALL {
            if let Some(a) = remote_advice(&failed(c), Some("corp"), None) {
                assert!(!a.contains("REJECT_UNAUTHORIZED"), "{a}");
            }
        }
    }

    #[test]
    fn the_advice_names_the_server_its_host_and_the_command() {
        let a = remote_advice(
            &failed(Cause::ProxyRefused),
            Some("corp"),
            Some("https://user@mcp.corp.test:8443/mcp?x=1"),
        )
        .unwrap();
        assert!(
            a.contains("NO_PROXY=<the hosts already there>,mcp.corp.test"),
            "{a}"
        );
        let a = remote_advice(
            &failed(Cause::OauthNoRegistration),
            Some("my server"),
            Some("https://a.test/mcp"),
        )
        .unwrap();
        assert!(
            a.contains("--client-id <client id> 'my server' https://a.test/mcp"),
            "{a}"
        );
        assert!(a.contains("`claude mcp login 'my server'`"), "{a}");
        let a = remote_advice(&failed(Cause::NeedsAuth), Some("corp"), None).unwrap();
        assert!(a.contains("`claude mcp login corp`"), "{a}");
        assert_eq!(host_of("http://[::1]:80/x"), Some("::1"));
        assert_eq!(host_of("not a url"), None);
        // a stdio failure or another verdict gets none of this
        assert_eq!(remote_advice(&failed(Cause::Timeout), None, None), None);
        assert_eq!(
            remote_advice(&Diagnosis::new(Verdict::Healthy), None, None),
            None
        );
    }

    #[test]
    fn the_reason_reads_the_status_from_the_deciding_record() {
        let d = failed(Cause::ProxyRefused);
        assert_eq!(
            remote_reason(&d, "Connection failed (ERR_PROXY_TUNNEL): Proxy refused to open a tunnel: 407 Proxy Authentication Required").unwrap(),
            "proxy refused (407)"
        );
        assert_eq!(
            remote_reason(&d, "Connection failed (407): Error POSTing to endpoint: x").unwrap(),
            "proxy refused (407)"
        );
        let d = failed(Cause::AuthHeaderRejected);
        assert_eq!(
            remote_reason(
                &d,
                "Server rejected the configured Authorization header (HTTP 403). Check"
            )
            .unwrap(),
            "configured Authorization header refused (HTTP 403)"
        );
    }
}
