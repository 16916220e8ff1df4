//! Where and how `mcplogs export` sends: the standard OpenTelemetry exporter variables
//! (`OTEL_EXPORTER_OTLP_*`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SERVICE_NAME`), Claude
//! Code's `OTEL_LOG_TOOL_DETAILS`, and mcplogs' own `MCPLOGS_EXPORT_KEY`, each read
//! from Claude Code's settings `env` blocks and the environment in Claude Code's
//! precedence (managed, local, project, user settings, then the environment).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::settings::env::env_values;
use crate::settings::layers::Sources;

/// Every variable export reads, in the order docs/export.md lists them.
pub const VARIABLES: [&str; 13] = [
    "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT",
    "OTEL_EXPORTER_OTLP_TIMEOUT",
    "OTEL_RESOURCE_ATTRIBUTES",
    "OTEL_SERVICE_NAME",
    "OTEL_LOG_TOOL_DETAILS",
    KEY_VARIABLE,
    "MCPLOGS_EXPORT_DISABLED",
];

/// The admin's key for the hashes that stand for names (docs/export.md).
pub const KEY_VARIABLE: &str = "MCPLOGS_EXPORT_KEY";

/// The time limit when none is set: a few seconds, so a collector that is down or
/// slow never holds up the session that ran the hook. (The OpenTelemetry default of
/// 10 s is meant for a process that exports in the background.)
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The shortest admin key accepted: shorter ones are guessable.
pub const MIN_KEY_BYTES: usize = 16;

/// OTLP over HTTP: protobuf or JSON bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Protobuf,
    Json,
}

impl Protocol {
    pub fn content_type(self) -> &'static str {
        match self {
            Protocol::Protobuf => "application/x-protobuf",
            Protocol::Json => "application/json",
        }
    }
}

/// What the variables say, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportConfig {
    /// The full URL records are POSTed to; `None` when no endpoint variable is set.
    pub endpoint: Option<String>,
    /// Extra request headers (an `Authorization` or API key): never shown.
    pub headers: Vec<(String, String)>,
    pub protocol: Protocol,
    pub timeout: Duration,
    /// The resource's attributes (`service.name` and `service.version` included).
    pub resource: BTreeMap<String, String>,
    /// `OTEL_LOG_TOOL_DETAILS=1`: names, paths and error text are sent.
    pub details: bool,
    /// `MCPLOGS_EXPORT_KEY`: the fleet's key for the hashes.
    pub fleet_key: Option<String>,
    /// `MCPLOGS_EXPORT_DISABLED=1`: the admin turned export off (the hook does nothing).
    pub disabled: bool,
}

/// A variable that cannot be used. Its value is never quoted (headers hold tokens).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{var} is not an http:// or https:// URL")]
    BadEndpoint { var: &'static str },
    #[error(
        "{var} asks for {protocol:?}: mcplogs sends OTLP over HTTP only (http/protobuf or http/json); set OTEL_EXPORTER_OTLP_LOGS_PROTOCOL and an HTTP endpoint (port 4318) for it"
    )]
    Protocol { var: &'static str, protocol: String },
    #[error("{var}: entry {entry} is not key=value")]
    BadPair { var: &'static str, entry: usize },
    #[error("{var} is not a whole number of milliseconds")]
    BadTimeout { var: &'static str },
    #[error(
        "{KEY_VARIABLE} is shorter than {MIN_KEY_BYTES} bytes: a short key lets anyone guess the names behind the hashes"
    )]
    ShortKey,
}

/// The value of `key` as Claude Code would see it: the first settings layer that sets
/// it (managed, local, project, user), else `environment`.
pub fn lookup_in<'a>(
    sources: &'a Sources,
    environment: &'a dyn Fn(&str) -> Option<String>,
) -> impl Fn(&str) -> Option<String> + 'a {
    move |key| {
        env_values(sources, key, environment(key))
            .into_iter()
            .find_map(|v| v.value)
    }
}

