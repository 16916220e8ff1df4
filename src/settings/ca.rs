//! The value of `NODE_EXTRA_CA_CERTS` that `mcplogs fix` writes for a server whose TLS
//! certificate Claude Code does not trust: a PEM file of certificate authorities, checked
//! before it is written. The check is one TLS handshake to the server's own host and
//! port with only that file's certificates as roots (no HTTP request, nothing sent but
//! the handshake: no credential ever). Where the machine goes through a proxy for the
//! server (`HTTPS_PROXY` of the environment, the host not in `NO_PROXY`), the handshake
//! goes through the proxy's tunnel as Claude Code's would, without any proxy credential.
//!
//! The handshake runs where mcplogs is built with rustls (Linux and the other Unixes);
//! on Windows and macOS it does not run ([`ChainCheck::NotRun`]) and nothing is written.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::safe_read::{Follow, ReadError, read_regular};

/// The largest CA file read: system bundles are a few hundred KB.
pub const CA_FILE_MAX_BYTES: u64 = 4 * 1024 * 1024;

/// How long the connection and the handshake may take, each step.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a CA file cannot be the value of `NODE_EXTRA_CA_CERTS`.
#[derive(Debug, thiserror::Error)]
pub enum CaFileError {
    #[error("it does not exist")]
    Missing,
    #[error("it is {kind}, not a regular file")]
    NotRegular { kind: &'static str },
    #[error("it is larger than {limit} bytes, too large for a file of certificates")]
    TooLarge { limit: u64 },
    #[error(
        "it holds no PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)"
    )]
    NoCertificate,
    #[error("it cannot be read")]
    Unreadable(#[source] std::io::Error),
}

/// A CA file that passed [`read_ca_file`]: its absolute path and its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct CaFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    /// How many PEM certificates it holds.
    pub certificates: usize,
}

/// Reads a CA file: a regular file (a FIFO or a device is refused without blocking),
/// at most [`CA_FILE_MAX_BYTES`], holding at least one PEM certificate. The path is made
/// absolute (Claude Code reads it from another folder).
pub fn read_ca_file(path: &Path) -> Result<CaFile, CaFileError> {
    let abs = std::path::absolute(path).map_err(CaFileError::Unreadable)?;
    let read = match read_regular(&abs, CA_FILE_MAX_BYTES, Follow::Links) {
        Ok(Some(r)) => r,
        Ok(None) => return Err(CaFileError::Missing),
        Err(ReadError::NotRegular { kind }) => return Err(CaFileError::NotRegular { kind }),
        Err(ReadError::TooLarge { limit }) => return Err(CaFileError::TooLarge { limit }),
        Err(ReadError::Io(e)) => return Err(CaFileError::Unreadable(e)),
        Err(ReadError::Replaced) => {
            return Err(CaFileError::Unreadable(std::io::Error::other(
                "it changed while it was read",
            )));
        }
    };
    let certificates = pem_certificates(&read.bytes);
    if certificates == 0 {
        return Err(CaFileError::NoCertificate);
    }
    Ok(CaFile {
        path: abs,
        bytes: read.bytes,
        certificates,
    })
}

/// The base64 bodies of the well-formed PEM certificate blocks of `bytes` (a BEGIN line,
/// base64 lines, the END line), each without its line breaks: two files hold the same
/// certificate when a body is in both.
pub fn pem_bodies(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = Vec::new();
    let mut body: Option<String> = None;
    for line in text.lines().map(str::trim) {
        match line {
            "-----BEGIN CERTIFICATE-----" => body = Some(String::new()),
            "-----END CERTIFICATE-----" => {
                if let Some(b) = body.take().filter(|b| !b.is_empty()) {
                    out.push(b);
                }
            }
            l => {
                let base64 = l
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
                match body.as_mut() {
                    Some(b) if base64 => b.push_str(l),
                    _ => body = None,
                }
            }
        }
    }
    out
}

