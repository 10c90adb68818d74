//! CPU profiles and samples (spec section 9): `Profile`/`ProfileChunk` streams,
//! `P` samples with `sf`/`stack` through `stackFrames`, the top-level `samples`
//! array, and raw `.cpuprofile` documents.

use rustc_hash::FxHashMap;
use tracescope_format::json::Value;
use tracescope_format::time::micros_text_to_ns;
use tracescope_format::{DiagKind, Diagnostics};

use super::order::{count, Parts};
use super::profile_chunk::{node, parse_nodes};
use super::records::{ChunkInts, ChunkRec, IdK, NodeRec, ProfileRec, SampleRec};
use super::registry::Registry;
use crate::args::Texts;
use crate::strings::{SharedStrings, StrId};
use crate::tables::block_times::BlockTimesBuilder;
use crate::tables::samples::Weights;
use crate::tables::{
    Frame, FrameId, IdVal, PidK, ProcessId, Profile, ProfileId, SampleTable, ThreadId,
};

/// What the profile builder needs beyond the records.
pub struct ProfileInputs<'t> {
    pub input: &'t Texts<'t>,
    pub arena: &'t str,
    pub stack_frames: Option<&'t str>,
    pub top_samples: Option<&'t str>,
    pub cpu_profile: Option<&'t str>,
    pub source_name: &'t str,
}

#[derive(Default)]
pub struct ProfileOutput {
    pub frames: Vec<Frame>,
    pub profiles: Vec<Profile>,
    pub samples: SampleTable,
}

struct Stream {
    profile: ProfileId,
    /// The time the first delta adds to; `None`: the runs hold times, not deltas
    /// (a `.cpuprofile`'s own).
    start: Option<i64>,
    nodes: Vec<NodeRec>,
    /// The samples, in runs as their chunks brought them: (time deltas, node
    /// ids), of one length, none empty. Each chunk's vectors are kept as they
    /// are, not copied into one vector per stream (16 bytes a sample, grown by
    /// doubling, held with the chunks and the sample table at the model's peak),
    /// and read once: the times and frames are made as the table is written.
    samples: Vec<(ChunkInts, ChunkInts)>,
}

impl Stream {
    /// Appends a run of samples: the first `min` of `times` (or deltas) and
    /// `nodes` (the rest have no pair).
    fn push(&mut self, mut times: ChunkInts, mut nodes: ChunkInts) {
        let n = times.len().min(nodes.len());
        times.truncate(n);
        nodes.truncate(n);
        if n > 0 {
            self.samples.push((times, nodes));
        }
    }
}

struct Row {
    thread: ThreadId,
    ts: i64,
    frame: Option<FrameId>,
    profile: Option<ProfileId>,
    weight: f64,
}

