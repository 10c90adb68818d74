//! The byte-level scanner under the JSON reader: whitespace and comments, strings,
//! numbers, and validating skips of whole values that build nothing.
//!
//! It is tolerant where the spec says so (comments, trailing commas, raw control
//! characters in strings, leading zeros) and counts each repair; anything else is a
//! [`Fail`], which the list reader turns into a skipped event, never a panic.

use std::borrow::Cow;

use super::starts::Starts;
use super::value::unescape;
use crate::time::micros_text_to_ns;
use crate::{DiagKind, Diagnostics, Int64};

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

/// Text for the reader: bytes known to be UTF-8 (made from a `&str`) or not yet
/// checked (a mapped file read as it is, with no pass of its own first). On unchecked
/// bytes the lexer checks, as it steps over them, every string body (and comment)
/// that holds a byte >= 0x80; every other byte it accepts is ASCII by JSON's grammar.
/// So whatever text it hands out as `&str` is UTF-8 either way, and a run of input it
/// read without a jump (see `Part::checked` in `list.rs`) is UTF-8.
/// Invalid UTF-8 in a string is a syntax error there: the caller then reads the whole
/// text again from its repaired copy (see [`crate::Source`]).
#[derive(Clone, Copy, Debug)]
pub struct Prefix<'a> {
    bytes: &'a [u8],
    checked: bool,
    /// The [`Source`](crate::Source) these bytes are of, when it made them (a number
    /// no other source has), else 0: what readers find is told only to that source.
    pub(crate) origin: u64,
}

impl<'a> Prefix<'a> {
    /// Bytes not yet known to be UTF-8.
    pub fn unchecked(bytes: &'a [u8]) -> Self {
        Prefix {
            bytes,
            checked: false,
            origin: 0,
        }
    }

    /// Bytes of the source numbered `origin`, not yet known to be UTF-8.
    pub(crate) fn of_source(bytes: &'a [u8], origin: u64) -> Self {
        Prefix {
            origin,
            ..Prefix::unchecked(bytes)
        }
    }

    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Whether the bytes are known to be UTF-8 (they came as a `&str`).
    pub fn is_checked(&self) -> bool {
        self.checked
    }

    /// The text, when its bytes are known to be UTF-8.
    pub fn as_str(&self) -> Option<&'a str> {
        // SAFETY: `checked` is set only by `From<&str>`, from a `&str`'s own bytes.
        self.checked
            .then(|| unsafe { std::str::from_utf8_unchecked(self.bytes) })
    }
}

impl<'a> From<&'a str> for Prefix<'a> {
    fn from(text: &'a str) -> Self {
        Prefix {
            bytes: text.as_bytes(),
            checked: true,
            origin: 0,
        }
    }
}

impl<'a> From<&'a String> for Prefix<'a> {
    fn from(text: &'a String) -> Self {
        text.as_str().into()
    }
}

/// A cursor over the text with the diagnostics of the part being read.
pub(crate) struct Lexer<'a> {
    pub b: &'a [u8],
    /// The bytes are known to be UTF-8 (see [`Prefix`]): string bodies need no check.
    checked: bool,
    pub pos: usize,
    pub diags: Diagnostics,
    /// Set when a comment or trailing comma is skipped; raw values read with it clear
    /// are `clean`.
    pub dirty: bool,
    /// Probing for event boundaries: record no diagnostics.
    quiet: bool,
    /// Texts of the current event's `ts` and `dur` when they have digits below a
    /// nanosecond: the span is then rounded at both ends (spec section 3).
    pub sub_ns: [Option<&'a str>; 2],
    /// Where the last [`Fail::Syntax`] for nesting deeper than [`MAX_DEPTH`] was
    /// (so the error can name the limit rather than the grammar).
    pub too_deep: Option<usize>,
    /// For each defined field (and, last, an event's start), the field whose key
    /// came after it last time: the next key is first compared with that one (events
    /// of one trace write their keys in one order). See `Lexer::event`.
    pub(super) key_after: [u8; super::fields::GUESSES],
}

impl<'a> Lexer<'a> {
    pub fn new(text: impl Into<Prefix<'a>>, pos: usize) -> Self {
        let text = text.into();
        Lexer {
            b: text.bytes,
            checked: text.checked,
            pos,
            diags: Diagnostics::new(),
            dirty: false,
            quiet: false,
            sub_ns: [None, None],
            too_deep: None,
            key_after: [super::fields::NO_GUESS; super::fields::GUESSES],
        }
    }

