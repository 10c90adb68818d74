//! The analysis endpoints: `/api/range`, `/api/range/slices`, `/api/profile` and
//! `/api/object/{id}` (docs/api.md), over `tracescope_model::analysis`.

use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use tracescope_model::analysis::{
    counter_stats, functions, sandwich, slice_stats, slices_in_group, tree, Function,
    FunctionTable, GroupBy, GroupKey, NameFilter, Selection, Source, TreeQuery, TreeView,
};
use tracescope_model::query::search::Pattern;
use tracescope_model::query::tracks::exists;
use tracescope_model::query::TrackRef;
use tracescope_model::{Lane, SeriesId, StrId, ThreadId, Trace};

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
        let keys: Vec<String> = g.iter().map(|g| st.label(t, g.key)).collect();
        let groups = Obj::new()
            .strs("key", keys.iter().map(String::as_str))
            .nums(
                "thread",
                g.iter().map(|g| match g.key {
                    GroupKey::Thread(th) => th.raw() as i64,
                    _ => -1,
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
                    thread: sl.thread(i),
                    lane: sl.lane(i),
                }
                .to_string()
            })
            .collect();
        Ok(Obj::new()
            .num("total", total)
            .nums("id", ids.iter())
            .nums("ts", ids.iter().map(|&i| sl.ts(i as usize)))
            .nums("dur", ids.iter().map(|&i| sl.dur(i as usize)))
            .strs("track", tracks.iter().map(String::as_str))
            .nums("row", ids.iter().map(|&i| sl.depth(i as usize)))
            .finish())
    })
    .await
}

/// `threads=`: comma-separated thread ids; each stands for its slices (both lanes)
/// and its samples. With `tracks=` too, only the tracks of these threads.
fn thread_tracks(
    s: &AppState,
    p: &Params,
    tracks: Option<Vec<TrackRef>>,
) -> Result<Option<Vec<TrackRef>>, ApiError> {
    let Some(list) = p.get("threads") else {
        return Ok(tracks);
    };
    let mut out = Vec::new();
    for id in list.split(',') {
        let thread = parse_id(id)
            .ok()
            .filter(|&t| (t as usize) < s.trace.tables.threads.len())
            .map(ThreadId::new)
            .ok_or_else(|| bad(format!("no such thread {id:?}")))?;
        for lane in [Lane::Stack, Lane::UiNest] {
            out.push(TrackRef::Slices { thread, lane });
        }
        out.push(TrackRef::Samples { thread });
    }
    if let Some(t) = tracks {
        out.retain(|r| t.contains(r));
    }
    Ok(Some(out))
}

/// The function a sandwich is about: `name`, and for samples `url`, `line`,
/// `column` as the answers give them (1-based; absent: unknown).
fn function_param(t: &Trace, p: &Params, source: Source) -> Result<Function, ApiError> {
    let find = |s: &str| t.tables.strings.find(s).unwrap_or(StrId(u32::MAX));
    let name = find(p.need("name")?);
    if source == Source::Slices {
        return Ok(Function::named(name));
    }
    let pos = |k: &str| -> Result<Option<i64>, ApiError> {
        match p.get(k) {
            None => Ok(None),
            Some(v) => match v.parse::<i64>() {
                Ok(n) if n >= 1 => Ok(Some(n - 1)),
                Ok(-1) => Ok(None),
                _ => Err(bad(format!("{k} must be a positive integer or -1"))),
            },
        }
    };
    Ok(Function {
        name,
        url: p.get("url").map_or(StrId::NONE, find),
        line: pos("line")?,
        column: pos("column")?,
    })
}

pub async fn profile(State(s): St, RawQuery(q): RawQuery) -> Response {
    run(s, move |s| {
        let p = Params::parse(q)?;
        let (t0, t1) = match (p.get("t0"), p.get("t1")) {
            (None, None) => (i64::MIN, i64::MAX),
            _ => p.window()?,
        };
        let tracks = tracks(s, &p)?;
        let sel = Selection {
            t0,
            t1,
            tracks: thread_tracks(s, &p, tracks)?,
        };
        let source = Source::parse(p.get("source").unwrap_or("samples"))
            .ok_or_else(|| bad("source must be samples or slices"))?;
        let max = p.count("max_nodes", 1, MAX_NODES, Some(DEFAULT_NODES))?;
        let t = &s.trace;
        let filter = match p.get("filter") {
            None | Some("") => None,
            Some(f) => Some(Pattern::new(f, flag(&p, "regex")?).map_err(bad)?),
        };
        let view = p.get("view").unwrap_or("top-down");
        let body = match view {
            "functions" => encode_functions(t, source, &functions(t, &sel, source), max),
            "sandwich" => {
                let f = function_param(t, &p, source)?;
                let sw = sandwich(t, &sel, source, &f, max);
                Obj::new()
                    .str("view", "sandwich")
                    .str("source", source.as_str())
                    .raw("callers", &encode_tree(t, source, &sw.callers))
                    .raw("callees", &encode_tree(t, source, &sw.callees))
                    .finish()
            }
            v => {
                let view = TreeView::parse(v).ok_or_else(|| {
                    bad("view must be top-down, bottom-up, functions or sandwich")
                })?;
                let q = TreeQuery {
                    source,
                    view,
                    max_nodes: max,
                    filter: filter.as_ref(),
                };
                encode_tree(t, source, &tree(t, &sel, &q))
            }
        };
        Ok(body)
    })
    .await
}