/// Whether every certificate of `old` is in `new` as well.
pub fn holds_all_of(new: &CaFile, old: &CaFile) -> bool {
    let have = pem_bodies(&new.bytes);
    pem_bodies(&old.bytes).iter().all(|b| have.contains(b))
}

/// How many well-formed PEM certificate blocks `bytes` holds ([`pem_bodies`]).
pub fn pem_certificates(bytes: &[u8]) -> usize {
    pem_bodies(bytes).len()
}

/// The files the machine already trusts for other tools, in the order they are
/// proposed: `SSL_CERT_FILE` (`ssl_cert_file` is its value), then the usual system
/// bundles. Only those that exist.
pub fn trusted_candidates(ssl_cert_file: Option<&std::ffi::OsStr>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Some(v) = ssl_cert_file.filter(|v| !v.is_empty()) {
        out.push(PathBuf::from(v));
    }
    for p in SYSTEM_BUNDLES {
        out.push(PathBuf::from(p));
    }
    let mut seen: Vec<PathBuf> = Vec::new();
    out.retain(|p| {
        let canon = std::fs::canonicalize(p).ok();
        match canon {
            Some(c) if !seen.contains(&c) => {
                seen.push(c);
                true
            }
            _ => false,
        }
    });
    out
}

/// The system CA bundles of the common Linux distributions and the BSDs.
const SYSTEM_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/ssl/ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// What the handshake with only a CA file's certificates as roots said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainCheck {
    /// The server's chain verifies up to one of the file's certificates, for its host.
    Verified,
    /// The handshake ran and the chain did not verify: why, in words.
    Failed(String),
    /// No handshake ran, or it never got to the server's chain (the server or the proxy
    /// could not be reached, it stopped answering, no TLS here): why.
    NotRun(String),
}

/// The proxy the handshake goes through, when the machine's environment names one for
/// `https` URLs and `host` is not in its `NO_PROXY`: `(host, port)` of the proxy.
pub fn proxy_for(
    host: &str,
    https_proxy: Option<&str>,
    no_proxy: Option<&str>,
) -> Option<(String, u16)> {
    let proxy = https_proxy.filter(|p| !p.trim().is_empty())?;
    if no_proxy.is_some_and(|n| no_proxy_covers(n, host)) {
        return None;
    }
    let rest = proxy.split_once("://").map_or(proxy, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    // credentials in the proxy's URL are never sent: only its host and port are kept
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (h, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (h, rest) = v6.split_once(']')?;
            (h, rest.strip_prefix(':').and_then(|p| p.parse().ok()))
        }
        None => match authority.rsplit_once(':') {
            Some((h, p)) => (h, p.parse().ok()),
            None => (authority, None),
        },
    };
    (!h.is_empty()).then(|| (h.to_string(), port.unwrap_or(80)))
}

/// Whether a `NO_PROXY` list covers `host`: `*`, the host itself, or a domain it is in
/// (`example.com` and `.example.com` both cover `mcp.example.com`); case-insensitive,
/// ports after a host ignored.
pub fn no_proxy_covers(list: &str, host: &str) -> bool {
    let host = host.trim_matches(['[', ']']).to_ascii_lowercase();
    list.split(',')
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| !e.is_empty())
        .any(|e| {
            if e == "*" {
                return true;
            }
            let e = e.trim_matches(['[', ']']);
            let e = match e.rsplit_once(':') {
                // `host:port`; an IPv6 address has more than one colon
                Some((h, p)) if !h.contains(':') && p.bytes().all(|b| b.is_ascii_digit()) => h,
                _ => e,
            };
            let domain = e.trim_start_matches("*.").trim_start_matches('.');
            host == domain || host.ends_with(&format!(".{domain}"))
        })
}

/// The variable naming the extra certificate authorities Node (so Claude Code) trusts.
pub const EXTRA_CA_VAR: &str = "NODE_EXTRA_CA_CERTS";