    pub(crate) fn quiet(text: impl Into<Prefix<'a>>, pos: usize) -> Self {
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
            let text = self.b;
            self.diags.add(kind, at as u64, || excerpt(text, at));
        }
    }

    /// Records one diagnostic with its own example text.
    pub fn diag_with(&mut self, kind: DiagKind, at: usize, example: impl FnOnce() -> String) {
        if !self.quiet {
            self.diags.add(kind, at as u64, example);
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
        // Unchecked text: a comment that is not UTF-8 is no comment (a syntax error).
        if !self.checked && simdutf8::basic::from_utf8(&self.b[at..end]).is_err() {
            return false;
        }
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
    #[inline(always)]
    pub fn string(&mut self) -> Scan<(usize, usize, bool)> {
        let start = self.pos + 1;
        let b = self.b;
        let mut i = start;
        let mut escaped = false;
        // Whether a byte >= 0x80 was seen in the body (unchecked text must then be
        // checked: see `Prefix`), found by the same scan.
        let mut high = false;
        loop {
            let (at, hi) = quote_or_backslash(b, i);
            i = at;
            high |= hi;
            match b.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    if high && !self.checked {
                        check_utf8(&b[start..i], start)?;
                    }
                    return Ok((start, i, escaped));
                }
                Some(_) => {
                    escaped = true;
                    // The escaped byte is stepped over unseen by the scan.
                    high |= b.get(i + 1).is_some_and(|&c| c >= 0x80);
                    i += 2;
                }
                None => return Err(Fail::Eof),
            }
        }
    }

    /// The body of the string at the cursor as a `&str` plus its escape flag.
    /// Always inlined: returned through memory, its result was read back wider than
    /// it was written (a stalled store forward on every field of every event).
    #[inline(always)]
    pub fn string_str(&mut self) -> Scan<(&'a str, bool)> {
        let (s, e, esc) = self.string()?;
        // SAFETY: `string` stepped over this body: UTF-8 (see `str_of`).
        Ok((unsafe { self.str_of(s, e) }, esc))
    }

    /// The text of `start..end`, a run the lexer has just stepped over (and accepted)
    /// as a string body, a number or a whole value. Its ends are on character
    /// boundaries (next to ASCII grammar bytes), and it is UTF-8: on text known to be
    /// (`checked`) because any such run of a `&str` is, on unchecked text because
    /// every byte the lexer accepts is ASCII grammar or inside a string body or
    /// comment it checked ([`Prefix`]). Panics if the run is out of bounds.
    ///
    /// # Safety
    /// `start..end` must be such a run, stepped over by this lexer with success.
    #[inline(always)]
    pub(crate) unsafe fn str_of(&self, start: usize, end: usize) -> &'a str {
        let bytes = &self.b[start..end];
        debug_assert!(std::str::from_utf8(bytes).is_ok());
        // SAFETY: the caller's promise, above.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }

    /// At a `-` or digit: steps over a number (JSON grammar, leading zeros tolerated),
    /// collecting its digits on the way so common times and ids need no second pass.
    /// Always inlined, like [`string_str`](Self::string_str), for its result.
    #[inline(always)]
    pub fn number(&mut self) -> Scan<Num<'a>> {
        let b = self.b;
        let start = self.pos;
        if let Some(n) = short_number(b, start) {
            self.pos = start + n.len;
            return Ok(Num {
                // SAFETY: a number just accepted (as below): ASCII.
                text: unsafe { self.str_of(start, start + n.len) },
                digits: Some(n.value()),
                frac: n.frac,
                neg: n.neg,
                below_ns: n.frac > 3,
            });
        }
        self.number_general()
    }

    /// [`number`](Self::number) for every number, a byte or a word at a time.
    #[inline(always)]
    fn number_general(&mut self) -> Scan<Num<'a>> {
        let b = self.b;
        let start = self.pos;
        let neg = b.get(start) == Some(&b'-');
        let mut i = start + neg as usize;
        let mut mantissa = 0u64;
        let int_start = i;
        i = digits(b, i, &mut mantissa)?;
        let mut count = i - int_start;
        let mut frac = 0;
        if b.get(i) == Some(&b'.') {
            let frac_start = i + 1;
            i = digits(b, frac_start, &mut mantissa)?;
            frac = i - frac_start;
            count += frac;
        }
        let mut exponent = false;
        if let Some(b'e' | b'E') = b.get(i) {
            exponent = true;
            i = exponent_digits(b, i + 1)?;
        }
        self.pos = i;
        // 19 decimal digits always fit in a u64.
        let digits = (!exponent && count <= 19).then_some(mantissa);
        Ok(Num {
            // SAFETY: a number the lexer just accepted: ASCII.
            text: unsafe { self.str_of(start, i) },
            digits,
            frac: frac as u32,
            neg,
            below_ns: exponent || frac > 3,
        })
    }

    /// Steps over a number like [`number`](Self::number), keeping nothing: the numbers
    /// inside skipped values (`args`) are most of the numbers of a trace.
    #[inline]
    fn skip_number(&mut self) -> Scan<()> {
        let b = self.b;
        if let Some(n) = short_number(b, self.pos) {
            self.pos += n.len;
            return Ok(());
        }
        self.skip_number_general()
    }

    /// [`skip_number`](Self::skip_number) for every number.
    #[inline]
    fn skip_number_general(&mut self) -> Scan<()> {
        let b = self.b;
        let mut i = self.pos + (b.get(self.pos) == Some(&b'-')) as usize;
        i = digit_run(b, i)?;
        if b.get(i) == Some(&b'.') {
            i = digit_run(b, i + 1)?;
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i = exponent_digits(b, i + 1)?;
        }
        self.pos = i;
        Ok(())
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
        self.skip_value_inline(depth)
    }

    /// [`skip_value`](Self::skip_value), inlined into the container skips: most
    /// members are scalars, stepped over without a call of their own.
    #[inline(always)]
    fn skip_value_inline(&mut self, depth: u32) -> Scan<()> {
        if let Some(b' ' | b'\n' | b'\r' | b'\t' | b'/') = self.peek() {
            self.ws();
        }
        match self.peek() {
            Some(b'"') => self.string().map(|_| ()),
            Some(b'{') => self.skip_object(depth + 1),
            Some(b'[') => self.skip_array(depth + 1),
            Some(b'-' | b'0'..=b'9') => self.skip_number(),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(_) => Err(Fail::Syntax(self.pos)),
            None => Err(Fail::Eof),
        }
    }

    /// At `{`: steps over the object (one function per closer, so neither tests
    /// which container it is in at each member).
    fn skip_object(&mut self, depth: u32) -> Scan<()> {
        if !self.open_container(depth, b'}')? {
            return Ok(());
        }
        loop {
            match self.peek() {
                Some(b'"') => self.string()?,
                Some(_) => return Err(Fail::Syntax(self.pos)),
                None => return Err(Fail::Eof),
            };
            self.colon()?;
            self.skip_value_inline(depth)?;
            if self.next_member(b'}')? {
                return Ok(());
            }
        }
    }

    /// At `[`: steps over the array.
    fn skip_array(&mut self, depth: u32) -> Scan<()> {
        if !self.open_container(depth, b']')? {
            return Ok(());
        }
        loop {
            self.skip_value_inline(depth)?;
            if self.next_member(b']')? {
                return Ok(());
            }
        }
    }

    /// At a container's opening byte: checks its depth, steps over it and the
    /// whitespace after it; false when `close` follows at once (an empty container,
    /// stepped over).
    #[inline(always)]
    fn open_container(&mut self, depth: u32, close: u8) -> Scan<bool> {
        if depth > MAX_DEPTH {
            self.too_deep = Some(self.pos);
            return Err(Fail::Syntax(self.pos));
        }
        self.pos += 1;
        self.ws();
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(false);
        }
        Ok(true)
    }

    /// Expects `:` (after whitespace) and steps over it.
    #[inline]
    pub fn colon(&mut self) -> Scan<()> {
        if self.peek() == Some(b':') {
            self.pos += 1;
            Ok(())
        } else {
            self.expect(b':')
        }
    }

    /// Like [`after_member`](Self::after_member), with a shortcut for compact JSON
    /// (`,` right before the next member).
    #[inline]
    pub fn next_member(&mut self, close: u8) -> Scan<bool> {
        match self.peek() {
            Some(b',') => match self.b.get(self.pos + 1) {
                Some(&c) if c > b' ' && c != b'/' && c != close => {
                    self.pos += 1;
                    Ok(false)
                }
                _ => self.after_member(close),
            },
            Some(c) if c == close => {
                self.pos += 1;
                Ok(true)
            }
            _ => self.after_member(close),
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
        // SAFETY: `skip_value` just accepted this whole value.
        Ok((start, unsafe { self.str_of(start, self.pos) }, clean))
    }

    /// Whether an event object starts at `at` (see [`super::starts`]).
    pub fn is_event_start(text: impl Into<Prefix<'a>>, at: usize) -> bool {
        Starts::new(text).is_start(at)
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

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Eight bytes from `i` as a little-endian word (the first byte lowest).
#[inline]
pub(crate) fn word_at(b: &[u8], i: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(word)
}

/// The eight bytes from `i` as a word ([`word_at`]), when there are eight.
#[inline(always)]
pub(crate) fn word_after(b: &[u8], i: usize) -> Option<u64> {
    let bytes = b.get(i..)?.first_chunk::<8>()?;
    Some(u64::from_le_bytes(*bytes))
}

/// How many of the word's bytes, from the first, are ASCII digits (0 to 8).
#[inline]
fn leading_digits(w: u64) -> usize {
    // A byte is a digit when its high nibble is 3, before and after adding 6. A carry
    // out of a byte comes only from a non-digit and only disturbs later bytes.
    let high = |x: u64| (x & (ONES * 0xF0)) ^ (ONES * 0x30);
    let other = high(w) | high(w.wrapping_add(ONES * 6));
    // The high bit of each byte of `other` that is not zero (exact per byte).
    let stops = (((other & !HIGH) + !HIGH) | other) & HIGH;
    (stops.trailing_zeros() / 8) as usize
}

/// The value of the first `n` (1 to 8) digits of a word, the first most significant.
#[inline]
fn digits_value(w: u64, n: usize) -> u64 {
    // Put the digits in the top bytes, zeros (leading zero digits) below, then combine
    // pairs, quads and halves with one multiplication each.
    let mut v = (w & (ONES * 0x0F)) << (8 * (8 - n));
    v = (v.wrapping_mul(10 * 256 + 1) >> 8) & 0x00FF_00FF_00FF_00FF;
    v = (v.wrapping_mul(100 * 65_536 + 1) >> 16) & 0x0000_FFFF_0000_FFFF;
    v.wrapping_mul(10_000 * (1 << 32) + 1) >> 32
}

/// One or more digits from `i`, accumulated into `acc` (wrapping: the caller ignores
/// it past 19 digits); returns the offset after them. Eight digits at a time.
#[inline(always)]
fn digits(b: &[u8], mut i: usize, acc: &mut u64) -> Scan<usize> {
    let start = i;
    while i + 8 <= b.len() {
        let w = word_at(b, i);
        let n = leading_digits(w);
        if n == 0 {
            break;
        }
        *acc = acc.wrapping_mul(POW10[n]).wrapping_add(digits_value(w, n));
        i += n;
        if n < 8 {
            return Ok(i);
        }
    }
    while let Some(&c) = b.get(i) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        *acc = acc.wrapping_mul(10).wrapping_add(d as u64);
        i += 1;
    }
    run_end(b, start, i)
}

/// A number of at most 15 bytes without an exponent, as [`short_number`] finds it.
#[derive(Clone, Copy)]
struct Short<'a> {
    /// The 32 bytes of text from the number's start (the number, and more).
    text: &'a [u8; 32],
    neg: bool,
    /// Digits before the point.
    int: u32,
    /// Digits after the point (0 without one).
    frac: u32,
    /// Bytes of the whole number.
    len: usize,
}

