//! `tracescope`: open, inspect, validate and convert Chrome trace files.
//!
//! A thin binary over `tracescope-format` (reading and writing) and
//! `tracescope-model` (the loaded trace). Each subcommand lives in its own module.

mod convert;
mod demo;
mod load;
mod serve;
mod stats;
mod tables;
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
    /// Convert a trace to JSON (gzip when OUT ends in .gz), keeping every event and field.
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
