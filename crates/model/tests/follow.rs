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
                s.ts(i),
                s.dur(i),
                s.did_not_finish(i),
                t.merged_args(s.args(i), s.end_args(i)).unwrap_or_default(),
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
        let at = t.tables.slices.offset(i);
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

/// Both models have the same events, diagnostics (kinds and offsets: an example
/// of the last event runs on to the end of the text read) and every table, row for
/// row.
fn assert_same_model(what: &str, a: &Trace, b: &Trace) {
    assert_eq!(a.stats().events, b.stats().events, "{what}");
    let diags = |t: &Trace| {
        let mut d: Vec<_> = t
            .diagnostics
            .occurrences()
            .iter()
            .map(|o| (o.kind, o.offset))
            .collect();
        d.sort_unstable();
        d
    };
    assert_eq!(diags(a), diags(b), "{what}");
    for table in tracescope_model::TABLES.iter().map(|t| t.name) {
        if table == "diagnostics" {
            continue;
        }
        let (ra, rb) = (a.rows(table).unwrap(), b.rows(table).unwrap());
        assert!(ra.rows == rb.rows, "{what}: table {table} differs");
    }
}

/// The file as written so far, read at once (its list closed).
fn whole(path: &Path) -> Trace {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.trim_end().trim_end_matches(',').to_string() + "]";
    let len = text.len() as u64;
    Trace::from_json(Box::new(text), len, &LoadOptions::default()).unwrap()
}

