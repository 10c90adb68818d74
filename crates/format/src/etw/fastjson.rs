//! Cheap checks for the JSON texts the Chrome mapping writes (compact strings,
//! integers, small objects), so decoding need not build a [`Value`] tree per
//! argument. Each check is conservative: `None`/`false` only means "not proven",
//! and callers then use the full, tolerant [`Value::parse`], so results never differ
//! from it.
//!
//! [`Value`]: crate::json::Value
//! [`Value::parse`]: crate::json::Value::parse

/// Nesting the strict check follows before giving up (the tolerant parser allows
/// more; deeper texts just take the slow path).
const DEPTH: u32 = 64;

/// The body of a JSON string literal that spans all of `text` and has no escape or
/// control character, so the body is the string's value.
pub(crate) fn simple_string(text: &str) -> Option<&str> {
    let body = text.strip_prefix('"')?.strip_suffix('"')?;
    body.bytes()
        .all(|b| b != b'"' && b != b'\\' && b >= 0x20)
        .then_some(body)
}

/// `Some(value)` when `text` is exactly a JSON integer (`-?(0|[1-9][0-9]*)`), the
/// value being `None` when it does not fit an i64 (as `str::parse` says).
/// One pass that checks and accumulates: `str::parse` after a check read every
/// digit twice, and a CTF load reads a duration or a time this way per event.
pub(crate) fn simple_int(text: &str) -> Option<Option<i64>> {
    let (negative, digits) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        all => (false, all),
    };
    match digits {
        [b'0'] => return Some(Some(0)),
        [b'1'..=b'9', ..] => {}
        _ => return None,
    }
    // Accumulated below zero, where i64::MIN fits (its magnitude does not).
    let mut below = Some(0i64);
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        below = below
            .and_then(|b| b.checked_mul(10))
            .and_then(|b| b.checked_sub(i64::from(c - b'0')));
    }
    Some(below.and_then(|b| if negative { Some(b) } else { b.checked_neg() }))
}

/// Whether `text` is one strict JSON value with no whitespace around or inside it
/// (what compact writers produce). `false` proves nothing.
pub(crate) fn is_compact_json(text: &str) -> bool {
    let b = text.as_bytes();
    let mut pos = 0;
    value(b, &mut pos, 0) && pos == b.len()
}

/// The members of a compact JSON object (see [`is_compact_json`]) as the raw bodies
/// of their keys (between the quotes, still escaped) and the raw text of their
/// values, in written order; `None` when `text` is not proven to be one.
pub(crate) fn compact_members(text: &str) -> Option<Vec<(&str, &str)>> {
    if !text.starts_with('{') || !is_compact_json(text) {
        return None;
    }
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 1;
    // Validated above: every step below succeeds.
    while b[pos] != b'}' {
        let k = pos;
        string(b, &mut pos);
        let key = &text[k + 1..pos - 1];
        pos += 1; // ':'
        let v = pos;
        value(b, &mut pos, 1);
        out.push((key, &text[v..pos]));
        if b[pos] == b',' {
            pos += 1;
        }
    }
    Some(out)
}

fn value(b: &[u8], pos: &mut usize, depth: u32) -> bool {
    if depth > DEPTH {
        return false;
    }
    match b.get(*pos) {
        Some(b'"') => string(b, pos),
        Some(b'{') => {
            *pos += 1;
            if b.get(*pos) == Some(&b'}') {
                *pos += 1;
                return true;
            }
            loop {
                if !string(b, pos) || b.get(*pos) != Some(&b':') {
                    return false;
                }
                *pos += 1;
                if !value(b, pos, depth + 1) {
                    return false;
                }
                match b.get(*pos) {
                    Some(b',') => *pos += 1,
                    Some(b'}') => {
                        *pos += 1;
                        return true;
                    }
                    _ => return false,
                }
            }
        }
        Some(b'[') => {
            *pos += 1;
            if b.get(*pos) == Some(&b']') {
                *pos += 1;
                return true;
            }
            loop {
                if !value(b, pos, depth + 1) {
                    return false;
                }
                match b.get(*pos) {
                    Some(b',') => *pos += 1,
                    Some(b']') => {
                        *pos += 1;
                        return true;
                    }
                    _ => return false,
                }
            }
        }
        Some(b't') => word(b, pos, b"true"),
        Some(b'f') => word(b, pos, b"false"),
        Some(b'n') => word(b, pos, b"null"),
        Some(b'-' | b'0'..=b'9') => number(b, pos),
        _ => false,
    }
}

