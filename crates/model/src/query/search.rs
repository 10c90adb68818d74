//! Search over slices, async slices and instants: their names, categories, arg
//! values and ids (an async operation's id, the id of a flow leaving the item),
//! by substring or regex, case-insensitive.
//!
//! Every match is found: the trace is scanned in windows of time, in time order,
//! each window in parallel, and each window's matches are handed over sorted as
//! soon as it is done, so the first matches come quickly and the rest stream in.
//! Strings (names, categories, string ids) are matched once per distinct string.
//! Args are kept as text: a regex relaxed from the pattern (anchors and word
//! boundaries dropped, so it can only match more) runs over the raw text, JSON
//! escapes decoded; only the items it passes are walked value by value (keys are
//! not values: `"url"` finds an arg whose value has "url" in it, not every arg
//! named url).

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use regex::{Regex, RegexBuilder};
use regex_syntax::hir::{Hir, HirKind};
use tracescope_format::json::value::unescape;

use super::QueryIndex;

use crate::args::TextRef;
use crate::strings::StrId;
use crate::tables::{IdVal, SliceRef};
use crate::trace::Trace;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HitKind {
    Slice,
    Async,
    Instant,
}

impl HitKind {
    pub fn as_str(self) -> &'static str {
        match self {
            HitKind::Slice => "slice",
            HitKind::Async => "async",
            HitKind::Instant => "instant",
        }
    }
}

/// What a match was found in (an item matching in several is reported once, for
/// the first of these).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    Name,
    Category,
    Id,
    Args,
}

impl Field {
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Category => "cat",
            Field::Id => "id",
            Field::Args => "args",
        }
    }
}

/// A match: ordered by time, then kind, then row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    pub ts: i64,
    pub kind: HitKind,
    pub id: u32,
    pub field: Field,
}

#[derive(Debug, Default, PartialEq)]
pub struct Hits {
    pub total: u64,
    /// The first `limit` matches in time order.
    pub hits: Vec<Hit>,
}

pub enum Pattern {
    /// Lowercased needle.
    Substring(String),
    Regex(Regex),
}

/// Longest compiled regex accepted, in bytes (bounds the cost of a request).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

impl Pattern {
    /// A case-insensitive pattern; an invalid regex is an error message.
    pub fn new(q: &str, regex: bool) -> Result<Pattern, String> {
        if !regex {
            return Ok(Pattern::Substring(q.to_lowercase()));
        }
        RegexBuilder::new(q)
            .case_insensitive(true)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map(Pattern::Regex)
            .map_err(|e| format!("bad regex: {e}"))
    }

    pub fn matches(&self, s: &str) -> bool {
        match self {
            Pattern::Substring(n) => {
                if s.is_ascii() && n.is_ascii() {
                    s.as_bytes()
                        .windows(n.len().max(1))
                        .any(|w| w.eq_ignore_ascii_case(n.as_bytes()))
                        || n.is_empty()
                } else {
                    s.to_lowercase().contains(n.as_str())
                }
            }
            Pattern::Regex(r) => r.is_match(s),
        }
    }

    /// A byte regex that matches any text containing a value this pattern
    /// matches: the substring as a literal, or the regex without its
    /// look-arounds (`^`, `$`, `\b`), which only makes it match more.
    fn relaxed(&self) -> regex::bytes::Regex {
        let source = match self {
            Pattern::Substring(n) => regex::escape(n),
            Pattern::Regex(r) => regex_syntax::ParserBuilder::new()
                .case_insensitive(true)
                .build()
                .parse(r.as_str())
                .map_or_else(|_| String::new(), |h| without_looks(&h).to_string()),
        };
        regex::bytes::RegexBuilder::new(&source)
            .case_insensitive(true)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            // A regex that cannot be relaxed: every text passes to the exact test.
            .unwrap_or_else(|_| regex::bytes::Regex::new("").expect("empty regex"))
    }
}