/// Appends in the shapes a recorder writes them, each version compared with the
/// whole file read at once: a `B` closed three appends later, a thread and a
/// process that appear late, their names after their events, counters, flows
/// across threads, an async operation, an `X` without `dur` (it ends with its
/// thread, later each time), then records that land before earlier
/// ones of their thread (that thread is matched again from its first record).
#[test]
fn after_each_append_the_model_is_the_whole_file_read_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.json");
    let ev = |s: &str| format!("{s},\n");
    let appends: Vec<String> = vec![
        [
            r#"{"ph":"M","name":"process_name","pid":1,"tid":1,"args":{"name":"app"}}"#,
            r#"{"ph":"B","name":"main","ts":1,"pid":1,"tid":1,"args":{"a":1}}"#,
            r#"{"ph":"X","name":"x1","ts":2,"dur":1,"pid":1,"tid":1}"#,
            r#"{"ph":"b","cat":"net","id":7,"name":"fetch","ts":2,"pid":1,"tid":1}"#,
            r#"{"ph":"C","name":"mem","ts":1,"pid":1,"args":{"used":10}}"#,
            r#"{"ph":"s","cat":"f","id":1,"name":"hop","ts":2.5,"pid":1,"tid":1}"#,
        ]
        .map(ev)
        .concat(),
        [
            r#"{"ph":"B","name":"inner","ts":4,"pid":1,"tid":1}"#,
            r#"{"ph":"X","name":"w","ts":3,"dur":4,"pid":1,"tid":2}"#,
            r#"{"ph":"f","bp":"e","cat":"f","id":1,"name":"hop","ts":4,"pid":1,"tid":2}"#,
            r#"{"ph":"C","name":"mem","ts":4,"pid":1,"args":{"used":12}}"#,
            r#"{"ph":"i","name":"tick","ts":5,"pid":1,"tid":2,"s":"t"}"#,
            r#"{"ph":"X","name":"no dur","ts":5,"pid":1,"tid":2}"#,
        ]
        .map(ev)
        .concat(),
        [
            r#"{"ph":"E","ts":6,"pid":1,"tid":1,"args":{"r":2}}"#,
            r#"{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"worker"}}"#,
            r#"{"ph":"X","name":"p2","ts":6,"dur":2,"pid":2,"tid":9}"#,
            r#"{"ph":"e","cat":"net","id":7,"name":"fetch","ts":7,"pid":1,"tid":1}"#,
        ]
        .map(ev)
        .concat(),
        [
            r#"{"ph":"E","name":"main","ts":9,"pid":1,"tid":1,"args":{"b":3}}"#,
            r#"{"ph":"E","ts":9.5,"pid":1,"tid":2}"#,
            r#"{"ph":"X","name":"y","ts":10,"dur":1,"pid":1,"tid":2}"#,
        ]
        .map(ev)
        .concat(),
        // Lands before thread 1's records: that thread is matched again.
        [
            r#"{"ph":"X","name":"early","ts":1.5,"dur":0.2,"pid":1,"tid":1}"#,
            r#"{"ph":"E","ts":8,"pid":1,"tid":1}"#,
            r#"{"ph":"B","name":"late","ts":12,"pid":1,"tid":1}"#,
            r#"{"ph":"X","name":"z","ts":11,"dur":1,"pid":1,"tid":2}"#,
        ]
        .map(ev)
        .concat(),
        [r#"{"ph":"X","name":"after","ts":13,"dur":1,"pid":1,"tid":1}"#]
            .map(ev)
            .concat(),
    ];
    write(&path, &format!("[\n{}", appends[0]));
    let mut f = open(&path);
    assert_same_model("first read", &f.trace(), &whole(&path));
    for (k, more) in appends.iter().enumerate().skip(1) {
        append(&path, more);
        assert_eq!(f.poll().unwrap(), Change::Appended);
        let t = f.trace();
        assert_same_model(&format!("append {k}"), &t, &whole(&path));
        if k == 3 {
            // `main` got its end three appends after its begin; `inner` is closed.
            let got: Vec<_> = slices(&t).into_iter().filter(|s| s.0 == "main").collect();
            assert_eq!(
                got,
                vec![("main".into(), 1000, 8000, false, r#"{"a":1,"b":3}"#.into())]
            );
        }
    }
    // Matched in time order, the late `E` at 8 closed `main`, and its own `E` at 9
    // had nothing left to close, like thread 2's `E`.
    let t = f.trace();
    let main: Vec<_> = slices(&t).into_iter().filter(|s| s.0 == "main").collect();
    assert_eq!(main[0].2, 7000);
    assert_eq!(t.diagnostics.count(DiagKind::UnmatchedEnd), 2);
    assert_eq!(t.tables.threads.len(), 3);
}

/// Events whose duration records keep fields in their side table (a `cname`, a
/// `dur` of 4.3 s and more, a negative `tdur`, args far after the event's start),
/// appended on threads seen before: each version is the whole file read at once,
/// colours and offsets too.
#[test]
fn wide_duration_records_follow_as_read_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.json");
    let ev = |s: &str| format!("{s},\n");
    let far = format!(
        r#"{{"pad":"{}","ph":"X","name":"far","ts":3,"dur":1,"pid":1,"tid":1,"args":{{"f":1}}}}"#,
        "p".repeat(300_000)
    );
    let appends: Vec<String> = vec![
        [
            r#"{"ph":"B","name":"b","ts":1,"pid":1,"tid":1,"cname":"good","args":{"a":1}}"#,
            r#"{"ph":"X","name":"long","ts":2,"dur":5000000,"pid":1,"tid":2}"#,
        ]
        .map(ev)
        .concat(),
        [
            far.as_str(),
            r#"{"ph":"X","name":"t","ts":4,"dur":1,"tts":1,"tdur":-2,"pid":1,"tid":2,"cname":"bad"}"#,
        ]
        .map(ev)
        .concat(),
        [r#"{"ph":"E","ts":6,"pid":1,"tid":1,"cname":"x","args":{"r":2}}"#]
            .map(ev)
            .concat(),
    ];
    let cells = |t: &Trace| -> Vec<(String, u64)> {
        let s = &t.tables.slices;
        (0..s.len())
            .map(|i| (t.str(s.cname(i)).to_string(), s.offset(i)))
            .collect()
    };
    write(&path, &format!("[\n{}", appends[0]));
    let mut f = open(&path);
    for (k, more) in appends.iter().enumerate() {
        if k > 0 {
            append(&path, more);
            assert_eq!(f.poll().unwrap(), Change::Appended);
        }
        let (t, want) = (f.trace(), whole(&path));
        assert_same_model(&format!("version {k}"), &t, &want);
        assert_eq!(cells(&t), cells(&want), "version {k}");
    }
    let t = f.trace();
    let got: Vec<_> = slices(&t).into_iter().map(|s| (s.0, s.2, s.4)).collect();
    assert_eq!(
        got,
        vec![
            ("b".into(), 5000, r#"{"a":1,"r":2}"#.into()),
            ("far".into(), 1000, r#"{"f":1}"#.into()),
            ("long".into(), 5_000_000_000, String::new()),
            ("t".into(), 1000, String::new()),
        ]
    );
    let colours: Vec<String> = cells(&t).into_iter().map(|c| c.0).collect();
    assert_eq!(colours, ["good", "", "", "bad"]);
}