/// `regex=` and the like: 0/1 or false/true, absent is false.
pub(super) fn flag(p: &Params, k: &str) -> Result<bool, ApiError> {
    match p.get(k).unwrap_or("0") {
        "0" | "false" => Ok(false),
        "1" | "true" => Ok(true),
        _ => Err(bad(format!("{k} must be 0 or 1"))),
    }
}

/// Answers' own string lists: model strings by first use.
#[derive(Default)]
struct Strings {
    list: Vec<StrId>,
    index: rustc_hash::FxHashMap<StrId, i64>,
}

impl Strings {
    /// The index, or -1 for an absent string.
    fn id(&mut self, s: StrId) -> i64 {
        if s.is_none() {
            return -1;
        }
        *self.index.entry(s).or_insert_with(|| {
            self.list.push(s);
            self.list.len() as i64 - 1
        })
    }

    fn finish(mut self, t: &Trace) -> Vec<String> {
        if self.list.is_empty() {
            // Name index 0 of an unnamed frame must exist.
            self.list.push(StrId::NONE);
        }
        self.list.iter().map(|&s| t.name(s).to_string()).collect()
    }
}

/// The frame table keeps V8's 0-based positions; people read 1-based ones.
fn one_based(v: Option<i64>) -> i64 {
    v.map_or(-1, |v| v + 1)
}

fn encode_functions(t: &Trace, source: Source, table: &FunctionTable, max: usize) -> String {
    let fs = &table.functions;
    let shown = &fs[..fs.len().min(max)];
    let mut st = Strings::default();
    let names: Vec<i64> = shown
        .iter()
        .map(|f| st.id(f.function.name).max(0))
        .collect();
    let urls: Vec<i64> = shown.iter().map(|f| st.id(f.function.url)).collect();
    let cols = Obj::new()
        .nums("name", names)
        .nums("url", urls)
        .nums("line", shown.iter().map(|f| one_based(f.function.line)))
        .nums("column", shown.iter().map(|f| one_based(f.function.column)))
        .nums("self", shown.iter().map(|f| f.self_ns))
        .nums("total", shown.iter().map(|f| f.total_ns))
        .nums("self_samples", shown.iter().map(|f| f.self_samples))
        .nums("total_samples", shown.iter().map(|f| f.total_samples))
        .finish();
    let strings = st.finish(t);
    Obj::new()
        .str("view", "functions")
        .str("source", source.as_str())
        .num("samples", table.samples)
        .num("total_ns", table.total_ns)
        .num("count", fs.len())
        .bool("truncated", shown.len() < fs.len())
        .raw("functions", &cols)
        .strs("strings", strings.iter().map(String::as_str))
        .finish()
}

fn encode_tree(t: &Trace, source: Source, tree: &tracescope_model::analysis::CallTree) -> String {
    let mut st = Strings::default();
    let n = &tree.nodes;
    let names: Vec<i64> = n.iter().map(|n| st.id(n.function.name).max(0)).collect();
    let urls: Vec<i64> = n.iter().map(|n| st.id(n.function.url)).collect();
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
    let strings = st.finish(t);
    Obj::new()
        .num("samples", tree.samples)
        .num("total_ns", tree.total_ns)
        .str("view", tree.view.as_str())
        .str("source", source.as_str())
        .bool("truncated", tree.truncated)
        .raw("nodes", &nodes)
        .strs("strings", strings.iter().map(String::as_str))
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
        let raws: Vec<_> = snaps.iter().map(|sn| t.raw(sn.args)).collect();
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
            .strs("raw_snapshots", raws.iter().map(|r| &**r))
            .finish())
    })
    .await
}
