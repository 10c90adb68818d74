//! Loading a trace file into the model, with a progress display on long loads.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use tracescope_model::{LoadOptions, Trace};

/// Opens and loads `path`; errors name the file and, for unreadable JSON, the line
/// and column.
pub fn load(path: &Path) -> Result<Trace> {
    let source = match crate::input::open(path)? {
        crate::input::Input::Json(source) => source,
        crate::input::Input::Events {
            format,
            events,
            diags,
            bytes,
        } => {
            let mut trace = Trace::from_events(events, format, bytes);
            trace.diagnostics.merge(diags);
            return Ok(trace);
        }
    };
    let done = Arc::new(AtomicBool::new(false));
    let spinner = std::io::stderr()
        .is_terminal()
        .then(|| spawn_spinner(path, source.text().len() as u64, done.clone()));
    let opts = LoadOptions {
        source_name: path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        ..LoadOptions::default()
    };
    let result = Trace::from_source(source, &opts);
    done.store(true, Ordering::Relaxed);
    if let Some(h) = spinner {
        let _ = h.join();
    }
    result.with_context(|| format!("{} holds no trace", path.display()))
}

/// Shows a spinner with elapsed time and size if the load takes over a second.
fn spawn_spinner(path: &Path, bytes: u64, done: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    let name = path.display().to_string();
    std::thread::spawn(move || {
        for _ in 0..20 {
            if done.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} loading {msg} [{elapsed_precise}]")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar.set_message(format!("{name} ({})", indicatif::HumanBytes(bytes)));
        while !done.load(Ordering::Relaxed) {
            bar.tick();
            std::thread::sleep(Duration::from_millis(80));
        }
        bar.finish_and_clear();
    })
}
