//! CPU profiles, their stack frames and samples.

use super::async_slices::IdVal;
use super::block_times::BlockTimes;
use super::decl::{order_by, Column, ColumnType as T, Fill, RowSource, Table, Value};
use super::ids::{FrameId, ProcessId, ProfileId, ThreadId};
use super::leaf_frames::LeafFrames;
use super::runs::Runs;
use super::sparse::Sparse;
use super::threads::{thread_fill, RowThread};
use crate::strings::StrId;
use crate::trace::Trace;
use std::ops::Range;

/// One node of a call tree: a frame and its caller. Profile nodes and `stackFrames`
/// entries both live here.
#[derive(Clone, Debug)]
pub struct Frame {
    pub parent: Option<FrameId>,
    pub name: StrId,
    pub url: StrId,
    pub category: StrId,
    /// 0-based as V8 writes them.
    pub line: Option<i64>,
    pub column: Option<i64>,
}

/// A CPU profile (`Profile`/`ProfileChunk`, or a raw `.cpuprofile`).
#[derive(Clone, Debug)]
pub struct Profile {
    pub process: ProcessId,
    pub thread: ThreadId,
    pub id: IdVal,
    pub start: i64,
    /// How many rows of `SampleTable` are this profile's (not always in one run:
    /// two profiles of a thread interleave).
    pub samples: u32,
    pub offset: u64,
}

/// Stack samples, sorted by (thread, ts): 6 bytes a row (8 with more than 65,534 frames). The times are kept by
/// blocks of rows ([`BlockTimes`]: 4 bytes a row for a thread's samples, read
/// with [`SampleTable::ts`]). A thread's samples are one run of rows and a
/// profile's mostly one too, so both are kept by runs; the weight is 1 on nearly
/// every row, so only the rows whose weight differs keep it (all rows do when
/// many differ).
#[derive(Clone, Debug, Default)]
pub struct SampleTable {
    pub(crate) times: BlockTimes,
    /// Leaf frame, or `None` for an empty stack (read with [`SampleTable::leaf`]).
    pub(crate) leaves: LeafFrames,
    pub(crate) threads: Runs<ThreadId>,
    /// Profile the sample came from (`None`: a `P` event or top-level `samples`).
    pub(crate) profiles: Runs<Option<ProfileId>>,
    pub(crate) weights: Weights,
}

/// The samples' weights.
#[derive(Clone, Debug)]
pub(crate) enum Weights {
    /// The rows whose weight is not 1 (most traces have none).
    Sparse(Sparse<f64>),
    /// Every row's, when a third or more are not 1 (12 bytes a row in `Sparse`).
    Dense(Vec<f64>),
}

impl Default for Weights {
    fn default() -> Self {
        Weights::Sparse(Sparse::default())
    }
}

impl Weights {
    /// From the (row, weight) pairs, in row order, of the weights other than 1 in
    /// a table of `len` rows.
    pub(crate) fn new(pairs: Vec<(u32, f64)>, len: usize) -> Weights {
        if pairs.len() * 3 < len {
            return Weights::Sparse(Sparse::from_pairs(pairs));
        }
        let mut all = vec![1.0; len];
        for (row, w) in pairs {
            all[row as usize] = w;
        }
        Weights::Dense(all)
    }
}

impl SampleTable {
    pub fn len(&self) -> usize {
        self.leaves.len()
    }
    pub fn is_empty(&self) -> bool {
        self.leaves.len() == 0
    }
    /// The leaf frame of row `i` (`None`: an empty stack).
    #[inline]
    pub fn leaf(&self, i: usize) -> Option<FrameId> {
        self.leaves.get(i)
    }

    /// The leaf frames of `rows`, in order.
    pub fn leaves(&self, rows: Range<usize>) -> impl Iterator<Item = Option<FrameId>> + '_ {
        self.leaves.range(rows)
    }

    /// The time of row `i`.
    #[inline]
    pub fn ts(&self, i: usize) -> i64 {
        self.times.get(i)
    }
    /// The times column.
    pub fn times(&self) -> &BlockTimes {
        &self.times
    }
    /// The first row of `rows` whose time fails `pred` (true on a prefix of
    /// `rows`, as sorted by time: one thread's), or `rows.end`.
    pub fn ts_partition_point(&self, rows: Range<usize>, pred: impl FnMut(i64) -> bool) -> usize {
        self.times.partition_point(rows, pred)
    }
    /// The sampled thread of row `i`.
    pub fn thread(&self, i: usize) -> ThreadId {
        self.threads.get(i)
    }
    /// Each sampled thread and its rows, in row order (a thread appears once).
    pub fn threads(&self) -> impl Iterator<Item = (ThreadId, Range<usize>)> + '_ {
        self.threads.iter(self.len())
    }
    /// The profile of row `i` (`None`: a `P` event or top-level `samples`).
    pub fn profile(&self, i: usize) -> Option<ProfileId> {
        self.profiles.get(i)
    }
    /// Runs of rows of one profile (or none), in row order.
    pub fn profile_runs(&self) -> impl Iterator<Item = (Option<ProfileId>, Range<usize>)> + '_ {
        self.profiles.iter(self.len())
    }
    /// The weight of row `i` (1 unless the trace says).
    pub fn weight(&self, i: usize) -> f64 {
        match &self.weights {
            Weights::Sparse(s) => s.get(i).unwrap_or(1.0),
            Weights::Dense(all) => all[i],
        }
    }
    /// Whether `w` is kept apart ([`SampleTable::weight`] gives 1 otherwise): any
    /// value but 1.0 itself, -0.0 and NaN included.
    pub(crate) fn keeps_weight(w: f64) -> bool {
        w.to_bits() != 1.0f64.to_bits()
    }
}