fn word(b: &[u8], pos: &mut usize, w: &[u8]) -> bool {
    let ok = b[*pos..].starts_with(w);
    *pos += w.len();
    ok
}

fn digits(b: &[u8], pos: &mut usize) -> usize {
    let start = *pos;
    while b.get(*pos).is_some_and(u8::is_ascii_digit) {
        *pos += 1;
    }
    *pos - start
}

fn number(b: &[u8], pos: &mut usize) -> bool {
    if b[*pos] == b'-' {
        *pos += 1;
    }
    match b.get(*pos) {
        Some(b'0') => *pos += 1,
        Some(b'1'..=b'9') => {
            digits(b, pos);
        }
        _ => return false,
    }
    if b.get(*pos) == Some(&b'.') {
        *pos += 1;
        if digits(b, pos) == 0 {
            return false;
        }
    }
    if matches!(b.get(*pos), Some(b'e' | b'E')) {
        *pos += 1;
        if matches!(b.get(*pos), Some(b'+' | b'-')) {
            *pos += 1;
        }
        if digits(b, pos) == 0 {
            return false;
        }
    }
    true
}

fn string(b: &[u8], pos: &mut usize) -> bool {
    if b.get(*pos) != Some(&b'"') {
        return false;
    }
    *pos += 1;
    loop {
        *pos += first_special(&b[*pos..]);
        match b.get(*pos) {
            Some(b'"') => {
                *pos += 1;
                return true;
            }
            Some(b'\\') => {}
            // A control character, or the end without a closing quote.
            _ => return false,
        }
        // An escape: one of JSON's, or \u and four hex digits.
        match b.get(*pos + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => *pos += 2,
            Some(b'u') => {
                let hex = b.get(*pos + 2..*pos + 6);
                if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                    return false;
                }
                *pos += 6;
            }
            _ => return false,
        }
    }
}

/// Word-at-a-time byte tests (also [`crate::ctf`]'s string scan): the low and the
/// high bit of every byte of a `u64`.
pub(crate) const LOW_BITS: u64 = 0x0101_0101_0101_0101;
pub(crate) const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The flags of the bytes of `w` that a JSON string cannot hold as they are: `"`,
/// `\\` and control characters. The lowest flag is exact (a borrow only runs upward
/// from a flagged byte); flags above it may be false.
#[inline(always)]
fn special_bytes(w: u64) -> u64 {
    let zero = |x: u64| x.wrapping_sub(LOW_BITS) & !x;
    let control = w.wrapping_sub(0x20 * LOW_BITS) & !w;
    (zero(w ^ (u64::from(b'"') * LOW_BITS)) | zero(w ^ (u64::from(b'\\') * LOW_BITS)) | control)
        & HIGH_BITS
}

