//! Which `{` opens an event object ([`Lexer::is_event_start`]), and the first one
//! after an offset ([`Starts::find`]), in time linear in the text searched however
//! it nests.
//!
//! An event start is a `{` whose object parses (the lexer's tolerant grammar, any
//! depth), is not empty, has a `ph` key of its own and is followed by `,`, `]`, `{`
//! (a missing comma) or the end of the input. Nested objects in `args` are followed
//! by `}` or have no `ph`, so they are not taken. The answer depends only on the
//! text, so every part of a parallel read agrees on it.
//!
//! Testing each `{` on its own is quadratic where objects nest deeply: in args
//! nested `{"a":` four million levels deep, each of the four million `{` would parse
//! to the end. So the walk from one `{` settles every object it opens as well: an
//! object that closes is a start or not by the rule above, and one still open when
//! the walk fails (syntax, end of input) fails the same way when walked from its own
//! `{`. [`Starts`] remembers the objects found not to be starts, and later searches
//! skip them without a walk. The walk keeps its open objects in a compact stack (a
//! bit per level, four bytes per object), so memory stays below the size of the text
//! walked.

use super::lexer::{Fail, Lexer, Prefix, Scan};

/// Finds event starts, remembering the objects found not to be starts so that the
/// searches of one reader over the same text stay linear.
pub(crate) struct Starts<'a> {
    text: Prefix<'a>,
    not_start: Marks,
    /// Bytes a walk may go before it gives up and takes its `{` for no start.
    walk_limit: usize,
}

impl<'a> Starts<'a> {
    pub fn new(text: impl Into<Prefix<'a>>) -> Self {
        Starts {
            text: text.into(),
            not_start: Marks::default(),
            walk_limit: usize::MAX,
        }
    }

    /// For guesses only, which may be wrong: [`find`](Self::find) then passes over
    /// an event that spans more than `limit` bytes (and the objects open in it
    /// where its walk gave up), so a search walks each byte a bounded number of
    /// times however the text nests.
    pub fn guessing(text: impl Into<Prefix<'a>>, limit: usize) -> Self {
        Starts {
            walk_limit: limit,
            ..Starts::new(text)
        }
    }

    /// Whether an event object starts at `at` (see the module docs).
    pub fn is_start(&mut self, at: usize) -> bool {
        if self.text.as_bytes().get(at) != Some(&b'{') || self.not_start.get(at) {
            return false;
        }
        // Every object a walk marks lies after its start.
        self.not_start.begin(at);
        let mut open = Open::default();
        let mut lx = Lexer::quiet(self.text, at);
        let give_up = at.saturating_add(self.walk_limit);
        match walk(&mut lx, &mut open, &mut self.not_start, give_up) {
            Ok(Some(start)) => start,
            // Every object still open fails where this walk failed. When guessing,
            // those still open where the walk gave up are taken for no start too:
            // walked alone they would get at least as far.
            Ok(None) | Err(_) => {
                open.each_object(|q| self.not_start.set(q));
                false
            }
        }
    }

    /// The first event start in `from..limit`.
    pub fn find(&mut self, from: usize, limit: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let limit = limit.min(b.len());
        let mut i = from;
        while i < limit {
            let at = i + memchr::memchr(b'{', &b[i..limit])?;
            if self.is_start(at) {
                return Some(at);
            }
            i = at + 1;
        }
        None
    }
}

