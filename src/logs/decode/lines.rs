//! A line reader that never holds more than `max_len` bytes of one line.
//!
//! Claude Code never rotates its MCP logs and servers' JSON-RPC traffic (base64 payloads
//! included) lands in them, so one line can be many megabytes. `BufRead::read_until`
//! would buffer such a line whole just to skip it; this reader counts it and drops it.

use std::io::{self, BufRead};

/// One physical line, with its 1-based number and whether a newline ended it (a last
/// line without one is what a crash leaves behind in Claude Code's buffered writes).
#[derive(Debug, PartialEq, Eq)]
pub struct PhysicalLine<'a> {
    pub no: usize,
    pub terminated: bool,
    pub content: Line<'a>,
}

/// A line's content. `Text` excludes the `\n` and a trailing `\r` (CRLF files).
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    Text(&'a [u8]),
    /// The line was longer than the limit; only its length is known.
    TooLong(u64),
}

pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    line_no: usize,
    max_len: usize,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R, max_len: usize) -> Self {
        LineReader {
            inner,
            buf: Vec::new(),
            line_no: 0,
            max_len,
        }
    }

    pub fn next_line(&mut self) -> io::Result<Option<PhysicalLine<'_>>> {
        self.buf.clear();
        let mut len: u64 = 0;
        let mut overflow = false;
        let mut terminated = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                break;
            }
            let (chunk_len, consumed, done) = match memchr::memchr(b'\n', available) {
                Some(i) => (i, i + 1, true),
                None => (available.len(), available.len(), false),
            };
            len += chunk_len as u64;
            if !overflow {
                if self.buf.len() + chunk_len > self.max_len {
                    overflow = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(&available[..chunk_len]);
                }
            }
            self.inner.consume(consumed);
            if done {
                terminated = true;
                break;
            }
        }
        if len == 0 && !terminated {
            return Ok(None);
        }
        self.line_no += 1;
        let content = if overflow {
            Line::TooLong(len)
        } else {
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
            Line::Text(&self.buf)
        };
        Ok(Some(PhysicalLine {
            no: self.line_no,
            terminated,
            content,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(input: &[u8], max: usize) -> Vec<(usize, Result<Vec<u8>, u64>, bool)> {
        let mut r = LineReader::new(io::BufReader::with_capacity(4, input), max);
        let mut out = Vec::new();
        while let Some(line) = r.next_line().unwrap() {
            let v = match line.content {
                Line::Text(t) => Ok(t.to_vec()),
                Line::TooLong(n) => Err(n),
            };
            out.push((line.no, v, line.terminated));
        }
        out
    }

    #[test]
    fn splits_lines_and_strips_crlf() {
        let got = collect(b"ab\r\ncd\n\nlast", 100);
        assert_eq!(
            got,
            vec![
                (1, Ok(b"ab".to_vec()), true),
                (2, Ok(b"cd".to_vec()), true),
                (3, Ok(b"".to_vec()), true),
                (4, Ok(b"last".to_vec()), false),
            ]
        );
    }

    #[test]
    fn long_lines_are_counted_not_kept() {
        let got = collect(b"short\n0123456789abcdef\nok\n", 8);
        assert_eq!(got[1], (2, Err(16), true));
        assert_eq!(got[2], (3, Ok(b"ok".to_vec()), true));
    }

    #[test]
    fn empty_input_has_no_lines() {
        assert!(collect(b"", 10).is_empty());
    }
}
