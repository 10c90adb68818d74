//! Hostile inputs (issue 20), each built here: every loop makes progress, memory is
//! bounded by the input's size times a documented factor (decompression included),
//! no writer reports an event it did not write, directory walks visit each real
//! directory once, and errors name their real cause.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{diags, read_with};
use tracescope_format::ctf::{open_dir, read_trace_bytes, write_dir, CtfError, CtfWriteOptions};
use tracescope_format::etw::{read_records, Bitness, RecordWriter};
use tracescope_format::json::{read_events, JsonWriter, ReadOptions};
use tracescope_format::source::ALWAYS_ALLOWED;
use tracescope_format::{DiagKind, Diagnostics, Event, RatioExceeded, Source, SourceOptions};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tracescope-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn events_of(text: &str) -> Vec<Event<'_>> {
    let mut events = Vec::new();
    read_events(text, |e, _| events.push(e)).unwrap();
    events
}

/// Events as JSON text, to compare what comes back with what went in.
fn json_of(events: &[Event<'_>]) -> String {
    let mut w = JsonWriter::new(Vec::new()).unwrap();
    for e in events {
        w.write_event(&Event {
            offset: 0,
            ..e.clone()
        })
        .unwrap();
    }
    String::from_utf8(w.finish(&Default::default()).unwrap()).unwrap()
}

// 1. CTF: an event class that reads no bytes.

const ZERO_BYTE_METADATA: &str =
    "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le; };\nevent { name = x; };\n";

#[test]
fn ctf_event_of_zero_bytes_ends_its_packet_with_a_diagnostic() {
    for stream in [&b"a"[..], &[0u8; 1 << 16][..]] {
        let mut diags = Diagnostics::new();
        let events = read_trace_bytes(
            ZERO_BYTE_METADATA.as_bytes(),
            &[("stream", stream)],
            &mut diags,
        )
        .unwrap();
        assert!(events.is_empty());
        let d = diags.get(DiagKind::SyntaxError).expect("a syntax error");
        assert_eq!((d.count, d.offset), (1, 0));
        assert!(
            d.example.contains("event class `x` reads no bytes"),
            "{}",
            d.example
        );
    }
}

#[test]
fn ctf_directory_of_zero_byte_events_reads() {
    let dir = temp_dir("ctf0");
    std::fs::write(dir.join("metadata"), ZERO_BYTE_METADATA).unwrap();
    std::fs::write(dir.join("stream"), b"a").unwrap();
    let (events, diags) = open_dir(&dir)
        .unwrap()
        .events()
        .map(|(e, d)| (e.len(), d))
        .unwrap();
    assert_eq!((events, diags.count(DiagKind::SyntaxError)), (0, 1));
    std::fs::remove_dir_all(&dir).unwrap();
}

// 2. ETW records: an event a payload string cannot hold as it is.

#[test]
fn etw_round_trip_keeps_events_with_raw_nul_bytes() {
    // Raw NULs (tolerated inside JSON strings) in an args key, a stack string, an
    // unknown field, its key, a name and a category.
    let text = "[{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":1,\"args\":{\"k\0ey\":1}},\
                {\"ph\":\"i\",\"pid\":1,\"tid\":1,\"name\":\"b\",\"ts\":2,\"stack\":\"s\0t\"},\
                {\"ph\":\"i\",\"pid\":1,\"tid\":1,\"name\":\"c\",\"ts\":3,\"other\":[\"x\0\"]},\
                {\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"d\0\",\"cat\":\"c\0\",\"ts\":4,\"dur\":1,\"o\0\":{\"a\":\"\0\"},\"estack\":[\"\0\"]}]";
    let events = events_of(text);
    assert_eq!(events.len(), 4);
    for bits in [Bitness::B32, Bitness::B64] {
        let mut w = RecordWriter::new(Vec::new(), bits).unwrap();
        for e in &events {
            w.write_event(e).unwrap();
        }
        let bytes = w.finish().unwrap();
        let (back, d) = read_records(&bytes).unwrap();
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(json_of(&back), json_of(&events));
    }
    // CTF carries them too.
    let dir = temp_dir("ctf-nul");
    write_dir(&dir, &events, &CtfWriteOptions::default()).unwrap();
    let (back, _) = open_dir(&dir)
        .unwrap()
        .events()
        .map(|(e, d)| (json_of(&e), d))
        .unwrap();
    assert_eq!(back, json_of(&events));
    std::fs::remove_dir_all(&dir).unwrap();
}

// 3. Decompression bombs.

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// `members` gzip members of 1 MiB of zeros each: about 1000 times smaller than
/// what they decompress to.
fn gzip_bomb(members: usize) -> Vec<u8> {
    gzip(&vec![0u8; 1 << 20]).repeat(members)
}

fn ratio_error(r: std::io::Result<Source>) -> RatioExceeded {
    let e = r.err().expect("the bomb is refused");
    RatioExceeded::of(&e).expect("a ratio error").clone()
}

#[test]
fn gzip_bomb_stops_before_it_is_decompressed() {
    // 1 GiB of zeros in 1 MB, as one input.
    let bomb = gzip_bomb(1024);
    assert!(bomb.len() < 1_100_000, "{}", bomb.len());
    let r = ratio_error(Source::from_bytes(bomb.clone()));
    assert_eq!(
        (r.compression, r.max_ratio, r.input_len),
        ("gzip", 100, bomb.len() as u64)
    );
    // Stopped one step past what is always allowed, not at 1 GiB.
    assert!(r.decompressed > ALWAYS_ALLOWED && r.decompressed <= ALWAYS_ALLOWED + (1 << 20));
    assert!(r.consumed < 100_000, "{}", r.consumed);
    let msg = r.to_string();
    assert!(msg.contains("past the limit of 100 times"), "{msg}");
}

/// Decoded in the background (the size is not known ahead, so it is not refused at
/// open): the decoder stops at the same limit, and the source reports the error
/// that reading it first would have returned, with an empty text.
#[test]
fn gzip_bomb_decoded_in_the_background_stops_with_the_same_error() {
    let bomb = gzip_bomb(1024);
    let first = ratio_error(Source::from_bytes(bomb.clone()));
    let opts = SourceOptions {
        pipeline_from: 0,
        ..SourceOptions::default()
    };
    let s = Source::from_bytes_with(bomb, &opts).expect("opened to decode in the background");
    assert!(s.expected_len().is_some(), "decoded in the background");
    let e = s.decode_error().expect("the bomb is refused once decoded");
    assert_eq!(RatioExceeded::of(e), Some(&first));
    assert_eq!(s.text(), "");
    // A clean input has no such error.
    let ok = Source::from_bytes_with(gzip(b"[]"), &opts).unwrap();
    assert!(ok.decode_error().is_none());
    assert_eq!(ok.text(), "[]");
}

#[test]
fn gzip_bomb_in_a_file_stops_too() {
    let dir = temp_dir("bomb");
    let p = dir.join("bomb.json.gz");
    std::fs::write(&p, gzip_bomb(200)).unwrap();
    let r = ratio_error(Source::open(&p));
    assert!(r.decompressed <= ALWAYS_ALLOWED + (1 << 20));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_higher_ratio_reads_what_the_default_refuses() {
    // 80 MiB of zeros, then a trace: 1000 times smaller compressed.
    let mut bomb = gzip_bomb(80);
    bomb.extend(gzip(b"[{\"ph\":\"i\",\"ts\":1}]"));
    ratio_error(Source::from_bytes(bomb.clone()));
    let opts = SourceOptions {
        max_ratio: 5000,
        ..SourceOptions::default()
    };
    let s = Source::from_bytes_with(bomb.clone(), &opts).unwrap();
    assert_eq!(s.text().len(), (80 << 20) + 19);
    let opts = SourceOptions {
        max_ratio: 0,
        ..SourceOptions::default()
    };
    let s = Source::from_bytes_with(bomb, &opts).unwrap();
    assert!(s.text().ends_with("[{\"ph\":\"i\",\"ts\":1}]"));
}

#[test]
fn zstd_bomb_stops_too() {
    let frame = zstd::encode_all(&vec![0u8; 4 << 20][..], 19).unwrap();
    let bomb = frame.repeat(40); // 160 MiB of zeros
    let r = ratio_error(Source::from_bytes(bomb));
    assert_eq!(r.compression, "zstd");
    assert!(r.decompressed <= ALWAYS_ALLOWED + (1 << 20));
}

#[test]
fn real_traces_compress_well_below_the_ratio() {
    // A repetitive trace (every event alike but its time), with the ratio checked
    // from the first megabyte on: read at 100, refused at 10.
    let text: String = std::iter::once("[".to_string())
        .chain((0..100_000).map(|i| {
            format!("{{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"work\",\"ts\":{i},\"dur\":1}},")
        }))
        .chain(std::iter::once("{}]".to_string()))
        .collect();
    let opts = |max_ratio| SourceOptions {
        max_ratio,
        always_allowed: 1 << 20,
        ..SourceOptions::default()
    };
    for z in [
        gzip(text.as_bytes()),
        zstd::encode_all(text.as_bytes(), 9).unwrap(),
    ] {
        let s = Source::from_bytes_with(z.clone(), &opts(100)).unwrap();
        assert_eq!(s.text(), text);
        let r = ratio_error(Source::from_bytes_with(z, &opts(10)));
        assert!(
            r.decompressed <= (r.consumed * 10).max(1 << 20) + (1 << 20),
            "{r:?}"
        );
    }
}

// 4. Messages that name the real cause.

/// A zstd frame header with window exponent `exp` (window 2^(10+exp)) and no
/// content size, then one raw block holding `body`.
fn zstd_frame_with_window(exp: u8, body: &[u8]) -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, exp << 3];
    let header = 1 | ((body.len() as u32) << 3); // last block, raw
    f.extend_from_slice(&header.to_le_bytes()[..3]);
    f.extend_from_slice(body);
    f
}

