//! A CTF trace large enough to be mapped, read run by run ([`CtfRuns`]): the runs
//! give exactly the decoded events in input order, whatever the split, and leave
//! few of the stream's pages mapped (each packet's pages are dropped once its last
//! record is decoded, and all of them once the last run is done).

mod ctf_support;

use tracescope_format::ctf::{open_dir, write_dir, CtfFiles, CtfRuns, CtfWriteOptions};
use tracescope_format::{Diagnostics, Event, EventRuns};

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
