//! Where the time of one `--follow` append goes: `follow_timing LIVE.json MORE.bin...`
//! reads LIVE (a trace being written), appends each MORE's bytes to it in turn, and times the
//! poll (reading the appended bytes), the model build and the query indexes, in
//! wall and CPU time (of all threads). `KEEP_HEAP=1` sets glibc to keep freed
//! memory, as `view --follow` does (`serve::live`). `FOLLOW=1 scripts/bench`
//! makes the inputs and runs it.
use std::io::Write;
use std::time::Instant;

use tracescope_model::query::QueryIndex;
use tracescope_model::{Follow, LoadOptions};

/// CPU time of the process so far (all threads), in ms.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // utime and stime are fields 14 and 15 (11 and 12 after the name), in ticks.
    (f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0)) * 10.0
}

extern "C" {
    fn mallopt(param: i32, value: i32) -> i32;
}

fn main() {
    if std::env::var_os("KEEP_HEAP").is_some() {
        // M_MMAP_MAX 0, M_TRIM_THRESHOLD max: freed memory stays mapped for reuse.
        unsafe {
            eprintln!("mallopt {} {}", mallopt(-4, 0), mallopt(-1, i32::MAX));
        }
    }
    let mut args = std::env::args().skip(1);
    let live = args.next().unwrap();
    let appends: Vec<String> = args.collect();
    let t = Instant::now();
    let mut f = Follow::open(live.as_ref(), "live".into(), LoadOptions::default()).unwrap();
    let tr = f.trace();
    eprintln!("open+first model {:?} ({} events)", t.elapsed(), f.events());
    drop(tr);
    for more in appends {
        let more = std::fs::read(more).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&live)
            .unwrap()
            .write_all(&more)
            .unwrap();
        let (t, c) = (Instant::now(), cpu_ms());
        f.poll().unwrap();
        eprintln!(
            "poll (read+parse appended) {:?}, cpu {:.0} ms",
            t.elapsed(),
            cpu_ms() - c
        );
        let (t, c) = (Instant::now(), cpu_ms());
        let tr = f.trace();
        eprintln!(
            "trace() {:?}, cpu {:.0} ms ({} events)",
            t.elapsed(),
            cpu_ms() - c,
            f.events()
        );
        for (k, ms) in &tr.info.load_phases {
            eprintln!("  {k:>16} {ms:8.1} ms");
        }
        let t = Instant::now();
        let ix = QueryIndex::new(&tr);
        eprintln!("QueryIndex::new {:?}", t.elapsed());
        let (t, c) = (Instant::now(), cpu_ms());
        ix.warm(&tr);
        eprintln!("warm {:?}, cpu {:.0} ms", t.elapsed(), cpu_ms() - c);
        let t = Instant::now();
        drop(ix);
        drop(tr);
        eprintln!("drop {:?}", t.elapsed());
    }
}
