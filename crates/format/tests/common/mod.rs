//! Helpers shared by the format crate's integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use tracescope_format::json::{read_json, EventSink, JsonTrace, ReadError, ReadOptions};
use tracescope_format::{Diagnostics, Event};

/// A sink that keeps every event.
#[derive(Default)]
pub struct Collect<'a>(pub Vec<Event<'a>>);

impl<'a> EventSink<'a> for Collect<'a> {
    fn event(&mut self, event: Event<'a>, _: &mut Diagnostics) {
        self.0.push(event);
    }
}

pub fn read_with<'a>(
    text: &'a str,
    opts: &ReadOptions,
) -> Result<(JsonTrace<'a, Collect<'a>>, Vec<Event<'a>>), ReadError> {
    let mut trace = read_json(text, Collect::default, opts)?;
    let events = trace
        .parts
        .iter_mut()
        .flat_map(|p| std::mem::take(&mut p.0))
        .collect();
    Ok((trace, events))
}

/// Reads on one thread with one part.
pub fn read(text: &str) -> (JsonTrace<'_, Collect<'_>>, Vec<Event<'_>>) {
    read_with(
        text,
        &ReadOptions {
            threads: 1,
            chunk_bytes: usize::MAX,
        },
    )
    .expect("a trace")
}

/// `(kind, count, offset)` of every diagnostic, ordered by kind name.
pub fn diags(d: &Diagnostics) -> Vec<(&'static str, u64, u64)> {
    let mut v: Vec<_> = d
        .sorted()
        .into_iter()
        .map(|d| (d.kind.as_str(), d.count, d.offset))
        .collect();
    v.sort();
    v
}

/// Every JSON trace of the external corpus and examples (compressed ones included),
/// or `None` (after one line saying so) when `../shared` is absent.
pub fn corpus_files() -> Option<(PathBuf, Vec<PathBuf>)> {
    let shared = tracescope_testdata::corpus("", "every JSON trace of the external corpus")?;
    let mut out: Vec<PathBuf> = [
        "corpus/catapult",
        "corpus/speedscope",
        "corpus/perfetto",
        "examples",
    ]
    .iter()
    .flat_map(|d| tracescope_testdata::files_under(&shared.join(d)))
    .filter(|p| p.extension().is_some_and(|x| x != "md" && x != "txt"))
    .collect();
    out.sort();
    Some((shared, out))
}
