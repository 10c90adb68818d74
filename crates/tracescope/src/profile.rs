//! `tracescope profile`: a trace's CPU samples as folded stacks (`a;b;c 12`, one line
//! per stack, for flamegraph.pl, inferno, speedscope) or as a flame graph SVG drawn
//! by inferno.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use tracescope_model::analysis::{call_tree, Selection, TreeView};
use tracescope_model::query::TrackRef;
use tracescope_model::{ThreadId, Trace};

use crate::output::Output;
use crate::units::parse_range;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Collapsed,
    Svg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Weight {
    /// Number of samples.
    Samples,
    /// Microseconds: each sample weighs the time until the thread's next sample.
    Time,
}

pub struct Options<'a> {
    pub thread: Option<&'a str>,
    pub range: Option<&'a str>,
    pub format: Format,
    pub weight: Weight,
    pub output: Option<&'a PathBuf>,
}

pub fn run(inputs: &crate::load::Inputs, o: &Options) -> Result<()> {
    // Checked before the trace is read: a refused output costs nothing.
    let paths: Vec<PathBuf> = inputs.files()?.into_iter().map(|f| f.path).collect();
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let file = o.output.map(|p| Output::file(p, &refs)).transpose()?;
    let trace = inputs.load_until_exit()?;
    let mut out: Box<dyn Write> = match &file {
        Some(f) => Box::new(f.writer()?),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let lines = folded(trace, o)?;
    let result = match o.format {
        Format::Collapsed => lines
            .iter()
            .try_for_each(|l| writeln!(out, "{l}"))
            .and_then(|_| out.flush())
            .map_err(anyhow::Error::from),
        Format::Svg => {
            let mut opts = inferno::flamegraph::Options::default();
            opts.title = format!("{} CPU profile", inputs.title());
            opts.count_name = match o.weight {
                Weight::Samples => "samples".into(),
                Weight::Time => "µs".into(),
            };
            // inferno flushes at the end; a failed write comes back as its error.
            inferno::flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), &mut out)
                .context("could not draw the flame graph")
                .and_then(|()| out.flush().map_err(anyhow::Error::from))
        }
    };
    drop(out);
    let io_error = |e: &anyhow::Error| {
        e.chain()
            .find_map(|c| c.downcast_ref::<std::io::Error>())
            .map(|e| std::io::Error::new(e.kind(), e.to_string()))
    };
    match (result, file) {
        (Ok(()), Some(f)) => f.commit(),
        (Ok(()), None) => Ok(()),
        (Err(e), Some(f)) => Err(match io_error(&e) {
            Some(io) => f.error(io),
            None => e,
        }),
        (Err(e), None)
            if io_error(&e).is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(())
        }
        (Err(e), None) => Err(e),
    }
}

/// The sample threads chosen by `--thread`: a name, a tid, or `pid:tid`.
fn threads(trace: &Trace, wanted: &str) -> Result<Vec<TrackRef>> {
    let t = &trace.tables;
    let mut with_samples: Vec<ThreadId> = t.samples.thread.clone();
    with_samples.dedup();
    let matches = |th: ThreadId| {
        let thread = trace.thread(th);
        let tid = trace.pid_text(thread.tid);
        let pid = trace.pid_text(trace.process(thread.process).pid);
        trace.str(thread.name) == wanted || tid == wanted || format!("{pid}:{tid}") == wanted
    };
    let chosen: Vec<TrackRef> = with_samples
        .iter()
        .filter(|&&th| matches(th))
        .map(|&thread| TrackRef::Samples { thread })
        .collect();
    if chosen.is_empty() {
        let list: Vec<String> = with_samples
            .iter()
            .map(|&th| {
                let thread = trace.thread(th);
                format!(
                    "{}:{} {}",
                    trace.pid_text(trace.process(thread.process).pid),
                    trace.pid_text(thread.tid),
                    trace.str(thread.name)
                )
            })
            .collect();
        bail!(
            "no thread {wanted:?} has CPU samples; threads with samples (pid:tid name): {}",
            if list.is_empty() {
                "none".into()
            } else {
                list.join(", ")
            }
        );
    }
    Ok(chosen)
}

/// Folded stacks, sorted, one line per distinct stack of names: `root;caller;callee COUNT`.
/// A `;` inside a function name would split it, so it is written as `:`.
pub fn folded(trace: &Trace, o: &Options) -> Result<Vec<String>> {
    let mut sel = Selection::all();
    if let Some(r) = o.range {
        (sel.t0, sel.t1) = parse_range(r, trace.info.start_ns.unwrap_or(0))?;
    }
    if let Some(th) = o.thread {
        sel.tracks = Some(threads(trace, th)?);
    }
    let tree = call_tree(trace, &sel, TreeView::TopDown, usize::MAX);
    // Two functions of one name (other file or line) fold into one frame name, so
    // their stacks are summed into one line.
    let mut stacks: std::collections::BTreeMap<String, u64> = Default::default();
    for (path, samples, ns) in tree.stacks(trace) {
        let count = match o.weight {
            Weight::Samples => samples,
            Weight::Time => (ns.max(0) as u64 + 500) / 1000,
        };
        if count == 0 {
            continue;
        }
        let frames: Vec<String> = path
            .iter()
            .map(|n| {
                let n = if n.is_empty() { "(anonymous)" } else { n };
                n.replace(';', ":").replace(['\n', '\r'], " ")
            })
            .collect();
        *stacks.entry(frames.join(";")).or_default() += count;
    }
    let lines: Vec<String> = stacks.iter().map(|(s, n)| format!("{s} {n}")).collect();
    if lines.is_empty() {
        bail!(
            "no CPU samples in {}",
            if o.range.is_some() {
                "that range"
            } else {
                "this trace"
            }
        );
    }
    Ok(lines)
}