#[test]
fn zstd_window_beyond_the_limit_names_the_decoder_error() {
    // 2^32: more than any decoder allows.
    let e = Source::from_bytes(zstd_frame_with_window(22, b"[]"))
        .err()
        .unwrap();
    let msg = e.to_string();
    assert!(
        msg.starts_with("the zstd stream cannot be decoded: "),
        "{msg}"
    );
    assert!(msg.to_lowercase().contains("memory"), "{msg}");
    assert!(
        msg.contains("windows up to 2^27 bytes are allowed"),
        "{msg}"
    );
    // 2^31, as `zstd --long=31` writes from a pipe: refused for a few bytes (the
    // decoder would allocate the window first), read when the limit allows it.
    let frame = zstd_frame_with_window(21, b"[]");
    let e = Source::from_bytes(frame.clone()).err().unwrap();
    assert!(e.to_string().contains("2^27"), "{e}");
    let opts = SourceOptions {
        max_ratio: 0,
        ..SourceOptions::default()
    };
    let s = Source::from_bytes_with(frame, &opts).unwrap();
    assert_eq!(s.text(), "[]");
}

#[test]
fn gzip_that_decodes_to_nothing_names_the_decoder_error() {
    let mut z = gzip(b"[1,2,3]");
    z[10] ^= 0xff; // the first byte of the deflate stream
    let e = Source::from_bytes(z).err().unwrap();
    assert!(
        e.to_string()
            .starts_with("the gzip stream cannot be decoded: "),
        "{e}"
    );
}

