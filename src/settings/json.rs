//! A lossless reader for settings files: strict JSON exactly as JavaScript's
//! `JSON.parse` accepts it, and JSON5 (what people write by hand). It keeps every
//! value's span in the text, so edits splice bytes and `--rewrite-strict` copies each
//! value's literal text; strings are decoded to UTF-16 code units, so a lone surrogate
//! (`"\ud800"`, valid to `JSON.parse`) is kept, never rejected or replaced.
//!
//! There is no recursion: containers live on an explicit stack, so a file nested
//! 50,000 levels deep is read like any other (it is valid to `JSON.parse`). Numbers are
//! never converted (`1e400` and `-12345678901234567890123` are valid text, kept digit
//! for digit).

use std::fmt;

pub type NodeId = usize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// What `JSON.parse` accepts (RFC 8259 grammar; lone surrogates in escapes allowed).
    Strict,
    /// JSON5: comments, trailing commas, unquoted keys, single quotes, hex, `Infinity`...
    Json5,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The key decoded, lone surrogates as U+FFFD (for display and lookups).
    pub key: String,
    /// The key's UTF-16 code units, exactly.
    pub key_units: Vec<u16>,
    /// Byte span of the key as written (quotes included).
    pub key_start: usize,
    pub key_end: usize,
    /// Whether the key as written is a strict-JSON string (kept verbatim on rewrite).
    pub key_strict: bool,
    pub value: NodeId,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Object(Vec<Member>),
    Array(Vec<NodeId>),
    String {
        units: Vec<u16>,
        /// Written as a strict-JSON string (kept verbatim on rewrite).
        strict: bool,
    },
    /// The literal text is the node's span.
    Number,
    /// `true`, `false`, `null`.
    Literal,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Byte span in [`Doc::text`].
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

/// A parsed document: nodes in an arena, the text they point into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doc {
    pub text: String,
    pub nodes: Vec<Node>,
    pub root: NodeId,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset of the problem.
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, before[line_start..].chars().count() + 1)
}

impl Doc {
    /// An empty object (an empty settings file, which Claude Code tolerates).
    pub fn empty_object() -> Doc {
        Doc {
            text: String::new(),
            nodes: vec![Node {
                start: 0,
                end: 0,
                kind: Kind::Object(Vec::new()),
            }],
            root: 0,
        }
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// The value's text exactly as written.
    pub fn raw(&self, id: NodeId) -> &str {
        let n = &self.nodes[id];
        &self.text[n.start..n.end]
    }

    pub fn members(&self, id: NodeId) -> Option<&[Member]> {
        match &self.nodes[id].kind {
            Kind::Object(m) => Some(m),
            _ => None,
        }
    }

    /// `JSON.parse` keeps the last of duplicate keys.
    pub fn last_member(&self, id: NodeId, key: &str) -> Option<&Member> {
        self.members(id)?.iter().rev().find(|m| m.key == key)
    }

    /// A string value, lone surrogates as U+FFFD.
    pub fn string(&self, id: NodeId) -> Option<String> {
        match &self.nodes[id].kind {
            Kind::String { units, .. } => Some(String::from_utf16_lossy(units)),
            _ => None,
        }
    }

    /// Whether the root is an object.
    pub fn is_object(&self) -> bool {
        self.members(self.root).is_some()
    }
}

/// Parses `text` (no BOM) in `dialect`.
pub fn parse(text: &str, dialect: Dialect) -> Result<Doc, ParseError> {
    Parser {
        text,
        b: text.as_bytes(),
        pos: 0,
        dialect,
        nodes: Vec::new(),
    }
    .run()
}

enum Frame {
    Object { start: usize, members: Vec<Member> },
    Array { start: usize, items: Vec<NodeId> },
}

struct PendingKey {
    key_units: Vec<u16>,
    key_start: usize,
    key_end: usize,
    key_strict: bool,
}

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    dialect: Dialect,
    nodes: Vec<Node>,
}

