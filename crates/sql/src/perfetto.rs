//! Perfetto-compatible tables, declared like the model's (`tracescope_model::Table`)
//! so the same virtual table serves them: `slice` (thread slices, instants and async
//! slices under one id space), `track`, `counter`, `flow`, `metadata` (the `M`
//! events and the trace's own metadata) and `stats` (the diagnostics); the rest are
//! views (see [`VIEWS`]).

use tracescope_format::json::Value as Json;
use tracescope_model::{
    ArgOwner, Column, ColumnType as T, Ns, RowSource, Scope, SliceRef, Table, Trace, Value,
};

/// Where a row of `slice` comes from.
enum Part {
    Slice(usize),
    Instant(usize),
    Async(usize),
}

fn part(t: &Trace, i: usize) -> Part {
    let (ns, ni) = (t.tables.slices.len(), t.tables.instants.len());
    if i < ns {
        Part::Slice(i)
    } else if i < ns + ni {
        Part::Instant(i - ns)
    } else {
        Part::Async(i - ns - ni)
    }
}

/// The `slice` id of a flow's end.
fn slice_ref_id(t: &Trace, r: SliceRef) -> i64 {
    match r {
        SliceRef::Thread(s) => s.raw() as i64,
        SliceRef::Async(a) => (t.tables.slices.len() + t.tables.instants.len() + a.index()) as i64,
    }
}

/// Track ids: one thread track per thread, then async groups, counter series, one
/// process track per process (its process-scoped instants), and the global track.
pub struct TrackSpans {
    pub threads: usize,
    pub groups: usize,
    pub series: usize,
    pub processes: usize,
}

impl TrackSpans {
    pub fn of(t: &Trace) -> TrackSpans {
        TrackSpans {
            threads: t.tables.threads.len(),
            groups: t.tables.async_slices.groups.len(),
            series: t.tables.counters.series.len(),
            processes: t.tables.processes.len(),
        }
    }

    fn group(&self, g: usize) -> i64 {
        (self.threads + g) as i64
    }

    fn series(&self, s: usize) -> i64 {
        (self.threads + self.groups + s) as i64
    }

    fn process(&self, p: usize) -> i64 {
        (self.threads + self.groups + self.series + p) as i64
    }

    fn global(&self) -> i64 {
        (self.threads + self.groups + self.series + self.processes) as i64
    }

    fn len(&self) -> usize {
        self.global() as usize + 1
    }
}

fn slice_track(t: &Trace, i: usize) -> Value<'static> {
    let sp = TrackSpans::of(t);
    Value::Int(match part(t, i) {
        Part::Slice(s) => t.tables.slices.thread(s).raw() as i64,
        Part::Instant(k) => {
            let ins = &t.tables.instants;
            match (ins.scope[k], ins.thread[k]) {
                (Scope::Thread, Some(th)) => th.raw() as i64,
                (Scope::Global, _) => sp.global(),
                _ => sp.process(ins.process[k].index()),
            }
        }
        Part::Async(a) => sp.group(t.tables.async_slices.group[a].index()),
    })
}

fn dnf_dur(dur: i64, dnf: bool) -> Value<'static> {
    Value::Int(if dnf { -1 } else { dur })
}

