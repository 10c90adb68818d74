//! Hostile inputs (issue 20) through the binary, each built here: every one
//! finishes with exit status 0, 1 or 2 and a message that names the cause; the
//! `.etw` round trip keeps the event; directory cases count each event once.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracescope"))
        .args(args)
        .output()
        .expect("runs")
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "tracescope-cli-hostile-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stats_json(p: &Path) -> serde_json::Value {
    let out = run(&["stats", s(p), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn diag<'v>(v: &'v serde_json::Value, kind: &str) -> Option<&'v serde_json::Value> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == kind)
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn ctf_event_class_of_zero_bytes() {
    let d = dir("ctf0");
    std::fs::write(
        d.join("metadata"),
        "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le; };\nevent { name = x; };\n",
    )
    .unwrap();
    std::fs::write(d.join("stream"), b"a").unwrap();
    let v = stats_json(&d);
    assert_eq!(v["events"], 0);
    let e = diag(&v, "syntax_error").expect("a syntax error");
    assert!(
        e["example"].as_str().unwrap().contains("reads no bytes"),
        "{e}"
    );
    assert_eq!(run(&["validate", s(&d)]).status.code(), Some(1));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn etw_round_trip_keeps_an_event_with_a_raw_nul() {
    let d = dir("etw");
    let json = d.join("nul.json");
    std::fs::write(
        &json,
        "[{\"ph\":\"i\",\"pid\":1,\"tid\":1,\"name\":\"a\",\"ts\":1,\"args\":{\"k\0ey\":1}}]",
    )
    .unwrap();
    let etw = d.join("nul.etw");
    let out = run(&["convert", s(&json), s(&etw)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stats_json(&etw)["events"], 1);
    let out = run(&["tables", s(&etw), "--table", "instants"]);
    let row: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["args"], serde_json::json!({"k\u{0}ey": 1}), "{row}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn gzip_bomb_is_refused_with_the_flag_that_raises_the_limit() {
    let d = dir("bomb");
    // A trace padded with 80 MiB of spaces in 1 MiB members: 1000 times smaller.
    let mut bomb = gzip(br#"[{"ph":"i","pid":1,"tid":1,"name":"a","ts":1}"#);
    bomb.extend(gzip(&vec![b' '; 1 << 20]).repeat(80));
    bomb.extend(gzip(b"]"));
    refused_then_read_with_a_higher_limit(&d, &bomb, None, ("100", "1000", "2000"));
}

/// `bomb` (a gzip trace of one event) is refused under `--max-ratio LIMIT` (none:
/// the default) with the advice to use `ADVISED`, and read under `READ`.
fn refused_then_read_with_a_higher_limit(
    d: &Path,
    bomb: &[u8],
    flag: Option<&str>,
    (limit, advised, read): (&str, &str, &str),
) {
    let p = d.join("bomb.json.gz");
    std::fs::write(&p, bomb).unwrap();
    let mut args = vec!["stats", s(&p)];
    args.extend(flag.map(|f| ["--max-ratio", f]).into_iter().flatten());
    let out = run(&args);
    assert_eq!(out.status.code(), Some(2));
    let msg = stderr(&out);
    assert!(
        msg.contains(&format!("past the limit of {limit} times")),
        "{msg}"
    );
    assert!(msg.contains(&format!("--max-ratio {advised}")), "{msg}");
    let out = run(&["stats", s(&p), "--max-ratio", read, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["events"], 1);
    std::fs::remove_dir_all(d).unwrap();
}

/// A bomb big enough to be decoded in the background (its size guessed from its
/// ~5 MB, not declared) is refused as the same bomb read first and parsed after.
#[test]
fn gzip_bomb_decoded_while_read_is_refused_the_same_way() {
    let d = dir("bomb-bg");
    // 8 MB of letters that do not compress much, in an arg, then 70 MiB of spaces in
    // 1 MiB members: past 3 times the compressed bytes.
    let mut x = 1u64;
    let pad: String = (0..8_000_000)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (b'a' + (x >> 59) as u8 % 26) as char
        })
        .collect();
    let head =
        format!(r#"[{{"ph":"i","pid":1,"tid":1,"name":"a","ts":1,"args":{{"pad":"{pad}"}}}}"#);
    let mut bomb = gzip(head.as_bytes());
    assert!(bomb.len() > 4 << 20, "{}", bomb.len());
    bomb.extend(gzip(&vec![b' '; 1 << 20]).repeat(70));
    bomb.extend(gzip(b"]"));
    refused_then_read_with_a_higher_limit(&d, &bomb, Some("3"), ("3", "30", "0"));
}

#[test]
fn zstd_window_too_large_names_the_decoder_error() {
    let d = dir("zstd");
    let p = d.join("big-window.zst");
    // A frame asking for a 4 GiB window, then a raw block `[]`.
    std::fs::write(
        &p,
        [0x28, 0xb5, 0x2f, 0xfd, 0, 22 << 3, 0x11, 0, 0, b'[', b']'],
    )
    .unwrap();
    let out = run(&["stats", s(&p)]);
    assert_eq!(out.status.code(), Some(2));
    let msg = stderr(&out);
    assert!(msg.contains("the zstd stream cannot be decoded"), "{msg}");
    assert!(!msg.contains("empty"), "{msg}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn ctf_directory_with_bad_metadata_names_it() {
    let d = dir("meta");
    std::fs::write(d.join("metadata"), [0u8; 32]).unwrap();
    let out = run(&["stats", s(&d)]);
    assert_eq!(out.status.code(), Some(2));
    let msg = stderr(&out);
    assert!(
        msg.contains("metadata is not CTF metadata: it starts with the bytes [00"),
        "{msg}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn links_in_a_ctf_session_count_each_event_once() {
    let d = dir("links");
    let json = d.join("t.json");
    let events: Vec<String> = (0..10)
        .map(|i| format!(r#"{{"ph":"i","pid":1,"tid":1,"name":"e{i}","ts":{i}}}"#))
        .collect();
    std::fs::write(&json, format!("[{}]", events.join(","))).unwrap();
    let trace = d.join("session/trace.ctf");
    std::fs::create_dir_all(d.join("session")).unwrap();
    let out = run(&["convert", s(&json), s(&trace)]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::os::unix::fs::symlink("..", trace.join("up")).unwrap();
    for i in 0..30 {
        std::os::unix::fs::symlink(".", d.join(format!("session/l{i}"))).unwrap();
    }
    assert_eq!(stats_json(&d.join("session"))["events"], 10);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn deep_nesting_and_a_bad_ts_are_named() {
    let d = dir("json");
    let p = d.join("deep.json");
    let mut t = String::from(r#"[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a","args":"#);
    t.push_str(&"{\"a\":".repeat(1_000_000));
    std::fs::write(&p, &t).unwrap();
    let v = stats_json(&p);
    assert_eq!(v["events"], 0);
    assert_eq!(diag(&v, "too_deep").unwrap()["count"], 1);

    let p = d.join("ts.json");
    std::fs::write(&p, r#"[{"ph":"i","pid":1,"tid":1,"name":"a","ts":"soon"}]"#).unwrap();
    let v = stats_json(&p);
    let bad = diag(&v, "bad_field").unwrap();
    assert!(
        bad["example"]
            .as_str()
            .unwrap()
            .starts_with("`ts` is not a number"),
        "{bad}"
    );
    assert!(diag(&v, "missing_ts").is_none(), "{v}");
    std::fs::remove_dir_all(&d).unwrap();
}