/// The CA file `NODE_EXTRA_CA_CERTS` names for a project, as Claude Code takes it: the
/// highest settings layer that sets it, else the environment (this machine's only), read;
/// `None` when nothing sets it or the file cannot be read as one.
pub fn extra_ca_in_effect(sources: &super::layers::Sources) -> Option<CaFile> {
    let env = sources
        .environment
        .then(|| std::env::var(EXTRA_CA_VAR).ok())
        .flatten();
    let value = super::env::env_values(sources, EXTRA_CA_VAR, env)
        .into_iter()
        .find_map(|l| l.value)?;
    read_ca_file(Path::new(&value)).ok()
}

/// Why the server's certificate did not verify with a CA file, in words (helper-102 #5:
/// rustls' own debug text was shown), and what a CA file can do about it.
#[cfg(not(any(windows, target_os = "macos")))]
fn in_words(c: &rustls::CertificateError, host: &str) -> String {
    use rustls::CertificateError as E;
    match c {
        E::Expired | E::ExpiredContext { .. } => "the server's certificate has expired: no CA file fixes that, its operator must renew it".to_string(),
        E::NotValidYet | E::NotValidYetContext { .. } => "the server's certificate is not valid yet (or this machine's clock is behind): no CA file fixes that".to_string(),
        E::NotValidForName | E::NotValidForNameContext { .. } => format!(
            "the server's certificate is for another host name than {host}: no CA file fixes that (use the name it is for in the server's URL)"
        ),
        E::UnknownIssuer => "the server's certificate was not signed by a certificate authority in the file".to_string(),
        E::BadSignature => "the server's certificate's signature does not verify with the file's certificates".to_string(),
        // a self-signed certificate marked as a certificate authority, served as the
        // server's own: Node takes it from NODE_EXTRA_CA_CERTS (observed on 2.1.336),
        // the check's TLS library refuses it
        other if format!("{other:?}").contains("CaUsedAsEndEntity") => "the server presents a self-signed certificate marked as a certificate authority, which mcplogs' check cannot verify (Claude Code accepts such a certificate in NODE_EXTRA_CA_CERTS: observed on 2.1.336; set it by hand when the file holds that very certificate)".to_string(),
        other => format!("the server's certificate does not verify with it ({other:?})"),
    }
}

/// Checks `ca` against the server at `host:port`: a TLS handshake (through `proxy`
/// when given, with a bare `CONNECT`) whose only roots are the file's certificates.
pub fn verify_chain(ca: &CaFile, host: &str, port: u16, proxy: Option<(&str, u16)>) -> ChainCheck {
    imp::verify_chain(ca, host, port, proxy)
}

