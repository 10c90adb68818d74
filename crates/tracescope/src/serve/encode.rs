//! The JSON bodies of the API (`docs/api.md`), written from the model's answers.

use rustc_hash::FxHashMap;
use tracescope_model::query::details::{Brief, Details, FlowEnd, FlowInfo};
use tracescope_model::query::flows::{end_id, end_place};
use tracescope_model::query::instant::InstantDetails;
use tracescope_model::query::lod::CounterPoints;
use tracescope_model::query::search::{Hit, HitKind};
use tracescope_model::query::tracks::{process_tracks, thread_tracks, TrackInfo};
use tracescope_model::query::window::{Instants, Items};
use tracescope_model::query::{view_order, QueryIndex, TrackRef};
use tracescope_model::{AsyncSliceId, PidK, ProcessId, SliceId, SliceRef, StrId, ThreadId, Trace};

use super::json::{self, Obj};

fn pid_json(trace: &Trace, p: PidK) -> String {
    match p {
        PidK::Int(i) => i.to_string(),
        PidK::Str(s) => {
            let mut out = String::new();
            json::string(&mut out, trace.str(s));
            out
        }
    }
}

fn track_json(trace: &Trace, index: &QueryIndex, t: &TrackInfo) -> String {
    let mut o = Obj::new();
    o.str("id", &t.id.to_string())
        .str("kind", t.id.kind().as_str())
        .str("name", &t.name)
        .num("rows", t.rows);
    if let Some((min, max)) = t.min_max {
        o.float("min", min).float("max", max);
    }
    if t.instants > 0 {
        o.num("instants", t.instants);
    }
    if let TrackRef::InstantCounter { series } = t.id {
        o.str(
            "source",
            index.derived(trace).series[series as usize].source,
        );
    }
    o.finish()
}

/// `GET /api/summary`.
pub fn summary(trace: &Trace, index: &QueryIndex, name: &str) -> String {
    let t = &trace.tables;
    let info = &trace.info;
    let order = view_order(trace, index);
    let processes = order.iter().map(|pv| {
        let p = pv.process;
        let pr = trace.process(p);
        let base = trace.process_heading(p);
        let label = if pr.frame_url.is_none() {
            base
        } else {
            format!("{base} {}", trace.str(pr.frame_url))
        };
        let threads = pv.threads.iter().map(|tv| {
            let th = tv.thread;
            let tr = trace.thread(th);
            let label = trace.thread_heading(th);
            Obj::new()
                .num("id", th)
                .raw("tid", &pid_json(trace, tr.tid))
                .opt_str("name", trace.str(tr.name))
                .str("label", &label)
                .opt_num("sort_index", tr.sort_index)
                .bool("main", tv.main)
                .num("busy_ns", tv.busy_ns)
                .raws(
                    "tracks",
                    thread_tracks(trace, index, th)
                        .iter()
                        .map(|x| track_json(trace, index, x)),
                )
                .finish()
        });
        Obj::new()
            .num("id", p)
            .raw("pid", &pid_json(trace, pr.pid))
            .opt_str("name", trace.str(pr.name))
            .str("label", &label)
            .opt_num("sort_index", pr.sort_index)
            .opt_str("labels", trace.str(pr.labels))
            .opt_str("frame_url", trace.str(pr.frame_url))
            .num("busy_ns", pv.busy_ns)
            .raws(
                "tracks",
                process_tracks(trace, index, p)
                    .iter()
                    .map(|x| track_json(trace, index, x)),
            )
            .raws("threads", threads)
            .finish()
    });
    let ins = &t.instants;
    let globals: Vec<usize> = (0..ins.len())
        .filter(|&i| ins.scope[i] == tracescope_model::Scope::Global)
        .collect();
    let global_instants = Obj::new()
        .nums("ts", globals.iter().map(|&i| ins.ts[i]))
        .strs("name", globals.iter().map(|&i| trace.str(ins.name[i])))
        .nums("id", globals.iter().copied())
        .finish();
    let diagnostics = trace.diagnostics.sorted().into_iter().map(|d| {
        Obj::new()
            .str("kind", d.kind.as_str())
            .str("severity", d.kind.severity().as_str())
            .num("count", d.count)
            .num("offset", d.offset)
            .str("example", &d.example)
            .str("description", d.kind.describe())
            .finish()
    });
    let stats = crate::stats::stats_json(trace).to_string();
    let bounds = view_bounds(trace);
    Obj::new()
        .str("name", name)
        .str("format", &info.format)
        .num("bytes", info.bytes)
        .num("events", info.events)
        .opt_num("start_ns", bounds.map(|b| b.0))
        .opt_num("end_ns", bounds.map(|b| b.1))
        .opt_str(
            "display_time_unit",
            info.display_time_unit.as_deref().unwrap_or(""),
        )
        .raws("processes", processes)
        .raw("global_instants", &global_instants)
        .raws("diagnostics", diagnostics)
        .raw("stats", &stats)
        .finish()
}

