//! Corpus tier (runs when `../shared` is there): every trace of the external corpus
//! reads as a trace. The fixture tier's `fixtures.rs` checks the same of every fixture.

mod common;

use common::{corpus_files, diags, read};
use tracescope_format::json::Form;
use tracescope_format::Source;

#[test]
fn every_corpus_file_loads() {
    let Some((shared, files)) = corpus_files() else {
        return;
    };
    assert!(files.len() > 100, "corpus not found under {shared:?}");
    let mut total = 0;
    for path in &files {
        let src = Source::open(path).unwrap();
        let (trace, events) = read(src.text());
        assert_eq!(trace.events, events.len() as u64);
        if trace.form == Form::CpuProfile {
            assert!(trace.cpu_profile.is_some());
        }
        total += events.len();
        let name = path.strip_prefix(&shared).unwrap().display().to_string();
        eprintln!(
            "{name}: {} {} events {:?}",
            trace.form.as_str(),
            events.len(),
            diags(&trace.diagnostics)
        );
    }
    eprintln!("{} files, {total} events", files.len());
}
