//! A CTF trace large enough to be mapped, read run by run ([`CtfRuns`]): the runs
//! give exactly the decoded events in input order, whatever the split, and leave
//! few of the stream's pages mapped (each packet's pages are dropped once its last
//! record is decoded, and all of them once the last run is done).

mod ctf_support;

use tracescope_format::ctf::{open_dir, write_dir, CtfFiles, CtfRuns, CtfWriteOptions, INDEX_FILE};
use tracescope_format::{DiagKind, Diagnostics, Event, EventRuns};

/// The fixtures' events, many times over with times interleaved, so the stream is
/// over the 1 MiB from which stream files are mapped and input order jumps about
/// the (time-sorted) file.
fn many_events() -> Vec<Event<'static>> {
    let mut base = Vec::new();
    for (_, text) in ctf_support::json_traces(false) {
        base.extend(ctf_support::events_of(&text));
    }
    let mut out = Vec::new();
    for copy in 0..40i64 {
        out.extend(base.iter().cloned().map(|mut e| {
            e.ts = e.ts.map(|t| t + (copy % 7) * 1_000);
            e
        }));
    }
    out
}

fn all_events<'a>(runs: &CtfRuns<'a>) -> (Vec<Event<'a>>, Diagnostics) {
    let (mut out, mut diags) = (Vec::new(), Diagnostics::new());
    for k in 0..runs.runs() {
        runs.run(k, &mut diags, &mut |e| out.push(e));
    }
    (out, diags)
}

/// The resident size of the mapping of `path` in this process, in kB (`None` when
/// it is not mapped).
#[cfg(target_os = "linux")]
fn mapped_rss_kb(path: &std::path::Path) -> Option<u64> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let name = std::fs::canonicalize(path).unwrap();
    let name = name.to_string_lossy();
    let mut lines = smaps.lines().skip_while(|l| !l.ends_with(&*name));
    lines.next()?;
    let rss = lines.find(|l| l.starts_with("Rss:"))?;
    rss.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn mapped_streams_read_run_by_run_as_decoded_and_are_released() {
    let events = many_events();
    let dir = ctf_support::TestDir::new("ctf-runs", "released");
    let opts = CtfWriteOptions {
        packet_bytes: 16 << 10,
        ..Default::default()
    };
    write_dir(&dir, &events, &opts).unwrap();
    let stream = dir.join("chrome_0");
    let size = std::fs::metadata(&stream).unwrap().len();
    assert!(size > 2 << 20, "the stream must be mapped: {size} bytes");
    let files: CtfFiles = open_dir(&dir).unwrap();
    let (want, want_diags) = files.events().unwrap();
    assert!(want_diags.is_empty(), "{want_diags:?}");
    assert_eq!(want.len(), events.len());
    for split in [1, 3, 8] {
        let runs = files.runs().expect("our own layout").split(split);
        assert_eq!(runs.len(), want.len());
        let (got, diags) = all_events(&runs);
        // Before the events are looked at: their names borrow the mapped file. A
        // few pages may be back: a fault maps the cached pages around it too
        // (fault-around), some of a packet already done.
        #[cfg(target_os = "linux")]
        {
            let rss = mapped_rss_kb(&stream).expect("the stream is mapped");
            assert!(
                rss * 1024 * 8 < size,
                "{split} runs: {rss} kB of {size} bytes mapped"
            );
        }
        assert!(diags.is_empty(), "{diags:?}");
        assert!(got == want, "{split} runs give other events");
    }
    drop(files);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs that leave each event's args encoded in the stream files give the
/// decoded events but for their args, which the encoded bytes (at their place in
/// the files, which outlive the [`CtfFiles`]) turn into the decoded args text.
#[test]
fn encoded_args_lie_in_the_files_and_give_the_decoded_args() {
    let events = many_events();
    let dir = ctf_support::TestDir::new("ctf-runs", "encoded");
    let opts = CtfWriteOptions {
        packet_bytes: 16 << 10,
        ..Default::default()
    };
    write_dir(&dir, &events, &opts).unwrap();
    let files: CtfFiles = open_dir(&dir).unwrap();
    let (want, _) = files.events().unwrap();
    let want: Vec<Event<'static>> = want.into_iter().map(Event::into_owned).collect();
    for split in [1, 3] {
        let runs = files.runs().expect("our own layout").split(split);
        let streams = runs.files().to_vec();
        assert_eq!(streams.len(), 1);
        let (got, diags) = all_events(&runs.with_encoded_args());
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(got.len(), want.len());
        let mut encoded = 0;
        for (g, w) in got.into_iter().zip(&want) {
            assert!(g.args.is_none());
            if let Some(e) = &g.encoded_args {
                let at = e.at as usize;
                assert_eq!(e.bytes, &streams[0].bytes()[at..at + e.bytes.len()]);
                encoded += 1;
            }
            let g = g.into_owned();
            assert!(g.encoded_args.is_none());
            assert_eq!(&g, w);
        }
        assert!(encoded > want.len() / 4, "{encoded} of {}", want.len());
    }
    drop(files);
    let _ = std::fs::remove_dir_all(&dir);
}

fn owned_events(files: &CtfFiles) -> Vec<Event<'static>> {
    let (events, _) = files.events().unwrap();
    events.into_iter().map(Event::into_owned).collect()
}

