//! `tracescope`: open, inspect, validate and convert Chrome trace files.
//!
//! A thin binary over `tracescope-format` (reading and writing) and
//! `tracescope-model` (the loaded trace). Each subcommand lives in its own module.

mod convert;
mod demo;
mod diff;
mod export;
mod input;
mod load;
mod merge;
mod output;
mod profile;
mod query;
mod serve;
mod stats;
mod summary;
mod tables;
mod units;
mod validate;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "tracescope",
    version,
    about = "Open any Chrome Trace Event Format trace, of any size, fast"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Stop reading a .gz or .zst input that grows past N times the compressed bytes read
    /// (past 64 MiB): real traces compress 5-35 times, decompression bombs 1000. 0: no limit.
    #[arg(long, global = true, value_name = "N", default_value_t = tracescope_format::source::DEFAULT_MAX_RATIO)]
    max_ratio: u64,
}

/// How `view` (and `diff --view`) serve the page.
#[derive(clap::Args)]
struct ServeArgs {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Address to listen on. Off loopback the URL carries a random token that
    /// every request needs (see --no-token).
    #[arg(long, default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
    /// Off loopback, serve without the token: anyone who can reach the port can
    /// read the trace.
    #[arg(long, conflicts_with = "token")]
    no_token: bool,
    /// Require the token on loopback too (a machine shared with other users).
    #[arg(long)]
    token: bool,
    /// Do not open a browser.
    #[arg(long)]
    no_open: bool,
}

impl ServeArgs {
    fn options(&self) -> serve::Options {
        serve::Options {
            bind: self.bind,
            port: self.port,
            open: !self.no_open,
            token: serve::Options::token_needed(self.bind, self.token, self.no_token),
        }
    }
}

/// The trace a command reads: one file, or several read as one trace.
#[derive(clap::Args)]
struct TraceArgs {
    /// The trace. Several files (or a directory of traces) are read as one trace: each
    /// file's processes apart, named after the file; FILE@+1.5ms or FILE@-2ms moves one
    /// file's times.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    align: AlignArg,
}

