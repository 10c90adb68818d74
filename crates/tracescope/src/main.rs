//! `tracescope`: open, inspect, validate and convert Chrome trace files.
//!
//! A thin binary over `tracescope-format` (reading and writing) and
//! `tracescope-model` (the loaded trace). Each subcommand lives in its own module.

mod convert;
mod demo;
mod input;
mod load;
mod profile;
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
}

#[derive(Subcommand)]
enum Command {
    /// Print counts of everything in a trace (events, slices, flows, ...) and its diagnostics.
    Stats {
        file: PathBuf,
        /// One JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print one table of the model, one row per item, ids resolved to names.
    Tables {
        file: PathBuf,
        /// processes, threads, slices, instants, async_slices, flows, counters, objects,
        /// samples, metadata, diagnostics, other
        #[arg(long)]
        table: String,
        #[arg(long, value_enum, default_value = "jsonl")]
        format: tables::Format,
    },
    /// List what the reader repaired or could not place. Exit 0 clean, 1 diagnostics, 2 unreadable.
    Validate { file: PathBuf },
    /// Open a trace in the web viewer (a built-in demo trace without FILE).
    View {
        file: Option<PathBuf>,
        /// Port to listen on (0: any free port).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Address to listen on. Anything but 127.0.0.1 shows the trace to the network.
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// Do not open a browser.
        #[arg(long)]
        no_open: bool,
    },
    /// Where the time went: slices grouped by name, thread or category (count, total, self,
    /// busy, average, p50/p95/p99, min, max, thread time), and counters' min/max/average.
    Summary {
        file: PathBuf,
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
        file: PathBuf,
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
    /// Convert a trace (JSON, CTF directory or ETW record file) to JSON (OUT ending in .json,
    /// .gz for gzip), ETW records (.etw) or a CTF directory (anything else), keeping every event.
    Convert { input: PathBuf, output: PathBuf },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Stats { file, json } => stats::run(&file, json),
        Command::Tables {
            file,
            table,
            format,
        } => tables::run(&file, &table, format),
        Command::Validate { file } => return validate::run(&file),
        Command::View {
            file,
            port,
            bind,
            no_open,
        } => view(file, port, bind, !no_open),
        Command::Convert { input, output } => convert::run(&input, &output),
        Command::Summary {
            file,
            top,
            by,
            range,
            json,
            name,
            cat,
            thread,
            group,
        } => summary::run(
            &file,
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
            file,
            thread,
            range,
            format,
            from,
            weight,
            output,
        } => profile::run(
            &file,
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
    file: Option<PathBuf>,
    port: u16,
    bind: std::net::IpAddr,
    open: bool,
) -> anyhow::Result<()> {
    let (trace, name) = match file {
        Some(f) => {
            let name = f.file_name().map_or_else(
                || f.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            (load::load(&f)?, name)
        }
        None => (demo::trace()?, "demo trace".to_string()),
    };
    serve::run(trace, name, serve::Options { bind, port, open })
}
