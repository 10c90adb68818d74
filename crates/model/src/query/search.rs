//! Search by name: each distinct interned name is matched once (substring or regex,
//! case-insensitive), then the rows carrying a matching name id are collected in
//! time order, keeping the first `limit` and counting all.

use std::collections::BinaryHeap;

use rayon::prelude::*;
use regex::{Regex, RegexBuilder};

use super::QueryIndex;

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

/// How many slices, async slices and instants carry each name (by `StrId`), so a
/// search's total is a sum over the matching names, without a scan.
#[derive(Debug, Default)]
pub struct NameCounts {
    counts: Vec<u64>,
}

impl NameCounts {
    pub fn build(trace: &Trace) -> NameCounts {
        let t = &trace.tables;
        let mut counts = vec![0u64; t.strings.len()];
        for n in t
            .slices
            .name
            .iter()
            .chain(&t.async_slices.name)
            .chain(&t.instants.name)
        {
            if let Some(c) = counts.get_mut(n.0 as usize) {
                *c += 1;
            }
        }
        NameCounts { counts }
    }

    pub fn heap_bytes(&self) -> usize {
        self.counts.capacity() * 8
    }
}

/// Matches of `pat` among slice, async slice and instant names.
pub fn search(trace: &Trace, index: &QueryIndex, pat: &Pattern, limit: usize) -> Hits {
    let t = &trace.tables;
    let strings = &t.strings;
    // One flag per interned string: does the name match? (Matched once per name.)
    let names: Vec<bool> = (0..strings.len())
        .map(|k| k > 0 && pat.matches(strings.get(StrId(k as u32))))
        .collect();
    let counts = index.name_counts(trace);
    let total = names
        .iter()
        .zip(&counts.counts)
        .filter(|(m, _)| **m)
        .map(|(_, c)| c)
        .sum();
    let mut out = Hits {
        total,
        hits: Vec::new(),
    };
    if total == 0 || limit == 0 {
        return out;
    }
    let hit = |n: StrId| names.get(n.0 as usize).copied().unwrap_or(false);
    // Slices are sorted by time within each track: the first `limit` matches of
    // each track are the only candidates, found in parallel, stopping early.
    let s = &t.slices;
    let mut cands: Vec<Hit> = s
        .tracks
        .par_iter()
        .flat_map_iter(|tr| {
            (tr.rows.0..tr.rows.1)
                .filter(|&i| hit(s.name[i as usize]))
                .take(limit)
                .map(|i| Hit {
                    ts: s.ts[i as usize],
                    kind: HitKind::Slice,
                    id: i,
                })
                .collect::<Vec<_>>()
        })
        .collect();
    // Instants are sorted by time too.
    let ins = &t.instants;
    cands.extend(
        (0..ins.len())
            .filter(|&i| hit(ins.name[i]))
            .take(limit)
            .map(|i| Hit {
                ts: ins.ts[i],
                kind: HitKind::Instant,
                id: i as u32,
            }),
    );
    // Async slices are grouped by operation: keep the best `limit` with a heap.
    let a = &t.async_slices;
    let mut heap: BinaryHeap<Hit> = BinaryHeap::with_capacity(limit + 1);
    for i in (0..a.len()).filter(|&i| hit(a.name[i])) {
        let h = Hit {
            ts: a.ts[i],
            kind: HitKind::Async,
            id: i as u32,
        };
        if heap.len() < limit {
            heap.push(h);
        } else if heap.peek().is_some_and(|top| h < *top) {
            heap.pop();
            heap.push(h);
        }
    }
    cands.extend(heap);
    cands.sort_unstable();
    cands.truncate(limit);
    out.hits = cands;
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
        let h = search(
            &t,
            &QueryIndex::new(&t),
            &Pattern::new("TASK", false).unwrap(),
            100,
        );
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
        let h = search(
            &t,
            &QueryIndex::new(&t),
            &Pattern::new("task", false).unwrap(),
            2,
        );
        assert_eq!((h.total, h.hits.len(), h.hits[1].ts), (4, 2, 3000));
        assert_eq!(
            search(
                &t,
                &QueryIndex::new(&t),
                &Pattern::new("nothing", false).unwrap(),
                10
            ),
            Hits::default()
        );
    }

    #[test]
    fn regex_matches_whole_names_when_anchored() {
        let t = trace();
        let h = search(
            &t,
            &QueryIndex::new(&t),
            &Pattern::new("^(run|paint)", true).unwrap(),
            10,
        );
        let names: Vec<_> = h
            .hits
            .iter()
            .map(|h| t.str(t.tables.slices.name[h.id as usize]))
            .collect();
        assert_eq!(names, ["runMicrotasks", "Paint", "RunTask"]);
        assert!(Pattern::new("(", true).is_err());
    }
}
