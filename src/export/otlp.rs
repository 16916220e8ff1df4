//! OTLP/HTTP: the records as an `ExportLogsServiceRequest` (the official message types
//! of `opentelemetry-proto`), encoded as protobuf or OTLP/JSON, POSTed to `/v1/logs`;
//! the answer's partial success read back.

use std::collections::BTreeMap;
use std::time::Instant;

use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message;

use super::config::Protocol;
use super::{Accepted, SendError, Sink};
use crate::json_doc::ExportRecord;
use crate::redact::Redactor;

/// The longest collector message kept from an error answer, in characters.
const MAX_DETAIL: usize = 200;

fn kv(key: &str, value: any_value::Value) -> KeyValue {
    KeyValue {
        key: key.to_string(),
        value: Some(AnyValue { value: Some(value) }),
        ..Default::default()
    }
}

/// Nanoseconds since the epoch of an ISO-8601 time; 0 (unknown, as OTLP reads it) when
/// it does not parse.
fn nanos(iso: &str) -> u64 {
    iso.parse::<jiff::Timestamp>()
        .ok()
        .and_then(|t| u64::try_from(t.as_nanosecond()).ok())
        .unwrap_or(0)
}

/// The attributes as OTLP key-values: from the record's own JSON form, so the names
/// are the schema's (docs/export.md); `null` values are left out.
fn attributes(r: &ExportRecord) -> Vec<KeyValue> {
    let Ok(serde_json::Value::Object(m)) = serde_json::to_value(&r.attributes) else {
        return Vec::new();
    };
    m.into_iter()
        .filter_map(|(k, v)| {
            let v = match v {
                serde_json::Value::String(s) => any_value::Value::StringValue(s),
                serde_json::Value::Bool(b) => any_value::Value::BoolValue(b),
                serde_json::Value::Number(n) => any_value::Value::IntValue(n.as_i64()?),
                _ => return None,
            };
            Some(kv(&k, v))
        })
        .collect()
}

/// One request holding `records`, under one resource and the `mcplogs` scope.
pub fn request(
    records: &[ExportRecord],
    resource: &BTreeMap<String, String>,
) -> ExportLogsServiceRequest {
    let log_records = records
        .iter()
        .map(|r| LogRecord {
            time_unix_nano: nanos(&r.timestamp),
            observed_time_unix_nano: nanos(&r.observed_timestamp),
            severity_number: i32::from(r.severity_number),
            severity_text: r.severity_text.clone(),
            body: Some(AnyValue {
                value: Some(any_value::Value::StringValue(r.body.clone())),
            }),
            attributes: attributes(r),
            event_name: r.attributes.event_name.clone(),
            ..Default::default()
        })
        .collect();
    ExportLogsServiceRequest {
        resource_logs: vec![ResourceLogs {
            resource: Some(Resource {
                attributes: resource
                    .iter()
                    .map(|(k, v)| kv(k, any_value::Value::StringValue(v.clone())))
                    .collect(),
                ..Default::default()
            }),
            scope_logs: vec![ScopeLogs {
                scope: Some(InstrumentationScope {
                    name: "mcplogs".into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                    ..Default::default()
                }),
                log_records,
                schema_url: String::new(),
            }],
            schema_url: String::new(),
        }],
    }
}

/// The request's body in `protocol`.
pub fn encode(req: &ExportLogsServiceRequest, protocol: Protocol) -> Vec<u8> {
    match protocol {
        Protocol::Protobuf => req.encode_to_vec(),
        // The official types' serde form is OTLP/JSON (camelCase, 64-bit integers as
        // strings); it cannot fail on these types.
        Protocol::Json => serde_json::to_vec(req).unwrap_or_default(),
    }
}

/// Records refused in a 2xx answer's body (`partialSuccess.rejectedLogRecords`) and its
/// message. An empty or unreadable body is a full success.
pub fn partial_success(body: &[u8], protocol: Protocol) -> (u64, Option<String>) {
    let resp = match protocol {
        Protocol::Protobuf => ExportLogsServiceResponse::decode(body).ok(),
        Protocol::Json => return partial_success_json(body),
    };
    match resp.and_then(|r| r.partial_success) {
        Some(p) => (
            u64::try_from(p.rejected_log_records).unwrap_or(0),
            Some(p.error_message).filter(|m| !m.is_empty()),
        ),
        None => (0, None),
    }
}

