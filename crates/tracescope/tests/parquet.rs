//! `tracescope export --format parquet` read back by DuckDB and pyarrow (installed
//! by scripts/setup): per table and trace, the same row counts and sums as
//! `tracescope tables`, the Hive `trace` column, typed columns and nulls.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tracescope")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/sql")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tracescope-pq-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// (table, numeric column summed) checked for every trace.
const CHECKS: &[(&str, &str)] = &[
    ("slices", "dur_ns"),
    ("slices", "parent_id"),
    ("threads", "id"),
    ("instants", "ts_ns"),
    ("async_slices", "dur_ns"),
    ("flows", "from_ts_ns"),
    ("counters", "value"),
    ("args", "arg_set_id"),
    ("metadata", "id"),
];

/// Rows and the sum of `column` (numbers only; nulls and strings skipped) as
/// `tracescope tables` prints them.
fn from_tables(file: &Path, table: &str, column: &str) -> (u64, f64) {
    let out = Command::new(bin())
        .args(["tables", file.to_str().unwrap(), "--table", table])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut n = 0;
    let mut sum = 0.0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        n += 1;
        sum += v[column].as_f64().unwrap_or(0.0);
    }
    (n, sum)
}

const READ_BACK: &str = r#"
import json, sys
import duckdb, pyarrow.dataset as ds, pyarrow.compute as pc
out, checks = sys.argv[1], json.loads(sys.argv[2])
res = {}
for table, col in checks:
    glob = f"{out}/{table}/*/*.parquet"
    rows = duckdb.sql(f"SELECT trace, COUNT(*), COALESCE(SUM({col}), 0) FROM read_parquet('{glob}', hive_partitioning=true) GROUP BY trace").fetchall()
    t = ds.dataset(f"{out}/{table}", format="parquet", partitioning="hive").to_table()
    for trace in set(t.column("trace").to_pylist()):
        part = t.filter(pc.equal(t.column("trace"), trace))
        s = pc.sum(part.column(col)).as_py() or 0
        res[f"pyarrow {table}.{col} {trace}"] = [part.num_rows, float(s)]
    for trace, n, s in rows:
        res[f"duckdb {table}.{col} {trace}"] = [n, float(s)]
types = duckdb.sql(f"DESCRIBE SELECT * FROM read_parquet('{out}/slices/*/*.parquet', hive_partitioning=true)").fetchall()
res["types"] = {name: ty for name, ty, *_ in types}
import pyarrow.parquet as pq
meta = pq.ParquetFile(f"{out}/slices/trace=browser.json/part-0.parquet").metadata.row_group(0)
cols = [meta.column(i) for i in range(meta.num_columns)]
res["encodings"] = {c.path_in_schema: [c.compression, "RLE_DICTIONARY" in c.encodings] for c in cols}
print(json.dumps(res))
"#;

