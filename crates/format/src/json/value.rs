//! A tolerant JSON value parser for lazily read `args` and other embedded documents.
//!
//! Accepts what the reader accepts (comments, trailing commas, raw control characters
//! in strings) and keeps numbers as their text, so integers stay exact and `compact`
//! writes back the same value.

use std::borrow::Cow;

use super::ReadError;

/// A parsed JSON value borrowing from its text.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    Null,
    Bool(bool),
    /// The number's text as written.
    Number(&'a str),
    String(Cow<'a, str>),
    Array(Vec<Value<'a>>),
    /// Members in written order (duplicates kept; `get` returns the last).
    Object(Vec<(Cow<'a, str>, Value<'a>)>),
}

impl<'a> Value<'a> {
    /// Parses one JSON value that must span the whole text (surrounding whitespace
    /// and comments allowed).
    pub fn parse(text: &'a str) -> Result<Value<'a>, ReadError> {
        let mut p = Parser {
            s: text.as_bytes(),
            text,
            pos: 0,
            depth: 0,
        };
        p.ws();
        let v = p.value()?;
        p.ws();
        if p.pos != p.s.len() {
            return Err(p.error("unexpected text after the value"));
        }
        Ok(v)
    }

    /// The member `key` of an object (the last one if repeated).
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Object(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// A number, or a string holding a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(n) => n.parse().ok().or_else(|| {
                let f: f64 = n.parse().ok()?;
                (f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i64)
            }),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&[(Cow<'a, str>, Value<'a>)]> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// Strict, compact JSON text of the value (no whitespace, key order kept).
    pub fn to_compact(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out);
        out
    }

    pub fn write_compact(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => out.push_str(n),
            Value::String(s) => write_string(s, out),
            Value::Array(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write_compact(out);
                }
                out.push(']');
            }
            Value::Object(m) => {
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(k, out);
                    out.push(':');
                    v.write_compact(out);
                }
                out.push('}');
            }
        }
    }
}

/// The offset after the whitespace and comments (`//` to the end of the line, `/* */`)
/// at `pos`: what this tolerant reader takes for space between tokens.
#[inline]
pub fn skip_space(s: &[u8], pos: usize) -> usize {
    match s.get(pos) {
        Some(b' ' | b'\t' | b'\n' | b'\r' | b'/') => skip_space_from(s, pos),
        _ => pos,
    }
}

fn skip_space_from(s: &[u8], mut pos: usize) -> usize {
    loop {
        match s.get(pos) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => pos += 1,
            Some(b'/') => match s.get(pos + 1) {
                Some(b'/') => {
                    pos = memchr::memchr(b'\n', &s[pos..]).map_or(s.len(), |p| pos + p + 1);
                }
                Some(b'*') => {
                    pos = memchr::memmem::find(&s[pos + 2..], b"*/")
                        .map_or(s.len(), |p| pos + 2 + p + 2);
                }
                _ => return pos,
            },
            _ => return pos,
        }
    }
}

/// Strict compact JSON of tolerant JSON text; text that does not parse is written as
/// a JSON string holding it, so nothing is lost.
pub fn compact(text: &str) -> String {
    match Value::parse(text) {
        Ok(v) => v.to_compact(),
        Err(_) => {
            let mut out = String::new();
            write_string(text, &mut out);
            out
        }
    }
}