/// The time the page shows: events' bounds widened to the CPU samples.
fn view_bounds(trace: &Trace) -> Option<(i64, i64)> {
    tracescope_model::analysis::time_bounds(trace)
}

/// Interns model strings into the response's own `strings` list.
#[derive(Default)]
struct Strings {
    map: FxHashMap<StrId, u32>,
    list: Vec<StrId>,
}

impl Strings {
    fn id(&mut self, s: StrId) -> u32 {
        *self.map.entry(s).or_insert_with(|| {
            self.list.push(s);
            self.list.len() as u32 - 1
        })
    }

    /// The index, or -1 for an absent string.
    fn opt(&mut self, s: StrId) -> i64 {
        if s.is_none() {
            -1
        } else {
            self.id(s) as i64
        }
    }
}

/// `GET /api/track/{id}` for slices, async, objects and samples tracks.
pub fn items(trace: &Trace, it: &Items) -> String {
    let mut st = Strings::default();
    let names: Vec<u32> = it.name.iter().map(|&n| st.id(n)).collect();
    let colors: Vec<i64> = it.color.iter().map(|&c| st.opt(c)).collect();
    let mut o = Obj::new();
    o.nums("ts", it.ts.iter())
        .nums("dur", it.dur.iter())
        .nums("row", it.row.iter())
        .nums("id", it.id.iter())
        .nums("name", names)
        .nums("count", it.count.iter())
        .nums("flags", it.flags.iter())
        .nums("color", colors);
    if let Some(ins) = &it.instants {
        let s = instants(&mut st, ins);
        o.raw("instants", &s);
    }
    if let Some(sn) = &it.snapshots {
        let s = Obj::new()
            .nums("ts", sn.ts.iter())
            .nums("row", sn.row.iter())
            .nums("object", sn.object.iter())
            .nums("index", sn.index.iter())
            .finish();
        o.raw("snapshots", &s);
    }
    o.strs("strings", st.list.iter().map(|&s| trace.name(s)));
    o.finish()
}

fn instants(st: &mut Strings, ins: &Instants) -> String {
    let names: Vec<u32> = ins.name.iter().map(|&n| st.id(n)).collect();
    Obj::new()
        .nums("ts", ins.ts.iter())
        .nums("name", names)
        .nums("id", ins.id.iter())
        .strs("scope", ins.scope.iter().map(|s| s.as_str()))
        .nums("count", ins.count.iter())
        .finish()
}

/// `GET /api/track/{id}` for counter tracks.
pub fn counter(p: &CounterPoints) -> String {
    Obj::new()
        .nums("ts", p.ts.iter())
        .floats("value", p.value.iter().copied())
        .floats("min", p.min.iter().copied())
        .floats("max", p.max.iter().copied())
        .finish()
}

fn kind(r: SliceRef) -> &'static str {
    match r {
        SliceRef::Thread(_) => "slice",
        SliceRef::Async(_) => "async",
    }
}