pub static SLICE: Table = Table {
    fills: None,
    name: "slice",
    doc: "Perfetto's slice table: thread slices, then instants (dur 0), then async slices, one id space.",
    rows: RowSource::Indexed {
        len: |t| t.tables.slices.len() + t.tables.instants.len() + t.tables.async_slices.len(),
        order: |t| (0..(t.tables.slices.len() + t.tables.instants.len() + t.tables.async_slices.len()) as u32).collect(),
        columns: &[
            Column { name: "id", ty: T::Id("slice"), nullable: false, doc: "slice id (thread slices keep their slices.id)", get: |_, i| Value::Int(i as i64) },
            Column { name: "ts", ty: T::Time, nullable: false, doc: "start (ns)", get: |t, i| Value::Int(match part(t, i) {
                Part::Slice(s) => t.tables.slices.ts(s),
                Part::Instant(k) => t.tables.instants.ts[k],
                Part::Async(a) => t.tables.async_slices.ts[a],
            }) },
            Column { name: "dur", ty: T::Duration, nullable: false, doc: "duration (ns); -1 when it never finished", get: |t, i| match part(t, i) {
                Part::Slice(s) => dnf_dur(t.tables.slices.dur(s), t.tables.slices.did_not_finish(s)),
                Part::Instant(_) => Value::Int(0),
                Part::Async(a) => dnf_dur(t.tables.async_slices.dur[a], t.tables.async_slices.did_not_finish[a]),
            } },
            Column { name: "category", ty: T::Str, nullable: true, doc: "event category", get: |t, i| t.opt_str_value(match part(t, i) {
                Part::Slice(s) => t.tables.slices.cat(s),
                Part::Instant(k) => t.tables.instants.cat[k],
                Part::Async(a) => t.tables.async_slices.cat[a],
            }) },
            Column { name: "name", ty: T::Str, nullable: true, doc: "event name", get: |t, i| t.opt_str_value(match part(t, i) {
                Part::Slice(s) => t.tables.slices.name[s],
                Part::Instant(k) => t.tables.instants.name[k],
                Part::Async(a) => t.tables.async_slices.name[a],
            }) },
            Column { name: "depth", ty: T::Int, nullable: false, doc: "nesting depth on its track", get: |t, i| Value::Int(match part(t, i) {
                Part::Slice(s) => t.tables.slices.depth(s) as i64,
                Part::Instant(_) => 0,
                Part::Async(a) => t.tables.async_slices.depth[a] as i64,
            }) },
            Column { name: "parent_id", ty: T::Id("slice"), nullable: true, doc: "the enclosing slice", get: |t, i| match part(t, i) {
                Part::Slice(s) => t.tables.slices.parent[s].into(),
                Part::Instant(_) => Value::Null,
                Part::Async(a) => t.tables.async_slices.parent[a].map_or(Value::Null, |p| Value::Int(slice_ref_id(t, SliceRef::Async(p)))),
            } },
            Column { name: "track_id", ty: T::Id("track"), nullable: false, doc: "the track it is drawn on (track.id)", get: |t, i| slice_track(t, i) },
            Column { name: "arg_set_id", ty: T::Id("args"), nullable: true, doc: "its args (args.arg_set_id)", get: |t, i| t.arg_set_id(match part(t, i) {
                Part::Slice(s) => ArgOwner::Slice(s),
                Part::Instant(k) => ArgOwner::Instant(k),
                Part::Async(a) => ArgOwner::Async(a),
            }).into() },
            Column { name: "thread_ts", ty: T::Time, nullable: true, doc: "thread time at start (tts)", get: |t, i| match part(t, i) {
                Part::Slice(s) => Value::opt_int(t.tables.slices.tts(s).map(Ns::get)),
                _ => Value::Null,
            } },
            Column { name: "thread_dur", ty: T::Duration, nullable: true, doc: "thread time duration (tdur)", get: |t, i| match part(t, i) {
                Part::Slice(s) => Value::opt_int(t.tables.slices.tdur(s).map(Ns::get)),
                _ => Value::Null,
            } },
            Column { name: "slice_id", ty: T::Id("slice"), nullable: false, doc: "the same as id", get: |_, i| Value::Int(i as i64) },
            Column { name: "utid", ty: T::Id("threads"), nullable: true, doc: "the thread of a thread slice or thread instant (thread.utid)", get: |t, i| match part(t, i) {
                Part::Slice(s) => Some(t.tables.slices.thread(s)).into(),
                Part::Instant(k) if t.tables.instants.scope[k] == Scope::Thread => t.tables.instants.thread[k].into(),
                _ => Value::Null,
            } },
            Column { name: "upid", ty: T::Id("processes"), nullable: true, doc: "the process (process.upid; null on the global track)", get: |t, i| match part(t, i) {
                Part::Slice(s) => t.thread(t.tables.slices.thread(s)).process.into(),
                Part::Instant(k) if t.tables.instants.scope[k] == Scope::Global => Value::Null,
                Part::Instant(k) => t.tables.instants.process[k].into(),
                Part::Async(a) => {
                    let g = &t.tables.async_slices.groups[t.tables.async_slices.group[a].index()];
                    if g.global { Value::Null } else { g.process.into() }
                }
            } },
        ],
    },
};

fn track_kind(t: &Trace, i: usize) -> (u8, usize) {
    let sp = TrackSpans::of(t);
    let mut k = i;
    for (kind, n) in [
        (0, sp.threads),
        (1, sp.groups),
        (2, sp.series),
        (3, sp.processes),
    ] {
        if k < n {
            return (kind, k);
        }
        k -= n;
    }
    (4, 0)
}

