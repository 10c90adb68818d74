//! Tables as rows of cells, ids resolved to names: what `tracescope tables` prints
//! and what tests compare. Timed tables are in time order, then display order.

use std::fmt;

use crate::tables::*;
use crate::trace::Trace;

/// One value of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    /// JSON text, written as is in JSON output.
    Json(String),
}

impl fmt::Display for Cell {
    /// Plain text, as in CSV.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Null => Ok(()),
            Cell::Bool(b) => write!(f, "{b}"),
            Cell::Int(i) => write!(f, "{i}"),
            Cell::UInt(u) => write!(f, "{u}"),
            Cell::Float(x) => write!(f, "{x}"),
            Cell::Str(s) | Cell::Json(s) => f.write_str(s),
        }
    }
}

/// The tables `tracescope tables --table NAME` knows.
pub const TABLE_NAMES: &[&str] = &[
    "processes",
    "threads",
    "slices",
    "instants",
    "async_slices",
    "flows",
    "counters",
    "objects",
    "samples",
    "metadata",
    "diagnostics",
    "other",
];

pub struct Rows {
    pub columns: Vec<&'static str>,
    pub rows: Vec<Vec<Cell>>,
}

impl Rows {
    /// The cell of `column` in row `i`, for tests.
    pub fn get(&self, i: usize, column: &str) -> &Cell {
        let c = self
            .columns
            .iter()
            .position(|c| *c == column)
            .unwrap_or(usize::MAX);
        self.rows
            .get(i)
            .and_then(|r| r.get(c))
            .unwrap_or(&Cell::Null)
    }
}

fn int(i: tracescope_format::Int64) -> Cell {
    match i {
        tracescope_format::Int64::I(v) => Cell::Int(v),
        tracescope_format::Int64::U(v) => Cell::UInt(v),
    }
}

fn opt_str(s: &str) -> Cell {
    if s.is_empty() {
        Cell::Null
    } else {
        Cell::Str(s.to_string())
    }
}

impl Trace {
    pub fn pid_cell(&self, p: PidK) -> Cell {
        match p {
            PidK::Int(i) => int(i),
            PidK::Str(s) => Cell::Str(self.str(s).to_string()),
        }
    }

    fn id_cell(&self, id: IdVal) -> Cell {
        match id {
            IdVal::None => Cell::Null,
            IdVal::Int(i) => int(i),
            IdVal::Str(s) => Cell::Str(self.str(s).to_string()),
        }
    }

    fn process_pid(&self, p: u32) -> Cell {
        self.tables
            .processes
            .get(p as usize)
            .map_or(Cell::Null, |pr| self.pid_cell(pr.pid))
    }

    /// The tid of a thread index, or null for `NONE` (global instants, events
    /// without a thread).
    fn tid_cell(&self, t: u32) -> Cell {
        if t == NONE {
            Cell::Null
        } else {
            self.thread_cells(t).1
        }
    }

    fn thread_cells(&self, t: u32) -> (Cell, Cell) {
        match self.tables.threads.get(t as usize) {
            Some(th) => (self.process_pid(th.process), self.pid_cell(th.tid)),
            None => (Cell::Null, Cell::Null),
        }
    }

    /// Display rank of each process and thread, for ordering rows.
    fn ranks(&self) -> (Vec<u32>, Vec<u32>) {
        let mut pr = vec![0; self.tables.processes.len()];
        for (i, &p) in self.process_order.iter().enumerate() {
            pr[p as usize] = i as u32;
        }
        let mut tr = vec![0; self.tables.threads.len()];
        for (i, &t) in self.thread_order.iter().enumerate() {
            tr[t as usize] = i as u32;
        }
        (pr, tr)
    }

    fn args_cell(&self, a: crate::args::TextRef, e: crate::args::TextRef) -> Cell {
        self.merged_args(a, e).map_or(Cell::Null, Cell::Json)
    }

