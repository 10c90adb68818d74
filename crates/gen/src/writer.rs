//! The generator: Chrome-like event streams on several processes and threads.

use std::io::{self, Write};

pub enum Limit {
    Bytes(u64),
    Events(u64),
}

pub struct Stats {
    pub bytes: u64,
    pub events: u64,
}

/// xorshift64*: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const NAMES: &[&str] = &[
    "RunTask",
    "ThreadControllerImpl::RunTask",
    "v8.run",
    "V8.Execute",
    "FunctionCall",
    "EvaluateScript",
    "v8.compile",
    "Layout",
    "UpdateLayoutTree",
    "Paint",
    "PaintImage",
    "CompositeLayers",
    "ParseHTML",
    "MessageLoop::RunTask",
    "SimpleWatcher::OnHandleReady",
    "ResourceDispatcher::OnRequestComplete",
    "Blink.ForcedStyleAndLayout.UpdateTime",
    "GPUTask",
    "CommandBufferStub::OnAsyncFlush",
    "Scheduler::BeginFrame",
    "LayerTreeHost::UpdateLayers",
    "ProxyMain::BeginMainFrame",
    "TimerFire",
    "XHRReadyStateChange",
    "MinorGC",
    "MajorGC",
    "V8.GC_SCAVENGER",
    "HitTest",
    "EventDispatch",
    "Animation Frame Fired",
];
const CATS: &[&str] = &[
    "toplevel",
    "v8",
    "blink",
    "cc",
    "gpu",
    "disabled-by-default-devtools.timeline",
    "devtools.timeline,rail",
    "loading",
    "ipc,toplevel",
    "benchmark,rail",
];
const URLS: &[&str] = &[
    "https://example.com/static/js/app.bundle.js?v=8c1f2e",
    "https://cdn.example.net/vendor/react-dom.production.min.js",
    "chrome-extension://abcdefghijklmnop/content.js",
    "https://example.com/",
    "file:///home/user/project/index.mjs",
];

#[derive(Clone, Copy)]
struct Thread {
    pid: u64,
    tid: u64,
    name: &'static str,
    clock_ns: u64,
    tts_ns: u64,
}

struct Gen<'w, W: Write> {
    w: &'w mut W,
    rng: Rng,
    bytes: u64,
    events: u64,
    first: bool,
    buf: String,
    next_id: u64,
}