impl Short<'_> {
    /// The number's digits as one integer (at most 15 of them: no overflow).
    #[inline(always)]
    fn value(self) -> u64 {
        let at = self.neg as usize;
        let int = run_value(self.text, at, self.int as usize);
        if self.frac == 0 {
            int
        } else {
            let frac = run_value(self.text, at + self.int as usize + 1, self.frac as usize);
            int * POW10[self.frac as usize] + frac
        }
    }
}

/// The value of the `n` (1 to 16) digits at `at` (below 16) of a number's text.
#[inline(always)]
fn run_value(text: &[u8; 32], at: usize, n: usize) -> u64 {
    debug_assert!(at < 16);
    // Masked, `at` is seen to be below 16, so the words read below (to byte 31 at
    // most) need no bounds checks: the number is on every event's hot path.
    let at = at & 15;
    let word = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&text[i..i + 8]);
        u64::from_le_bytes(w)
    };
    if n <= 8 {
        digits_value(word(at), n)
    } else {
        digits_value(word(at), 8) * POW10[n - 8] + digits_value(word(at + 8), n - 8)
    }
}

/// Powers of ten up to 10^15.
const POW10: [u64; 16] = {
    let mut t = [1u64; 16];
    let mut i = 1;
    while i < 16 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// At a `-` or digit: the number there, when its shape is found from the 16 bytes at
/// `start` alone (digits and the point as two bit masks, no byte-by-byte walk): digits,
/// optionally a point and digits, then a byte that is none of digit, point, `e` or
/// `E`, all within those 16 bytes, with at least 32 bytes of text from `start` (so
/// [`Short::value`] may read whole words). `None` sends it the general way (longer
/// numbers, exponents, errors, the text's last bytes), which reads the same result
/// in every case this one takes.
#[inline(always)]
fn short_number(b: &[u8], start: usize) -> Option<Short<'_>> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let text: &[u8; 32] = b.get(start..)?.first_chunk()?;
        // SAFETY: SSE2 is in the x86-64 baseline; the load reads the first 16 of
        // `text`'s 32 bytes.
        let (digit, point, exp) = unsafe {
            let v = _mm_loadu_si128(text.as_ptr().cast());
            let d = _mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8));
            // A digit is at most 9 above '0' (unsigned): the minimum with 9 is itself.
            let is_digit = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
            let is_point = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'.' as i8));
            // `e` or `E`: the same byte with bit 5 set.
            let lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
            let is_exp = _mm_cmpeq_epi8(lower, _mm_set1_epi8(b'e' as i8));
            (
                _mm_movemask_epi8(is_digit) as u32,
                _mm_movemask_epi8(is_point) as u32,
                _mm_movemask_epi8(is_exp) as u32,
            )
        };
        let neg = text[0] == b'-';
        let from = neg as u32;
        // Bits past the 16th are clear in `digit`, so each run stops by then.
        let int = (!(digit >> from)).trailing_zeros();
        let mut end = from + int;
        if int == 0 || end >= 16 {
            return None;
        }
        let mut frac = 0;
        if point >> end & 1 != 0 {
            frac = (!(digit >> (end + 1))).trailing_zeros();
            end += 1 + frac;
            if frac == 0 || end >= 16 {
                return None;
            }
        }
        // The byte after the number, from the same load (not read again: the
        // number's end is the chain the next byte waits on).
        if exp >> end & 1 != 0 {
            return None;
        }
        Some(Short {
            text,
            neg,
            int,
            frac,
            len: end as usize,
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (b, start);
        None
    }
}

