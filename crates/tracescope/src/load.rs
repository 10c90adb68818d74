//! Loading a trace file into the model, with a progress bar on long loads.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use tracescope_format::Source;
use tracescope_model::{Align, FileInput, LoadOptions, Trace, TraceText};

/// Opens and loads `path`; errors name the file and, for unreadable JSON, the line
/// and column.
pub fn load(path: &Path) -> Result<Trace> {
    load_counting(path, Arc::new(AtomicU64::new(0)))
}

/// Loads several files side by side (each load is itself parallel), each named by
/// its file name (by its path when two share a name), in the order given.
pub fn load_many(files: &[std::path::PathBuf]) -> Result<Vec<(String, Trace)>> {
    let names = file_names(files);
    let traces: Vec<Result<Trace>> = std::thread::scope(|s| {
        let handles: Vec<_> = files.iter().map(|f| s.spawn(move || load(f))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("loading panicked")))
            })
            .collect()
    });
    names
        .into_iter()
        .zip(traces)
        .map(|(n, t)| Ok((n, t?)))
        .collect()
}

/// The traces a command reads: one file, or several files (and directories of
/// traces) read as one trace, each `FILE@+1.5ms` moved in time.
#[derive(Clone, Debug)]
pub struct Inputs {
    pub specs: Vec<PathBuf>,
    pub align: Align,
}

/// One input file and how far its times move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub path: PathBuf,
    pub offset_ns: i64,
}

impl Inputs {
    /// The files, directories expanded, offsets split off.
    pub fn files(&self) -> Result<Vec<Placed>> {
        let mut out = Vec::new();
        for spec in &self.specs {
            let (path, offset_ns) = split_offset(spec)?;
            match traces_in_dir(&path)? {
                Some(files) => out.extend(files.into_iter().map(|path| Placed { path, offset_ns })),
                None => out.push(Placed { path, offset_ns }),
            }
        }
        Ok(out)
    }

    /// A single file read as it always was; several (or one moved in time) as one
    /// trace.
    pub fn load(&self) -> Result<Trace> {
        let files = self.files()?;
        match files.as_slice() {
            [one] if one.offset_ns == 0 => load(&one.path),
            _ => load_files(&files, self.align),
        }
    }

    /// [`Inputs::load`] for a command that exits once it is done with the trace:
    /// the model is never freed, as freeing a gigabyte of tables piece by piece only
    /// delays the exit (the kernel takes the whole address space back at once).
    pub fn load_until_exit(&self) -> Result<&'static Trace> {
        Ok(Box::leak(Box::new(self.load()?)))
    }

    /// The inputs as given, for the first line of `stats`: the path(s).
    pub fn heading(&self) -> String {
        let specs: Vec<String> = self.specs.iter().map(|p| p.display().to_string()).collect();
        specs.join(" ")
    }

    /// How to name the inputs in a heading: the file, or `a.json + 2 more`.
    pub fn title(&self) -> String {
        let files = self.files().unwrap_or_default();
        let names = file_names(&files.iter().map(|f| f.path.clone()).collect::<Vec<_>>());
        match names.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [first, rest @ ..] => format!("{first} + {} more", rest.len()),
        }
    }
}

/// `FILE@+1.5ms` / `FILE@-2ms`: the file and the shift in ns (exact: decimals are
/// read as text). A path that exists as written is a file, whatever it holds.
pub fn split_offset(spec: &Path) -> Result<(PathBuf, i64)> {
    let text = spec.to_string_lossy();
    if spec.exists() {
        return Ok((spec.to_path_buf(), 0));
    }
    let Some((file, shift)) = text.rsplit_once('@') else {
        return Ok((spec.to_path_buf(), 0));
    };
    let (neg, amount) = match shift.as_bytes().first() {
        Some(b'+') => (false, &shift[1..]),
        Some(b'-') => (true, &shift[1..]),
        _ => return Ok((spec.to_path_buf(), 0)),
    };
    let ns = exact_ns(amount).with_context(|| {
        format!(
            "{text}: the shift after `@` must be like +1.5ms or -250us (units ns, us, ms, s; \
             no finer than 1 ns)"
        )
    })?;
    Ok((PathBuf::from(file), if neg { -ns } else { ns }))
}

/// `1.5ms` in ns, read as decimal text (no float rounding): `None` if it is not a
/// time or is finer than a nanosecond.
fn exact_ns(s: &str) -> Option<i64> {
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let digits: usize = match unit {
        "" | "ns" => 0,
        "us" | "µs" => 3,
        "ms" => 6,
        "s" => 9,
        _ => return None,
    };
    let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
    if whole.is_empty() && frac.is_empty() || frac.contains('.') {
        return None;
    }
    let frac = frac.trim_end_matches('0');
    if frac.len() > digits {
        return None;
    }
    let text = format!("{whole}{frac}{}", "0".repeat(digits - frac.len()));
    text.parse::<i64>().ok()
}

