//! One borrowed walk over an event's args text, for both of its exported forms:
//! the JSON `args` column (the text as written, when it is already the compact
//! JSON that `compact` would write) and the flattened `args` table (one leaf per
//! value, keys built in reused buffers, strings borrowed from the text unless
//! they hold escapes).
//!
//! It reads exactly what `tracescope_format::json::Value::parse` reads (comments,
//! trailing commas, raw control characters, numbers as written) and flattens as
//! parsing then flattening would, so the values are the same; it only skips the
//! tree, the per-key strings and the re-serialising.

use std::fmt::Write as _;

use tracescope_format::json::value::unescape;
use tracescope_format::Int64;

/// The deepest nesting `Value::parse` accepts.
const MAX_DEPTH: u32 = 512;

/// A leaf value: strings borrow from the args text or the walk's buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LeafValue<'a> {
    Int(i64),
    /// Also integers beyond 64 bits.
    Real(f64),
    Str(&'a str),
    Bool(bool),
}

/// Where a leaf's text lives.
#[derive(Clone, Copy, Debug)]
enum Stored {
    Int(i64),
    Real(f64),
    Bool(bool),
    /// A range of the walked text (a string without escapes).
    Text(u32, u32),
    /// A range of `ArgWalk::own` (a string unescaped).
    Own(u32, u32),
}

#[derive(Clone, Copy, Debug)]
struct Leaf {
    /// End of the flat key in `keys`; the full key follows it up to `key_end`.
    flat_end: u32,
    key_end: u32,
    value: Stored,
}

/// Reusable buffers for walking arg sets one after another without allocating.
#[derive(Debug, Default)]
pub struct ArgWalk {
    /// Each leaf's flat key then full key, end to end.
    keys: String,
    /// Unescaped strings.
    own: String,
    leaves: Vec<Leaf>,
    /// The key of the value being read: flat (no indexes) and full.
    flat: String,
    key: String,
}

/// What a walk found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The text parses and is already compact JSON (`compact` gives it back).
    Compact,
    /// The text parses but `compact` writes it otherwise (whitespace, comments,
    /// trailing commas, escapes written differently).
    Loose,
    /// The text does not parse (`compact` writes it as a JSON string).
    Invalid,
}

/// Whether `text` parses, and whether it is already compact JSON; allocates nothing.
pub fn shape(text: &str) -> Shape {
    let mut p = Parser::new(text, None);
    p.document()
}

/// A quick look at args text that parses and holds no comment or trailing
/// comma (what the reader's validating skip tells the load, `RawJson::clean`):
/// true when it is certainly compact already ([`shape`] would say
/// [`Shape::Compact`]). It has no byte at or below a space (whitespace between
/// tokens, a raw control character in a string, or a space in a string, which
/// this look does not tell apart: false, not known) and every escape is the
/// one `compact` writes. Run by the load on each args text just read (in
/// cache), so the export copies it without walking it.
pub fn known_compact(text: &str) -> bool {
    let s = text.as_bytes();
    let mut i = 0;
    loop {
        i = space_or_backslash(s, i);
        match s.get(i) {
            None => return true,
            // Backslashes are only ever in strings (the text parses), and
            // stepping over each escape's first two bytes keeps an escaped
            // backslash from being read as the start of another escape.
            Some(b'\\') if canonical_escape(&s[i..]) => i += 2,
            Some(_) => return false,
        }
    }
}