/// Resolves every variable through `var` (see [`lookup_in`]).
pub fn resolve(var: &dyn Fn(&str) -> Option<String>) -> Result<ExportConfig, ConfigError> {
    let get = |k: &'static str| var(k).filter(|v| !v.trim().is_empty()).map(|v| (k, v));
    let endpoint = match get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT") {
        Some((k, v)) => Some(checked_url(k, v.trim())?),
        None => match get("OTEL_EXPORTER_OTLP_ENDPOINT") {
            Some((k, v)) => {
                let base = checked_url(k, v.trim())?;
                Some(if base.ends_with('/') {
                    format!("{base}v1/logs")
                } else {
                    format!("{base}/v1/logs")
                })
            }
            None => None,
        },
    };
    let mut headers: Vec<(String, String)> = Vec::new();
    for k in [
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    ] {
        if let Some((k, v)) = get(k) {
            for (name, value) in pairs(k, &v)? {
                headers.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
                headers.push((name, value));
            }
        }
    }
    let protocol = match get("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL")
        .or_else(|| get("OTEL_EXPORTER_OTLP_PROTOCOL"))
    {
        None => Protocol::Protobuf,
        Some((k, v)) => match v.trim() {
            "http/protobuf" => Protocol::Protobuf,
            "http/json" => Protocol::Json,
            other => {
                return Err(ConfigError::Protocol {
                    var: k,
                    protocol: crate::text::one_line(other, 40),
                });
            }
        },
    };
    let timeout = match get("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT")
        .or_else(|| get("OTEL_EXPORTER_OTLP_TIMEOUT"))
    {
        None => DEFAULT_TIMEOUT,
        Some((k, v)) => match v.trim().parse::<u64>() {
            Ok(ms) if ms > 0 => Duration::from_millis(ms),
            _ => return Err(ConfigError::BadTimeout { var: k }),
        },
    };
    let mut resource = BTreeMap::new();
    resource.insert("service.name".to_string(), "mcplogs".to_string());
    if let Some((k, v)) = get("OTEL_RESOURCE_ATTRIBUTES") {
        resource.extend(pairs(k, &v)?);
    }
    if let Some((_, v)) = get("OTEL_SERVICE_NAME") {
        resource.insert("service.name".to_string(), v.trim().to_string());
    }
    resource.insert(
        "service.version".to_string(),
        env!("CARGO_PKG_VERSION").to_string(),
    );
    let fleet_key = get(KEY_VARIABLE).map(|(_, v)| v);
    if fleet_key.as_ref().is_some_and(|k| k.len() < MIN_KEY_BYTES) {
        return Err(ConfigError::ShortKey);
    }
    Ok(ExportConfig {
        endpoint,
        headers,
        protocol,
        timeout,
        resource,
        details: get("OTEL_LOG_TOOL_DETAILS").is_some_and(|(_, v)| is_on(&v)),
        fleet_key,
        disabled: get("MCPLOGS_EXPORT_DISABLED").is_some_and(|(_, v)| is_on(&v)),
    })
}

/// `1` or `true` (any case), as Claude Code's switches read.
fn is_on(v: &str) -> bool {
    matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true")
}

fn checked_url(var: &'static str, v: &str) -> Result<String, ConfigError> {
    let lower = v.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))
        .ok_or(ConfigError::BadEndpoint { var })?;
    if rest.is_empty()
        || rest.starts_with('/')
        || v.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(ConfigError::BadEndpoint { var });
    }
    Ok(v.to_string())
}

