//! The JSON reader on the repository's fixtures (`tests/fixtures/`): the form and
//! events of each file, what the file-level rules keep (metadata keys, byte order
//! marks, compression, comments, bare event lists), and the exact place of the
//! reader's repairs. `docs/reading-rules.md` says why each is read this way.

mod common;

use common::{diags, read};
use tracescope_format::id::{Int64, Pid};
use tracescope_format::json::Form;
use tracescope_format::{Compression, RawJson, Source};

fn open(rel: &str) -> Source {
    Source::open(tracescope_testdata::fixture(rel)).unwrap()
}

#[test]
fn every_fixture_reads_as_a_trace() {
    let files = tracescope_testdata::fixture_files("");
    assert!(files.len() >= 60, "{} fixtures", files.len());
    for p in files {
        let src = Source::open(&p).unwrap();
        let (trace, events) = read(src.text());
        assert_eq!(trace.events, events.len() as u64, "{}", p.display());
    }
}

/// Form, event count and reader diagnostics of the fixtures that hold no repair.
#[test]
fn forms_and_event_counts() {
    for (rel, form, n) in [
        ("phases/begin-end-nested.json", Form::Object, 4),
        ("phases/complete-one.json", Form::Array, 1),
        ("phases/pid-tid-grouping.json", Form::Object, 5),
        ("phases/nesting-out-of-file-order.json", Form::Object, 6),
        ("phases/interleaved-threads.json", Form::Array, 4),
        ("phases/ui-nest.json", Form::Object, 6),
        ("phases/instants.json", Form::Object, 6),
        ("phases/profile-start-stop.json", Form::Object, 4),
        ("phases/profile-chunks.json", Form::Object, 3),
        ("phases/profile-chunks-streamed.json", Form::Object, 5),
        ("phases/objects.json", Form::Object, 4),
        ("phases/metadata.json", Form::Array, 14),
        ("phases/tracing-started-in-browser.json", Form::Object, 4),
        ("phases/samples-stack-frames.json", Form::Object, 2),
        ("file/object-with-metadata.json", Form::Object, 4),
        ("file/bom-crlf.json", Form::Array, 2),
        ("file/gzip-two-members.json.gz", Form::Array, 2),
        ("file/zstd.json.zst", Form::Array, 1),
        ("file/node.cpuprofile", Form::CpuProfile, 0),
        ("file/head-form.cpuprofile", Form::CpuProfile, 0),
    ] {
        let src = open(rel);
        let (trace, ev) = read(src.text());
        assert_eq!(
            (trace.form, ev.len(), diags(&trace.diagnostics)),
            (form, n, vec![]),
            "{rel}"
        );
    }
}

