//! Search by name: each distinct interned name is matched once (substring or regex,
//! case-insensitive), then the rows carrying a matching name id are collected in
//! time order, keeping the first `limit` and counting all.

use std::collections::BinaryHeap;

use regex::{Regex, RegexBuilder};

use crate::strings::StrId;
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

/// A match: ordered by time, then kind, then row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    pub ts: i64,
    pub kind: HitKind,
    pub id: u32,
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
}

/// Matches of `pat` among slice, async slice and instant names.
pub fn search(trace: &Trace, pat: &Pattern, limit: usize) -> Hits {
    let t = &trace.tables;
    let strings = &t.strings;
    // One bit per interned string: does the name match? (Matched once per name.)
    let mut names = vec![false; strings.len()];
    let mut any = false;
    for (k, slot) in names.iter_mut().enumerate().skip(1) {
        *slot = pat.matches(strings.get(StrId(k as u32)));
        any |= *slot;
    }
    let mut out = Hits::default();
    if !any {
        return out;
    }
    // Max-heap of the best `limit` hits so far.
    let mut heap: BinaryHeap<Hit> = BinaryHeap::with_capacity(limit + 1);
    let mut scan = |kind: HitKind, name: &[StrId], ts: &[i64]| {
        for (i, n) in name.iter().enumerate() {
            if !names.get(n.0 as usize).copied().unwrap_or(false) {
                continue;
            }
            out.total += 1;
            let h = Hit {
                ts: ts[i],
                kind,
                id: i as u32,
            };
            if heap.len() < limit {
                heap.push(h);
            } else if heap.peek().is_some_and(|top| h < *top) {
                heap.pop();
                heap.push(h);
            }
        }
    };
    scan(HitKind::Slice, &t.slices.name, &t.slices.ts);
    scan(HitKind::Async, &t.async_slices.name, &t.async_slices.ts);
    scan(HitKind::Instant, &t.instants.name, &t.instants.ts);
    out.hits = heap.into_sorted_vec();
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

    #[test]
    fn substring_is_case_insensitive_and_in_time_order() {
        let t = trace();
        let h = search(&t, &Pattern::new("TASK", false).unwrap(), 100);
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
        let h = search(&t, &Pattern::new("task", false).unwrap(), 2);
        assert_eq!((h.total, h.hits.len(), h.hits[1].ts), (4, 2, 3000));
        assert_eq!(
            search(&t, &Pattern::new("nothing", false).unwrap(), 10),
            Hits::default()
        );
    }

    #[test]
    fn regex_matches_whole_names_when_anchored() {
        let t = trace();
        let h = search(&t, &Pattern::new("^(run|paint)", true).unwrap(), 10);
        let names: Vec<_> = h
            .hits
            .iter()
            .map(|h| t.str(t.tables.slices.name[h.id as usize]))
            .collect();
        assert_eq!(names, ["runMicrotasks", "Paint", "RunTask"]);
        assert!(Pattern::new("(", true).is_err());
    }
}