#[test]
fn ctf_metadata_that_is_not_metadata_is_named() {
    let dir = temp_dir("badmeta");
    for (name, bytes) in [
        ("empty", &b""[..]),
        ("nuls", &[0u8; 64][..]),
        ("random", &b"\x8a\x13\xfe\x00garbage"[..]),
    ] {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("metadata"), bytes).unwrap();
        std::fs::write(d.join("stream"), b"x").unwrap();
        let Err(CtfError::NotMetadata { path, reason }) = open_dir(&d) else {
            panic!("{name}: not refused as metadata");
        };
        assert_eq!(path, d.join("metadata").display().to_string());
        let want = match name {
            "empty" => "it is empty".to_string(),
            "nuls" => "it starts with the bytes [00, 00, 00, 00, 00, 00, 00, 00]".into(),
            _ => "it starts with the bytes [8a, 13, fe, 00, 67, 61, 72, 62]".into(),
        };
        assert!(reason.starts_with(&want), "{name}: {reason}");
    }
    let d = dir.join("loop");
    std::fs::create_dir_all(&d).unwrap();
    std::os::unix::fs::symlink("metadata", d.join("metadata")).unwrap();
    let Err(e @ CtfError::NotMetadata { .. }) = open_dir(&d) else {
        panic!("a looping link is not refused as metadata");
    };
    let msg = e.to_string();
    assert!(
        msg.contains("is not CTF metadata: it cannot be read: "),
        "{msg}"
    );
    assert!(msg.contains("symbolic links"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn nesting_past_the_limit_is_named() {
    let deep = format!("{}1{}", "[".repeat(600), "]".repeat(600));
    let t =
        format!("[{{\"ph\":\"i\",\"ts\":1,\"args\":{{\"a\":{deep}}}}},{{\"ph\":\"i\",\"ts\":2}}]");
    let (trace, events) = common::read(&t);
    assert_eq!(
        events.iter().map(|e| e.ts).collect::<Vec<_>>(),
        [Some(2000)]
    );
    // The event list is level 1, the event 2, args 3: the 510th `[` is level 513.
    let at = 1 + t[1..].find('[').unwrap() + 509;
    assert_eq!(diags(&trace.diagnostics), [("too_deep", 1, at as u64)]);
    assert!(DiagKind::TooDeep.describe().contains("512"));
}

#[test]
fn a_bad_ts_is_a_bad_field_that_names_ts() {
    let t = r#"[{"ph":"i","ts":"soon","pid":1,"tid":1}]"#;
    let (trace, _) = common::read(t);
    let d = trace.diagnostics.get(DiagKind::BadField).unwrap();
    assert!(
        d.example
            .starts_with("`ts` is not a number of microseconds"),
        "{}",
        d.example
    );
}

// 5. Directory walks.

/// A trace of `n` instants written by tracescope into `dir`.
fn write_trace(dir: &Path, n: usize) {
    let text = format!(
        "[{}]",
        (0..n)
            .map(|i| format!("{{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"name\":\"e{i}\",\"ts\":{i}}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    write_dir(dir, &events_of(&text), &CtfWriteOptions::default()).unwrap();
}

#[test]
fn links_to_directories_already_seen_are_not_followed() {
    use std::os::unix::fs::symlink;
    let root = temp_dir("links");
    let trace = root.join("session/trace");
    write_trace(&trace, 10);
    // A link back to the parent, thirty links to `.`, one to the trace itself.
    symlink("..", trace.join("up")).unwrap();
    for i in 0..30 {
        symlink(".", root.join(format!("session/self{i}"))).unwrap();
    }
    symlink("trace", root.join("session/again")).unwrap();
    // A second name for the stream file beside it.
    symlink("chrome_0", trace.join("chrome_1")).unwrap();
    for at in [root.clone(), root.join("session"), trace.clone()] {
        let files = open_dir(&at).unwrap();
        let (events, _) = files.events().unwrap();
        assert_eq!(events.len(), 10, "{}", at.display());
    }
    // A directory that is a loop of links.
    symlink("loop_b", root.join("loop_a")).unwrap();
    symlink("loop_a", root.join("loop_b")).unwrap();
    assert_eq!(open_dir(&root).unwrap().events().unwrap().0.len(), 10);
    std::fs::remove_dir_all(&root).unwrap();
}

// 6. Resynchronising after a syntax error.

#[test]
fn deep_nesting_after_an_error_reads_to_the_end() {
    // 4 million levels of `{"a":` (20 MB): the search for the next event walks each
    // byte a bounded number of times (see `json::starts`), so this finishes.
    let levels = 4_000_000;
    let mut t = String::from(r#"[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a","args":"#);
    t.push_str(&"{\"a\":".repeat(levels));
    t.push('1');
    for opts in [
        ReadOptions::default(),
        ReadOptions {
            threads: 1,
            chunk_bytes: usize::MAX,
        },
    ] {
        let (trace, events) = read_with(&t, &opts).unwrap();
        assert!(events.is_empty());
        let kinds: Vec<_> = diags(&trace.diagnostics)
            .into_iter()
            .map(|d| (d.0, d.1))
            .collect();
        assert_eq!(kinds, [("too_deep", 1)]);
    }
    // Closed, and followed by events: they are found again.
    t.push_str(&"}".repeat(levels));
    t.push_str(r#"},{"ph":"i","ts":5},{"ph":"i","ts":6}]"#);
    let (trace, events) = read_with(&t, &ReadOptions::default()).unwrap();
    assert_eq!(
        events.iter().map(|e| e.ts).collect::<Vec<_>>(),
        [Some(5000), Some(6000)]
    );
    assert_eq!(trace.diagnostics.count(DiagKind::TooDeep), 1);
}