/// `h` with every look-around assertion replaced by the empty match.
fn without_looks(h: &Hir) -> Hir {
    match h.kind() {
        HirKind::Look(_) => Hir::empty(),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) => h.clone(),
        HirKind::Repetition(r) => {
            let mut r = r.clone();
            r.sub = Box::new(without_looks(&r.sub));
            Hir::repetition(r)
        }
        HirKind::Capture(c) => {
            let mut c = c.clone();
            c.sub = Box::new(without_looks(&c.sub));
            Hir::capture(c)
        }
        HirKind::Concat(v) => Hir::concat(v.iter().map(without_looks).collect()),
        HirKind::Alternation(v) => Hir::alternation(v.iter().map(without_looks).collect()),
    }
}

/// Where to look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fields {
    pub names: bool,
    pub cats: bool,
    pub args: bool,
    pub ids: bool,
}

impl Fields {
    pub const ALL: Fields = Fields {
        names: true,
        cats: true,
        args: true,
        ids: true,
    };
    pub const NAMES: Fields = Fields {
        names: true,
        cats: false,
        args: false,
        ids: false,
    };

    /// A comma-separated list of `names`, `cats`, `args`, `ids`.
    pub fn parse(list: &str) -> Option<Fields> {
        let mut f = Fields {
            names: false,
            cats: false,
            args: false,
            ids: false,
        };
        for part in list.split(',') {
            match part {
                "names" | "name" => f.names = true,
                "cats" | "cat" | "categories" => f.cats = true,
                "args" => f.args = true,
                "ids" | "id" => f.ids = true,
                _ => return None,
            }
        }
        Some(f)
    }
}

/// A search: what to look for and where.
pub struct SearchQuery {
    pub pattern: Pattern,
    pub fields: Fields,
    raw: regex::bytes::Regex,
}

impl SearchQuery {
    pub fn new(pattern: Pattern, fields: Fields) -> SearchQuery {
        let raw = pattern.relaxed();
        SearchQuery {
            pattern,
            fields,
            raw,
        }
    }

    /// Whether a value of the raw args JSON text matches.
    fn args_match(&self, raw: &str) -> bool {
        if raw.is_empty() {
            return false;
        }
        // Decoding every escape of the text keeps each string value whole in it.
        let text = unescape(raw);
        if !self.raw.is_match(text.as_bytes()) {
            return false;
        }
        let mut found = false;
        each_value(raw, &mut |v, escaped| {
            found = if escaped {
                self.pattern.matches(&unescape(v))
            } else {
                self.pattern.matches(v)
            };
            !found
        });
        found
    }
}

/// Calls `f` with every value of a JSON text that is not an object or an array
/// (a string's body as written and whether it has escapes; a number or a literal
/// as written), keys left out, until `f` returns false. Tolerates what the reader
/// tolerates (comments, trailing commas).
fn each_value(text: &str, f: &mut dyn FnMut(&str, bool) -> bool) {
    let b = text.as_bytes();
    // Containers open: true for an object.
    let mut objects: Vec<bool> = Vec::new();
    let mut key_next = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => {
                objects.push(true);
                key_next = true;
            }
            b'[' => {
                objects.push(false);
                key_next = false;
            }
            b'}' | b']' => {
                objects.pop();
                key_next = false;
            }
            b',' => key_next = objects.last() == Some(&true),
            b':' => key_next = false,
            b'"' => {
                let start = i + 1;
                let mut j = start;
                let mut escaped = false;
                while j < b.len() && b[j] != b'"' {
                    if b[j] == b'\\' {
                        escaped = true;
                        j += 1;
                    }
                    j += 1;
                }
                let end = j.min(b.len());
                if !key_next && !f(&text[start..end], escaped) {
                    return;
                }
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            c if c.is_ascii_whitespace() => {}
            _ => {
                let start = i;
                while i < b.len()
                    && !matches!(b[i], b',' | b']' | b'}' | b':' | b'"')
                    && !b[i].is_ascii_whitespace()
                {
                    i += 1;
                }
                if !key_next && !f(&text[start..i], false) {
                    return;
                }
                continue;
            }
        }
        i += 1;
    }
}

/// Orders the search needs that the tables do not have, built once.
#[derive(Debug, Default)]
pub struct SearchIndex {
    /// Async slice rows by start.
    async_by_ts: Vec<u32>,
    /// Flow rows by the start of the item they leave: (that start, flow).
    flows_by_from: Vec<(i64, u32)>,
}

