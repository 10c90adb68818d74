//! `tracescope profile`: a trace's CPU samples, or its slices stacked by nesting, as
//! folded stacks (`a;b;c 12`, one line per stack, for flamegraph.pl, inferno,
//! speedscope) or as a flame graph SVG drawn by inferno.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use tracescope_model::analysis::{time_bounds, tree, Selection, Source, TreeQuery, TreeView};
use tracescope_model::query::TrackRef;
use tracescope_model::{Lane, ThreadId, Trace};

use crate::output::Output;
use crate::units::parse_range;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Collapsed,
    Svg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Weight {
    /// Number of samples (of slices with --from slices).
    Samples,
    /// Microseconds: each sample weighs the time until the thread's next sample; a
    /// slice its self time.
    Time,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum From {
    /// CPU samples when the trace has any, else slices.
    Auto,
    /// CPU samples (`Profile`/`ProfileChunk`, `P` events, `.cpuprofile`).
    Samples,
    /// Thread slices: a slice's stack is its parents, its weight its self time.
    Slices,
}

pub struct Options<'a> {
    pub thread: Option<&'a str>,
    pub range: Option<&'a str>,
    pub format: Format,
    pub from: From,
    /// `None`: samples for CPU samples, time for slices.
    pub weight: Option<Weight>,
    pub output: Option<&'a PathBuf>,
}

/// What the stacks are made of, for this trace.
fn source(trace: &Trace, from: From) -> Source {
    match from {
        From::Samples => Source::Samples,
        From::Slices => Source::Slices,
        From::Auto if trace.tables.samples.is_empty() && !trace.tables.slices.is_empty() => {
            Source::Slices
        }
        From::Auto => Source::Samples,
    }
}

fn weight(o: &Options, source: Source) -> Weight {
    o.weight.unwrap_or(match source {
        Source::Samples => Weight::Samples,
        Source::Slices => Weight::Time,
    })
}

pub fn run(inputs: &crate::load::Inputs, o: &Options) -> Result<()> {
    // Checked before the trace is read: a refused output costs nothing.
    let paths: Vec<PathBuf> = inputs.files()?.into_iter().map(|f| f.path).collect();
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let file = o.output.map(|p| Output::file(p, &refs)).transpose()?;
    let trace = inputs.load_until_exit()?;
    let source = source(trace, o.from);
    if o.from == From::Auto && source == Source::Slices {
        eprintln!("tracescope: no CPU samples in this trace: stacks of slices (--from slices)");
    }
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
            opts.title = format!(
                "{} {}",
                inputs.title(),
                match source {
                    Source::Samples => "CPU profile",
                    Source::Slices => "slices",
                }
            );
            opts.count_name = match weight(o, source) {
                Weight::Samples if source == Source::Slices => "slices".into(),
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

/// The threads chosen by `--thread` (a name, a tid, or `pid:tid`) among those with
/// samples (or slices): one thread, or an error naming the candidates.
fn threads(trace: &Trace, wanted: &str, source: Source) -> Result<Vec<TrackRef>> {
    let t = &trace.tables;
    let mut with: Vec<ThreadId> = match source {
        Source::Samples => t.samples.threads().map(|(th, _)| th).collect(),
        Source::Slices => t.slices.tracks.iter().map(|tr| tr.thread).collect(),
    };
    with.sort_unstable();
    with.dedup();
    with.retain(|&th| th.index() < t.threads.len());
    let pid_tid = |th: ThreadId| {
        let thread = trace.thread(th);
        format!(
            "{}:{}",
            trace.pid_text(trace.process(thread.process).pid),
            trace.pid_text(thread.tid)
        )
    };
    let listed = |list: &[ThreadId]| -> String {
        list.iter()
            .map(|&th| format!("{} {}", pid_tid(th), trace.thread_label(th)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let matches = |th: ThreadId| {
        let thread = trace.thread(th);
        trace.str(thread.name) == wanted
            || trace.pid_text(thread.tid) == wanted
            || pid_tid(th) == wanted
    };
    let chosen: Vec<ThreadId> = with.iter().copied().filter(|&th| matches(th)).collect();
    let what = match source {
        Source::Samples => "CPU samples",
        Source::Slices => "slices",
    };
    match chosen.len() {
        0 => bail!(
            "no thread {wanted:?} has {what}; threads with {what} (pid:tid name): {}",
            if with.is_empty() {
                "none".into()
            } else {
                listed(&with)
            }
        ),
        1 => {}
        _ => bail!(
            "--thread {wanted:?} matches {} threads with {what}: {}; pick one as pid:tid",
            chosen.len(),
            listed(&chosen)
        ),
    }
    let th = chosen[0];
    Ok(match source {
        Source::Samples => vec![TrackRef::Samples { thread: th }],
        Source::Slices => [Lane::Stack, Lane::UiNest]
            .map(|lane| TrackRef::Slices { thread: th, lane })
            .to_vec(),
    })
}

/// Folded stacks, sorted, one line per distinct stack of names: `root;caller;callee COUNT`.
/// A `;` inside a function name would split it, so it is written as `:`.
pub fn folded(trace: &Trace, o: &Options) -> Result<Vec<String>> {
    let source = source(trace, o.from);
    let mut sel = Selection::all();
    if let Some(r) = o.range {
        (sel.t0, sel.t1) = parse_range(r, time_bounds(trace).map_or(0, |b| b.0))?;
    }
    if let Some(th) = o.thread {
        sel.tracks = Some(threads(trace, th, source)?);
    }
    let q = TreeQuery {
        source,
        view: TreeView::TopDown,
        max_nodes: usize::MAX,
        filter: None,
    };
    let tree = tree(trace, &sel, &q);
    // Two functions of one name (other file or line) fold into one frame name, so
    // their stacks are summed into one line.
    let mut stacks: std::collections::BTreeMap<String, u64> = Default::default();
    for (path, samples, ns) in tree.stacks(trace) {
        let count = match weight(o, source) {
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
        let what = match source {
            Source::Samples => "no CPU samples",
            Source::Slices => "no slices",
        };
        let place = if o.range.is_some() {
            "that range"
        } else {
            "this trace"
        };
        // Most instrumented traces are slices only: say where their stacks are.
        let hint = if source == Source::Samples && !trace.tables.slices.is_empty() {
            " (its slices make stacks too: --from slices)"
        } else {
            ""
        };
        bail!("{what} in {place}{hint}");
    }
    Ok(lines)
}