pub fn build(
    profiles: Parts<ProfileRec>,
    chunks: Parts<ChunkRec>,
    samples: Parts<SampleRec>,
    inputs: &ProfileInputs<'_>,
    registry: &mut Registry,
    strings: &SharedStrings,
    diags: &mut Diagnostics,
) -> ProfileOutput {
    let mut out = ProfileOutput::default();
    let mut streams: Vec<Stream> = Vec::new();
    let mut by_key: FxHashMap<(ProcessId, IdK), usize> = FxHashMap::default();
    // Profiles and chunks apply in file order.
    enum Ev {
        P(ProfileRec),
        C(ChunkRec),
    }
    let mut evs: Vec<(u64, Ev)> = Vec::with_capacity(count(&profiles) + count(&chunks));
    evs.extend(profiles.into_iter().flatten().map(|p| (p.offset, Ev::P(p))));
    evs.extend(chunks.into_iter().flatten().map(|c| (c.offset, Ev::C(c))));
    evs.sort_by_key(|(o, _)| *o);
    let new_stream =
        |out: &mut ProfileOutput, streams: &mut Vec<Stream>, process, thread, id, start, offset| {
            out.profiles.push(Profile {
                process,
                thread,
                id,
                start,
                samples: 0,
                offset,
            });
            streams.push(Stream {
                profile: ProfileId::at(out.profiles.len() - 1),
                start: Some(start),
                nodes: Vec::new(),
                samples: Vec::new(),
            });
            streams.len() - 1
        };
    for (_, ev) in evs {
        match ev {
            Ev::P(p) => {
                let s = new_stream(
                    &mut out,
                    &mut streams,
                    p.process,
                    p.thread,
                    p.id,
                    p.start,
                    p.offset,
                );
                by_key.insert((p.process, p.key), s);
            }
            Ev::C(c) => {
                let s = match by_key.get(&(c.process, c.key)) {
                    Some(&s) => s,
                    None => {
                        diags.add(DiagKind::BadProfile, c.offset, || {
                            "ProfileChunk without a Profile event".into()
                        });
                        let s = new_stream(
                            &mut out,
                            &mut streams,
                            c.process,
                            c.thread,
                            c.id,
                            c.ts,
                            c.offset,
                        );
                        by_key.insert((c.process, c.key), s);
                        s
                    }
                };
                let st = &mut streams[s];
                st.nodes.extend(c.nodes);
                if c.samples.len() != c.deltas.len() {
                    diags.add(DiagKind::ProfileLengthMismatch, c.offset, || {
                        format!("{} samples, {} timeDeltas", c.samples.len(), c.deltas.len())
                    });
                }
                // The deltas become times as the table is written.
                st.push(c.deltas, c.samples);
            }
        }
    }
    if let Some(doc) = inputs.cpu_profile {
        cpu_profile(
            doc,
            inputs.source_name,
            &mut out,
            &mut streams,
            registry,
            strings,
            diags,
        );
    }
    // The profiles' samples stay in their streams, read once when the table is
    // written; only the `P` and top-level samples are made rows here. Each
    // stream's frames are made first, in stream order.
    let frame_of: Vec<FrameOf> = streams
        .iter()
        .map(|st| FrameOf::new(node_frames(&st.nodes, &mut out.frames)))
        .collect();
    let mut rows: Vec<Row> = Vec::with_capacity(count(&samples));
    let mut dict = StackFrames::new(inputs.stack_frames, strings, diags);
    for s in samples.into_iter().flatten() {
        let frame = if !s.sf.is_none() {
            dict.frame(strings.get(s.sf).as_str(), &mut out.frames, diags, s.offset)
        } else {
            raw_stack(
                &inputs.input.resolve(inputs.arena, s.stack),
                &mut out.frames,
                strings,
            )
        };
        rows.push(Row {
            thread: s.thread,
            ts: s.ts,
            frame,
            profile: None,
            weight: s.weight,
        });
    }
    if let Some(text) = inputs.top_samples {
        top_samples(
            text,
            &mut dict,
            &mut out.frames,
            &mut rows,
            registry,
            strings,
            diags,
        );
    }
    let runs: Vec<Run<'_>> = streams
        .iter()
        .zip(&frame_of)
        .enumerate()
        .map(|(index, (st, frames))| {
            Run::Stream(StreamRun {
                thread: out.profiles[st.profile.index()].thread,
                profile: st.profile,
                start: st.start,
                samples: &st.samples,
                frames,
                index,
            })
        })
        .chain(rows.iter().map(Run::Row))
        .collect();
    let (table, mut unknown) = sample_table(runs);
    out.samples = table;
    // In stream order, each stream's in sample order: as a pass over the streams
    // would have found them.
    unknown.sort_by_key(|u| u.0);
    for (index, node) in unknown {
        let offset = out.profiles[streams[index as usize].profile.index()].offset;
        diags.add(DiagKind::BadProfile, offset, || {
            format!("sample of unknown node {node}")
        });
    }
    for (p, rows) in out.samples.profile_runs() {
        if let Some(p) = p {
            out.profiles[p.index()].samples += rows.len() as u32;
        }
    }
    out
}

