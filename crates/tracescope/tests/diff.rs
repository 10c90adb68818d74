//! `tracescope diff` as CI runs it: numbers computed by hand on small traces,
//! matching across runs, gates and exit statuses, significance over noisy runs,
//! Markdown, kineto-shaped traces, unreadable input.

use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn diff(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tracescope"))
        .arg("diff")
        .args(args)
        .output()
        .expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `diff BASE NEW --json ...extra`, exit status 0.
fn json_of(base: &str, new: &str, extra: &[&str]) -> Value {
    let mut args = vec![base, new, "--json", "--top", "0"];
    args.extend(extra);
    let o = diff(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

fn pair() -> (String, String) {
    (fixture("diff-base.json"), fixture("diff-new.json"))
}

fn group<'v>(v: &'v Value, key: &str) -> &'v Value {
    v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["key"] == key)
        .unwrap_or_else(|| panic!("no group {key} in {v}"))
}

fn keys(v: &Value) -> Vec<String> {
    v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap().to_string())
        .collect()
}

const MS: i64 = 1_000_000;

#[test]
fn by_name_every_number_as_computed_by_hand() {
    let (b, n) = pair();
    let v = json_of(&b, &n, &[]);
    assert_eq!(v["by"], "name");
    assert_eq!(v["base"][0]["file"], b.as_str());
    assert_eq!(v["base"][0]["slices"], 9);
    assert_eq!(v["new"][0]["duration_ns"], 35 * MS);
    assert_eq!(v["significance"], Value::Null);
    // Largest absolute change of total first; ties by key.
    assert_eq!(
        keys(&v),
        ["frame", "layout", "hydrate", "gc", "decode", "paint"]
    );
    assert_eq!(
        v["changes"],
        json!({"changed": 2, "added": 1, "removed": 1, "same": 2})
    );
    // frame: 10 + 12 ms, children 4 + 2 and 6 + 2 ms; new 13 + 15 ms, children
    // 7 + 2 and 9 + 2 ms.
    let frame = group(&v, "frame");
    assert_eq!(frame["change"], "changed");
    assert_eq!(frame["base"]["count"], 2);
    assert_eq!(frame["base"]["total_ns"], 22 * MS);
    assert_eq!(frame["base"]["self_ns"], 8 * MS);
    assert_eq!(frame["base"]["mean_ns"], 11 * MS);
    assert_eq!(frame["base"]["max_ns"], 12 * MS);
    // Nearest rank of [10, 12] ms: ranks ceil(1), ceil(1.9), ceil(1.98).
    assert_eq!(frame["base"]["p50_ns"], 10 * MS);
    assert_eq!(frame["base"]["p95_ns"], 12 * MS);
    assert_eq!(frame["base"]["p99_ns"], 12 * MS);
    assert_eq!(frame["new"]["p50_ns"], 13 * MS);
    assert_eq!(frame["delta"]["p50_ns"], 3 * MS);
    assert_eq!(frame["delta"]["p95_ns"], 3 * MS);
    assert_eq!(frame["new"]["total_ns"], 28 * MS);
    assert_eq!(frame["new"]["self_ns"], 8 * MS);
    assert_eq!(frame["delta"]["total_ns"], 6 * MS);
    assert_eq!(frame["delta"]["self_ns"], 0);
    assert_eq!(frame["delta"]["count"], 0);
    assert_eq!(frame["delta"]["max_ns"], 3 * MS);
    assert_eq!(frame["ratio"]["total_ns"], 28.0 / 22.0);
    assert_eq!(frame["significant"], Value::Null);
    let layout = group(&v, "layout");
    assert_eq!(layout["delta"]["total_ns"], 6 * MS);
    assert_eq!(layout["ratio"]["total_ns"], 1.6);
    assert_eq!(layout["new"]["mean_ns"], 8 * MS);
    // Added and removed: the absent side is null, sums change from or to zero.
    let added = group(&v, "hydrate");
    assert_eq!(added["change"], "added");
    assert_eq!(added["base"], Value::Null);
    assert_eq!(added["new"]["total_ns"], 2 * MS);
    assert_eq!(added["delta"]["total_ns"], 2 * MS);
    assert_eq!(added["delta"]["count"], 1);
    assert_eq!(added["delta"]["mean_ns"], Value::Null);
    assert_eq!(added["ratio"]["total_ns"], Value::Null);
    let removed = group(&v, "gc");
    assert_eq!(removed["change"], "removed");
    assert_eq!(removed["new"], Value::Null);
    assert_eq!(removed["delta"]["total_ns"], -MS);
    assert_eq!(group(&v, "paint")["change"], "same");
    assert_eq!(group(&v, "paint")["ratio"]["total_ns"], 1.0);
    // Counters: heap.used 10 then 30 from 16 ms to the end (32 ms): 20 on average;
    // new 10 then 50 from 16 to 35 ms: (10*16 + 50*19) / 35.
    let c = &v["counters"][0];
    assert_eq!(c["key"], "app/heap.used");
    assert_eq!(c["base"], json!({"min": 10.0, "max": 30.0, "avg": 20.0}));
    assert_eq!(c["new"]["avg"], (10.0 * 16.0 + 50.0 * 19.0) / 35.0);
    assert_eq!(c["delta"]["max"], 20.0);
    assert_eq!(v["gates"], json!([]));
    assert_eq!(v["failed"], false);
}

