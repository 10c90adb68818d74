//! CPU profiles and samples (spec section 9): `Profile`/`ProfileChunk` streams,
//! `P` samples with `sf`/`stack` through `stackFrames`, the top-level `samples`
//! array, and raw `.cpuprofile` documents.

use rustc_hash::FxHashMap;
use tracescope_format::json::Value;
use tracescope_format::time::micros_text_to_ns;
use tracescope_format::{DiagKind, Diagnostics};

use super::profile_chunk::{node, parse_nodes};
use super::records::{ChunkRec, IdK, NodeRec, ProfileRec, SampleRec};
use super::registry::Registry;
use crate::args::Texts;
use crate::strings::{SharedStrings, StrId};
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
    time: i64,
    nodes: Vec<NodeRec>,
    /// (ts, node id)
    samples: Vec<(i64, i64)>,
}

struct Row {
    thread: ThreadId,
    ts: i64,
    frame: Option<FrameId>,
    profile: Option<ProfileId>,
    weight: f64,
}

pub fn build(
    profiles: Vec<ProfileRec>,
    chunks: Vec<ChunkRec>,
    samples: Vec<SampleRec>,
    inputs: &ProfileInputs<'_>,
    registry: &mut Registry,
    strings: &SharedStrings,
    diags: &mut Diagnostics,
) -> ProfileOutput {
    let mut out = ProfileOutput::default();
    let mut rows: Vec<Row> = Vec::new();
    let mut streams: Vec<Stream> = Vec::new();
    let mut by_key: FxHashMap<(ProcessId, IdK), usize> = FxHashMap::default();
    // Profiles and chunks apply in file order.
    enum Ev {
        P(ProfileRec),
        C(ChunkRec),
    }
    let mut evs: Vec<(u64, Ev)> = profiles.into_iter().map(|p| (p.offset, Ev::P(p))).collect();
    evs.extend(chunks.into_iter().map(|c| (c.offset, Ev::C(c))));
    evs.sort_by_key(|(o, _)| *o);
    let new_stream =
        |out: &mut ProfileOutput, streams: &mut Vec<Stream>, process, thread, id, start, offset| {
            out.profiles.push(Profile {
                process,
                thread,
                id,
                start,
                samples: (0, 0),
                offset,
            });
            streams.push(Stream {
                profile: ProfileId::at(out.profiles.len() - 1),
                time: start,
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
                for (node, delta) in c.samples.iter().zip(&c.deltas) {
                    st.time = st.time.saturating_add(*delta);
                    st.samples.push((st.time, *node));
                }
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
    // Every row is made before the sort: room for all of them at once.
    rows.reserve_exact(streams.iter().map(|st| st.samples.len()).sum::<usize>() + samples.len());
    for st in streams {
        let p = &out.profiles[st.profile.index()];
        let (thread, profile) = (p.thread, st.profile);
        let frames = node_frames(&st.nodes, &mut out.frames);
        for (ts, node) in st.samples {
            let frame = frames.get(&node).copied();
            if frame.is_none() {
                diags.add(DiagKind::BadProfile, p.offset, || {
                    format!("sample of unknown node {node}")
                });
            }
            rows.push(Row {
                thread,
                ts,
                frame,
                profile: Some(profile),
                weight: 1.0,
            });
        }
    }
    let mut dict = StackFrames::new(inputs.stack_frames, strings, diags);
    for s in samples {
        let frame = if !s.sf.is_none() {
            dict.frame(strings.get(s.sf).as_str(), &mut out.frames, diags, s.offset)
        } else {
            raw_stack(
                inputs.input.resolve(inputs.arena, s.stack),
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
    rows.sort_by_key(|r| (r.thread, r.ts));
    let t = &mut out.samples;
    t.thread.reserve_exact(rows.len());
    t.ts.reserve_exact(rows.len());
    t.frame.reserve_exact(rows.len());
    t.profile.reserve_exact(rows.len());
    t.weight.reserve_exact(rows.len());
    for (i, r) in rows.into_iter().enumerate() {
        if let Some(p) = r.profile {
            let range = &mut out.profiles[p.index()].samples;
            if range.0 == range.1 {
                *range = (i as u32, i as u32);
            }
            range.1 = i as u32 + 1;
        }
        t.thread.push(r.thread);
        t.ts.push(r.ts);
        t.frame.push(r.frame);
        t.profile.push(r.profile);
        t.weight.push(r.weight);
    }
    out
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
    let samples: Vec<i64> = v
        .get("samples")
        .and_then(Value::as_array)
        .map_or(Vec::new(), |s| s.iter().filter_map(Value::as_i64).collect());
    let num = |k: &str| match v.get(k) {
        Some(Value::Number(n)) => Some(*n),
        _ => None,
    };
    let mut times: Vec<i64> = Vec::new();
    let start;
    if let Some(deltas) = v.get("timeDeltas").and_then(Value::as_array) {
        start = num("startTime").and_then(micros_text_to_ns).unwrap_or(0);
        let mut t = start;
        for d in super::profile_chunk::time_deltas(deltas, diags, 0) {
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
        samples: (0, 0),
        offset: 0,
    });
    streams.push(Stream {
        profile: ProfileId::at(out.profiles.len() - 1),
        time: start,
        nodes,
        samples: times.into_iter().zip(samples).collect(),
    });
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