/// Writes `s` as a JSON string literal with the escapes JSON requires.
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => {
                use std::fmt::Write;
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Decodes the body of a JSON string literal (the text between the quotes).
/// Borrows when there is no escape. Invalid escapes are kept as written; lone
/// surrogates become U+FFFD.
pub fn unescape(body: &str) -> Cow<'_, str> {
    if !body.contains('\\') {
        return Cow::Borrowed(body);
    }
    let b = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    let mut run = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        out.push_str(&body[run..i]);
        let Some(&e) = b.get(i + 1) else {
            out.push('\\');
            i += 1;
            run = i;
            break;
        };
        i += 2;
        match e {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => match hex4(b, i) {
                Some(hi) => {
                    i += 4;
                    if (0xD800..0xDC00).contains(&hi)
                        && b.get(i) == Some(&b'\\')
                        && b.get(i + 1) == Some(&b'u')
                    {
                        if let Some(lo) = hex4(b, i + 2).filter(|lo| (0xDC00..0xE000).contains(lo))
                        {
                            i += 6;
                            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                            out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                            run = i;
                            continue;
                        }
                    }
                    out.push(char::from_u32(hi).unwrap_or('\u{FFFD}'));
                }
                None => out.push_str("\\u"),
            },
            _ => {
                out.push('\\');
                i -= 1;
            }
        }
        run = i;
    }
    out.push_str(&body[run.min(body.len())..]);
    Cow::Owned(out)
}

fn hex4(b: &[u8], i: usize) -> Option<u32> {
    let h = b.get(i..i + 4)?;
    let s = std::str::from_utf8(h).ok()?;
    u32::from_str_radix(s, 16)
        .ok()
        .filter(|_| h.iter().all(|c| c.is_ascii_hexdigit()))
}

/// Line and column (1-based, column in chars) of a byte offset, for error messages.
pub fn line_col(text: &str, offset: usize) -> (u64, u64) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = memchr::memchr_iter(b'\n', before).count() as u64 + 1;
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
    let mut col_end = offset;
    while !text.is_char_boundary(col_end) {
        col_end -= 1;
    }
    let column = text[line_start..col_end].chars().count() as u64 + 1;
    (line, column)
}

const MAX_DEPTH: u32 = 512;