#[test]
fn the_first_event_of_a_complete_slice() {
    let src = open("phases/complete-one.json");
    let e = &read(src.text()).1[0];
    assert_eq!(
        (e.name.as_deref(), e.cat.as_deref(), e.ts, e.dur),
        (Some("render"), Some("gfx"), Some(30_000), Some(12_500))
    );
    assert_eq!(e.args.as_ref().unwrap().text, r#"{"frame": 17}"#);
}

/// Object form: keys before and after `traceEvents` are trace metadata, in file
/// order; times are exact from their decimal text; a metadata event without `ts`
/// gets none.
#[test]
fn object_form_keeps_its_other_keys_in_order() {
    let src = open("file/object-with-metadata.json");
    let (trace, ev) = read(src.text());
    assert_eq!(
        ev.iter().map(|e| e.ts).collect::<Vec<_>>(),
        [None, Some(1_000_500), Some(1_100_000), Some(1_250_750)]
    );
    assert_eq!(ev[0].pid, Some(Pid::Int(Int64::I(300))));
    let raw = |s: &'static str| RawJson::borrowed(s);
    assert_eq!(
        trace.metadata,
        vec![
            ("producer".into(), raw(r#""fixture-writer 1.0""#)),
            ("displayTimeUnit".into(), raw(r#""ns""#)),
            ("otherData".into(), raw(r#"{"version": "1.2.3"}"#)),
        ]
    );
}

/// A byte order mark, CRLF line ends and a raw tab inside a string are accepted
/// without a diagnostic; the text is UTF-8 as written.
#[test]
fn bom_crlf_and_raw_control_characters() {
    let src = open("file/bom-crlf.json");
    let (trace, ev) = read(src.text());
    assert!(trace.diagnostics.is_empty(), "{:?}", trace.diagnostics);
    let names: Vec<_> = ev.iter().map(|e| e.name.as_deref().unwrap()).collect();
    assert_eq!(names, ["tab\there", "café"]);
}

/// Compression is found from the bytes: two gzip members make one text; zstd.
#[test]
fn gzip_members_and_zstd() {
    let src = open("file/gzip-two-members.json.gz");
    assert_eq!(src.compression(), Compression::Gzip);
    let names: Vec<_> = read(src.text())
        .1
        .iter()
        .map(|e| e.name.as_deref().unwrap().to_string())
        .collect();
    assert_eq!(names, ["first-member", "second-member"]);
    let src = open("file/zstd.json.zst");
    assert_eq!(src.compression(), Compression::Zstd);
    assert_eq!(read(src.text()).1[0].name.as_deref(), Some("zstd-slice"));
}

/// A raw `.cpuprofile` is a CPU profile document, not an event list.
#[test]
fn raw_cpu_profiles_are_whole_documents() {
    for rel in ["file/node.cpuprofile", "file/head-form.cpuprofile"] {
        let src = open(rel);
        let (trace, _) = read(src.text());
        assert!(trace.cpu_profile.is_some(), "{rel}");
    }
}

/// Bare events (no array, no object): read as a list, one diagnostic at the start.
#[test]
fn bare_events_read_as_a_list() {
    let src = open("diagnostics/bare_events.json");
    let (trace, ev) = read(src.text());
    assert_eq!((trace.form, ev.len()), (Form::BareEvents, 2));
    let e = &ev[0];
    assert_eq!(
        (e.ph.as_deref(), e.name.as_deref(), e.ts),
        (Some("M"), Some("thread_name"), None)
    );
    assert_eq!(diags(&trace.diagnostics), vec![("bare_events", 1, 0)]);
}

/// The reader's own repairs, each at the byte where it happened.
#[test]
fn reader_repairs_at_their_offsets() {
    for (rel, n_events, want) in [
        ("diagnostics/comment.json", 2, vec![("comment", 2, 0)]),
        (
            "diagnostics/trailing_comma.json",
            2,
            vec![("trailing_comma", 2, 66)],
        ),
        (
            "diagnostics/empty_event.json",
            2,
            vec![("empty_event", 2, 71)],
        ),
        ("diagnostics/truncated.json", 1, vec![("truncated", 1, 70)]),
        (
            "diagnostics/syntax_error.json",
            2,
            vec![("syntax_error", 2, 96)],
        ),
        (
            "diagnostics/trailing_content.json",
            1,
            vec![("trailing_content", 1, 66)],
        ),
        (
            "diagnostics/duplicate_key.json",
            1,
            vec![("duplicate_key", 1, 38)],
        ),
        (
            "diagnostics/numeric_string.json",
            2,
            vec![("numeric_string", 2, 35)],
        ),
        (
            "diagnostics/bad_display_time_unit.json",
            1,
            vec![("bad_display_time_unit", 1, 102)],
        ),
        (
            "diagnostics/non_string_system_trace.json",
            1,
            vec![("non_string_system_trace", 1, 104)],
        ),
        (
            "diagnostics/invalid_utf8.json",
            1,
            vec![("invalid_utf8", 1, 29)],
        ),
    ] {
        let src = open(rel);
        let (mut trace, ev) = read(src.text());
        trace.diagnostics.merge(src.diagnostics().clone());
        assert_eq!(
            (ev.len(), diags(&trace.diagnostics)),
            (n_events, want),
            "{rel}"
        );
    }
}

/// A duplicate key: the last value is the event's.
#[test]
fn duplicate_key_last_value_wins() {
    let src = open("diagnostics/duplicate_key.json");
    assert_eq!(read(src.text()).1[0].name.as_deref(), Some("last-name"));
}
