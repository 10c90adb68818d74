//! Cutting a table into runs encoded side by side, and runs into row groups,
//! changes nothing in what is written: every layout holds the rows of
//! `Trace::rows` (what `tracescope tables` prints) in the same order, also
//! where a run boundary falls between a slice's arg set and the next (a slice's
//! `B` and `E` args are one arg set, never cut).

use std::path::{Path, PathBuf};

use parquet::basic::{Encoding, PageType};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use tracescope_model::{Cell, LoadOptions, Trace, TABLES};
use tracescope_parquet::{write_table, Layout};

fn load(name: &str) -> Trace {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/sql")
        .join(name);
    let source = tracescope_format::Source::open(&path).unwrap();
    Trace::from_source(source, &LoadOptions::default()).unwrap()
}

/// A file of this test process in the temporary directory (each test removes its own).
fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "tracescope-pq-layout-{}-{name}",
        std::process::id()
    ))
}

/// The file's rows as text, and its row group sizes.
fn read(path: &Path) -> (Vec<Vec<String>>, Vec<i64>) {
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let groups = (0..reader.num_row_groups())
        .map(|i| reader.metadata().row_group(i).num_rows())
        .collect();
    let rows = reader
        .get_row_iter(None)
        .unwrap()
        .map(|r| {
            r.unwrap()
                .get_column_iter()
                .map(|(_, f)| match f {
                    Field::Null => "null".to_string(),
                    Field::Str(s) => format!("str {s}"),
                    Field::Long(i) => format!("int {i}"),
                    Field::Double(x) => format!("float {x:?}"),
                    Field::Bool(b) => format!("bool {b}"),
                    other => format!("other {other:?}"),
                })
                .collect()
        })
        .collect();
    (rows, groups)
}

/// `Trace::rows` as the Parquet reader gives them back (JSON as strings, pids
/// beyond i64 as their 64 bits).
fn expected(trace: &Trace, table: &str) -> Vec<Vec<String>> {
    let rows = trace.rows(table).unwrap();
    rows.rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|c| match c {
                    Cell::Null => "null".to_string(),
                    Cell::Str(s) | Cell::Json(s) => format!("str {s}"),
                    Cell::Int(i) => format!("int {i}"),
                    Cell::UInt(u) => format!("int {}", *u as i64),
                    Cell::Float(x) => format!("float {x:?}"),
                    Cell::Bool(b) => format!("bool {b}"),
                })
                .collect()
        })
        .collect()
}

#[test]
fn any_layout_writes_the_rows_of_tables_in_order() {
    let trace = load("args.json");
    let layouts = [
        Layout::default(),
        // One arg set per run, two rows per group: every boundary is crossed.
        Layout {
            row_group: 2,
            arg_sets_per_run: 1,
        },
        Layout {
            row_group: 3,
            arg_sets_per_run: 2,
        },
        Layout {
            row_group: 1000,
            arg_sets_per_run: 5,
        },
    ];
    for table in TABLES {
        let want = expected(&trace, table.name);
        for (k, layout) in layouts.iter().enumerate() {
            let path = tmp(&format!("{}-{k}.parquet", table.name));
            let (rows, nulled) = write_table(&path, table, &trace, *layout).unwrap();
            assert_eq!((rows, nulled), (want.len(), 0), "{} {layout:?}", table.name);
            let (got, groups) = read(&path);
            assert_eq!(got, want, "{} {layout:?}", table.name);
            assert_eq!(groups.iter().sum::<i64>(), want.len() as i64);
            assert!(
                groups.iter().all(|&n| n as usize <= layout.row_group),
                "{} {layout:?}: groups {groups:?}",
                table.name
            );
            std::fs::remove_file(&path).unwrap();
        }
    }
}