/// The records of an index file: the last `8 * n` bytes (see the index's layout).
fn index_records(index: &[u8], n: usize) -> std::ops::Range<usize> {
    index.len() - 8 * n..index.len()
}

/// An index that does not describe the streams beside it (another trace's, one
/// cut short, one naming a record past its packet's content) is not followed: the
/// stream is scanned, and the runs give the decoded events.
#[test]
fn an_index_of_other_streams_is_not_followed() {
    let events = many_events();
    let dir = ctf_support::TestDir::new("ctf-runs", "stale-index");
    let other = ctf_support::TestDir::new("ctf-runs", "other-index");
    let opts = CtfWriteOptions {
        packet_bytes: 16 << 10,
        ..Default::default()
    };
    write_dir(&dir, &events, &opts).unwrap();
    // The same events again: the same stream but for its uuid.
    write_dir(&other, &events, &opts).unwrap();
    let index = dir.join(INDEX_FILE);
    let ours = std::fs::read(&index).unwrap();
    let want = owned_events(&open_dir(&dir).unwrap());
    let mut past = ours.clone();
    let last = index_records(&ours, events.len()).end - 8;
    past[last..last + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let cases = [
        (
            "another trace's",
            std::fs::read(other.join(INDEX_FILE)).unwrap(),
        ),
        ("cut short", ours[..ours.len() - 1].to_vec()),
        ("a record past its packet", past),
        ("empty", Vec::new()),
    ];
    for (case, bytes) in cases {
        std::fs::write(&index, &bytes).unwrap();
        let files = open_dir(&dir).unwrap();
        let runs = files.runs().expect("our own layout").split(3);
        let (got, diags) = all_events(&runs);
        assert!(diags.is_empty(), "{case}: {diags:?}");
        assert!(got == want, "{case}: other events");
    }
}

/// An index that describes the streams but names the wrong record for an event
/// (here two events' records swapped) never gives a wrong event: each of the two
/// is a counted diagnostic naming the index, and every other event comes as
/// decoded, in order.
#[test]
fn an_index_naming_wrong_records_gives_diagnostics_not_wrong_events() {
    let events = many_events();
    let dir = ctf_support::TestDir::new("ctf-runs", "wrong-index");
    let opts = CtfWriteOptions {
        packet_bytes: 16 << 10,
        ..Default::default()
    };
    write_dir(&dir, &events, &opts).unwrap();
    let want = owned_events(&open_dir(&dir).unwrap());
    let index = dir.join(INDEX_FILE);
    let mut bytes = std::fs::read(&index).unwrap();
    let records = index_records(&bytes, events.len());
    let (a, b) = (records.start + 8 * 10, records.start + 8 * 2000);
    let (ra, rb) = (bytes[a..a + 8].to_vec(), bytes[b..b + 8].to_vec());
    assert_ne!(ra, rb);
    bytes[a..a + 8].copy_from_slice(&rb);
    bytes[b..b + 8].copy_from_slice(&ra);
    std::fs::write(&index, &bytes).unwrap();
    let files = open_dir(&dir).unwrap();
    for split in [1, 3] {
        let runs = files.runs().expect("our own layout").split(split);
        let (got, diags) = all_events(&runs);
        assert_eq!(diags.count(DiagKind::SyntaxError), 2, "{diags:?}");
        assert_eq!(diags.len(), 1, "only syntax errors: {diags:?}");
        let text = format!("{diags:?}");
        assert!(
            text.contains("is not event 10 as .tracescope-index says"),
            "{text}"
        );
        assert!(
            text.contains("is not event 2000 as .tracescope-index says"),
            "{text}"
        );
        let kept: Vec<&Event<'static>> = (want.iter().enumerate())
            .filter(|(i, _)| *i != 10 && *i != 2000)
            .map(|(_, e)| e)
            .collect();
        assert_eq!(got.len(), kept.len());
        assert!(got.iter().zip(kept).all(|(g, w)| g == w), "{split} runs");
    }
}

/// A trace with a record the fast reader does not scan (an `E` whose args
/// overflow into `@more`) gets no index, and an index an earlier trace left in the
/// directory goes.
#[test]
fn a_trace_the_fast_reader_does_not_scan_gets_no_index() {
    let dir = ctf_support::TestDir::new("ctf-runs", "no-index");
    let plain = ctf_support::events_of(r#"[{"ph":"i","name":"a","ts":1,"pid":1,"tid":1}]"#);
    write_dir(&dir, &plain, &CtfWriteOptions::default()).unwrap();
    assert!(dir.join(INDEX_FILE).exists());
    let args: Vec<String> = (0..9).map(|i| format!("\"k{i}\":{i}")).collect();
    let overflowing = ctf_support::events_of(&format!(
        r#"[{{"ph":"B","name":"a","ts":1,"pid":1,"tid":1}},
            {{"ph":"E","ts":2,"pid":1,"tid":1,"args":{{{}}}}}]"#,
        args.join(",")
    ));
    write_dir(&dir, &overflowing, &CtfWriteOptions::default()).unwrap();
    assert!(!dir.join(INDEX_FILE).exists());
    let files = open_dir(&dir).unwrap();
    assert!(files.runs().is_none());
    let (events, diags) = files.events().unwrap();
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(events.len(), 2);
}

/// Any bytes of an index changed: the runs never panic, and give the decoded
/// events in order, those whose records the index no longer names counted as
/// syntax errors (the index is refused outright when its head no longer describes
/// the stream).
#[test]
fn a_damaged_index_gives_decoded_events_or_counted_diagnostics() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestCaseError, TestRunner};

    let dir = ctf_support::TestDir::new("ctf-runs", "damaged-index");
    let events: Vec<Event<'static>> = many_events().into_iter().take(3000).collect();
    let opts = CtfWriteOptions {
        packet_bytes: 4 << 10,
        ..Default::default()
    };
    write_dir(&dir, &events, &opts).unwrap();
    let want = owned_events(&open_dir(&dir).unwrap());
    let index = dir.join(INDEX_FILE);
    let clean = std::fs::read(&index).unwrap();
    let damage = (
        proptest::collection::vec((0.0f64..1.0, 1u8..=255), 1..6),
        any::<bool>(),
    );
    let mut runner = TestRunner::new(Config::with_cases(48));
    let outcome = runner.run(&damage, |(flips, records_only)| {
        let mut bytes = clean.clone();
        let from = if records_only {
            index_records(&bytes, want.len()).start
        } else {
            0
        };
        let last = bytes.len() - 1;
        for (at, x) in flips {
            let i = from + ((bytes.len() - from) as f64 * at) as usize;
            bytes[i.min(last)] ^= x;
        }
        std::fs::write(&index, &bytes).unwrap();
        let files = open_dir(&dir).unwrap();
        let runs = files.runs().expect("our own layout").split(3);
        let (got, diags) = all_events(&runs);
        let lost = diags.count(DiagKind::SyntaxError) as usize;
        prop_assert_eq!(diags.len(), usize::from(lost > 0));
        prop_assert_eq!(got.len() + lost, want.len());
        // In order: every event given is the next decoded one not lost.
        let mut rest = want.iter();
        for g in &got {
            if !rest.any(|w| w == g) {
                return Err(TestCaseError::fail("an event not decoded, or out of order"));
            }
        }
        Ok(())
    });
    outcome.unwrap();
}