#[test]
fn duckdb_and_pyarrow_read_the_export_as_tables_prints_it() {
    let py_ok = Command::new("python3")
        .args(["-c", "import duckdb, pyarrow"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        py_ok,
        "python3 with duckdb and pyarrow is needed: run scripts/setup"
    );
    let out = tmp("interop");
    let files = [fixture("browser.json"), fixture("renderer.json")];
    let run = Command::new(bin())
        .args([
            "export",
            "--format",
            "parquet",
            "--out",
            out.to_str().unwrap(),
            "--tables",
            "all",
        ])
        .args(&files)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).to_string();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.starts_with(&format!(
            "wrote 17 tables of 2 traces to {}:",
            out.display()
        )),
        "{stdout}"
    );
    // renderer.json names a process and a thread "gpu" / "main": INT64 pid columns
    // cannot hold them, and the report says so.
    assert!(
        stdout.contains("pids named by strings were written as null"),
        "{stdout}"
    );
    assert!(out
        .join("slices/trace=browser.json/part-0.parquet")
        .is_file());
    let checks: Vec<[&str; 2]> = CHECKS.iter().map(|(t, c)| [*t, *c]).collect();
    let checks = serde_json::to_string(&checks).unwrap();
    let got = python_json(READ_BACK, &[out.to_str().unwrap(), &checks]);
    for (table, col) in CHECKS {
        for f in &files {
            let name = f.file_name().unwrap().to_str().unwrap();
            let (n, sum) = from_tables(f, table, col);
            for reader in ["duckdb", "pyarrow"] {
                let key = format!("{reader} {table}.{col} {name}");
                let v = &got[&key];
                let (rn, rs) = (v[0].as_u64().unwrap_or(0), v[1].as_f64().unwrap_or(0.0));
                assert_eq!((rn, rs), (n, sum), "{key}");
            }
        }
    }
    let types = &got["types"];
    assert_eq!(types["ts_ns"], "BIGINT");
    assert_eq!(types["name"], "VARCHAR");
    assert_eq!(types["did_not_finish"], "BOOLEAN");
    assert_eq!(types["trace"], "VARCHAR");
    // Dictionaries for names and categories, not for times or args; zstd for
    // the args, and for other chunks only where it pays (deltas and dictionary
    // indexes are often left uncompressed: BENCHMARKS.md, "Export, round 10").
    let enc = &got["encodings"];
    let either = [serde_json::json!("ZSTD"), serde_json::json!("UNCOMPRESSED")];
    for (col, dict) in [("name", true), ("cat", true), ("ts_ns", false)] {
        assert!(either.contains(&enc[col][0]), "{col}: {}", enc[col]);
        assert_eq!(enc[col][1], serde_json::json!(dict), "{col}");
    }
    // This fixture's args pages are a few hundred bytes, which zstd does not shrink
    // by a tenth: they may be stored as they are (a chunk of real args is compressed:
    // `crates/parquet`'s codec tests).
    assert!(either.contains(&enc["args"][0]), "args: {}", enc["args"]);
    assert_eq!(enc["args"][1], serde_json::json!(false), "args");
    // The tables are written side by side; the report lists them in declared order.
    let listed: Vec<&str> = stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .take(4)
        .collect();
    assert_eq!(listed, ["processes", "threads", "slices", "instants"]);
    // Exporting again replaces the partitions, leaving no temporary directories.
    let again = Command::new(bin())
        .args([
            "export",
            "--format",
            "parquet",
            "--out",
            out.to_str().unwrap(),
        ])
        .arg(&files[0])
        .output()
        .unwrap();
    assert!(again.status.success());
    assert_eq!(
        entries(&out.join("slices")),
        ["trace=browser.json", "trace=renderer.json"]
    );
    std::fs::remove_dir_all(&out).unwrap();
}