/// The trace files of a directory that is not a CTF trace (sorted by name; hidden
/// files skipped), or `None` for anything else.
fn traces_in_dir(path: &Path) -> Result<Option<Vec<PathBuf>>> {
    if !path.is_dir() {
        return Ok(None);
    }
    // A directory with a `metadata` file is a CTF trace, readable or not (its own
    // error then says what is wrong with it); only one without is a set of files.
    if !matches!(
        tracescope_format::ctf::open_dir(path),
        Err(tracescope_format::ctf::CtfError::NotCtf(_))
    ) {
        return Ok(None);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("cannot list {}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        anyhow::bail!(
            "{} is a directory with no trace files in it (nor a CTF trace)",
            path.display()
        );
    }
    Ok(Some(files))
}

/// Each file's name, or its path when two share a name.
pub fn file_names(files: &[PathBuf]) -> Vec<String> {
    let base = |p: &Path| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    files
        .iter()
        .map(|f| {
            let b = base(f);
            if files.iter().filter(|g| base(g) == b).count() > 1 {
                f.display().to_string()
            } else {
                b
            }
        })
        .collect()
}

/// Several JSON files as one trace: opened (decompressed) side by side, then read
/// together (see `tracescope_model::FileInput`).
pub fn load_files(files: &[Placed], align: Align) -> Result<Trace> {
    let paths: Vec<PathBuf> = files.iter().map(|f| f.path.clone()).collect();
    let names = file_names(&paths);
    let opened: Vec<Result<FileInput>> = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .iter()
            .zip(names)
            .map(|(f, name)| s.spawn(move || open_json(f, name)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("opening panicked")))
            })
            .collect()
    });
    let inputs = opened.into_iter().collect::<Result<Vec<_>>>()?;
    Trace::from_json_files(inputs, align, &LoadOptions::default())
        .map_err(|(k, e)| anyhow::anyhow!("{} holds no trace: {e}", paths[k].display()))
}

fn open_json(f: &Placed, name: String) -> Result<FileInput> {
    let source = match crate::input::open(&f.path)? {
        crate::input::Input::Json(source) => source,
        crate::input::Input::Binary(_) => anyhow::bail!(
            "{}: a CTF or ETW trace is read alone, not with other files; convert it to \
             JSON first (`tracescope convert {} out.json`)",
            f.path.display(),
            f.path.display()
        ),
    };
    crate::input::check_decoded(&f.path, &source)?;
    Ok(FileInput {
        name,
        bytes: source.input_len(),
        diagnostics: source.diagnostics().clone(),
        text: Box::new(source),
        offset_ns: f.offset_ns,
    })
}

/// [`load`], adding to `read` the bytes of the event list as the reader finishes them.
fn load_counting(path: &Path, read: Arc<AtomicU64>) -> Result<Trace> {
    let source = match crate::input::open(path)? {
        crate::input::Input::Json(source) => source,
        crate::input::Input::Binary(binary) => return load_binary(&binary, path),
    };
    let done = Arc::new(AtomicBool::new(false));
    // A compressed input may still be decoding: its size is known ahead.
    let total = source.expected_len().unwrap_or_else(|| source.text().len()) as u64;
    let bar = std::io::stderr()
        .is_terminal()
        .then(|| spawn_progress(path, total, read.clone(), done.clone()));
    let opts = LoadOptions {
        source_name: path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        ..LoadOptions::default()
    };
    let bytes = source.input_len();
    let source = Arc::new(source);
    let counted = Counted {
        source: source.clone(),
        read,
    };
    let result = Trace::from_json(Box::new(counted), bytes, &opts);
    // Read once the text is all there (the reader waits for that).
    let source_diags = source.diagnostics().clone();
    // Why the decompressed text ends where it does, for an error about that text.
    let cut_short = source_diags
        .get(tracescope_format::DiagKind::Truncated)
        .map(|d| {
            format!(
                " (decompressing stopped at byte {}: {})",
                d.offset, d.example
            )
        });
    let result = result.map(|mut t| {
        t.diagnostics.merge(source_diags);
        t
    });
    done.store(true, Ordering::Relaxed);
    if let Some(h) = bar {
        let _ = h.join();
    }
    crate::input::check_decoded(path, &source)?;
    result.with_context(|| {
        format!(
            "{} holds no trace{}",
            path.display(),
            cut_short.unwrap_or_default()
        )
    })
}