/// One or more digits from `i`, not kept; returns the offset after them.
#[inline]
fn digit_run(b: &[u8], mut i: usize) -> Scan<usize> {
    let start = i;
    while i + 8 <= b.len() {
        let n = leading_digits(word_at(b, i));
        i += n;
        if n < 8 {
            return run_end(b, start, i);
        }
    }
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    run_end(b, start, i)
}

/// After an `e`/`E` at `i - 1`: an optional sign and one or more digits.
#[inline]
fn exponent_digits(b: &[u8], mut i: usize) -> Scan<usize> {
    if let Some(b'+' | b'-') = b.get(i) {
        i += 1;
    }
    digit_run(b, i)
}

/// The end of a digit run from `start` that stopped at `i`: an empty run is the end
/// of the input or a syntax error there.
#[inline]
fn run_end(b: &[u8], start: usize, i: usize) -> Scan<usize> {
    if i > start {
        Ok(i)
    } else if i == b.len() {
        Err(Fail::Eof)
    } else {
        Err(Fail::Syntax(i))
    }
}

/// The offset of the first `"` or `\\` at or after `i` (or the end), sixteen bytes at
/// a time (SSE2, part of every x86-64) or eight (elsewhere, and near the end): string
/// bodies are most of a trace's bytes. Also whether a byte before it is >= 0x80
/// (from the same loads: the bytes' top bits).
#[inline(always)]
fn quote_or_backslash(b: &[u8], mut i: usize) -> (usize, bool) {
    let mut high = 0u64;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is in the x86-64 baseline; each unaligned load reads 16 bytes
        // at `i`, inside `b` (`i + 16 <= b.len()`).
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            // Two loads a step: most names, categories and keys end within 32 bytes,
            // so the loop's exit is taken the first time (a branch predicted well,
            // where the end of a 16-byte step depended on each string's length).
            while i + 32 <= b.len() {
                let v0 = _mm_loadu_si128(b.as_ptr().add(i).cast());
                let v1 = _mm_loadu_si128(b.as_ptr().add(i + 16).cast());
                let h0 = _mm_or_si128(_mm_cmpeq_epi8(v0, quote), _mm_cmpeq_epi8(v0, backslash));
                let h1 = _mm_or_si128(_mm_cmpeq_epi8(v1, quote), _mm_cmpeq_epi8(v1, backslash));
                let mask = _mm_movemask_epi8(h0) as u32 | (_mm_movemask_epi8(h1) as u32) << 16;
                let top = _mm_movemask_epi8(v0) as u32 | (_mm_movemask_epi8(v1) as u32) << 16;
                if mask != 0 {
                    let stop = mask.trailing_zeros();
                    let below = top & ((1u32 << stop) - 1);
                    return (i + stop as usize, high | below as u64 != 0);
                }
                high |= top as u64;
                i += 32;
            }
            while i + 16 <= b.len() {
                let v = _mm_loadu_si128(b.as_ptr().add(i).cast());
                let hits = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
                let mask = _mm_movemask_epi8(hits) as u32;
                let top = _mm_movemask_epi8(v) as u32;
                if mask != 0 {
                    let stop = mask.trailing_zeros();
                    let below = top & ((1u32 << stop) - 1);
                    return (i + stop as usize, high | below as u64 != 0);
                }
                high |= top as u64;
                i += 16;
            }
        }
    }
    while i + 8 <= b.len() {
        let w = word_at(b, i);
        let stop = quote_or_backslash_in(w);
        if stop < 8 {
            let below = w & HIGH & ((1u64 << (8 * stop)) - 1);
            return (i + stop, high | below != 0);
        }
        high |= w & HIGH;
        i += 8;
    }
    while i < b.len() && b[i] != b'"' && b[i] != b'\\' {
        high |= (b[i] >= 0x80) as u64;
        i += 1;
    }
    (i, high != 0)
}