/// Samples in the order they were made: a profile's stream, or one row.
enum Run<'a> {
    Stream(StreamRun<'a>),
    Row(&'a Row),
}

/// A profile's samples.
struct StreamRun<'a> {
    thread: ThreadId,
    profile: ProfileId,
    /// The time the first delta adds to; `None`: the runs hold times.
    start: Option<i64>,
    /// Runs of (time deltas or times, node ids).
    samples: &'a [(ChunkInts, ChunkInts)],
    frames: &'a FrameOf,
    /// The stream's index, for its unknown nodes.
    index: usize,
}

impl Run<'_> {
    fn thread(&self) -> ThreadId {
        match self {
            Run::Stream(s) => s.thread,
            Run::Row(r) => r.thread,
        }
    }
}

/// The sample table: the samples of `runs` sorted by (thread, time), ties in the
/// order made. Each thread's samples are appended in turn (a stable sort by thread
/// that writes the columns in order), then sorted by time only if they are not
/// already: a profile's stream comes in time order, and the common trace has one
/// per thread. (Sorting every row, 32 bytes each, and copying them into the
/// columns made twice the memory of the table, fresh.)
///
/// Also returns the samples whose node has no frame, as (stream index, node id),
/// in the order written.
fn sample_table(mut runs: Vec<Run<'_>>) -> (SampleTable, Vec<(u32, i64)>) {
    let mut unknown = Vec::new();
    let n: usize = runs
        .iter()
        .map(|r| match r {
            Run::Stream(s) => s.samples.iter().map(|run| run.0.len()).sum(),
            Run::Row(_) => 1,
        })
        .sum();
    runs.sort_by_key(Run::thread);
    let mut t = SampleTable::default();
    let mut times = ThreadTimes {
        rows: BlockTimesBuilder::with_capacity(n),
        last: i64::MIN,
        sorted: true,
    };
    t.leaves.building().reserve_exact(n);
    // (row, weight) of the weights other than 1.
    let mut weights: Vec<(u32, f64)> = Vec::new();
    let mut from = 0;
    for (k, run) in runs.iter().enumerate() {
        let row = t.leaves.len() as u32;
        if !matches!(run, Run::Stream(s) if s.samples.is_empty()) {
            t.threads.push(row, run.thread());
        }
        match run {
            Run::Stream(s) => {
                let mut time = s.start.unwrap_or(0);
                for (deltas, nodes) in s.samples {
                    match s.start {
                        Some(_) => {
                            for d in deltas.iter() {
                                time = time.saturating_add(d);
                                times.push(time);
                            }
                        }
                        None => deltas.iter().for_each(|ts| times.push(ts)),
                    }
                    t.leaves.building().extend(nodes.iter().map(|node| {
                        let f = s.frames.get(node);
                        if f.is_none() {
                            unknown.push((s.index as u32, node));
                        }
                        f
                    }));
                }
                if !s.samples.is_empty() {
                    t.profiles.push(row, Some(s.profile));
                }
            }
            Run::Row(r) => {
                times.push(r.ts);
                t.leaves.building().push(r.frame);
                t.profiles.push(row, r.profile);
                if SampleTable::keeps_weight(r.weight) {
                    weights.push((row, r.weight));
                }
            }
        }
        let last_of_thread = runs
            .get(k + 1)
            .is_none_or(|next| next.thread() != run.thread());
        if last_of_thread {
            let to = t.leaves.len();
            if !times.sorted {
                sort_by_time(&mut t, &mut times.rows, &mut weights, from, to);
            }
            (times.last, times.sorted) = (i64::MIN, true);
            from = to;
        }
    }
    t.times = times.rows.finish();
    t.leaves = std::mem::take(&mut t.leaves).narrowed();
    t.threads.shrink_to_fit();
    t.profiles.shrink_to_fit();
    t.weights = Weights::new(weights, n);
    (t, unknown)
}

