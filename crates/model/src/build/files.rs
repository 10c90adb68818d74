//! Several trace files as one trace (`tracescope view A B C`).
//!
//! The files are combined where the events have become records and before any
//! table is built: every part of every file is read at once (one rayon pool, so a
//! small file never leaves a core idle while a big one is read), all interning into
//! one string table and one registry of processes. Each file keeps its own pids and
//! ids (the registry and the id keys carry the file's number), its records are
//! placed in one space of byte offsets and moved in time, and the tables are then
//! built once, as for one file, so nothing downstream knows there were several.

use std::borrow::Cow;
use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::FxHashSet;

use tracescope_format::json::{self, ReadError, Value};
use tracescope_format::{DiagKind, Diagnostics, Int64};

use super::part::{PartBuilder, Shared};
use super::records::Records;
use super::registry::SharedRegistry;
use crate::args::{text_ref, SharedArena, TextFile, Texts};
use crate::strings::SharedStrings;
use crate::tables::PidK;
use crate::trace::{InputFile, LoadOptions, Tables, TopLevel, Trace, TraceInfo, TraceText};

/// One input file of several.
pub struct FileInput {
    /// How processes and diagnostics name the file.
    pub name: String,
    pub text: Box<dyn TraceText>,
    /// Bytes of the file as given (compressed size for .gz/.zst).
    pub bytes: u64,
    /// Nanoseconds added to every timestamp of the file (`FILE@+1.5ms`), after
    /// any alignment.
    pub offset_ns: i64,
    /// What the source found about the bytes (invalid UTF-8, ...), at the file's
    /// own offsets.
    pub diagnostics: Diagnostics,
}

/// How the files' clocks are put together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Align {
    /// Each file keeps its timestamps (files from one machine share a clock).
    #[default]
    Own,
    /// Every file's first event is at the earliest file's first event.
    Start,
}

/// One file, read into records (before it is placed among the others).
struct ReadFile<'t> {
    records: Records,
    diagnostics: Diagnostics,
    form: &'static str,
    events: u64,
    /// Top-level values besides the event list, as `TextRef`s of the file.
    metadata: Vec<(String, crate::args::TextRef)>,
    display_time_unit: Option<String>,
    stack_frames: Option<Cow<'t, str>>,
    samples: Option<Cow<'t, str>>,
    cpu_profile: Option<Cow<'t, str>>,
}