impl Trace {
    pub fn frame(&self, f: FrameId) -> &Frame {
        &self.tables.frames[f.index()]
    }

    /// Frame names from the root to `leaf`, joined by `;`.
    pub fn stack_text(&self, leaf: Option<FrameId>) -> String {
        let mut names = Vec::new();
        let mut f = leaf;
        while let Some(id) = f {
            if names.len() > self.tables.frames.len() {
                break;
            }
            let fr = self.frame(id);
            names.push(self.name(fr.name));
            f = fr.parent;
        }
        names.reverse();
        names.join(";")
    }
}

fn p(t: &Trace, i: usize) -> &Profile {
    &t.tables.profiles[i]
}

fn fr(t: &Trace, i: usize) -> &Frame {
    &t.tables.frames[i]
}

fn s(t: &Trace) -> &SampleTable {
    &t.tables.samples
}

pub static PROFILES_TABLE: Table = Table {
    fills: None,
    name: "profiles",
    doc: "CPU profiles (Profile/ProfileChunk events, or a raw .cpuprofile).",
    rows: RowSource::Indexed {
        len: |t| t.tables.profiles.len(),
        order: |t| {
            order_by(t.tables.profiles.len(), |&i| {
                (p(t, i as usize).start, p(t, i as usize).offset)
            })
        },
        columns: &[
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid of the profile",
                get: |t, i| t.process_pid_value(p(t, i).process),
            },
            Column {
                name: "tid",
                ty: T::Pid,
                nullable: false,
                doc: "tid of the profile",
                get: |t, i| t.tid_value(Some(p(t, i).thread)),
            },
            Column {
                name: "id",
                ty: T::Str,
                nullable: true,
                doc: "the profile's id as written",
                get: |t, i| t.id_value(p(t, i).id),
            },
            Column {
                name: "start_ns",
                ty: T::Time,
                nullable: false,
                doc: "start time of the profile",
                get: |t, i| Value::Int(p(t, i).start),
            },
            Column {
                name: "samples",
                ty: T::Int,
                nullable: false,
                doc: "number of samples",
                get: |t, i| Value::Int(p(t, i).samples.into()),
            },
            Column {
                name: "profile_id",
                ty: T::Id("profiles"),
                nullable: false,
                doc: "row id (ProfileId; `id` is the trace's own)",
                get: |_, i| ProfileId::at(i).into(),
            },
            Column {
                name: "thread_id",
                ty: T::Id("threads"),
                nullable: false,
                doc: "the profile's thread (threads.id)",
                get: |t, i| p(t, i).thread.into(),
            },
        ],
    },
};

pub static FRAMES_TABLE: Table = Table {
    fills: None,
    name: "frames",
    doc: "Stack frames: CPU profile nodes and stackFrames entries, each with its caller.",
    rows: RowSource::Indexed {
        len: |t| t.tables.frames.len(),
        order: |t| (0..t.tables.frames.len() as u32).collect(),
        columns: &[
            Column {
                name: "id",
                ty: T::Id("frames"),
                nullable: false,
                doc: "row id (FrameId)",
                get: |_, i| FrameId::at(i).into(),
            },
            Column {
                name: "parent_id",
                ty: T::Id("frames"),
                nullable: true,
                doc: "the caller's frame (null at a root)",
                get: |t, i| fr(t, i).parent.into(),
            },
            Column {
                name: "name",
                ty: T::Str,
                nullable: false,
                doc: "function name",
                get: |t, i| t.name_value(fr(t, i).name),
            },
            Column {
                name: "url",
                ty: T::Str,
                nullable: true,
                doc: "script URL",
                get: |t, i| t.opt_str_value(fr(t, i).url),
            },
            Column {
                name: "category",
                ty: T::Str,
                nullable: true,
                doc: "stackFrames category",
                get: |t, i| t.opt_str_value(fr(t, i).category),
            },
            Column {
                name: "line",
                ty: T::Int,
                nullable: true,
                doc: "line number, 0-based as V8 writes it",
                get: |t, i| Value::opt_int(fr(t, i).line),
            },
            Column {
                name: "column",
                ty: T::Int,
                nullable: true,
                doc: "column number, 0-based",
                get: |t, i| Value::opt_int(fr(t, i).column),
            },
        ],
    },
};

