//! Throughput of `read_json` on a realistic generated trace (~80 MB in memory) into a
//! sink that only counts events: the reader's own cost, without the model's.
//!
//! Run: `cargo bench -p tracescope-format --bench read_json` (`TRACESCOPE_BENCH_MB=16` for
//! another size).
//!
//! Before criterion's wall-clock runs it prints throughput per CPU-second (process CPU
//! time from `/proc/self/stat`), which stays meaningful when other jobs share the
//! machine and wall-clock numbers do not.

use std::time::Instant;

use criterion::{Criterion, Throughput};
use tracescope_format::json::{read_json, EventSink, ReadOptions};
use tracescope_format::{Diagnostics, Event};

/// A small deterministic generator (xorshift), so every run reads the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const NAMES: &[&str] = &[
    "MessageLoop::RunTask",
    "ThreadControllerImpl::RunTask",
    "v8.compile",
    "FunctionCall",
    "Layout",
    "UpdateLayoutTree",
    "Paint",
    "ResourceSendRequest",
    "ParseHTML",
    "EventDispatch",
];
const CATS: &[&str] = &[
    "toplevel",
    "v8",
    "blink,devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "loading",
];
const URLS: &[&str] = &[
    "https://www.example.com/static/js/main.8f3a2c1e.chunk.js",
    "https://fonts.gstatic.com/s/roboto/v30/KFOmCnqEu92Fr1Mu4mxK.woff2",
    "chrome-extension://abcdefghijklmnop/background.js",
];

/// `args` of 100-300 bytes with nested objects, arrays, escapes and numbers.
fn args(r: &mut Rng) -> String {
    match r.below(4) {
        0 => format!(
            r#"{{"data":{{"frame":"F{:016X}","url":"{}","lineNumber":{},"columnNumber":{},"functionName":"render\"Item\"","scriptId":"{}"}}}}"#,
            r.next(),
            URLS[r.below(3) as usize],
            r.below(5000),
            r.below(200),
            r.below(900)
        ),
        1 => format!(
            r#"{{"src_file":"../../base/task/sequence_manager/thread_controller_impl.cc","src_func":"DoWork","stack":[{},{},{}],"ok":true,"ratio":{}.{}}}"#,
            r.below(1 << 20),
            r.below(1 << 20),
            r.below(1 << 20),
            r.below(100),
            r.below(1000)
        ),
        2 => format!(
            r#"{{"beginData":{{"frames":[{{"frame":"{:X}","name":"","processId":{}}}],"stackTrace":null}},"elementCount":{},"note":"a \\ path\\to\\file"}}"#,
            r.next(),
            r.below(70000),
            r.below(100)
        ),
        _ => format!(
            r#"{{"data":{{"requestId":"{}.{}","priority":"VeryHigh","renderBlocking":"non_blocking","url":"{}","requestMethod":"GET"}}}}"#,
            r.below(100000),
            r.below(100),
            URLS[r.below(3) as usize]
        ),
    }
}

/// A trace in the object form of about `target` bytes.
fn trace(target: usize) -> String {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut s = String::with_capacity(target + 4096);
    s.push_str("{\"traceEvents\":[\n");
    let mut ts: u64 = 1_000_000_000;
    let mut first = true;
    while s.len() < target {
        if !first {
            s.push_str(",\n");
        }
        first = false;
        ts += r.below(50);
        let pid = 1000 + r.below(4);
        let tid = pid * 10 + r.below(6);
        let name = NAMES[r.below(NAMES.len() as u64) as usize];
        let cat = CATS[r.below(CATS.len() as u64) as usize];
        let frac = r.below(1000);
        let common =
            format!(r#""pid":{pid},"tid":{tid},"ts":{ts}.{frac:03},"cat":"{cat}","name":"{name}""#);
        let ev = match r.below(20) {
            0..=7 => format!(
                r#"{{"ph":"X",{common},"dur":{}.{},"tdur":{},"tts":{},"args":{}}}"#,
                r.below(5000),
                r.below(10),
                r.below(5000),
                ts / 3,
                args(&mut r)
            ),
            8 | 9 => format!(r#"{{"ph":"B",{common},"args":{}}}"#, args(&mut r)),
            10 | 11 => format!(r#"{{"ph":"E",{common},"args":{{}}}}"#),
            12 | 13 => format!(r#"{{"ph":"i",{common},"s":"t","args":{}}}"#, args(&mut r)),
            14 => format!(
                r#"{{"ph":"C",{common},"args":{{"value":{},"size":{}}}}}"#,
                r.below(1 << 30),
                r.below(4096)
            ),
            15 => format!(
                r#"{{"ph":"b",{common},"id":"0x{:x}","args":{}}}"#,
                r.below(1 << 40),
                args(&mut r)
            ),
            16 => format!(
                r#"{{"ph":"e",{common},"id":"0x{:x}","args":{{}}}}"#,
                r.below(1 << 40)
            ),
            17 => format!(
                r#"{{"ph":"s",{common},"id":{},"bind_id":"0x{:x}","flow_out":true}}"#,
                r.below(1 << 20),
                r.next()
            ),
            18 => format!(
                r#"{{"ph":"f",{common},"id":{},"bp":"e"}}"#,
                r.below(1 << 20)
            ),
            _ => format!(r#"{{"ph":"M",{common},"args":{{"name":"CrRendererMain"}}}}"#),
        };
        s.push_str(&ev);
    }
    s.push_str("\n],\"displayTimeUnit\":\"ms\",\"metadata\":{\"clock-domain\":\"LINUX_CLOCK_MONOTONIC\"}}\n");
    s
}

struct Count(u64);

impl<'a> EventSink<'a> for Count {
    fn event(&mut self, event: Event<'a>, _: &mut Diagnostics) {
        self.0 += 1;
        std::hint::black_box(event);
    }
}

fn read(text: &str, threads: usize) -> u64 {
    let t = read_json(
        text,
        || Count(0),
        &ReadOptions {
            threads,
            ..ReadOptions::default()
        },
    )
    .unwrap();
    let n: u64 = t.parts.iter().map(|p| p.0).sum();
    assert_eq!(n, t.events);
    n
}

/// CPU time of the whole process (all threads), in seconds.
fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 Hz on Linux).
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

fn cpu_report(text: &str) {
    let mb = text.len() as f64 / 1e6;
    for (label, threads) in [("1-thread", 1), ("all-cores", 0)] {
        let runs = 8;
        let (wall, cpu) = (Instant::now(), process_cpu_seconds());
        for _ in 0..runs {
            std::hint::black_box(read(text, threads));
        }
        let wall = wall.elapsed().as_secs_f64();
        let cpu = process_cpu_seconds()
            .zip(cpu)
            .map_or(f64::NAN, |(b, a)| b - a);
        println!(
            "read_json/{label}: {mb:.0} MB x {runs}: {:.0} MB/s wall, {:.0} MB per CPU-second, {:.2} CPUs busy",
            mb * runs as f64 / wall,
            mb * runs as f64 / cpu,
            cpu / wall
        );
    }
}

fn bench(c: &mut Criterion, text: &str) {
    let mut g = c.benchmark_group("read_json");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(10);
    for (label, threads) in [("all-cores", 0), ("1-thread", 1)] {
        g.bench_function(label, |b| b.iter(|| read(text, threads)));
    }
    g.finish();
}

fn main() {
    // TRACESCOPE_BENCH_MB picks another size (a small one helps when profiling).
    let mb = std::env::var("TRACESCOPE_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(80);
    let text = trace(mb << 20);
    if std::env::args().any(|a| a == "--bench") {
        cpu_report(&text);
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &text);
    c.final_summary();
}