/// The sample table's times as written, and whether the current thread's are in
/// time order so far.
struct ThreadTimes {
    rows: BlockTimesBuilder,
    /// The thread's last time written (`i64::MIN` before its first).
    last: i64,
    sorted: bool,
}

impl ThreadTimes {
    fn push(&mut self, ts: i64) {
        self.sorted &= self.last <= ts;
        self.last = ts;
        self.rows.push(ts);
    }
}

/// Rows `from..to` of `t` (one thread's, the last written) in time order, ties in
/// their order (a thread whose samples come from several streams, or from `P`
/// events out of order). `weights` holds the rows' weights other than 1, by row.
fn sort_by_time(
    t: &mut SampleTable,
    times: &mut BlockTimesBuilder,
    weights: &mut Vec<(u32, f64)>,
    from: usize,
    to: usize,
) {
    let written: Vec<i64> = (from..to).map(|i| times.get(i)).collect();
    let mut order: Vec<usize> = (from..to).collect();
    order.sort_by_key(|&i| written[i - from]);
    times.truncate(from);
    for &i in &order {
        times.push(written[i - from]);
    }
    fn permute<T: Copy>(col: &mut [T], order: &[usize], from: usize) {
        let moved: Vec<T> = order.iter().map(|&i| col[i]).collect();
        col[from..from + moved.len()].copy_from_slice(&moved);
    }
    permute(t.leaves.building(), &order, from);
    let profiles: Vec<Option<ProfileId>> = order.iter().map(|&i| t.profiles.get(i)).collect();
    t.profiles.truncate(from as u32);
    for (k, p) in profiles.into_iter().enumerate() {
        t.profiles.push((from + k) as u32, p);
    }
    let kept = weights.partition_point(|w| (w.0 as usize) < from);
    let old: FxHashMap<u32, f64> = weights.drain(kept..).collect();
    for (k, &i) in order.iter().enumerate() {
        if let Some(&w) = old.get(&(i as u32)) {
            weights.push(((from + k) as u32, w));
        }
    }
}

/// A profile's node ids to frames: a vector by id when the ids are small (the
/// common profile numbers its nodes from 1), else the map. Looked up once per
/// sample (millions), where the map's hashing and probing was a fifth of the
/// profiles step.
enum FrameOf {
    Dense(Vec<Option<FrameId>>),
    Map(FxHashMap<i64, FrameId>),
}

impl FrameOf {
    fn new(map: FxHashMap<i64, FrameId>) -> Self {
        let limit = 4 * map.len() as i64 + 1024;
        if map.keys().all(|&id| (0..limit).contains(&id)) {
            let len = map.keys().max().map_or(0, |&m| m as usize + 1);
            let mut v = vec![None; len];
            for (&id, &f) in &map {
                v[id as usize] = Some(f);
            }
            FrameOf::Dense(v)
        } else {
            FrameOf::Map(map)
        }
    }

    fn get(&self, node: i64) -> Option<FrameId> {
        match self {
            FrameOf::Dense(v) => usize::try_from(node)
                .ok()
                .and_then(|i| v.get(i).copied().flatten()),
            FrameOf::Map(m) => m.get(&node).copied(),
        }
    }
}

/// Frames for a profile's nodes; parents come from `parent` or from `children`.
fn node_frames(nodes: &[NodeRec], frames: &mut Vec<Frame>) -> FxHashMap<i64, FrameId> {
    let mut index: FxHashMap<i64, FrameId> = FxHashMap::default();
    for n in nodes {
        index.entry(n.id).or_insert_with(|| {
            frames.push(Frame {
                parent: None,
                name: n.name,
                url: n.url,
                category: StrId::NONE,
                line: n.line,
                column: n.column,
            });
            FrameId::at(frames.len() - 1)
        });
    }
    for n in nodes {
        let me = index[&n.id];
        if let Some(p) = n.parent.and_then(|p| index.get(&p)) {
            frames[me.index()].parent = Some(*p);
        }
        for c in &n.children {
            if let Some(&ci) = index.get(c) {
                if ci != me {
                    frames[ci.index()].parent = Some(me);
                }
            }
        }
    }
    // A parent cycle would make stacks endless: cut it.
    for start in 0..frames.len() {
        let mut seen = 0;
        let mut f = start;
        while let Some(p) = frames[f].parent {
            seen += 1;
            if seen > frames.len() {
                frames[start].parent = None;
                break;
            }
            f = p.index();
        }
    }
    index
}