pub static TABLE: Table = Table {
    fills: Some(fill),
    name: "samples",
    doc: "CPU samples (profiles, P events, top-level samples) with their stacks.",
    rows: RowSource::Indexed {
        len: |t| s(t).len(),
        order: |t| {
            let (_, trank) = t.ranks();
            let s = s(t);
            let mut rank = vec![0; s.len()];
            for (th, rows) in s.threads() {
                rank[rows].fill(trank[th.index()]);
            }
            order_by(s.len(), |&i| (s.ts(i as usize), rank[i as usize]))
        },
        columns: &[
            Column {
                name: "pid",
                ty: T::Pid,
                nullable: false,
                doc: "pid of the sampled thread",
                get: |t, i| t.thread_pid_value(Some(s(t).thread(i))),
            },
            Column {
                name: "tid",
                ty: T::Pid,
                nullable: false,
                doc: "tid of the sampled thread",
                get: |t, i| t.tid_value(Some(s(t).thread(i))),
            },
            Column {
                name: "ts_ns",
                ty: T::Time,
                nullable: false,
                doc: "time of the sample",
                get: |t, i| Value::Int(s(t).ts(i)),
            },
            Column {
                name: "stack",
                ty: T::Str,
                nullable: false,
                doc: "frame names from the root, joined by ';'",
                get: |t, i| Value::String(t.stack_text(s(t).leaf(i))),
            },
            Column {
                name: "weight",
                ty: T::Float,
                nullable: false,
                doc: "sample weight (1 unless the trace says)",
                get: |t, i| Value::Float(s(t).weight(i)),
            },
            Column {
                name: "id",
                ty: T::Id("samples"),
                nullable: false,
                doc: "row id",
                get: |_, i| Value::Int(i as i64),
            },
            Column {
                name: "thread_id",
                ty: T::Id("threads"),
                nullable: false,
                doc: "the sampled thread (threads.id)",
                get: |t, i| s(t).thread(i).into(),
            },
            Column {
                name: "frame_id",
                ty: T::Id("frames"),
                nullable: true,
                doc: "the leaf frame (frames.id; null for an empty stack)",
                get: |t, i| s(t).leaf(i).into(),
            },
            Column {
                name: "profile_id",
                ty: T::Id("profiles"),
                nullable: true,
                doc: "the profile (null for P events and top-level samples)",
                get: |t, i| s(t).profile(i).into(),
            },
        ],
    },
};

/// The rows of this table, by thread.
struct SampleRows;

impl RowThread for SampleRows {
    fn thread_of(t: &Trace, i: usize) -> ThreadId {
        s(t).thread(i)
    }
}

/// The fills of the samples table's columns ([`Fill`]): the same cells as the
/// getters above.
pub(crate) fn fill(column: &str) -> Option<Fill> {
    if let Some(fill) = thread_fill::<SampleRows>(column) {
        return Some(fill);
    }
    Some(match column {
        // A stack is text made from the frames: once per leaf frame and row
        // group, not once per sample (0: no frame).
        "stack" => Fill::Keyed {
            keys: |t, rows, out| {
                out.extend(
                    rows.iter()
                        .map(|&i| s(t).leaf(i as usize).map_or(0, |f| f.raw() + 1)),
                )
            },
            cell: |t, k| Value::String(t.stack_text(k.checked_sub(1).map(FrameId::new))),
        },
        "ts_ns" => Fill::Int(|t, rows, out| {
            let s = s(t);
            out.extend(rows.iter().map(|&i| Some(s.ts(i as usize))))
        }),
        "weight" => {
            Fill::Float(|t, rows, out| out.extend(rows.iter().map(|&i| s(t).weight(i as usize))))
        }
        "id" => Fill::Int(|_, rows, out| out.extend(rows.iter().map(|&i| Some(i as i64)))),
        "thread_id" => Fill::Int(|t, rows, out| {
            out.extend(
                rows.iter()
                    .map(|&i| Some(s(t).thread(i as usize).raw() as i64)),
            )
        }),
        "frame_id" => Fill::Int(|t, rows, out| {
            out.extend(
                rows.iter()
                    .map(|&i| s(t).leaf(i as usize).map(|f| f.raw() as i64)),
            )
        }),
        "profile_id" => Fill::Int(|t, rows, out| {
            out.extend(
                rows.iter()
                    .map(|&i| s(t).profile(i as usize).map(|p| p.raw() as i64)),
            )
        }),
        _ => return None,
    })
}