#[test]
fn functions_of_cpu_samples_self_and_total() {
    // Every sample weighs 100 µs. Base stacks: main; main>fib; main>fib>fib (twice);
    // (garbage collector). New: main>fib>fib four times.
    let v = json_of(
        &fixture("diff-profile-base.cpuprofile"),
        &fixture("diff-profile-new.cpuprofile"),
        &["--by", "function"],
    );
    assert_eq!(v["by"], "function");
    // Both main and fib grew by 200 µs: main (600 µs) before fib (500 µs).
    assert_eq!(keys(&v), ["(root)", "main", "fib", "(garbage collector)"]);
    const US: i64 = 1000;
    let fib = group(&v, "fib");
    // On the stack in 3 samples (the recursive call counted once), running in 3.
    assert_eq!(
        fib["base"],
        json!({"count": 3, "total_ns": 300 * US, "self_ns": 300 * US, "mean_ns": null,
               "p50_ns": null, "p95_ns": null, "p99_ns": null, "max_ns": null})
    );
    assert_eq!(fib["new"]["count"], 5);
    assert_eq!(fib["new"]["total_ns"], 500 * US);
    assert_eq!(fib["delta"]["self_ns"], 200 * US);
    let main = group(&v, "main");
    assert_eq!(main["base"]["total_ns"], 400 * US);
    assert_eq!(main["base"]["self_ns"], 100 * US);
    assert_eq!(main["delta"]["total_ns"], 200 * US);
    assert_eq!(main["delta"]["self_ns"], 0);
    assert_eq!(group(&v, "(garbage collector)")["change"], "same");
    // Without samples, slices are the calls: the numbers of `--by name`.
    let (b, n) = pair();
    let by_function = json_of(&b, &n, &["--by", "function"]);
    let by_name = json_of(&b, &n, &[]);
    assert_eq!(by_function["groups"], by_name["groups"]);
}

#[test]
fn threads_match_by_name_across_pids_and_tids() {
    let (b, n) = pair();
    // pid 100 tids 1 and 2 against pid 200 tids 7 and 9.
    let v = json_of(&b, &n, &["--by", "thread"]);
    assert_eq!(keys(&v), ["app/main", "app/worker"]);
    let main = group(&v, "app/main");
    assert_eq!(main["change"], "changed");
    // Every slice of the thread: 22 + 10 + 4 + 1 ms against 28 + 16 + 4 ms.
    assert_eq!(main["base"]["total_ns"], 37 * MS);
    assert_eq!(main["new"]["total_ns"], 48 * MS);
    assert_eq!(group(&v, "app/worker")["delta"]["total_ns"], 2 * MS);
}

