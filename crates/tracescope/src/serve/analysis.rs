//! The analysis endpoints: `/api/range`, `/api/range/slices`, `/api/profile` and
//! `/api/object/{id}` (docs/api.md), over `tracescope_model::analysis`.

use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use tracescope_model::analysis::{
    call_tree, counter_stats, slice_stats, slices_in_group, thread_key, GroupBy, GroupKey,
    NameFilter, Selection, TreeView,
};
use tracescope_model::query::tracks::exists;
use tracescope_model::query::TrackRef;
use tracescope_model::{SeriesId, StrId, ThreadId, Trace};

use super::encode::args_json;
use super::json::Obj;
use super::routes::{bad, not_found, parse_id, run, ApiError, AppState, Params, St};

const MAX_GROUP_LIMIT: usize = 100_000;
const MAX_NODES: usize = 1_000_000;
const DEFAULT_NODES: usize = 20_000;

/// `tracks=`: comma-separated track ids that exist.
fn tracks(s: &AppState, p: &Params) -> Result<Option<Vec<TrackRef>>, ApiError> {
    let Some(list) = p.get("tracks") else {
        return Ok(None);
    };
    list.split(',')
        .map(|id| {
            TrackRef::parse(id)
                .filter(|&r| exists(&s.trace, &s.index, r))
                .ok_or_else(|| bad(format!("no such track {id:?}")))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn group_by(p: &Params) -> Result<GroupBy, ApiError> {
    GroupBy::parse(p.get("by").unwrap_or("name"))
        .ok_or_else(|| bad("by must be name, thread or category"))
}

/// `name=`: an exact name; a name no slice has matches nothing.
fn name_filter(trace: &Trace, p: &Params) -> NameFilter {
    match p.get("name") {
        None => NameFilter(None),
        Some(n) => NameFilter(Some(
            trace.tables.strings.find(n).unwrap_or(StrId(u32::MAX)),
        )),
    }
}

fn selection(s: &AppState, p: &Params) -> Result<Selection, ApiError> {
    let (t0, t1) = p.window()?;
    Ok(Selection {
        t0,
        t1,
        tracks: tracks(s, p)?,
    })
}

pub async fn range(State(s): St, RawQuery(q): RawQuery) -> Response {
    run(s, move |s| {
        let p = Params::parse(q)?;
        let sel = selection(s, &p)?;
        let by = group_by(&p)?;
        let st = slice_stats(&s.trace, &sel, by, name_filter(&s.trace, &p));
        let t = &s.trace;
        let g = &st.groups;
        let keys: Vec<String> = g
            .iter()
            .map(|g| match g.key {
                GroupKey::Str(id) => t.str(id).to_string(),
                GroupKey::Thread(th) => thread_key(t, th),
            })
            .collect();
        let groups = Obj::new()
            .strs("key", keys.iter().map(String::as_str))
            .nums(
                "thread",
                g.iter().map(|g| match g.key {
                    GroupKey::Thread(th) => th.raw() as i64,
                    GroupKey::Str(_) => -1,
                }),
            )
            .nums("count", g.iter().map(|g| g.count))
            .nums("total", g.iter().map(|g| g.total))
            .nums("self", g.iter().map(|g| g.self_ns))
            .nums("in_range", g.iter().map(|g| g.in_range))
            .nums(
                "thread_total",
                g.iter().map(|g| g.thread_total.unwrap_or(-1)),
            )
            .nums("avg", g.iter().map(|g| g.avg()))
            .nums("min", g.iter().map(|g| g.min))
            .nums("max", g.iter().map(|g| g.max))
            .nums("did_not_finish", g.iter().map(|g| g.did_not_finish))
            .finish();
        let cs = counter_stats(t, &sel);
        let series = &t.tables.counters.series;
        let counters = Obj::new()
            .strs(
                "track",
                cs.iter()
                    .map(|c| {
                        TrackRef::Counter {
                            series: SeriesId::new(c.series),
                        }
                        .to_string()
                    })
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str),
            )
            .strs(
                "name",
                cs.iter().map(|c| t.str(series[c.series as usize].counter)),
            )
            .strs(
                "series",
                cs.iter().map(|c| t.str(series[c.series as usize].series)),
            )
            .nums("count", cs.iter().map(|c| c.count))
            .floats("min", cs.iter().map(|c| c.min))
            .floats("max", cs.iter().map(|c| c.max))
            .floats("avg", cs.iter().map(|c| c.avg))
            .floats("first", cs.iter().map(|c| c.first))
            .floats("last", cs.iter().map(|c| c.last))
            .floats("delta", cs.iter().map(|c| c.delta()))
            .finish();
        Ok(Obj::new()
            .num("t0", sel.t0)
            .num("t1", sel.t1)
            .str("by", by.as_str())
            .num("slices", st.slices)
            .raw("groups", &groups)
            .raw("counters", &counters)
            .finish())
    })
    .await
}

pub async fn range_slices(State(s): St, RawQuery(q): RawQuery) -> Response {
    run(s, move |s| {
        let p = Params::parse(q)?;
        let sel = selection(s, &p)?;
        let by = group_by(&p)?;
        let key = p.need("key")?;
        let t = &s.trace;
        let key = match by {
            GroupBy::Thread => GroupKey::Thread(ThreadId::new(
                parse_id(key).map_err(|_| bad("key must be a thread id when by=thread"))?,
            )),
            _ => GroupKey::Str(t.tables.strings.find(key).unwrap_or(StrId(u32::MAX))),
        };
        let limit = p.count("limit", 1, MAX_GROUP_LIMIT, Some(1000))?;
        let (ids, total) = slices_in_group(t, &sel, by, key, name_filter(t, &p), limit);
        let sl = &t.tables.slices;
        let tracks: Vec<String> = ids
            .iter()
            .map(|&i| {
                let i = i as usize;
                TrackRef::Slices {
                    thread: sl.thread[i],
                    lane: sl.lane[i],
                }
                .to_string()
            })
            .collect();
        Ok(Obj::new()
            .num("total", total)
            .nums("id", ids.iter())
            .nums("ts", ids.iter().map(|&i| sl.ts[i as usize]))
            .nums("dur", ids.iter().map(|&i| sl.dur[i as usize]))
            .strs("track", tracks.iter().map(String::as_str))
            .nums("row", ids.iter().map(|&i| sl.depth[i as usize]))
            .finish())
    })
    .await
}

pub async fn profile(State(s): St, RawQuery(q): RawQuery) -> Response {
    run(s, move |s| {
        let p = Params::parse(q)?;
        let (t0, t1) = match (p.get("t0"), p.get("t1")) {
            (None, None) => (i64::MIN, i64::MAX),
            _ => p.window()?,
        };
        let sel = Selection {
            t0,
            t1,
            tracks: tracks(s, &p)?,
        };
        let view = TreeView::parse(p.get("view").unwrap_or("top-down"))
            .ok_or_else(|| bad("view must be top-down or bottom-up"))?;
        let max = p.count("max_nodes", 1, MAX_NODES, Some(DEFAULT_NODES))?;
        let tree = call_tree(&s.trace, &sel, view, max);
        Ok(encode_tree(&s.trace, &tree))
    })
    .await
}

fn encode_tree(t: &Trace, tree: &tracescope_model::analysis::CallTree) -> String {
    let mut strings: Vec<StrId> = Vec::new();
    let mut index = rustc_hash::FxHashMap::default();
    let mut id = |s: StrId| -> i64 {
        if s.is_none() {
            return -1;
        }
        *index.entry(s).or_insert_with(|| {
            strings.push(s);
            strings.len() as i64 - 1
        })
    };
    let n = &tree.nodes;
    let names: Vec<i64> = n.iter().map(|n| id(n.function.name).max(0)).collect();
    let urls: Vec<i64> = n.iter().map(|n| id(n.function.url)).collect();
    // The frame table keeps V8's 0-based positions; people read 1-based ones.
    let one_based = |v: Option<i64>| v.map_or(-1, |v| v + 1);
    let nodes = Obj::new()
        .nums(
            "parent",
            n.iter().map(|n| n.parent.map_or(-1, |p| p as i64)),
        )
        .nums("depth", n.iter().map(|n| n.depth))
        .nums("name", names)
        .nums("url", urls)
        .nums("line", n.iter().map(|n| one_based(n.function.line)))
        .nums("column", n.iter().map(|n| one_based(n.function.column)))
        .nums("self", n.iter().map(|n| n.self_ns))
        .nums("total", n.iter().map(|n| n.total_ns))
        .nums("self_samples", n.iter().map(|n| n.self_samples))
        .nums("total_samples", n.iter().map(|n| n.total_samples))
        .finish();
    if strings.is_empty() {
        // Name index 0 of an unnamed frame must exist.
        strings.push(StrId::NONE);
    }
    Obj::new()
        .num("samples", tree.samples)
        .num("total_ns", tree.total_ns)
        .str("view", tree.view.as_str())
        .bool("truncated", tree.truncated)
        .raw("nodes", &nodes)
        .strs("strings", strings.iter().map(|&s| t.name(s)))
        .finish()
}

pub async fn object(
    State(s): St,
    id: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Response {
    let Ok(Path(id)) = id else {
        return bad("bad id").into_response();
    };
    run(s, move |s| {
        let t = &s.trace;
        let idx = parse_id(&id)?;
        let o = t
            .tables
            .objects
            .get(idx as usize)
            .ok_or_else(|| not_found("no such object"))?;
        let snaps: Vec<_> = o
            .snapshots
            .iter()
            .map(|&k| &t.tables.snapshots[k.index()])
            .collect();
        let list: Vec<String> = snaps
            .iter()
            .map(|sn| {
                let args = t.merged_args(sn.args, tracescope_model::TextRef::NONE);
                Obj::new()
                    .num("ts", sn.ts)
                    .raw("args", &args_json(args.as_deref()))
                    .finish()
            })
            .collect();
        Ok(Obj::new()
            .num("id", idx)
            .str("name", t.name(o.name))
            .opt_str("cat", t.str(o.cat))
            .opt_str("object_id", &t.id_text(o.id).unwrap_or_default())
            .num("process", o.process)
            .num("start", o.start)
            .num("end", o.end)
            .bool("alive_at_end", o.alive_at_end)
            .raws("snapshots", list)
            .strs("raw_snapshots", snaps.iter().map(|sn| t.raw(sn.args)))
            .finish())
    })
    .await
}