#[cfg(not(any(windows, target_os = "macos")))]
mod imp {
    use std::io::{Read, Write};
    use std::net::{TcpStream, ToSocketAddrs};
    use std::sync::Arc;

    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName};

    use super::{CaFile, ChainCheck, HANDSHAKE_TIMEOUT};

    pub fn verify_chain(
        ca: &CaFile,
        host: &str,
        port: u16,
        proxy: Option<(&str, u16)>,
    ) -> ChainCheck {
        let failed = |why: String| ChainCheck::Failed(why);
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(&ca.bytes).flatten() {
            // a certificate rustls cannot use as a root is skipped, as Node skips it
            let _ = roots.add(cert);
        }
        if roots.is_empty() {
            return failed(format!(
                "{} holds no certificate usable as a root",
                ca.path.display()
            ));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = match rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
        {
            Ok(b) => b.with_root_certificates(roots).with_no_client_auth(),
            Err(e) => return ChainCheck::NotRun(format!("no TLS configuration: {e}")),
        };
        let name = match ServerName::try_from(host.trim_matches(['[', ']']).to_string()) {
            Ok(n) => n,
            Err(e) => return failed(format!("{host} is not a host name TLS accepts: {e}")),
        };
        let mut conn = match rustls::ClientConnection::new(Arc::new(config), name) {
            Ok(c) => c,
            Err(e) => return ChainCheck::NotRun(format!("no TLS client: {e}")),
        };
        let (via_host, via_port) = proxy.unwrap_or((host, port));
        // a server (or proxy) that cannot be reached is a check that did not run
        let mut sock = match connect(via_host, via_port) {
            Ok(s) => s,
            Err(e) => {
                return ChainCheck::NotRun(format!(
                    "could not reach {}{}:{via_port}: {e}",
                    if proxy.is_some() { "the proxy " } else { "" },
                    via_host
                ));
            }
        };
        if proxy.is_some()
            && let Err(why) = tunnel(&mut sock, host, port)
        {
            return ChainCheck::NotRun(why);
        }
        while conn.is_handshaking() {
            if let Err(e) = conn.complete_io(&mut sock) {
                return match e
                    .get_ref()
                    .and_then(|inner| inner.downcast_ref::<rustls::Error>())
                {
                    Some(rustls::Error::InvalidCertificate(c)) => failed(super::in_words(c, host)),
                    Some(other) => failed(format!("the TLS handshake failed ({other})")),
                    // a timeout, a reset: the server never showed its chain
                    None => ChainCheck::NotRun(format!(
                        "the TLS handshake with {host}:{port} did not complete ({e})"
                    )),
                };
            }
        }
        conn.send_close_notify();
        let _ = conn.complete_io(&mut sock);
        ChainCheck::Verified
    }

    fn connect(host: &str, port: u16) -> std::io::Result<TcpStream> {
        let mut last = None;
        for addr in (host.trim_matches(['[', ']']), port).to_socket_addrs()? {
            match TcpStream::connect_timeout(&addr, HANDSHAKE_TIMEOUT) {
                Ok(s) => {
                    s.set_read_timeout(Some(HANDSHAKE_TIMEOUT))?;
                    s.set_write_timeout(Some(HANDSHAKE_TIMEOUT))?;
                    return Ok(s);
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("the name has no address")))
    }

    /// A bare `CONNECT` (no `Proxy-Authorization`: no credential is ever sent).
    fn tunnel(sock: &mut TcpStream, host: &str, port: u16) -> Result<(), String> {
        let target = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let req = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n");
        sock.write_all(req.as_bytes())
            .map_err(|e| format!("the proxy's tunnel could not be asked for: {e}"))?;
        let mut head = Vec::new();
        let mut b = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
            match sock.read(&mut b) {
                Ok(1) => head.push(b[0]),
                Ok(_) => break,
                Err(e) => return Err(format!("the proxy did not answer: {e}")),
            }
        }
        let status = String::from_utf8_lossy(&head);
        let first = status.lines().next().unwrap_or("").to_string();
        if first.split_whitespace().nth(1) == Some("200") {
            Ok(())
        } else {
            Err(format!(
                "the proxy refused the tunnel to {target} ({})",
                crate::text::layout::cut(first.trim(), 80)
            ))
        }
    }
}

#[cfg(any(windows, target_os = "macos"))]
mod imp {
    use super::{CaFile, ChainCheck};