impl<W: Write> Gen<'_, W> {
    fn emit(&mut self) -> io::Result<()> {
        let sep = if self.first { "\n" } else { ",\n" };
        self.first = false;
        self.w.write_all(sep.as_bytes())?;
        self.w.write_all(self.buf.as_bytes())?;
        self.bytes += (sep.len() + self.buf.len()) as u64;
        self.events += 1;
        self.buf.clear();
        Ok(())
    }

    /// Microseconds with up to 3 decimals, as Chrome and Perfetto write them.
    fn us(ns: u64) -> String {
        if ns.is_multiple_of(1000) {
            format!("{}", ns / 1000)
        } else {
            format!("{}.{:03}", ns / 1000, ns % 1000)
        }
    }

    fn args(&mut self) -> String {
        use std::fmt::Write as _;
        let mut a = String::new();
        match self.rng.below(6) {
            0 => a.push_str("{}"),
            1 => {
                let _ = write!(
                    a,
                    r#"{{"src_file":"../../base/task/sequence_manager/task_queue.cc","src_func":"PostTask","sequence_number":{}}}"#,
                    self.rng.below(1 << 40)
                );
            }
            2 => {
                let url = self.rng.pick(URLS);
                let _ = write!(
                    a,
                    r#"{{"data":{{"frame":"F2145804653F1B7DEB75E1AA45F3EB51","url":"{url}","lineNumber":{},"columnNumber":{},"functionName":"render\"Frame\"\n","scriptId":"{}"}}}}"#,
                    self.rng.below(5000),
                    self.rng.below(200),
                    self.rng.below(900)
                );
            }
            3 => {
                let _ = write!(
                    a,
                    r#"{{"beginData":{{"dirtyObjects":{},"partialLayout":false,"totalObjects":{},"frame":"0x{:x}","stackTrace":[{{"functionName":"layout","url":"{}","lineNumber":{}}}]}}}}"#,
                    self.rng.below(400),
                    self.rng.below(10000),
                    self.rng.next() >> 16,
                    self.rng.pick(URLS),
                    self.rng.below(900)
                );
            }
            4 => {
                let _ = write!(
                    a,
                    r#"{{"usedHeapSizeBefore":{},"usedHeapSizeAfter":{},"type":"scavenge","ratio":0.{}}}"#,
                    self.rng.below(1 << 30),
                    self.rng.below(1 << 30),
                    self.rng.below(1000)
                );
            }
            _ => {
                let _ = write!(
                    a,
                    r#"{{"chrome_task_annotator":{{"ipc_hash":{},"task_id":"{}"}},"id":{}}}"#,
                    self.rng.below(1 << 32),
                    self.rng.next(),
                    self.rng.below(100_000)
                );
            }
        }
        a
    }

    fn x(&mut self, t: &Thread, name: &str, ts: u64, dur: u64, extra: &str) -> io::Result<()> {
        use std::fmt::Write as _;
        let cat = self.rng.pick(CATS);
        let args = self.args();
        let tdur = dur * (50 + self.rng.below(50)) / 100;
        let _ = write!(
            self.buf,
            r#"{{"args":{args},"cat":"{cat}","dur":{},"name":"{name}","ph":"X","pid":{},"tdur":{},"tid":{},"ts":{},"tts":{}{extra}}}"#,
            Self::us(dur),
            t.pid,
            Self::us(tdur),
            t.tid,
            Self::us(ts),
            Self::us(t.tts_ns)
        );
        self.emit()
    }

    /// A nested task: children written before their parent, as Chrome writes `X`.
    fn tree(
        &mut self,
        t: &mut Thread,
        start: u64,
        dur: u64,
        depth: u32,
        max_depth: u32,
    ) -> io::Result<()> {
        if depth < max_depth && dur > 4000 {
            let kids = 1 + self.rng.below(3);
            let slot = dur / (kids + 1);
            for k in 0..kids {
                let cs = start + slot / 2 + k * slot + self.rng.below(slot / 4 + 1);
                let cd = slot / 2 + self.rng.below(slot / 3 + 1);
                self.tree(t, cs, cd.min(start + dur - cs), depth + 1, max_depth)?;
            }
        }
        let name = self.rng.pick(NAMES);
        let flow = if depth == 0 && self.rng.chance(5) {
            self.next_id += 1;
            let dir = if self.rng.chance(50) {
                "flow_out"
            } else {
                "flow_in"
            };
            format!(r#","bind_id":"0x{:x}","{dir}":true"#, self.next_id / 2)
        } else {
            String::new()
        };
        self.x(t, name, start, dur, &flow)
    }

    fn other_events(&mut self, t: &Thread, now: u64) -> io::Result<()> {
        use std::fmt::Write as _;
        let (pid, tid, ts) = (t.pid, t.tid, Self::us(now));
        let cat = self.rng.pick(CATS);
        match self.rng.below(20) {
            0..=3 => {
                let s = ["t", "p", "g"][self.rng.below(3) as usize];
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{}},"cat":"{cat}","name":"InputLatency::MouseMove","ph":"i","pid":{pid},"s":"{s}","tid":{tid},"ts":{ts}}}"#
                );
            }
            4..=8 => {
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{"jsHeapSizeUsed":{},"documents":{},"nodes":{}}},"cat":"disabled-by-default-devtools.timeline","name":"UpdateCounters","ph":"C","pid":{pid},"tid":{tid},"ts":{ts}}}"#,
                    self.rng.below(1 << 31),
                    self.rng.below(20),
                    self.rng.below(100_000)
                );
            }
            9..=11 => {
                self.next_id += 1;
                let id = self.next_id;
                let name = self.rng.pick(&[
                    "ResourceLoad",
                    "Navigation",
                    "PipelineReporter",
                    "LatencyInfo.Flow",
                ]);
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{"url":"{}"}},"cat":"loading","id2":{{"local":"0x{id:x}"}},"name":"{name}","ph":"b","pid":{pid},"tid":{tid},"ts":{ts}}}"#,
                    self.rng.pick(URLS)
                );
                self.emit()?;
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{}},"cat":"loading","id2":{{"local":"0x{id:x}"}},"name":"{name}","ph":"n","pid":{pid},"tid":{tid},"ts":{}}}"#,
                    Self::us(now + 200)
                );
                self.emit()?;
                let end = Self::us(now + 500 + self.rng.below(2_000_000));
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{"status":200}},"cat":"loading","id2":{{"local":"0x{id:x}"}},"name":"{name}","ph":"e","pid":{pid},"tid":{tid},"ts":{end}}}"#
                );
            }
            12..=13 => {
                self.next_id += 1;
                let id = self.next_id;
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{}},"cat":"ipc","id":"0x{id:x}","name":"IPC","ph":"s","pid":{pid},"tid":{tid},"ts":{ts}}}"#
                );
                self.emit()?;
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{}},"bp":"e","cat":"ipc","id":"0x{id:x}","name":"IPC","ph":"f","pid":{pid},"tid":{tid},"ts":{}}}"#,
                    Self::us(now + 100)
                );
            }
            14 => {
                self.next_id += 1;
                let id = self.next_id;
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{}},"cat":"cc","id":"0x{id:x}","name":"cc::LayerImpl","ph":"N","pid":{pid},"tid":{tid},"ts":{ts}}}"#
                );
                self.emit()?;
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{"snapshot":{{"bounds":{{"width":{},"height":{}}},"layer_id":{id},"draws_content":true}}}},"cat":"cc","id":"0x{id:x}","name":"cc::LayerImpl","ph":"O","pid":{pid},"tid":{tid},"ts":{}}}"#,
                    self.rng.below(2000),
                    self.rng.below(2000),
                    Self::us(now + 10)
                );
                self.emit()?;
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{}},"cat":"cc","id":"0x{id:x}","name":"cc::LayerImpl","ph":"D","pid":{pid},"tid":{tid},"ts":{}}}"#,
                    Self::us(now + 50)
                );
            }
            15..=17 => {
                let name = self.rng.pick(NAMES);
                let a = self.args();
                let _ = write!(
                    self.buf,
                    r#"{{"args":{a},"cat":"{cat}","name":"{name}","ph":"B","pid":{pid},"tid":{tid},"ts":{ts}}}"#
                );
                self.emit()?;
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{}},"cat":"{cat}","name":"{name}","ph":"E","pid":{pid},"tid":{tid},"ts":{}}}"#,
                    Self::us(now + 30)
                );
            }
            _ => {
                let samples: Vec<String> = (0..100)
                    .map(|_| (2 + self.rng.below(6)).to_string())
                    .collect();
                let deltas: Vec<String> = (0..100)
                    .map(|_| (100 + self.rng.below(50)).to_string())
                    .collect();
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{"data":{{"cpuProfile":{{"samples":[{}]}},"timeDeltas":[{}]}}}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x{pid:x}","name":"ProfileChunk","ph":"P","pid":{pid},"tid":{tid},"ts":{ts}}}"#,
                    samples.join(","),
                    deltas.join(",")
                );
            }
        }
        self.emit()
    }

    fn metadata(&mut self, threads: &[Thread]) -> io::Result<()> {
        use std::fmt::Write as _;
        let mut seen = Vec::new();
        for t in threads {
            if !seen.contains(&t.pid) {
                seen.push(t.pid);
                let pname = match t.pid {
                    1000 => "Browser",
                    3000 => "GPU Process",
                    _ => "Renderer",
                };
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{"name":"{pname}"}},"cat":"__metadata","name":"process_name","ph":"M","pid":{},"tid":{},"ts":0}}"#,
                    t.pid, t.tid
                );
                self.emit()?;
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{"sort_index":{}}},"cat":"__metadata","name":"process_sort_index","ph":"M","pid":{},"tid":{},"ts":0}}"#,
                    t.pid % 7,
                    t.pid,
                    t.tid
                );
                self.emit()?;
                // The profile the chunks of this process stream into, on its main thread.
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{"data":{{"startTime":1000}}}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x{pid:x}","name":"Profile","ph":"P","pid":{pid},"tid":{tid},"ts":1000}}"#,
                    pid = t.pid,
                    tid = t.tid
                );
                self.emit()?;
                let nodes = r#"[{"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"id":1},{"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"id":2,"parent":1},{"callFrame":{"functionName":"main","scriptId":"7","url":"https://example.com/app.js","lineNumber":10,"columnNumber":4},"id":3,"parent":1},{"callFrame":{"functionName":"render","scriptId":"7","url":"https://example.com/app.js","lineNumber":80,"columnNumber":2},"id":4,"parent":3},{"callFrame":{"functionName":"layout","scriptId":"7","url":"https://example.com/app.js","lineNumber":120,"columnNumber":9},"id":5,"parent":4},{"callFrame":{"functionName":"paint","scriptId":"7","url":"https://example.com/app.js","lineNumber":200,"columnNumber":1},"id":6,"parent":4},{"callFrame":{"functionName":"gc","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"id":7,"parent":1}]"#;
                let _ = write!(
                    self.buf,
                    r#"{{"args":{{"data":{{"cpuProfile":{{"nodes":{nodes}}}}}}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x{pid:x}","name":"ProfileChunk","ph":"P","pid":{pid},"tid":{tid},"ts":1000}}"#,
                    pid = t.pid,
                    tid = t.tid
                );
                self.emit()?;
            }
            let _ = write!(
                self.buf,
                r#"{{"args":{{"name":"{}"}},"cat":"__metadata","name":"thread_name","ph":"M","pid":{},"tid":{},"ts":0}}"#,
                t.name, t.pid, t.tid
            );
            self.emit()?;
        }
        Ok(())
    }
}