/// Walks the object at `lx.pos` (a `{`) to its end and says whether it is an event
/// start (`None` when it gives up, past `give_up`); marks each nested object that
/// closes and is not one.
fn walk(
    lx: &mut Lexer<'_>,
    open: &mut Open,
    not_start: &mut Marks,
    give_up: usize,
) -> Scan<Option<bool>> {
    /// What the walk expects next.
    enum Next {
        /// A value (after `:`, `[` or an array's `,`; first, the walk's own `{`).
        Value,
        /// A key, at its `"` (after an object's `{` or `,`).
        Key,
        /// A `,` or the closer of the innermost container.
        Separator,
    }
    let mut next = Next::Value;
    loop {
        if lx.pos > give_up {
            return Ok(None);
        }
        next = match next {
            Next::Value => {
                if let Some(b' ' | b'\n' | b'\r' | b'\t' | b'/') = lx.peek() {
                    lx.ws();
                }
                match lx.peek() {
                    Some(c @ (b'{' | b'[')) => {
                        let object = c == b'{';
                        open.push(object, lx.pos);
                        lx.pos += 1;
                        lx.ws();
                        let close = if object { b'}' } else { b']' };
                        if lx.peek() == Some(close) {
                            lx.pos += 1;
                            if let Some(start) = closed(lx, open, not_start) {
                                return Ok(Some(start));
                            }
                            Next::Separator
                        } else if object {
                            Next::Key
                        } else {
                            Next::Value
                        }
                    }
                    // Scalars: exactly as `Lexer::skip_value` reads them.
                    Some(_) => {
                        lx.skip_value(0)?;
                        Next::Separator
                    }
                    None => return Err(Fail::Eof),
                }
            }
            Next::Key => {
                match lx.peek() {
                    Some(b'"') => {}
                    Some(_) => return Err(Fail::Syntax(lx.pos)),
                    None => return Err(Fail::Eof),
                }
                let (key, _) = lx.string_str()?;
                open.key(key == "ph");
                lx.colon()?;
                Next::Value
            }
            Next::Separator => {
                let object = open.top_is_object();
                if lx.next_member(if object { b'}' } else { b']' })? {
                    if let Some(start) = closed(lx, open, not_start) {
                        return Ok(Some(start));
                    }
                    Next::Separator
                } else if object {
                    Next::Key
                } else {
                    Next::Value
                }
            }
        };
    }
}

/// After the closer of the innermost container: pops it. When it was the walk's
/// own object, returns whether that is an event start; a nested object that is not
/// one is marked.
fn closed(lx: &mut Lexer<'_>, open: &mut Open, not_start: &mut Marks) -> Option<bool> {
    let (at, has_ph, has_key) = open.pop()?;
    lx.ws();
    let start = has_key && has_ph && matches!(lx.peek(), None | Some(b',' | b']' | b'{'));
    if open.is_empty() {
        return Some(start);
    }
    if !start {
        not_start.set(at);
    }
    None
}

/// Offsets known not to be event starts: one bit per byte from the first one set,
/// grown as the searches go on.
#[derive(Default)]
struct Marks {
    base: usize,
    words: Vec<u64>,
}

impl Marks {
    fn get(&self, at: usize) -> bool {
        let Some(i) = at.checked_sub(self.base) else {
            return false;
        };
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Before marking offsets at or after `at`: the first call sets the base.
    fn begin(&mut self, at: usize) {
        if self.words.is_empty() {
            self.base = at & !63;
        }
    }

    fn set(&mut self, at: usize) {
        // An offset before the first one marked stays unknown: it is walked again.
        let Some(i) = at.checked_sub(self.base) else {
            return;
        };
        if self.words.len() <= i / 64 {
            self.words.resize(i / 64 + 1, 0);
        }
        self.words[i / 64] |= 1 << (i % 64);
    }
}

/// The containers a walk has open, innermost last: a bit per level (object or
/// array), and per object four bytes: the distance from the enclosing object's
/// offset to its own, whether it has a key, and whether one of them is `ph`.
#[derive(Default)]
struct Open {
    /// Bit `i`: level `i` is an object.
    kinds: Vec<u64>,
    levels: usize,
    objects: Vec<u32>,
    /// For each object whose distance does not fit 30 bits (marked `FAR`), the
    /// enclosing object's offset, innermost last.
    far: Vec<usize>,
    /// Offset of the innermost open object (0 when none).
    last: usize,
}

const HAS_KEY: u32 = 1 << 31;
const HAS_PH: u32 = 1 << 30;
const FAR: u32 = HAS_PH - 1;

impl Open {
    fn is_empty(&self) -> bool {
        self.levels == 0
    }

    fn top_is_object(&self) -> bool {
        let i = self.levels - 1;
        self.kinds[i / 64] & (1 << (i % 64)) != 0
    }

    fn push(&mut self, object: bool, at: usize) {
        let i = self.levels;
        if self.kinds.len() <= i / 64 {
            self.kinds.push(0);
        }
        if object {
            self.kinds[i / 64] |= 1 << (i % 64);
            let delta = at - self.last;
            if delta < FAR as usize {
                self.objects.push(delta as u32);
            } else {
                self.objects.push(FAR);
                self.far.push(self.last);
            }
            self.last = at;
        } else {
            self.kinds[i / 64] &= !(1 << (i % 64));
        }
        self.levels += 1;
    }

