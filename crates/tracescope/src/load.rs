//! Loading a trace file into the model, with a progress bar on long loads.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use tracescope_format::Source;
use tracescope_model::{LoadOptions, Trace, TraceText};

/// Opens and loads `path`; errors name the file and, for unreadable JSON, the line
/// and column.
pub fn load(path: &Path) -> Result<Trace> {
    load_counting(path, Arc::new(AtomicU64::new(0)))
}

/// Loads several files side by side (each load is itself parallel), each named by
/// its file name (by its path when two share a name), in the order given.
pub fn load_many(files: &[std::path::PathBuf]) -> Result<Vec<(String, Trace)>> {
    let base = |p: &Path| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let names = files.iter().map(|f| {
        let b = base(f);
        if files.iter().filter(|g| base(g) == b).count() > 1 {
            f.display().to_string()
        } else {
            b
        }
    });
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
    names.zip(traces).map(|(n, t)| Ok((n, t?))).collect()
}

/// [`load`] for a command that exits once it is done with the trace: the model is
/// never freed, as freeing a gigabyte of tables piece by piece only delays the exit
/// (the kernel takes the whole address space back at once).
pub fn load_until_exit(path: &Path) -> Result<&'static Trace> {
    Ok(Box::leak(Box::new(load(path)?)))
}

/// [`load`], adding to `read` the bytes of the event list as the reader finishes them.
fn load_counting(path: &Path, read: Arc<AtomicU64>) -> Result<Trace> {
    let source = match crate::input::open(path)? {
        crate::input::Input::Json(source) => source,
        crate::input::Input::Binary(binary) => return load_binary(&binary, path),
    };
    let done = Arc::new(AtomicBool::new(false));
    let total = source.text().len() as u64;
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
    let counted = Counted { source, read };
    let result = Trace::from_json(Box::new(counted), bytes, &opts).map(|mut t| {
        t.diagnostics.merge(source_diags);
        t
    });
    done.store(true, Ordering::Relaxed);
    if let Some(h) = bar {
        let _ = h.join();
    }
    result.with_context(|| {
        format!(
            "{} holds no trace{}",
            path.display(),
            cut_short.unwrap_or_default()
        )
    })
}

/// A CTF trace in tracescope's own layout goes into the model run by run, so its
/// decoded events are never all held at once; anything else is decoded first.
fn load_binary(binary: &crate::input::Binary, path: &Path) -> Result<Trace> {
    if let crate::input::Binary::Ctf(files) = binary {
        if let Some(runs) = files.runs() {
            return Ok(Trace::from_event_runs(&runs, "ctf", files.bytes()));
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
    source: Source,
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