/// The offset of the first byte at or after `i` that is at or below a space or
/// a backslash (or `s.len()`): sixteen bytes at a time (SSE2, part of every
/// x86-64), then as [`space_or_backslash_words`]. The load runs it over every
/// args text, so it must cost next to nothing.
#[inline]
fn space_or_backslash(s: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is in the x86-64 baseline; each unaligned load reads the
        // 16 bytes at `i`, inside `s` (`i + 16 <= s.len()`).
        unsafe {
            let space = _mm_set1_epi8(b' ' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            while i + 16 <= s.len() {
                let v = _mm_loadu_si128(s.as_ptr().add(i).cast());
                // At or below a space (unsigned): the minimum with a space is itself.
                let low = _mm_cmpeq_epi8(_mm_min_epu8(v, space), v);
                let hits = _mm_or_si128(low, _mm_cmpeq_epi8(v, backslash));
                let mask = _mm_movemask_epi8(hits);
                if mask != 0 {
                    return i + mask.trailing_zeros() as usize;
                }
                i += 16;
            }
        }
    }
    space_or_backslash_words(s, i)
}

/// [`space_or_backslash`] eight bytes at a time, without SIMD (elsewhere than
/// x86-64, and the last bytes).
#[inline]
fn space_or_backslash_words(s: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // As in `plain_run`: the high bit of each byte below `n`, exact for the
    // first such byte.
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * n as u64) & !x & HIGH;
    while let Some(chunk) = s.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let hits = below(w ^ (ONES * b'\\' as u64), 1) | below(w, 0x21);
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while s.get(i).is_some_and(|&b| b > b' ' && b != b'\\') {
        i += 1;
    }
    i
}

impl ArgWalk {
    /// Flattens `text` (the args of one arg set) into leaves, as `Value::parse`
    /// then flattening under `args` would; text that does not parse is one string
    /// leaf `args` holding it (what its compact form, a JSON string, flattens to).
    pub fn walk(&mut self, text: &str) -> Shape {
        self.keys.clear();
        self.own.clear();
        self.leaves.clear();
        self.flat.clear();
        self.key.clear();
        self.flat.push_str("args");
        self.key.push_str("args");
        let shape = Parser::new(text, Some(self)).document();
        if shape == Shape::Invalid {
            self.keys.clear();
            self.own.clear();
            self.leaves.clear();
            self.keys.push_str("argsargs");
            self.leaves.push(Leaf {
                flat_end: 4,
                key_end: 8,
                value: Stored::Text(0, text.len() as u32),
            });
        }
        shape
    }

    /// The leaves of the last walk of `text`: (flat key, key, value).
    pub fn leaves<'a>(
        &'a self,
        text: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a str, LeafValue<'a>)> + 'a {
        let mut start = 0;
        self.leaves.iter().map(move |l| {
            let flat = &self.keys[start as usize..l.flat_end as usize];
            let key = &self.keys[l.flat_end as usize..l.key_end as usize];
            start = l.key_end;
            let value = match l.value {
                Stored::Int(i) => LeafValue::Int(i),
                Stored::Real(r) => LeafValue::Real(r),
                Stored::Bool(b) => LeafValue::Bool(b),
                Stored::Text(s, e) => LeafValue::Str(&text[s as usize..e as usize]),
                Stored::Own(s, e) => LeafValue::Str(&self.own[s as usize..e as usize]),
            };
            (flat, key, value)
        })
    }

    fn leaf(&mut self, value: Stored) {
        self.keys.push_str(&self.flat);
        let flat_end = self.keys.len() as u32;
        self.keys.push_str(&self.key);
        self.leaves.push(Leaf {
            flat_end,
            key_end: self.keys.len() as u32,
            value,
        });
    }
}

/// Reading failed (the text does not parse).
struct Bad;

struct Parser<'t, 'w> {
    s: &'t [u8],
    text: &'t str,
    pos: usize,
    depth: u32,
    compact: bool,
    /// Where leaves go; `None` only checks the text.
    out: Option<&'w mut ArgWalk>,
}

impl<'t, 'w> Parser<'t, 'w> {
    fn new(text: &'t str, out: Option<&'w mut ArgWalk>) -> Self {
        Parser {
            s: text.as_bytes(),
            text,
            pos: 0,
            depth: 0,
            compact: true,
            out,
        }
    }