/// [`partial_success`] of an OTLP/JSON body, read field by field: proto3's JSON form
/// writes a 64-bit count as a string (`"rejectedLogRecords": "1"`) and a collector may
/// write it as a number; either is a count, and an unknown field changes nothing.
fn partial_success_json(body: &[u8]) -> (u64, Option<String>) {
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(body) else {
        return (0, None);
    };
    let Some(p) = doc
        .get("partialSuccess")
        .or_else(|| doc.get("partial_success"))
    else {
        return (0, None);
    };
    let field = |camel: &str, snake: &str| p.get(camel).or_else(|| p.get(snake));
    let rejected = match field("rejectedLogRecords", "rejected_log_records") {
        Some(serde_json::Value::Number(n)) => n.as_u64().unwrap_or(0),
        Some(serde_json::Value::String(t)) => t.trim().parse().unwrap_or(0),
        _ => 0,
    };
    let message = field("errorMessage", "error_message")
        .and_then(|m| m.as_str())
        .filter(|m| !m.is_empty())
        .map(str::to_string);
    (rejected, message)
}

/// An OTLP/HTTP destination.
pub struct Client {
    agent: ureq::Agent,
    endpoint: String,
    headers: Vec<(String, String)>,
    protocol: Protocol,
    resource: BTreeMap<String, String>,
    /// Redacts every text the collector (or the connection) returns before it is kept:
    /// a collector may quote the headers it was sent ([`ExportConfig::redactor`]).
    ///
    /// [`ExportConfig::redactor`]: super::config::ExportConfig::redactor
    redactor: Redactor,
    /// The last partial-success message (redacted), for the run's one line.
    pub rejected_message: Option<String>,
}

/// The most of a collector's text redacted, in characters: far more than the one line
/// of [`MAX_DETAIL`] shown, so a body of a megabyte costs no more than this.
const MAX_REDACTED: usize = 16 * 1024;

impl Client {
    /// A text the collector or the connection returned, as it may be shown: redacted
    /// whole (its first [`MAX_REDACTED`] characters, ending where a word ends, so no
    /// secret is cut before it is redacted), then made one line and cut.
    fn shown(&self, text: &str) -> String {
        let bounded = crate::text::whole_words(text, MAX_REDACTED);
        crate::text::one_line(&self.redactor.redact(bounded), MAX_DETAIL)
    }
}

impl Client {
    pub fn new(
        endpoint: &str,
        headers: Vec<(String, String)>,
        protocol: Protocol,
        resource: BTreeMap<String, String>,
        redactor: Redactor,
    ) -> Client {
        let b = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // A redirect would carry the headers (a token) elsewhere: not followed.
            .max_redirects(0)
            .user_agent(concat!("mcplogs-export/", env!("CARGO_PKG_VERSION")));
        #[cfg(any(windows, target_os = "macos"))]
        let b = b.tls_config(
            ureq::tls::TlsConfig::builder()
                .provider(ureq::tls::TlsProvider::NativeTls)
                .build(),
        );
        Client {
            agent: b.build().into(),
            endpoint: endpoint.to_string(),
            headers,
            protocol,
            resource,
            redactor,
            rejected_message: None,
        }
    }
}