    /// A key of the innermost object (the walk only reads keys in objects).
    fn key(&mut self, is_ph: bool) {
        if let Some(o) = self.objects.last_mut() {
            *o |= HAS_KEY | if is_ph { HAS_PH } else { 0 };
        }
    }

    /// The offset of the object enclosing the one at `at` whose entry is `o`.
    fn parent(at: usize, o: u32, far: &mut impl Iterator<Item = usize>) -> usize {
        match o & FAR {
            FAR => far.next().unwrap_or(0),
            d => at - d as usize,
        }
    }

    /// Pops the innermost level; for an object, its offset and whether it has a
    /// `ph` key and any key.
    fn pop(&mut self) -> Option<(usize, bool, bool)> {
        let object = self.top_is_object();
        self.levels -= 1;
        if !object {
            return None;
        }
        let o = self.objects.pop()?;
        let at = self.last;
        let mut far = std::iter::from_fn(|| self.far.pop());
        self.last = Open::parent(at, o, &mut far);
        Some((at, o & HAS_PH != 0, o & HAS_KEY != 0))
    }

    /// Calls `f` with the offset of every open object.
    fn each_object(&self, mut f: impl FnMut(usize)) {
        let mut at = self.last;
        let mut far = self.far.iter().rev().copied();
        for &o in self.objects.iter().rev() {
            f(at);
            at = Open::parent(at, o, &mut far);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule tested on one `{` alone, as the reader did before `Starts`: a
    /// recursive walk (deep enough for these texts).
    fn naive(text: &str, at: usize) -> bool {
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

    /// Token soup: every `{` is judged as the one-at-a-time rule judges it, whether
    /// asked alone or after the searches that marked objects around it.
    #[test]
    fn remembered_answers_equal_the_rule() {
        const TOKENS: [&str; 16] = [
            "{",
            "}",
            "[",
            "]",
            "\"ph\"",
            "\"a\"",
            ":",
            ",",
            "1",
            "\"x{\"",
            " ",
            "/*c*/",
            "{\"ph\":1}",
            "\"",
            "\\",
            "{\"a\":",
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut checked = 0;
        for _ in 0..4000 {
            let mut text = String::new();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for _ in 0..(x % 60) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                text.push_str(TOKENS[(x % TOKENS.len() as u64) as usize]);
            }
            let mut shared = Starts::new(&text);
            let mut from = 0;
            while let Some(found) = shared.find(from, text.len()) {
                let first =
                    (from..text.len()).find(|&i| text.as_bytes()[i] == b'{' && naive(&text, i));
                assert_eq!(Some(found), first, "{text:?} from {from}");
                from = found + 1;
            }
            assert!(
                !(from..text.len()).any(|i| text.as_bytes()[i] == b'{' && naive(&text, i)),
                "{text:?}"
            );
            for (i, _) in text.match_indices('{') {
                assert_eq!(
                    Starts::new(&text).is_start(i),
                    naive(&text, i),
                    "{text:?} at {i}"
                );
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn deep_nesting_is_settled_in_one_walk() {
        let text = format!("[{{\"ph\":\"X\",\"args\":{}", "{\"a\":".repeat(100_000));
        let mut s = Starts::new(&text);
        assert_eq!(s.find(2, text.len()), None);
        // Every nested object was marked by the first walk.
        assert!((0..100_000).all(|k| s.not_start.get(18 + 5 * k)));
        let closed = format!("{}{{\"ph\":1}}{},", "[".repeat(70_000), "]".repeat(70_000));
        assert_eq!(Starts::new(&closed).find(0, closed.len()), Some(70_000));
    }

    #[test]
    fn far_objects_keep_their_offsets() {
        let mut o = Open::default();
        for (object, at) in [
            (true, 5),
            (false, 6),
            (true, 7),
            (true, 3 << 30),
            (true, (3 << 30) + 9),
        ] {
            o.push(object, at);
        }
        let mut seen = Vec::new();
        o.each_object(|a| seen.push(a));
        assert_eq!(seen, [(3 << 30) + 9, 3 << 30, 7, 5]);
        assert_eq!(o.pop().map(|p| p.0), Some((3 << 30) + 9));
        assert_eq!(o.pop().map(|p| p.0), Some(3 << 30));
        assert_eq!(o.pop().map(|p| p.0), Some(7));
        assert_eq!(o.pop(), None);
        assert_eq!(o.pop().map(|p| p.0), Some(5));
        assert!(o.is_empty());
    }
}