fn brief(trace: &Trace, b: &Brief) -> String {
    Obj::new()
        .num("id", b.id)
        .str("name", trace.name(b.name))
        .num("ts", b.ts)
        .num("dur", b.dur)
        .finish()
}

fn flow_end(trace: &Trace, e: &FlowEnd) -> String {
    Obj::new()
        .str("kind", kind(e.item))
        .num("id", end_id(e.item))
        .str("name", trace.name(e.name))
        .num("ts", e.ts)
        .opt_num("thread", e.thread)
        .opt_str(
            "thread_label",
            &e.thread.map(|t| trace.thread_label(t)).unwrap_or_default(),
        )
        .opt_str("track", &e.track.map(|t| t.to_string()).unwrap_or_default())
        .num("row", e.row)
        .finish()
}

fn flow(trace: &Trace, f: &FlowInfo) -> String {
    Obj::new()
        .num("id", f.id)
        .str("name", trace.name(f.name))
        .opt_str("cat", trace.str(f.cat))
        .raw("from", &flow_end(trace, &f.from))
        .raw("to", &flow_end(trace, &f.to))
        .num("from_ts", f.from_ts)
        .num("to_ts", f.to_ts)
        .finish()
}

/// Args as JSON: the model's compact text, integers a browser would round as
/// strings (`exact`); text that is not JSON as a string.
pub(super) fn args_json(args: Option<&str>) -> String {
    args.map_or_else(|| "null".to_string(), super::exact::exact)
}

/// An id as JSON: a number, or a string when it is one or is too big for a double.
fn id_json(trace: &Trace, p: PidK) -> String {
    match p {
        PidK::Int(i) if !super::exact::too_big(&i.to_string()) => i.to_string(),
        _ => {
            let mut out = String::new();
            json::string(&mut out, &trace.pid_text(p));
            out
        }
    }
}

/// Where an item ran: its thread's and process's labels and ids, times as exact
/// text (absolute, and relative to the start the page shows).
fn place(
    o: &mut Obj,
    trace: &Trace,
    process: Option<ProcessId>,
    thread: Option<ThreadId>,
    ts: i64,
    dur: i64,
) {
    let th = thread.map(|t| trace.thread(t));
    let process = th.map(|th| th.process).or(process);
    let pr = process.map(|p| trace.process(p));
    let origin = tracescope_model::analysis::time_bounds(trace).map_or(0, |b| b.0);
    o.opt_str(
        "thread_label",
        &thread.map(|t| trace.thread_label(t)).unwrap_or_default(),
    )
    .raw(
        "tid",
        &th.map_or("null".into(), |th| id_json(trace, th.tid)),
    )
    .opt_str(
        "process_label",
        &process.map(|p| trace.process_label(p)).unwrap_or_default(),
    )
    .raw("pid", &pr.map_or("null".into(), |p| id_json(trace, p.pid)))
    .str("ts_abs", &ts.to_string())
    .str("end_abs", &ts.saturating_add(dur).to_string())
    .num("rel_ts", ts.saturating_sub(origin));
}

/// `GET /api/slice/{id}` and `GET /api/async/{id}`.
pub fn details(trace: &Trace, d: &Details) -> String {
    let mut o = Obj::new();
    o.num("id", end_id(d.item))
        .str("kind", kind(d.item))
        .str("name", trace.name(d.name))
        .opt_str("cat", trace.str(d.cat))
        .num("ts", d.ts)
        .num("dur", d.dur)
        .opt_num("self", d.self_ns)
        .opt_num("tts", d.tts)
        .opt_num("tdur", d.tdur)
        .num("depth", d.depth)
        .bool("did_not_finish", d.did_not_finish)
        .bool("overlap", d.overlap)
        .opt_num("process", d.process)
        .opt_num("thread", d.thread)
        .str("track", &d.track.to_string())
        .raw("args", &args_json(d.args.as_deref()))
        .opt_str("args_text", d.args.as_deref().unwrap_or(""))
        .opt_str("async_id", d.async_id.as_deref().unwrap_or(""))
        .opt_str("color", trace.str(d.color))
        .raws("parents", d.parents.iter().map(|b| brief(trace, b)))
        .raws("children", d.children.iter().map(|b| brief(trace, b)))
        .num("children_total", d.children_total)
        .raws("flows_in", d.flows_in.iter().map(|f| flow(trace, f)))
        .raws("flows_out", d.flows_out.iter().map(|f| flow(trace, f)))
        .str("raw", &d.raw);
    place(&mut o, trace, d.process, d.thread, d.ts, d.dur);
    o.finish()
}

