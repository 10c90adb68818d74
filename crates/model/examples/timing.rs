use std::time::Instant;
fn main() {
    let p = std::env::args().nth(1).unwrap();
    let t0 = Instant::now();
    let src = tracescope_format::Source::open(&p).unwrap();
    let n = src.text().len();
    eprintln!("open+utf8 {:?} {n}", t0.elapsed());
    let t1 = Instant::now();
    let mut count = 0u64;
    let r = tracescope_format::json::read_json(
        src.text(),
        || |_e: tracescope_format::Event<'_>, _d: &mut tracescope_format::Diagnostics| {},
        &Default::default(),
    );
    let _ = (&mut count, r.as_ref().map(|r| r.events));
    eprintln!("read_json (count sink) {:?}", t1.elapsed());
    let t2 = Instant::now();
    let tr = tracescope_model::Trace::from_source(src, &Default::default()).unwrap();
    eprintln!("full load {:?} (load_ms {})", t2.elapsed(), tr.info.load_ms);
    let t3 = Instant::now();
    drop(tr);
    eprintln!("drop {:?}", t3.elapsed());
}
