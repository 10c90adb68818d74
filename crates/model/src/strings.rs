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
pub struct LocalStrings<'a, 's> {
    shared: &'s SharedStrings,
    cache: FxHashMap<Box<str>, StrId>,
    /// Interned strings borrow the input for `'a`.
    input: std::marker::PhantomData<&'a str>,
}

impl<'a, 's> LocalStrings<'a, 's> {
    pub fn new(shared: &'s SharedStrings) -> Self {
        LocalStrings {
            shared,
            cache: FxHashMap::default(),
            input: std::marker::PhantomData,
        }
    }

    /// Interns a string borrowed from the input or owned.
    // A `&Cow` as the callers hold one.
    #[allow(clippy::ptr_arg)]
    pub fn intern_cow(&mut self, s: &std::borrow::Cow<'a, str>) -> StrId {
        self.intern_any(s)
    }

    /// Interns a string of any lifetime.
    pub fn intern_any(&mut self, s: &str) -> StrId {
        if s.is_empty() {
            return StrId::NONE;
        }
        if let Some(&id) = self.cache.get(s) {
            return id;
        }
        let id = self.shared.intern(s);
        self.cache.insert(s.into(), id);
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