impl Trace {
    /// Reads several JSON trace files (already decompressed) as one trace. An
    /// error names the index of the file that holds no trace.
    pub fn from_json_files(
        files: Vec<FileInput>,
        align: Align,
        opts: &LoadOptions,
    ) -> Result<Trace, (usize, ReadError)> {
        let t0 = Instant::now();
        let strings = SharedStrings::default();
        let registry = SharedRegistry::default();
        let arena = SharedArena::default();
        // One byte between files, so the end of one is never the start of the next.
        let bases: Vec<u64> = files
            .iter()
            .scan(0u64, |next, f| {
                let base = *next;
                *next += f.text.text().len() as u64 + 1;
                Some(base)
            })
            .collect();
        let read: Vec<Result<ReadFile<'_>, (usize, ReadError)>> = files
            .par_iter()
            .enumerate()
            .map(|(k, f)| {
                read_file(k, f, bases[k], &strings, &registry, &arena, opts).map_err(|e| (k, e))
            })
            .collect();
        let mut read = read.into_iter().collect::<Result<Vec<_>, _>>()?;
        let read_ms = t0.elapsed().as_secs_f64() * 1e3;

        // Times: each file's own, or every first event at the earliest one.
        let earliest = read.iter().filter_map(|r| r.records.min_ts).min();
        let shifts: Vec<i64> = read
            .iter()
            .zip(&files)
            .map(|(r, f)| {
                let aligned = match (align, r.records.min_ts, earliest) {
                    (Align::Start, Some(own), Some(first)) => first - own,
                    _ => 0,
                };
                aligned.saturating_add(f.offset_ns)
            })
            .collect();

        let mut info = TraceInfo {
            format: read.first().map_or("json-array", |r| r.form).to_string(),
            bytes: files.iter().map(|f| f.bytes).sum(),
            ..TraceInfo::default()
        };
        let mut diags = Diagnostics::new();
        let mut records = Vec::with_capacity(read.len());
        // Top-level stackFrames, samples and cpuProfile come from one file: their
        // ids would collide across files. Others' are counted, not dropped silently.
        let top_file = read.iter().position(|r| {
            r.stack_frames.is_some() || r.samples.is_some() || r.cpu_profile.is_some()
        });
        for (k, r) in read.iter_mut().enumerate() {
            let mut recs = std::mem::take(&mut r.records);
            recs.place(bases[k], shifts[k]);
            records.push(recs);
            info.events += r.events;
            let name = &files[k].name;
            let file_diags = std::mem::take(&mut r.diagnostics);
            diags.merge(file_diags.placed(bases[k], name));
            let source = files[k].diagnostics.clone();
            diags.merge(source.placed(bases[k], name));
            for (key, v) in r.metadata.drain(..) {
                info.metadata.push((key, v.moved(bases[k])));
            }
            if info.display_time_unit.is_none() {
                info.display_time_unit = r.display_time_unit.take();
            }
            let has_top =
                r.stack_frames.is_some() || r.samples.is_some() || r.cpu_profile.is_some();
            if has_top && Some(k) != top_file {
                let first = top_file.map_or("", |t| files[t].name.as_str());
                diags.add(DiagKind::BadProfile, bases[k], || {
                    format!(
                        "{name}: its top-level stackFrames, samples or cpuProfile were not read: \
                         of several files, only one file's are ({first}'s)"
                    )
                });
            }
        }
        let recs = Records::concat(records);
        info.load_phases = vec![
            ("read", read_ms),
            ("join", t0.elapsed().as_secs_f64() * 1e3 - read_ms),
        ];
        let source_name = top_file.map_or("", |t| files[t].name.as_str());
        let top = match top_file.map(|t| &read[t]) {
            Some(r) => TopLevel {
                stack_frames: r.stack_frames.as_deref(),
                samples: r.samples.as_deref(),
                cpu_profile: r.cpu_profile.as_deref(),
                source_name,
            },
            None => TopLevel {
                stack_frames: None,
                samples: None,
                cpu_profile: None,
                source_name,
            },
        };
        let texts = Texts {
            files: files
                .iter()
                .zip(&bases)
                .map(|(f, &base)| TextFile {
                    base,
                    text: f.text.text(),
                    name: &f.name,
                    binary: &[],
                })
                .collect(),
        };
        let events = info.events;
        let (mut tables, diagnostics, facts) = Self::finish_into(
            &mut info, recs, &texts, strings, registry, arena, &top, diags, None,
        );
        info.events = events;
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        let origins = label_processes(&mut tables, &facts.process_file, &names);
        drop(read);
        drop(texts);
        let inputs = files
            .into_iter()
            .zip(bases)
            .zip(shifts)
            .map(|((f, base), shift)| InputFile::placed(f.text, base, f.name, shift))
            .collect();
        let mut trace = Trace::assemble(info, (tables, diagnostics, facts), inputs);
        // Each file's processes together, in the order of the files.
        let file_of = |p: crate::tables::ProcessId| origins.get(p.index()).map_or(0, |o| o.0);
        trace.process_order.sort_by_key(|&p| file_of(p));
        let threads = &trace.tables.threads;
        trace
            .thread_order
            .sort_by_key(|&t| file_of(threads[t.index()].process));
        trace.process_origins = origins;
        trace.info.load_ms = t0.elapsed().as_secs_f64() * 1e3;
        Ok(trace)
    }
}