/// Which byte of the word is its first `"` or `\\` (8 when none is).
#[inline]
pub(crate) fn quote_or_backslash_in(w: u64) -> usize {
    let q = w ^ (ONES * b'"' as u64);
    let s = w ^ (ONES * b'\\' as u64);
    // A byte is flagged where q or s is zero; the lowest flag is exact.
    let hit = ((q.wrapping_sub(ONES) & !q) | (s.wrapping_sub(ONES) & !s)) & HIGH;
    (hit.trailing_zeros() / 8) as usize
}

/// A scanned number: its text and, when it has at most 19 digits and no exponent,
/// those digits as one integer with `frac` of them after the point.
pub(crate) struct Num<'a> {
    pub text: &'a str,
    pub digits: Option<u64>,
    pub frac: u32,
    pub neg: bool,
    /// It has digits below a nanosecond as microseconds (more than 3 decimals, or an
    /// exponent): a span with such an end is rounded at both ends (spec section 3).
    pub below_ns: bool,
}

impl Num<'_> {
    /// Microseconds to nanoseconds, exactly (see [`micros_text_to_ns`]).
    #[inline(always)]
    pub fn micros_to_ns(&self) -> Option<i64> {
        match self.digits {
            // A table, not `pow`: a shorter path on every time of every event.
            Some(m) if self.frac <= 3 => match m.checked_mul(POW10[3 - self.frac as usize]) {
                Some(ns) => signed(ns, self.neg),
                None => micros_text_to_ns(self.text),
            },
            _ => micros_text_to_ns(self.text),
        }
    }

    /// An integer exact to 64 bits, or an integral float (see [`Int64::parse_number`]).
    #[inline(always)]
    pub fn int64(&self) -> Option<Int64> {
        match self.digits {
            Some(m) if self.frac == 0 && !self.neg => Some(Int64::from_u64(m)),
            Some(m) if self.frac == 0 => signed(m, true).map(Int64::I),
            _ => Int64::parse_number(self.text),
        }
    }
}

