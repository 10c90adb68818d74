//! `tracescope validate`: lists diagnostics, errors first; the exit code says whether
//! the trace is damaged (errors; with `--strict`, warnings too), so CI can use it.

use std::path::Path;
use std::process::ExitCode;

use tracescope_format::Severity;

pub fn run(path: &Path, strict: bool) -> ExitCode {
    let trace = match crate::load::load(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tracescope: {e:#}");
            return ExitCode::from(2);
        }
    };
    let mut diags = trace.diagnostics.sorted();
    if diags.is_empty() {
        println!(
            "{}: ok, {} events, no diagnostics",
            path.display(),
            trace.info.events
        );
        return ExitCode::SUCCESS;
    }
    diags.sort_by_key(|d| (std::cmp::Reverse(d.kind.severity()), d.offset, d.kind));
    let counts = Severity::ALL.map(|s| trace.diagnostics.count_severity(s));
    let tally: Vec<String> = Severity::ALL
        .iter()
        .zip(counts)
        .map(|(s, n)| format!("{n} {}{}", s.as_str(), if n == 1 { "" } else { "s" }))
        .collect();
    println!(
        "{}: {} events, {} kind{} of diagnostic ({})",
        path.display(),
        trace.info.events,
        diags.len(),
        if diags.len() == 1 { "" } else { "s" },
        tally.join(", ")
    );
    for d in diags {
        let (line, column) =
            tracescope_format::json::value::line_col(trace.text(), d.offset as usize);
        println!(
            "{:<7} {}: {} x{} (first at byte {}, line {line}, column {column}): {}",
            d.kind.severity().as_str(),
            d.kind,
            d.kind.describe(),
            d.count,
            d.offset,
            d.example
        );
    }
    let [errors, warnings, _] = counts;
    let fails = errors > 0 || (strict && warnings > 0);
    let verdict = match (fails, errors > 0) {
        (true, true) => "damaged: the trace has errors (exit 1)".to_string(),
        (true, false) => "damaged: warnings fail with --strict (exit 1)".to_string(),
        (false, _) if warnings > 0 => {
            "ok: no errors (warnings fail only with --strict)".to_string()
        }
        (false, _) => "ok: only infos (what producers routinely write)".to_string(),
    };
    println!("{verdict}");
    if fails {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
