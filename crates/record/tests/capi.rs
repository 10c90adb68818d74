//! The C ABI: a C program compiled with `cc` against the static library
//! records a trace that tracescope reads, with the exact events.
#![cfg(target_os = "linux")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{assert_diagnostics, load, parse, timed};
use serde_json::{json, Value};
use tracescope_model::SliceRef;

/// Builds the static library with the `capi` feature in its own target
/// directory (so the outer build's outputs are left alone) and returns it.
fn build_staticlib() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/<test> -> target
    let target = exe.ancestors().nth(3).unwrap().join("nested");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--lib",
            "-p",
            "tracescope-record",
            "--features",
            "capi",
        ])
        .arg("--target-dir")
        .arg(&target)
        .current_dir(manifest)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the C library failed");
    target.join("debug").join("libtracescope_record.a")
}

#[test]
fn c_program_records_a_trace_tracescope_reads() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = build_staticlib();
    let dir = std::env::temp_dir().join(format!("tracescope-capi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("basic");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(cc)
        .args(["-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(manifest.join("include"))
        .arg(manifest.join("tests/c/basic.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-lrt", "-lgcc_s", "-o"])
        .arg(&exe)
        .output()
        .expect("cc runs");
    assert!(
        out.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let trace_path = dir.join("trace.json");
    let status = Command::new(&exe)
        .arg(&trace_path)
        .env("TRACESCOPE_CATEGORIES", "*,-off")
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));

    let bytes = std::fs::read(&trace_path).unwrap();
    let events = parse(&bytes);
    let trace = load(&bytes);
    assert_diagnostics(&trace, &[]);
    assert_eq!(trace.info.events, events.len() as u64);

    let shape = |e: &Value| {
        let mut m = e.as_object().unwrap().clone();
        for k in ["ts", "pid", "tid"] {
            m.remove(k);
        }
        Value::Object(m)
    };
    let main_tid = timed(&events)[0]["tid"].clone();
    let (main, worker): (Vec<&Value>, Vec<&Value>) = timed(&events)
        .into_iter()
        .partition(|e| e["tid"] == main_tid);
    assert_eq!(
        main.iter().map(|e| shape(e)).collect::<Vec<_>>(),
        vec![
            json!({"ph":"B","cat":"c","name":"main","args":{"label":"demo \"quoted\"","n":2}}),
            json!({"ph":"B","cat":"c","name":"work","args":{"i":0}}),
            json!({"ph":"i","cat":"c","name":"tick","args":{"half":0.0,"odd":false}}),
            json!({"ph":"E","cat":"c","name":"work"}),
            json!({"ph":"B","cat":"c","name":"work","args":{"i":1}}),
            json!({"ph":"i","cat":"c","name":"tick","args":{"half":0.5,"odd":true}}),
            json!({"ph":"E","cat":"c","name":"work"}),
            json!({"ph":"C","cat":"c","name":"bytes","args":{"value":4096}}),
            json!({"ph":"C","cat":"c","name":"mem","args":{"used":1.5,"free":-3}}),
            json!({"ph":"i","cat":"c","name":"marker","s":"g"}),
            json!({"ph":"C","cat":"c","name":"queue","id":"0x3","args":{"value":7}}),
            json!({"ph":"C","cat":"c","name":"queue","id":"0x4","args":{"depth":1,"max":2.5}}),
            json!({"ph":"b","cat":"c","name":"op","id":"0x10","args":{"k":"v"}}),
            json!({"ph":"n","cat":"c","name":"op_step","id":"0x10"}),
            json!({"ph":"e","cat":"c","name":"op","id":"0x10","args":{"ok":true}}),
            json!({"ph":"S","cat":"c","name":"legacy","id":"0x5","args":{"n":1}}),
            json!({"ph":"T","cat":"c","name":"legacy","id":"0x5","args":{"step":"phase1"}}),
            json!({"ph":"F","cat":"c","name":"legacy","id":"0x5"}),
            json!({"ph":"B","cat":"c","name":"producer","bind_id":"0x4d","flow_out":true,
                   "args":{"n":1}}),
            json!({"ph":"s","cat":"c","name":"v1flow","id":"0x9"}),
            json!({"ph":"E","cat":"c","name":"producer"}),
            json!({"ph":"B","cat":"c","name":"consumer","bind_id":"0x4d","flow_in":true}),
            json!({"ph":"f","cat":"c","name":"v1flow","bp":"e","id":"0x9"}),
            json!({"ph":"E","cat":"c","name":"consumer"}),
            json!({"ph":"N","cat":"c","name":"Obj","id":"0x1234"}),
            json!({"ph":"O","cat":"c","name":"Obj","id":"0x1234","args":{"snapshot":{"size":64}}}),
            json!({"ph":"D","cat":"c","name":"Obj","id":"0x1234"}),
            json!({"ph":"E","cat":"c","name":"main"}),
        ]
    );
    assert_eq!(
        worker.iter().map(|e| shape(e)).collect::<Vec<_>>(),
        vec![
            json!({"ph":"B","cat":"c","name":"worker"}),
            json!({"ph":"E","cat":"c","name":"worker"}),
        ]
    );
    // The model pairs the async operations and binds both flows.
    let t = &trace.tables;
    let flows: Vec<(&str, &str, bool)> = (0..t.flows.len())
        .map(|i| {
            let name = |r| match r {
                SliceRef::Thread(s) => trace.str(t.slices.name[s.index()]),
                SliceRef::Async(s) => trace.str(t.async_slices.name[s.index()]),
            };
            (name(t.flows.from[i]), name(t.flows.to[i]), t.flows.v2[i])
        })
        .collect();
    let mut flows = flows;
    flows.sort();
    assert_eq!(
        flows,
        [
            ("producer", "consumer", false),
            ("producer", "consumer", true)
        ]
    );
    let mut asyncs: Vec<(&str, u32, bool, bool)> = (0..t.async_slices.len())
        .map(|i| {
            let a = &t.async_slices;
            (
                trace.str(a.name[i]),
                a.depth[i],
                a.legacy[i],
                a.did_not_finish[i],
            )
        })
        .collect();
    asyncs.sort();
    assert_eq!(
        asyncs,
        [
            ("legacy", 0, true, false),
            ("op", 0, false, false),
            ("op_step", 1, false, false),
            ("phase1", 1, true, false),
        ]
    );
    assert_eq!(t.objects.len(), 1);
    assert_eq!(t.snapshots.len(), 1);
    let pid = main[0]["pid"].clone();
    for (name, value) in [("c-main", &main_tid), ("c-worker", &worker[0]["tid"])] {
        let m = json!({"ph":"M","name":"thread_name","pid":pid,"tid":value,"args":{"name":name}});
        assert!(events.contains(&m), "missing {m}");
    }
    assert!(events.contains(
        &json!({"ph":"M","name":"process_name","pid":pid,"tid":pid,"args":{"name":"c-demo"}})
    ));
    let _ = std::fs::remove_dir_all(dir);
}