/// `key1=value1,key2=value2` (the W3C baggage form the OpenTelemetry variables use),
/// percent-decoded, keys and values trimmed. An empty entry is skipped.
fn pairs(var: &'static str, v: &str) -> Result<Vec<(String, String)>, ConfigError> {
    let mut out = Vec::new();
    for (i, entry) in v.split(',').enumerate() {
        if entry.trim().is_empty() {
            continue;
        }
        let (k, val) = entry
            .split_once('=')
            .ok_or(ConfigError::BadPair { var, entry: i + 1 })?;
        let k = percent_decode(k.trim());
        if k.is_empty() || k.chars().any(|c| c.is_control()) {
            return Err(ConfigError::BadPair { var, entry: i + 1 });
        }
        let val = percent_decode(val.trim());
        if val.chars().any(|c| c == '\r' || c == '\n' || c == '\0') {
            return Err(ConfigError::BadPair { var, entry: i + 1 });
        }
        out.push((k, val));
    }
    Ok(out)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex_digit(b[i + 1]), hex_digit(b[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_digit(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// The endpoint as it may be shown: scheme, host, port and path, without a user,
/// password or query (which can hold a token).
pub fn shown_endpoint(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let host = authority.rsplit('@').next().unwrap_or_default();
    crate::text::sanitize::text(&format!("{scheme}://{host}{path}")).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve_with(vars: &[(&str, &str)]) -> Result<ExportConfig, ConfigError> {
        let m: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        resolve(&|k| m.get(k).cloned())
    }

    #[test]
    fn the_logs_endpoint_is_used_as_is_and_the_base_gets_v1_logs() {
        let c = resolve_with(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318")]).unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("http://c:4318/v1/logs"));
        let c = resolve_with(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "https://c/otlp/")]).unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("https://c/otlp/v1/logs"));
        let c = resolve_with(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"),
            ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://l:9/custom"),
        ])
        .unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("http://l:9/custom"));
        assert_eq!(resolve_with(&[]).unwrap().endpoint, None);
        assert_eq!(
            resolve_with(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "c:4318")]),
            Err(ConfigError::BadEndpoint {
                var: "OTEL_EXPORTER_OTLP_ENDPOINT"
            })
        );
    }

    #[test]
    fn headers_decode_and_the_logs_headers_win_per_name() {
        let c = resolve_with(&[
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "Authorization=Bearer%20abc, x-a=1",
            ),
            ("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "x-A=2"),
        ])
        .unwrap();
        assert_eq!(
            c.headers,
            vec![
                ("Authorization".to_string(), "Bearer abc".to_string()),
                ("x-A".to_string(), "2".to_string())
            ]
        );
        let e = resolve_with(&[("OTEL_EXPORTER_OTLP_HEADERS", "a=1,secretvalue")]).unwrap_err();
        assert_eq!(
            e,
            ConfigError::BadPair {
                var: "OTEL_EXPORTER_OTLP_HEADERS",
                entry: 2
            }
        );
        assert!(!e.to_string().contains("secretvalue"));
        assert!(resolve_with(&[("OTEL_EXPORTER_OTLP_HEADERS", "a=1%0d%0aX: y")]).is_err());
    }

    #[test]
    fn protocol_timeout_resource_details_and_key() {
        let c = resolve_with(&[]).unwrap();
        assert_eq!(c.protocol, Protocol::Protobuf);
        assert_eq!(c.timeout, DEFAULT_TIMEOUT);
        assert_eq!(c.resource["service.name"], "mcplogs");
        assert!(!c.details);
        let c = resolve_with(&[
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "250"),
            ("OTEL_RESOURCE_ATTRIBUTES", "team=infra,service.name=x"),
            ("OTEL_SERVICE_NAME", "fleet"),
            ("OTEL_LOG_TOOL_DETAILS", "1"),
        ])
        .unwrap();
        assert_eq!(c.protocol, Protocol::Json);
        assert_eq!(c.timeout, Duration::from_millis(250));
        assert_eq!(c.resource["team"], "infra");
        assert_eq!(c.resource["service.name"], "fleet");
        assert!(c.details);
        assert!(matches!(
            resolve_with(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]),
            Err(ConfigError::Protocol { .. })
        ));
        assert!(resolve_with(&[("OTEL_EXPORTER_OTLP_TIMEOUT", "5s")]).is_err());
        assert_eq!(
            resolve_with(&[(KEY_VARIABLE, "short")]),
            Err(ConfigError::ShortKey)
        );
    }

    #[test]
    fn the_shown_endpoint_has_no_credentials_or_query() {
        assert_eq!(
            shown_endpoint("https://user:pw@c.example:4318/v1/logs?token=abc"),
            "https://c.example:4318/v1/logs"
        );
    }
}
