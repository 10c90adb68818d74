//! Several traces as one: `tables`/`stats` on several files and on a directory,
//! `--align start` and `FILE@+offset`, and `merge`, whose JSON loads with the same
//! tables as the files read together (and in DevTools' engine without errors).

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn run(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_tracescope"))
        .args(args)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn fixture(name: &str) -> String {
    tracescope_testdata::fixture(&format!("multi/{name}"))
        .display()
        .to_string()
}

/// The rows of one table (`tables --format jsonl`).
fn rows(table: &str, files: &[&str]) -> Vec<serde_json::Map<String, Value>> {
    let mut args = vec!["tables", "--table", table];
    args.extend_from_slice(files);
    let out = run(&args);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| match serde_json::from_str(l).unwrap() {
            Value::Object(m) => m,
            v => panic!("{v}"),
        })
        .collect()
}

fn column(rows: &[serde_json::Map<String, Value>], keys: &[&str]) -> Vec<Vec<Value>> {
    rows.iter()
        .map(|r| keys.iter().map(|k| r[*k].clone()).collect())
        .collect()
}

#[test]
fn several_files_keep_their_processes_apart() {
    let (a, b) = (fixture("rank0.json"), fixture("rank1.json"));
    let procs = rows("processes", &[&a, &b]);
    assert_eq!(
        column(&procs, &["pid", "name", "labels"]),
        [
            vec![2.into(), "rank0.json".into(), Value::Null],
            vec![1.into(), "trainer (rank0.json)".into(), Value::Null],
            vec![
                3.into(),
                "trainer (rank1.json)".into(),
                "pid 1 in rank1.json".into()
            ],
        ]
    );
    // A directory is its files, in name order.
    let dir = tracescope_testdata::fixture("multi").display().to_string();
    assert_eq!(rows("processes", &[&dir]), procs);
    let stats: Value = serde_json::from_slice(&run(&["stats", "--json", &a, &b]).stdout).unwrap();
    assert_eq!(stats["events"], 14, "{stats}");
    assert_eq!(stats["flows"], 1, "{stats}");
}

#[test]
fn align_start_and_offsets_move_times_exactly() {
    let (a, b) = (fixture("rank0.json"), fixture("rank1.json"));
    let steps = |args: &[&str]| {
        let r = rows("slices", args);
        let r: Vec<_> = r.into_iter().filter(|r| r["name"] == "step").collect();
        column(&r, &["ts_ns", "dur_ns"])
    };
    assert_eq!(
        steps(&[&a, &b]),
        [[1_000_000, 100_000], [5_000_500, 200_000]].map(|r| r.map(Value::from).to_vec())
    );
    assert_eq!(
        steps(&["--align", "start", &a, &b]),
        [[1_000_000, 100_000], [1_000_000, 200_000]].map(|r| r.map(Value::from).to_vec())
    );
    let shifted = format!("{b}@+1.5ms");
    assert_eq!(
        steps(&["--align", "start", &a, &shifted]),
        [[1_000_000, 100_000], [2_500_000, 200_000]].map(|r| r.map(Value::from).to_vec())
    );
    let earlier = format!("{a}@-0.000001ms");
    assert_eq!(
        steps(&[&earlier, &b]),
        [[999_999, 100_000], [5_000_500, 200_000]].map(|r| r.map(Value::from).to_vec())
    );
}

/// Rows without what depends on where an event is written (byte offsets) or on how
/// the merge made ids unique (written ids).
fn comparable(table: &str, files: &[&str]) -> Vec<serde_json::Map<String, Value>> {
    let mut r = rows(table, files);
    for row in &mut r {
        row.retain(|k, _| !k.contains("offset") && k != "id");
    }
    r
}

#[test]
fn merged_json_loads_with_the_same_tables() {
    let (a, b) = (fixture("rank0.json"), fixture("rank1.json"));
    let dir = std::env::temp_dir().join(format!("tracescope-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let merged: PathBuf = dir.join("merged.json");
    let m = merged.display().to_string();
    let shifted = format!("{b}@+1.5ms");
    run(&["merge", "--align", "start", &a, &shifted, "-o", &m]);
    let text = std::fs::read_to_string(&merged).unwrap();
    let doc: Value = serde_json::from_str(&text).expect("strict JSON");
    assert_eq!(doc["otherData"]["rank"], 0);
    assert_eq!(doc["otherData (rank1.json)"]["rank"], 1);
    for table in [
        "processes",
        "threads",
        "slices",
        "instants",
        "async_slices",
        "flows",
        "counters",
    ] {
        assert_eq!(
            comparable(table, &[&m]),
            comparable(table, &["--align", "start", &a, &shifted]),
            "{table}"
        );
    }
    // The ids the merge made unique still keep rank1's flow end from joining rank0's.
    assert_eq!(rows("flows", &[&m]).len(), 1);
    // Merging never writes over an input.
    let refused = Command::new(env!("CARGO_BIN_EXE_tracescope"))
        .args(["merge", &a, &b, "-o", &a])
        .output()
        .unwrap();
    assert!(!refused.status.success());

    if let Some(devtools) = tracescope_testdata::devtools("loading a merged trace in DevTools") {
        let out = Command::new("node")
            .arg(devtools.join("parse.mjs"))
            .arg(&merged)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "parse.mjs printed no JSON ({e}): {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        assert!(out.status.success(), "{report}");
        assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
