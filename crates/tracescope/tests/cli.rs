//! The `tracescope` binary as a user runs it: stats, tables, validate.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tracescope"))
}

fn example(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/examples")
        .join(rel)
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
    let p = example("seed-guide/02-duration-nesting.json");
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
    assert_eq!(v["events"], 7);
    assert_eq!(v["slices"], 7);
    assert_eq!(v["phases"]["X"], 7);
    assert_eq!(v["start_ns"], 1000);
    assert_eq!(v["end_ns"], 121_000);
    assert_eq!(v["bytes"], 867);
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
    assert_eq!(d["offset"], 46);
    assert!(d["example"]
        .as_str()
        .unwrap()
        .starts_with(r#"{"ph":"E","name":"zz""#));
    assert_eq!(v["events"], 2);
}

#[test]
fn tables_jsonl_and_csv() {
    let p = example("seed-viewer/01-nested-calls.json");
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
        (Some("A"), &1000.into(), &3000.into(), &0.into())
    );
    assert_eq!(
        (
            lines[1]["name"].as_str(),
            &lines[1]["self_ns"],
            &lines[1]["did_not_finish"]
        ),
        (Some("Asub"), &2800.into(), &false.into())
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
        "pid,tid,name,sort_index,process_name,id,process_id\n1,1,,,,0,0\n"
    );
    let out = run(&["tables", p.to_str().unwrap(), "--table", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the tables are"));
}

#[test]
fn validate_exit_codes() {
    let clean = example("seed-guide/00-minimal-duration.json");
    assert_eq!(
        run(&["validate", clean.to_str().unwrap()]).status.code(),
        Some(0)
    );
    let jsonc = example("seed-guide/11-jsonc-with-comments.json");
    let out = run(&["validate", jsonc.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("comment"));
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
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    let inputs = [
        "examples/seed-guide/06-profile-chunks-simple.json",
        "examples/seed-guide/11-jsonc-with-comments.json",
        "examples/seed-viewer/03-ui-nest.json",
        "corpus/catapult/flow.json",
        "corpus/catapult/nestable_async.json",
        "corpus/catapult/fuchsia_trace.json.gz",
        "corpus/speedscope/node/10.11.0/example.cpuprofile",
    ];
    let dir = std::env::temp_dir().join(format!("tracescope-convert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, rel) in inputs.iter().enumerate() {
        let input = shared.join(rel);
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
    assert_eq!(lines[0], "4 slices from 0 to 100000 ns, 2 groups by thread");
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
    let p = example("seed-guide/06-profile-chunks-simple.json");
    let p = p.to_str().unwrap();
    assert_eq!(
        ok_stdout(&["profile", p]),
        "(root) 3\n(root);runMainESM 5\n(root);runMainESM;main-work 6\n"
    );
    assert_eq!(
        ok_stdout(&["profile", p, "--weight", "time", "--thread", "1:1"]),
        "(root) 250\n(root);runMainESM 350\n(root);runMainESM;main-work 300\n"
    );
    // 1 µs..202 µs: the samples at 1 (root), 101 (runMainESM), 201 (main-work).
    assert_eq!(
        ok_stdout(&["profile", p, "--range", "1us..202us"]),
        "(root) 1\n(root);runMainESM 1\n(root);runMainESM;main-work 1\n"
    );
    let svg = temp_file("flame.svg", "");
    ok_stdout(&["profile", p, "--format", "svg", "-o", svg.to_str().unwrap()]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with("<?xml") && text.contains("<svg"),
        "{}",
        &text[..100]
    );
    assert!(text.contains("main-work") && text.contains("runMainESM"));

    // Regression: two functions named (anonymous) under (root) gave two equal lines.
    let chrome = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/speedscope/Chrome/69/simple.json");
    let folded = ok_stdout(&["profile", chrome.to_str().unwrap()]);
    assert_eq!(
        folded.lines().next(),
        Some("(root);(anonymous) 2"),
        "{folded}"
    );
    let out = run(&["profile", p, "--thread", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("threads with samples (pid:tid name): 1:1")
    );
    let none = example("seed-guide/02-duration-nesting.json");
    let out = run(&["profile", none.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no CPU samples in this trace"));
}