    fn document(&mut self) -> Shape {
        self.ws();
        let ok = self.value().is_ok() && {
            self.ws();
            self.pos == self.s.len()
        };
        match (ok, self.compact) {
            (false, _) => Shape::Invalid,
            (true, true) => Shape::Compact,
            (true, false) => Shape::Loose,
        }
    }

    /// Skips whitespace and comments (which `compact` drops).
    fn ws(&mut self) {
        let start = self.pos;
        self.pos = tracescope_format::json::value::skip_space(self.s, self.pos);
        if self.pos != start {
            self.compact = false;
        }
    }

    fn value(&mut self) -> Result<(), Bad> {
        match self.s.get(self.pos) {
            None => Err(Bad),
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b'"') => {
                let (start, end, escaped) = self.string()?;
                if let Some(w) = self.out.as_deref_mut() {
                    let value = if escaped {
                        let from = w.own.len() as u32;
                        w.own.push_str(&unescape(&self.text[start..end]));
                        Stored::Own(from, w.own.len() as u32)
                    } else {
                        Stored::Text(start as u32, end as u32)
                    };
                    w.leaf(value);
                }
                Ok(())
            }
            Some(b't') => self.literal("true", Some(Stored::Bool(true))),
            Some(b'f') => self.literal("false", Some(Stored::Bool(false))),
            Some(b'n') => self.literal("null", None),
            Some(b'-' | b'0'..=b'9') => {
                let value = self.number()?;
                if let Some(w) = self.out.as_deref_mut() {
                    w.leaf(value);
                }
                Ok(())
            }
            Some(_) => Err(Bad),
        }
    }

    fn nested(&mut self, f: fn(&mut Self) -> Result<(), Bad>) -> Result<(), Bad> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Bad);
        }
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn literal(&mut self, word: &str, leaf: Option<Stored>) -> Result<(), Bad> {
        if !self.s[self.pos..].starts_with(word.as_bytes()) {
            return Err(Bad);
        }
        self.pos += word.len();
        if let (Some(w), Some(v)) = (self.out.as_deref_mut(), leaf) {
            w.leaf(v);
        }
        Ok(())
    }

    /// A number as `Value::parse` accepts it and flattening types it: an integer
    /// (also `1.0`, `1e3`), else a real (also integers beyond 64 bits).
    fn number(&mut self) -> Result<Stored, Bad> {
        let start = self.pos;
        while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.s.get(self.pos) {
            self.pos += 1;
        }
        let t = &self.text[start..self.pos];
        match Int64::parse(t) {
            Some(Int64::I(i)) => Ok(Stored::Int(i)),
            Some(Int64::U(_)) => Ok(Stored::Real(t.parse().unwrap_or(f64::NAN))),
            None => {
                // What `Int64::parse_number` makes of `1.0` or `1e3`.
                let f: f64 = t.parse().map_err(|_| Bad)?;
                if f.fract() == 0.0 && f.is_finite() && f.abs() < 9.007_199_254_740_992e15 {
                    Ok(Stored::Int(f as i64))
                } else {
                    Ok(Stored::Real(f))
                }
            }
        }
    }

    /// A string's body (start, end) after its opening quote, and whether it holds
    /// escapes; marks the text loose unless `compact` would write the body as is.
    fn string(&mut self) -> Result<(usize, usize, bool), Bad> {
        let start = self.pos + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            i = plain_run(self.s, i);
            match self.s.get(i) {
                None => return Err(Bad),
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    if self.compact && !canonical_escape(&self.s[i..]) {
                        self.compact = false;
                    }
                    i += 2;
                }
                Some(&b) => {
                    if b < 0x20 {
                        self.compact = false;
                    }
                    i += 1;
                }
            }
        }
        self.pos = i + 1;
        Ok((start, i, escaped))
    }

    fn array(&mut self) -> Result<(), Bad> {
        self.pos += 1;
        let mut i = 0usize;
        let mut after_comma = false;
        loop {
            self.ws();
            if self.s.get(self.pos) == Some(&b']') {
                self.pos += 1;
                if after_comma {
                    self.compact = false;
                }
                return Ok(());
            }
            let key_len = self.out.as_deref().map_or(0, |w| w.key.len());
            if let Some(w) = self.out.as_deref_mut() {
                let _ = write!(w.key, "[{i}]");
            }
            self.value()?;
            if let Some(w) = self.out.as_deref_mut() {
                w.key.truncate(key_len);
            }
            i += 1;
            self.ws();
            match self.s.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    after_comma = true;
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(Bad),
            }
        }
    }

    fn object(&mut self) -> Result<(), Bad> {
        self.pos += 1;
        let mut after_comma = false;
        loop {
            self.ws();
            match self.s.get(self.pos) {
                Some(b'}') => {
                    self.pos += 1;
                    if after_comma {
                        self.compact = false;
                    }
                    return Ok(());
                }
                Some(b'"') => {}
                _ => return Err(Bad),
            }
            let (start, end, escaped) = self.string()?;
            let lens = self
                .out
                .as_deref()
                .map_or((0, 0), |w| (w.flat.len(), w.key.len()));
            if let Some(w) = self.out.as_deref_mut() {
                let body = &self.text[start..end];
                let k = if escaped { unescape(body) } else { body.into() };
                w.flat.push('.');
                w.flat.push_str(&k);
                w.key.push('.');
                w.key.push_str(&k);
            }
            self.ws();
            if self.s.get(self.pos) != Some(&b':') {
                return Err(Bad);
            }
            self.pos += 1;
            self.ws();
            self.value()?;
            if let Some(w) = self.out.as_deref_mut() {
                w.flat.truncate(lens.0);
                w.key.truncate(lens.1);
            }
            self.ws();
            match self.s.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    after_comma = true;
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(Bad),
            }
        }
    }
}