fn threads() -> Vec<Thread> {
    let spec: &[(u64, &[&'static str])] = &[
        (
            1000,
            &[
                "CrBrowserMain",
                "Chrome_IOThread",
                "ThreadPoolForegroundWorker",
                "ThreadPoolBackgroundWorker",
            ],
        ),
        (
            2000,
            &[
                "CrRendererMain",
                "Compositor",
                "ThreadPoolForegroundWorker",
                "DedicatedWorker thread",
            ],
        ),
        (
            2001,
            &["CrRendererMain", "Compositor", "Chrome_ChildIOThread"],
        ),
        (
            3000,
            &[
                "CrGpuMain",
                "VizCompositorThread",
                "ThreadPoolForegroundWorker",
            ],
        ),
    ];
    let mut out = Vec::new();
    for &(pid, names) in spec {
        for (k, &name) in names.iter().enumerate() {
            out.push(Thread {
                pid,
                tid: 1_004_024_184 + pid * 100 + k as u64,
                name,
                clock_ns: 1_000_000,
                tts_ns: 0,
            });
        }
    }
    out
}

pub fn generate<W: Write>(w: &mut W, limit: Limit, seed: u64) -> io::Result<Stats> {
    let mut g = Gen {
        w,
        rng: Rng(seed.max(1) * 0x9E37_79B9_7F4A_7C15),
        bytes: 0,
        events: 0,
        first: true,
        buf: String::new(),
        next_id: 0,
    };
    let head = "{\"traceEvents\":[";
    g.w.write_all(head.as_bytes())?;
    g.bytes += head.len() as u64;
    let mut threads = threads();
    g.metadata(&threads)?;
    let done = |g: &Gen<'_, W>| match limit {
        Limit::Bytes(b) => g.bytes + 64 >= b,
        Limit::Events(n) => g.events >= n,
    };
    while !done(&g) {
        let k = g.rng.below(threads.len() as u64) as usize;
        let t = &mut threads[k];
        let gap = 1000 + g.rng.below(50_000);
        let dur = 5_000 + g.rng.below(2_000_000);
        let start = t.clock_ns + gap;
        // Mostly shallow tasks, some deep stacks (up to 40 levels).
        let max_depth = if g.rng.chance(5) {
            20 + g.rng.below(20) as u32
        } else {
            g.rng.below(8) as u32
        };
        let mut th = Thread { name: t.name, ..*t };
        g.tree(&mut th, start, dur, 0, max_depth)?;
        let between = 1 + g.rng.below(3);
        for _ in 0..between {
            let at = start + g.rng.below(dur);
            g.other_events(&th, at)?;
        }
        let t = &mut threads[k];
        t.clock_ns = start + dur;
        t.tts_ns += dur / 2;
    }
    let tail =
        "\n],\n\"displayTimeUnit\":\"ms\",\"metadata\":{\"generator\":\"tracescope gen-trace\"}}\n";
    g.w.write_all(tail.as_bytes())?;
    g.bytes += tail.len() as u64;
    Ok(Stats {
        bytes: g.bytes,
        events: g.events,
    })
}