/// A raw V8 `.cpuprofile`: one profile on a process and thread named after the file.
fn cpu_profile(
    doc: &str,
    name: &str,
    out: &mut ProfileOutput,
    streams: &mut Vec<Stream>,
    registry: &mut Registry,
    strings: &SharedStrings,
    diags: &mut Diagnostics,
) {
    let Ok(v) = Value::parse(doc) else {
        diags.add(DiagKind::BadProfile, 0, || {
            "the .cpuprofile is not valid JSON".into()
        });
        return;
    };
    let one = PidK::Int(tracescope_format::Int64::I(1));
    let process = registry.process(one);
    let thread = registry.thread(process, one);
    let label = strings.intern(name);
    registry.processes[process.index()].name = label;
    registry.threads[thread.index()].name = label;
    let mut nodes = Vec::new();
    if let Some(list) = v.get("nodes").and_then(Value::as_array) {
        nodes = parse_nodes(list, strings, diags, 0);
    } else if let Some(head) = v.get("head") {
        flatten_head(head, None, &mut nodes, strings, 0);
    }
    let samples: ChunkInts = v
        .get("samples")
        .and_then(Value::as_array)
        .map_or(ChunkInts::default(), |s| {
            s.iter().filter_map(Value::as_i64).collect()
        });
    let num = |k: &str| match v.get(k) {
        Some(Value::Number(n)) => Some(*n),
        _ => None,
    };
    let mut times: Vec<i64> = Vec::new();
    let start;
    if let Some(deltas) = v.get("timeDeltas").and_then(Value::as_array) {
        start = num("startTime").and_then(micros_text_to_ns).unwrap_or(0);
        let mut t = start;
        for d in super::profile_chunk::time_deltas(deltas, diags, 0).iter() {
            t = t.saturating_add(d);
            times.push(t);
        }
    } else if let Some(ts) = v.get("timestamps").and_then(Value::as_array) {
        times = ts
            .iter()
            .filter_map(|t| {
                if let Value::Number(n) = t {
                    micros_text_to_ns(n)
                } else {
                    None
                }
            })
            .collect();
        start = times.first().copied().unwrap_or(0);
    } else {
        // Old form without timestamps: seconds, samples spread evenly.
        let secs = |k| num(k).and_then(|n| micros_text_to_ns(&format!("{n}e6")));
        start = secs("startTime").unwrap_or(0);
        let end = secs("endTime").unwrap_or(start);
        let n = samples.len().max(1) as i64;
        times = (0..samples.len() as i64)
            .map(|i| {
                start.saturating_add(((end as i128 - start as i128) * i as i128 / n as i128) as i64)
            })
            .collect();
    }
    if times.len() != samples.len() {
        diags.add(DiagKind::ProfileLengthMismatch, 0, || {
            format!("{} samples, {} times", samples.len(), times.len())
        });
    }
    out.profiles.push(Profile {
        process,
        thread,
        id: IdVal::None,
        start,
        samples: 0,
        offset: 0,
    });
    let mut stream = Stream {
        profile: ProfileId::at(out.profiles.len() - 1),
        start: None,
        nodes,
        samples: Vec::new(),
    };
    stream.push(times.into_iter().collect(), samples);
    streams.push(stream);
}

