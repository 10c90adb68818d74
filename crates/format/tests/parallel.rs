//! A parallel read, cut into tiny parts, gives exactly what one sequential pass gives:
//! the same events (offsets included), counts and diagnostics, and the same parts for
//! any thread count.

mod common;

use common::{corpus_files, read, read_with, Collect};
use proptest::prelude::*;
use tracescope_format::json::{read_json, EventSink, ReadOptions};
use tracescope_format::{DiagKind, Diagnostics, Event, Source};

fn assert_same(text: &str, chunk_bytes: usize, what: &str) {
    let (one, seq) = read(text);
    let chunked = |threads| {
        read_json(
            text,
            Collect::default,
            &ReadOptions {
                threads,
                chunk_bytes,
            },
        )
        .unwrap()
    };
    let par = chunked(3);
    let parts: Vec<Vec<Event<'_>>> = par.parts.iter().map(|p| p.0.clone()).collect();
    assert!(
        parts.concat() == seq,
        "{what}, chunk {chunk_bytes}: events differ"
    );
    assert_eq!(
        (par.events, par.form),
        (one.events, one.form),
        "{what}, chunk {chunk_bytes}"
    );
    assert_eq!(
        par.diagnostics, one.diagnostics,
        "{what}, chunk {chunk_bytes}"
    );
    assert_eq!(par.trailer(), one.trailer(), "{what}, chunk {chunk_bytes}");
    // The same parts on one thread.
    let single: Vec<Vec<Event<'_>>> = chunked(1).parts.into_iter().map(|p| p.0).collect();
    assert!(single == parts, "{what}, chunk {chunk_bytes}: parts differ");
}

#[test]
fn fixtures_in_tiny_parts() {
    for path in tracescope_testdata::fixture_files("") {
        let src = Source::open(&path).unwrap();
        let what = tracescope_testdata::fixture_name(&path);
        for chunk in [1, 16, 64] {
            assert_same(src.text(), chunk, &what);
        }
    }
}

/// Corpus tier.
#[test]
fn corpus_in_tiny_parts() {
    let Some((_, files)) = corpus_files() else {
        return;
    };
    for path in files {
        let src = Source::open(&path).unwrap();
        let text = src.text();
        let what = path.display().to_string();
        // 64-byte parts on the big files would only make the debug build slow.
        if text.len() < 2 << 20 {
            assert_same(text, 64, &what);
        }
        assert_same(text, 1000, &what);
    }
}

/// Pieces of event lists that look like event boundaries where they are not.
const TRICKY: &[&str] = &[
    r#"{"ph":"X","name":"},{\"ph\":\"B\"}","ts":1}"#,
    r#"{"ph":"i","args":{"list":[{"ph":"fake"},{"ph":"fake2"}],"o":{"ph":"n"}}}"#,
    r#"{"ph":"C","args":{"frames":[{"a":1},{"b":[{},{}]}]},"ts":"12.5"}"#,
    r#"{"name":"no ph","args":{}}"#,
    "{}",
    "7",
    r#"{"ph":"B" "broken":1}"#,
    r#"{"ph":"E","ts":tru}"#,
    "/* c */ {\"ph\":\"M\"} // x\n",
    r#"{"ph":"X","ts":1,}"#,
    r#"{"ph":"b","id2":{"local":"0x1"},"dur":"bad"}"#,
    r#"{"ph":"s","s":"\"},{\"ph\":\"e\"}"}"#,
];

fn list(pieces: &[usize], object_form: bool, cut: Option<usize>) -> String {
    let body: Vec<&str> = pieces.iter().map(|&i| TRICKY[i]).collect();
    let mut t = if object_form {
        format!("{{\"traceEvents\":[{}],\"k\":1}}", body.join(",\n"))
    } else {
        format!("[{}]", body.join(", "))
    };
    if let Some(c) = cut {
        let mut c = c % (t.len() + 1);
        while !t.is_char_boundary(c) {
            c -= 1;
        }
        t.truncate(c);
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn generated_lists_in_tiny_parts(pieces in prop::collection::vec(0..TRICKY.len(), 0..40),
                                     object_form in any::<bool>(),
                                     cut in proptest::option::of(any::<usize>()),
                                     chunk in 1usize..300) {
        let text = list(&pieces, object_form, cut);
        if read_with(&text, &ReadOptions { threads: 1, chunk_bytes: usize::MAX }).is_ok() {
            assert_same(&text, chunk, &text);
        }
    }
}

/// A sink that adds diagnostics of its own, as the model does.
struct Judge<'a>(Vec<Event<'a>>);

impl<'a> EventSink<'a> for Judge<'a> {
    fn event(&mut self, event: Event<'a>, diags: &mut Diagnostics) {
        if event.ts.is_none() {
            diags.add(DiagKind::MissingTs, event.offset, || {
                format!("event at {}", event.offset)
            });
        }
        self.0.push(event);
    }
}

#[test]
fn sink_diagnostics_merge_like_a_sequential_read() {
    let pieces: Vec<usize> = (0..400).map(|i| (i * 7) % TRICKY.len()).collect();
    let text = list(&pieces, true, None);
    let read = |threads, chunk_bytes| {
        read_json(
            &text,
            || Judge(Vec::new()),
            &ReadOptions {
                threads,
                chunk_bytes,
            },
        )
        .unwrap()
    };
    let one = read(1, usize::MAX);
    let par = read(2, 97);
    assert!(par.parts.len() > 50);
    assert_eq!(par.diagnostics, one.diagnostics);
    let missing = par.diagnostics.get(DiagKind::MissingTs).unwrap();
    // Pieces 0, 7 (malformed), 2, 9, 4 (empty) have a time or are skipped; 11 has none.
    assert_eq!(missing.offset, text.find(TRICKY[11]).unwrap() as u64);
}

/// Records the bytes its part covered.
#[derive(Default)]
struct Span(Option<std::ops::Range<usize>>, u64);

impl<'a> EventSink<'a> for Span {
    fn event(&mut self, _: Event<'a>, _: &mut Diagnostics) {
        self.1 += 1;
    }

    fn part_done(&mut self, bytes: std::ops::Range<usize>, _: &mut Diagnostics) {
        assert!(self.0.replace(bytes).is_none(), "part_done is called once");
    }
}

#[test]
fn parts_tile_the_event_list() {
    let pieces: Vec<usize> = (0..300).map(|i| (i * 5) % TRICKY.len()).collect();
    let text = list(&pieces, true, None);
    let list_start = text.find('[').unwrap() + 1;
    let list_end = text.find("],\"k\"").unwrap() + 1;
    for threads in [1, 2] {
        let t = read_json(
            &text,
            Span::default,
            &ReadOptions {
                threads,
                chunk_bytes: 200,
            },
        )
        .unwrap();
        let ranges: Vec<_> = t.parts.iter().map(|p| p.0.clone().unwrap()).collect();
        assert!(ranges.len() > 20);
        assert_eq!(
            (ranges[0].start, ranges.last().unwrap().end),
            (list_start, list_end)
        );
        assert!(ranges
            .windows(2)
            .all(|w| w[0].end == w[1].start && text.as_bytes()[w[1].start] == b'{'));
        assert_eq!(t.parts.iter().map(|p| p.1).sum::<u64>(), t.events);
    }
}