fn counter_track_name(t: &Trace, s: usize) -> Value<'static> {
    let c = &t.tables.counters.series[s];
    Value::String(format!("{} {}", t.name(c.counter), t.str(c.series)))
}

pub static TRACK: Table = Table {
    fills: None,
    name: "track",
    doc: "Perfetto's track table: thread tracks, async tracks, counter tracks, process and global instant tracks.",
    rows: RowSource::Indexed {
        len: |t| TrackSpans::of(t).len(),
        order: |t| (0..TrackSpans::of(t).len() as u32).collect(),
        columns: &[
            Column { name: "id", ty: T::Id("track"), nullable: false, doc: "track id", get: |_, i| Value::Int(i as i64) },
            Column { name: "name", ty: T::Str, nullable: true, doc: "thread name, async operation name, 'counter series', process name", get: |t, i| match track_kind(t, i) {
                (0, th) => t.opt_str_value(t.tables.threads[th].name),
                (1, g) => t.opt_str_value(t.tables.async_slices.groups[g].name),
                (2, s) => counter_track_name(t, s),
                (3, p) => t.opt_str_value(t.tables.processes[p].name),
                _ => Value::Null,
            } },
            Column { name: "type", ty: T::Str, nullable: false, doc: "thread, legacy_async_process_slice, legacy_async_global_slice, process_counter, process or global", get: |t, i| Value::Str(match track_kind(t, i) {
                (0, _) => "thread",
                (1, g) if t.tables.async_slices.groups[g].global => "legacy_async_global_slice",
                (1, _) => "legacy_async_process_slice",
                (2, _) => "process_counter",
                (3, _) => "process",
                _ => "global",
            }) },
            Column { name: "utid", ty: T::Id("threads"), nullable: true, doc: "thread of a thread track", get: |t, i| match track_kind(t, i) {
                (0, th) => Value::Int(th as i64),
                _ => Value::Null,
            } },
            Column { name: "upid", ty: T::Id("processes"), nullable: true, doc: "process of a process-scoped track", get: |t, i| match track_kind(t, i) {
                (0, th) => t.tables.threads[th].process.into(),
                (1, g) if t.tables.async_slices.groups[g].global => Value::Null,
                (1, g) => t.tables.async_slices.groups[g].process.into(),
                (2, s) => t.tables.counters.series[s].process.into(),
                (3, p) => Value::Int(p as i64),
                _ => Value::Null,
            } },
        ],
    },
};

pub static COUNTER: Table = Table {
    fills: None,
    name: "counter",
    doc: "Perfetto's counter table: one row per sample, on its counter track.",
    rows: RowSource::Indexed {
        len: |t| t.tables.counters.ts.len(),
        order: |t| (0..t.tables.counters.ts.len() as u32).collect(),
        columns: &[
            Column {
                name: "id",
                ty: T::Id("counters"),
                nullable: false,
                doc: "sample id (counters.id)",
                get: |_, i| Value::Int(i as i64),
            },
            Column {
                name: "ts",
                ty: T::Time,
                nullable: false,
                doc: "time (ns)",
                get: |t, i| Value::Int(t.tables.counters.ts[i]),
            },
            Column {
                name: "track_id",
                ty: T::Id("track"),
                nullable: false,
                doc: "its counter track (counter_track.id)",
                get: |t, i| {
                    Value::Int(TrackSpans::of(t).series(t.tables.counters.sample_series[i].index()))
                },
            },
            Column {
                name: "value",
                ty: T::Float,
                nullable: false,
                doc: "value",
                get: |t, i| Value::Float(t.tables.counters.value[i]),
            },
            Column {
                name: "arg_set_id",
                ty: T::Int,
                nullable: true,
                doc: "always null",
                get: |_, _| Value::Null,
            },
        ],
    },
};

