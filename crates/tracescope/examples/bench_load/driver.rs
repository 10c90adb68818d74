//! The viewer server under load: many clients at once, each issuing a mix of tile,
//! search and details requests over its own keep-alive connection, plus hostile
//! ones (huge ranges, huge `px`, clients that disconnect mid-response or stop
//! reading). Shared by `examples/bench_load` (the big run) and the bounded test in
//! `tests/serve_load.rs`. Plain blocking sockets: the client must not be the
//! bottleneck, nor bring a dependency.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `tracescope view`, stopped on drop.
pub struct Server {
    pub child: Child,
    pub port: u16,
}

impl Server {
    /// Starts `bin view --no-open TRACE` on a free loopback port and waits until it
    /// serves.
    pub fn start(bin: &std::path::Path, trace: &std::path::Path) -> Server {
        let mut child = Command::new(bin)
            .args(["view", "--no-open"])
            .arg(trace)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("tracescope view starts");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        let port = loop {
            line.clear();
            if out.read_line(&mut line).unwrap_or(0) == 0 {
                let _ = child.kill();
                panic!("tracescope view exited before serving");
            }
            if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
                break rest.split('/').next().unwrap().parse().unwrap();
            }
        };
        Server { child, port }
    }

    /// The server's memory in MB (Linux): resident anonymous memory (its own: the
    /// model, indexes, buffers), resident pages of mapped files (the trace, mapped:
    /// details read args from it; page cache the kernel can take back), and the
    /// peak of both.
    pub fn memory_mb(&self) -> Memory {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        let kb = |key: &str| {
            status
                .lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(0.0)
                / 1024.0
        };
        Memory {
            anon: kb("RssAnon:"),
            file: kb("RssFile:"),
            peak: kb("VmHWM:"),
        }
    }
}

/// Resident memory of the server, MB.
#[derive(Clone, Copy, Debug)]
pub struct Memory {
    pub anon: f64,
    pub file: f64,
    pub peak: f64,
}

impl std::fmt::Display for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.0} MB anonymous + {:.0} MB of mapped files (peak RSS {:.0} MB)",
            self.anon, self.file, self.peak
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One keep-alive HTTP/1.1 connection.
pub struct Conn {
    port: u16,
    reader: BufReader<TcpStream>,
}

/// A response: status and body.
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Conn {
    pub fn open(port: u16) -> std::io::Result<Conn> {
        let s = TcpStream::connect(("127.0.0.1", port))?;
        s.set_nodelay(true)?;
        s.set_read_timeout(Some(Duration::from_secs(60)))?;
        Ok(Conn {
            port,
            reader: BufReader::new(s),
        })
    }

    /// Sends a GET, without reading the answer.
    pub fn send(&mut self, path: &str) -> std::io::Result<()> {
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: keep-alive\r\n\r\n",
            self.port
        );
        self.reader.get_mut().write_all(req.as_bytes())
    }

    pub fn get(&mut self, path: &str) -> std::io::Result<Answer> {
        self.send(path)?;
        self.read_answer()
    }

    fn read_answer(&mut self) -> std::io::Result<Answer> {
        let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
        let mut line = String::new();
        self.reader.read_line(&mut line)?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(&format!("bad status line {line:?}")))?;
        let (mut length, mut chunked) = (None, false);
        loop {
            line.clear();
            if self.reader.read_line(&mut line)? == 0 {
                return Err(bad("connection closed in the headers"));
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (k, v) = l.split_once(':').unwrap_or((l, ""));
            match k.to_ascii_lowercase().as_str() {
                "content-length" => length = v.trim().parse::<usize>().ok(),
                "transfer-encoding" => chunked = v.to_ascii_lowercase().contains("chunked"),
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.reader.read_line(&mut line)?;
                let n = usize::from_str_radix(line.trim(), 16).map_err(|_| bad("bad chunk"))?;
                let at = body.len();
                body.resize(at + n + 2, 0);
                self.reader.read_exact(&mut body[at..])?;
                body.truncate(at + n);
                if n == 0 {
                    break;
                }
            }
        } else {
            body.resize(length.ok_or_else(|| bad("no content-length"))?, 0);
            self.reader.read_exact(&mut body)?;
        }
        Ok(Answer { status, body })
    }
}

