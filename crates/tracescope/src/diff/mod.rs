//! `tracescope diff`: two traces (or two sets of runs) compared group by group,
//! with regression gates for CI and a compare view in the browser.
//!
//! Each file is loaded (two at a time, each load itself parallel) and reduced to a
//! [`run::Run`]: its groups by keys that match across runs. The sides are then
//! compared ([`compare`]), the gates evaluated ([`gate`]) and the answer written as
//! a terminal table, Markdown or JSON.

mod compare;
mod flame;
mod gate;
mod groups;
mod json;
mod metric;
mod render;
mod run;
mod view;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{bail, Result};
use tracescope_model::Trace;

pub use metric::Metric;
pub use run::By;

use compare::Diff;
use gate::{Gate, Rule};
use run::Run;

/// How the answer is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Terminal,
    Markdown,
    Json,
}

pub struct Options {
    pub base: Vec<PathBuf>,
    pub new: Vec<PathBuf>,
    pub by: By,
    /// Groups shown (0: all).
    pub top: usize,
    pub sort: Metric,
    pub format: Format,
    pub fail_on: Vec<String>,
    pub output: Option<PathBuf>,
}

impl Options {
    /// What `view --compare BASE NEW` compares: by name, every group.
    pub fn compare(base: Vec<PathBuf>, new: Vec<PathBuf>) -> Options {
        Options {
            base,
            new,
            by: By::Name,
            top: 20,
            sort: Metric::Total,
            format: Format::Terminal,
            fail_on: Vec::new(),
            output: None,
        }
    }
}

/// The two sides from the command line: `BASE NEW`, or `--base F... --new F...`.
pub fn sides(
    files: Vec<PathBuf>,
    base: Vec<PathBuf>,
    new: Vec<PathBuf>,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    match (files.len(), base.is_empty(), new.is_empty()) {
        (2, true, true) => {
            let mut f = files.into_iter();
            Ok((
                f.next().into_iter().collect(),
                f.next().into_iter().collect(),
            ))
        }
        (0, false, false) => Ok((base, new)),
        (0, _, _) if !base.is_empty() || !new.is_empty() => {
            bail!("give both --base and --new (each may be repeated for several runs)")
        }
        (n, true, true) => bail!(
            "diff compares two traces: `tracescope diff BASE NEW` (got {n} files), or several runs \
             a side with `--base F --base F ... --new F --new F ...`"
        ),
        _ => bail!("give either BASE NEW or --base/--new, not both"),
    }
}

/// Runs the command; `Ok(true)` when a gate failed (exit status 1).
pub fn run(o: &Options) -> Result<bool> {
    // Rules first: a bad one is reported before minutes of loading.
    let rules: Vec<Rule> = o
        .fail_on
        .iter()
        .map(|r| Rule::parse(r))
        .collect::<Result<_>>()?;
    let files: Vec<&Path> = o.base.iter().chain(&o.new).map(PathBuf::as_path).collect();
    // Two files: the process exits soon after, so the models are never freed (see
    // `load::load_until_exit`); more: each is dropped once reduced to its run.
    let keep = files.len() <= 2;
    let runs = load_each(&files, |path, trace| {
        let r = Run::of(&trace, o.by, display_name(path));
        if keep {
            std::mem::forget(trace);
        }
        r
    })?;
    let (base, new) = runs.split_at(o.base.len());
    let d = compare::compare(base, new, o.by, o.sort);
    let gates = gate::evaluate(&rules, &d)?;
    write(o, &d, &gates, &files)?;
    let failures = render::failures(&d, &gates);
    for f in &failures {
        eprintln!("tracescope: {f}");
    }
    Ok(!failures.is_empty())
}

/// `diff --view`: prints the table, then serves the compare view until Ctrl-C.
/// Every run stays loaded, so the page can regroup them.
pub fn view(o: &Options, serve: crate::serve::Options) -> Result<()> {
    let files: Vec<&Path> = o.base.iter().chain(&o.new).map(PathBuf::as_path).collect();
    let mut traces = load_each(&files, |_, t| t)?;
    let names: Vec<String> = files.iter().map(|p| display_name(p)).collect();
    let new_traces = traces.split_off(o.base.len());
    let base = view::Side::new(traces, names[..o.base.len()].to_vec());
    let new = view::Side::new(new_traces, names[o.base.len()..].to_vec());
    let state = view::CompareState::new(base, new, o.by);
    let d = state.diff_of(o.by, o.sort);
    write(o, &d, &[], &files)?;
    view::run(state, serve)
}

fn write(o: &Options, d: &Diff, gates: &[Gate], inputs: &[&Path]) -> Result<()> {
    let top = if o.top == 0 { usize::MAX } else { o.top };
    let text = match o.format {
        Format::Terminal => render::terminal(d, gates, top),
        Format::Markdown => render::markdown(d, gates, top),
        Format::Json => format!("{}\n", json::diff(d, gates, o.top)),
    };
    match &o.output {
        None => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth a message.
            let _ = out.write_all(text.as_bytes());
            Ok(())
        }
        Some(path) => {
            let out = crate::output::Output::file(path, inputs)?;
            let mut w = out.writer()?;
            w.write_all(text.as_bytes()).map_err(|e| out.error(e))?;
            w.flush().map_err(|e| out.error(e))?;
            drop(w);
            out.commit()
        }
    }
}

/// A file as the output names it: as given on the command line.
fn display_name(path: &Path) -> String {
    path.display().to_string()
}

/// Loads every file, two at a time (each load is itself parallel), and hands each
/// trace to `f`; the answers in file order. Stops at the first unreadable file.
pub fn load_each<R: Send>(files: &[&Path], f: impl Fn(&Path, Trace) -> R + Sync) -> Result<Vec<R>> {
    const AT_ONCE: usize = 2;
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Vec<Mutex<Option<Result<R>>>> = files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..AT_ONCE.min(files.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= files.len() || failed.load(Ordering::Relaxed) {
                    break;
                }
                let r = crate::load::load(files[i]).map(|t| f(files[i], t));
                failed.fetch_or(r.is_err(), Ordering::Relaxed);
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    let mut out = Vec::with_capacity(files.len());
    for slot in slots {
        match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(r) => out.push(r?),
            // Not loaded: an earlier file failed; its error comes first.
            None => continue,
        }
    }
    if out.len() != files.len() {
        bail!("a file could not be read");
    }
    Ok(out)
}
