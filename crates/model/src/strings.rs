//! Interned strings: names, categories, arg keys are stored once; tables hold ids.

use std::sync::Mutex;

use rustc_hash::FxHashMap;

/// An interned string. `StrId::NONE` (0) is the empty string and means "absent".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StrId(pub u32);

impl StrId {
    pub const NONE: StrId = StrId(0);

    pub fn is_none(self) -> bool {
        self.0 == 0
    }

    pub fn opt(self) -> Option<StrId> {
        (!self.is_none()).then_some(self)
    }
}

/// The table of interned strings.
#[derive(Clone, Debug)]
pub struct StringTable {
    strings: Vec<Box<str>>,
    map: FxHashMap<Box<str>, StrId>,
}

impl Default for StringTable {
    fn default() -> Self {
        let mut t = StringTable {
            strings: Vec::new(),
            map: FxHashMap::default(),
        };
        t.intern("");
        t
    }
}

impl StringTable {
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.map.get(s) {
            return id;
        }
        let id = StrId(self.strings.len() as u32);
        self.strings.push(s.into());
        self.map.insert(s.into(), id);
        id
    }

    pub fn get(&self, id: StrId) -> &str {
        self.strings.get(id.0 as usize).map_or("", |s| s)
    }

    /// Looks a string up without adding it.
    pub fn find(&self, s: &str) -> Option<StrId> {
        self.map.get(s).copied()
    }

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.len() <= 1
    }

    /// Bytes held, for memory accounting.
    pub fn heap_bytes(&self) -> usize {
        self.strings.iter().map(|s| s.len() * 2 + 40).sum()
    }
}

/// The string table shared by parts read in parallel. Each part keeps a cache of
/// the strings it has seen, so the lock is taken once per distinct string per part.
#[derive(Debug, Default)]
pub struct SharedStrings(Mutex<StringTable>);

impl SharedStrings {
    pub fn intern(&self, s: &str) -> StrId {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).intern(s)
    }

    /// A copy of an interned string.
    pub fn get(&self, id: StrId) -> String {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .to_string()
    }

    pub fn into_inner(self) -> StringTable {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// A copy of the table so far (a followed trace builds each version from one).
    pub(crate) fn copy(&self) -> SharedStrings {
        SharedStrings(Mutex::new(
            self.0.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        ))
    }
}

/// A part's cache in front of [`SharedStrings`].
///
/// Keyed by copies of the strings, not by the input text they were first seen in:
/// a name first seen megabytes back was compared there, a cache miss per lookup
/// (the copies of a part's few hundred distinct strings stay in cache).
///
/// In front of that map, a direct-mapped table of `SLOTS` slots keyed by a
/// string's length and its first and last eight bytes (`sketch`): names and
/// categories recur on almost every event, and a hit there costs two loads, one
/// multiplication and a compare, where the map hashed the whole string, probed,
/// and called `memcmp`. A slot holds all the bytes of a string of at most 16
/// bytes; a longer one's middle is compared with the map's copy.
pub struct LocalStrings<'a, 's> {
    shared: &'s SharedStrings,
    cache: FxHashMap<Box<str>, StrId>,
    slots: Box<[Slot]>,
    /// Interned strings borrow the input for `'a`.
    input: std::marker::PhantomData<&'a str>,
}

/// How many slots the front table has (a power of two). Only the slots in use take
/// room in the CPU's cache, so it can be much larger than the hot set.
const SLOTS: usize = 2048;

/// One entry of the front table; `len == 0` is empty (the empty string is never
/// cached: it is [`StrId::NONE`]).
#[derive(Clone, Copy)]
struct Slot {
    head: u64,
    tail: u64,
    len: u32,
    id: StrId,
    /// The map's copy of the string (its key's bytes, which never move: keys are
    /// boxed and never removed), for the middle of strings over 16 bytes.
    text: *const u8,
}

impl Default for Slot {
    fn default() -> Self {
        Slot {
            head: 0,
            tail: 0,
            len: 0,
            id: StrId::NONE,
            text: std::ptr::null(),
        }
    }
}

// SAFETY: `Slot::text` points into a key of the same `LocalStrings`'s map, which it
// owns (the keys move with it and are only read); nothing else shares them.
unsafe impl Send for LocalStrings<'_, '_> {}

/// A string's first and last eight bytes (for 4 to 7 bytes, its first and last
/// four in `head`; for 1 to 3, its first, middle and last byte): with its length,
/// all of a string of at most 16 bytes.
#[inline(always)]
fn sketch(s: &[u8]) -> (u64, u64) {
    let n = s.len();
    let word = |i: usize| u64::from_le_bytes(s[i..i + 8].try_into().unwrap());
    let half = |i: usize| u32::from_le_bytes(s[i..i + 4].try_into().unwrap()) as u64;
    if n >= 8 {
        (word(0), word(n - 8))
    } else if n >= 4 {
        (half(0) | half(n - 4) << 32, 0)
    } else if n > 0 {
        (
            s[0] as u64 | (s[n / 2] as u64) << 8 | (s[n - 1] as u64) << 16,
            0,
        )
    } else {
        (0, 0)
    }
}

/// The slot of a sketch.
#[inline(always)]
fn slot_of(head: u64, tail: u64, len: usize) -> usize {
    let h = (head ^ tail.rotate_left(29) ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> (64 - SLOTS.trailing_zeros())) as usize
}

