//! `tracescope convert IN OUT`: any readable trace to JSON, ETW records or a CTF
//! directory, every event and field kept; written through [`crate::output`].

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context, Result};
use tracescope_format::json::{self, EventSink, Form, JsonWriter, ReadOptions};
use tracescope_format::{ctf, etw, Diagnostics, Event, Source};

use crate::input::Input;
use crate::output::Output;

type Out = Sink;

/// The output file's writer: plain or gzip (by the output's name).
enum Sink {
    Plain(BufWriter<File>),
    Gz(flate2::write::GzEncoder<BufWriter<File>>),
}

impl Sink {
    fn new(out: &Output) -> Result<Sink> {
        let w = out.writer()?;
        let gz = out.shown().extension().is_some_and(|e| e == "gz");
        Ok(if gz {
            Sink::Gz(flate2::write::GzEncoder::new(
                w,
                flate2::Compression::default(),
            ))
        } else {
            Sink::Plain(w)
        })
    }

    /// Writes what is buffered (and gzip's trailer), reporting any error (dropping
    /// would swallow it).
    fn finish(self) -> std::io::Result<()> {
        let mut w = match self {
            Sink::Plain(w) => w,
            Sink::Gz(g) => g.finish()?,
        };
        w.flush()
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Plain(w) => w.write(buf),
            Sink::Gz(w) => w.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Plain(w) => w.write_all(buf),
            Sink::Gz(w) => w.write_all(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Plain(w) => w.flush(),
            Sink::Gz(w) => w.flush(),
        }
    }
}

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

/// What `convert` writes, chosen by the output's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutKind {
    /// `.json`, `.json.gz`, `.gz`: the JSON object form (gzip by extension).
    Json,
    /// `.etw`: ETW-shaped Chrome event records (see `tracescope_format::etw`).
    Etw,
    /// A name ending in `/` or `.ctf`, or an existing CTF directory: a CTF 1.8 trace
    /// directory.
    Ctf,
}

/// The formats `convert` writes, for the error on any other name.
const FORMATS: &str =
    "OUT.json (JSON), OUT.json.gz or OUT.gz (gzipped JSON), OUT.etw (ETW records), \
     OUT.ctf or OUT/ (a CTF trace directory; also an existing CTF directory)";

fn out_kind(path: &Path) -> Result<OutKind> {
    let text = path.as_os_str().to_string_lossy();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    Ok(
        if text.ends_with('/') || name.ends_with(".ctf") || ctf::is_ctf_dir(path) {
            OutKind::Ctf
        } else if name.ends_with(".json") || name.ends_with(".gz") {
            OutKind::Json
        } else if name.ends_with(".etw") {
            OutKind::Etw
        } else {
            bail!(
                "cannot tell what to write from the name {}: name the output {FORMATS}",
                path.display()
            )
        },
    )
}

pub fn run(input: &Path, out_path: &Path) -> Result<()> {
    let kind = out_kind(out_path)?;
    // Checked before the input is read: a refused output costs nothing.
    let out = match kind {
        OutKind::Ctf => Output::dir(out_path, &[input], "CTF trace directory", ctf::is_ctf_dir)?,
        _ => Output::file(out_path, &[input])?,
    };
    let input_read = crate::input::open(input)?;
    if let Input::Json(source) = &input_read {
        crate::input::check_decoded(input, source)?;
    }
    match input_read {
        Input::Json(source) if kind == OutKind::Json => json_to_json(&source, input, out),
        Input::Json(source) => {
            let mut events = Vec::new();
            let read = json::read_events(source.text(), |ev, _| events.push(ev))
                .with_context(|| format!("{} holds no trace", input.display()))?;
            if read.form == Form::CpuProfile {
                bail!("{} is a raw .cpuprofile, which has no events to write as {kind:?}; convert it to .json", input.display());
            }
            write_events(&events, kind, out)
        }
        Input::Binary(binary) => write_events(&binary.decode(input)?.events, kind, out),
    }
}

/// Writes decoded events in any output format. Top-level JSON keys other than the
/// events have no place in CTF or ETW records and are not carried.
fn write_events(events: &[Event<'_>], kind: OutKind, out: Output) -> Result<()> {
    let err = |e| out.error(e);
    match kind {
        OutKind::Json => {
            let mut w = JsonWriter::new(Sink::new(&out)?).map_err(err)?;
            for ev in events {
                w.write_event(ev).map_err(err)?;
            }
            w.finish(&json::Trailer::default())
                .and_then(Sink::finish)
                .map_err(err)?;
        }
        OutKind::Etw => {
            let mut w = etw::RecordWriter::new(out.writer()?, etw::Bitness::B64).map_err(err)?;
            for ev in events {
                w.write_event(ev).map_err(err)?;
            }
            w.finish().and_then(|mut w| w.flush()).map_err(err)?;
        }
        OutKind::Ctf => {
            ctf::write_dir(out.path(), events, &ctf::CtfWriteOptions::default()).map_err(err)?;
        }
    }
    let target = out.shown().to_path_buf();
    out.commit()?;
    eprintln!("wrote {} events to {}", events.len(), target.display());
    Ok(())
}

fn json_to_json(source: &Source, input: &Path, out: Output) -> Result<()> {
    let text = source.text();
    let state = Arc::new(Mutex::new(State::Raw(Sink::new(&out)?)));
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
    let err = |e| out.error(e);
    // A raw .cpuprofile is not an event list: it is written back as the document it is.
    if read.form == Form::CpuProfile {
        let State::Raw(mut w) = state else {
            bail!("internal: a .cpuprofile produced events")
        };
        w.write_all(json::value::compact(text).as_bytes())
            .and_then(|()| w.finish())
            .map_err(err)?;
        return out.commit();
    }
    let writer = match state {
        State::Failed(e) => return Err(err(e)),
        mut other => match other.writer() {
            Some(_) => match other {
                State::Writing(w) => w,
                _ => bail!("internal: no writer"),
            },
            None => match other {
                State::Failed(e) => return Err(err(e)),
                _ => bail!("internal: cannot start the output"),
            },
        },
    };
    let trailer = read.trailer();
    writer
        .finish(&trailer)
        .and_then(Sink::finish)
        .map_err(err)?;
    let target = out.shown().to_path_buf();
    out.commit()?;
    let n = read.diagnostics.len() + source.diagnostics().len();
    eprintln!(
        "wrote {} events to {}{}",
        read.events,
        target.display(),
        if n > 0 {
            " (the input had diagnostics: see `tracescope validate`)"
        } else {
            ""
        }
    );
    Ok(())
}