/// What the clients ask about: from the summary.
#[derive(Clone)]
pub struct Plan {
    pub tracks: Vec<String>,
    pub start_ns: i64,
    pub end_ns: i64,
    pub slices: u64,
    pub queries: Vec<&'static str>,
}

impl Plan {
    pub fn from_server(port: u16) -> Plan {
        let a = Conn::open(port).unwrap().get("/api/summary").unwrap();
        assert_eq!(a.status, 200);
        let v: serde_json::Value = serde_json::from_slice(&a.body).unwrap();
        let mut tracks = Vec::new();
        for p in v["processes"].as_array().unwrap() {
            let threads = p["threads"].as_array().unwrap();
            for t in std::iter::once(p).chain(threads) {
                for tr in t["tracks"].as_array().unwrap() {
                    tracks.push(tr["id"].as_str().unwrap().to_string());
                }
            }
        }
        Plan {
            tracks,
            start_ns: v["start_ns"].as_i64().unwrap(),
            end_ns: v["end_ns"].as_i64().unwrap(),
            slices: v["stats"]["slices"].as_u64().unwrap(),
            queries: vec![
                "Task",
                "a",
                "Layout",
                "%5ERun.*Task%24&regex=1",
                "nothing-matches",
            ],
        }
    }
}

/// xorshift64*: a reproducible mix per client.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) % n.max(1)
    }
}

/// Kinds of request, as reported.
pub const TILE: &str = "tile";
pub const SEARCH: &str = "search";
pub const DETAILS: &str = "details";
pub const HUGE: &str = "huge range or px";
pub const DISCONNECT: &str = "disconnect mid-response";

/// One request of the mix: its kind, path and the status it must get.
fn pick(plan: &Plan, rng: &mut Rng, n: usize) -> (&'static str, String, u16) {
    let span = (plan.end_ns - plan.start_ns).max(1);
    if n % 50 == 49 {
        // Hostile: the whole i64 range at the widest px, px past the limit, whole
        // ranges for the range endpoints.
        let track = &plan.tracks[rng.below(plan.tracks.len() as u64) as usize];
        let huge = "t0=-9223372036854775808&t1=9223372036854775807";
        return match rng.below(4) {
            0 => (HUGE, format!("/api/track/{track}?{huge}&px=20000"), 200),
            1 => (
                HUGE,
                format!("/api/track/{track}?t0=0&t1=1&px=4000000000"),
                400,
            ),
            2 => (HUGE, format!("/api/flows?{huge}"), 200),
            _ => (
                HUGE,
                format!("/api/range/slices?{huge}&by=name&key=Layout&limit=1000"),
                200,
            ),
        };
    }
    match rng.below(20) {
        0..=13 => {
            // A tile at a random zoom (whole trace down to 2^-20 of it), as the page asks.
            let w = (span >> rng.below(21)).max(64);
            let t0 = plan.start_ns + rng.below((span - w).max(1) as u64) as i64;
            let track = &plan.tracks[rng.below(plan.tracks.len() as u64) as usize];
            (
                TILE,
                format!("/api/track/{track}?t0={t0}&t1={}&px=512", t0 + w),
                200,
            )
        }
        14..=16 => {
            let q = plan.queries[rng.below(plan.queries.len() as u64) as usize];
            (SEARCH, format!("/api/search?q={q}&limit=100"), 200)
        }
        _ => (
            DETAILS,
            format!("/api/slice/{}", rng.below(plan.slices)),
            200,
        ),
    }
}

/// Latencies and failures of one kind of request.
#[derive(Default, Clone)]
pub struct Stats {
    pub ms: Vec<f64>,
    pub errors: Vec<String>,
}

/// What a run measured, by kind of request.
#[derive(Default)]
pub struct Report {
    pub by_kind: BTreeMap<&'static str, Stats>,
    pub wall: Duration,
}

