//! `tracescope merge A B... -o OUT.json`: several traces as one JSON trace, the
//! same trace `tracescope view A B` shows (processes apart and named after their
//! file, pids and ids unique, times aligned or moved), for DevTools and Perfetto.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rustc_hash::FxHashMap;
use tracescope_format::json::{self, JsonWriter, Trailer};
use tracescope_format::{Event, Id, Id2, Pid, RawJson};
use tracescope_model::{PidK, Trace};

use crate::load::Inputs;
use crate::output::Output;

pub fn run(inputs: &Inputs, out_path: &Path) -> Result<()> {
    let files = inputs.files()?;
    let paths: Vec<PathBuf> = files.iter().map(|f| f.path.clone()).collect();
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    // Checked before anything is read: a refused output costs nothing.
    let out = Output::file(out_path, &refs)?;
    // The model of the files as one trace decides the pids, names and shifts, so the
    // merged file is exactly what `view A B` shows.
    let trace = crate::load::load_files(&files, inputs.align)?;
    let pids = new_pids(&trace);
    let err = |e| out.error(e);
    let mut w = JsonWriter::new(out.writer()?).map_err(err)?;
    let mut metadata: Vec<(Cow<'_, str>, RawJson<'_>)> = Vec::new();
    let (mut stack_frames, mut samples, mut system) = (None, None, None);
    let mut failed = None;
    for (k, file) in trace.files().iter().enumerate() {
        let text = file.text();
        let ids = (k > 0).then_some(file.name.as_str());
        let read = json::read_events(text, |mut ev, _| {
            if failed.is_some() || is_process_naming(&ev) {
                return;
            }
            place(&mut ev, k as u32, &pids, file.shift_ns, ids);
            if let Err(e) = w.write_event(&ev) {
                failed = Some(e);
            }
        })
        .with_context(|| format!("{} holds no trace", paths[k].display()))?;
        if let Some(e) = failed.take() {
            return Err(err(e));
        }
        let trailer = read.trailer();
        for (key, value) in trailer.metadata {
            // A key another file has too keeps its file's name (JSON keys are unique).
            let key = if metadata.iter().any(|(k2, _)| *k2 == key) {
                Cow::Owned(format!("{key} ({})", file.name))
            } else {
                key
            };
            metadata.push((key, value));
        }
        // One file's stackFrames and samples, as `view` reads them (their ids are
        // the file's own).
        if stack_frames.is_none() && samples.is_none() {
            (stack_frames, samples) = (trailer.stack_frames, trailer.samples);
        } else if trailer.stack_frames.is_some() || trailer.samples.is_some() {
            eprintln!(
                "tracescope: warning: {}: its top-level stackFrames/samples are not merged (only one file's are)",
                file.name
            );
        }
        system = system.or(trailer.system_trace_events);
    }
    for ev in process_naming(&trace) {
        w.write_event(&ev).map_err(err)?;
    }
    let n = w.events();
    let trailer = Trailer {
        metadata,
        stack_frames,
        samples,
        system_trace_events: system,
    };
    w.finish(&trailer)
        .and_then(|mut f| std::io::Write::flush(&mut f))
        .map_err(err)?;
    let target = out.shown().to_path_buf();
    out.commit()?;
    eprintln!(
        "merged {} files ({} processes) into {} events in {}",
        trace.files().len(),
        trace.tables.processes.len(),
        n,
        target.display()
    );
    Ok(())
}

/// What a pid of one file is written as (its text and whether it was a string).
type PidKey = (u32, bool, String);

/// Each file's pids, as written, to the merged trace's.
fn new_pids(trace: &Trace) -> FxHashMap<PidKey, Pid<'static>> {
    let as_pid = |p: PidK| match p {
        PidK::Int(i) => Pid::Int(i),
        PidK::Str(s) => Pid::Str(Cow::Owned(trace.str(s).to_string())),
    };
    trace
        .process_origins
        .iter()
        .zip(&trace.tables.processes)
        .map(|(&(file, written), p)| {
            let key = match written {
                PidK::Int(i) => (file, false, i.to_string()),
                PidK::Str(s) => (file, true, trace.str(s).to_string()),
            };
            (key, as_pid(p.pid))
        })
        .collect()
}

/// `process_name` and `process_labels`: written again from the merged model.
fn is_process_naming(ev: &Event<'_>) -> bool {
    ev.ph.as_deref() == Some("M")
        && matches!(ev.name.as_deref(), Some("process_name" | "process_labels"))
}

/// Moves one event of file `k` into the merged trace: its pid, its time, and (for
/// every file after the first) its ids, prefixed with the file's name.
fn place(
    ev: &mut Event<'_>,
    k: u32,
    pids: &FxHashMap<PidKey, Pid<'static>>,
    shift_ns: i64,
    ids: Option<&str>,
) {
    let key = match &ev.pid {
        None => (k, false, "0".to_string()),
        Some(Pid::Int(i)) => (k, false, i.to_string()),
        Some(Pid::Str(s)) => (k, true, s.to_string()),
    };
    if let Some(p) = pids.get(&key) {
        ev.pid = Some(p.clone());
    }
    if ev.ph.as_deref() != Some("M") {
        ev.ts = ev.ts.map(|t| t.saturating_add(shift_ns));
    }
    if let Some(name) = ids {
        let own = |id: &mut Id<'_>| {
            let text = match id {
                Id::Int(i) => i.to_string(),
                Id::Str(s) => s.to_string(),
            };
            *id = Id::Str(Cow::Owned(format!("{name}:{text}")));
        };
        ev.id.iter_mut().for_each(own);
        ev.bind_id.iter_mut().for_each(own);
        match &mut ev.id2 {
            Some(Id2::Local(i) | Id2::Global(i)) => own(i),
            None => {}
        }
    }
}

/// A `process_name` (and `process_labels`, when there are labels) per process.
fn process_naming(trace: &Trace) -> Vec<Event<'static>> {
    let mut out = Vec::new();
    for p in &trace.tables.processes {
        let pid = match p.pid {
            PidK::Int(i) => Pid::Int(i),
            PidK::Str(s) => Pid::Str(Cow::Owned(trace.str(s).to_string())),
        };
        let mut meta = |name: &'static str, key: &str, value: &str| {
            let mut args = String::new();
            args.push('{');
            json::value::write_string(key, &mut args);
            args.push(':');
            json::value::write_string(value, &mut args);
            args.push('}');
            out.push(Event {
                ph: Some(Cow::Borrowed("M")),
                name: Some(Cow::Borrowed(name)),
                pid: Some(pid.clone()),
                ts: Some(0),
                args: Some(RawJson::owned(args)),
                ..Event::default()
            });
        };
        if !p.name.is_none() {
            meta("process_name", "name", trace.str(p.name));
        }
        if !p.labels.is_none() {
            meta("process_labels", "labels", trace.str(p.labels));
        }
    }
    out
}
