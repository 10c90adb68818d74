//! `gen-trace`: writes a realistic synthetic Chrome trace of about a given size.
//!
//! Usage: `gen-trace SIZE OUT.json [--seed N]` where SIZE is bytes with an optional
//! K/M/G suffix (`100M`, `1G`), or `--events N` for an event count instead.
//!
//! The trace has several processes and threads with names and sort indexes, deep
//! nested `X` stacks and `B`/`E` pairs, instants of every scope, counters with
//! several series, nestable and legacy async operations, v1 and v2 flows, objects
//! with snapshots, a CPU profile streamed in `ProfileChunk`s, and args of 100-300
//! bytes with nested objects, numbers and escaped strings, as Chrome writes them.

use std::fs::File;
use std::io::{BufWriter, Write};

mod writer;

fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1u64 << 10),
        'm' | 'M' => (&s[..s.len() - 1], 1 << 20),
        'g' | 'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    let v: f64 = num.parse().ok()?;
    Some((v * mul as f64) as u64)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut positional = Vec::new();
    let mut seed = 1u64;
    let mut events: Option<u64> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seed" => seed = it.next().and_then(|s| s.parse().ok()).unwrap_or(1),
            "--events" => events = it.next().and_then(|s| s.parse().ok()),
            _ => positional.push(a.clone()),
        }
    }
    let (limit, out) = match (events, positional.as_slice()) {
        (Some(n), [out]) => (writer::Limit::Events(n), out.clone()),
        (None, [size, out]) => match parse_size(size) {
            Some(b) => (writer::Limit::Bytes(b), out.clone()),
            None => usage(),
        },
        _ => usage(),
    };
    let file = File::create(&out).unwrap_or_else(|e| {
        eprintln!("gen-trace: cannot create {out}: {e}");
        std::process::exit(2)
    });
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let stats = writer::generate(&mut w, limit, seed).and_then(|s| w.flush().map(|_| s));
    match stats {
        Ok(s) => eprintln!(
            "gen-trace: wrote {out}: {} bytes, {} events",
            s.bytes, s.events
        ),
        Err(e) => {
            eprintln!("gen-trace: writing {out}: {e}");
            std::process::exit(2)
        }
    }
}

fn usage() -> ! {
    eprintln!("usage: gen-trace SIZE OUT.json [--seed N]   (SIZE like 10M, 1G)\n       gen-trace --events N OUT.json [--seed N]");
    std::process::exit(2)
}