/// Whether `t` is a number by JSON's grammar: `-?digits(.digits)?([eE][+-]?digits)?`
/// (leading zeros allowed).
fn json_number(t: &[u8]) -> bool {
    let digits = |i: usize| {
        let n = t[i.min(t.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        (n > 0).then_some(i + n)
    };
    let Some(mut i) = digits(usize::from(t.first() == Some(&b'-'))) else {
        return false;
    };
    if t.get(i) == Some(&b'.') {
        let Some(j) = digits(i + 1) else {
            return false;
        };
        i = j;
    }
    if let Some(b'e' | b'E') = t.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = t.get(i) {
            i += 1;
        }
        let Some(j) = digits(i) else {
            return false;
        };
        i = j;
    }
    i == t.len()
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: u32,
}

impl<'a> Parser<'a> {
    fn error(&self, message: &str) -> ReadError {
        let (line, column) = line_col(self.text, self.pos);
        ReadError {
            message: message.to_string(),
            offset: self.pos as u64,
            line,
            column,
        }
    }

    /// Skips whitespace and comments.
    fn ws(&mut self) {
        self.pos = skip_space(self.s, self.pos);
    }

    fn value(&mut self) -> Result<Value<'a>, ReadError> {
        match self.s.get(self.pos) {
            None => Err(self.error("unexpected end of input")),
            Some(b'{') => self.nested(|p| p.object()),
            Some(b'[') => self.nested(|p| p.array()),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => Ok(Value::Number(self.number()?)),
            Some(_) => Err(self.error("expected a JSON value")),
        }
    }

    fn nested(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<Value<'a>, ReadError>,
    ) -> Result<Value<'a>, ReadError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn literal(&mut self, word: &str, v: Value<'a>) -> Result<Value<'a>, ReadError> {
        if self.s[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.error("expected a JSON value"))
        }
    }

    /// The number here when it is `-?[0-9]{1,18}` (what [`Self::number`] would
    /// take, ending where it would stop), with its value; the cursor moves past it.
    /// Anything else (a fraction, an exponent, more digits) gives `None` and leaves
    /// the cursor.
    #[inline]
    fn integer(&mut self) -> Option<(&'a str, i64)> {
        let start = self.pos;
        let neg = self.s.get(start) == Some(&b'-');
        let first = start + usize::from(neg);
        let mut i = first;
        let mut v: i64 = 0;
        while let Some(&c) = self.s.get(i) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v * 10 + i64::from(d);
            i += 1;
            if i - first > 18 {
                return None;
            }
        }
        if i == first || matches!(self.s.get(i), Some(b'-' | b'+' | b'.' | b'e' | b'E')) {
            return None;
        }
        self.pos = i;
        Some((&self.text[start..i], if neg { -v } else { v }))
    }

    fn number(&mut self) -> Result<&'a str, ReadError> {
        let start = self.pos;
        while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.s.get(self.pos) {
            self.pos += 1;
        }
        let t = &self.text[start..self.pos];
        // JSON's own grammar is always a valid f64: parse only the other forms
        // (`+1`, `.5`, `1.`), which the tolerant reader takes when Rust does.
        if !json_number(t.as_bytes()) && t.parse::<f64>().is_err() {
            self.pos = start;
            return Err(self.error("malformed number"));
        }
        Ok(t)
    }

    fn string(&mut self) -> Result<Cow<'a, str>, ReadError> {
        let start = self.pos + 1;
        let mut i = start;
        loop {
            if i > self.s.len() {
                self.pos = self.s.len();
                return Err(self.error("unterminated string"));
            }
            match memchr::memchr2(b'"', b'\\', &self.s[i..]) {
                None => {
                    self.pos = self.s.len();
                    return Err(self.error("unterminated string"));
                }
                Some(p) if self.s[i + p] == b'\\' => i += p + 2,
                Some(p) => {
                    let end = i + p;
                    self.pos = end + 1;
                    return Ok(unescape(&self.text[start..end]));
                }
            }
        }
    }

    fn array(&mut self) -> Result<Value<'a>, ReadError> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.s.get(self.pos) == Some(&b']') {
                self.pos += 1;
                return Ok(Value::Array(items));
            }
            items.push(self.value()?);
            self.ws();
            match self.s.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.error("expected , or ]")),
            }
        }
    }

    fn object(&mut self) -> Result<Value<'a>, ReadError> {
        self.pos += 1;
        let mut members = Vec::new();
        loop {
            self.ws();
            match self.s.get(self.pos) {
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(members));
                }
                Some(b'"') => {}
                _ => return Err(self.error("expected a key or }")),
            }
            let k = self.string()?;
            self.ws();
            if self.s.get(self.pos) != Some(&b':') {
                return Err(self.error("expected :"));
            }
            self.pos += 1;
            self.ws();
            let v = self.value()?;
            members.push((k, v));
            self.ws();
            match self.s.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(self.error("expected , or }")),
            }
        }
    }
}