pub static FLOW: Table = Table {
    fills: None,
    name: "flow",
    doc: "Perfetto's flow table: one row per arrow, between slice ids.",
    rows: RowSource::Indexed {
        len: |t| t.tables.flows.len(),
        order: |t| (0..t.tables.flows.len() as u32).collect(),
        columns: &[
            Column {
                name: "id",
                ty: T::Id("flows"),
                nullable: false,
                doc: "flow id (flows.flow_id)",
                get: |_, i| Value::Int(i as i64),
            },
            Column {
                name: "slice_out",
                ty: T::Id("slice"),
                nullable: false,
                doc: "the slice the arrow leaves (slice.id)",
                get: |t, i| Value::Int(slice_ref_id(t, t.tables.flows.from[i])),
            },
            Column {
                name: "slice_in",
                ty: T::Id("slice"),
                nullable: false,
                doc: "the slice the arrow enters (slice.id)",
                get: |t, i| Value::Int(slice_ref_id(t, t.tables.flows.to[i])),
            },
            Column {
                name: "trace_id",
                ty: T::Str,
                nullable: true,
                doc: "the flow's id as written",
                get: |t, i| t.id_value(t.tables.flows.id[i]),
            },
            Column {
                name: "arg_set_id",
                ty: T::Int,
                nullable: true,
                doc: "always null",
                get: |_, _| Value::Null,
            },
        ],
    },
};

/// A trace metadata entry: `json_metadata.<key>` for each key of the top-level
/// `metadata` object, as Perfetto names them.
fn top_metadata(t: &Trace) -> Vec<(String, Json<'_>)> {
    let mut out = Vec::new();
    for (k, v) in &t.info.metadata {
        if k != "metadata" {
            continue;
        }
        // Top-level values are text of the input (never args written when asked).
        let std::borrow::Cow::Borrowed(text) = t.raw(*v) else {
            continue;
        };
        if let Ok(Json::Object(members)) = Json::parse(text) {
            for (key, val) in members {
                out.push((format!("json_metadata.{key}"), val));
            }
        }
    }
    out
}

fn meta_entry(t: &Trace, i: usize) -> Option<(String, Json<'_>)> {
    top_metadata(t)
        .into_iter()
        .nth(i.checked_sub(t.tables.metadata.len())?)
}

/// A cell of the model's `metadata` table for `M` rows, null for trace metadata.
fn m_cell(t: &Trace, i: usize, col: usize) -> Value<'_> {
    match &tracescope_model::table("metadata").expect("declared").rows {
        RowSource::Indexed { columns, .. } if i < t.tables.metadata.len() => {
            (columns[col].get)(t, i)
        }
        _ => Value::Null,
    }
}

pub static METADATA: Table = Table {
    fills: None,
    name: "metadata",
    doc: "Metadata (M) events, as in `tables`, then the trace's own metadata as Perfetto names it (json_metadata.<key>).",
    rows: RowSource::Indexed {
        len: |t| t.tables.metadata.len() + top_metadata(t).len(),
        order: |t| (0..(t.tables.metadata.len() + top_metadata(t).len()) as u32).collect(),
        columns: &[
            Column { name: "pid", ty: T::Pid, nullable: true, doc: "pid of an M event", get: |t, i| m_cell(t, i, 0) },
            Column { name: "tid", ty: T::Pid, nullable: true, doc: "tid of an M event", get: |t, i| m_cell(t, i, 1) },
            Column { name: "name", ty: T::Str, nullable: false, doc: "M event name (process_name, ...) or json_metadata.<key>", get: |t, i| match meta_entry(t, i) {
                Some((k, _)) => Value::String(k),
                None => m_cell(t, i, 2),
            } },
            Column { name: "args", ty: T::Json, nullable: true, doc: "args of an M event", get: |t, i| m_cell(t, i, 3) },
            Column { name: "id", ty: T::Id("metadata"), nullable: false, doc: "row id", get: |_, i| Value::Int(i as i64) },
            Column { name: "process_id", ty: T::Id("processes"), nullable: true, doc: "process of an M event", get: |t, i| m_cell(t, i, 5) },
            Column { name: "thread_id", ty: T::Id("threads"), nullable: true, doc: "thread of an M event", get: |t, i| m_cell(t, i, 6) },
            Column { name: "arg_set_id", ty: T::Id("args"), nullable: true, doc: "args of an M event (args table)", get: |t, i| m_cell(t, i, 7) },
            Column { name: "key_type", ty: T::Str, nullable: true, doc: "trace metadata: 'single'", get: |t, i| meta_entry(t, i).map_or(Value::Null, |_| Value::Str("single")) },
            Column { name: "int_value", ty: T::Int, nullable: true, doc: "trace metadata: integer value", get: |t, i| match meta_entry(t, i) {
                Some((_, Json::Number(n))) => n.parse::<i64>().map_or(Value::Null, Value::Int),
                Some((_, Json::Bool(b))) => Value::Int(b as i64),
                _ => Value::Null,
            } },
            Column { name: "str_value", ty: T::Str, nullable: true, doc: "trace metadata: other values (strings as written, else JSON)", get: |t, i| match meta_entry(t, i) {
                Some((_, Json::String(s))) => Value::String(s.to_string()),
                Some((_, Json::Number(n))) if n.parse::<i64>().is_err() => Value::String(n.to_string()),
                Some((_, Json::Number(_) | Json::Bool(_) | Json::Null)) | None => Value::Null,
                Some((_, v)) => Value::String(v.to_compact()),
            } },
        ],
    },
};

