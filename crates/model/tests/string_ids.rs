//! Spec section 2: a pid or tid that is a string (not a decimal integer) names its
//! own process or thread, and is its display name unless metadata names it.

mod common;
use common::*;
use tracescope_model::tables::{ProcessId, ThreadId};
use tracescope_model::Rows;

fn rows(t: &tracescope_model::Trace, table: &str, cols: &[&str]) -> Vec<String> {
    let r: Rows = t.rows(table).unwrap();
    (0..r.rows.len())
        .map(|k| {
            cols.iter()
                .map(|c| r.get(k, c).to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

const TRACE: &str = r#"[
{"ph":"X","pid":"browser","tid":"main","name":"a","ts":1,"dur":2},
{"ph":"X","pid":"gpu","tid":"io","name":"b","ts":1,"dur":2},
{"ph":"M","pid":"gpu","tid":"io","name":"thread_name","args":{"name":"IOThread"}},
{"ph":"M","pid":"renderer","name":"process_name","args":{"name":"Renderer"}},
{"ph":"X","pid":"renderer","tid":"25738","name":"c","ts":1,"dur":2},
{"ph":"X","pid":"25738","tid":7,"name":"d","ts":1,"dur":2}
]"#;

#[test]
fn a_string_pid_or_tid_names_its_process_or_thread() {
    let t = load(TRACE);
    assert_eq!(
        rows(&t, "processes", &["pid", "name"]),
        ["renderer Renderer", "browser browser", "gpu gpu", "25738 "]
    );
    assert_eq!(
        rows(&t, "threads", &["pid", "tid", "name"]),
        [
            "renderer 25738 ",
            "browser main main",
            "gpu io IOThread",
            "25738 7 ",
        ]
    );
}

#[test]
fn headings_show_a_string_id_once() {
    let t = load(TRACE);
    let procs: Vec<String> = (0..t.tables.processes.len() as u32)
        .map(|p| t.process_heading(ProcessId::new(p)))
        .collect();
    assert_eq!(
        procs,
        ["browser", "gpu", "Renderer (pid renderer)", "Process 25738"]
    );
    let threads: Vec<String> = (0..t.tables.threads.len() as u32)
        .map(|th| t.thread_heading(ThreadId::new(th)))
        .collect();
    assert_eq!(
        threads,
        ["main", "IOThread (tid io)", "Thread 25738", "Thread 7"]
    );
}
