//! Where the time of one `--follow` append goes: `follow_timing LIVE.json MORE.bin...`
//! reads LIVE (a trace being written), appends each MORE's bytes to it in turn, and times the
//! poll (reading the appended bytes), the model build, and each query index.
use std::io::Write;
use std::time::Instant;

use tracescope_model::query::QueryIndex;
use tracescope_model::{Follow, LoadOptions};

fn main() {
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
        let t = Instant::now();
        f.poll().unwrap();
        eprintln!("poll (read+parse appended) {:?}", t.elapsed());
        let t = Instant::now();
        let tr = f.trace();
        eprintln!("trace() {:?} ({} events)", t.elapsed(), f.events());
        for (k, ms) in &tr.info.load_phases {
            eprintln!("  {k:>16} {ms:8.1} ms");
        }
        let t = Instant::now();
        let ix = QueryIndex::new(&tr);
        eprintln!("QueryIndex::new {:?}", t.elapsed());
        let t = Instant::now();
        ix.warm(&tr);
        eprintln!("warm {:?}", t.elapsed());
        let t = Instant::now();
        drop(ix);
        drop(tr);
        eprintln!("drop {:?}", t.elapsed());
    }
}
