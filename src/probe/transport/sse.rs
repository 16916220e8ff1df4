//! The legacy HTTP+SSE transport: GET opens the stream, whose `endpoint` event names where
//! to POST (on the same origin only, as Claude Code requires).

use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::Instant;

use serde_json::Value;

use super::*;

// ---------------------------------------------------------------------------------
// legacy HTTP+SSE: GET opens the stream, whose `endpoint` event names where to POST
// ---------------------------------------------------------------------------------

pub struct SseTransport {
    agent: ureq::Agent,
    origin: Origin,
    headers: BTreeMap<String, String>,
    endpoint: String,
    rx: Receiver<Incoming>,
}

impl SseTransport {
    pub fn connect(
        url: &str,
        headers: &BTreeMap<String, String>,
        deadline: Instant,
        trusted: Option<&crate::probe::ExtraRoots>,
    ) -> Result<SseTransport, Failure> {
        let origin = HttpTransport::new(url, headers, None)?.origin;
        let agent = agent_trusting(trusted);
        let started = Instant::now();
        let mut sent: Vec<(&str, &str)> = vec![("Accept", "text/event-stream")];
        sent.extend(headers.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let resp = request(
            &agent,
            url,
            &origin,
            None,
            &sent,
            Wait::Connect(remaining(deadline)?),
        )?;
        let status = resp.status().as_u16();
        if status == 401 {
            let www = resp
                .headers()
                .get("www-authenticate")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            return Err(Failure::NeedsAuth {
                www_authenticate: www,
            });
        }
        if status != 200 {
            return Err(Failure::HttpStatus {
                status,
                body: String::new(),
            });
        }
        let (tx, rx) = sync_channel::<Incoming>(256);
        let (etx, erx) = sync_channel::<String>(1);
        let reader = resp.into_body().into_with_config().limit(u64::MAX).reader();
        std::thread::spawn(move || {
            let mut etx = Some(etx);
            let _ = read_sse(reader, &mut |event, data| {
                if event == Some("endpoint") {
                    if let Some(t) = etx.take() {
                        let _ = t.send(data.to_string());
                    }
                    return true;
                }
                tx.send(parse_event(data)).is_ok()
            });
            let _ = tx.send(Incoming::Closed {
                detail: "the SSE stream ended".into(),
            });
        });
        let endpoint = erx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .map_err(|_| Failure::Timeout {
                waited_ms: started.elapsed().as_millis() as u64,
            })?;
        // As Claude Code: the endpoint is resolved against the configured URL and must
        // be on its origin, or the connection fails (and the headers stay home).
        let endpoint = resolve_url(url, endpoint.trim());
        same_origin(&endpoint, &origin, CrossOrigin::SseEndpoint)?;
        Ok(SseTransport {
            agent,
            origin,
            headers: headers.clone(),
            endpoint,
            rx,
        })
    }
}

/// `rel` (absolute, host-relative `/path` or relative) against `base`.
/// Whatever it gives is checked against the configured origin before anything is sent.
pub(crate) fn resolve_url(base: &str, rel: &str) -> String {
    let scheme = rel.find("://").map(|i| &rel[..i]);
    if scheme.is_some_and(|s| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    }) {
        return rel.to_string();
    }
    let scheme_end = base.find("://").map(|i| i + 3).unwrap_or(0);
    if rel.starts_with("//") {
        // scheme-relative: another host, maybe
        return format!("{}{}", &base[..scheme_end.saturating_sub(2)], rel);
    }
    let host_end = base[scheme_end..]
        .find('/')
        .map(|i| scheme_end + i)
        .unwrap_or(base.len());
    if rel.starts_with('/') {
        return format!("{}{}", &base[..host_end], rel);
    }
    let dir_end = base
        .rfind('/')
        .filter(|&i| i >= host_end)
        .unwrap_or(host_end);
    format!("{}/{}", &base[..dir_end], rel)
}

impl Transport for SseTransport {
    fn send(&mut self, msg: &Value, deadline: Instant) -> Result<(), Failure> {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let resp = request(
            &self.agent,
            &self.endpoint,
            &self.origin,
            Some(&serde_json::to_vec(msg).expect("json")),
            &headers,
            Wait::Global(remaining(deadline)?),
        )?;
        let status = resp.status().as_u16();
        if status == 401 {
            return Err(Failure::NeedsAuth {
                www_authenticate: None,
            });
        }
        if !(200..300).contains(&status) {
            return Err(Failure::HttpStatus {
                status,
                body: String::new(),
            });
        }
        Ok(())
    }

    fn recv(&mut self, deadline: Instant) -> Result<Incoming, Failure> {
        let started = Instant::now();
        match self
            .rx
            .recv_timeout(deadline.saturating_duration_since(started))
        {
            Ok(m) => Ok(m),
            Err(RecvTimeoutError::Disconnected) => Ok(Incoming::Closed {
                detail: "the SSE stream ended".into(),
            }),
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout {
                waited_ms: started.elapsed().as_millis() as u64,
            }),
        }
    }

    fn describe(&self) -> String {
        "legacy HTTP+SSE".into()
    }
}
