//! babeltrace2 reads tracescope's CTF: its text output of every fixture is what the
//! events say, and its rewritten copy (`sink.ctf.fs`) reads back into the same
//! events. Skipped, with one line saying so, when babeltrace2 is not installed
//! (`apt-get install -y babeltrace2`; `scripts/setup` installs it).

mod ctf_support;

use std::path::Path;
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
        tracescope_testdata::skip(
            "babeltrace2 is not installed",
            "babeltrace2's reading of our CTF",
            "apt-get install -y babeltrace2 (scripts/setup does)",
        );
    }
    ok
}

fn tmp(name: &str) -> ctf_support::TestDir {
    ctf_support::TestDir::new("ctf-bt", name)
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

/// babeltrace2's string literal: quotes, backslashes, newlines, tabs and `?` (C's
/// trigraph guard) escaped, other control characters as `\xNN`.
fn q(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '?' => o.push_str("\\?"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            c if c < ' ' => o.push_str(&format!("\\x{:02x}", c as u32)),
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
                "[{:020}] Chrome{}: {{ pid = {}, tid = {}, seq = {seq} }}, {{ name = {}, id = 0x{:X}, categories = {}",
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
                let a: Vec<String> = s.iter().enumerate().map(|(i, v)| format!("[{i}] = 0x{v:X}")).collect();
                l.push_str(&format!(", stack_size = {}, stack = [ {} ]", s.len(), a.join(", ")));
            }
            l.push_str(" }");
            l
        })
        .collect()
}

#[test]
fn babeltrace2_prints_every_fixture() {
    if !babeltrace2() {
        return;
    }
    for (name, text) in json_traces(false) {
        let events = events_of(&text);
        let dir = tmp(&format!("pretty-{name}"));
        write_dir(&dir, &events, &CtfWriteOptions::default()).unwrap();
        let expected = expected_lines(&events);
        assert_eq!(
            forgive_stale_empty_names(pretty(&dir), &expected),
            expected,
            "{name}"
        );
    }
}

/// babeltrace2 2.0.4 prints an empty `name` string as the name of the previous record
/// of the same event class (same type and number of arguments): our stream holds
/// the empty string (our reader reads it back so, and a record of another class in
/// between prints `""`), so such a line is taken as printing `""`.
fn forgive_stale_empty_names(printed: Vec<String>, expected: &[String]) -> Vec<String> {
    let name_of = |line: &str| -> Option<String> {
        let at = line.find("{ name = \"")? + "{ name = \"".len();
        Some(line[at..at + line[at..].find("\", id = ")?].to_string())
    };
    let class_of = |line: &str| -> String {
        let ty = line
            .split("] ")
            .nth(1)
            .and_then(|t| t.split(':').next())
            .unwrap_or("");
        format!("{ty}/{}", line.matches("arg_name = ").count())
    };
    let mut last: std::collections::HashMap<String, String> = Default::default();
    let mut out = Vec::with_capacity(printed.len());
    for (i, line) in printed.into_iter().enumerate() {
        let class = class_of(&line);
        let want = expected.get(i).map(String::as_str).unwrap_or("");
        let stale = last.get(&class).cloned();
        // What babeltrace2 holds next for this class is what it printed.
        if let Some(n) = name_of(&line) {
            last.insert(class.clone(), n);
        }
        let fixed = match (name_of(want).as_deref(), stale) {
            (Some(""), Some(prev))
                if !prev.is_empty()
                    && line
                        == want.replacen("{ name = \"\"", &format!("{{ name = \"{prev}\""), 1) =>
            {
                want.to_string()
            }
            _ => line,
        };
        out.push(fixed);
    }
    out
}

/// babeltrace2's text of one JSON trace written as CTF.
fn text_of_ctf(name: &str, json: &Path) -> String {
    let dir = tmp(name);
    let text = ctf_support::text_of(json);
    write_dir(&dir, &events_of(&text), &CtfWriteOptions::default()).unwrap();
    pretty(&dir).join("\n")
}

#[test]
fn babeltrace2_text_of_one_fixture_exactly() {
    if !babeltrace2() {
        return;
    }
    let got = text_of_ctf(
        "instants",
        &tracescope_testdata::fixture("phases/instants.json"),
    );
    let want = r#"[00000000000000001000] ChromeInstant: { pid = 5, tid = 6, seq = 0 }, { name = "begin-frame", id = 0x0, categories = "", arguments = [ [0] = { arg_name = "@ph", arg_value = "\"i\"" }, [1] = { arg_name = "@s", arg_value = "\"t\"" } ] }
[00000000000000002000] ChromeBegin: { pid = 5, tid = 6, seq = 1 }, { name = "draw", id = 0x0, categories = "", arguments = [ [0] = { arg_name = "@ph", arg_value = "\"X\"" }, [1] = { arg_name = "@dur", arg_value = "5000" } ] }
[00000000000000004000] ChromeInstant: { pid = 5, tid = 6, seq = 2 }, { name = "gc", id = 0x0, categories = "", arguments = [ [0] = { arg_name = "@s", arg_value = "\"p\"" } ] }
[00000000000000006000] ChromeInstant: { pid = 5, tid = 6, seq = 3 }, { name = "navigate", id = 0x0, categories = "nav", arguments = [ [0] = { arg_name = "@ph", arg_value = "\"i\"" }, [1] = { arg_name = "@s", arg_value = "\"g\"" } ] }
[00000000000000007000] ChromeEnd: { pid = 5, tid = 6, seq = 1 }, { name = "draw", id = 0x0, categories = "", arguments = [ [0] = { arg_name = "@ph", arg_value = "\"X\"" } ] }
[00000000000000008000] ChromeInstant: { pid = 5, tid = 6, seq = 4 }, { name = "first-paint", id = 0x0, categories = "", arguments = [ [0] = { arg_name = "@ph", arg_value = "\"R\"" } ] }
[00000000000000009000] ChromeInstant: { pid = 5, tid = 6, seq = 5 }, { name = "end-frame", id = 0x0, categories = "", arguments = [ [0] = { arg_name = "@=dropped", arg_value = "false" }, [1] = { arg_name = "@ph", arg_value = "\"i\"" } ] }"#;
    assert_eq!(got, want);
}

/// Corpus tier: the same on the format guide's instant example.
#[test]
fn babeltrace2_text_of_one_seed_example_exactly() {
    let Some(p) = tracescope_testdata::corpus(
        "examples/seed-guide/03-instant-markers.json",
        "babeltrace2's text of a seed example",
    ) else {
        return;
    };
    if !babeltrace2() {
        return;
    }
    let want = r#"[00000000000000001000] ChromeInstant: { pid = 1, tid = 1, seq = 0 }, { name = "marker-start", id = 0x0, categories = "" }
[00000000000000025000] ChromeBegin: { pid = 1, tid = 1, seq = 1 }, { name = "main", id = 0x0, categories = "", arguments = [ [0] = { arg_name = "@ph", arg_value = "\"X\"" }, [1] = { arg_name = "@dur", arg_value = "50000" } ] }
[00000000000000075000] ChromeEnd: { pid = 1, tid = 1, seq = 1 }, { name = "main", id = 0x0, categories = "", arguments = [ [0] = { arg_name = "@ph", arg_value = "\"X\"" } ] }
[00000000000000100000] ChromeInstant: { pid = 1, tid = 1, seq = 2 }, { name = "marker-end", id = 0x0, categories = "" }"#;
    assert_eq!(text_of_ctf("03", &p), want);
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
