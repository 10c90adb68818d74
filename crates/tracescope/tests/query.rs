//! `tracescope query`: formats, several files with a `trace` column, joins on ids,
//! Perfetto's names and functions, pushdown answers, errors and exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/sql")
        .join(name)
}

fn query(files: &[&str], sql: &str, format: &str) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tracescope"));
    c.arg("query");
    for f in files {
        c.arg(fixture(f));
    }
    c.args(["--sql", sql, "--format", format]).output().unwrap()
}

fn csv(files: &[&str], sql: &str) -> String {
    let out = query(files, sql, "csv");
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const BOTH: &[&str] = &["browser.json", "renderer.json"];

#[test]
fn several_traces_answer_side_by_side() {
    assert_eq!(
        csv(BOTH, "SELECT trace, SUM(dur) AS layout FROM slice WHERE name = 'Layout' GROUP BY trace ORDER BY trace"),
        "trace,layout\nbrowser.json,400000\nrenderer.json,200000\n"
    );
    // Ids are numbered across the traces, so a join on ids stays in one trace.
    assert_eq!(
        csv(BOTH, "SELECT s.trace, s.name, t.name AS thread FROM slices s JOIN threads t ON s.thread_id = t.id WHERE s.name = 'Layout' ORDER BY s.trace, s.ts_ns"),
        "trace,name,thread\nbrowser.json,Layout,CrBrowserMain\nbrowser.json,Layout,IOThread\nrenderer.json,Layout,CrRendererMain\nrenderer.json,Layout,CrRendererMain\n"
    );
    assert_eq!(
        csv(
            BOTH,
            "SELECT trace, COUNT(*) FROM thread GROUP BY trace ORDER BY trace"
        ),
        "trace,COUNT(*)\nbrowser.json,2\nrenderer.json,2\n"
    );
}

#[test]
fn perfetto_names_parents_args_and_flows() {
    let f = &["browser.json"];
    // Children by parent_id, thread time, -1 for a slice that never finished.
    assert_eq!(
        csv(f, "SELECT c.name, p.name AS parent, c.thread_ts, c.thread_dur FROM slice c JOIN slice p ON c.parent_id = p.id ORDER BY c.ts"),
        "name,parent,thread_ts,thread_dur\nLayout,RunTask,50000,250000\nHeaders,Load,,\nPaint,RunTask,,\n"
    );
    assert_eq!(
        csv(f, "SELECT dur FROM slice WHERE name = 'Stuck'"),
        "dur\n-1\n"
    );
    // The B's and E's args merged, nested keys flattened.
    assert_eq!(
        csv(f, "SELECT a.key, a.int_value, a.value_type FROM slice s JOIN args a USING (arg_set_id) WHERE s.name = 'Read' ORDER BY a.id"),
        "key,int_value,value_type\nargs.bytes,4096,int\nargs.ok,1,bool\n"
    );
    assert_eq!(
        csv(f, "SELECT EXTRACT_ARG(arg_set_id, 'args.src.line') AS line, EXTRACT_ARG(arg_set_id, 'args.layers[2]') AS l FROM slice WHERE name IN ('RunTask', 'Paint') ORDER BY ts"),
        "line,l\n12,\n,3\n"
    );
    assert_eq!(
        csv(f, "SELECT o.name AS out, i.name AS \"in\" FROM flow JOIN slice o ON o.id = flow.slice_out JOIN slice i ON i.id = flow.slice_in"),
        "out,in\nLayout,Layout\n"
    );
    assert_eq!(
        csv(
            f,
            "SELECT COUNT(*) FROM following_flow((SELECT id FROM slice WHERE name = 'RunTask'))"
        ),
        "COUNT(*)\n1\n"
    );
    assert_eq!(
        csv(f, "SELECT name, type FROM track WHERE id IN (SELECT track_id FROM slice WHERE name IN ('Load', 'Nav')) ORDER BY name"),
        "name,type\n,global\nLoad,legacy_async_process_slice\n"
    );
    assert_eq!(
        csv(f, "SELECT t.name, c.ts, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY t.name, c.ts"),
        "name,ts,value\nMemory gpu,100000,2.5\nMemory gpu,700000,3.5\nMemory heap,100000,10\nMemory heap,700000,30\n"
    );
    assert_eq!(
        csv(f, "INCLUDE PERFETTO MODULE slices.with_context; SELECT name, thread_name, tid, process_name, pid FROM thread_slice WHERE depth = 1 ORDER BY ts"),
        "name,thread_name,tid,process_name,pid\nLayout,CrBrowserMain,1,Browser,1\nPaint,CrBrowserMain,1,Browser,1\n"
    );
    assert_eq!(
        csv(f, "SELECT name, int_value, str_value FROM metadata WHERE name GLOB 'json_metadata.*' ORDER BY name"),
        "name,int_value,str_value\njson_metadata.cpus,8,\njson_metadata.source,,fixture\n"
    );
}

#[test]
fn pushed_down_constraints_give_the_same_rows_as_filters() {
    let f = &["browser.json"];
    for (pushed, plain) in [
        (
            "SELECT id FROM slices WHERE id = 2",
            "SELECT id FROM slices WHERE id + 0 = 2",
        ),
        (
            "SELECT id FROM slices WHERE id > 1 AND id <= 4",
            "SELECT id FROM slices WHERE id + 0 > 1 AND id + 0 <= 4",
        ),
        (
            "SELECT id FROM slices WHERE thread_id = 1",
            "SELECT id FROM slices WHERE thread_id + 0 = 1",
        ),
        (
            "SELECT id FROM slice WHERE ts >= 200000 AND ts < 600000",
            "SELECT id FROM slice WHERE ts + 0 >= 200000 AND ts + 0 < 600000",
        ),
        (
            "SELECT id FROM slice WHERE utid = 0 AND ts > 150000",
            "SELECT id FROM slice WHERE utid + 0 = 0 AND ts + 0 > 150000",
        ),
        (
            "SELECT id FROM slices WHERE trace = 'browser.json'",
            "SELECT id FROM slices WHERE trace || '' = 'browser.json'",
        ),
        (
            "SELECT id FROM slices WHERE id = 2.5",
            "SELECT id FROM slices WHERE id + 0 = 2.5",
        ),
    ] {
        let (a, b) = (
            csv(f, &format!("{pushed} ORDER BY 1")),
            csv(f, &format!("{plain} ORDER BY 1")),
        );
        assert_eq!(a, b, "{pushed}");
        assert!(
            a.lines().count() > 1 || pushed.contains("2.5"),
            "{pushed}: {a}"
        );
    }
    // GROUP BY comes out grouped (SQLite aggregates as rows stream).
    assert_eq!(
        csv(
            f,
            "SELECT name, COUNT(*) AS n FROM slice GROUP BY name HAVING n > 1"
        ),
        "name,n\nLayout,2\n"
    );
}

#[test]
fn formats() {
    let sql = "SELECT name, dur FROM slice WHERE name = 'Paint'";
    let out = |fmt| String::from_utf8(query(&["browser.json"], sql, fmt).stdout).unwrap();
    assert_eq!(out("table"), "name   dur\nPaint  200000\n(1 row)\n");
    assert_eq!(out("jsonl"), "{\"name\":\"Paint\",\"dur\":200000}\n");
    assert_eq!(out("json"), "[{\"name\":\"Paint\",\"dur\":200000}]\n");
    assert_eq!(out("csv"), "name,dur\nPaint,200000\n");
}

#[test]
fn errors_exit_2_with_the_position_and_the_tables() {
    let out = query(
        &["browser.json"],
        "SELECT name\nFROM slice WHERE nme = 1",
        "csv",
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "tracescope: SQL error: no such column: nme (line 2, column 18)\n  FROM slice WHERE nme = 1\n                   ^\n"
    );
    let out = query(&["browser.json"], "SELECT * FROM slcie", "csv");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(
            "tracescope: SQL error: no such table: slcie; the tables are: args, async_slices,"
        ),
        "{err}"
    );
    assert!(err.contains(" slice, slices,"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_tracescope"))
        .args(["query", "--schema"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let schema = String::from_utf8(out.stdout).unwrap();
    assert!(schema.contains("\n  parent_id              id           the enclosing slice (null for roots and overlap rows)\n"), "{schema}");
    assert!(schema.contains("CREATE VIEW thread_slice AS"));
}
