//! The byte-level scanner under the JSON reader: whitespace and comments, strings,
//! numbers, and validating skips of whole values that build nothing.
//!
//! It is tolerant where the spec says so (comments, trailing commas, raw control
//! characters in strings, leading zeros) and counts each repair; anything else is a
//! [`Fail`], which the list reader turns into a skipped event, never a panic.

use std::borrow::Cow;

use super::value::unescape;
use crate::{DiagKind, Diagnostics};

/// Why a scan stopped short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fail {
    /// The input ended inside the thing being read.
    Eof,
    /// The byte at this offset cannot continue valid JSON.
    Syntax(usize),
}

pub(crate) type Scan<T> = Result<T, Fail>;

/// Deepest nesting accepted, like `value::Value::parse`, so the stack stays bounded.
pub(crate) const MAX_DEPTH: u32 = 512;

/// A cursor over the text with the diagnostics of the part being read.
pub(crate) struct Lexer<'a> {
    pub text: &'a str,
    pub b: &'a [u8],
    pub pos: usize,
    pub diags: Diagnostics,
    /// Set when a comment or trailing comma is skipped; raw values read with it clear
    /// are `clean`.
    pub dirty: bool,
    /// Probing for event boundaries: record no diagnostics.
    quiet: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str, pos: usize) -> Self {
        Lexer {
            text,
            b: text.as_bytes(),
            pos,
            diags: Diagnostics::new(),
            dirty: false,
            quiet: false,
        }
    }

    fn quiet(text: &'a str, pos: usize) -> Self {
        Lexer {
            quiet: true,
            ..Lexer::new(text, pos)
        }
    }

    #[inline]
    pub fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// Records one diagnostic with an excerpt of the text around `at`.
    pub fn diag(&mut self, kind: DiagKind, at: usize) {
        if !self.quiet {
            let text = self.text;
            self.diags.add(kind, at as u64, || excerpt(text, at));
        }
    }

    /// Skips whitespace and comments (counting each comment).
    #[inline]
    pub fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.pos) {
            match c {
                b' ' | b'\n' | b'\r' | b'\t' => self.pos += 1,
                b'/' if self.comment() => {}
                _ => return,
            }
        }
    }

    /// At a `/`: skips a `//` or `/* */` comment and returns true, or returns false.
    /// An unterminated block comment runs to the end of the input.
    #[cold]
    fn comment(&mut self) -> bool {
        let at = self.pos;
        let rest = &self.b[at..];
        let end = match rest.get(1) {
            Some(b'/') => memchr::memchr(b'\n', rest).map_or(self.b.len(), |p| at + p + 1),
            Some(b'*') => {
                memchr::memmem::find(&rest[2..], b"*/").map_or(self.b.len(), |p| at + 2 + p + 2)
            }
            _ => return false,
        };
        self.diag(DiagKind::Comment, at);
        self.dirty = true;
        self.pos = end;
        true
    }

    /// Expects `c` (after whitespace) and steps over it.
    #[inline]
    pub fn expect(&mut self, c: u8) -> Scan<()> {
        self.ws();
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(Fail::Syntax(self.pos)),
            None => Err(Fail::Eof),
        }
    }

    /// At a `"`: steps over the string; returns the body's bounds and whether it holds
    /// a backslash (so needs unescaping).
    #[inline]
    pub fn string(&mut self) -> Scan<(usize, usize, bool)> {
        let start = self.pos + 1;
        let b = self.b;
        let mut i = start;
        let mut escaped = false;
        loop {
            // Most strings are short names: a plain loop beats setting up a SIMD search.
            while i < b.len() && !STRING_STOP[b[i] as usize] {
                i += 1;
            }
            match b.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok((start, i, escaped));
                }
                Some(_) => {
                    escaped = true;
                    i += 2;
                }
                None => return Err(Fail::Eof),
            }
        }
    }

    /// The body of the string at the cursor as a `&str` plus its escape flag.
    #[inline]
    pub fn string_str(&mut self) -> Scan<(&'a str, bool)> {
        let (s, e, esc) = self.string()?;
        Ok((&self.text[s..e], esc))
    }

    /// At a `-` or digit: steps over a number (JSON grammar, leading zeros tolerated).
    #[inline]
    pub fn number(&mut self) -> Scan<&'a str> {
        let b = self.b;
        let start = self.pos;
        let mut i = start;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        i = digits(b, i)?;
        if b.get(i) == Some(&b'.') {
            i = digits(b, i + 1)?;
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            i = digits(b, i)?;
        }
        self.pos = i;
        Ok(&self.text[start..i])
    }

    fn literal(&mut self, word: &[u8]) -> Scan<()> {
        let rest = &self.b[self.pos..];
        if rest.starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else if word.starts_with(rest) {
            Err(Fail::Eof)
        } else {
            Err(Fail::Syntax(self.pos))
        }
    }

    /// Steps over one value (after whitespace), checking its grammar, building nothing.
    pub fn skip_value(&mut self, depth: u32) -> Scan<()> {
        self.ws();
        match self.peek() {
            Some(b'"') => self.string().map(|_| ()),
            Some(b'{') => self.skip_container(depth + 1, b'}'),
            Some(b'[') => self.skip_container(depth + 1, b']'),
            Some(b'-' | b'0'..=b'9') => self.number().map(|_| ()),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(_) => Err(Fail::Syntax(self.pos)),
            None => Err(Fail::Eof),
        }
    }

    /// At `{` or `[`: steps over the object or array ending with `close`.
    fn skip_container(&mut self, depth: u32, close: u8) -> Scan<()> {
        if depth > MAX_DEPTH {
            return Err(Fail::Syntax(self.pos));
        }
        self.pos += 1;
        self.ws();
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(());
        }
        loop {
            if close == b'}' {
                match self.peek() {
                    Some(b'"') => self.string()?,
                    Some(_) => return Err(Fail::Syntax(self.pos)),
                    None => return Err(Fail::Eof),
                };
                self.expect(b':')?;
            }
            self.skip_value(depth)?;
            if self.after_member(close)? {
                return Ok(());
            }
        }
    }

    /// After a member of an object or array: steps over `,` (and the whitespace after
    /// it) or the closing byte. Returns true at the close. A comma right before the
    /// close is a counted trailing comma.
    #[inline]
    pub fn after_member(&mut self, close: u8) -> Scan<bool> {
        self.ws();
        match self.peek() {
            Some(b',') => {
                let comma = self.pos;
                self.pos += 1;
                self.ws();
                if self.peek() == Some(close) {
                    self.diag(DiagKind::TrailingComma, comma);
                    self.dirty = true;
                    self.pos += 1;
                    return Ok(true);
                }
                Ok(false)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(true)
            }
            Some(_) => Err(Fail::Syntax(self.pos)),
            None => Err(Fail::Eof),
        }
    }

    /// Steps over one value (after whitespace) and returns its text; `clean` is false
    /// when a comment or trailing comma was skipped inside it.
    pub fn raw_value(&mut self, depth: u32) -> Scan<(usize, &'a str, bool)> {
        self.ws();
        let outer = self.dirty;
        self.dirty = false;
        let start = self.pos;
        let r = self.skip_value(depth);
        let clean = !self.dirty;
        self.dirty |= outer;
        r?;
        Ok((start, &self.text[start..self.pos], clean))
    }

    /// Whether an event object starts at `at`: a `{` whose object parses, has a `ph`
    /// key of its own, and is followed by `,`, `]`, `{` (a missing comma) or the end of
    /// the input. Nested objects in `args` are followed by `}` or have no `ph`, so
    /// they are not taken.
    /// Depends only on the text, so every part of a parallel read agrees on it.
    pub fn is_event_start(text: &'a str, at: usize) -> bool {
        let mut p = Lexer::quiet(text, at + 1);
        p.ws();
        if p.peek() != Some(b'"') {
            return false;
        }
        let mut has_ph = false;
        loop {
            let Ok((key, _)) = p.string_str() else {
                return false;
            };
            has_ph |= key == "ph";
            if p.expect(b':').is_err() || p.skip_value(1).is_err() {
                return false;
            }
            match p.after_member(b'}') {
                Ok(true) => break,
                Ok(false) if p.peek() == Some(b'"') => {}
                _ => return false,
            }
        }
        p.ws();
        has_ph && matches!(p.peek(), None | Some(b',' | b']' | b'{'))
    }

    /// The first event start (see [`is_event_start`](Self::is_event_start)) in
    /// `from..limit`.
    pub fn find_event_start(text: &'a str, from: usize, limit: usize) -> Option<usize> {
        let b = text.as_bytes();
        let limit = limit.min(b.len());
        let mut i = from;
        while i < limit {
            let at = i + memchr::memchr(b'{', &b[i..limit])?;
            if Lexer::is_event_start(text, at) {
                return Some(at);
            }
            i = at + 1;
        }
        None
    }

    /// From an opening `{` or `[` at `from`, the offset just past its matching close,
    /// counting brackets outside strings but ignoring all other grammar; `None` if it
    /// does not close before `limit`. Used to step over one malformed element.
    pub fn bracket_end(b: &[u8], from: usize, limit: usize) -> Option<usize> {
        let limit = limit.min(b.len());
        let mut depth = 0u32;
        let mut i = from;
        while i < limit {
            match b[i] {
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                b'"' => {
                    i += 1;
                    while i < limit && b[i] != b'"' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                }
                _ => {}
            }
            i += 1;
        }
        None
    }
}