/// Whether the bytes of `s` between its first and last eight equal those of
/// `text` (a string of the same length, over 16 bytes), a word at a time.
#[inline(always)]
fn same_middle(s: &[u8], text: &[u8]) -> bool {
    let n = s.len();
    let word = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    let mut i = 8;
    while i + 8 < n {
        if word(s, i) != word(text, i) {
            return false;
        }
        i += 8;
    }
    true
}

impl<'a, 's> LocalStrings<'a, 's> {
    pub fn new(shared: &'s SharedStrings) -> Self {
        LocalStrings {
            shared,
            cache: FxHashMap::default(),
            slots: Box::default(),
            input: std::marker::PhantomData,
        }
    }

    /// Frees the table and the map once the part is read (a load holds its parts
    /// until the read ends: 64 KiB of slots a part was 80 MiB at 10 GB). Interning
    /// still works after, from the shared table.
    pub fn release(&mut self) {
        self.slots = Box::default();
        self.cache = FxHashMap::default();
    }

    /// Interns a string borrowed from the input or owned.
    // A `&Cow` as the callers hold one.
    #[allow(clippy::ptr_arg)]
    #[inline]
    pub fn intern_cow(&mut self, s: &std::borrow::Cow<'a, str>) -> StrId {
        self.intern_any(s)
    }

    /// Interns a string of any lifetime.
    #[inline]
    pub fn intern_any(&mut self, s: &str) -> StrId {
        let b = s.as_bytes();
        let n = b.len();
        if n == 0 {
            return StrId::NONE;
        }
        let (head, tail) = sketch(b);
        let at = slot_of(head, tail, n);
        // The table is made by the first miss (and is empty again once released).
        if let Some(slot) = self.slots.get(at) {
            if slot.len as usize == n && slot.head == head && slot.tail == tail {
                // SAFETY: a slot of length `n` points to `n` bytes of a key of the
                // map (see `Slot::text`).
                if n <= 16 || same_middle(b, unsafe { std::slice::from_raw_parts(slot.text, n) }) {
                    return slot.id;
                }
            }
        }
        self.intern_slow(s, at, head, tail)
    }

    /// A string not in its slot: the map, else the shared table; then the slot.
    #[inline(never)]
    fn intern_slow(&mut self, s: &str, at: usize, head: u64, tail: u64) -> StrId {
        let (text, id) = match self.cache.get_key_value(s) {
            Some((k, &id)) => (k.as_ptr(), id),
            None => {
                let id = self.shared.intern(s);
                let key: Box<str> = s.into();
                let text = key.as_ptr();
                self.cache.insert(key, id);
                (text, id)
            }
        };
        if self.slots.is_empty() {
            self.slots = vec![Slot::default(); SLOTS].into_boxed_slice();
        }
        if let Ok(len) = u32::try_from(s.len()) {
            self.slots[at] = Slot {
                head,
                tail,
                len,
                id,
                text,
            };
        }
        id
    }

    /// Interns a string of the input.
    #[inline]
    pub fn intern(&mut self, s: &'a str) -> StrId {
        self.intern_any(s)
    }

    pub fn shared(&self) -> &'s SharedStrings {
        self.shared
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Strings that share lengths, first and last bytes and sketches: only their
    /// middles (or one byte) tell them apart.
    fn near_strings() -> impl Strategy<Value = Vec<String>> {
        let one = (0usize..40, any::<u64>(), 0u8..4).prop_map(|(len, seed, alphabet)| {
            let chars: &[char] = match alphabet {
                0 => &['a', 'b'],
                1 => &['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
                2 => &['a', 'é', '€', 'x'],
                _ => &['x'],
            };
            let mut x = seed | 1;
            (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    chars[(x % chars.len() as u64) as usize]
                })
                .collect::<String>()
        });
        proptest::collection::vec(one, 1..300)
    }

    proptest! {
        /// Whatever the slots hold, every lookup gives the shared table's id of that
        /// very string (and `NONE` for the empty one).
        #[test]
        fn front_table_gives_the_strings_id(strings in near_strings(), repeats in 1usize..4) {
            let shared = SharedStrings::default();
            let mut local = LocalStrings::new(&shared);
            for round in 0..repeats {
                // A part's table is released once it is read; later lookups (a
                // second round here) must still give the same ids.
                if round == 1 {
                    local.release();
                    prop_assert!(local.slots.is_empty() && local.cache.is_empty());
                }
                for s in &strings {
                    let id = local.intern_any(s);
                    if s.is_empty() {
                        prop_assert_eq!(id, StrId::NONE);
                    } else {
                        prop_assert_eq!(shared.get(id), s.as_str());
                        prop_assert_eq!(Some(id), shared.0.lock().unwrap().find(s));
                    }
                }
            }
        }
    }

    /// Strings that differ only in their middle, and all land in one slot when the
    /// table is full of others: each keeps its own id.
    #[test]
    fn middles_and_collisions() {
        let shared = SharedStrings::default();
        let mut local = LocalStrings::new(&shared);
        let mut all: Vec<String> = Vec::new();
        for len in 17..60 {
            for k in 0..3 {
                let mut s = "a".repeat(len);
                s.replace_range(8 + k..9 + k, "b");
                all.push(s);
            }
        }
        for i in 0..20_000 {
            all.push(format!("id{i:08x}"));
        }
        for _ in 0..2 {
            for s in &all {
                let id = local.intern_any(s);
                assert_eq!(shared.get(id), *s);
            }
        }
    }
}