/// A trace file in a temporary directory.
fn temp(dir: &tempfile::TempDir, name: &str, events: &[Value]) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, json!({ "traceEvents": events }).to_string()).unwrap();
    p.display().to_string()
}

fn meta(name: &str, pid: i64, tid: i64, arg: &str, value: &str) -> Value {
    json!({"ph": "M", "name": name, "pid": pid, "tid": tid, "args": {arg: value}})
}

fn slice(name: &str, pid: i64, tid: i64, ts: i64, dur: i64) -> Value {
    json!({"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur})
}

#[test]
fn equal_names_match_in_order_of_first_appearance() {
    let dir = tempfile::tempdir().unwrap();
    // Two "pool" threads and two "Renderer" processes told apart by labels; in
    // the new run the tids and pids differ and the second pool thread is written
    // first in the file only after the first.
    let base = temp(
        &dir,
        "base.json",
        &[
            meta("process_name", 10, 0, "name", "srv"),
            meta("thread_name", 10, 3, "name", "pool"),
            meta("thread_name", 10, 4, "name", "pool"),
            meta("process_name", 20, 0, "name", "Renderer"),
            meta("process_labels", 20, 0, "labels", "a.com"),
            meta("process_name", 21, 0, "name", "Renderer"),
            meta("process_labels", 21, 0, "labels", "b.com"),
            slice("a", 10, 3, 0, 1000),
            slice("a", 10, 4, 0, 2000),
            slice("r", 20, 1, 0, 1000),
            slice("r", 21, 1, 0, 5000),
        ],
    );
    let new = temp(
        &dir,
        "new.json",
        &[
            meta("process_name", 77, 0, "name", "srv"),
            meta("thread_name", 77, 9, "name", "pool"),
            meta("thread_name", 77, 8, "name", "pool"),
            meta("process_name", 31, 0, "name", "Renderer"),
            meta("process_labels", 31, 0, "labels", "b.com"),
            meta("process_name", 30, 0, "name", "Renderer"),
            meta("process_labels", 30, 0, "labels", "a.com"),
            slice("a", 77, 9, 0, 1500),
            slice("a", 77, 8, 0, 2000),
            slice("r", 31, 1, 0, 5000),
            slice("r", 30, 1, 0, 3000),
        ],
    );
    let v = json_of(&base, &new, &["--by", "thread"]);
    assert_eq!(
        keys(&v),
        [
            "Renderer [a.com]/tid 1",
            "srv/pool",
            "Renderer [b.com]/tid 1",
            "srv/pool#2"
        ]
    );
    assert_eq!(
        group(&v, "Renderer [a.com]/tid 1")["delta"]["total_ns"],
        2_000_000
    );
    assert_eq!(group(&v, "srv/pool")["delta"]["total_ns"], 500_000);
    assert_eq!(group(&v, "srv/pool#2")["change"], "same");
    assert_eq!(group(&v, "Renderer [b.com]/tid 1")["change"], "same");
}

#[test]
fn kineto_runs_matched_and_compared() {
    let (b, n) = (fixture("kineto-base.json"), fixture("kineto-new.json"));
    let v = json_of(&b, &n, &[]);
    // The GEMM kernel: 6 launches (3 forward, 3 backward) of 200 µs, now 260 µs.
    let gemm = group(&v, "volta_sgemm_128x64_nn");
    assert_eq!(v["groups"][0]["key"], "volta_sgemm_128x64_nn");
    assert_eq!(gemm["base"]["count"], 6);
    assert_eq!(gemm["base"]["total_ns"], 1_200_000);
    assert_eq!(gemm["new"]["total_ns"], 1_560_000);
    assert_eq!(gemm["ratio"]["total_ns"], 1.3);
    assert_eq!(group(&v, "aten::dropout")["change"], "added");
    assert_eq!(group(&v, "fused_dropout_kernel_vec")["change"], "added");
    assert_eq!(group(&v, "aten::addmm")["delta"]["total_ns"], 30_000);
    assert_eq!(group(&v, "ProfilerStep#3")["change"], "changed");
    assert_eq!(group(&v, "ProfilerStep#3")["delta"]["total_ns"], 0);
    assert_eq!(group(&v, "cudaLaunchKernel")["delta"]["count"], 3);
    // Threads: pids 2856/3011, tids differ; kineto's names spell the tid.
    let v = json_of(&b, &n, &["--by", "thread"]);
    assert_eq!(
        keys(&v),
        [
            "python [GPU 0]/stream 7",
            "python [CPU]/thread * (python)",
            "python [CPU]/thread * (pt_autograd_0)"
        ]
    );
    assert_eq!(v["changes"]["added"], 0);
    assert_eq!(v["changes"]["removed"], 0);
    // Stream 7: every kernel and memcpy; the GEMMs add 6 x 60 µs, dropout 3 x 15 µs.
    assert_eq!(
        group(&v, "python [GPU 0]/stream 7")["delta"]["total_ns"],
        405_000
    );
    let v = json_of(&b, &n, &["--by", "category"]);
    assert_eq!(v["groups"][0]["key"], "kernel");
    assert_eq!(v["groups"][0]["ratio"]["total_ns"], 1.3);
    assert_eq!(group(&v, "gpu_memcpy")["change"], "same");
}

/// `diff BASE NEW --fail-on RULE...`: exit status and standard error.
fn gated(rules: &[&str]) -> (Option<i32>, String) {
    let (b, n) = pair();
    let mut args: Vec<&str> = vec![&b, &n];
    for r in rules {
        args.extend(["--fail-on", r]);
    }
    let o = diff(&args);
    (o.status.code(), stderr(&o))
}

#[test]
fn gates_every_form_and_their_exit_status() {
    // Percent on every group: frame +27.3%, layout +60%.
    let (code, err) = gated(&["total>+10%"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "tracescope: gate total>+10% failed: frame: total base 22.0 ms, new 28.0 ms (+6.00 ms, +27.3%)\n\
         tracescope: gate total>+10% failed: layout: total base 10.0 ms, new 16.0 ms (+6.00 ms, +60.0%)\n"
    );
    assert_eq!(gated(&["total>+60%"]).0, Some(0));
    assert_eq!(gated(&["total>+59.9%"]).0, Some(1));
    // One group's metric (a key with colons of its own is fine, see the unit tests).
    assert_eq!(gated(&["frame:total>+30%"]).0, Some(0));
    assert_eq!(gated(&["frame:total>+27%"]).0, Some(1));
    assert_eq!(gated(&["frame:mean>+2ms"]).0, Some(1));
    assert_eq!(gated(&["frame:mean>+3ms"]).0, Some(0));
    // An amount counts an absent side as zero: hydrate (added, 2 ms) fails +1.5ms.
    let (code, err) = gated(&["hydrate:total>+1500us"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("hydrate: total base -, new 2.00 ms (+2.00 ms, new)"),
        "{err}"
    );
    // ... a percentage needs a base: the added group does not fail it.
    assert_eq!(gated(&["hydrate:total>+1%"]).0, Some(0));
    // Count: a number or a percentage.
    assert_eq!(gated(&["count>+0"]).0, Some(1)); // hydrate: 0 -> 1
    assert_eq!(gated(&["count>+1"]).0, Some(0));
    assert_eq!(gated(&["count>+0%"]).0, Some(0));
    // self, max, mean, and the self of layout.
    assert_eq!(gated(&["self>+5ms"]).0, Some(1));
    assert_eq!(gated(&["self>+6ms"]).0, Some(0));
    assert_eq!(gated(&["max>+2.5ms"]).0, Some(1));
    assert_eq!(gated(&["max>+3ms"]).0, Some(0));
    // Several rules: each failure listed, one exit status.
    let (code, err) = gated(&["layout:self>+1s", "layout:total>+50%"]);
    assert_eq!(code, Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn gates_in_json_and_markdown() {
    let (b, n) = pair();
    let v = {
        let o = diff(&[
            &b,
            &n,
            "--json",
            "--fail-on",
            "total>+10%",
            "--fail-on",
            "p95>+1s",
        ]);
        assert_eq!(o.status.code(), Some(1));
        serde_json::from_slice::<Value>(&o.stdout).unwrap()
    };
    assert_eq!(v["failed"], true);
    assert_eq!(v["gates"][0]["rule"], "total>+10%");
    assert_eq!(v["gates"][0]["key"], Value::Null);
    assert_eq!(v["gates"][0]["metric"], "total");
    assert_eq!(v["gates"][0]["failed"], true);
    assert_eq!(
        v["gates"][0]["groups"][1],
        json!({"key": "layout", "base": 10 * MS, "new": 16 * MS, "delta": 6 * MS, "ratio": 1.6})
    );
    assert_eq!(v["gates"][1]["failed"], false);
    assert_eq!(v["gates"][1]["groups"], json!([]));
}

#[test]
fn bad_rules_exit_2_saying_what_was_expected() {
    for (rule, why) in [
        ("total>10", "a duration needs a unit"),
        ("speed>+1%", "unknown metric \"speed\""),
        ("total<+1%", "no '>'"),
        ("total>+-3%", "positive amount"),
        ("total>+3 weeks", "unknown time unit"),
        (":total>+1%", "empty KEY"),
        ("count>+2ms", "a count limit is a number or a percentage"),
    ] {
        let (code, err) = gated(&[rule]);
        assert_eq!(code, Some(2), "{rule}: {err}");
        assert!(err.contains(why), "{rule}: {err}");
        assert!(err.contains("expected [KEY:]METRIC>+N%"), "{rule}: {err}");
    }
    let (code, err) = gated(&["nosuch:total>+1%"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("no group \"nosuch\" in the base or the new runs (groups are by name"),
        "{err}"
    );
}

#[test]
fn unreadable_input_exits_2_naming_the_file() {
    let (b, _) = pair();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json").display().to_string();
    let o = diff(&[&b, &missing]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&missing), "{}", stderr(&o));
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "this is not a trace").unwrap();
    let garbage = garbage.display().to_string();
    let o = diff(&["--base", &b, "--base", &b, "--new", &b, "--new", &garbage]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&garbage), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
    // Usage: one file, or both forms at once.
    assert_eq!(diff(&[&b]).status.code(), Some(2));
    assert_eq!(diff(&[&b, &b, "--base", &b]).status.code(), Some(2));
    assert_eq!(diff(&["--base", &b]).status.code(), Some(2));
}

#[test]
fn markdown_for_a_pull_request() {
    let (b, n) = pair();
    let o = diff(&[
        &b,
        &n,
        "--markdown",
        "--top",
        "3",
        "--fail-on",
        "layout:total>+50%",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let want = format!(
        "### tracescope diff by name: 2 changed, 1 added, 1 removed, 2 same\n\
         \n\
         base `{b}` · new `{n}` · largest change of total first\n\
         \n\
         |  | name | change | count | total base | total new | Δ total | Δ % | Δ self | mean | p95 |\n\
         |:--|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|\n\
         |  | `frame` | changed | 2 | 22.0 ms | 28.0 ms | +6.00 ms | +27.3% | 0 ns | 11.0 ms → 14.0 ms | 12.0 ms → 15.0 ms |\n\
         | ❌ | `layout` | changed | 2 | 10.0 ms | 16.0 ms | +6.00 ms | +60.0% | +6.00 ms | 5.00 ms → 8.00 ms | 6.00 ms → 9.00 ms |\n\
         |  | `hydrate` | added | - → 1 | - | 2.00 ms | +2.00 ms | new | +2.00 ms | - → 2.00 ms | - → 2.00 ms |\n\
         \n\
         … 3 more groups (--top 0 shows all)\n\
         \n\
         **Gates**\n\
         \n\
         - ❌ `layout:total>+50%` failed on `layout`\n\
         \n\
         <details><summary>1 counter series changed</summary>\n\
         \n\
         | counter | min | max | avg | Δ avg % |\n\
         |:--|--:|--:|--:|--:|\n\
         | `app/heap.used` | 10 → 10 | 30 → 50 | 20 → 31.7143 | +58.6% |\n\
         </details>\n"
    );
    assert_eq!(stdout(&o), want);
}

/// Deterministic noise in [-1, 1) (SplitMix64).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((z >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Five runs a side of 22 groups of 10 slices each. Every group's slices in a
/// run take 1 ms times one factor that varies by 5% from run to run; `slower`
/// takes 30% more in the new runs; `jittery` varies by 40% and takes 20% more.
fn noisy_runs(dir: &tempfile::TempDir) -> (Vec<String>, Vec<String>) {
    let mut noise = Noise(42);
    let mut names: Vec<String> = (0..20).map(|k| format!("steady{k:02}")).collect();
    names.extend(["slower".to_string(), "jittery".to_string()]);
    let mut side = |label: &str| -> Vec<String> {
        (0..5)
            .map(|r| {
                let mut events = Vec::new();
                for (g, name) in names.iter().enumerate() {
                    let spread = if name == "jittery" { 0.4 } else { 0.05 };
                    let mut factor = 1.0 + spread * noise.next();
                    if label == "new" && name == "slower" {
                        factor *= 1.3;
                    }
                    if label == "new" && name == "jittery" {
                        factor *= 1.2;
                    }
                    for k in 0..10 {
                        let ts = (g * 10 + k) as i64 * 2000;
                        events.push(slice(name, 1, 1, ts, (1000.0 * factor).round() as i64));
                    }
                }
                temp(dir, &format!("{label}{r}.json"), &events)
            })
            .collect()
    };
    let base = side("base");
    let new = side("new");
    (base, new)
}

fn sides_args<'a>(base: &'a [String], new: &'a [String]) -> Vec<&'a str> {
    let mut args = Vec::new();
    for b in base {
        args.extend(["--base", b.as_str()]);
    }
    for n in new {
        args.extend(["--new", n.as_str()]);
    }
    args
}

#[test]
fn significance_over_noisy_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (base, new) = noisy_runs(&dir);
    let mut args = sides_args(&base, &new);
    args.extend(["--json", "--top", "0"]);
    let o = diff(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["significance"], "welch-holm");
    assert_eq!(v["base"].as_array().unwrap().len(), 5);
    let significant: Vec<&str> = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["significant"] == true)
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    assert_eq!(significant, ["slower"]);
    let slower = group(&v, "slower");
    assert!(slower["p_value"].as_f64().unwrap() < 0.001, "{slower}");
    let ratio = slower["ratio"]["total_ns"].as_f64().unwrap();
    assert!((1.2..1.4).contains(&ratio), "{ratio}");
    // Per-run numbers and their spread.
    assert_eq!(slower["base_runs"].as_array().unwrap().len(), 5);
    assert_eq!(slower["base_runs"][0]["count"], 10);
    let sd = slower["base_sd"]["total_ns"].as_f64().unwrap();
    assert!(sd > 0.0 && sd < 1_000_000.0, "{sd}");
    // Every group was tested: none of the steady ones is significant.
    for k in 0..20 {
        let g = group(&v, &format!("steady{k:02}"));
        assert_eq!(g["significant"], false, "{g}");
    }
    assert_eq!(group(&v, "jittery")["significant"], false);
    // With several runs only a significant change fails a gate: `jittery` grew by
    // about 20% but within its noise.
    let mut args = sides_args(&base, &new);
    args.extend(["--fail-on", "total>+10%"]);
    let o = diff(&args);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("failed: slower: total"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