fn flatten_head(
    n: &Value<'_>,
    parent: Option<i64>,
    out: &mut Vec<NodeRec>,
    strings: &SharedStrings,
    depth: u32,
) {
    if depth > 10_000 {
        return;
    }
    let id = n
        .get("id")
        .and_then(Value::as_i64)
        .unwrap_or(out.len() as i64 + 1);
    let mut rec = node(n, id, strings);
    rec.parent = parent;
    rec.children.clear();
    out.push(rec);
    for c in n.get("children").and_then(Value::as_array).unwrap_or(&[]) {
        flatten_head(c, Some(id), out, strings, depth + 1);
    }
}

/// The `stackFrames` dictionary, turned into frames on demand.
struct StackFrames<'v> {
    dict: FxHashMap<String, (Option<String>, StrId, StrId)>,
    made: FxHashMap<String, FrameId>,
    _p: std::marker::PhantomData<&'v ()>,
}

impl StackFrames<'_> {
    fn new(text: Option<&str>, strings: &SharedStrings, diags: &mut Diagnostics) -> Self {
        let mut dict = FxHashMap::default();
        if let Some(text) = text {
            match Value::parse(text) {
                Ok(Value::Object(entries)) => {
                    for (k, v) in entries {
                        let name = v
                            .get("name")
                            .and_then(Value::as_str)
                            .map_or(StrId::NONE, |s| strings.intern(s));
                        let cat = v
                            .get("category")
                            .and_then(Value::as_str)
                            .map_or(StrId::NONE, |s| strings.intern(s));
                        let parent = match v.get("parent") {
                            Some(Value::String(p)) => Some(p.to_string()),
                            Some(Value::Number(p)) => Some(p.to_string()),
                            _ => None,
                        };
                        dict.insert(k.to_string(), (parent, name, cat));
                    }
                }
                _ => diags.add(DiagKind::BadStackFrame, 0, || {
                    "stackFrames is not an object".into()
                }),
            }
        }
        StackFrames {
            dict,
            made: FxHashMap::default(),
            _p: std::marker::PhantomData,
        }
    }

    fn frame(
        &mut self,
        id: &str,
        frames: &mut Vec<Frame>,
        diags: &mut Diagnostics,
        offset: u64,
    ) -> Option<FrameId> {
        if let Some(&f) = self.made.get(id) {
            return Some(f);
        }
        // Walk to the root first, then make frames root-down.
        let mut chain = vec![id.to_string()];
        while let Some((Some(p), _, _)) = self.dict.get(chain.last().map_or("", |s| s.as_str())) {
            if self.made.contains_key(p) || chain.len() > self.dict.len() || chain.contains(p) {
                chain.push(p.clone());
                break;
            }
            chain.push(p.clone());
        }
        let mut parent = None;
        for key in chain.iter().rev() {
            if let Some(&f) = self.made.get(key) {
                parent = Some(f);
                continue;
            }
            let Some((_, name, cat)) = self.dict.get(key) else {
                diags.add(DiagKind::BadStackFrame, offset, || {
                    format!("unknown stack frame {key}")
                });
                continue;
            };
            frames.push(Frame {
                parent,
                name: *name,
                url: StrId::NONE,
                category: *cat,
                line: None,
                column: None,
            });
            let made = FrameId::at(frames.len() - 1);
            parent = Some(made);
            self.made.insert(key.clone(), made);
        }
        self.made.get(id).copied().or(parent)
    }
}

/// A `stack` array of frame names, root first.
fn raw_stack(text: &str, frames: &mut Vec<Frame>, strings: &SharedStrings) -> Option<FrameId> {
    let Ok(Value::Array(items)) = Value::parse(text) else {
        return None;
    };
    let mut parent = None;
    for it in items {
        let name = match &it {
            Value::String(s) => strings.intern(s),
            other => strings.intern(&other.to_compact()),
        };
        frames.push(Frame {
            parent,
            name,
            url: StrId::NONE,
            category: StrId::NONE,
            line: None,
            column: None,
        });
        parent = Some(FrameId::at(frames.len() - 1));
    }
    parent
}