/// `tables` output of `table` for `file`, one JSON value per row.
fn rows_of(file: &Path, table: &str) -> Vec<serde_json::Value> {
    let out = Command::new(bin())
        .args(["tables", file.to_str().unwrap(), "--table", table])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every kind of arg (nested, arrays, big integers, escapes written every way,
/// whitespace, B and E both with args) reads the same as before the args were
/// walked in place instead of parsed and re-serialised: `tables` prints what the
/// files in `args-expected/` hold (written by the earlier version), and the
/// export holds the same values (the JSON `args` column text for text, the
/// `args` table row for row).
#[test]
fn args_column_and_table_are_unchanged_and_exported_as_tables_prints_them() {
    let file = fixture("args.json");
    let tables = [
        "args",
        "slices",
        "instants",
        "async_slices",
        "snapshots",
        "metadata",
        "other",
    ];
    for table in tables {
        let out = Command::new(bin())
            .args(["tables", file.to_str().unwrap(), "--table", table])
            .output()
            .unwrap();
        let expected =
            std::fs::read_to_string(fixture(&format!("args-expected/{table}.jsonl"))).unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{table}");
    }
    let out = tmp("args");
    let run = Command::new(bin())
        .args(["export", "--format", "parquet", "--tables", "all", "--out"])
        .arg(&out)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    const READ: &str = r#"
import json, sys
import pyarrow.parquet as pq
out, tables = sys.argv[1], sys.argv[2].split(",")
res = {}
for t in tables:
    rows = pq.read_table(f"{out}/{t}/trace=args.json/part-0.parquet").to_pylist()
    # JSON has no infinity: null, as in `tables`.
    res[t] = [{k: (None if isinstance(v, float) and v in (float("inf"), float("-inf")) else v) for k, v in r.items()} for r in rows]
print(json.dumps(res))
"#;
    let got = python_json(READ, &[out.to_str().unwrap(), &tables.join(",")]);
    // The args table row for row, every column (infinity is null in JSON lines
    // and in Python's JSON alike).
    let want = rows_of(&file, "args");
    let rows = got["args"].as_array().unwrap();
    assert_eq!(rows.len(), want.len());
    for (r, w) in rows.iter().zip(&want) {
        for (k, v) in w.as_object().unwrap() {
            match (r[k].as_f64(), v.as_f64()) {
                (Some(a), Some(b)) => assert_eq!(a, b, "args.{k} of {w}"),
                _ => assert_eq!(&r[k], v, "args.{k} of {w}"),
            }
        }
    }
    // The JSON args column, byte for byte as `tables` prints it (its lines hold
    // numbers serde_json cannot read, like 1E400: compared as text).
    for table in &tables[1..] {
        let printed =
            std::fs::read_to_string(fixture(&format!("args-expected/{table}.jsonl"))).unwrap();
        let rows = got[*table].as_array().unwrap();
        assert_eq!(rows.len(), printed.lines().count(), "{table}");
        let mut with_args = 0;
        for r in rows {
            if let Some(text) = r["args"].as_str() {
                with_args += 1;
                assert!(
                    printed.contains(&format!("\"args\":{text},")),
                    "{table}: {text} is not as tables prints it"
                );
            }
        }
        assert_eq!(
            with_args,
            printed
                .lines()
                .filter(|l| !l.contains("\"args\":null"))
                .count(),
            "{table}"
        );
    }
    std::fs::remove_dir_all(&out).unwrap();
}

/// What a Python `script` run with `args` prints, as JSON (it must succeed).
fn python_json(script: &str, args: &[&str]) -> serde_json::Value {
    let py = Command::new("python3")
        .args(["-c", script])
        .args(args)
        .output()
        .unwrap();
    assert!(
        py.status.success(),
        "{}",
        String::from_utf8_lossy(&py.stderr)
    );
    serde_json::from_slice(&py.stdout).unwrap()
}

/// The names in directory `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Without `--tables` every table but `args` is written, and the report says how
/// to add it; `--tables` writes exactly the tables named (in declared order,
/// whatever the list's order); an unknown name fails before anything is loaded,
/// listing the tables.
#[test]
fn tables_written_by_default_and_chosen_with_tables() {
    let file = fixture("browser.json");
    let export = |out: &Path, extra: &[&str]| {
        Command::new(bin())
            .args(["export", "--format", "parquet", "--out"])
            .arg(out)
            .args(extra)
            .arg(&file)
            .output()
            .unwrap()
    };
    let out = tmp("default-tables");
    let run = export(&out, &[]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.starts_with("wrote 16 tables of 1 trace to "),
        "{stdout}"
    );
    assert!(
        stdout.ends_with(
            "note: the args table (the `args` columns flattened) was not written; `--tables all` adds it\n"
        ),
        "{stdout}"
    );
    let dirs = entries(&out);
    assert_eq!(dirs.len(), 16, "{dirs:?}");
    assert!(!dirs.contains(&"args".to_string()), "{dirs:?}");
    assert!(dirs.contains(&"slices".to_string()), "{dirs:?}");
    std::fs::remove_dir_all(&out).unwrap();

    let out = tmp("chosen-tables");
    let run = export(&out, &["--tables", "args, slices,threads,slices"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let listed: Vec<&str> = stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(listed, ["threads", "slices", "args"], "{stdout}");
    assert_eq!(entries(&out), ["args", "slices", "threads"]);
    std::fs::remove_dir_all(&out).unwrap();

    let out = tmp("unknown-table");
    let run = export(&out, &["--tables", "slices,slice"]);
    assert!(!run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("no table named \"slice\"; the tables are: processes, threads, slices,"),
        "{stderr}"
    );
    assert!(stderr.contains("args (or `all`)"), "{stderr}");
    assert!(!out.exists(), "nothing written for a bad list");
}

/// A reader that stops before the report (`export ... | head -0`) ends the export
/// quietly once its files are written, as it ends `cat` (by SIGPIPE): no panic.
#[cfg(unix)]
#[test]
fn export_report_to_a_closed_pipe_ends_it_quietly() {
    let out = tmp("closed-pipe");
    let run = tracescope_testdata::output_with_stdout_closed(
        Command::new(bin())
            .args(["export", "--format", "parquet", "--out"])
            .arg(&out)
            .arg(fixture("browser.json")),
    );
    assert!(
        tracescope_testdata::ended_quietly(&run),
        "{:?} {}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(out
        .join("slices/trace=browser.json/part-0.parquet")
        .is_file());
    std::fs::remove_dir_all(&out).unwrap();
}