impl Parser<'_> {
    fn err<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            offset,
            message: message.into(),
        })
    }

    fn json5(&self) -> bool {
        self.dialect == Dialect::Json5
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn peek_char(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn push(&mut self, start: usize, kind: Kind) -> NodeId {
        self.nodes.push(Node {
            start,
            end: self.pos,
            kind,
        });
        self.nodes.len() - 1
    }

    fn run(mut self) -> Result<Doc, ParseError> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut keys: Vec<PendingKey> = Vec::new();
        self.ws()?;
        'value: loop {
            // A value starts here.
            let start = self.pos;
            let mut done = match self.peek() {
                None => {
                    return self.err(self.pos, "unexpected end of the file: a value was expected");
                }
                Some(b'{') => {
                    self.pos += 1;
                    self.ws()?;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        self.push(start, Kind::Object(Vec::new()))
                    } else {
                        stack.push(Frame::Object {
                            start,
                            members: Vec::new(),
                        });
                        keys.push(self.key()?);
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    self.ws()?;
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        self.push(start, Kind::Array(Vec::new()))
                    } else {
                        stack.push(Frame::Array {
                            start,
                            items: Vec::new(),
                        });
                        continue 'value;
                    }
                }
                Some(q @ (b'"' | b'\'')) if q == b'"' || self.json5() => {
                    let (units, strict) = self.string(q)?;
                    self.push(start, Kind::String { units, strict })
                }
                Some(_) => self.scalar()?,
            };
            // A value is complete: attach it, then close containers or go on.
            loop {
                self.ws()?;
                match stack.last_mut() {
                    None => {
                        if self.pos < self.b.len() {
                            return self
                                .err(self.pos, "unexpected text after the end of the JSON value");
                        }
                        return Ok(Doc {
                            text: self.text.to_string(),
                            nodes: self.nodes,
                            root: done,
                        });
                    }
                    Some(Frame::Object { members, .. }) => {
                        let k = keys.pop().expect("a key for every object value");
                        members.push(Member {
                            key: String::from_utf16_lossy(&k.key_units),
                            key_units: k.key_units,
                            key_start: k.key_start,
                            key_end: k.key_end,
                            key_strict: k.key_strict,
                            value: done,
                        });
                        match self.peek() {
                            Some(b',') => {
                                let comma = self.pos;
                                self.pos += 1;
                                self.ws()?;
                                if self.peek() == Some(b'}') {
                                    if !self.json5() {
                                        return self.err(comma, "trailing comma");
                                    }
                                } else {
                                    keys.push(self.key()?);
                                    continue 'value;
                                }
                            }
                            Some(b'}') => {}
                            _ => {
                                return self
                                    .err(self.pos, "expected `,` or `}` after an object member");
                            }
                        }
                        self.pos += 1;
                        let Some(Frame::Object { start, members }) = stack.pop() else {
                            unreachable!()
                        };
                        done = self.push(start, Kind::Object(members));
                    }
                    Some(Frame::Array { items, .. }) => {
                        items.push(done);
                        match self.peek() {
                            Some(b',') => {
                                let comma = self.pos;
                                self.pos += 1;
                                self.ws()?;
                                if self.peek() == Some(b']') {
                                    if !self.json5() {
                                        return self.err(comma, "trailing comma");
                                    }
                                } else {
                                    continue 'value;
                                }
                            }
                            Some(b']') => {}
                            _ => {
                                return self
                                    .err(self.pos, "expected `,` or `]` after an array item");
                            }
                        }
                        self.pos += 1;
                        let Some(Frame::Array { start, items }) = stack.pop() else {
                            unreachable!()
                        };
                        done = self.push(start, Kind::Array(items));
                    }
                }
            }
        }
    }

    /// An object key and its colon; leaves `pos` at the value.
    fn key(&mut self) -> Result<PendingKey, ParseError> {
        let key_start = self.pos;
        let (key_units, key_strict) = match self.peek() {
            Some(b'"') => self.string(b'"')?,
            Some(b'\'') if self.json5() => self.string(b'\'')?,
            Some(_) if self.json5() => (self.identifier()?, false),
            Some(b'}') => return self.err(self.pos, "trailing comma"),
            _ => return self.err(self.pos, "expected a key in double quotes"),
        };
        let key_end = self.pos;
        self.ws()?;
        if self.peek() != Some(b':') {
            return self.err(self.pos, "expected `:` after an object key");
        }
        self.pos += 1;
        self.ws()?;
        Ok(PendingKey {
            key_units,
            key_start,
            key_end,
            key_strict,
        })
    }

    /// JSON5 IdentifierName (ES5), letters approximated by Unicode alphabetic.
    fn identifier(&mut self) -> Result<Vec<u16>, ParseError> {
        let mut units = Vec::new();
        let start = self.pos;
        while let Some(c) = self.peek_char() {
            let first = self.pos == start;
            let ok = c == '$'
                || c == '_'
                || c.is_alphabetic()
                || (!first && (c.is_alphanumeric() || c == '\u{200c}' || c == '\u{200d}'));
            if c == '\\' {
                if self.b.get(self.pos + 1) != Some(&b'u') {
                    return self.err(self.pos, "invalid escape in a key");
                }
                self.pos += 2;
                let u = self.hex(4)?;
                units.push(u as u16);
                continue;
            }
            if !ok {
                break;
            }
            let mut buf = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buf));
            self.pos += c.len_utf8();
        }
        if self.pos == start {
            return self.err(self.pos, "expected a key");
        }
        Ok(units)
    }

    fn hex(&mut self, n: usize) -> Result<u32, ParseError> {
        let digits = self.b.get(self.pos..self.pos + n);
        match digits.and_then(|d| std::str::from_utf8(d).ok()) {
            Some(d) if d.bytes().all(|c| c.is_ascii_hexdigit()) => {
                self.pos += n;
                Ok(u32::from_str_radix(d, 16).expect("hex digits"))
            }
            _ => self.err(self.pos, "invalid hex escape"),
        }
    }

    /// A string in quotes `q`; returns its code units and whether it is strict JSON.
    fn string(&mut self, q: u8) -> Result<(Vec<u16>, bool), ParseError> {
        let open = self.pos;
        self.pos += 1;
        let mut units = Vec::new();
        let mut strict = q == b'"';
        loop {
            let Some(c) = self.peek() else {
                return self.err(open, "unterminated string");
            };
            if c == q {
                self.pos += 1;
                return Ok((units, strict));
            }
            match c {
                b'\\' => {
                    let at = self.pos;
                    self.pos += 1;
                    let Some(e) = self.peek_char() else {
                        return self.err(open, "unterminated string");
                    };
                    self.pos += e.len_utf8();
                    let unit = match e {
                        '"' => Some(0x22),
                        '\\' => Some(0x5c),
                        '/' => Some(0x2f),
                        'b' => Some(0x08),
                        'f' => Some(0x0c),
                        'n' => Some(0x0a),
                        'r' => Some(0x0d),
                        't' => Some(0x09),
                        'u' => Some(self.hex(4)? as u16),
                        _ if !self.json5() => return self.err(at, "invalid escape in a string"),
                        '\'' => Some(0x27),
                        'v' => Some(0x0b),
                        '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => Some(0),
                        '1'..='9' | '0' => return self.err(at, "invalid escape in a string"),
                        'x' => Some(self.hex(2)? as u16),
                        // Line continuation: nothing.
                        '\n' | '\u{2028}' | '\u{2029}' => None,
                        '\r' => {
                            if self.peek() == Some(b'\n') {
                                self.pos += 1;
                            }
                            None
                        }
                        other => {
                            let mut buf = [0u16; 2];
                            units.extend_from_slice(other.encode_utf16(&mut buf));
                            None
                        }
                    };
                    if !matches!(e, '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u') {
                        strict = false;
                    }
                    if let Some(u) = unit {
                        units.push(u);
                    }
                }
                b'\n' | b'\r' if self.json5() => {
                    return self.err(self.pos, "unescaped line break in a string");
                }
                0..=0x1f => {
                    if !self.json5() {
                        return self.err(self.pos, "unescaped control character in a string");
                    }
                    strict = false;
                    units.push(u16::from(c));
                    self.pos += 1;
                }
                _ => {
                    let ch = self.peek_char().expect("text is UTF-8");
                    let mut buf = [0u16; 2];
                    units.extend_from_slice(ch.encode_utf16(&mut buf));
                    self.pos += ch.len_utf8();
                }
            }
        }
    }

    /// A number or `true`/`false`/`null` (JSON5: also `Infinity`, `NaN`, hex, `+`, `.5`).
    fn scalar(&mut self) -> Result<NodeId, ParseError> {
        let start = self.pos;
        for word in ["true", "false", "null"] {
            if self.b[self.pos..].starts_with(word.as_bytes()) {
                self.pos += word.len();
                return Ok(self.push(start, Kind::Literal));
            }
        }
        if self.json5() {
            self.json5_number()?;
        } else {
            self.strict_number()?;
        }
        Ok(self.push(start, Kind::Number))
    }

    fn digits(&mut self) -> usize {
        let s = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - s
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    fn strict_number(&mut self) -> Result<(), ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return self.err(start, "expected a value"),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return self.err(self.pos, "expected a digit after the decimal point");
            }
        }
        self.exponent()
    }

    fn exponent(&mut self) -> Result<(), ParseError> {
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return self.err(self.pos, "expected a digit in the exponent");
            }
        }
        Ok(())
    }

    fn json5_number(&mut self) -> Result<(), ParseError> {
        let start = self.pos;
        if matches!(self.peek(), Some(b'+' | b'-')) {
            self.pos += 1;
        }
        for word in ["Infinity", "NaN"] {
            if self.b[self.pos..].starts_with(word.as_bytes()) {
                self.pos += word.len();
                return Ok(());
            }
        }
        if self.peek() == Some(b'0') && matches!(self.b.get(self.pos + 1), Some(b'x' | b'X')) {
            self.pos += 2;
            let s = self.pos;
            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            if self.pos == s {
                return self.err(s, "expected a hex digit");
            }
            return Ok(());
        }
        let int = match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                1
            }
            Some(b'1'..=b'9') => self.digits(),
            _ => 0,
        };
        let mut frac = 0;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            frac = self.digits();
        }
        if int == 0 && frac == 0 {
            return self.err(start, "expected a value");
        }
        self.exponent()
    }

    /// Whitespace (JSON: space, tab, LF, CR; JSON5 adds Unicode spaces and comments).
    fn ws(&mut self) -> Result<(), ParseError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') if self.json5() => match self.b.get(self.pos + 1) {
                    Some(b'/') => {
                        while self.peek().is_some_and(|c| c != b'\n' && c != b'\r') {
                            self.pos += 1;
                        }
                    }
                    Some(b'*') => {
                        let open = self.pos;
                        match self.text[self.pos + 2..].find("*/") {
                            Some(i) => self.pos += 2 + i + 2,
                            None => return self.err(open, "unterminated comment"),
                        }
                    }
                    _ => return self.err(self.pos, "invalid comment"),
                },
                Some(_) if self.json5() => match self.peek_char() {
                    Some(
                        c @ ('\u{0b}'
                        | '\u{0c}'
                        | '\u{a0}'
                        | '\u{feff}'
                        | '\u{2028}'
                        | '\u{2029}'
                        | '\u{1680}'
                        | '\u{2000}'..='\u{200a}'
                        | '\u{202f}'
                        | '\u{205f}'
                        | '\u{3000}'),
                    ) => self.pos += c.len_utf8(),
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict_ok(t: &str) -> bool {
        parse(t, Dialect::Strict).is_ok()
    }

    #[test]
    fn what_json_parse_accepts() {
        for t in [
            "{}",
            "[]",
            "0",
            "-0",
            "1e400",
            "1E2",
            "-12345678901234567890123",
            "1.5e-7",
            "\"\\ud800\"",
            "\"\\udc00\\ud800\"",
            "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
            " \t\r\n{\"a\" : [ true , false , null ] } ",
            "\"\u{2028}\"",
        ] {
            assert!(strict_ok(t), "{t}");
        }
    }

    #[test]
    fn what_json_parse_rejects() {
        for t in [
            "",
            "01",
            "1.",
            ".5",
            "+1",
            "-",
            "1e",
            "0x10",
            "NaN",
            "Infinity",
            "{,}",
            "[1,]",
            "{\"a\":1,}",
            "{a:1}",
            "'a'",
            "\"\\x41\"",
            "\"\\u12\"",
            "\"a\nb\"",
            "\"\t\"",
            "// c\n{}",
            "{} x",
            "tru",
            "[",
            "\u{a0}{}",
            "\"\\'\"",
        ] {
            assert!(!strict_ok(t), "{t:?}");
        }
    }

    #[test]
    fn json5_accepts_what_people_write() {
        for t in [
            "{a: 1, 'b': 2, c: [1, 2,], /* x */ d: .5, e: +1, f: 0x1F, g: Infinity, h: -NaN, i: 5.,}",
            "// c\n{\n  \"env\": {}, // trailing\n}\n",
            "{s: 'it\\'s \\x41 \\v', t: \"a\\\nb\"}",
        ] {
            parse(t, Dialect::Json5).unwrap_or_else(|e| panic!("{t}: {e}"));
        }
        assert!(parse("{a: 01}", Dialect::Json5).is_err());
        assert!(parse("{a: '\n'}", Dialect::Json5).is_err());
    }

    #[test]
    fn deep_nesting_needs_no_stack() {
        let n = 200_000;
        let t = format!("{{\"x\": {}{}}}", "[".repeat(n), "]".repeat(n));
        let d = parse(&t, Dialect::Strict).unwrap();
        assert!(d.is_object());
        let t5 = format!("{{x: {}{}}}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&t5, Dialect::Json5).is_ok());
        let unclosed = format!("{{\"x\": {}", "[".repeat(n));
        assert!(parse(&unclosed, Dialect::Strict).is_err());
    }

    #[test]
    fn spans_and_values_are_exact() {
        let t = "{\"n\": -0, \"s\": \"\\ud83d\", \"n\": 1E2}";
        let d = parse(t, Dialect::Strict).unwrap();
        let m = d.last_member(d.root, "n").unwrap();
        assert_eq!(d.raw(m.value), "1E2");
        let s = d.last_member(d.root, "s").unwrap();
        assert_eq!(d.raw(s.value), "\"\\ud83d\"");
        assert_eq!(
            d.node(s.value).kind,
            Kind::String {
                units: vec![0xd83d],
                strict: true
            }
        );
        assert_eq!(d.string(s.value).unwrap(), "\u{fffd}");
    }

    #[test]
    fn line_and_column_count_characters() {
        assert_eq!(line_column("ab\néx", 5), (2, 2));
        assert_eq!(line_column("x", 0), (1, 1));
    }
}
