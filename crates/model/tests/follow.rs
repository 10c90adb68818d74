//! A followed file (`tracescope view --follow`): appended events join the model,
//! a partial event waits for the rest, a shorter file is read again.

use std::io::Write;
use std::path::Path;

use tracescope_format::DiagKind;
use tracescope_model::{Change, Follow, LoadOptions, Trace};

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn open(path: &Path) -> Follow {
    Follow::open(path, "live.json".to_string(), LoadOptions::default()).unwrap()
}

/// (name, ts, dur, did not finish, args) of every thread slice.
fn slices(t: &Trace) -> Vec<(String, i64, i64, bool, String)> {
    let s = &t.tables.slices;
    (0..s.len())
        .map(|i| {
            (
                t.name(s.name[i]).to_string(),
                s.ts[i],
                s.dur[i],
                s.did_not_finish(i),
                t.merged_args(s.args[i], s.end_args[i]).unwrap_or_default(),
            )
        })
        .collect()
}

fn x(name: &str, ts: u32, dur: u32) -> String {
    format!(
        r#"{{"ph":"X","name":"{name}","ts":{ts},"dur":{dur},"pid":1,"tid":1,"args":{{"n":{ts}}}}},"#
    )
}

#[test]
fn appended_events_join_the_model_and_only_they_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.json");
    write(&path, &format!("[\n{}\n", x("a", 1, 2)));
    let mut f = open(&path);
    assert_eq!(
        slices(&f.trace()),
        vec![("a".into(), 1000, 2000, false, r#"{"n":1}"#.into())]
    );
    let more = format!("{}\n{}\n", x("b", 5, 1), x("c", 6, 3));
    append(&path, &more);
    assert_eq!(f.poll().unwrap(), Change::Appended);
    assert_eq!(f.last_read, more.len() as u64);
    let t = f.trace();
    assert_eq!(
        slices(&t),
        vec![
            ("a".into(), 1000, 2000, false, r#"{"n":1}"#.into()),
            ("b".into(), 5000, 1000, false, r#"{"n":5}"#.into()),
            ("c".into(), 6000, 3000, false, r#"{"n":6}"#.into()),
        ]
    );
    assert_eq!(t.info.events, 3);
    // Offsets are the file's: each slice's event is found where it is written.
    let file = std::fs::read_to_string(&path).unwrap();
    for i in 0..3 {
        let at = t.tables.slices.offset[i];
        assert_eq!(&file[at as usize..at as usize + 6], r#"{"ph":"#);
        assert!(t
            .event_text(at)
            .contains(&format!(r#""ts":{}"#, [1, 5, 6][i])));
    }
    // The missing `]` of a file being written is no diagnostic.
    assert_eq!(t.diagnostics.count(DiagKind::Truncated), 0);
    assert_eq!(f.poll().unwrap(), Change::None);
    assert_eq!(f.last_read, 0);
}

#[test]
fn a_begin_read_first_is_closed_by_an_end_appended_later() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.json");
    write(
        &path,
        r#"[{"ph":"B","name":"open","ts":1,"pid":1,"tid":1,"args":{"a":1}},
{"ph":"b","cat":"net","id":7,"name":"fetch","ts":2,"pid":1,"tid":1},
"#,
    );
    let mut f = open(&path);
    let t = f.trace();
    assert!(slices(&t)[0].3, "open until its E comes");
    assert_eq!(t.tables.async_slices.did_not_finish, vec![true]);
    append(
        &path,
        r#"{"ph":"e","cat":"net","id":7,"name":"fetch","ts":9,"pid":1,"tid":1},
{"ph":"E","ts":10,"pid":1,"tid":1,"args":{"b":2}},
"#,
    );
    assert_eq!(f.poll().unwrap(), Change::Appended);
    let t = f.trace();
    assert_eq!(
        slices(&t),
        vec![("open".into(), 1000, 9000, false, r#"{"a":1,"b":2}"#.into())]
    );
    let a = &t.tables.async_slices;
    assert_eq!((a.ts.clone(), a.dur.clone()), (vec![2000], vec![7000]));
    assert_eq!(a.did_not_finish, vec![false]);
}

#[test]
fn a_partial_last_event_waits_for_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.json");
    // Opened while the second event is half written.
    write(
        &path,
        &format!("[{}\n{{\"ph\":\"X\",\"name\":\"b\",\"ts\":5,", x("a", 1, 2)),
    );
    let mut f = open(&path);
    assert_eq!(slices(&f.trace()).len(), 1);
    assert_eq!(f.trace().diagnostics.count(DiagKind::Truncated), 0);
    // A string holding a brace does not end the event early.
    append(&path, r#""dur":1,"pid":1,"tid":1,"args":{"s":"}\"{""#);
    assert_eq!(f.poll().unwrap(), Change::None);
    assert_eq!(slices(&f.trace()).len(), 1);
    append(&path, "}},\n");
    assert_eq!(f.poll().unwrap(), Change::Appended);
    let t = f.trace();
    assert_eq!(
        slices(&t)[1],
        ("b".into(), 5000, 1000, false, r#"{"s":"}\"{"}"#.into())
    );
    assert_eq!(t.diagnostics.count(DiagKind::SyntaxError), 0);
}

#[test]
fn a_file_with_no_event_yet_is_read_once_one_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.json");
    write(&path, "");
    let mut f = open(&path);
    assert_eq!(f.trace().tables.slices.len(), 0);
    append(&path, "[\n{\"ph\":\"X\",");
    assert_eq!(f.poll().unwrap(), Change::None);
    append(
        &path,
        "\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1},\n",
    );
    assert_eq!(f.poll().unwrap(), Change::Appended);
    assert_eq!(slices(&f.trace())[0].0, "a");
}

#[test]
fn a_shorter_file_is_read_again_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.json");
    write(&path, &format!("[{}\n{}\n", x("a", 1, 2), x("b", 5, 1)));
    let mut f = open(&path);
    assert_eq!(slices(&f.trace()).len(), 2);
    let new = format!("[{}\n", x("z", 3, 4));
    write(&path, &new);
    assert_eq!(f.poll().unwrap(), Change::Reloaded);
    assert_eq!(f.last_read, new.len() as u64);
    assert_eq!(
        slices(&f.trace()),
        vec![("z".into(), 3000, 4000, false, r#"{"n":3}"#.into())]
    );
}

#[test]
fn a_closed_list_ends_the_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.json");
    write(&path, &format!("[{}\n", x("a", 1, 2)));
    let mut f = open(&path);
    // A recorder's clean stop: a last event and the `]`.
    append(&path, &format!("{}\n{{}}]\n", x("b", 5, 1)));
    assert_eq!(f.poll().unwrap(), Change::Appended);
    assert_eq!(slices(&f.trace()).len(), 2);
    append(&path, &x("c", 9, 1));
    assert_eq!(f.poll().unwrap(), Change::None);
    assert_eq!(slices(&f.trace()).len(), 2);
}

/// Appended bytes of a gzip or zstd file are no JSON on their own: following one is
/// refused with a message, not shown as an empty trace.
#[test]
fn a_compressed_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.json.zst");
    let json = format!("[{}]", x("a", 1, 2));
    std::fs::write(&path, zstd::encode_all(json.as_bytes(), 3).unwrap()).unwrap();
    let err = Follow::open(&path, "live.json.zst".into(), LoadOptions::default())
        .err()
        .expect("refused");
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("zstd compressed"), "{err}");
}