/// `v` with a sign, if it fits an i64.
#[inline]
fn signed(v: u64, neg: bool) -> Option<i64> {
    if neg {
        0i64.checked_sub_unsigned(v)
    } else {
        i64::try_from(v).ok()
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

/// Checks the body of a string starting at `at`, which holds a byte >= 0x80, as
/// UTF-8 (unchecked text only): invalid UTF-8 there is a syntax error.
#[cold]
#[inline(never)]
fn check_utf8(body: &[u8], at: usize) -> Scan<()> {
    match simdutf8::basic::from_utf8(body) {
        Ok(_) => Ok(()),
        Err(_) => Err(Fail::Syntax(at)),
    }
}

/// A short excerpt of `text` around `at` for a diagnostic's example (cut on
/// character boundaries; bytes that are not UTF-8, in unchecked text, repaired).
pub(crate) fn excerpt(text: &[u8], at: usize) -> String {
    // Where a `str` would have a character boundary: not a continuation byte.
    let boundary = |i: usize| i >= text.len() || text[i] & 0xC0 != 0x80;
    let mut start = at.saturating_sub(24).min(text.len());
    while start > 0 && !boundary(start) {
        start -= 1;
    }
    let mut end = at.saturating_add(72).min(text.len());
    while end > start && !boundary(end) {
        end -= 1;
    }
    String::from_utf8_lossy(&text[start..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Lexer<'_> {
        /// The skip as it was before `skip_object`/`skip_array`, for the tests that
        /// compare them.
        fn skip_value_before(&mut self, depth: u32) -> Scan<()> {
            if let Some(b' ' | b'\n' | b'\r' | b'\t' | b'/') = self.peek() {
                self.ws();
            }
            match self.peek() {
                Some(b'"') => self.string().map(|_| ()),
                Some(b'{') => self.skip_container_before(depth + 1, b'}'),
                Some(b'[') => self.skip_container_before(depth + 1, b']'),
                Some(b'-' | b'0'..=b'9') => self.skip_number_general(),
                Some(b't') => self.literal(b"true"),
                Some(b'f') => self.literal(b"false"),
                Some(b'n') => self.literal(b"null"),
                Some(_) => Err(Fail::Syntax(self.pos)),
                None => Err(Fail::Eof),
            }
        }

        fn skip_container_before(&mut self, depth: u32, close: u8) -> Scan<()> {
            if depth > MAX_DEPTH {
                self.too_deep = Some(self.pos);
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
                    self.colon()?;
                }
                self.skip_value_before(depth)?;
                if self.next_member(close)? {
                    return Ok(());
                }
            }
        }
    }

    /// Everything a skip leaves behind, to compare two skips.
    fn skip_state(l: &Lexer<'_>, r: Scan<()>) -> String {
        let kinds = [DiagKind::Comment, DiagKind::TrailingComma];
        let diags: Vec<_> = kinds
            .iter()
            .map(|k| (l.diags.count(*k), l.diags.get(*k).map(|d| d.offset)))
            .collect();
        format!("{r:?} {} {} {:?} {diags:?}", l.pos, l.dirty, l.too_deep)
    }

    /// JSON-ish text: values with every kind of token, whitespace, comments,
    /// trailing commas, escapes, numbers of every shape, and damage anywhere.
    fn jsonish() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just("1".to_string()),
            Just("-0.5e+3".to_string()),
            Just("1234567890123.25".to_string()),
            Just("\"a\\\"b\"".to_string()),
            Just("\"é€\"".to_string()),
            Just("true".to_string()),
            Just("false".to_string()),
            Just("null".to_string()),
            Just("\"a long string value, longer than thirty-two bytes\"".to_string()),
            "[0-9]{1,20}(\\.[0-9]{0,6})?".prop_map(|s| s),
        ];
        let value = leaf.prop_recursive(6, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                proptest::collection::vec(("[a-z\\\\\"]{0,6}", inner), 0..6).prop_map(|v| {
                    let m: Vec<String> = v.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                    format!("{{{}}}", m.join(","))
                }),
            ]
        });
        let damage = proptest::collection::vec(
            (
                any::<proptest::sample::Index>(),
                proptest::sample::select(vec![
                    "", " ", "\n", ",", ":", "/* c */", "// x\n", "}", "]", "{", "[", "\"", "\\",
                    "x", "1", ".", "e",
                ]),
            ),
            0..3,
        );
        (value, damage, any::<proptest::sample::Index>()).prop_map(|(mut v, damage, cut)| {
            for (at, what) in damage {
                let mut i = at.index(v.len() + 1);
                while !v.is_char_boundary(i) {
                    i -= 1;
                }
                v.insert_str(i, what);
            }
            if cut.index(8) == 0 {
                let mut i = cut.index(v.len() + 1);
                while !v.is_char_boundary(i) {
                    i -= 1;
                }
                v.truncate(i);
            }
            v
        })
    }

    proptest::proptest! {
        /// The skip by object and array gives what the skip by container gave: the
        /// result or error offset, where it stopped, and what it counted.
        #[test]
        fn object_and_array_skips_match_the_container_skip(text in jsonish(), pad in 0usize..40) {
            let text = format!("{text}{}", " ".repeat(pad));
            let mut a = Lexer::new(text.as_str(), 0);
            let ra = a.skip_value(1);
            let mut b = Lexer::new(text.as_str(), 0);
            let rb = b.skip_value_before(1);
            proptest::prop_assert_eq!(skip_state(&a, ra), skip_state(&b, rb), "{:?}", text);
        }
    }

    #[test]
    fn deep_nesting_fails_where_it_did() {
        for open in ["[", "{\"a\":", "[{\"k\":[", "{\"a\":[1,{\"b\":"] {
            for n in [500, 511, 512, 513, 600] {
                let text = open.repeat(n);
                let mut a = Lexer::new(text.as_str(), 0);
                let ra = a.skip_value(1);
                let mut b = Lexer::new(text.as_str(), 0);
                let rb = b.skip_value_before(1);
                assert_eq!(skip_state(&a, ra), skip_state(&b, rb), "{open} {n}");
            }
        }
    }

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
        assert_eq!(Starts::new(t).find(2, t.len()), Some(second));
        assert_eq!(Starts::new(t).find(2, second), None);
        assert!(!Lexer::is_event_start("{\"ph\":", 0));
    }

    #[test]
    fn bracket_end_ignores_grammar() {
        let b = br#"{"a": 1 2, "s": "}]", [x}] , next"#;
        assert_eq!(Lexer::bracket_end(b, 0, b.len()), Some(26));
        assert_eq!(Lexer::bracket_end(b"{[", 0, 2), None);
    }

    /// The fast paths of `Num` agree with the exact general routines.
    #[test]
    fn number_fast_paths_are_exact() {
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "00012",
            "1.5",
            "1.000",
            "1.0005",
            "-1.5",
            "1e3",
            "12.5E-1",
            "-9223372036854775808",
            "-9223372036854775809",
            "9223372036854775807",
            "18446744073709551615",
            "18446744073709551616",
            "9223372036854775.807",
            "9223372036854775.808",
            "-9223372036854775.808",
            "123456789012345678.9",
            "1234567890123456789",
            "12345678901234567890",
            "0.001",
            "0.0005",
            "522975545427.123",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let int = x % 10u64.pow((x >> 60) as u32 % 20);
            let frac = (x >> 8) % 10_000;
            texts.push(match x % 5 {
                0 => format!("{int}"),
                1 => format!("-{int}.{frac}"),
                2 => format!("{int}.{:0width$}", frac % 1000, width = (x % 4) as usize),
                3 => format!(
                    "{}{int}e{}",
                    if x & 64 == 0 { "-" } else { "" },
                    (x >> 20) % 7
                ),
                _ => format!("{int}.{frac:04}"),
            });
        }
        for t in texts.iter().filter(|t| !t.ends_with('.')) {
            // Alone (digits read a byte at a time near the end) and followed by more
            // text (eight at a time), which must stop the number at the same place.
            let padded = format!("{t},\"ts\":12345678}},\"pid\":1,\"tid\":2}}");
            for text in [t.clone(), format!("{t},\"ts\":12345678}}"), padded] {
                let mut l = Lexer::new(&text, 0);
                let n = l.number().unwrap();
                assert_eq!(l.pos, t.len(), "{text}");
                assert_eq!(n.text, t, "{text}");
                assert_eq!(n.micros_to_ns(), micros_text_to_ns(t), "{t}");
                assert_eq!(n.int64(), Int64::parse_number(t), "{t}");
                let frac = t.split_once('.').map_or(0, |(_, f)| f.len());
                assert_eq!(n.below_ns, t.contains(['e', 'E']) || frac > 3, "{t}");
                let mut skip = Lexer::new(&text, 0);
                assert_eq!((skip.skip_number(), skip.pos), (Ok(()), t.len()), "{t}");
            }
        }
    }

    /// What a number read gave: the error, or where it ended and what it found.
    fn number_result(l: &mut Lexer<'_>, general: bool) -> String {
        let r = if general {
            l.number_general()
        } else {
            l.number()
        };
        match r {
            Ok(n) => format!(
                "{} {} {:?} {} {} {}",
                l.pos, n.text, n.digits, n.frac, n.neg, n.below_ns
            ),
            Err(e) => format!("{e:?}"),
        }
    }

    proptest::proptest! {
        /// The 16-byte path of `number` and `skip_number` ([`short_number`]) gives
        /// what the general path gives, on numbers and near-numbers of every length
        /// (points, exponents, signs and junk anywhere), with text after them of every
        /// length (so near the text's end too).
        #[test]
        fn short_numbers_match_the_general_path(
            body in proptest::collection::vec(
                proptest::sample::select(b"0123456789999.-eE+x,}\" ]".to_vec()), 0..24),
            lead in proptest::collection::vec(proptest::sample::select(b"0123456789".to_vec()), 0..18),
            point in proptest::option::of(proptest::collection::vec(
                proptest::sample::select(b"0123456789".to_vec()), 0..18)),
            neg in proptest::bool::ANY,
            pad in 0usize..40,
        ) {
            let mut t = Vec::new();
            if neg {
                t.push(b'-');
            }
            t.extend(&lead);
            if let Some(p) = &point {
                t.push(b'.');
                t.extend(p);
            }
            t.extend(&body);
            t.extend(std::iter::repeat_n(b' ', pad));
            let text = String::from_utf8(t).unwrap();
            if !text.starts_with(['-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']) {
                return Ok(());
            }
            let want = number_result(&mut Lexer::new(text.as_str(), 0), true);
            let got = number_result(&mut Lexer::new(text.as_str(), 0), false);
            proptest::prop_assert_eq!(&got, &want, "{:?}", text);
            let (mut a, mut b) = (Lexer::new(text.as_str(), 0), Lexer::new(text.as_str(), 0));
            let (ra, rb) = (a.skip_number(), b.skip_number_general());
            proptest::prop_assert_eq!((ra, a.pos), (rb, b.pos), "{:?}", text);
        }
    }

    /// Every run length of digits at every place in a word, after every kind of byte.
    #[test]
    fn digit_words() {
        for n in 0..=8 {
            for stop in [
                b'.', b'e', b',', b'/', b':', b' ', b'"', 0, 0x7f, 0xc3, 0xff,
            ] {
                let mut bytes: Vec<u8> = b"93710482".iter().take(n).copied().collect();
                bytes.resize(8, stop);
                let w = word_at(&bytes, 0);
                assert_eq!(leading_digits(w), n, "{bytes:?}");
                if n > 0 {
                    let want: u64 = std::str::from_utf8(&bytes[..n]).unwrap().parse().unwrap();
                    assert_eq!(digits_value(w, n), want, "{bytes:?}");
                }
            }
        }
        // Runs longer than a word, ending at every place of the next one.
        for len in 1..=24 {
            let t: String = (0..len).map(|i| char::from(b'1' + (i % 9) as u8)).collect();
            for tail in ["", "x", "]        "] {
                let text = format!("{t}{tail}");
                let mut acc = 0;
                assert_eq!(digits(text.as_bytes(), 0, &mut acc), Ok(len), "{text}");
                if len <= 19 {
                    assert_eq!(acc, t.parse::<u64>().unwrap(), "{text}");
                }
                assert_eq!(digit_run(text.as_bytes(), 0), Ok(len), "{text}");
            }
        }
        assert_eq!(digits(b"x2345678", 0, &mut 0), Err(Fail::Syntax(0)));
        assert_eq!(digit_run(b"", 0), Err(Fail::Eof));
        assert_eq!(digit_run(b"12345678", 8), Err(Fail::Eof));
    }

    /// Truncated and malformed numbers fail as they did before (Eof at the end of the
    /// input, Syntax at the first bad byte), whether or not a word fits.
    #[test]
    fn number_edges() {
        for (t, want) in [
            ("1234567", Ok(7)),
            ("12345678", Ok(8)),
            ("123456789", Ok(9)),
            ("-", Err(Fail::Eof)),
            ("1.", Err(Fail::Eof)),
            ("1e", Err(Fail::Eof)),
            ("1e+", Err(Fail::Eof)),
            ("12345678.", Err(Fail::Eof)),
            ("1.x      ", Err(Fail::Syntax(2))),
            ("-x       ", Err(Fail::Syntax(1))),
            ("1e+x     ", Err(Fail::Syntax(3))),
            ("1.5e-300000000000, ", Ok(17)),
            ("12.5E+1]", Ok(7)),
        ] {
            let mut l = Lexer::new(t, 0);
            assert_eq!(l.number().map(|_| l.pos), want, "{t}");
            let mut l = Lexer::new(t, 0);
            assert_eq!(l.skip_number().map(|_| l.pos), want, "{t}");
        }
    }

    #[test]
    fn string_scan_finds_the_first_stop() {
        for s in [
            "\"",
            "ab\"",
            "abcdefgh\"",
            "abcdefghijklmnop\"x",
            "a\\\"bcdefghij\"",
            "é€😀ëëëë\\u0041\"",
        ] {
            let t = format!("\"{s}");
            let mut l = Lexer::new(&t, 0);
            let (start, end, esc) = l.string().unwrap();
            let body_end = s.len() - s.chars().rev().take_while(|&c| c != '"').count() - 1;
            assert_eq!(
                (start, end, esc, l.pos),
                (1, 1 + body_end, s.contains('\\'), body_end + 2),
                "{s}"
            );
        }
        // `\"` runs and escapes that straddle a word: each backslash takes the byte after
        // it, whatever the word it falls in.
        for pad in 0..10 {
            for esc in ["\\\"", "\\\\", "\\\\\\\"", "\\\\\\\\\\\"x"] {
                let body = format!("{}{esc}{}", "a".repeat(pad), "b".repeat(pad));
                let t = format!("\"{body}\",\"ph\":\"X\"}}");
                let mut l = Lexer::new(&t, 0);
                let (start, end, escaped) = l.string().unwrap();
                assert_eq!((start, end, escaped), (1, 1 + body.len(), true), "{t}");
                assert_eq!(
                    unescape(&t[start..end]).matches('"').count(),
                    esc.matches("\\\"").count(),
                    "{t}"
                );
            }
        }
        assert_eq!(Lexer::new("\"abcdefghijklmn", 0).string(), Err(Fail::Eof));
        assert_eq!(Lexer::new("\"abcdefghijklm\\", 0).string(), Err(Fail::Eof));
    }

    /// The sixteen- and eight-byte scans find the first `"` or `\\` wherever it is
    /// (or the end when there is none), like a byte-by-byte search.
    #[test]
    fn quote_or_backslash_finds_the_first() {
        for len in 0..70 {
            for stop in [None, Some(b'"'), Some(b'\\')] {
                for at in 0..len {
                    for from in [0, 1, 7, 15, 16, 17] {
                        let mut t = vec![b'a'; len];
                        if let Some(c) = stop {
                            t[at] = c;
                            // A second stop after the first must not be taken.
                            if at + 3 < len {
                                t[at + 3] = b'"';
                            }
                        }
                        let from = from.min(len);
                        let want = (from..len)
                            .find(|&i| t[i] == b'"' || t[i] == b'\\')
                            .unwrap_or(len);
                        assert_eq!(
                            quote_or_backslash(&t, from),
                            (want, false),
                            "{len} {stop:?} {at} {from}"
                        );
                        // A byte >= 0x80 is seen only before the stop.
                        for high in [0, 1, 5, 8, 13, 16, 17, 31] {
                            let mut h = t.clone();
                            if from + high < len {
                                h[from + high] = 0xE9;
                                let want = (from..len)
                                    .find(|&i| h[i] == b'"' || h[i] == b'\\')
                                    .unwrap_or(len);
                                assert_eq!(
                                    quote_or_backslash(&h, from),
                                    (want, from + high < want),
                                    "{len} {stop:?} {at} {from} {high}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn excerpts_respect_char_boundaries() {
        let t = "ééééééééééééééééééééé{x}";
        for at in 0..t.len() {
            let _ = excerpt(t.as_bytes(), at);
        }
        assert_eq!(excerpt(b"abc", 99), "");
    }
}