/// Bytes that end the fast scan of a string body.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// One or more digits from `i`; returns the offset after them.
#[inline]
fn digits(b: &[u8], mut i: usize) -> Scan<usize> {
    let start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i > start {
        Ok(i)
    } else if i == b.len() {
        Err(Fail::Eof)
    } else {
        Err(Fail::Syntax(i))
    }
}

/// A string body as text: borrowed unless it holds escapes.
pub(crate) fn cow(s: &str, escaped: bool) -> Cow<'_, str> {
    if escaped {
        unescape(s)
    } else {
        Cow::Borrowed(s)
    }
}

/// A short excerpt of `text` around `at` for a diagnostic's example.
pub(crate) fn excerpt(text: &str, at: usize) -> String {
    let mut start = at.saturating_sub(24).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = at.saturating_add(72).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[start..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(s: &str) -> (Scan<()>, usize, bool, Diagnostics) {
        let mut l = Lexer::new(s, 0);
        let r = l.skip_value(0);
        (r, l.pos, l.dirty, l.diags)
    }

    #[test]
    fn skips_valid_values() {
        for s in [
            "1",
            "-0.5e+3",
            "\"a\\\"b\"",
            "true",
            "null",
            "[]",
            "{}",
            "[1,[2,{\"a\":[3]}]]",
            "{\"a\":{\"b\":\"}\"}}",
        ] {
            let (r, pos, dirty, _) = skip(s);
            assert_eq!((r, pos, dirty), (Ok(()), s.len(), false), "{s}");
        }
        let (r, pos, dirty, d) = skip("[1, /* c */ 2, // x\n]");
        assert_eq!((r, pos, dirty), (Ok(()), 21, true));
        assert_eq!(
            (d.count(DiagKind::Comment), d.count(DiagKind::TrailingComma)),
            (2, 1)
        );
        assert_eq!(d.get(DiagKind::TrailingComma).unwrap().offset, 13);
    }

    #[test]
    fn eof_and_syntax_are_told_apart() {
        for s in [
            "[1,",
            "{\"a\"",
            "\"abc",
            "tru",
            "-",
            "1.",
            "{\"a\":1",
            "[1 /* open",
        ] {
            assert_eq!(skip(s).0, Err(Fail::Eof), "{s}");
        }
        for (s, at) in [
            ("[1 2]", 3),
            ("{1:2}", 1),
            ("tx", 0),
            ("{\"a\" 1}", 5),
            ("-x", 1),
            ("[,]", 1),
            ("1.e", 2),
        ] {
            assert_eq!(skip(s).0, Err(Fail::Syntax(at)), "{s}");
        }
        let deep = "[".repeat(600);
        assert!(matches!(skip(&deep).0, Err(Fail::Syntax(_))));
    }

    #[test]
    fn event_starts() {
        let t = r#"[{"ph":"X","args":{"l":[{"a":"no"},{"b":1}],"o":{"ph":"y"}}},{"name":"a"},{"ph":"B"}]"#;
        assert!(Lexer::is_event_start(t, 1));
        let second = t.find(r#"{"ph":"B"}"#).unwrap();
        assert_eq!(Lexer::find_event_start(t, 2, t.len()), Some(second));
        assert_eq!(Lexer::find_event_start(t, 2, second), None);
        assert!(!Lexer::is_event_start("{\"ph\":", 0));
    }

    #[test]
    fn bracket_end_ignores_grammar() {
        let b = br#"{"a": 1 2, "s": "}]", [x}] , next"#;
        assert_eq!(Lexer::bracket_end(b, 0, b.len()), Some(26));
        assert_eq!(Lexer::bracket_end(b"{[", 0, 2), None);
    }

    #[test]
    fn excerpts_respect_char_boundaries() {
        let t = "ééééééééééééééééééééé{x}";
        for at in 0..t.len() {
            let _ = excerpt(t, at);
        }
        assert_eq!(excerpt("abc", 99), "");
    }
}