/// A sample's `pid`/`tid` by the rules of event fields: a number, or a string that
/// is a decimal integer (that integer) or a name of its own.
fn sample_pid(v: Option<&Value<'_>>, strings: &SharedStrings) -> Option<PidK> {
    match v? {
        Value::Number(n) => tracescope_format::Int64::parse_number(n).map(PidK::Int),
        Value::String(s) => Some(match tracescope_format::Pid::from_str_value(s.clone()) {
            tracescope_format::Pid::Int(i) => PidK::Int(i),
            tracescope_format::Pid::Str(s) => PidK::Str(strings.intern(&s)),
        }),
        _ => None,
    }
}

/// The top-level `samples` array: `{cpu, tid, ts, name, sf, weight}`; a sample
/// belongs to the thread with its tid (pid 0 when none matches).
fn top_samples(
    text: &str,
    dict: &mut StackFrames<'_>,
    frames: &mut Vec<Frame>,
    rows: &mut Vec<Row>,
    registry: &mut Registry,
    strings: &SharedStrings,
    diags: &mut Diagnostics,
) {
    let Ok(Value::Array(items)) = Value::parse(text) else {
        diags.add(DiagKind::BadField, 0, || "samples is not an array".into());
        return;
    };
    let mut by_tid: FxHashMap<PidK, ThreadId> = FxHashMap::default();
    let mut by_pid_tid: FxHashMap<(PidK, PidK), ThreadId> = FxHashMap::default();
    for (i, t) in registry.threads.iter().enumerate() {
        by_tid.entry(t.tid).or_insert(ThreadId::at(i));
        let pid = registry.processes[t.process.index()].pid;
        by_pid_tid.insert((pid, t.tid), ThreadId::at(i));
    }
    for s in items {
        let zero = PidK::Int(tracescope_format::Int64::I(0));
        let tid = sample_pid(s.get("tid"), strings).unwrap_or(zero);
        let pid = sample_pid(s.get("pid"), strings);
        // The spec: the thread with this tid, pid 0 when none matches; a sample
        // that also names its pid prefers that process's thread.
        let known = pid
            .and_then(|p| by_pid_tid.get(&(p, tid)))
            .or_else(|| by_tid.get(&tid))
            .copied();
        let thread = match known {
            Some(t) => t,
            None => {
                let p = registry.process(zero);
                let t = registry.thread(p, tid);
                by_tid.insert(tid, t);
                t
            }
        };
        let ts = match s.get("ts") {
            Some(Value::Number(n)) => micros_text_to_ns(n).unwrap_or(0),
            Some(Value::String(n)) => {
                diags.add(DiagKind::NumericString, 0, || format!("samples ts {n:?}"));
                micros_text_to_ns(n).unwrap_or(0)
            }
            _ => 0,
        };
        let frame = match s.get("sf") {
            Some(Value::String(id)) => dict.frame(id, frames, diags, 0),
            Some(Value::Number(id)) => dict.frame(id, frames, diags, 0),
            _ => None,
        };
        let weight = match s.get("weight") {
            Some(Value::String(w)) => w.trim().parse().ok(),
            w => w.and_then(Value::as_f64),
        }
        .unwrap_or(1.0);
        rows.push(Row {
            thread,
            ts,
            frame,
            profile: None,
            weight,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample as (thread, ts, frame, profile, weight).
    type Sample = (ThreadId, i64, Option<FrameId>, Option<ProfileId>, f64);

    /// A profile's stream: its thread, its id, its (ts, frame row + 1).
    type StreamOf = (ThreadId, ProfileId, Vec<(i64, i64)>);

    /// Every sample in table order.
    fn listed(t: &SampleTable) -> Vec<Sample> {
        (0..t.len())
            .map(|i| (t.thread(i), t.ts(i), t.leaf(i), t.profile(i), t.weight(i)))
            .collect()
    }

    /// Streams and rows on a few threads, some in time order and some not, some
    /// threads with several streams: the table is every sample sorted by (thread,
    /// time), ties in the order made (a stable sort of all the rows, as before).
    #[test]
    fn samples_placed_by_thread_then_time_as_a_stable_sort() {
        let mut state = 7u64;
        let mut next = move |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        for round in 0..200 {
            let mut streams: Vec<StreamOf> = Vec::new();
            for s in 0..next(4) {
                let sorted = next(2) == 0;
                let mut ts = 0;
                let samples = (0..next(30))
                    .map(|_| {
                        ts = if sorted {
                            ts + next(3) as i64
                        } else {
                            next(20) as i64
                        };
                        (ts, next(4) as i64)
                    })
                    .collect();
                streams.push((
                    ThreadId::at(next(3) as usize),
                    ProfileId::at(s as usize),
                    samples,
                ));
            }
            let rows: Vec<Row> = (0..next(20))
                .map(|_| Row {
                    thread: ThreadId::at(next(4) as usize),
                    ts: next(25) as i64,
                    frame: (next(3) != 0).then(|| FrameId::at(next(5) as usize)),
                    profile: None,
                    // Many weights other than 1 (kept on every row) or few.
                    weight: if round % 2 == 0 || next(8) == 0 {
                        next(3) as f64
                    } else {
                        1.0
                    },
                })
                .collect();
            let mut all: Vec<Sample> = Vec::new();
            for (thread, profile, samples) in &streams {
                for &(ts, f) in samples {
                    let frame = (f > 0).then(|| FrameId::at(f as usize - 1));
                    all.push((*thread, ts, frame, Some(*profile), 1.0));
                }
            }
            all.extend(
                rows.iter()
                    .map(|r| (r.thread, r.ts, r.frame, r.profile, r.weight)),
            );
            all.sort_by_key(|r| (r.0, r.1));
            // Each stream's samples in runs of 1 to 7, as chunks bring them; every
            // other stream as time deltas from a start.
            let start = |s: usize| (s % 2 == 1).then_some(3i64);
            let split: Vec<Vec<(ChunkInts, ChunkInts)>> = streams
                .iter()
                .enumerate()
                .map(|(k, (.., s))| {
                    let mut prev = start(k).unwrap_or(0);
                    let s: Vec<(i64, i64)> = s
                        .iter()
                        .map(|&(ts, f)| match start(k) {
                            Some(_) => {
                                let d = ts - prev;
                                prev = ts;
                                (d, f)
                            }
                            None => (ts, f),
                        })
                        .collect();
                    let mut runs = Vec::new();
                    let mut rest = &s[..];
                    while !rest.is_empty() {
                        let (run, after) = rest.split_at((1 + next(7) as usize).min(rest.len()));
                        let (times, nodes): (Vec<i64>, Vec<i64>) = run.iter().copied().unzip();
                        runs.push((times.into_iter().collect(), nodes.into_iter().collect()));
                        rest = after;
                    }
                    runs
                })
                .collect();
            // Node f is frame f - 1; node 0 has none.
            let frames = FrameOf::Dense(
                (0..4)
                    .map(|f| (f > 0).then(|| FrameId::at(f - 1)))
                    .collect(),
            );
            let runs = streams
                .iter()
                .zip(&split)
                .enumerate()
                .map(|(index, ((t, p, _), s))| {
                    Run::Stream(StreamRun {
                        thread: *t,
                        profile: *p,
                        start: start(index),
                        samples: s,
                        frames: &frames,
                        index,
                    })
                })
                .chain(rows.iter().map(Run::Row))
                .collect();
            let (table, unknown) = sample_table(runs);
            let want_unknown: Vec<(u32, i64)> = {
                let mut order: Vec<usize> = (0..streams.len()).collect();
                order.sort_by_key(|&k| streams[k].0);
                order
                    .into_iter()
                    .flat_map(|k| {
                        streams[k]
                            .2
                            .iter()
                            .filter(|s| s.1 == 0)
                            .map(move |_| (k as u32, 0))
                    })
                    .collect()
            };
            assert_eq!(unknown, want_unknown, "round {round}");
            assert_eq!(listed(&table), all, "round {round}");
        }
    }
}