/// A pull reader over one JSON value, for callers that take a few known fields
/// straight from the text instead of building a [`Value`] tree.
///
/// It takes exactly the text [`Value::parse`] takes (the same whitespace, comments,
/// trailing commas, number and string rules, the same nesting limit), so a caller
/// that falls back to the tree on any error reads every text as the tree would.
/// Every method first steps over whitespace and comments.
pub struct Cursor<'a> {
    p: Parser<'a>,
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Self {
        Cursor {
            p: Parser {
                s: text.as_bytes(),
                text,
                pos: 0,
                depth: 0,
            },
        }
    }

    /// The next byte, if any.
    pub fn peek(&mut self) -> Option<u8> {
        self.p.ws();
        self.p.s.get(self.p.pos).copied()
    }

    /// Whether only whitespace and comments are left.
    pub fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// Enters the object or array that starts here (`open` is `{` or `[`).
    pub fn open(&mut self, open: u8) -> Result<(), ReadError> {
        if self.peek() != Some(open) {
            return Err(self.p.error("expected an object or array"));
        }
        self.p.depth += 1;
        if self.p.depth > MAX_DEPTH {
            return Err(self.p.error("nesting too deep"));
        }
        self.p.pos += 1;
        Ok(())
    }

    /// The next key of the object entered, with its `:` read; `None` at its `}`.
    pub fn key(&mut self) -> Result<Option<Cow<'a, str>>, ReadError> {
        match self.peek() {
            Some(b'}') => {
                self.close();
                return Ok(None);
            }
            Some(b'"') => {}
            _ => return Err(self.p.error("expected a key or }")),
        }
        let k = self.p.string()?;
        if self.peek() != Some(b':') {
            return Err(self.p.error("expected :"));
        }
        self.p.pos += 1;
        Ok(Some(k))
    }

    /// Whether an item of the array entered follows; `false` at its `]`.
    pub fn item(&mut self) -> Result<bool, ReadError> {
        if self.peek() == Some(b']') {
            self.close();
            return Ok(false);
        }
        Ok(true)
    }

    /// After a member or item: `true` past a `,`, `false` past the `close`
    /// (`}` or `]`) that ends the object or array.
    pub fn next(&mut self, close: u8) -> Result<bool, ReadError> {
        match self.peek() {
            Some(b',') => {
                self.p.pos += 1;
                Ok(true)
            }
            Some(b) if b == close => {
                self.close();
                Ok(false)
            }
            _ => Err(self.p.error("expected , or a close")),
        }
    }

    fn close(&mut self) {
        self.p.pos += 1;
        self.p.depth -= 1;
    }

    /// Reads the array that starts here when every item is a number, giving each
    /// number's text (as [`Value::Number`] holds it) to `number`, with its value
    /// when the text is an integer of at most 18 digits (`-?[0-9]{1,18}`: read in
    /// the same pass as the text). `Ok(false)` when an item is not a number or
    /// `number` declines it (the cursor is then left inside the array: read the text
    /// some other way).
    pub fn numbers(
        &mut self,
        mut number: impl FnMut(&'a str, Option<i64>) -> bool,
    ) -> Result<bool, ReadError> {
        self.open(b'[')?;
        loop {
            if !self.item()? {
                return Ok(true);
            }
            let taken = match self.p.integer() {
                Some((t, v)) => number(t, Some(v)),
                None => {
                    let p = &mut self.p;
                    matches!(p.s.get(p.pos), Some(b'-' | b'0'..=b'9')) && number(p.number()?, None)
                }
            };
            if !taken {
                return Ok(false);
            }
            if !self.next(b']')? {
                return Ok(true);
            }
        }
    }

    /// A string, number, `true`, `false` or `null`; an object or array is stepped
    /// over and gives `None`.
    pub fn scalar(&mut self) -> Result<Option<Value<'a>>, ReadError> {
        match self.peek() {
            Some(b'{' | b'[') => self.skip().map(|()| None),
            _ => self.p.value().map(Some),
        }
    }

    /// Steps over the next value without keeping it.
    pub fn skip(&mut self) -> Result<(), ReadError> {
        match self.peek() {
            Some(b'{') => {
                self.open(b'{')?;
                while self.key()?.is_some() {
                    self.skip()?;
                    if !self.next(b'}')? {
                        break;
                    }
                }
                Ok(())
            }
            Some(b'[') => {
                self.open(b'[')?;
                while self.item()? {
                    self.skip()?;
                    if !self.next(b']')? {
                        break;
                    }
                }
                Ok(())
            }
            _ => self.p.value().map(drop),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerant_and_exact() {
        let v = Value::parse(
            "{\"a\": [1, 2,], // c\n \"b\": {\"x\": 18446744073709551615, /* d */}, }",
        )
        .unwrap();
        assert_eq!(
            v.to_compact(),
            r#"{"a":[1,2],"b":{"x":18446744073709551615}}"#
        );
        assert_eq!(
            v.get("b").and_then(|b| b.get("x")),
            Some(&Value::Number("18446744073709551615"))
        );
        assert_eq!(compact("{\"k\":\"a\tb\"}"), r#"{"k":"a\tb"}"#);
        assert_eq!(compact("{bad"), r#""{bad""#);
    }

    #[test]
    fn escapes() {
        assert_eq!(unescape(r"a\nb\u00e9\ud83d\ude00\\"), "a\nbé😀\\");
        assert_eq!(unescape(r"\ud800x"), "\u{FFFD}x");
        assert_eq!(unescape(r"\q"), r"\q");
        assert!(matches!(unescape("plain"), Cow::Borrowed("plain")));
        let mut s = String::new();
        write_string("q\"\u{1}", &mut s);
        assert_eq!(s, r#""q\"\u0001""#);
    }

    /// Numbers are taken exactly when Rust's `f64` takes them, by the grammar check
    /// as by the parse it saves.
    #[test]
    fn numbers_as_before() {
        let runs = [
            "0",
            "-0",
            "007",
            "1.5",
            "-1.5e+10",
            "1E5",
            "2e-3",
            "123456789012345678901234567890",
            "1e99999999999999999999",
            "+1",
            ".5",
            "1.",
            "-.5",
            "1.e5",
            "--1",
            "1-",
            "1e",
            "1e+",
            "1.2.3",
            "-",
            "+",
            ".",
            "e5",
            "1ee5",
            "1e5.5",
            "0.-1",
            "1+1",
        ];
        for t in runs {
            assert_eq!(
                json_number(t.as_bytes()) || t.parse::<f64>().is_ok(),
                t.parse::<f64>().is_ok(),
                "{t}"
            );
            if !t.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
                continue; // not read as a number at all
            }
            let doc = format!("[{t}]");
            assert_eq!(
                Value::parse(&doc).ok(),
                t.parse::<f64>()
                    .is_ok()
                    .then(|| Value::Array(vec![Value::Number(t)])),
                "{t}"
            );
        }
        for t in ["0", "-1.5e+10", "12.25E-3", "007"] {
            assert!(json_number(t.as_bytes()), "{t}");
        }
        for t in ["+1", ".5", "1.", "-", "1e", "1.e5", ""] {
            assert!(!json_number(t.as_bytes()), "{t}");
        }
    }

    /// Integers come with their value, read in the text's pass; every other number
    /// only as text, and malformed ones are errors as in the tree.
    #[test]
    fn numbers_give_integer_values() {
        let mut got = Vec::new();
        let text = "[1, -22 ,007,1.5,2e3,123456789012345678,1234567890123456789,-0/*c*/,]";
        let mut c = Cursor::new(text);
        assert!(c
            .numbers(|t, v| {
                got.push((t, v));
                true
            })
            .unwrap());
        assert!(c.at_end());
        assert_eq!(
            got,
            [
                ("1", Some(1)),
                ("-22", Some(-22)),
                ("007", Some(7)),
                ("1.5", None),
                ("2e3", None),
                ("123456789012345678", Some(123_456_789_012_345_678)),
                ("1234567890123456789", None),
                ("-0", Some(0)),
            ]
        );
        for bad in ["[1-2]", "[-]", "[1.2.3]", "[12e]"] {
            assert!(Cursor::new(bad).numbers(|_, _| true).is_err(), "{bad}");
        }
        assert!(!Cursor::new("[1, \"a\"]").numbers(|_, _| true).unwrap());
        assert!(!Cursor::new("[1, 2]").numbers(|_, v| v == Some(1)).unwrap());
    }

    #[test]
    fn errors_have_positions() {
        let e = Value::parse("{\n  \"a\": x}").unwrap_err();
        assert_eq!((e.line, e.column, e.offset), (2, 8, 9));
        assert!(Value::parse(&"[".repeat(10_000)).is_err());
        assert!(Value::parse("\"ab\\").is_err());
    }
}
