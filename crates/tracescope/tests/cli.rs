//! The `tracescope` binary as a user runs it: stats, tables, validate, convert,
//! summary, profile; on the repository's fixtures, and (corpus tier, when `../shared`
//! is there) on real traces.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tracescope"))
}

fn fixture(rel: &str) -> PathBuf {
    tracescope_testdata::fixture(rel)
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("runs")
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tracescope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn stats_json_has_the_documented_schema() {
    let p = fixture("phases/nesting-out-of-file-order.json");
    let out = run(&["stats", p.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "format",
        "bytes",
        "events",
        "phases",
        "processes",
        "threads",
        "slices",
        "instants",
        "async_slices",
        "flows",
        "counter_series",
        "counter_samples",
        "objects",
        "object_snapshots",
        "profiles",
        "samples",
        "metadata_events",
        "other_events",
        "start_ns",
        "end_ns",
        "diagnostics",
        "load_ms",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["events"], 6);
    assert_eq!(v["slices"], 6);
    assert_eq!(v["phases"]["X"], 6);
    assert_eq!(v["start_ns"], 0);
    assert_eq!(v["end_ns"], 100_000);
    assert_eq!(v["bytes"], std::fs::metadata(&p).unwrap().len());
    assert_eq!(v["format"], "json-object");
    assert_eq!(v["diagnostics"], serde_json::json!([]));
}

#[test]
fn stats_lists_diagnostics_with_kind_count_offset_example() {
    let p = temp_file(
        "diag.json",
        r#"[{"ph":"B","name":"a","ts":1,"pid":1,"tid":1},{"ph":"E","name":"zz","ts":2,"pid":1,"tid":1},{}"#,
    );
    let out = run(&["stats", p.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"end_name_mismatch")
            && kinds.contains(&"empty_event")
            && kinds.contains(&"truncated"),
        "{kinds:?}"
    );
    let d = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "end_name_mismatch")
        .unwrap();
    assert_eq!(d["count"], 1);
    assert_eq!(d["severity"], "warning");
    assert_eq!(d["offset"], 46);
    assert!(d["example"]
        .as_str()
        .unwrap()
        .starts_with(r#"{"ph":"E","name":"zz""#));
    assert_eq!(v["events"], 2);
}

#[test]
fn tables_jsonl_and_csv() {
    let p = fixture("phases/begin-end-nested.json");
    let out = run(&["tables", p.to_str().unwrap(), "--table", "slices"]);
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        (
            lines[0]["name"].as_str(),
            &lines[0]["ts_ns"],
            &lines[0]["dur_ns"],
            &lines[0]["depth"]
        ),
        (Some("compile"), &2000.into(), &5000.into(), &0.into())
    );
    assert_eq!(
        (
            lines[1]["name"].as_str(),
            &lines[1]["self_ns"],
            &lines[1]["did_not_finish"]
        ),
        (Some("parse"), &4250.into(), &false.into())
    );
    let out = run(&[
        "tables",
        p.to_str().unwrap(),
        "--table",
        "threads",
        "--format",
        "csv",
    ]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "pid,tid,name,sort_index,process_name,id,process_id
7,70,,,,0,0
"
    );
    let out = run(&["tables", p.to_str().unwrap(), "--table", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the tables are"));
}

#[test]
fn validate_exit_codes() {
    let code = |args: &[&str]| run(args).status.code();
    let path = |rel: &str| fixture(rel).to_str().unwrap().to_string();
    let clean = path("phases/complete-one.json");
    assert_eq!(code(&["validate", &clean]), Some(0));
    assert_eq!(code(&["validate", "--strict", &clean]), Some(0));
    // Infos (comments) never fail; warnings (an overlap) fail only with --strict;
    // errors (an event skipped) always do.
    let info = path("diagnostics/comment.json");
    let out = run(&["validate", &info]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains("(0 errors, 0 warnings, 2 infos)")
            && text.contains("\ninfo    comment: a // or /* */ comment was ignored x2 (first at byte 0, line 1, column 1)"),
        "{text}"
    );
    assert_eq!(code(&["validate", "--strict", &info]), Some(0));
    let warning = path("diagnostics/overlap.json");
    assert_eq!(code(&["validate", &warning]), Some(0));
    let out = run(&["validate", "--strict", &warning]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout)
        .ends_with("damaged: warnings fail with --strict (exit 1)\n"));
    let error = path("diagnostics/syntax_error.json");
    let out = run(&["validate", &error]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains("\nerror   syntax_error: an event that is not valid JSON was skipped x2 (first at byte 96, line 3, column 23)"),
        "{text}"
    );
    // Errors are listed first, whatever their offset.
    let mixed = temp_file(
        "mixed.json",
        "// a note\n[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},\n{\"ph\":\"X\",\"dur\":1}]",
    );
    let out = run(&["validate", mixed.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let kinds: Vec<&str> = text.lines().skip(1).map(|l| &l[..7]).collect();
    assert_eq!(kinds, ["error  ", "info   ", "damaged"], "{text}");
    let garbage = temp_file("garbage.json", "\n\n  hello");
    let out = run(&["validate", garbage.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.contains("line 3, column 3") && err.contains("byte offset 4"),
        "{err}"
    );
    let missing = run(&["validate", "/nonexistent/trace.json"]);
    assert_eq!(missing.status.code(), Some(2));
}

/// `tables --table diagnostics`: one row per occurrence, not one per kind.
#[test]
fn tables_list_every_diagnostic_occurrence() {
    let p = fixture("diagnostics/unbound_flow.json");
    let out = run(&[
        "tables",
        p.to_str().unwrap(),
        "--table",
        "diagnostics",
        "--format",
        "csv",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "kind,severity,offset,example");
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[1].starts_with("unbound_flow,info,75,\"flow step or end without a start: "),
        "{text}"
    );
    assert!(lines[2].starts_with("unbound_flow,info,164,"), "{text}");
}

fn table_text(path: &Path, table: &str) -> String {
    let out = run(&["tables", path.to_str().unwrap(), "--table", table]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Rows without their row id columns (`id`, `parent_id`, `thread_id`, ...): row
/// numbers depend on the order processes and threads were first seen, which a
/// time-sorted binary format (CTF) changes.
fn without_row_ids(table: &str, text: &str) -> String {
    let decl = tracescope_model::table(table).unwrap();
    let ids: Vec<&str> = decl
        .columns()
        .iter()
        .filter(|c| matches!(c.ty, tracescope_model::ColumnType::Id(_)))
        .map(|c| c.name)
        .collect();
    text.lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            for id in &ids {
                v.as_object_mut().unwrap().remove(*id);
            }
            v.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn convert_keeps_every_table_identical() {
    let root = tracescope_testdata::fixtures();
    convert_keeps_tables(
        &root,
        &[
            "phases/profile-chunks.json",
            "diagnostics/comment.json",
            "phases/ui-nest.json",
            "phases/flows-v1.json",
            "phases/async-nestable.json",
            "phases/objects.json",
            "phases/times-and-ids.json",
            "file/gzip-two-members.json.gz",
            "file/node.cpuprofile",
            "binary/source.json",
        ],
    );
}

/// Corpus tier: real traces and the guide's examples.
#[test]
fn convert_keeps_every_table_of_real_traces() {
    let Some(shared) = tracescope_testdata::corpus("", "convert on real traces") else {
        return;
    };
    convert_keeps_tables(
        &shared,
        &[
            "examples/seed-guide/06-profile-chunks-simple.json",
            "examples/seed-guide/11-jsonc-with-comments.json",
            "examples/seed-viewer/03-ui-nest.json",
            "corpus/catapult/flow.json",
            "corpus/catapult/nestable_async.json",
            "corpus/catapult/fuchsia_trace.json.gz",
            "corpus/speedscope/node/10.11.0/example.cpuprofile",
        ],
    );
}

/// A CTF trace's load counts the pass that finds and orders its records (`index`),
/// which comes before the read: `load_ms` is the whole load, as for JSON.
#[test]
fn stats_of_ctf_count_the_index_pass_in_the_load() {
    let tmp = tempfile::Builder::new()
        .prefix("tracescope-ctf-phases-")
        .tempdir()
        .unwrap();
    let ctf = tmp.path().join("t.ctf");
    let input = fixture("phases/nesting-out-of-file-order.json");
    let out = run(&["convert", input.to_str().unwrap(), ctf.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["stats", "--json", ctf.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["slices"], 6);
    let phases = v["load_phases"].as_object().unwrap();
    let names: Vec<&str> = phases.keys().map(String::as_str).collect();
    assert_eq!(&names[..2], ["index", "read"], "{names:?}");
    let index = phases["index"].as_f64().unwrap();
    let load = v["load_ms"].as_f64().unwrap();
    assert!(index >= 0.0 && load >= index + phases["read"].as_f64().unwrap() - 0.01);
}

/// Args of every shape, on every kind of event: nested objects and arrays,
/// escapes, non-ASCII and NUL in strings and keys, numbers as written (`1e5`,
/// `-0`), `{}`, values that are not objects, more members than a CTF record has
/// arguments, `@` keys, JSONC, and `B`/`E` pairs whose `E` has args.
const RICH_ARGS: &str = r#"{"traceEvents":[
{"ph":"M","pid":1,"tid":1,"name":"process_name","args":{"name":"Br\u00f6wser \"main\""}},
{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"T\u0000nul"}},
{"ph":"X","pid":1,"tid":1,"ts":1,"dur":10,"name":"nested","args":{"a":{"b":[1,2,{"c":null}],"d":"x\ny"},"e":[],"f":{}}},
{"ph":"X","pid":1,"tid":1,"ts":2,"dur":1,"name":"nums","args":{"big":1e5,"neg0":-0,"f":-0.0,"huge":99999999999999999999,"e":1.5E-3,"t":true,"n":null}},
{"ph":"X","pid":1,"tid":1,"ts":3,"dur":1,"name":"strs","args":{"q":"a\"b\\c\/d","u":"\u00e9\u4e2d\ud83d\ude00","nul":"x\u0000y","ctl":"\u0001\t","@at":"v","@=weird":2}},
{"ph":"X","pid":1,"tid":1,"ts":4,"dur":1,"name":"nul key","args":{"k\u0000ey":1}},
{"ph":"X","pid":1,"tid":1,"ts":5,"dur":1,"name":"empty","args":{}},
{"ph":"X","pid":1,"tid":1,"ts":6,"dur":1,"name":"number","args":5},
{"ph":"X","pid":1,"tid":1,"ts":7,"dur":1,"name":"string","args":"hello"},
{"ph":"X","pid":1,"tid":1,"ts":8,"dur":1,"name":"array","args":[1,"a",{"b":2}]},
{"ph":"X","pid":1,"tid":1,"ts":9,"dur":1,"name":"null","args":null},
{"ph":"X","pid":1,"tid":1,"ts":10,"dur":1,"name":"none"},
{"ph":"X","pid":1,"tid":1,"ts":11,"dur":1,"name":"many","args":{"a1":"1","a2":2,"a3":"3","a4":4,"a5":"5","a6":6,"a7":"7","a8":8,"a9":"nine"}},
{"ph":"X","pid":1,"tid":1,"ts":12,"dur":1,"name":"jsonc","args":{ "a" : 1 , /* c */ "b" : [ 1 , 2 ] , }},
{"ph":"X","pid":1,"tid":1,"ts":13,"dur":1,"name":"at keys","args":{"@ph":"x","@args":"y","@more":"z","@=q":"w"}},
{"ph":"B","pid":1,"tid":2,"ts":20,"name":"be","args":{"begin":1,"shared":"b"}},
{"ph":"E","pid":1,"tid":2,"ts":30,"args":{"end":2,"shared":"e"}},
{"ph":"B","pid":1,"tid":2,"ts":31,"name":"be2","args":{"x":1}},
{"ph":"E","pid":1,"tid":2,"ts":32,"args":{}},
{"ph":"B","pid":1,"tid":2,"ts":33,"name":"be3"},
{"ph":"E","pid":1,"tid":2,"ts":34,"args":{"only":"end"}},
{"ph":"B","pid":1,"tid":2,"ts":35,"name":"be4","args":{"x":1}},
{"ph":"E","pid":1,"tid":2,"ts":36,"args":7},
{"ph":"B","pid":1,"tid":3,"ts":40,"name":"nest","args":{"ui-nest":"1"}},
{"ph":"E","pid":1,"tid":3,"ts":50,"args":{"ui-nest":"1"}},
{"ph":"C","pid":1,"tid":1,"ts":60,"name":"ctr","args":{"v":1,"s":"2.5"}},
{"ph":"C","pid":1,"tid":1,"ts":61,"name":"ctr","id":7,"args":{"v":-0,"w":1e5}},
{"ph":"i","pid":1,"tid":1,"ts":70,"name":"inst","s":"g","args":{"i":"j"}},
{"ph":"b","pid":1,"tid":1,"ts":80,"name":"as","cat":"c","id":"0x1","args":{"ab":1}},
{"ph":"n","pid":1,"tid":1,"ts":81,"name":"as","cat":"c","id":"0x1","args":{"step":"s"}},
{"ph":"e","pid":1,"tid":1,"ts":82,"name":"as","cat":"c","id":"0x1","args":{"ae":2}},
{"ph":"S","pid":1,"tid":1,"ts":83,"name":"leg","id":2,"args":{}},
{"ph":"T","pid":1,"tid":1,"ts":84,"name":"leg","id":2,"args":{"step":"st1"}},
{"ph":"F","pid":1,"tid":1,"ts":85,"name":"leg","id":2,"args":{"f":1}},
{"ph":"N","pid":1,"tid":1,"ts":90,"name":"obj","id":"0x9","args":{}},
{"ph":"O","pid":1,"tid":1,"ts":91,"name":"obj","id":"0x9","args":{"snapshot":{"a":[1,2]}}},
{"ph":"D","pid":1,"tid":1,"ts":92,"name":"obj","id":"0x9"},
{"ph":"R","pid":1,"tid":1,"ts":93,"name":"mark","args":{"data":{"x":"\u0000"}}},
{"ph":"v","pid":1,"tid":1,"ts":94,"name":"mem","args":{"dumps":{"m":1}}}
]}"#;

/// A CTF copy in tracescope's own layout, whose load leaves the args encoded in
/// the stream file until a table asks, gives every table the JSON gives, args
/// and arg sets included.
#[test]
fn a_ctf_copy_gives_the_args_of_its_json() {
    let tmp = tempfile::Builder::new()
        .prefix("tracescope-ctf-args-")
        .tempdir()
        .unwrap();
    let json = tmp.path().join("rich.json");
    std::fs::write(&json, RICH_ARGS).unwrap();
    let ctf = tmp.path().join("rich.ctf");
    ok_stdout(&["convert", json.to_str().unwrap(), ctf.to_str().unwrap()]);
    for table in [
        "processes",
        "threads",
        "slices",
        "instants",
        "async_slices",
        "counters",
        "objects",
        "snapshots",
        "metadata",
        "other",
        "args",
    ] {
        let (a, b) = (table_text(&json, table), table_text(&ctf, table));
        assert!(!a.trim().is_empty(), "{table}: no rows");
        assert_eq!(
            without_row_ids(table, &a),
            without_row_ids(table, &b),
            "table {table}"
        );
    }
}

fn convert_keeps_tables(root: &Path, inputs: &[&str]) {
    // Removed when the test ends (each run used to leave 13 MB behind in /tmp).
    let tmp = tempfile::Builder::new()
        .prefix("tracescope-convert-")
        .tempdir()
        .unwrap();
    let dir = tmp.path();
    for (k, rel) in inputs.iter().enumerate() {
        let input = root.join(rel);
        // The binary formats' own tests cover big traces; here, the CLI path on small ones.
        let small = std::fs::metadata(&input)
            .map(|m| m.len() < 1 << 20)
            .unwrap_or(false);
        let binary: &[&str] = if rel.ends_with(".cpuprofile") || !small {
            &[]
        } else {
            &["ctf", "etw"]
        };
        for ext in ["json", "json.gz"].iter().chain(binary) {
            let out_path = dir.join(format!("{k}.{ext}"));
            let out = run(&[
                "convert",
                input.to_str().unwrap(),
                out_path.to_str().unwrap(),
            ]);
            assert!(
                out.status.success(),
                "{rel}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            if *ext == "json.gz" {
                assert_eq!(
                    &std::fs::read(&out_path).unwrap()[..2],
                    &[0x1f, 0x8b],
                    "{rel}: gzip by extension"
                );
            }
            for table in [
                "processes",
                "threads",
                "slices",
                "instants",
                "async_slices",
                "flows",
                "counters",
                "objects",
                "samples",
                "metadata",
                "other",
                "args",
            ] {
                // A raw .cpuprofile's process and thread are named after the file.
                if rel.ends_with(".cpuprofile") && (table == "processes" || table == "threads") {
                    continue;
                }
                let (a, b) = (table_text(&input, table), table_text(&out_path, table));
                if !ext.starts_with("json") {
                    assert_eq!(
                        without_row_ids(table, &a),
                        without_row_ids(table, &b),
                        "{rel} -> {ext}: table {table}"
                    );
                } else {
                    assert_eq!(a, b, "{rel} -> {ext}: table {table}");
                }
            }
        }
    }
}

fn ok_stdout(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A[0,100) > B[10,40), A > B[50,70) on 1/1; A[20,60) on 1/2 (cat d); times in µs.
const NESTED: &str = r#"[
{"ph":"X","pid":1,"tid":1,"name":"A","cat":"c","ts":0,"dur":100},
{"ph":"X","pid":1,"tid":1,"name":"B","cat":"c","ts":10,"dur":30},
{"ph":"X","pid":1,"tid":1,"name":"B","cat":"c","ts":50,"dur":20},
{"ph":"X","pid":1,"tid":2,"name":"A","cat":"d","ts":20,"dur":40},
{"ph":"C","pid":1,"name":"mem","ts":0,"args":{"v":10}},
{"ph":"C","pid":1,"name":"mem","ts":100,"args":{"v":30}}
]"#;

#[test]
fn summary_groups_with_exact_times_ranges_and_top() {
    let p = temp_file("summary.json", NESTED);
    let p = p.to_str().unwrap();
    let v: serde_json::Value = serde_json::from_str(&ok_stdout(&["summary", p, "--json"])).unwrap();
    assert_eq!(
        (v["slices"].clone(), v["t0_ns"].clone(), v["t1_ns"].clone()),
        (4.into(), 0.into(), 100_000.into())
    );
    let g = &v["groups"];
    assert_eq!(
        (g[0]["key"].clone(), g[0]["count"].clone()),
        ("A".into(), 2.into())
    );
    assert_eq!(
        (g[0]["total_ns"].clone(), g[0]["self_ns"].clone()),
        (140_000.into(), 90_000.into())
    );
    assert_eq!(
        (
            g[0]["min_ns"].clone(),
            g[0]["max_ns"].clone(),
            g[0]["avg_ns"].clone()
        ),
        (40_000.into(), 100_000.into(), 70_000.into())
    );
    assert_eq!(
        (g[1]["key"].clone(), g[1]["total_ns"].clone()),
        ("B".into(), 50_000.into())
    );
    assert_eq!(v["counters"][0]["max"], 30.0);
    assert_eq!(
        v["counters"][0]["avg"], 10.0,
        "10 held for all of [0, 100 µs)"
    );

    let v: serde_json::Value = serde_json::from_str(&ok_stdout(&[
        "summary",
        p,
        "--json",
        "--by",
        "category",
        "--range",
        "+30us..+60us",
        "--top",
        "1",
    ]))
    .unwrap();
    assert_eq!(
        (v["t0_ns"].clone(), v["t1_ns"].clone()),
        (30_000.into(), 60_000.into())
    );
    assert_eq!(v["groups_total"], 2);
    assert_eq!(v["groups"].as_array().unwrap().len(), 1);
    assert_eq!(v["groups"][0]["key"], "c");
    assert_eq!(v["groups"][0]["in_range_ns"], 30_000 + 10_000 + 10_000);

    let text = ok_stdout(&["summary", p, "--by", "thread"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "4 slices over 100 µs (0 to 100000 ns), 2 groups by thread"
    );
    assert!(
        lines[1].starts_with("thread") && lines[1].ends_with("unfinished"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("Thread 1, Process 1") && lines[2].contains("150 µs"),
        "{text}"
    );
    assert!(text.contains("mem.v"), "{text}");

    let out = run(&["summary", p, "--range", "5ms..1ms"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is empty"));
}

#[test]
fn profile_writes_folded_stacks_and_a_flame_graph() {
    let p = fixture("phases/profile-chunks.json");
    let p = p.to_str().unwrap();
    assert_eq!(
        ok_stdout(&["profile", p]),
        "(root) 2\n(root);start 3\n(root);start;compute 3\n"
    );
    // Each sample weighs the time to the next one (the last: as the one before).
    assert_eq!(
        ok_stdout(&["profile", p, "--weight", "time", "--thread", "1:1"]),
        "(root) 80\n(root);start 120\n(root);start;compute 120\n"
    );
    // 1 µs..83 µs: the samples at 2 (root), 42 and 82 (start).
    assert_eq!(
        ok_stdout(&["profile", p, "--range", "1us..83us"]),
        "(root) 1\n(root);start 2\n"
    );
    let svg = temp_file("flame.svg", "");
    ok_stdout(&["profile", p, "--format", "svg", "-o", svg.to_str().unwrap()]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with("<?xml") && text.contains("<svg"),
        "{}",
        &text[..100]
    );
    assert!(text.contains("compute") && text.contains("start"));

    // Regression: two functions named (anonymous) under (root) gave two equal lines.
    let anon = fixture("phases/profile-anonymous-siblings.json");
    assert_eq!(
        ok_stdout(&["profile", anon.to_str().unwrap()]),
        "(root);(anonymous) 3\n(root);(anonymous);onClick 1\n"
    );
    let out = run(&["profile", p, "--thread", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("threads with CPU samples (pid:tid name): 1:1 Thread 1"));
    let none = fixture("phases/nesting-out-of-file-order.json");
    let out = run(&["profile", none.to_str().unwrap(), "--from", "samples"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "tracescope: no CPU samples in this trace (its slices make stacks too: --from slices)\n"
    );
}

/// A fixture's path as an argument.
fn fixture_arg(name: &str) -> String {
    fixture(name).to_string_lossy().into_owned()
}

/// `aggregate-steps.json`: python (1:1) runs ProfilerStep#1 [0,100) > aten::linear
/// [10,60) > aten::matmul [20,50), aten::relu [70,90); ProfilerStep#2 [100,250) >
/// aten::linear [110,210) > aten::matmul [120,200); ProfilerStep#3 [250,300) >
/// aten::relu [260,270). Two threads named worker: 2:7 loads [0,40) and [30,80)
/// (an overlap), 3:7 loads [0,10). Times in µs.
#[test]
fn profile_from_slices_stacks_by_nesting() {
    let f = fixture_arg("aggregate-steps.json");
    let time = "ProfilerStep#1 30\nProfilerStep#1;aten::linear 20\nProfilerStep#1;aten::linear;aten::matmul 30\n\
        ProfilerStep#1;aten::relu 20\nProfilerStep#2 50\nProfilerStep#2;aten::linear 20\n\
        ProfilerStep#2;aten::linear;aten::matmul 80\nProfilerStep#3 40\nProfilerStep#3;aten::relu 10\n";
    // Without samples the stacks come from slices, weighed by self time in µs.
    let out = run(&["profile", &f, "--thread", "python"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), time);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "tracescope: no CPU samples in this trace: stacks of slices (--from slices)\n"
    );
    assert_eq!(
        ok_stdout(&["profile", &f, "--from", "slices", "--thread", "1:1"]),
        time
    );
    assert_eq!(
        ok_stdout(&["profile", &f, "--from", "slices", "--thread", "python", "--weight", "samples"]),
        "ProfilerStep#1 1\nProfilerStep#1;aten::linear 1\nProfilerStep#1;aten::linear;aten::matmul 1\n\
         ProfilerStep#1;aten::relu 1\nProfilerStep#2 1\nProfilerStep#2;aten::linear 1\n\
         ProfilerStep#2;aten::linear;aten::matmul 1\nProfilerStep#3 1\nProfilerStep#3;aten::relu 1\n"
    );
    // The overlap is a root of its own: 40 + 50 µs of "load".
    assert_eq!(
        ok_stdout(&["profile", &f, "--from", "slices", "--thread", "2:7"]),
        "load 90\n"
    );
    // A range cuts slices: [+90us, +130us) holds 10 of step 1 (relu's end, 0 self),
    // and 30 of step 2 (linear 20, matmul 10 of it).
    assert_eq!(
        ok_stdout(&["profile", &f, "--from", "slices", "--thread", "python", "--range", "+90us..+130us"]),
        "ProfilerStep#1 10\nProfilerStep#2 10\nProfilerStep#2;aten::linear 10\nProfilerStep#2;aten::linear;aten::matmul 10\n"
    );
    let svg = temp_file("slices.svg", "");
    ok_stdout(&[
        "profile",
        &f,
        "--from",
        "slices",
        "--format",
        "svg",
        "-o",
        svg.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("aten::matmul") && text.contains("aggregate-steps.json slices"));
}

#[test]
fn an_ambiguous_thread_name_lists_the_threads() {
    let f = fixture_arg("aggregate-steps.json");
    let out = run(&["profile", &f, "--from", "slices", "--thread", "worker"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "tracescope: --thread \"worker\" matches 2 threads with slices: 2:7 worker, 3:7 worker; pick one as pid:tid\n"
    );
    // A tid two processes share is ambiguous too.
    let out = run(&["profile", &f, "--from", "slices", "--thread", "7"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("matches 2 threads"));
}

#[test]
fn relative_ranges_on_a_cpuprofile_start_at_its_first_sample() {
    // Samples every 100 µs from 1100 µs: main, fib, fib, (garbage collector), fib.
    let p = fixture_arg("file/node.cpuprofile");
    let p = p.as_str();
    // +100us..+300us is [1200 µs, 1400 µs): the two fib samples.
    let rel = ok_stdout(&["profile", p, "--range", "+100us..+300us"]);
    let abs = ok_stdout(&["profile", p, "--range", "1200000..1400000"]);
    assert_eq!(rel, abs);
    assert_eq!(rel, "(root);main;fib 2\n");
    let v: serde_json::Value =
        serde_json::from_str(&ok_stdout(&["summary", p, "--json", "--range", "+100us.."])).unwrap();
    assert_eq!(v["t0_ns"], 1_200_000i64);
}

#[test]
fn summary_busy_time_percentiles_filters_and_pattern_groups() {
    let f = fixture_arg("aggregate-steps.json");
    let json = |args: &[&str]| -> serde_json::Value {
        let mut a = vec!["summary", f.as_str(), "--json"];
        a.extend(args);
        serde_json::from_str(&ok_stdout(&a)).unwrap()
    };
    let v = json(&["--by", "thread"]);
    let g = &v["groups"];
    // python: 590 µs of nested slices, busy 300 (its steps); worker 2:7: 90 of
    // overlapping loads, busy 80.
    assert_eq!(
        (g[0]["total_ns"].clone(), g[0]["busy_ns"].clone()),
        (590_000.into(), 300_000.into())
    );
    assert_eq!(
        (g[1]["total_ns"].clone(), g[1]["busy_ns"].clone()),
        (90_000.into(), 80_000.into())
    );
    let v = json(&["--group", r"ProfilerStep#\d+", "--top", "1"]);
    let g = &v["groups"][0];
    assert_eq!(g["key"], r"ProfilerStep#\d+");
    assert_eq!(
        (
            g["count"].clone(),
            g["total_ns"].clone(),
            g["self_ns"].clone()
        ),
        (3.into(), 300_000.into(), 120_000.into())
    );
    // Durations 50, 100, 150: p50 is the 2nd, p95 and p99 the 3rd.
    assert_eq!(
        (
            g["p50_ns"].clone(),
            g["p95_ns"].clone(),
            g["p99_ns"].clone()
        ),
        (100_000.into(), 150_000.into(), 150_000.into())
    );
    assert_eq!(v["groups_total"], 5);
    let v = json(&["--name", "^aten::", "--thread", "^python"]);
    let keys: Vec<_> = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].clone())
        .collect();
    assert_eq!(keys, ["aten::linear", "aten::matmul", "aten::relu"]);
    assert_eq!(v["slices"], 6);
    let v = json(&[
        "--cat",
        "io",
        "--thread",
        r"pid 2|Process 2",
        "--by",
        "category",
    ]);
    assert_eq!(
        (v["slices"].clone(), v["groups"][0]["busy_ns"].clone()),
        (2.into(), 80_000.into())
    );

    let text = ok_stdout(&["summary", &f, "--by", "thread", "--top", "1"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "12 slices over 300 µs (0 to 300000 ns), 3 groups by thread"
    );
    let head: Vec<&str> = lines[1]
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        head,
        [
            "thread",
            "count",
            "total",
            "self",
            "busy",
            "avg",
            "p50",
            "p95",
            "p99",
            "min",
            "max",
            "thread time",
            "unfinished"
        ]
    );
    let out = run(&["summary", &f, "--name", "("]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--name \"(\" is not a regex"));
}

#[test]
fn summary_clips_long_names_in_the_table_only() {
    let long = "N".repeat(30) + &"x".repeat(50) + "::End";
    let p = temp_file(
        "long.json",
        &format!(r#"[{{"ph":"X","pid":1,"tid":1,"name":"{long}","ts":0,"dur":5}}]"#),
    );
    let p = p.to_str().unwrap();
    let text = ok_stdout(&["summary", p]);
    let row = text.lines().nth(2).unwrap();
    let key = row.split("  ").next().unwrap();
    assert_eq!(key.chars().count(), 60);
    assert!(
        key.starts_with("NNNNN") && key.ends_with("x::End") && key.contains('…'),
        "{key}"
    );
    let v: serde_json::Value = serde_json::from_str(&ok_stdout(&["summary", p, "--json"])).unwrap();
    assert_eq!(v["groups"][0]["key"], long.as_str());
}

/// Corpus tier: the same regression on the real Chrome profile it was found in.
#[test]
fn profile_of_a_real_chrome_trace() {
    let Some(chrome) = tracescope_testdata::corpus(
        "corpus/speedscope/Chrome/69/simple.json",
        "folded stacks of a real Chrome profile",
    ) else {
        return;
    };
    let folded = ok_stdout(&["profile", chrome.to_str().unwrap()]);
    assert_eq!(
        folded.lines().next(),
        Some("(root);(anonymous) 2"),
        "{folded}"
    );
}

/// `tracescope summary big.json | head`: a reader that has gone ends the command
/// quietly (by SIGPIPE, as `cat`), where each `print!` used to panic with a message
/// on standard error.
#[cfg(unix)]
#[test]
fn a_closed_standard_output_ends_a_command_quietly() {
    let trace = fixture_arg("sql/browser.json");
    let commands: [&[&str]; 5] = [
        &["stats", &trace],
        &["summary", &trace],
        &["validate", &trace],
        &["tables", &trace, "--table", "slices"],
        &["query", "--schema"],
    ];
    for args in commands {
        let out = tracescope_testdata::output_with_stdout_closed(bin().args(args));
        assert!(
            tracescope_testdata::ended_quietly(&out),
            "{args:?}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