#[test]
fn runs_of_arg_sets_cut_between_a_slices_begin_and_end_args_keep_them_merged() {
    let trace = load("args.json");
    let args = tracescope_model::table("args").unwrap();
    let want = expected(&trace, "args");
    assert!(want.len() > 40, "{}", want.len());
    // The slice "Both" has args on its B and on its E: one arg set, its keys
    // merged (the E's `y` wins), whose rows are neither split nor repeated.
    let set = |key: &str| {
        let id = &want.iter().find(|r| r[2] == format!("str {key}")).unwrap()[0];
        let keys: Vec<&str> = want
            .iter()
            .filter(|r| &r[0] == id)
            .map(|r| r[2].as_str())
            .collect();
        keys
    };
    assert_eq!(
        set("args.keep"),
        ["str args.x", "str args.y[0]", "str args.keep", "str args.w"]
    );
    for per in 1..=4 {
        let layout = Layout {
            row_group: 4,
            arg_sets_per_run: per,
        };
        let path = tmp(&format!("args-runs-{per}.parquet"));
        write_table(&path, args, &trace, layout).unwrap();
        let (got, groups) = read(&path);
        assert_eq!(got, want, "{layout:?}");
        // A run ends its last group short: more groups than rows / 4.
        assert!(groups.len() > want.len() / 4, "{groups:?}");
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn an_empty_table_is_one_empty_row_group() {
    let trace = load("args.json");
    let empty = TABLES
        .iter()
        .find(|t| trace.rows(t.name).unwrap().rows.is_empty())
        .expect("a table without rows in args.json");
    let path = tmp("empty.parquet");
    let (rows, _) = write_table(&path, empty, &trace, Layout::default()).unwrap();
    assert_eq!(rows, 0);
    assert_eq!(read(&path), (vec![], vec![0]));
    std::fs::remove_file(&path).unwrap();
}

/// Encodings of `column`'s chunk in each row group of the file.
fn encodings(path: &Path, column: &str) -> Vec<Vec<Encoding>> {
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    reader
        .metadata()
        .row_groups()
        .iter()
        .map(|g| {
            let c = g
                .columns()
                .iter()
                .find(|c| c.column_path().string() == column);
            c.unwrap().encodings().collect()
        })
        .collect()
}

#[test]
fn ascending_integers_are_written_as_deltas_and_others_plain() {
    let trace = load("args.json");
    let slices = tracescope_model::table("slices").unwrap();
    let path = tmp("deltas.parquet");
    // Groups of 3 rows: some ascending in `depth`, some not.
    let layout = Layout {
        row_group: 3,
        arg_sets_per_run: 1,
    };
    write_table(&path, slices, &trace, layout).unwrap();
    let delta = |encodings: &Vec<Encoding>| encodings.contains(&Encoding::DELTA_BINARY_PACKED);
    // Rows are in time order: every group's starts ascend (a last group of one
    // row is written plain).
    let ts = encodings(&path, "ts_ns");
    assert!(ts[..ts.len() - 1].iter().all(delta), "{ts:?}");
    let depth = encodings(&path, "depth");
    assert!(
        depth.iter().any(delta) && !depth.iter().all(delta),
        "{depth:?}"
    );
    // Both read back as `tables` prints them.
    let got = read(&path).0;
    assert!(got.len() > 6, "{got:?}");
    assert_eq!(got, expected(&trace, "slices"));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn integers_with_few_values_take_a_dictionary_and_read_back_the_same() {
    // 400 slices of 2 threads in 2 processes, durations all over (none nested:
    // depths all 0, ascending, are deltas).
    let events: Vec<String> = (0..400)
        .map(|i| {
            let pid = 1 + i % 2;
            let dur = 1 + (i * 7919) % 97;
            format!(
                r#"{{"ph":"X","name":"n","pid":{pid},"tid":{},"ts":{i},"dur":{dur},"args":{{"i":{i}}}}}"#,
                pid * 10
            )
        })
        .collect();
    let json = tmp("few-values.json");
    std::fs::write(&json, format!("[{}]", events.join(",\n"))).unwrap();
    let source = tracescope_format::Source::open(&json).unwrap();
    let trace = Trace::from_source(source, &LoadOptions::default()).unwrap();
    let slices = tracescope_model::table("slices").unwrap();
    let path = tmp("few-values.parquet");
    let layout = Layout {
        row_group: 200,
        arg_sets_per_run: 1,
    };
    write_table(&path, slices, &trace, layout).unwrap();
    let has = |e: Encoding| move |encodings: &Vec<Encoding>| encodings.contains(&e);
    for column in ["pid", "tid", "thread_id"] {
        let enc = encodings(&path, column);
        assert!(
            enc.iter().all(has(Encoding::RLE_DICTIONARY)),
            "{column}: {enc:?}"
        );
    }
    let ts = encodings(&path, "ts_ns");
    assert!(ts.iter().all(has(Encoding::DELTA_BINARY_PACKED)), "{ts:?}");
    let got = read(&path).0;
    assert_eq!(got.len(), 400);
    assert_eq!(got, expected(&trace, "slices"));
    std::fs::remove_file(&path).unwrap();
    std::fs::remove_file(&json).unwrap();
}

/// Data pages in each row group's chunk of `column`.
fn data_pages(path: &Path, column: &str) -> Vec<usize> {
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr();
    let k = schema.columns().iter().position(|c| c.name() == column);
    let k = k.unwrap();
    (0..reader.num_row_groups())
        .map(|g| {
            let pages = reader.get_row_group(g).unwrap().get_column_page_reader(k);
            let pages = pages.unwrap().map(|p| p.unwrap().page_type());
            pages.filter(|&t| t == PageType::DATA_PAGE).count()
        })
        .collect()
}

#[test]
fn columns_of_few_cells_are_dictionaries_that_read_back_as_tables_prints_them() {
    // 45,000 slices of 3 threads: one unnamed (a null thread name), one of a
    // process named by a string (a pid with no INT64 form: null, counted);
    // no category on every third (null), one name for the first 20,000
    // (a page of one value), one lane (a dictionary of one value).
    let mut events = vec![
        r#"{"ph":"M","name":"thread_name","pid":1,"tid":10,"args":{"name":"main"}}"#.to_string(),
        r#"{"ph":"M","name":"thread_name","pid":"gpu","tid":12,"args":{"name":"gpu"}}"#.to_string(),
    ];
    for i in 0..45_000 {
        let (pid, tid) = [("1", 10), ("1", 11), (r#""gpu""#, 12)][i % 3];
        let name = if i < 20_000 {
            "first".to_string()
        } else {
            format!("n{}", i % 5)
        };
        let cat = match i % 3 {
            0 => String::new(),
            k => format!(r#""cat":"c{k}","#),
        };
        events.push(format!(
            r#"{{"ph":"X","name":"{name}",{cat}"pid":{pid},"tid":{tid},"ts":{i},"dur":1}}"#
        ));
    }
    let json = tmp("dictionaries.json");
    std::fs::write(&json, format!("[{}]", events.join(",\n"))).unwrap();
    let source = tracescope_format::Source::open(&json).unwrap();
    let trace = Trace::from_source(source, &LoadOptions::default()).unwrap();
    let slices = tracescope_model::table("slices").unwrap();
    // A pid named by a string has no INT64 form: written null.
    let mut want = expected(&trace, "slices");
    want.iter_mut()
        .filter(|r| r[0] == "str gpu")
        .for_each(|r| r[0] = "null".to_string());
    assert_eq!(want.len(), 45_000);
    // Nulls in pid, thread_name and cat.
    assert!(got_nulls(&want, 0) && got_nulls(&want, 2) && got_nulls(&want, 4));
    let columns = [
        "pid",
        "tid",
        "thread_name",
        "name",
        "cat",
        "lane",
        "thread_id",
    ];
    // One row group (pages of 20,000 rows: three), then groups of 4,999 rows
    // (the first four of one name, the last one short).
    for row_group in [45_000, 4_999] {
        let path = tmp(&format!("dictionaries-{row_group}.parquet"));
        let layout = Layout {
            row_group,
            arg_sets_per_run: 1,
        };
        let (rows, nulled) = write_table(&path, slices, &trace, layout).unwrap();
        // Every row of the process named "gpu" has a null pid.
        assert_eq!((rows, nulled), (45_000, 15_000));
        let (got, groups) = read(&path);
        assert_eq!(got.len(), want.len());
        if let Some(k) = (0..got.len()).find(|&k| got[k] != want[k]) {
            panic!(
                "groups of {row_group}, row {k}: {:?} != {:?}",
                got[k], want[k]
            );
        }
        assert_eq!(groups.len(), 45_000usize.div_ceil(row_group));
        for column in columns {
            let enc = encodings(&path, column);
            assert!(
                enc.iter().all(|e| e.contains(&Encoding::RLE_DICTIONARY)),
                "{column}: {enc:?}"
            );
        }
        if row_group == 45_000 {
            assert_eq!(data_pages(&path, "name"), [3]);
        }
        std::fs::remove_file(&path).unwrap();
    }
    std::fs::remove_file(&json).unwrap();
}

/// Whether column `k` of `rows` has a null.
fn got_nulls(rows: &[Vec<String>], k: usize) -> bool {
    rows.iter().any(|r| r[k] == "null")
}
