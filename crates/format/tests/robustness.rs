//! Random bytes and mutated fixtures: `read_json` never panics or hangs, a
//! parallel read in tiny parts equals the sequential one, and the writer's output reads
//! back to the same text when written again. (The `fuzz/` target checks the same
//! properties without bounds.)

mod common;

use common::{read_with, Collect};
use proptest::prelude::*;
use tracescope_format::json::{read_json, JsonWriter, ReadOptions};
use tracescope_format::{Event, Source};

fn write(events: &[Event<'_>]) -> String {
    let mut w = JsonWriter::new(Vec::new()).unwrap();
    for e in events {
        w.write_event(e).unwrap();
    }
    String::from_utf8(w.finish(&Default::default()).unwrap()).unwrap()
}

fn check(text: &str, chunk_bytes: usize) {
    let Ok((one, seq)) = read_with(
        text,
        &ReadOptions {
            threads: 1,
            chunk_bytes: usize::MAX,
        },
    ) else {
        return;
    };
    let par = read_json(
        text,
        Collect::default,
        &ReadOptions {
            threads: 2,
            chunk_bytes,
        },
    )
    .unwrap();
    assert_eq!(par.diagnostics, one.diagnostics);
    assert!(
        par.parts
            .into_iter()
            .flat_map(|p| p.0)
            .eq(seq.iter().cloned()),
        "parallel read differs"
    );

    // An event with no field is written as `{}`, which reads as nothing.
    let kept: Vec<_> = seq
        .into_iter()
        .filter(|e| {
            *e != Event {
                offset: e.offset,
                ..Event::default()
            }
        })
        .collect();
    let out = write(&kept);
    let (_, again) = read_with(&out, &ReadOptions::default()).unwrap();
    assert_eq!(write(&again), out, "write -> read -> write is stable");
}

/// The JSON fixtures' texts, read once.
fn seeds() -> &'static [String] {
    static SEEDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(|| {
        tracescope_testdata::fixture_files("")
            .iter()
            .map(|p| Source::open(p).unwrap().text().to_string())
            .collect()
    })
}

/// Bits of JSON that make interesting damage.
const SNIPPETS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "//",
    "/*",
    "*/",
    "\n",
    "{}",
    "\"ph\":\"X\"",
    "},{",
    "1e999",
    "-",
    "\u{feff}",
    "\"ts\":\"1",
    "{\"ph\":\"B\"},",
    "tru",
    "\u{1}",
    "é",
];

/// Starts that get random text past the "is this a trace at all" check.
const PREFIXES: &[&str] = &[
    "",
    "[",
    "{\"traceEvents\":[",
    "[{\"ph\":\"X\",",
    "{\"ph\":\"M\"},",
];

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), 0..SNIPPETS.len()).prop_map(|(a, s)| Edit::Insert(a, s)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn boundary(s: &str, at: usize) -> usize {
    let mut at = at % (s.len() + 1);
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(mut s: String, edits: &[Edit]) -> String {
    for e in edits {
        match *e {
            Edit::Delete(a, n) => {
                let a = boundary(&s, a);
                let b = boundary(&s, (a + n).min(s.len()));
                s.replace_range(a..b.max(a), "");
            }
            Edit::Insert(a, k) => s.insert_str(boundary(&s, a), SNIPPETS[k]),
            Edit::Truncate(a) => {
                let a = boundary(&s, a);
                s.truncate(a);
            }
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(prefix in 0..PREFIXES.len(), bytes in prop::collection::vec(any::<u8>(), 0..600),
                    chunk in 1usize..64) {
        check(&(PREFIXES[prefix].to_string() + &String::from_utf8_lossy(&bytes)), chunk);
    }

    #[test]
    fn random_json_tokens(prefix in 0..PREFIXES.len(), tokens in prop::collection::vec(0..SNIPPETS.len(), 0..120),
                          chunk in 1usize..64) {
        let text: String = std::iter::once(PREFIXES[prefix]).chain(tokens.iter().map(|&i| SNIPPETS[i])).collect();
        check(&text, chunk);
    }

    #[test]
    fn mutated_fixtures(which in any::<prop::sample::Index>(),
                             edits in prop::collection::vec(edit(), 1..6),
                             chunk in 1usize..200) {
        let seeds = seeds();
        let text = apply(seeds[which.index(seeds.len())].clone(), &edits);
        check(&text, chunk);
    }
}

#[test]
fn deep_nesting_and_long_runs_stay_bounded() {
    let deep = format!("[{{\"ph\":\"X\",\"args\":{}}}]", "[".repeat(100_000));
    check(&deep, 1000);
    let many_bad = format!("[{}{{\"ph\":\"X\"}}]", "{\"ph\":@},".repeat(20_000));
    let (trace, ev) = read_with(&many_bad, &ReadOptions::default()).unwrap();
    assert_eq!(
        (
            ev.len(),
            trace
                .diagnostics
                .count(tracescope_format::DiagKind::SyntaxError)
        ),
        (1, 20_000)
    );
    let junk = format!("[{{\"ph\":\"X\"}} {}", "{{{{ x ".repeat(20_000));
    check(&junk, 4096);
}