impl Report {
    pub fn errors(&self) -> Vec<String> {
        self.by_kind
            .values()
            .flat_map(|s| s.errors.iter().cloned())
            .collect()
    }

    pub fn requests(&self) -> usize {
        self.by_kind.values().map(|s| s.ms.len()).sum()
    }

    pub fn max_ms(&self) -> f64 {
        self.by_kind
            .values()
            .flat_map(|s| s.ms.iter().copied())
            .fold(0.0, f64::max)
    }

    /// A Markdown table: count, errors, p50, p99, max per kind.
    pub fn table(&self) -> String {
        let mut out = String::from(
            "| request | count | errors | p50 | p99 | max |\n|---|---|---|---|---|---|\n",
        );
        for (kind, s) in &self.by_kind {
            let mut v = s.ms.clone();
            v.sort_by(f64::total_cmp);
            let q = |f: f64| {
                v.get(((v.len() as f64 - 1.0) * f).round() as usize)
                    .copied()
                    .unwrap_or(0.0)
            };
            out += &format!(
                "| {kind} | {} | {} | {:.1} ms | {:.1} ms | {:.1} ms |\n",
                v.len(),
                s.errors.len(),
                q(0.5),
                q(0.99),
                q(1.0)
            );
        }
        out
    }
}

/// Runs `clients` clients of `requests` requests each against the server on
/// `port`; every 100th request of a client is also a disconnect mid-response (on a
/// connection of its own), and `stalled` more connections ask for the summary and
/// never read it while the run lasts.
pub fn run(port: u16, plan: &Plan, clients: usize, requests: usize, stalled: usize) -> Report {
    let t0 = Instant::now();
    let mut stuck: Vec<TcpStream> = (0..stalled)
        .map(|_| {
            let mut c = Conn::open(port).unwrap();
            for _ in 0..50 {
                c.send("/api/summary").unwrap();
            }
            c.reader.into_inner()
        })
        .collect();
    let handles: Vec<_> = (0..clients)
        .map(|k| {
            let plan = plan.clone();
            std::thread::spawn(move || client(port, &plan, k as u64, requests))
        })
        .collect();
    let mut report = Report::default();
    for h in handles {
        for (kind, s) in h.join().unwrap() {
            let e = report.by_kind.entry(kind).or_default();
            e.ms.extend(s.ms);
            e.errors.extend(s.errors);
        }
    }
    stuck.clear();
    report.wall = t0.elapsed();
    report
}

fn client(port: u16, plan: &Plan, seed: u64, requests: usize) -> BTreeMap<&'static str, Stats> {
    let mut rng = Rng::new(seed + 1);
    let mut out: BTreeMap<&'static str, Stats> = BTreeMap::new();
    let mut conn = Conn::open(port).ok();
    for n in 0..requests {
        let (kind, path, want) = pick(plan, &mut rng, n);
        let t = Instant::now();
        let got = match conn.as_mut() {
            Some(c) => c.get(&path),
            None => Err(std::io::Error::other("no connection")),
        };
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let s = out.entry(kind).or_default();
        s.ms.push(ms);
        match got {
            Ok(a) if a.status == want => {}
            Ok(a) => s.errors.push(format!(
                "{path}: status {} (wanted {want}): {}",
                a.status,
                String::from_utf8_lossy(&a.body[..a.body.len().min(200)])
            )),
            Err(e) => {
                s.errors.push(format!("{path}: {e}"));
                conn = Conn::open(port).ok();
            }
        }
        if n % 100 == 99 {
            // Asks for the biggest answer, reads its first bytes and hangs up.
            let t = Instant::now();
            let r = Conn::open(port).and_then(|mut c| {
                c.send("/api/summary")?;
                let mut head = [0u8; 512];
                c.reader.read_exact(&mut head)
            });
            let s = out.entry(DISCONNECT).or_default();
            s.ms.push(t.elapsed().as_secs_f64() * 1e3);
            if let Err(e) = r {
                s.errors.push(format!("disconnect: {e}"));
            }
        }
    }
    out
}