/// Reads file `k` into records, with its pids and ids its own.
fn read_file<'t>(
    k: usize,
    f: &'t FileInput,
    base: u64,
    strings: &SharedStrings,
    registry: &SharedRegistry,
    arena: &SharedArena,
    opts: &LoadOptions,
) -> Result<ReadFile<'t>, ReadError> {
    let input = f.text.text();
    let release = |r: std::ops::Range<usize>| f.text.release(r);
    let shared = Shared {
        release: Some(&release),
        file: k as u32,
        base,
        ..Shared::of(input, strings, registry, arena)
    };
    let read = json::read_json(input, || PartBuilder::new(&shared), &opts.read)?;
    let records = Records::concat(read.parts.into_iter().map(|p| p.records).collect());
    // Top-level values are slices of the file (or, rarely, owned copies): taken
    // again from the file's text so they outlive this read's shared state.
    let whole: &'t str = f.text.text();
    let keep = |r: Option<tracescope_format::RawJson<'_>>| -> Option<Cow<'t, str>> {
        let r = r?;
        let (at, len) = (r.text.as_ptr() as usize, r.text.len());
        let start = at.wrapping_sub(whole.as_ptr() as usize);
        Some(match whole.get(start..start.saturating_add(len)) {
            Some(s) if at >= whole.as_ptr() as usize => Cow::Borrowed(s),
            _ => Cow::Owned(r.text.into_owned()),
        })
    };
    let mut display_time_unit = None;
    let mut metadata = Vec::new();
    for (key, v) in &read.metadata {
        if key == "displayTimeUnit" {
            display_time_unit = Value::parse(&v.text)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string));
        }
        metadata.push((key.to_string(), text_ref(input, arena, &v.text)));
    }
    Ok(ReadFile {
        records,
        diagnostics: read.diagnostics,
        form: read.form.as_str(),
        events: read.events,
        metadata,
        display_time_unit,
        stack_frames: keep(read.stack_frames),
        samples: keep(read.samples),
        cpu_profile: keep(read.cpu_profile),
    })
}

/// Names each process after its file too, and gives a pid that an earlier file
/// already used a new one (the next free integer, or the string pid with the
/// file's name), keeping the pid as written in the process's labels. Returns each
/// process's file and pid as written.
fn label_processes(tables: &mut Tables, process_file: &[u32], names: &[&str]) -> Vec<(u32, PidK)> {
    let mut origins = Vec::with_capacity(tables.processes.len());
    let strings = &mut tables.strings;
    let int = |p: &PidK| match p {
        PidK::Int(Int64::I(v)) => Some(*v as i128),
        PidK::Int(Int64::U(v)) => Some(*v as i128),
        PidK::Str(_) => None,
    };
    let mut next = tables
        .processes
        .iter()
        .filter_map(|p| int(&p.pid))
        .max()
        .map_or(1, |m| m + 1);
    let mut seen: FxHashSet<PidK> = FxHashSet::default();
    for (i, p) in tables.processes.iter_mut().enumerate() {
        let k = process_file.get(i).copied().unwrap_or(0);
        origins.push((k, p.pid));
        let file = names[k as usize];
        let name = if p.name.is_none() {
            file.to_string()
        } else {
            format!("{} ({file})", strings.get(p.name))
        };
        p.name = strings.intern(&name);
        if seen.insert(p.pid) {
            continue;
        }
        let written = match p.pid {
            PidK::Int(i) => i.to_string(),
            PidK::Str(s) => strings.get(s).to_string(),
        };
        p.pid = match int(&p.pid) {
            Some(_) => {
                let fresh = PidK::Int(Int64::I(next.min(i64::MAX as i128) as i64));
                next += 1;
                fresh
            }
            None => PidK::Str(strings.intern(&format!("{written} ({file})"))),
        };
        seen.insert(p.pid);
        let label = format!("pid {written} in {file}");
        let labels = match p.labels {
            l if l.is_none() => label,
            l => format!("{}, {label}", strings.get(l)),
        };
        p.labels = strings.intern(&labels);
    }
    origins
}