/// A CTF trace in tracescope's own layout goes into the model run by run, so its
/// decoded events are never all held at once, and its args stay in the stream
/// files until asked for; anything else is decoded first.
fn load_binary(binary: &crate::input::Binary, path: &Path) -> Result<Trace> {
    if let crate::input::Binary::Ctf(files) = binary {
        let t0 = std::time::Instant::now();
        if let Some(runs) = files.runs() {
            // Finding every record in input order (from the record index the
            // writer left, else by a scan of the streams) is part of the load.
            let index_ms = t0.elapsed().as_secs_f64() * 1e3;
            let mut trace = Trace::from_ctf_runs(runs, files.bytes());
            trace.info.load_phases.insert(0, ("index", index_ms));
            trace.info.load_ms += index_ms;
            return Ok(trace);
        }
    }
    let d = binary.decode(path)?;
    let mut trace = Trace::from_events(d.events, d.format, d.bytes);
    trace.diagnostics.merge(d.diags);
    Ok(trace)
}

/// The source, counting the bytes the reader has finished with (it releases each
/// part of the event list once parsed): the progress of the read.
struct Counted {
    source: Arc<Source>,
    read: Arc<AtomicU64>,
}

impl TraceText for Counted {
    fn text(&self) -> &str {
        self.source.text()
    }

    fn release(&self, range: std::ops::Range<usize>) {
        self.read.fetch_add(range.len() as u64, Ordering::Relaxed);
        self.source.release(range)
    }

    fn prefix(&self, min: usize) -> Option<tracescope_format::json::Prefix<'_>> {
        self.source.prefix_bytes(min)
    }

    fn checked_by(&self, checked: &tracescope_format::json::CheckedBytes) {
        self.source.checked_by(checked)
    }

    fn expected_len(&self) -> Option<usize> {
        self.source.expected_len()
    }
}

/// Shows, if the load takes over a second, a bar of the bytes read, then a spinner
/// while the model is built.
fn spawn_progress(
    path: &Path,
    total: u64,
    read: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    let name = path.display().to_string();
    std::thread::spawn(move || {
        for _ in 0..20 {
            if done.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // Loads side by side (`diff`) draw one line each.
        static BARS: std::sync::OnceLock<indicatif::MultiProgress> = std::sync::OnceLock::new();
        let bar = BARS
            .get_or_init(indicatif::MultiProgress::new)
            .add(indicatif::ProgressBar::new(total.max(1)));
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} {msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} [{elapsed_precise}]",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_message(format!("reading {name}"));
        // The read is over when the parts stop coming (the document's tail after
        // the event list is not released): then the model is being built.
        let (mut last, mut still) = (0, 0);
        while !done.load(Ordering::Relaxed) {
            let n = read.load(Ordering::Relaxed).min(total);
            still = if n == last { still + 1 } else { 0 };
            last = n;
            if n > 0 && still == 6 {
                bar.set_position(total);
                bar.set_message(format!("building the model of {name}"));
            } else if still < 6 {
                bar.set_position(n);
            }
            bar.tick();
            std::thread::sleep(Duration::from_millis(80));
        }
        bar.finish_and_clear();
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_are_exact_to_the_nanosecond() {
        let at = |s: &str| split_offset(Path::new(s)).unwrap();
        assert_eq!(at("a.json@+1.5ms"), (PathBuf::from("a.json"), 1_500_000));
        assert_eq!(at("a.json@-2ms"), (PathBuf::from("a.json"), -2_000_000));
        assert_eq!(at("x@y.json@+0.000001ms"), (PathBuf::from("x@y.json"), 1));
        assert_eq!(
            at("a.json@+123456789.123456789s"),
            (PathBuf::from("a.json"), 123_456_789_123_456_789)
        );
        assert_eq!(at("a.json@+7"), (PathBuf::from("a.json"), 7));
        assert_eq!(at("a.json@+250us"), (PathBuf::from("a.json"), 250_000));
        // Not a shift: kept as the path.
        assert_eq!(at("mail@host.json"), (PathBuf::from("mail@host.json"), 0));
        for bad in [
            "a.json@+1.5xs",
            "a.json@+0.1ns",
            "a.json@+",
            "a.json@-1..2ms",
        ] {
            assert!(split_offset(Path::new(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_progress_count_reaches_the_event_list_size() {
        // 20 MB of events: more than two of the reader's 8 MB parts.
        let ev = r#"{"ph":"X","pid":1,"tid":1,"name":"a","ts":1,"dur":1},"#;
        let n = 20_000_000 / ev.len();
        let mut text = String::from("{\"traceEvents\":[");
        text.push_str(&ev.repeat(n));
        text.pop();
        text.push_str("]}");
        let p =
            std::env::temp_dir().join(format!("tracescope-progress-{}.json", std::process::id()));
        std::fs::write(&p, &text).unwrap();
        let read = Arc::new(AtomicU64::new(0));
        let t = load_counting(&p, read.clone()).unwrap();
        std::fs::remove_file(&p).unwrap();
        assert_eq!(t.tables.slices.len(), n);
        let r = read.load(Ordering::Relaxed);
        assert!(
            r >= text.len() as u64 - 64 && r <= text.len() as u64,
            "{r} of {}",
            text.len()
        );
    }
}
