//! The table declarations: every column readable, ids that join, the args table.

mod common;

use common::{col, i, load, s};
use tracescope_model::{table, Cell, ColumnType, RowSource, TABLES};

const NESTED_WITH_FLOW: &str = r#"[
  {"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"Main"}},
  {"ph":"X","pid":1,"tid":1,"name":"A","ts":0,"dur":10,"args":{"n":1,"o":{"s":"x","l":[true,2.5]},"z":null}},
  {"ph":"X","pid":1,"tid":1,"name":"B","ts":2,"dur":5,"tts":1,"tdur":3},
  {"ph":"X","pid":1,"tid":2,"name":"C","ts":20,"dur":5,"args":{}},
  {"ph":"s","pid":1,"tid":1,"name":"f","cat":"c","id":7,"ts":3},
  {"ph":"f","pid":1,"tid":2,"name":"f","cat":"c","id":7,"ts":20},
  {"ph":"i","pid":1,"tid":2,"name":"I","ts":21,"s":"t","args":{"k":"v"}},
  {"ph":"C","pid":1,"name":"mem","ts":0,"args":{"a":1,"b":2}}
]"#;

#[test]
fn declarations_are_well_formed() {
    for t in TABLES {
        let cols = t.columns();
        let mut names: Vec<&str> = cols.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), cols.len(), "{}: duplicate column", t.name);
        for c in &cols {
            assert!(!c.doc.is_empty(), "{}.{} has no doc", t.name, c.name);
            if let ColumnType::Id(target) = c.ty {
                assert!(table(target).is_some(), "{}.{} -> {target}", t.name, c.name);
            }
        }
        assert!(matches!(t.rows, RowSource::Indexed { .. }) || t.name == "args");
    }
}

#[test]
fn slice_ids_join_parents_threads_and_flows() {
    let t = load(NESTED_WITH_FLOW);
    // Rows come in time order; `id` is the model's row, `parent_id` its parent's.
    assert_eq!(col(&t, "slices", "name"), vec![s("A"), s("B"), s("C")]);
    let ids = col(&t, "slices", "id");
    assert_eq!(
        col(&t, "slices", "parent_id"),
        vec![Cell::Null, ids[0].clone(), Cell::Null]
    );
    assert_eq!(
        col(&t, "slices", "tts_ns"),
        vec![Cell::Null, i(1000), Cell::Null]
    );
    // thread_id is the threads table's id of the same tid.
    let threads = t.rows("threads").unwrap();
    for (k, th) in col(&t, "slices", "thread_id").iter().enumerate() {
        let row = (0..threads.rows.len())
            .find(|&r| threads.get(r, "id") == th)
            .unwrap();
        assert_eq!(threads.get(row, "tid"), &col(&t, "slices", "tid")[k]);
    }
    // The flow names the thread slices at its ends by id.
    assert_eq!(col(&t, "flows", "from_slice_id"), vec![ids[1].clone()]);
    assert_eq!(col(&t, "flows", "to_slice_id"), vec![ids[2].clone()]);
    assert_eq!(col(&t, "flows", "from_async_slice_id"), vec![Cell::Null]);
    assert_eq!(col(&t, "flows", "flow_id"), vec![i(0)]);
    assert_eq!(col(&t, "flows", "id"), vec![i(7)]);
    // Counters point at their series.
    assert_eq!(col(&t, "counter_series", "series"), vec![s("a"), s("b")]);
    assert_eq!(col(&t, "counters", "series_id"), vec![i(0), i(1)]);
}

#[test]
fn args_flatten_per_arg_set() {
    let t = load(NESTED_WITH_FLOW);
    // Only events with args have an arg set; `{}` is none.
    let sets = col(&t, "slices", "arg_set_id");
    assert_eq!(sets[1], Cell::Null);
    assert_eq!(sets[2], Cell::Null);
    let a = t.rows("args").unwrap();
    let of = |set: &Cell| -> Vec<(String, String, String)> {
        (0..a.rows.len())
            .filter(|&r| a.get(r, "arg_set_id") == set)
            .map(|r| {
                (
                    a.get(r, "key").to_string(),
                    a.get(r, "value_type").to_string(),
                    a.get(r, "display_value").to_string(),
                )
            })
            .collect()
    };
    let row = |k: &str, ty: &str, v: &str| (k.to_string(), ty.to_string(), v.to_string());
    assert_eq!(
        of(&sets[0]),
        vec![
            row("args.n", "int", "1"),
            row("args.o.s", "string", "x"),
            row("args.o.l[0]", "bool", "true"),
            row("args.o.l[1]", "real", "2.5"),
        ]
    );
    let flat: Vec<Cell> = (0..a.rows.len())
        .filter(|&r| a.get(r, "arg_set_id") == &sets[0])
        .map(|r| a.get(r, "flat_key").clone())
        .collect();
    assert_eq!(flat[3], s("args.o.l"));
    let instant_set = &col(&t, "instants", "arg_set_id")[0];
    assert_eq!(of(instant_set), vec![row("args.k", "string", "v")]);
    let meta_set = &col(&t, "metadata", "arg_set_id")[0];
    assert_eq!(of(meta_set), vec![row("args.name", "string", "Main")]);
}

/// The `args` column is the compact JSON of each event's args whether or not
/// the load could tell it was compact already (then it is copied as written,
/// `TextRef::is_compact`): spaces, comments, trailing commas, escapes written
/// otherwise, raw control characters, and `B`/`E` args merged.
#[test]
fn args_column_is_compact_whatever_the_load_knew() {
    let args = [
        r#"{"a":1,"b":[true,null],"c":{"d":"x"}}"#,
        r#"{"q":"say\"hi\"\n","p":"C:\\dir","c":"\u001f"}"#,
        r#"{"url":"https://example.com/a.js?v=1"}"#,
        r#"{"a": 1, "b" :[ 2 ]}"#,
        r#"{"s":"x y"}"#,
        r#"{"a":1/*c*/}"#,
        r#"{"a":[1,2,],}"#,
        r#"{"a":"\/\u00e9\u001F"}"#,
        "{\"t\":\"\t\"}",
        r#""top""#,
        "7",
    ];
    let mut json = String::from("[\n");
    for (k, a) in args.iter().enumerate() {
        json += &format!(
            "{{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"s{k}\",\"ts\":{},\"dur\":1,\"args\":{a}}},\n",
            k * 10
        );
    }
    json += r#"{"ph":"B","pid":1,"tid":2,"name":"m","ts":1000,"args":{"a":1,"b":"x"}},"#;
    json += r#"{"ph":"E","pid":1,"tid":2,"ts":1005,"args":{"b":"y","c":2}}]"#;
    let t = load(&json);
    let mut want: Vec<Cell> = args
        .iter()
        .map(|a| Cell::Json(tracescope_format::json::value::compact(a)))
        .collect();
    want.push(Cell::Json(r#"{"a":1,"b":"y","c":2}"#.to_string()));
    assert_eq!(col(&t, "slices", "args"), want);
    // The load marked the first three (compact, escapes as `compact` writes
    // them), and only those.
    let s = &t.tables.slices;
    let marked: Vec<bool> = (0..s.len()).map(|i| s.args(i).is_compact()).collect();
    let mut expect = vec![false; args.len() + 1];
    expect[..3].fill(true);
    expect[9] = true;
    expect[10] = true;
    expect[args.len()] = true;
    assert_eq!(marked, expect);
}