#[derive(clap::Args)]
struct AlignArg {
    /// Several files: `own` keeps each file's timestamps (files from one machine or
    /// one job share a clock); `start` puts every file's first event at the same time.
    #[arg(long, value_enum, default_value = "own")]
    align: Align,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Align {
    Own,
    Start,
}

impl TraceArgs {
    fn inputs(&self) -> load::Inputs {
        load::Inputs {
            specs: self.files.clone(),
            align: self.align.align.into(),
        }
    }
}

impl From<Align> for tracescope_model::Align {
    fn from(a: Align) -> Self {
        match a {
            Align::Own => tracescope_model::Align::Own,
            Align::Start => tracescope_model::Align::Start,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Print counts of everything in a trace (events, slices, flows, ...) and its diagnostics.
    Stats {
        #[command(flatten)]
        trace: TraceArgs,
        /// One JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print one table of the model, one row per item, ids resolved to names.
    Tables {
        #[command(flatten)]
        trace: TraceArgs,
        /// processes, threads, slices, instants, async_slices, flows, counter_series,
        /// counters, objects, snapshots, profiles, frames, samples, metadata, diagnostics,
        /// other, args
        #[arg(long)]
        table: String,
        #[arg(long, value_enum, default_value = "jsonl")]
        format: tables::Format,
    },
    /// List what the reader repaired or could not place, errors first. Exit 1 when there
    /// are errors (with --strict: errors or warnings), 2 when there is no trace, else 0.
    Validate {
        file: PathBuf,
        /// Fail (exit 1) on warnings too, not only on errors.
        #[arg(long)]
        strict: bool,
    },
    /// Open a trace in the web viewer (a built-in demo trace without FILE).
    View {
        /// The trace; several files (or a directory of traces) on one timeline, each
        /// file's processes apart and named after it; FILE@+1.5ms moves one file.
        #[arg(conflicts_with = "compare", value_name = "FILE")]
        files: Vec<PathBuf>,
        #[command(flatten)]
        align: AlignArg,
        /// Open the compare view on two traces (as `tracescope diff BASE NEW --view`).
        #[arg(long, num_args = 2, value_names = ["BASE", "NEW"])]
        compare: Option<Vec<PathBuf>>,
        /// Follow one growing JSON file (a recorder writing it): appended events are
        /// read every 250 ms and the page shows them; a shorter file is read again.
        #[arg(long, conflicts_with = "compare")]
        follow: bool,
        #[command(flatten)]
        serve: ServeArgs,
    },
    /// Where the time went: slices grouped by name, thread or category (count, total, self,
    /// busy, average, p50/p95/p99, min, max, thread time), and counters' min/max/average.
    Summary {
        #[command(flatten)]
        trace: TraceArgs,
        /// Print the N groups with the largest total (0: all).
        #[arg(long, default_value_t = 20)]
        top: usize,
        #[arg(long, value_enum, default_value = "name")]
        by: summary::By,
        /// Only slices overlapping T0..T1: times as in `tables` (ns, or with a unit: us, ms,
        /// s), or `+` for relative to the trace's start, e.g. `+10ms..+25ms`.
        #[arg(long, value_name = "T0..T1", allow_hyphen_values = true)]
        range: Option<String>,
        /// One JSON object instead of a table.
        #[arg(long)]
        json: bool,
        /// Only slices whose name matches this regex.
        #[arg(long, value_name = "REGEX")]
        name: Option<String>,
        /// Only slices whose category matches this regex.
        #[arg(long, value_name = "REGEX")]
        cat: Option<String>,
        /// Only slices of threads whose label (as `--by thread` prints it) matches this regex.
        #[arg(long, value_name = "REGEX")]
        thread: Option<String>,
        /// Gather every key (name, category or thread label) this regex matches into one group,
        /// e.g. 'ProfilerStep#\d+'. Repeatable; the first that matches wins.
        #[arg(long, value_name = "REGEX")]
        group: Vec<String>,
    },
    /// Write the CPU samples, or the slices stacked by nesting, as folded stacks or a flame
    /// graph SVG.
    Profile {
        #[command(flatten)]
        trace: TraceArgs,
        /// Only this thread: its name, tid, or pid:tid (a name several threads have is an
        /// error listing them).
        #[arg(long)]
        thread: Option<String>,
        /// Only samples in T0..T1 (as for `summary`).
        #[arg(long, value_name = "T0..T1", allow_hyphen_values = true)]
        range: Option<String>,
        #[arg(long, value_enum, default_value = "collapsed")]
        format: profile::Format,
        /// What the stacks are made of.
        #[arg(long, value_enum, default_value = "auto")]
        from: profile::From,
        /// What a stack's number counts [default: samples for CPU samples, time for slices].
        #[arg(long, value_enum)]
        weight: Option<profile::Weight>,
        /// Write here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Ask SQL over one or more traces: our tables (those of `tables`, with ids to join
    /// on) and Perfetto's (`slice`, `thread`, `args`, `flow`, ...); every table has a
    /// `trace` column. `--schema` lists every table and column.
    Query {
        files: Vec<PathBuf>,
        /// The query (several statements: each result is printed).
        #[arg(long, conflicts_with = "file")]
        sql: Option<String>,
        /// Read the query from this file.
        #[arg(long, value_name = "QUERY.sql")]
        file: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "table")]
        format: query::Format,
        /// Print every table and column with its doc, and the views.
        #[arg(long)]
        schema: bool,
    },
    /// Write every table of each trace as Parquet in Hive partitions
    /// (`OUT/<table>/trace=<file name>/part-0.parquet`) for DuckDB, Polars, Spark, Trino.
    Export {
        files: Vec<PathBuf>,
        #[arg(long, value_enum)]
        format: export::Format,
        /// The directory to write (made if missing; other traces' partitions stay).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// The tables to write, comma-separated, or `all` [default: every table but
        /// `args`, whose rows are the `args` columns flattened]
        #[arg(long, value_name = "LIST")]
        tables: Option<String>,
    },
    /// Compare two traces, or two sets of runs, group by group: what got slower, and where.
    /// Exit 0 no gate failed, 1 a gate failed, 2 unreadable input or a bad rule.
    Diff {
        /// BASE NEW: the trace before and the trace after.
        #[arg(value_name = "BASE NEW")]
        files: Vec<PathBuf>,
        /// A base run (repeat for several runs).
        #[arg(long, value_name = "FILE")]
        base: Vec<PathBuf>,
        /// A new run (repeat for several runs).
        #[arg(long, value_name = "FILE")]
        new: Vec<PathBuf>,
        #[arg(long, value_enum, default_value = "name")]
        by: diff::By,
        /// Show the N groups with the largest change (0: all).
        #[arg(long, default_value_t = 20)]
        top: usize,
        /// The metric whose absolute change orders the groups (and that `significant` tests).
        #[arg(long, value_enum, default_value = "total")]
        sort: diff::Metric,
        /// One JSON object instead of a table.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// A Markdown table for a pull request comment.
        #[arg(long)]
        markdown: bool,
        /// Fail (exit 1) when RULE holds: `[KEY:]METRIC>+N%` or `[KEY:]METRIC>+DURATION`,
        /// e.g. `total>+10%`, `p95>+2ms`, `'aten::mm:self>+5%'`. Repeatable.
        #[arg(long = "fail-on", value_name = "RULE")]
        fail_on: Vec<String>,
        /// Write here instead of standard output.
        #[arg(short, long, conflicts_with = "view")]
        output: Option<PathBuf>,
        /// Open the compare view in the browser (each side's timeline shows one of
        /// its runs, the first unless picked) after printing the table.
        #[arg(long, conflicts_with_all = ["json", "markdown", "fail_on"])]
        view: bool,
        #[command(flatten)]
        serve: ServeArgs,
    },
    /// Write several traces as one JSON trace (what `view A B` shows: each file's processes
    /// apart and named after it, pids and ids unique), for DevTools, Perfetto or tracescope.
    Merge {
        #[command(flatten)]
        trace: TraceArgs,
        /// The JSON file to write (never one of the inputs).
        #[arg(short, long, value_name = "OUT.json")]
        output: PathBuf,
    },
    /// Convert a trace (JSON, CTF directory or ETW record file) to JSON (OUT ending in .json,
    /// .gz for gzip), ETW records (.etw) or a CTF directory (anything else), keeping every event.
    Convert { input: PathBuf, output: PathBuf },
}

/// Makes glibc give blocks of 128 KiB and more back to the kernel when they are freed
/// (BENCHMARKS.md, "The allocator"). A load frees its records' buffers on worker
/// threads, whose arenas would keep them for allocations that never come: at 10 GB the
/// process held 8.5 GB at its peak instead of 6 GB, and spent more time in the kernel.
fn give_freed_buffers_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: sets one malloc option, before any other thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// After `export`'s load: its Parquet writer frees and allocates buffers of a few
/// MiB again and again, and mapping each one anew made it 20% slower, so blocks up
/// to glibc's own ceiling (32 MiB) are kept in the heap and reused from here on.
pub(crate) fn keep_freed_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called once the load is done and its worker threads are idle; the
    // options only decide where later allocations come from.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}

/// Lets a closed standard output end the process quietly, as it ends `cat` or
/// `grep` (`tracescope summary big.json | head`): Rust ignores SIGPIPE, so each
/// `print!` to a pipe whose reader has gone would panic instead. Not for commands
/// that serve: a browser closing its connection must not end the server (vectored
/// socket writes raise SIGPIPE; only plain `send` is given `MSG_NOSIGNAL`).
fn end_quietly_on_closed_stdout() {
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    give_freed_buffers_back();
    let serves = match &cli.command {
        Command::View { .. } => true,
        Command::Diff { view, .. } => *view,
        _ => false,
    };
    if !serves {
        end_quietly_on_closed_stdout();
    }
    input::set_max_ratio(cli.max_ratio);
    let result = match cli.command {
        Command::Stats { trace, json } => stats::run(&trace.inputs(), json),
        Command::Tables {
            trace,
            table,
            format,
        } => tables::run(&trace.inputs(), &table, format),
        Command::Validate { file, strict } => return validate::run(&file, strict),
        Command::View {
            compare: Some(files),
            serve,
            ..
        } => {
            let mut f = files.into_iter();
            let (base, new) = (
                f.next().into_iter().collect(),
                f.next().into_iter().collect(),
            );
            diff::view(&diff::Options::compare(base, new), serve.options())
        }
        Command::View {
            files,
            follow: true,
            serve,
            ..
        } => follow(&files, serve.options()),
        Command::View {
            files,
            align,
            compare: None,
            serve,
            ..
        } => view(files, align.align.into(), serve.options()),
        Command::Convert { input, output } => convert::run(&input, &output),
        Command::Merge { trace, output } => merge::run(&trace.inputs(), &output),
        Command::Export {
            files,
            format,
            out,
            tables,
        } => export::run(&files, &out, format, tables.as_deref()),
        Command::Query {
            files,
            sql,
            file,
            format,
            schema,
        } => {
            if schema {
                print!("{}", query::schema());
                return ExitCode::SUCCESS;
            }
            let run = query::read_sql(sql, file)
                .map_err(query::Failure::Other)
                .and_then(|sql| query::run(&files, &sql, format));
            match run {
                Ok(()) => Ok(()),
                Err(query::Failure::Sql(msg)) => {
                    eprintln!("tracescope: SQL error: {msg}");
                    return ExitCode::from(2);
                }
                Err(query::Failure::Other(e)) => Err(e),
            }
        }
        Command::Diff {
            files,
            base,
            new,
            by,
            top,
            sort,
            json,
            markdown,
            fail_on,
            output,
            view,
            serve,
        } => {
            let format = if json {
                diff::Format::Json
            } else if markdown {
                diff::Format::Markdown
            } else {
                diff::Format::Terminal
            };
            let run = diff::sides(files, base, new).and_then(|(base, new)| {
                let o = diff::Options {
                    base,
                    new,
                    by,
                    top,
                    sort,
                    format,
                    fail_on,
                    output,
                };
                if view {
                    diff::view(&o, serve.options()).map(|()| false)
                } else {
                    diff::run(&o)
                }
            });
            match run {
                Ok(false) => Ok(()),
                Ok(true) => return ExitCode::from(1),
                Err(e) => Err(e),
            }
        }
        Command::Summary {
            trace,
            top,
            by,
            range,
            json,
            name,
            cat,
            thread,
            group,
        } => summary::run(
            &trace.inputs(),
            &summary::Options {
                top,
                by,
                range: range.as_deref(),
                json,
                name: name.as_deref(),
                cat: cat.as_deref(),
                thread: thread.as_deref(),
                groups: &group,
            },
        ),
        Command::Profile {
            trace,
            thread,
            range,
            format,
            from,
            weight,
            output,
        } => profile::run(
            &trace.inputs(),
            &profile::Options {
                thread: thread.as_deref(),
                range: range.as_deref(),
                format,
                from,
                weight,
                output: output.as_ref(),
            },
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tracescope: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn view(
    files: Vec<PathBuf>,
    align: tracescope_model::Align,
    opts: serve::Options,
) -> anyhow::Result<()> {
    let (trace, name) = if files.is_empty() {
        (demo::trace()?, "demo trace".to_string())
    } else {
        let inputs = load::Inputs {
            specs: files,
            align,
        };
        (inputs.load()?, inputs.title())
    };
    serve::run(trace, name, opts)
}

fn follow(files: &[PathBuf], opts: serve::Options) -> anyhow::Result<()> {
    let [path] = files else {
        anyhow::bail!("--follow takes one file (the JSON trace being written)");
    };
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let live = serve::live::Live::open(path, name)?;
    live.spawn_poller();
    serve::serve(serve::live::live_router(live), opts)
}
