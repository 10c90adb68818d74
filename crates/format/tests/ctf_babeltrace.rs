//! babeltrace2 reads tracescope's CTF: its text output of the seed-guide examples is
//! what the events say, and its rewritten copy (`sink.ctf.fs`) reads back into the
//! same events. Skipped, with a message, when babeltrace2 is not installed
//! (`apt-get install -y babeltrace2`).

mod ctf_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use ctf_support::{assert_same_events, events_of, json_traces};
use tracescope_format::ctf::{open_dir, read_dir, write_dir, CtfWriteOptions};
use tracescope_format::etw::{to_chrome, Bitness, MapOptions};

fn babeltrace2() -> bool {
    let ok = Command::new("babeltrace2")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: babeltrace2 is not installed (apt-get install -y babeltrace2)");
    }
    ok
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir()
        .join(format!("tracescope-ctf-bt-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn pretty(dir: &Path) -> Vec<String> {
    let out = Command::new("babeltrace2")
        .args(["--clock-cycles", "--no-delta"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "babeltrace2 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// babeltrace2's string literal: quotes and backslashes escaped.
fn q(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// The line babeltrace2 prints for one record, from the Chrome mapping.
fn expected_lines(events: &[tracescope_format::Event<'_>]) -> Vec<String> {
    let mut recs = Vec::new();
    let mut one = Vec::new();
    for (i, e) in events.iter().enumerate() {
        to_chrome(e, &MapOptions::ctf(Bitness::B64), &mut one);
        recs.extend(one.drain(..).map(|r| (r, i)));
    }
    recs.sort_by_key(|(r, _)| r.ts);
    let base = recs
        .first()
        .map_or(0, |(r, _)| r.ts.div_euclid(1_000_000_000) * 1_000_000_000);
    recs.iter()
        .map(|(r, seq)| {
            let p = &r.payload;
            let mut l = format!(
                "[{:020}] Chrome{}: {{ pid = {}, tid = {}, seq = {seq} }}, {{ name = {}, id = {:#x}, categories = {}",
                r.ts - base,
                p.ty.name(),
                r.pid,
                r.tid,
                q(&p.name),
                p.id,
                q(&p.categories)
            );
            if !p.args.is_empty() {
                let a: Vec<String> = p
                    .args
                    .iter()
                    .enumerate()
                    .map(|(i, (k, v))| format!("[{i}] = {{ arg_name = {}, arg_value = {} }}", q(k), q(v)))
                    .collect();
                l.push_str(&format!(", arguments = [ {} ]", a.join(", ")));
            }
            if let Some(s) = &p.stack {
                let a: Vec<String> = s.iter().enumerate().map(|(i, v)| format!("[{i}] = {v:#x}")).collect();
                l.push_str(&format!(", stack_size = {}, stack = [ {} ]", s.len(), a.join(", ")));
            }
            l.push_str(" }");
            l
        })
        .collect()
}

#[test]
fn babeltrace2_prints_the_seed_guide_examples() {
    if !babeltrace2() {
        return;
    }
    for (name, text) in json_traces(false) {
        let events = events_of(&text);
        let dir = tmp(&format!("pretty-{name}"));
        write_dir(&dir, &events, &CtfWriteOptions::default()).unwrap();
        assert_eq!(pretty(&dir), expected_lines(&events), "{name}");
    }
}

#[test]
fn babeltrace2_text_of_one_example_exactly() {
    if !babeltrace2() {
        return;
    }
    let dir = tmp("03");
    let text = std::fs::read_to_string(
        ctf_support::shared().join("examples/seed-guide/03-instant-markers.json"),
    )
    .unwrap();
    write_dir(&dir, &events_of(&text), &CtfWriteOptions::default()).unwrap();
    let want = r#"[00000000000000001000] ChromeInstant: { pid = 1, tid = 1, seq = 0 }, { name = "marker-start", id = 0x0, categories = "" }
[00000000000000025000] ChromeBegin: { pid = 1, tid = 1, seq = 1 }, { name = "main", id = 0x0, categories = "", arguments = [ [0] = { arg_name = "@ph", arg_value = "\"X\"" }, [1] = { arg_name = "@dur", arg_value = "50000" } ] }
[00000000000000075000] ChromeEnd: { pid = 1, tid = 1, seq = 1 }, { name = "main", id = 0x0, categories = "", arguments = [ [0] = { arg_name = "@ph", arg_value = "\"X\"" } ] }
[00000000000000100000] ChromeInstant: { pid = 1, tid = 1, seq = 2 }, { name = "marker-end", id = 0x0, categories = "" }"#;
    assert_eq!(pretty(&dir).join("\n"), want);
}

#[test]
fn babeltrace2_rewritten_traces_read_back_the_same() {
    if !babeltrace2() {
        return;
    }
    let mut traces = json_traces(false);
    traces.push((
        "stacks-and-negative-times".into(),
        r#"[{"ph":"B","name":"a","cat":"x,y","ts":-2.5,"pid":1,"tid":1,"stack":[4096,255]},
            {"ph":"E","name":"a","ts":3,"pid":1,"tid":1,"args":{"k":"v","n":1,"o":{"p":[true,null]}}},
            {"ph":"b","name":"s","ts":4,"pid":"p","tid":2,"id":"0xa","id2":{"local":1}}]"#
            .into(),
    ));
    for (name, text) in traces {
        let events = events_of(&text);
        let dir = tmp(&format!("rewrite-{name}"));
        let copy = tmp(&format!("rewrite-{name}-copy"));
        write_dir(&dir.join("ours"), &events, &CtfWriteOptions::default()).unwrap();
        let out = Command::new("babeltrace2")
            .arg(dir.join("ours"))
            .args(["--component=sink.ctf.fs", "--params"])
            .arg(format!("path=\"{}\"", copy.display()))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (back, diags) = read_dir(&copy).unwrap();
        assert!(diags.is_empty(), "{name}: {diags:?}");
        assert_same_events(&format!("{name} via babeltrace2"), &events, &back);
        // Its layout is not ours (`_name`, its own packet header), so it is not read
        // run by run.
        assert!(open_dir(&copy).unwrap().runs().is_none(), "{name}");
    }
}
