//! `tracescope convert IN OUT`: any readable trace to JSON, every event and field kept.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context, Result};
use tracescope_format::json::{self, EventSink, Form, JsonWriter, ReadOptions};
use tracescope_format::{ctf, etw, Diagnostics, Event, Source};

use crate::input::Input;

type Out = Box<dyn Write + Send>;

/// The output: raw until the first event, then a JSON writer; the first write error
/// is kept and reported.
enum State {
    Raw(Out),
    Writing(JsonWriter<Out>),
    Failed(std::io::Error),
    Taken,
}

impl State {
    fn writer(&mut self) -> Option<&mut JsonWriter<Out>> {
        if let State::Raw(_) = self {
            let State::Raw(out) = std::mem::replace(self, State::Taken) else {
                return None;
            };
            *self = match JsonWriter::new(out) {
                Ok(w) => State::Writing(w),
                Err(e) => State::Failed(e),
            };
        }
        match self {
            State::Writing(w) => Some(w),
            _ => None,
        }
    }
}

struct WriteSink {
    state: Arc<Mutex<State>>,
}

impl<'a> EventSink<'a> for WriteSink {
    fn event(&mut self, event: Event<'a>, _diags: &mut Diagnostics) {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = g.writer() {
            if let Err(e) = w.write_event(&event) {
                *g = State::Failed(e);
            }
        }
    }
}

fn output(path: &Path) -> Result<Box<dyn Write + Send>> {
    let f = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let w = BufWriter::with_capacity(1 << 20, f);
    Ok(if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::write::GzEncoder::new(
            w,
            flate2::Compression::default(),
        ))
    } else {
        Box::new(w)
    })
}

/// What `convert` writes, chosen by the output's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutKind {
    /// `.json`, `.json.gz`, `.gz`: the JSON object form (gzip by extension).
    Json,
    /// `.etw`: ETW-shaped Chrome event records (see `tracescope_format::etw`).
    Etw,
    /// Anything else: a CTF 1.8 trace directory.
    Ctf,
}

fn out_kind(path: &Path) -> OutKind {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if name.ends_with(".json") || name.ends_with(".gz") {
        OutKind::Json
    } else if name.ends_with(".etw") {
        OutKind::Etw
    } else {
        OutKind::Ctf
    }
}

pub fn run(input: &Path, out_path: &Path) -> Result<()> {
    let kind = out_kind(out_path);
    match crate::input::open(input)? {
        Input::Json(source) if kind == OutKind::Json => json_to_json(&source, input, out_path),
        Input::Json(source) => {
            let mut events = Vec::new();
            let read = json::read_events(source.text(), |ev, _| events.push(ev))
                .with_context(|| format!("{} holds no trace", input.display()))?;
            if read.form == Form::CpuProfile {
                bail!("{} is a raw .cpuprofile, which has no events to write as {kind:?}; convert it to .json", input.display());
            }
            write_events(&events, kind, out_path)
        }
        Input::Binary(binary) => write_events(&binary.decode(input)?.events, kind, out_path),
    }
}

/// Writes decoded events in any output format. Top-level JSON keys other than the
/// events have no place in CTF or ETW records and are not carried.
fn write_events(events: &[Event<'_>], kind: OutKind, out_path: &Path) -> Result<()> {
    let ctx = || format!("writing {}", out_path.display());
    match kind {
        OutKind::Json => {
            let mut w = JsonWriter::new(output(out_path)?).with_context(ctx)?;
            for ev in events {
                w.write_event(ev).with_context(ctx)?;
            }
            let out = w.finish(&json::Trailer::default()).with_context(ctx)?;
            finish_output(out, out_path)?;
        }
        OutKind::Etw => {
            let f = File::create(out_path)
                .with_context(|| format!("cannot create {}", out_path.display()))?;
            let mut w =
                etw::RecordWriter::new(BufWriter::with_capacity(1 << 20, f), etw::Bitness::B64)
                    .with_context(ctx)?;
            for ev in events {
                w.write_event(ev).with_context(ctx)?;
            }
            w.finish().with_context(ctx)?;
        }
        OutKind::Ctf => {
            ctf::write_dir(out_path, events, &ctf::CtfWriteOptions::default()).with_context(ctx)?;
        }
    }
    eprintln!("wrote {} events to {}", events.len(), out_path.display());
    Ok(())
}

fn json_to_json(source: &Source, input: &Path, out_path: &Path) -> Result<()> {
    let text = source.text();
    let state = Arc::new(Mutex::new(State::Raw(output(out_path)?)));
    // One part, so events are written in file order as they are read.
    let opts = ReadOptions {
        threads: 1,
        chunk_bytes: usize::MAX,
    };
    let read = json::read_json(
        text,
        || WriteSink {
            state: state.clone(),
        },
        &opts,
    )
    .with_context(|| format!("{} holds no trace", input.display()))?;
    let mut read = read;
    drop(std::mem::take(&mut read.parts));
    let state = std::mem::replace(
        &mut *state.lock().unwrap_or_else(|e| e.into_inner()),
        State::Taken,
    );
    // A raw .cpuprofile is not an event list: it is written back as the document it is.
    if read.form == Form::CpuProfile {
        let State::Raw(mut out) = state else {
            bail!("internal: a .cpuprofile produced events")
        };
        out.write_all(json::value::compact(text).as_bytes())?;
        return finish_output(out, out_path);
    }
    let writer = match state {
        State::Failed(e) => bail!("writing {}: {e}", out_path.display()),
        mut other => match other.writer() {
            Some(_) => match other {
                State::Writing(w) => w,
                _ => bail!("internal: no writer"),
            },
            None => bail!("writing {}: cannot start the output", out_path.display()),
        },
    };
    let trailer = read.trailer();
    let out = writer
        .finish(&trailer)
        .with_context(|| format!("writing {}", out_path.display()))?;
    finish_output(out, out_path)?;
    let n = read.diagnostics.len() + source.diagnostics().len();
    eprintln!(
        "wrote {} events to {}{}",
        read.events,
        out_path.display(),
        if n > 0 {
            " (the input had diagnostics: see `tracescope validate`)"
        } else {
            ""
        }
    );
    Ok(())
}

fn finish_output(mut out: Out, path: &Path) -> Result<()> {
    out.flush()
        .with_context(|| format!("writing {}", path.display()))?;
    drop(out);
    Ok(())
}