    pub fn verify_chain(
        _ca: &CaFile,
        _host: &str,
        _port: u16,
        _proxy: Option<(&str, u16)>,
    ) -> ChainCheck {
        ChainCheck::NotRun(
            "this build of mcplogs (Windows, macOS) has no TLS handshake of its own to check the file with".into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CERT: &str =
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\nAbC+/=\n-----END CERTIFICATE-----\n";

    /// helper-102 #5: why a certificate did not verify is said in words, with what a CA
    /// file can do about it (rustls' debug text was shown).
    #[cfg(not(any(windows, target_os = "macos")))]
    #[test]
    fn a_certificate_that_does_not_verify_is_said_in_words() {
        use rustls::CertificateError as E;
        let expired = in_words(&E::Expired, "h.test");
        assert!(
            expired.contains("has expired: no CA file fixes that"),
            "{expired}"
        );
        let name = in_words(&E::NotValidForName, "h.test");
        assert!(name.contains("another host name than h.test"), "{name}");
        let issuer = in_words(&E::UnknownIssuer, "h.test");
        assert!(!issuer.contains("UnknownIssuer"), "{issuer}");
    }

    #[test]
    fn a_file_holds_another_when_it_has_each_of_its_certificates() {
        let file = |bytes: &str| CaFile {
            path: PathBuf::from("/x.pem"),
            bytes: bytes.as_bytes().to_vec(),
            certificates: pem_certificates(bytes.as_bytes()),
        };
        let other = "-----BEGIN CERTIFICATE-----\nQUJD\nREVG\n-----END CERTIFICATE-----\n";
        let both = file(&format!("{other}{CERT}"));
        assert!(holds_all_of(&both, &file(CERT)));
        assert!(holds_all_of(&both, &file(other)));
        // the same certificate wrapped at another width is the same
        let rewrapped = "-----BEGIN CERTIFICATE-----\nQUJDREVG\n-----END CERTIFICATE-----\n";
        assert!(holds_all_of(&both, &file(rewrapped)));
        assert!(!holds_all_of(&file(CERT), &both));
    }

    #[test]
    fn pem_blocks_are_counted_and_anything_else_is_none() {
        assert_eq!(pem_certificates(CERT.as_bytes()), 1);
        assert_eq!(
            pem_certificates(format!("junk\n{CERT}{CERT}").as_bytes()),
            2
        );
        assert_eq!(
            pem_certificates(b"-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"),
            0
        );
        assert_eq!(
            pem_certificates(b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
            0
        );
        assert_eq!(
            pem_certificates(
                b"-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n"
            ),
            0
        );
        assert_eq!(pem_certificates(b""), 0);
    }

    #[test]
    fn no_proxy_lists_cover_hosts_domains_and_star() {
        assert!(no_proxy_covers("127.0.0.1,localhost", "localhost"));
        assert!(no_proxy_covers(" .corp.test ", "mcp.corp.test"));
        assert!(no_proxy_covers("corp.test", "mcp.corp.test"));
        assert!(no_proxy_covers("*", "anything"));
        assert!(no_proxy_covers("MCP.Corp.Test:443", "mcp.corp.test"));
        assert!(no_proxy_covers("::1", "[::1]"));
        assert!(!no_proxy_covers("orp.test", "mcp.corp.test"));
        assert!(!no_proxy_covers("127.0.0.1", "127.0.0.2"));
        assert!(!no_proxy_covers("", "x"));
    }

    #[test]
    fn the_proxy_is_its_host_and_port_never_its_credentials() {
        assert_eq!(
            proxy_for(
                "mcp.test",
                Some("http://user:secret@proxy.corp:3128/"),
                None
            ),
            Some(("proxy.corp".into(), 3128))
        );
        assert_eq!(
            proxy_for("mcp.test", Some("http://proxy.corp"), Some("other")),
            Some(("proxy.corp".into(), 80))
        );
        assert_eq!(
            proxy_for("mcp.test", Some("http://p:1"), Some(".test")),
            None
        );
        assert_eq!(proxy_for("mcp.test", None, None), None);
        assert_eq!(
            proxy_for("h", Some("http://[::1]:8080"), None),
            Some(("::1".into(), 8080))
        );
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // a test's own temporary files
    fn a_ca_file_must_be_a_regular_file_with_a_certificate() {
        let d = tempfile::tempdir().unwrap();
        let ok = d.path().join("ca.pem");
        std::fs::write(&ok, CERT).unwrap();
        let f = read_ca_file(&ok).unwrap();
        assert!(f.path.is_absolute());
        assert_eq!(f.certificates, 1);
        let key = d.path().join("key.pem");
        std::fs::write(
            &key,
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        )
        .unwrap();
        assert!(matches!(
            read_ca_file(&key),
            Err(CaFileError::NoCertificate)
        ));
        assert!(matches!(
            read_ca_file(&d.path().join("missing.pem")),
            Err(CaFileError::Missing)
        ));
        assert!(matches!(
            read_ca_file(d.path()),
            Err(CaFileError::NotRegular { .. })
        ));
    }
}