/// Skips bytes from `i` that need no look in a string (not a quote, a backslash
/// or a control character) eight at a time, to the first that does or to the
/// last 7 bytes of `s` (left to the caller's byte-by-byte scan): a string's body
/// is most of an args text.
#[inline]
fn plain_run(s: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // The high bit of each byte of `x` below `n` (n <= 128); a byte after a
    // flagged one may be flagged too (a borrow), never one before it.
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * n as u64) & !x & HIGH;
    while let Some(chunk) = s.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let hits = below(w ^ (ONES * b'"' as u64), 1)
            | below(w ^ (ONES * b'\\' as u64), 1)
            | below(w, 0x20);
        if hits != 0 {
            // Little-endian: the first flagged byte is the lowest.
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

/// Whether the escape at the start of `s` is the one `write_string` writes for
/// the character it stands for (`\"`, `\\`, `\n`, `\r`, `\t`, and `\u00xx` in
/// lowercase for the other control characters).
fn canonical_escape(s: &[u8]) -> bool {
    match s.get(1) {
        Some(b'"' | b'\\' | b'n' | b'r' | b't') => true,
        Some(b'u') => match s.get(2..6) {
            Some([b'0', b'0', hi @ (b'0' | b'1'), lo]) => {
                let lo = match lo {
                    b'0'..=b'9' => lo - b'0',
                    b'a'..=b'f' => lo - b'a' + 10,
                    _ => return false,
                };
                let c = (hi - b'0') * 16 + lo;
                !matches!(c, b'\n' | b'\r' | b'\t')
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracescope_format::json::value::compact;

    #[test]
    fn plain_run_stops_at_the_first_quote_backslash_or_control_byte() {
        let naive = |s: &[u8], i: usize| {
            (i..s.len())
                .find(|&k| matches!(s[k], b'"' | b'\\' | 0..=0x1f))
                .unwrap_or(s.len())
        };
        // Every stop byte at every place of texts of up to 20 bytes, after
        // bytes that sit next to them (0x20, 0x21, 0x5b, 0x7f, UTF-8 bytes),
        // with a second stop byte later (a borrow must not flag an earlier byte).
        for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for filler in [b'a', 0x20, 0x21, 0x5b, 0x7f, 0x80, 0xff] {
                for len in 0..20 {
                    for at in 0..=len {
                        let mut s = vec![filler; len];
                        if at < len {
                            s[at] = stop;
                        }
                        if at + 3 < len {
                            s[at + 3] = 0x00;
                        }
                        for from in 0..=at.min(len) {
                            // As `Parser::string` scans: a run, then a byte.
                            let mut i = from;
                            let stopped = loop {
                                i = plain_run(&s, i);
                                match s.get(i) {
                                    Some(b'"' | b'\\' | 0..=0x1f) | None => break i,
                                    Some(_) => i += 1,
                                }
                            };
                            assert_eq!(stopped, naive(&s, from), "{s:?} from {from}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn shape_is_compact_exactly_when_compact_gives_the_text_back() {
        let texts = [
            r#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
            r#"{"a": 1}"#,
            r#"{"a":1,}"#,
            r#"[1,2,]"#,
            r#"{"s":"tab\tquote\"back\\slash\u0001"}"#,
            r#"{"s":"\u0001"}"#,
            r#"{"s":"\u001F"}"#,
            r#"{"s":"\u000a"}"#,
            r#"{"s":"\/"}"#,
            r#"{"s":"\b"}"#,
            r#"{"s":"\u00e9"}"#,
            r#"{"s":"\x"}"#,
            "{\"s\":\"raw\ttab\"}",
            r#"/* c */{"a":1}"#,
            r#"{"a":1}// c"#,
            r#"{"big":18446744073709551616,"f":1.50,"e":1e3}"#,
            r#"{"a":}"#,
            r#"{"a":1"#,
            r#"{"a":tru}"#,
            r#"{"a":1-2}"#,
            r#""just a string""#,
            "",
        ];
        for t in texts {
            let expect = match tracescope_format::json::Value::parse(t) {
                Err(_) => Shape::Invalid,
                Ok(_) if compact(t) == t => Shape::Compact,
                Ok(_) => Shape::Loose,
            };
            assert_eq!(shape(t), expect, "{t}");
        }
    }

    #[test]
    fn depth_beyond_the_parsers_limit_is_invalid() {
        let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
        assert_eq!(shape(&deep), Shape::Invalid);
        let ok = format!("{}{}", "[".repeat(500), "]".repeat(500));
        assert_eq!(shape(&ok), Shape::Compact);
    }

    /// A leaf as the walk gives it, owned.
    type Owned = (String, String, String);

    fn show(v: LeafValue<'_>) -> String {
        match v {
            LeafValue::Int(i) => format!("int {i}"),
            LeafValue::Real(r) => format!("real {r:?}"),
            LeafValue::Str(s) => format!("str {s}"),
            LeafValue::Bool(b) => format!("bool {b}"),
        }
    }

    /// What parsing the compact form then flattening gives (the export's way
    /// before the walk): the reference the walk must equal.
    fn reference(text: &str) -> Vec<Owned> {
        use tracescope_format::json::Value as Json;
        fn flatten(v: &Json<'_>, flat: &str, key: &str, out: &mut Vec<Owned>) {
            let mut leaf = |value| out.push((flat.to_string(), key.to_string(), show(value)));
            match v {
                Json::Null => {}
                Json::Bool(b) => leaf(LeafValue::Bool(*b)),
                Json::Number(n) => leaf(match Int64::parse_number(n) {
                    Some(Int64::I(i)) => LeafValue::Int(i),
                    _ => LeafValue::Real(n.parse().unwrap_or(f64::NAN)),
                }),
                Json::String(s) => leaf(LeafValue::Str(s)),
                Json::Array(items) => {
                    for (i, it) in items.iter().enumerate() {
                        flatten(it, flat, &format!("{key}[{i}]"), out);
                    }
                }
                Json::Object(members) => {
                    for (k, it) in members {
                        flatten(it, &format!("{flat}.{k}"), &format!("{key}.{k}"), out);
                    }
                }
            }
        }
        let compact = compact(text);
        let mut out = Vec::new();
        if let Ok(v) = Json::parse(&compact) {
            flatten(&v, "args", "args", &mut out);
        }
        out
    }

    fn walked(w: &mut ArgWalk, text: &str) -> Vec<Owned> {
        w.walk(text);
        w.leaves(text)
            .map(|(f, k, v)| (f.to_string(), k.to_string(), show(v)))
            .collect()
    }

    #[test]
    fn known_compact_looks_at_spaces_and_escapes() {
        let yes = [
            r#"{"a":1,"b":[true,null,"x"],"c":{"d":-2.5e3}}"#,
            r#"{"q":"say\"hi\"\n","p":"C:\\dir","c":"\u001f"}"#,
            "{\"url\":\"https://example.com/a.js?v=1\",\"caf\u{e9}\":\"\u{7f}\"}",
            r#""top""#,
            "7",
            "{}",
        ];
        let no = [
            r#"{"a": 1}"#,
            r#"{"a":"x y"}"#,
            "{\"a\":\"\t\"}",
            "{\n\"a\":1}",
            r#"{"a":"\/"}"#,
            r#"{"a":"\u00e9"}"#,
            r#"{"a":"\u001F"}"#,
            r#"{"a":"\u000a"}"#,
            r#"{"a":"\\\/"}"#,
            r#"{"a":"x"} "#,
        ];
        for t in yes {
            assert!(known_compact(t), "{t}");
            assert_eq!(shape(t), Shape::Compact, "{t}");
        }
        for t in no {
            assert!(!known_compact(t), "{t}");
        }
        // Every place of the eight-byte scan: a space, or an escaped quote, at
        // each offset of strings of up to 24 bytes.
        for len in 1..24 {
            for at in 0..len {
                let mut body = vec![b'a'; len];
                body[at] = b' ';
                let t = format!("\"{}\"", String::from_utf8(body.clone()).unwrap());
                assert!(!known_compact(&t), "{t}");
                body[at] = b'\\';
                body.insert(at + 1, b'"');
                let t = format!("\"{}\"", String::from_utf8(body).unwrap());
                assert!(known_compact(&t), "{t}");
                assert_eq!(shape(&t), Shape::Compact, "{t}");
            }
        }
    }

    #[test]
    fn walk_flattens_as_parsing_the_compact_text_does() {
        let mut w = ArgWalk::default();
        let texts = [
            r#"{"a":{"b":{"c":1,"d":[1,[2,3],{"e":"x"}]}},"empty":{},"none":null,"list":[]}"#,
            r#"{"i":-7,"big":9223372036854775808,"huge":18446744073709551616,"f":1.50,"e":1e3,"one":1.0,"exp":1E400}"#,
            r#"{"q":"say \"hi\"","k\"ey":1,"caf\u00e9":"\ud83d\ude00","lone":"\ud800x","bad":"\x"}"#,
            r#" { "a" : 1 , "b" : [ 1 , 2 , ] , } "#,
            r#"{"k":1,"k":2,"t":true,"f":false}"#,
            r#"[1,{"a":[null,true]}]"#,
            r#""top""#,
            "7",
            r#"{"a":1"#,
            r#"{"a":"unterminated}"#,
            "",
        ];
        for t in texts {
            assert_eq!(walked(&mut w, t), reference(t), "{t}");
        }
    }

    /// JSON values (with optional spaces) whose leaves are any of the tokens.
    fn json() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = proptest::sample::select(vec![
            "1",
            "-0",
            "2.50",
            "1e3",
            "9223372036854775808",
            "true",
            "false",
            "null",
            "\"s\"",
            "\"a\\\"b\\n\"",
            "\"\\u00e9\\/\"",
            "\"\\u0001\"",
            "\"caf\u{e9}\"",
        ])
        .prop_map(str::to_string);
        leaf.prop_recursive(4, 32, 6, |inner| {
            let sp = proptest::sample::select(vec!["", "", " "]);
            prop_oneof![
                proptest::collection::vec((inner.clone(), sp.clone()), 0..5).prop_map(|v| {
                    let items: Vec<String> =
                        v.into_iter().map(|(x, s)| format!("{s}{x}")).collect();
                    format!("[{}]", items.join(","))
                }),
                proptest::collection::vec((0..3usize, inner, sp), 0..5).prop_map(|v| {
                    let m: Vec<String> = v
                        .into_iter()
                        .map(|(k, x, s)| format!("{s}\"{}\":{x}", ["a", "b\\\"", "c"][k]))
                        .collect();
                    format!("{{{}}}", m.join(","))
                }),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn walk_equals_the_reference_on_any_json(text in json()) {
            let mut w = ArgWalk::default();
            proptest::prop_assert_eq!(walked(&mut w, &text), reference(&text));
            let expect = if compact(&text) == text { Shape::Compact } else { Shape::Loose };
            proptest::prop_assert_eq!(shape(&text), expect);
            // These values have no comment or trailing comma: the quick look may
            // only say compact of compact text.
            if known_compact(&text) {
                proptest::prop_assert_eq!(shape(&text), Shape::Compact, "{}", text);
            }
        }

        #[test]
        fn space_or_backslash_finds_the_first(
            bytes in proptest::collection::vec(proptest::sample::select(vec![
                b'a', b' ', b'!', b'\\', b'"', 0x00, 0x1f, b'\n', 0x7f, 0x80, 0xa0, 0xff,
            ]), 0..70),
            from in 0usize..70,
        ) {
            let from = from.min(bytes.len());
            let naive = (from..bytes.len())
                .find(|&k| bytes[k] <= b' ' || bytes[k] == b'\\')
                .unwrap_or(bytes.len());
            proptest::prop_assert_eq!(space_or_backslash(&bytes, from), naive);
            proptest::prop_assert_eq!(space_or_backslash_words(&bytes, from), naive);
        }

        #[test]
        fn known_compact_is_only_said_of_compact_text(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "{", "}", "[", "]", ",", ":", "\"k\"", "\"a\\\"b\"", "\"\\\\\"",
                "\"\\u00e9\"", "\"\\/\"", "\"\\u0001\"", "\"\\u001F\"", "\"\\u000a\"",
                "\"\\n\\t\"", "\"\\\\n\"", "1", "-2.5", "true", "null", "\"x y\"", "\"\t\"",
                "\"\u{7f}\u{e9}\"",
            ]), 0..40),
        ) {
            let text: String = parts.concat();
            // What the load knows of args text: it parses, with no trailing
            // comma (these tokens hold no comment).
            let trailing = text.contains(",}") || text.contains(",]");
            if tracescope_format::json::Value::parse(&text).is_ok() && !trailing && known_compact(&text) {
                proptest::prop_assert_eq!(compact(&text), text.clone());
                proptest::prop_assert_eq!(shape(&text), Shape::Compact);
            }
        }

        #[test]
        fn walk_equals_the_reference_on_any_text(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "{", "}", "[", "]", ",", ":", " ", "\n", "/*c*/", "\"k\"", "\"a\\\"b\"",
                "\"\\u00e9\"", "\"\\/\"", "\"\\u0001\"", "1", "-2.5", "1e3", "1.0",
                "18446744073709551616", "true", "false", "null", "\"x\"", "\"\t\"",
            ]), 0..40),
        ) {
            let text: String = parts.concat();
            let mut w = ArgWalk::default();
            proptest::prop_assert_eq!(walked(&mut w, &text), reference(&text));
            let expect = match tracescope_format::json::Value::parse(&text) {
                Err(_) => Shape::Invalid,
                Ok(_) if compact(&text) == text => Shape::Compact,
                Ok(_) => Shape::Loose,
            };
            proptest::prop_assert_eq!(shape(&text), expect);
        }
    }
}