/// Where the first `"`, `\\` or control character of `b` is (`b.len()` without
/// one), eight bytes at a time: the strings the Chrome mapping writes are short, so
/// this beats a `memchr2` call plus a second pass for control characters.
#[inline]
pub(crate) fn first_special(b: &[u8]) -> usize {
    let mut words = b.chunks_exact(8);
    for (i, w) in words.by_ref().enumerate() {
        let flags = special_bytes(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        if flags != 0 {
            return 8 * i + flags.trailing_zeros() as usize / 8;
        }
    }
    let tail = words.remainder();
    let n = tail
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .unwrap_or(tail.len());
    b.len() - tail.len() + n
}

/// Appends `s` as a JSON string literal, as [`write_string`] does; a string with
/// nothing to escape (the usual case) is copied whole.
///
/// [`write_string`]: crate::json::value::write_string
pub(crate) fn push_string(s: &str, out: &mut String) {
    if first_special(s.as_bytes()) == s.len() {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        crate::json::value::write_string(s, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Value;

    #[test]
    fn strict_texts_are_proven_and_agree_with_the_parser() {
        let good = [
            "0",
            "-12",
            "1.5e-3",
            "\"a\\\"b\\u00e9\"",
            "true",
            "null",
            "[]",
            "{}",
            "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}",
            "[false,-0.0,\"\"]",
        ];
        for t in good {
            assert!(is_compact_json(t), "{t}");
            assert!(Value::parse(t).is_ok(), "{t}");
        }
        let unproven = [
            "",
            " 1",
            "1 ",
            "01",
            "1.",
            "-",
            "[1,]",
            "{\"a\" :1}",
            "\"\\x\"",
            "\"a",
            "tru",
            "{\"a\":1",
            "\"\u{1}\"",
            "nul",
            "[1]]",
            "1e",
        ];
        for t in unproven {
            assert!(!is_compact_json(t), "{t}");
        }
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(!is_compact_json(&deep));
    }

    #[test]
    fn members_of_compact_objects() {
        assert_eq!(
            compact_members(r#"{"a":1,"b\"":{"c":[2,"]"]},"a":"x"}"#),
            Some(vec![
                ("a", "1"),
                ("b\\\"", r#"{"c":[2,"]"]}"#),
                ("a", "\"x\"")
            ])
        );
        assert_eq!(compact_members("{}"), Some(vec![]));
        assert_eq!(compact_members("[1]"), None);
        assert_eq!(compact_members("{\"a\": 1}"), None);
    }

    /// The word-at-a-time search finds the first byte a byte-by-byte one finds, at
    /// every position in a word and past the words, with other special bytes after
    /// it; strings written through it equal `write_string`'s.
    #[test]
    fn first_special_byte_and_plain_strings() {
        let naive = |b: &[u8]| {
            b.iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                .unwrap_or(b.len())
        };
        let fills: [&[u8]; 3] = [
            b"abcdefghijklmnopqrstuvwxyz",
            b"\x7f\x80\xff!#[]~",
            b" \x21\x5b\x5d",
        ];
        for len in 0..40 {
            for fill in fills {
                let base: Vec<u8> = fill.iter().copied().cycle().take(len).collect();
                assert_eq!(first_special(&base), naive(&base), "{base:?}");
                for at in 0..len {
                    for special in [b'"', b'\\', 0, 0x1f, b'\n'] {
                        for after in [b'"', 0u8, 0x80, b'x'] {
                            let mut b = base.clone();
                            b[at] = special;
                            if at + 1 < len {
                                b[at + 1] = after;
                            }
                            assert_eq!(first_special(&b), naive(&b), "{b:?}");
                        }
                    }
                }
            }
        }
        for s in [
            "",
            "plain",
            "caf\u{e9} \u{1f600}",
            "a\"b",
            "back\\slash",
            "tab\tnl\n",
            "\u{1}ctl",
            "0123456789abcdef\"",
        ] {
            let (mut fast, mut slow) = (String::new(), String::new());
            push_string(s, &mut fast);
            crate::json::value::write_string(s, &mut slow);
            assert_eq!(fast, slow, "{s:?}");
        }
    }

    #[test]
    fn simple_scalars() {
        assert_eq!(simple_string("\"X\""), Some("X"));
        assert_eq!(simple_string("\"a\\nb\""), None);
        assert_eq!(simple_string("\""), None);
        assert_eq!(simple_int("900"), Some(Some(900)));
        assert_eq!(simple_int("-0"), Some(Some(0)));
        assert_eq!(simple_int("99999999999999999999"), Some(None));
        assert_eq!(simple_int("1.0"), None);
        assert_eq!(simple_int("007"), None);
        assert_eq!(simple_int("-"), None);
        assert_eq!(simple_int("-9223372036854775808"), Some(Some(i64::MIN)));
        assert_eq!(simple_int("9223372036854775807"), Some(Some(i64::MAX)));
        assert_eq!(simple_int("9223372036854775808"), Some(None));
        assert_eq!(simple_int("-9223372036854775809"), Some(None));
    }

    proptest::proptest! {
        /// The one-pass integer is the checked grammar then `str::parse`, on
        /// integers of every length and sign and on near misses.
        #[test]
        fn simple_int_is_the_grammar_then_parse(text in "-?[0-9]{0,21}[.e+ x-]?[0-9]{0,3}") {
            let digits = text.strip_prefix('-').unwrap_or(&text).as_bytes();
            let grammar = match digits {
                [b'0'] => true,
                [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
                _ => false,
            };
            let want = grammar.then(|| text.parse::<i64>().ok());
            proptest::prop_assert_eq!(simple_int(&text), want);
        }
    }
}