/// `GET /api/instant/{id}`.
pub fn instant(trace: &Trace, d: &InstantDetails) -> String {
    Obj::new()
        .num("id", d.id)
        .str("name", trace.name(d.name))
        .opt_str("cat", trace.str(d.cat))
        .num("ts", d.ts)
        .str("scope", d.scope.as_str())
        .str("ph", &char::from(d.ph).to_string())
        .opt_num("process", d.process)
        .opt_num("thread", d.thread)
        .opt_str("track", &d.track.map(|t| t.to_string()).unwrap_or_default())
        .raw("args", &args_json(d.args.as_deref()))
        .opt_str("args_text", d.args.as_deref().unwrap_or(""))
        .str("raw", &d.raw)
        .finish()
}

/// Where a search hit is drawn: track id ("" for process and global instants) and row.
pub(super) fn hit_place(trace: &Trace, h: &Hit) -> (String, i64, i64, StrId) {
    let t = &trace.tables;
    let i = h.id as usize;
    match h.kind {
        HitKind::Slice => {
            let (track, row) = end_place(trace, SliceRef::Thread(SliceId::new(h.id)))
                .map_or((String::new(), -1), |p| (p.0.to_string(), p.1 as i64));
            (track, row, t.slices.dur(i), t.slices.name[i])
        }
        HitKind::Async => {
            let (track, row) = end_place(trace, SliceRef::Async(AsyncSliceId::new(h.id)))
                .map_or((String::new(), -1), |p| (p.0.to_string(), p.1 as i64));
            (track, row, t.async_slices.dur[i], t.async_slices.name[i])
        }
        HitKind::Instant => {
            let ins = &t.instants;
            let track = match (ins.scope[i], ins.thread[i]) {
                (tracescope_model::Scope::Thread, Some(thread)) => TrackRef::Slices {
                    thread,
                    lane: tracescope_model::Lane::Stack,
                }
                .to_string(),
                _ => String::new(),
            };
            (track, -1, 0, ins.name[i])
        }
    }
}

/// `GET /api/flows`.
pub fn flows(trace: &Trace, rows: &[u32], truncated: bool) -> String {
    let f = &trace.tables.flows;
    let place = |r: SliceRef| {
        end_place(trace, r).map_or((String::new(), -1), |p| (p.0.to_string(), p.1 as i64))
    };
    let from: Vec<_> = rows.iter().map(|&k| place(f.from[k as usize])).collect();
    let to: Vec<_> = rows.iter().map(|&k| place(f.to[k as usize])).collect();
    Obj::new()
        .nums("from_ts", rows.iter().map(|&k| f.from_ts[k as usize]))
        .nums("to_ts", rows.iter().map(|&k| f.to_ts[k as usize]))
        .strs("from_track", from.iter().map(|p| p.0.as_str()))
        .nums("from_row", from.iter().map(|p| p.1))
        .strs("to_track", to.iter().map(|p| p.0.as_str()))
        .nums("to_row", to.iter().map(|p| p.1))
        .nums("from_id", rows.iter().map(|&k| end_id(f.from[k as usize])))
        .nums("to_id", rows.iter().map(|&k| end_id(f.to[k as usize])))
        .bool("truncated", truncated)
        .finish()
}
