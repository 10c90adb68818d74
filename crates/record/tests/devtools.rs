//! The demo example's trace loads in Chrome DevTools' own trace engine (a small
//! `parse.mjs` over the engine's npm package, kept with the external corpus in
//! `../shared/peers/devtools`) without errors.
//!
//! Needs `node` and the engine installed (`scripts/setup` copies it to
//! `/tmp/tracescope-devtools` and runs `npm ci` there); the directory is
//! `$TRACESCOPE_DEVTOOLS`, else `/tmp/devtools`, else `../shared/peers/devtools`
//! beside the workspace. When none has `node_modules`, the test says so in one line
//! and passes without checking.

use std::process::Command;

#[test]
fn demo_trace_loads_in_devtools_without_errors() {
    let Some(devtools) = tracescope_testdata::devtools("loading our trace in DevTools") else {
        return;
    };
    // `cargo test` builds the examples beside the test binaries; when this test
    // was built alone, build the example in its own target directory.
    let exe = std::env::current_exe().unwrap();
    let mut demo = exe.ancestors().nth(2).unwrap().join("examples/demo");
    if !demo.is_file() {
        let target = exe.ancestors().nth(3).unwrap().join("nested");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "-p", "tracescope-record", "--example", "demo"])
            .arg("--target-dir")
            .arg(&target)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(status.success());
        demo = target.join("debug/examples/demo");
    }
    let trace =
        std::env::temp_dir().join(format!("tracescope-devtools-{}.json", std::process::id()));
    let status = Command::new(&demo).arg(&trace).status().unwrap();
    assert!(status.success());
    let lines = std::fs::read_to_string(&trace).unwrap().lines().count();

    let out = Command::new("node")
        .arg(devtools.join("parse.mjs"))
        .arg(&trace)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "parse.mjs printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(out.status.success(), "{report}");
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");
    // Every line but `[` and `]` is one event, and the engine read them all.
    assert_eq!(report["events"], (lines - 2) as u64, "{report}");
    assert_eq!(report["threads"], 4, "main and three workers: {report}");
    let _ = std::fs::remove_file(trace);
}
