//! Crash safety: a child process records and then panics, is sent SIGTERM, or is
//! killed with SIGKILL after 1 s. Each file loads in tracescope and holds every
//! event older than the child's last completed flush.
#![cfg(unix)]

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_diagnostics, load, parse, timed, CUT};
use tracescope_record::{flush, trace_instant, Builder};

const SCENARIO: &str = "TRACESCOPE_TEST_SCENARIO";
const FILE: &str = "TRACESCOPE_TEST_FILE";

/// The child's side. Run as a test, it does nothing unless a test below
/// started this binary with `SCENARIO` set.
#[test]
fn crash_child() {
    let Ok(scenario) = std::env::var(SCENARIO) else {
        return;
    };
    let path = std::env::var(FILE).unwrap();
    // Never dropped: only the panic hook or the signal handler can save the trace.
    std::mem::forget(Builder::new().to_file(path).unwrap());
    if scenario == "panic" {
        for seq in 0..1000u64 {
            trace_instant!("crash", "e", "seq" => seq);
        }
        panic!("boom");
    }
    // sigterm / sigkill: record forever, saying after each flush what it holds.
    for seq in 0u64.. {
        trace_instant!("crash", "e", "seq" => seq);
        if seq % 100 == 99 {
            assert!(flush());
            println!("flushed {seq}");
        }
        std::thread::sleep(Duration::from_micros(50));
    }
}

fn spawn(scenario: &str) -> (std::process::Child, PathBuf) {
    let path = std::env::temp_dir().join(format!(
        "tracescope-crash-{scenario}-{}.json",
        std::process::id()
    ));
    let child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash_child", "--nocapture", "--test-threads=1"])
        .env(SCENARIO, scenario)
        .env(FILE, &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    (child, path)
}

/// The `seq` of every recorded event, which must be 0, 1, 2, ... without a gap.
fn seqs(events: &[serde_json::Value]) -> u64 {
    let got: Vec<u64> = timed(events)
        .iter()
        .filter(|e| e["name"] == "e")
        .map(|e| e["args"]["seq"].as_u64().unwrap())
        .collect();
    let want: Vec<u64> = (0..got.len() as u64).collect();
    assert_eq!(got, want, "events are contiguous from 0");
    got.len() as u64
}

#[test]
fn panic_flushes_every_event_before_it() {
    let (mut child, path) = spawn("panic");
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(101),
        "the child test failed by panicking"
    );
    let bytes = std::fs::read(&path).unwrap();
    let events = parse(&bytes);
    assert_eq!(seqs(&events), 1000);
    let panic = timed(&events)
        .into_iter()
        .find(|e| e["name"] == "panic")
        .unwrap();
    assert_eq!(panic["s"], "p");
    assert!(panic["args"]["message"].as_str().unwrap().contains("boom"));
    let trace = load(&bytes);
    assert_eq!(trace.info.events, events.len() as u64);
    assert_diagnostics(&trace, CUT);
    let _ = std::fs::remove_file(path);
}

/// Runs a recording child for `after`, returns the last flushed seq it reported.
fn run_then(signal: libc::c_int, after: Duration) -> (std::process::ExitStatus, PathBuf, u64) {
    let (mut child, path) = spawn(if signal == libc::SIGKILL {
        "sigkill"
    } else {
        "sigterm"
    });
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut last = None;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(n) = line.strip_prefix("flushed ") {
                last = Some(n.parse::<u64>().unwrap());
            }
        }
        last
    });
    let start = Instant::now();
    std::thread::sleep(after.saturating_sub(start.elapsed()));
    // SAFETY: plain kill(2) of our own child.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    let status = child.wait().unwrap();
    let last = reader
        .join()
        .unwrap()
        .expect("the child flushed at least once");
    (status, path, last)
}

#[test]
fn sigterm_ends_the_trace_cleanly() {
    let (status, path, last_flushed) = run_then(libc::SIGTERM, Duration::from_millis(500));
    assert_eq!(
        status.signal(),
        Some(libc::SIGTERM),
        "the child died of SIGTERM"
    );
    let bytes = std::fs::read(&path).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(text.ends_with("}\n]\n"), "the array was closed");
    let events: Vec<serde_json::Value> = serde_json::from_str(&text).expect("strict JSON");
    assert!(seqs(&events) > last_flushed);
    assert_eq!(events.last().unwrap()["name"], "tracescope_stats");
    let trace = load(&bytes);
    assert_eq!(trace.info.events, events.len() as u64);
    assert_diagnostics(&trace, &[]);
    let _ = std::fs::remove_file(path);
}

#[test]
fn sigkill_after_one_second_keeps_every_flushed_event() {
    let (status, path, last_flushed) = run_then(libc::SIGKILL, Duration::from_secs(1));
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    let bytes = std::fs::read(&path).unwrap();
    let events = parse(&bytes);
    assert!(
        seqs(&events) > last_flushed,
        "every event up to {last_flushed} is there"
    );
    let trace = load(&bytes);
    assert_eq!(trace.info.events, events.len() as u64);
    assert_diagnostics(&trace, CUT);
    let _ = std::fs::remove_file(path);
}