    /// The rows of table `name`, or `None` if there is no such table.
    pub fn rows(&self, name: &str) -> Option<Rows> {
        let t = &self.tables;
        let (prank, trank) = self.ranks();
        let th_rank = |th: u32| trank.get(th as usize).copied().unwrap_or(u32::MAX);
        let (columns, rows): (Vec<&'static str>, Vec<Vec<Cell>>) = match name {
            "processes" => (
                vec![
                    "pid",
                    "name",
                    "sort_index",
                    "labels",
                    "frame_url",
                    "uptime_seconds",
                    "threads",
                ],
                self.process_order
                    .iter()
                    .map(|&p| {
                        let pr = &t.processes[p as usize];
                        vec![
                            self.pid_cell(pr.pid),
                            opt_str(self.str(pr.name)),
                            pr.sort_index.map_or(Cell::Null, Cell::Int),
                            opt_str(self.str(pr.labels)),
                            opt_str(self.str(pr.frame_url)),
                            pr.uptime_seconds.map_or(Cell::Null, Cell::Float),
                            Cell::Int(t.threads.iter().filter(|th| th.process == p).count() as i64),
                        ]
                    })
                    .collect(),
            ),
            "threads" => (
                vec!["pid", "tid", "name", "sort_index", "process_name"],
                self.thread_order
                    .iter()
                    .map(|&i| {
                        let th = &t.threads[i as usize];
                        vec![
                            self.process_pid(th.process),
                            self.pid_cell(th.tid),
                            opt_str(self.str(th.name)),
                            th.sort_index.map_or(Cell::Null, Cell::Int),
                            opt_str(self.str(t.processes[th.process as usize].name)),
                        ]
                    })
                    .collect(),
            ),
            "slices" => {
                let s = &t.slices;
                let mut order: Vec<usize> = (0..s.len()).collect();
                order.sort_by_key(|&i| {
                    (
                        s.ts[i],
                        th_rank(s.thread[i]),
                        s.lane[i],
                        s.depth[i],
                        s.offset[i],
                    )
                });
                (
                    vec![
                        "pid",
                        "tid",
                        "thread_name",
                        "name",
                        "cat",
                        "ts_ns",
                        "dur_ns",
                        "depth",
                        "self_ns",
                        "did_not_finish",
                        "args",
                        "lane",
                        "overlap",
                        "tts_ns",
                        "tdur_ns",
                        "id",
                    ],
                    order
                        .into_iter()
                        .map(|i| {
                            let (pid, tid) = self.thread_cells(s.thread[i]);
                            let th = &t.threads[s.thread[i] as usize];
                            vec![
                                pid,
                                tid,
                                opt_str(self.str(th.name)),
                                Cell::Str(self.name(s.name[i]).to_string()),
                                opt_str(self.str(s.cat[i])),
                                Cell::Int(s.ts[i]),
                                Cell::Int(s.dur[i]),
                                Cell::Int(s.depth[i] as i64),
                                Cell::Int(s.self_ns[i]),
                                Cell::Bool(s.did_not_finish(i)),
                                self.args_cell(s.args[i], s.end_args[i]),
                                Cell::Str(
                                    if s.lane[i] == Lane::UiNest {
                                        "ui-nest"
                                    } else {
                                        "stack"
                                    }
                                    .into(),
                                ),
                                Cell::Bool(s.flags[i] & slice_flags::OVERLAP != 0),
                                if s.tts[i] == i64::MIN {
                                    Cell::Null
                                } else {
                                    Cell::Int(s.tts[i])
                                },
                                if s.tdur[i] == i64::MIN {
                                    Cell::Null
                                } else {
                                    Cell::Int(s.tdur[i])
                                },
                                Cell::Int(i as i64),
                            ]
                        })
                        .collect(),
                )
            }
            "instants" => {
                let s = &t.instants;
                let mut order: Vec<usize> = (0..s.len()).collect();
                order.sort_by_key(|&i| {
                    (
                        s.ts[i],
                        if s.thread[i] == NONE {
                            0
                        } else {
                            th_rank(s.thread[i]) + 1
                        },
                        prank[s.process[i] as usize],
                        s.offset[i],
                    )
                });
                (
                    vec!["scope", "pid", "tid", "name", "cat", "ts_ns", "args", "ph"],
                    order
                        .into_iter()
                        .map(|i| {
                            let tid = self.tid_cell(s.thread[i]);
                            vec![
                                Cell::Str(s.scope[i].as_str().into()),
                                self.process_pid(s.process[i]),
                                tid,
                                Cell::Str(self.name(s.name[i]).to_string()),
                                opt_str(self.str(s.cat[i])),
                                Cell::Int(s.ts[i]),
                                self.args_cell(s.args[i], crate::args::TextRef::NONE),
                                Cell::Str((s.ph[i] as char).to_string()),
                            ]
                        })
                        .collect(),
                )
            }
            "async_slices" => {
                let s = &t.async_slices;
                let mut order: Vec<usize> = (0..s.len()).collect();
                order.sort_by_key(|&i| {
                    (
                        s.ts[i],
                        prank[s.process[i] as usize],
                        s.depth[i],
                        s.offset[i],
                    )
                });
                (
                    vec![
                        "pid",
                        "name",
                        "cat",
                        "id",
                        "ts_ns",
                        "dur_ns",
                        "depth",
                        "did_not_finish",
                        "tid",
                        "lane",
                        "args",
                        "legacy",
                    ],
                    order
                        .into_iter()
                        .map(|i| {
                            let tid = self.tid_cell(s.thread[i]);
                            vec![
                                self.process_pid(s.process[i]),
                                Cell::Str(self.name(s.name[i]).to_string()),
                                opt_str(self.str(s.cat[i])),
                                self.id_cell(s.id[i]),
                                Cell::Int(s.ts[i]),
                                Cell::Int(s.dur[i]),
                                Cell::Int(s.depth[i] as i64),
                                Cell::Bool(s.did_not_finish[i]),
                                tid,
                                Cell::Int(s.lane[i] as i64),
                                self.args_cell(s.args[i], s.end_args[i]),
                                Cell::Bool(s.legacy[i]),
                            ]
                        })
                        .collect(),
                )
            }
            "flows" => {
                let f = &t.flows;
                let mut order: Vec<usize> = (0..f.len()).collect();
                order.sort_by_key(|&i| (f.from_ts[i], th_rank(f.from_thread[i]), f.to_ts[i]));
                let end = |r: SliceRef| match r {
                    SliceRef::Thread(i) => t.slices.name[i as usize],
                    SliceRef::Async(i) => t.async_slices.name[i as usize],
                };
                (
                    vec![
                        "id",
                        "from_pid",
                        "from_tid",
                        "from_name",
                        "from_ts_ns",
                        "to_pid",
                        "to_tid",
                        "to_name",
                        "to_ts_ns",
                        "name",
                        "cat",
                        "version",
                    ],
                    order
                        .into_iter()
                        .map(|i| {
                            let (fp, ft) = self.thread_cells(f.from_thread[i]);
                            let (tp, tt) = self.thread_cells(f.to_thread[i]);
                            vec![
                                self.id_cell(f.id[i]),
                                fp,
                                ft,
                                Cell::Str(self.name(end(f.from[i])).to_string()),
                                Cell::Int(f.from_ts[i]),
                                tp,
                                tt,
                                Cell::Str(self.name(end(f.to[i])).to_string()),
                                Cell::Int(f.to_ts[i]),
                                opt_str(self.str(f.name[i])),
                                opt_str(self.str(f.cat[i])),
                                Cell::Int(if f.v2[i] { 2 } else { 1 }),
                            ]
                        })
                        .collect(),
                )
            }
            "counters" => {
                let c = &t.counters;
                let mut order: Vec<usize> = (0..c.ts.len()).collect();
                order.sort_by_key(|&i| {
                    let s = &c.series[c.sample_series[i] as usize];
                    (c.ts[i], prank[s.process as usize], c.sample_series[i])
                });
                (
                    vec!["pid", "name", "series", "ts_ns", "value"],
                    order
                        .into_iter()
                        .map(|i| {
                            let s = &c.series[c.sample_series[i] as usize];
                            let value = match c.exact.get(&(i as u32)) {
                                Some(e) => int(*e),
                                None if c.value[i].fract() == 0.0 && c.value[i].abs() < 9.0e15 => {
                                    Cell::Int(c.value[i] as i64)
                                }
                                None => Cell::Float(c.value[i]),
                            };
                            vec![
                                self.process_pid(s.process),
                                Cell::Str(self.name(s.counter).to_string()),
                                Cell::Str(self.str(s.series).to_string()),
                                Cell::Int(c.ts[i]),
                                value,
                            ]
                        })
                        .collect(),
                )
            }
            "objects" => {
                let mut order: Vec<usize> = (0..t.objects.len()).collect();
                order.sort_by_key(|&i| {
                    (
                        t.objects[i].start,
                        prank[t.objects[i].process as usize],
                        t.objects[i].offset,
                    )
                });
                (
                    vec![
                        "pid",
                        "name",
                        "id",
                        "start_ns",
                        "end_ns",
                        "snapshots",
                        "cat",
                        "alive_at_end",
                    ],
                    order
                        .into_iter()
                        .map(|i| {
                            let o = &t.objects[i];
                            vec![
                                self.process_pid(o.process),
                                Cell::Str(self.name(o.name).to_string()),
                                self.id_cell(o.id),
                                Cell::Int(o.start),
                                Cell::Int(o.end),
                                Cell::Int(o.snapshots.len() as i64),
                                opt_str(self.str(o.cat)),
                                Cell::Bool(o.alive_at_end),
                            ]
                        })
                        .collect(),
                )
            }
            "samples" => {
                let s = &t.samples;
                let mut order: Vec<usize> = (0..s.len()).collect();
                order.sort_by_key(|&i| (s.ts[i], th_rank(s.thread[i])));
                (
                    vec!["pid", "tid", "ts_ns", "stack", "weight"],
                    order
                        .into_iter()
                        .map(|i| {
                            let (pid, tid) = self.thread_cells(s.thread[i]);
                            vec![
                                pid,
                                tid,
                                Cell::Int(s.ts[i]),
                                Cell::Str(self.stack_text(s.frame[i])),
                                Cell::Float(s.weight[i]),
                            ]
                        })
                        .collect(),
                )
            }
            "metadata" => (
                vec!["pid", "tid", "name", "args"],
                t.metadata
                    .iter()
                    .map(|m| {
                        let tid = self.tid_cell(m.thread);
                        vec![
                            self.process_pid(m.process),
                            tid,
                            Cell::Str(self.name(m.name).to_string()),
                            self.args_cell(m.args, crate::args::TextRef::NONE),
                        ]
                    })
                    .collect(),
            ),
            // One row per occurrence; only the first occurrences of a kind keep an
            // example (`tracescope_format::diag::EXAMPLES_KEPT`).
            "diagnostics" => (
                vec!["kind", "severity", "offset", "example"],
                self.diagnostics
                    .occurrences()
                    .into_iter()
                    .map(|d| {
                        vec![
                            Cell::Str(d.kind.as_str().into()),
                            Cell::Str(d.kind.severity().as_str().into()),
                            Cell::UInt(d.offset),
                            d.example.map_or(Cell::Null, |x| Cell::Str(x.into())),
                        ]
                    })
                    .collect(),
            ),
            "other" => {
                let o = &t.other;
                let mut order: Vec<usize> = (0..o.len()).collect();
                order.sort_by_key(|&i| (o.ts[i], prank[o.process[i] as usize], o.offset[i]));
                (
                    vec!["ph", "name", "pid", "tid", "ts_ns", "cat", "args"],
                    order
                        .into_iter()
                        .map(|i| {
                            let tid = self.tid_cell(o.thread[i]);
                            vec![
                                Cell::Str(self.str(o.ph[i]).to_string()),
                                Cell::Str(self.name(o.name[i]).to_string()),
                                self.process_pid(o.process[i]),
                                tid,
                                if o.ts[i] == i64::MIN {
                                    Cell::Null
                                } else {
                                    Cell::Int(o.ts[i])
                                },
                                opt_str(self.str(o.cat[i])),
                                self.args_cell(o.args[i], crate::args::TextRef::NONE),
                            ]
                        })
                        .collect(),
                )
            }
            _ => return None,
        };
        Some(Rows { columns, rows })
    }

    /// Frame names from the root to `leaf`, joined by `;`.
    pub fn stack_text(&self, leaf: u32) -> String {
        let mut names = Vec::new();
        let mut f = leaf;
        while f != NONE && names.len() <= self.tables.frames.len() {
            let fr = &self.tables.frames[f as usize];
            names.push(self.name(fr.name));
            f = fr.parent;
        }
        names.reverse();
        names.join(";")
    }
}