impl Sink for Client {
    fn send(&mut self, batch: &[ExportRecord], deadline: Instant) -> Result<Accepted, SendError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(SendError::Timeout(0));
        }
        let body = encode(&request(batch, &self.resource), self.protocol);
        let mut req = self
            .agent
            .post(&self.endpoint)
            .header("Content-Type", self.protocol.content_type());
        for (k, v) in &self.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let started = Instant::now();
        let resp = req
            .config()
            .timeout_global(Some(left))
            .build()
            .send(&body[..])
            .map_err(|e| match e {
                ureq::Error::Timeout(_) => SendError::Timeout(started.elapsed().as_millis() as u64),
                ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                    SendError::Timeout(started.elapsed().as_millis() as u64)
                }
                other => SendError::Connect(self.shown(&other.to_string())),
            })?;
        let status = resp.status().as_u16();
        let text = resp
            .into_body()
            .with_config()
            .limit(1 << 20)
            .read_to_vec()
            .unwrap_or_default();
        if !(200..300).contains(&status) {
            // The JSON status' message (OTLP/HTTP's error form), else a text body (a
            // proxy's or gateway's page); either quoted only once redacted.
            let detail = std::str::from_utf8(&text)
                .ok()
                .and_then(|t| match serde_json::from_str::<serde_json::Value>(t) {
                    Ok(v) => v.get("message")?.as_str().map(|m| self.shown(m)),
                    Err(_) => Some(self.shown(t)),
                })
                .filter(|m| !m.is_empty());
            return Err(SendError::Status { status, detail });
        }
        let (rejected, message) = partial_success(&text, self.protocol);
        if message.is_some() {
            self.rejected_message = message.map(|m| self.shown(&m));
        }
        Ok(Accepted { rejected })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_partial_success_counts_in_either_form() {
        for body in [
            r#"{"partialSuccess":{"rejectedLogRecords":"2","errorMessage":"too old"}}"#,
            r#"{"partialSuccess":{"rejectedLogRecords":2,"errorMessage":"too old"}}"#,
        ] {
            assert_eq!(
                partial_success(body.as_bytes(), Protocol::Json),
                (2, Some("too old".to_string())),
                "{body}"
            );
        }
        assert_eq!(partial_success(b"{}", Protocol::Json), (0, None));
        assert_eq!(partial_success(b"", Protocol::Json), (0, None));
        assert_eq!(
            partial_success(br#"{"partialSuccess":{}}"#, Protocol::Json),
            (0, None)
        );
    }
    use std::io::{BufRead, BufReader, Read, Write};

    /// A collector on loopback that answers every request with `status` and a body
    /// quoting the `authorization` and `x-team` headers it received, in `content_type`.
    fn echoing_collector(status: u16, content_type: &'static str) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1/logs", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut stream = stream;
                let mut quoted = Vec::new();
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    let lower = line.to_ascii_lowercase();
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap();
                    }
                    if lower.starts_with("authorization:") || lower.starts_with("x-team:") {
                        quoted.push(line.trim().to_string());
                    }
                }
                let mut body = vec![0; len];
                reader.read_exact(&mut body).unwrap();
                let said = format!("denied; you sent {}", quoted.join(" | "));
                let reply = if content_type == "application/json" {
                    serde_json::json!({"code": 16, "message": said}).to_string()
                } else {
                    said
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                    reply.len()
                );
            }
        });
        url
    }

    #[test]
    fn what_a_collector_says_is_redacted_with_the_configured_headers_before_it_is_kept() {
        for content_type in ["application/json", "text/plain"] {
            let url = echoing_collector(401, content_type);
            let cfg = super::super::config::ExportConfig {
                endpoint: Some(url.clone()),
                headers: vec![
                    ("Authorization".into(), "Bearer plain-words-token".into()),
                    ("x-team".into(), "teamsecret42".into()),
                ],
                protocol: Protocol::Json,
                timeout: std::time::Duration::from_secs(10),
                resource: BTreeMap::new(),
                details: false,
                fleet_key: None,
                disabled: false,
            };
            let mut client = Client::new(
                &url,
                cfg.headers.clone(),
                cfg.protocol,
                BTreeMap::new(),
                cfg.redactor(),
            );
            let deadline = Instant::now() + std::time::Duration::from_secs(30);
            let e = client.send(&[], deadline).unwrap_err().to_string();
            assert!(
                e.starts_with("the collector answered HTTP 401: denied; you sent authorization: "),
                "{e}"
            );
            assert!(e.contains("x-team: "), "{e}");
            for secret in ["plain-words-token", "teamsecret42"] {
                assert!(!e.contains(secret), "{content_type}: {secret} in {e}");
            }
        }
    }
}