use tracescope_format::DiagKind;

/// Stats rows: every diagnostic kind under its own name, then Perfetto's names for
/// the ones whose concept matches (the same counts).
const ALIASES: &[(&str, DiagKind)] = &[("json_tokenizer_failure", DiagKind::SyntaxError)];

fn stat(i: usize) -> (&'static str, DiagKind) {
    match DiagKind::ALL.get(i) {
        Some(k) => (k.as_str(), *k),
        None => ALIASES[i - DiagKind::ALL.len()],
    }
}

pub static STATS: Table = Table {
    fills: None,
    name: "stats",
    doc: "Perfetto's stats table over the diagnostics: every kind, with its count (0 when it never happened).",
    rows: RowSource::Indexed {
        len: |_| DiagKind::ALL.len() + ALIASES.len(),
        order: |_| (0..(DiagKind::ALL.len() + ALIASES.len()) as u32).collect(),
        columns: &[
            Column { name: "name", ty: T::Str, nullable: false, doc: "diagnostic kind (tracescope validate describes each), then Perfetto's names for some", get: |_, i| Value::Str(stat(i).0) },
            Column { name: "idx", ty: T::Int, nullable: true, doc: "always null", get: |_, _| Value::Null },
            Column { name: "severity", ty: T::Str, nullable: false, doc: "'data_loss' when input was not read, else 'info'", get: |_, i| Value::Str(match stat(i).1 {
                DiagKind::Truncated | DiagKind::SyntaxError | DiagKind::InvalidUtf8 | DiagKind::BadCounterValue => "data_loss",
                _ => "info",
            }) },
            Column { name: "source", ty: T::Str, nullable: false, doc: "'trace'", get: |_, _| Value::Str("trace") },
            Column { name: "value", ty: T::Int, nullable: false, doc: "occurrences (0 when it never happened)", get: |t, i| Value::UInt(t.diagnostics.count(stat(i).1)) },
            Column { name: "description", ty: T::Str, nullable: false, doc: "what the diagnostic means", get: |_, i| Value::Str(stat(i).1.describe()) },
        ],
    },
};

/// Views with Perfetto's names over the tables above and the model's.
pub const VIEWS: &str = "
CREATE VIEW process AS
  SELECT id AS upid, pid, name, sort_index, labels, NULL AS arg_set_id, id, trace FROM processes;
CREATE VIEW thread AS
  SELECT id AS utid, tid, name, process_id AS upid, sort_index, id, trace FROM threads;
CREATE VIEW thread_track AS
  SELECT id, name, type, utid, trace FROM track WHERE type = 'thread';
CREATE VIEW process_track AS
  SELECT id, name, type, upid, trace FROM track
  WHERE type IN ('process', 'legacy_async_process_slice');
CREATE VIEW counter_track AS
  SELECT id, name, type, upid, trace FROM track WHERE type = 'process_counter';
CREATE VIEW process_counter_track AS
  SELECT id, name, type, upid, trace FROM track WHERE type = 'process_counter';
CREATE VIEW thread_slice AS
  SELECT s.*, t.name AS thread_name, t.tid, p.name AS process_name, p.pid
  FROM slice s JOIN threads t ON t.id = s.utid AND t.trace = s.trace
  JOIN processes p ON p.id = t.process_id AND p.trace = t.trace;
CREATE VIEW thread_or_process_slice AS
  SELECT s.*, t.name AS thread_name, t.tid, p.name AS process_name, p.pid
  FROM slice s LEFT JOIN threads t ON t.id = s.utid AND t.trace = s.trace
  LEFT JOIN processes p ON p.id = s.upid AND p.trace = s.trace
  WHERE s.upid IS NOT NULL;
CREATE VIEW instant AS
  SELECT id, ts_ns AS ts, name, cat AS category, scope, thread_id AS utid, process_id AS upid, arg_set_id, trace FROM instants;
";
