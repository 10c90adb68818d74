//! Everything about one slice or async slice: fields, merged args, parents,
//! children, flows with their other ends, and the event's raw JSON text.

use super::flows::{end_id, end_place};
use super::tracks::TrackRef;
use super::QueryIndex;
use crate::strings::StrId;
use crate::tables::{AsyncSliceId, Ns, ProcessId, SliceId, SliceRef, ThreadId};
use crate::trace::Trace;

/// Children listed at most; `children_total` says how many there are.
pub const MAX_CHILDREN: usize = 1000;
/// Longest raw event text returned, in bytes.
pub const MAX_RAW: usize = 1 << 20;

/// Id, name and span of a related item.
#[derive(Clone, Debug, PartialEq)]
pub struct Brief {
    pub id: u32,
    pub name: StrId,
    pub ts: i64,
    pub dur: i64,
}

/// One end of a flow.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowEnd {
    pub item: SliceRef,
    pub name: StrId,
    pub ts: i64,
    pub thread: Option<ThreadId>,
    pub track: Option<TrackRef>,
    pub row: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlowInfo {
    /// Flow table row.
    pub id: u32,
    pub name: StrId,
    pub cat: StrId,
    pub from: FlowEnd,
    pub to: FlowEnd,
    pub from_ts: i64,
    pub to_ts: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Details {
    pub item: SliceRef,
    pub name: StrId,
    pub cat: StrId,
    pub ts: i64,
    pub dur: i64,
    /// Slices only.
    pub self_ns: Option<i64>,
    pub tts: Option<i64>,
    pub tdur: Option<i64>,
    pub depth: u32,
    pub did_not_finish: bool,
    pub overlap: bool,
    pub process: Option<ProcessId>,
    pub thread: Option<ThreadId>,
    pub track: TrackRef,
    /// Compact JSON of the merged args.
    pub args: Option<String>,
    /// Async slices: the id as written.
    pub async_id: Option<String>,
    pub color: StrId,
    /// Innermost first, root last.
    pub parents: Vec<Brief>,
    pub children: Vec<Brief>,
    pub children_total: usize,
    pub flows_in: Vec<FlowInfo>,
    pub flows_out: Vec<FlowInfo>,
    pub raw: String,
}

/// Details of slice row `id`, or `None` when there is no such row.
pub fn slice_details(trace: &Trace, index: &QueryIndex, id: u32) -> Option<Details> {
    let s = &trace.tables.slices;
    let i = id as usize;
    if i >= s.len() {
        return None;
    }
    let brief = |j: usize| Brief {
        id: j as u32,
        name: s.name[j],
        ts: s.ts(j),
        dur: s.dur(j),
    };
    let parents = chain(i, |j| s.parent[j].map(SliceId::index))
        .map(brief)
        .collect();
    // Children start inside the slice, after it in the track's start order.
    let track_end = s
        .tracks
        .iter()
        .find(|t| (t.rows.0 as usize..t.rows.1 as usize).contains(&i))
        .map_or(s.len(), |t| t.rows.1 as usize);
    let end = s.end(i);
    let kids = (i + 1..track_end)
        .take_while(|&j| s.ts(j) < end || (s.ts(j) == end && s.dur(i) == 0 && s.ts(j) == s.ts(i)))
        .filter(|&j| s.parent[j] == Some(SliceId::at(i)));
    let (children, children_total) = first_n(kids.map(brief));
    let thread = s.thread(i);
    let item = SliceRef::Thread(SliceId::at(i));
    Some(Details {
        item,
        name: s.name[i],
        cat: s.cat(i),
        ts: s.ts(i),
        dur: s.dur(i),
        self_ns: Some(s.self_ns(i)),
        tts: s.tts(i).map(Ns::get),
        tdur: s.tdur(i).map(Ns::get),
        depth: s.depth(i),
        did_not_finish: s.did_not_finish(i),
        overlap: s.overlap(i),
        process: Some(trace.thread(thread).process),
        thread: Some(thread),
        track: TrackRef::Slices {
            thread,
            lane: s.lane(i),
        },
        args: trace.merged_args(s.args(i), s.end_args(i)),
        async_id: None,
        color: s.cname(i),
        parents,
        children,
        children_total,
        flows_in: flows(trace, index, item, false),
        flows_out: flows(trace, index, item, true),
        raw: trace.event_text(s.offset(i)).to_string(),
    })
}

/// Details of async slice row `id`.
pub fn async_details(trace: &Trace, index: &QueryIndex, id: u32) -> Option<Details> {
    let a = &trace.tables.async_slices;
    let i = id as usize;
    if i >= a.len() {
        return None;
    }
    let brief = |j: usize| Brief {
        id: j as u32,
        name: a.name[j],
        ts: a.ts[j],
        dur: a.dur[j],
    };
    let parents = chain(i, |j| a.parent[j].map(AsyncSliceId::index))
        .map(brief)
        .collect();
    // An operation's rows are contiguous, its root first: the rows after `id` that
    // have a parent are still in the operation.
    let kids = (i + 1..a.len())
        .take_while(|&j| a.parent[j].is_some())
        .filter(|&j| a.parent[j] == Some(AsyncSliceId::at(i)));
    let (children, children_total) = first_n(kids.map(brief));
    let item = SliceRef::Async(AsyncSliceId::at(i));
    Some(Details {
        item,
        name: a.name[i],
        cat: a.cat[i],
        ts: a.ts[i],
        dur: a.dur[i],
        self_ns: None,
        tts: None,
        tdur: None,
        depth: a.depth[i],
        did_not_finish: a.did_not_finish[i],
        overlap: false,
        process: Some(a.process[i]),
        thread: a.thread[i],
        track: TrackRef::Async { group: a.group[i] },
        args: trace.merged_args(a.args[i], a.end_args[i]),
        async_id: trace.id_text(a.id[i]).map(|c| c.into_owned()),
        color: StrId::NONE,
        parents,
        children,
        children_total,
        flows_in: flows(trace, index, item, false),
        flows_out: flows(trace, index, item, true),
        raw: trace.event_text(a.offset[i]).to_string(),
    })
}

/// Ancestors of `id` through `parent`, innermost first (bounded, in case of a cycle).
fn chain(id: usize, parent: impl Fn(usize) -> Option<usize>) -> impl Iterator<Item = usize> {
    let mut cur = Some(id);
    std::iter::from_fn(move || {
        cur = parent(cur?);
        cur
    })
    .take(100_000)
}

fn first_n<T>(it: impl Iterator<Item = T>) -> (Vec<T>, usize) {
    let mut v = Vec::new();
    let mut n = 0;
    for x in it {
        if v.len() < MAX_CHILDREN {
            v.push(x);
        }
        n += 1;
    }
    (v, n)
}

fn flow_end(trace: &Trace, r: SliceRef, ts: i64, thread: Option<ThreadId>) -> FlowEnd {
    let t = &trace.tables;
    let i = end_id(r) as usize;
    let name = match r {
        SliceRef::Thread(_) => t.slices.name.get(i),
        SliceRef::Async(_) => t.async_slices.name.get(i),
    };
    let place = end_place(trace, r);
    FlowEnd {
        item: r,
        name: name.copied().unwrap_or(StrId::NONE),
        ts,
        thread,
        track: place.map(|p| p.0),
        row: place.map_or(0, |p| p.1),
    }
}

fn flows(trace: &Trace, index: &QueryIndex, item: SliceRef, out: bool) -> Vec<FlowInfo> {
    let f = &trace.tables.flows;
    index
        .flows(trace)
        .of(item, out)
        .into_iter()
        .map(|k| {
            let k = k as usize;
            FlowInfo {
                id: k as u32,
                name: f.name[k],
                cat: f.cat[k],
                from: flow_end(trace, f.from[k], f.from_ts[k], f.from_thread[k]),
                to: flow_end(trace, f.to[k], f.to_ts[k], f.to_thread[k]),
                from_ts: f.from_ts[k],
                to_ts: f.to_ts[k],
            }
        })
        .collect()
}

/// The JSON object text that starts at `offset` (after any whitespace), found by
/// matching braces outside strings. Empty when there is no object there (events
/// that did not come from JSON text); cut at [`MAX_RAW`] bytes.
pub fn raw_event(text: &str, offset: u64) -> &str {
    let Ok(start) = usize::try_from(offset) else {
        return "";
    };
    let Some(rest) = text.get(start..) else {
        return "";
    };
    let rest = rest.trim_start();
    if !rest.starts_with('{') {
        return "";
    }
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for (k, &b) in rest.as_bytes().iter().enumerate().take(MAX_RAW) {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return &rest[..=k];
                }
            }
            _ => {}
        }
    }
    // Unclosed or too long: the text read, cut at a character boundary.
    let mut end = rest.len().min(MAX_RAW);
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    &rest[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LoadOptions, Trace};

    #[test]
    fn raw_text_matches_braces_outside_strings() {
        let text = r#"[ {"a":"}{\"","b":{"c":[1,{}]}} ,{"x":1}]"#;
        assert_eq!(raw_event(text, 1), r#"{"a":"}{\"","b":{"c":[1,{}]}}"#);
        assert_eq!(raw_event(text, 0), "");
        assert_eq!(raw_event(text, 999), "");
        assert_eq!(raw_event(r#"{"a":"#, 0), r#"{"a":"#);
    }

    #[test]
    fn slice_details_have_parents_children_args_and_raw() {
        let json = r#"[
          {"ph":"B","name":"outer","pid":1,"tid":1,"ts":0,"args":{"a":1,"b":2}},
          {"ph":"X","name":"mid","pid":1,"tid":1,"ts":1,"dur":8},
          {"ph":"X","name":"leaf1","pid":1,"tid":1,"ts":2,"dur":1},
          {"ph":"X","name":"leaf2","pid":1,"tid":1,"ts":4,"dur":1},
          {"ph":"E","pid":1,"tid":1,"ts":10,"args":{"b":3}}]"#;
        let t = Trace::from_json(Box::new(json.to_string()), 0, &LoadOptions::default()).unwrap();
        let idx = QueryIndex::new(&t);
        let s = &t.tables.slices;
        let row = |name: &str| (0..s.len()).find(|&i| t.str(s.name[i]) == name).unwrap() as u32;
        let d = slice_details(&t, &idx, row("leaf2")).unwrap();
        let names: Vec<_> = d.parents.iter().map(|b| t.str(b.name)).collect();
        assert_eq!(names, ["mid", "outer"]);
        assert_eq!((d.ts, d.dur, d.depth), (4000, 1000, 2));
        assert_eq!(
            d.raw,
            r#"{"ph":"X","name":"leaf2","pid":1,"tid":1,"ts":4,"dur":1}"#
        );
        let d = slice_details(&t, &idx, row("mid")).unwrap();
        let kids: Vec<_> = d.children.iter().map(|b| t.str(b.name)).collect();
        assert_eq!((kids, d.children_total), (vec!["leaf1", "leaf2"], 2));
        let d = slice_details(&t, &idx, row("outer")).unwrap();
        assert_eq!(d.args.as_deref(), Some(r#"{"a":1,"b":3}"#));
        assert_eq!(d.children_total, 1);
        assert_eq!(d.self_ns, Some(2000));
        assert!(slice_details(&t, &idx, s.len() as u32).is_none());
        assert!(async_details(&t, &idx, 0).is_none());
    }
}