impl SearchIndex {
    pub fn build(trace: &Trace) -> SearchIndex {
        let t = &trace.tables;
        let a = &t.async_slices;
        let mut async_by_ts: Vec<u32> = (0..a.len() as u32).collect();
        async_by_ts.sort_by_key(|&i| (a.ts[i as usize], i));
        let f = &t.flows;
        let mut flows_by_from: Vec<(i64, u32)> = (0..f.len())
            .filter_map(|k| Some((from_item(trace, f.from[k])?.0, k as u32)))
            .collect();
        flows_by_from.sort_unstable();
        SearchIndex {
            async_by_ts,
            flows_by_from,
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.async_by_ts.capacity() * 4 + self.flows_by_from.capacity() * 16
    }
}

/// The start, kind and row of the item a flow leaves.
fn from_item(trace: &Trace, r: SliceRef) -> Option<(i64, HitKind, u32)> {
    let t = &trace.tables;
    match r {
        SliceRef::Thread(i) => {
            let k = i.index();
            (k < t.slices.len()).then(|| (t.slices.ts(k), HitKind::Slice, i.raw()))
        }
        SliceRef::Async(i) => Some((*t.async_slices.ts.get(i.index())?, HitKind::Async, i.raw())),
    }
}

/// Rows per piece of parallel work.
const PIECE: usize = 1 << 15;
/// The first window is this fraction of the trace; each next one twice the last.
const FIRST_WINDOW: i64 = 1 << 12;

/// Finds every match, window by window in time order, and gives each window's
/// matches (sorted, possibly none) to `sink`. Stops early when `cancel` is set.
pub fn search_windows(
    trace: &Trace,
    index: &QueryIndex,
    q: &SearchQuery,
    cancel: &AtomicBool,
    mut sink: impl FnMut(Vec<Hit>),
) {
    let t = &trace.tables;
    // One flag per interned string (names, categories, string ids), matched once.
    let strings: Vec<bool> = (0..t.strings.len())
        .into_par_iter()
        .map(|k| k > 0 && q.pattern.matches(t.strings.get(StrId(k as u32))))
        .collect();
    let si = index.search_index(trace);
    let Some((lo, hi)) = item_bounds(trace) else {
        return;
    };
    let span = (hi as i128 - lo as i128).max(1);
    let mut a = lo;
    let mut step = (span / FIRST_WINDOW as i128).max(1);
    loop {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        let b = if a as i128 + step > hi as i128 {
            i64::MAX
        } else {
            a + step as i64
        };
        sink(window(trace, si, q, &strings, a, b));
        if b == i64::MAX {
            return;
        }
        a = b;
        step *= 2;
    }
}

/// The smallest and largest start of any slice, async slice or instant.
fn item_bounds(trace: &Trace) -> Option<(i64, i64)> {
    let t = &trace.tables;
    let mut b: Option<(i64, i64)> = None;
    let mut add = |ts: i64| b = Some(b.map_or((ts, ts), |(x, y)| (x.min(ts), y.max(ts))));
    for tr in &t.slices.tracks {
        add(t.slices.ts(tr.rows.0 as usize));
        add(t.slices.ts(tr.rows.1 as usize - 1));
    }
    if let (Some(&f), Some(&l)) = (t.instants.ts.first(), t.instants.ts.last()) {
        add(f);
        add(l);
    }
    for &ts in &t.async_slices.ts {
        add(ts);
    }
    b
}

/// Rows of a time-sorted column (or an order of rows) starting in `[a, b)`.
fn starting_in(ts: &[i64], a: i64, b: i64) -> std::ops::Range<usize> {
    let x = ts.partition_point(|&v| v < a);
    x..x + ts[x..].partition_point(|&v| v < b)
}

/// The matches starting in `[a, b)`, sorted, each item once.
fn window(
    trace: &Trace,
    si: &SearchIndex,
    q: &SearchQuery,
    strings: &[bool],
    a: i64,
    b: i64,
) -> Vec<Hit> {
    let t = &trace.tables;
    let f = q.fields;
    let str_hit = |s: StrId| strings.get(s.0 as usize).copied().unwrap_or(false);
    let args_hit = |x: TextRef, y: TextRef| {
        f.args
            && (!x.is_none() && q.args_match(&trace.raw(x))
                || !y.is_none() && q.args_match(&trace.raw(y)))
    };
    let field = |name: StrId, cat: StrId, id: Option<IdVal>, args: TextRef, end: TextRef| {
        if f.names && str_hit(name) {
            Some(Field::Name)
        } else if f.cats && str_hit(cat) {
            Some(Field::Category)
        } else if f.ids && id.is_some_and(|id| id_hit(trace, q, strings, id)) {
            Some(Field::Id)
        } else if args_hit(args, end) {
            Some(Field::Args)
        } else {
            None
        }
    };
    // Pieces of rows: (kind, first, last) over slice rows, async order, instants.
    let mut pieces: Vec<(HitKind, usize, usize)> = Vec::new();
    let mut cut = |kind: HitKind, r: std::ops::Range<usize>| {
        let mut x = r.start;
        while x < r.end {
            let y = (x + PIECE).min(r.end);
            pieces.push((kind, x, y));
            x = y;
        }
    };
    let s = &t.slices;
    for tr in &s.tracks {
        let (lo, hi) = (tr.rows.0 as usize, tr.rows.1 as usize);
        let x = s.ts_partition_point(lo..hi, |v| v < a);
        cut(HitKind::Slice, x..s.ts_partition_point(x..hi, |v| v < b));
    }
    cut(HitKind::Instant, starting_in(&t.instants.ts, a, b));
    let asy = &t.async_slices;
    let x = si.async_by_ts.partition_point(|&i| asy.ts[i as usize] < a);
    let y = x + si.async_by_ts[x..].partition_point(|&i| asy.ts[i as usize] < b);
    cut(HitKind::Async, x..y);
    let mut hits: Vec<Hit> = pieces
        .into_par_iter()
        .flat_map_iter(|(kind, x, y)| {
            let mut out = Vec::new();
            for k in x..y {
                let (row, ts, found) = match kind {
                    HitKind::Slice => (
                        k,
                        s.ts(k),
                        field(s.name[k], s.cat(k), None, s.args(k), s.end_args(k)),
                    ),
                    HitKind::Instant => {
                        let ins = &t.instants;
                        let m = field(ins.name[k], ins.cat[k], None, ins.args[k], TextRef::NONE);
                        (k, ins.ts[k], m)
                    }
                    HitKind::Async => {
                        let i = si.async_by_ts[k] as usize;
                        let m = field(
                            asy.name[i],
                            asy.cat[i],
                            Some(asy.id[i]),
                            asy.args[i],
                            asy.end_args[i],
                        );
                        (i, asy.ts[i], m)
                    }
                };
                if let Some(field) = found {
                    out.push(Hit {
                        ts,
                        kind,
                        id: row as u32,
                        field,
                    });
                }
            }
            out
        })
        .collect();
    if f.ids {
        let fl = &t.flows;
        let x = si.flows_by_from.partition_point(|e| e.0 < a);
        let y = x + si.flows_by_from[x..].partition_point(|e| e.0 < b);
        for &(_, k) in &si.flows_by_from[x..y] {
            if id_hit(trace, q, strings, fl.id[k as usize]) {
                if let Some((ts, kind, id)) = from_item(trace, fl.from[k as usize]) {
                    hits.push(Hit {
                        ts,
                        kind,
                        id,
                        field: Field::Id,
                    });
                }
            }
        }
    }
    hits.sort_unstable();
    hits.dedup_by(|x, y| (x.ts, x.kind, x.id) == (y.ts, y.kind, y.id));
    hits
}

/// Whether an id as written matches (integers as decimal text).
fn id_hit(trace: &Trace, q: &SearchQuery, strings: &[bool], id: IdVal) -> bool {
    match id {
        IdVal::None => false,
        IdVal::Str(s) => strings.get(s.0 as usize).copied().unwrap_or(false),
        IdVal::Int(_) => trace
            .id_text(id)
            .is_some_and(|text| q.pattern.matches(&text)),
    }
}

/// Every match at once: how many, and the first `limit` in time order.
pub fn search(trace: &Trace, index: &QueryIndex, q: &SearchQuery, limit: usize) -> Hits {
    let mut out = Hits::default();
    search_windows(trace, index, q, &AtomicBool::new(false), |w| {
        out.total += w.len() as u64;
        let room = limit.saturating_sub(out.hits.len());
        out.hits.extend(w.into_iter().take(room));
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LoadOptions, Trace};

    fn trace() -> Trace {
        let json = r#"[
          {"ph":"X","name":"RunTask","pid":1,"tid":1,"ts":5,"dur":1},
          {"ph":"X","name":"runMicrotasks","pid":1,"tid":2,"ts":1,"dur":1},
          {"ph":"X","name":"Paint","pid":1,"tid":1,"ts":2,"dur":1},
          {"ph":"i","name":"TaskMark","pid":1,"tid":1,"ts":3,"s":"t"},
          {"ph":"b","name":"AsyncTask","cat":"c","id":1,"pid":1,"tid":1,"ts":4},
          {"ph":"e","name":"AsyncTask","cat":"c","id":1,"pid":1,"tid":1,"ts":9}]"#;
        Trace::from_json(Box::new(json.to_string()), 0, &LoadOptions::default()).unwrap()
    }

    fn names(q: &str, regex: bool) -> SearchQuery {
        SearchQuery::new(Pattern::new(q, regex).unwrap(), Fields::NAMES)
    }

    #[test]
    fn substring_is_case_insensitive_and_in_time_order() {
        let t = trace();
        let idx = QueryIndex::new(&t);
        let h = search(&t, &idx, &names("TASK", false), 100);
        let got: Vec<_> = h.hits.iter().map(|h| (h.ts, h.kind)).collect();
        assert_eq!(
            got,
            vec![
                (1000, HitKind::Slice),
                (3000, HitKind::Instant),
                (4000, HitKind::Async),
                (5000, HitKind::Slice)
            ]
        );
        assert_eq!(h.total, 4);
        let h = search(&t, &idx, &names("task", false), 2);
        assert_eq!((h.total, h.hits.len(), h.hits[1].ts), (4, 2, 3000));
        assert_eq!(
            search(&t, &idx, &names("nothing", false), 10),
            Hits::default()
        );
    }

    #[test]
    fn regex_matches_whole_names_when_anchored() {
        let t = trace();
        let h = search(&t, &QueryIndex::new(&t), &names("^(run|paint)", true), 10);
        let names: Vec<_> = h
            .hits
            .iter()
            .map(|h| t.str(t.tables.slices.name[h.id as usize]))
            .collect();
        assert_eq!(names, ["runMicrotasks", "Paint", "RunTask"]);
        assert!(Pattern::new("(", true).is_err());
    }

    #[test]
    fn values_are_found_keys_are_not() {
        let mut seen = Vec::new();
        each_value(
            r#"{"url":"a\"b","n":[1,{"k":true}], /* c */ "x":null,}"#,
            &mut |v, e| {
                seen.push((v.to_string(), e));
                true
            },
        );
        let want = [
            ("a\\\"b", true),
            ("1", false),
            ("true", false),
            ("null", false),
        ];
        assert_eq!(seen, want.map(|(v, e)| (v.to_string(), e)));
        let q = SearchQuery::new(Pattern::new("A\"B", false).unwrap(), Fields::ALL);
        assert!(q.args_match(r#"{"url":"a\"b"}"#));
        assert!(!q.args_match(r#"{"a\"b":1}"#));
        // Anchors hold per value, though the relaxed prefilter ignores them.
        let q = SearchQuery::new(Pattern::new("^b$", true).unwrap(), Fields::ALL);
        assert!(q.args_match(r#"{"x":"a","y":"B"}"#));
        assert!(!q.args_match(r#"{"x":"ab"}"#));
        let q = SearchQuery::new(Pattern::new(r"\d{20}", true).unwrap(), Fields::ALL);
        assert!(q.args_match(r#"{"id":14107898137686480567}"#));
    }
}
