//! `tracescope validate`: lists diagnostics; the exit code says how it went.

use std::path::Path;
use std::process::ExitCode;

pub fn run(path: &Path) -> ExitCode {
    let trace = match crate::load::load(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tracescope: {e:#}");
            return ExitCode::from(2);
        }
    };
    let diags = trace.diagnostics.sorted();
    if diags.is_empty() {
        println!(
            "{}: ok, {} events, no diagnostics",
            path.display(),
            trace.info.events
        );
        return ExitCode::SUCCESS;
    }
    println!(
        "{}: {} events, {} kinds of diagnostic",
        path.display(),
        trace.info.events,
        diags.len()
    );
    for d in diags {
        let (line, column) =
            tracescope_format::json::value::line_col(trace.text(), d.offset as usize);
        println!(
            "{}: {} x{} (first at byte {}, line {line}, column {column}): {}",
            d.kind,
            d.kind.describe(),
            d.count,
            d.offset,
            d.example
        );
    }
    ExitCode::from(1)
}
