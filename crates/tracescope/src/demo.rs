//! The built-in demo trace of `tracescope view` without a file: small, but with
//! every kind of thing the viewer draws, written as JSON text and read like a file.
//!
//! Processes: a Browser (sort index 0) with a UI thread (nested `B`/`E` and `X` with
//! args, a `cname`, a `ui-nest` lane, an improper overlap, a slice that never ends,
//! a misplaced `E`) and an IO thread (thousands of tiny tasks, to show merging);
//! a Renderer rendering a frame (`TracingStartedInBrowser`) with a CPU profile in
//! `ProfileChunk`s; a GPU process with labels. Plus instants of every scope,
//! counters with several series, nestable and legacy async operations, v1 and v2
//! flows, objects with snapshots, Chrome's `UpdateCounters` instants and four
//! screenshots (tiny PNGs, as Chrome writes them in `O` events).

use anyhow::Result;
use tracescope_model::{LoadOptions, Trace};

/// Four 64x40 PNG screenshots of a page whose green bar grows, base64.
const SCREENSHOTS: [&str; 4] = [
    "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAoCAIAAADBrGu+AAAAV0lEQVR42u3VMRHAIBREQQzgKAUlNnAXURRUiKCKhgwNf9ibZ2CrS0+poUsAAADBASv4AAAAAAAAYgPy237VxzwqAAAAAIA9gCcGAAAAAAAAAAAAuBbwAbypsGlKP0tiAAAAAElFTkSuQmCC",
    "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAoCAIAAADBrGu+AAAAV0lEQVR42u3VMRGAMBREwRjAEQUlNnCHqBRUEZEqIjK/uGFvnoGtrp3XHV0DAAAIB8zwAQAAAAAAZAOO9ymtf6M0AAAAAIA9gCcGAAAAAAAAAAAA+C1gAd+W6lpNZ3ZzAAAAAElFTkSuQmCC",
    "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAoCAIAAADBrGu+AAAAV0lEQVR42u3VMRHAIBREQQzgKAUlNnAXURRUiKCKhgwNf9ibZ2CrS0+poUsAAADBASv4AAAAAAAAYgPy246qj/krAAAAAIA9gCcGAAAAAAAAAAAAuBbwASS9JFp5YFpRAAAAAElFTkSuQmCC",
    "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAoCAIAAADBrGu+AAAATUlEQVR42u3VMREAIBADwTeAIwpKbOAOjVSIoMqwmTOwVaqPGV0BAACEA074AAAAAAAAsgFtr+gAAAAAAN4AnhgAAAAAAAAAAADgW8AFjABeS5GtvAQAAAAASUVORK5CYII=",
];

/// Event JSON lines, times in microseconds.
struct Events(Vec<String>);

impl Events {
    fn add(&mut self, e: String) {
        self.0.push(e);
    }

    fn meta(&mut self, pid: u32, tid: u32, name: &str, args: &str) {
        self.add(format!(
            r#"{{"ph":"M","pid":{pid},"tid":{tid},"name":"{name}","args":{args}}}"#
        ));
    }

    fn x(&mut self, tid: u32, name: &str, ts: f64, dur: f64, args: &str) {
        self.add(format!(
            r#"{{"ph":"X","cat":"demo","name":"{name}","pid":1,"tid":{tid},"ts":{ts},"dur":{dur},"args":{args}}}"#
        ));
    }

    fn be(&mut self, ph: &str, tid: u32, name: &str, ts: f64, args: &str) {
        self.add(format!(
            r#"{{"ph":"{ph}","cat":"demo","name":"{name}","pid":1,"tid":{tid},"ts":{ts},"args":{args}}}"#
        ));
    }
}

/// The demo as JSON text (object form).
pub fn json() -> String {
    let mut e = Events(Vec::new());
    // Processes and threads with names and sort indexes.
    e.meta(1, 1, "process_name", r#"{"name":"Browser"}"#);
    e.meta(1, 1, "process_sort_index", r#"{"sort_index":0}"#);
    e.meta(1, 1, "thread_name", r#"{"name":"CrBrowserMain"}"#);
    e.meta(1, 1, "thread_sort_index", r#"{"sort_index":-1}"#);
    e.meta(1, 2, "thread_name", r#"{"name":"IOThread"}"#);
    e.meta(2, 10, "process_name", r#"{"name":"Renderer"}"#);
    e.meta(2, 10, "thread_name", r#"{"name":"CrRendererMain"}"#);
    e.meta(3, 20, "process_name", r#"{"name":"GPU Process"}"#);
    e.meta(3, 20, "process_labels", r#"{"labels":"gpu,compositor"}"#);
    e.meta(3, 20, "thread_name", r#"{"name":"VizCompositorThread"}"#);
    e.add(r#"{"ph":"I","cat":"devtools.timeline","name":"TracingStartedInBrowser","pid":1,"tid":1,"ts":0,"s":"t","args":{"data":{"frames":[{"processId":2,"url":"https://example.com/demo","frame":"F1"}]}}}"#.into());

    // UI thread: ten frames of nested work, B/E outside and X inside, with args.
    for f in 0..10 {
        let t = 1000.0 + f as f64 * 1000.0;
        e.be(
            "B",
            1,
            "RunTask",
            t,
            &format!(
                r#"{{"frame":{f},"src":{{"file":"main.cc","line":{}}}}}"#,
                100 + f
            ),
        );
        e.x(1, "Layout", t + 50.0, 300.0, r#"{"nodes":42}"#);
        e.x(1, "RecalcStyle", t + 60.0, 100.0, r#"{"elements":7}"#);
        e.add(format!(r#"{{"ph":"X","cat":"demo","name":"Paint","pid":1,"tid":1,"ts":{},"dur":200,"cname":"good","args":{{}}}}"#, t + 400.0));
        e.be("E", 1, "RunTask", t + 800.0, r#"{"result":"ok"}"#);
    }
    // Out-of-band ui-nest operations, ending out of order.
    e.be("B", 1, "FetchEmail", 1100.0, r#"{"ui-nest":0}"#);
    e.be("B", 1, "CheckGPlus", 1200.0, r#"{"ui-nest":0}"#);
    e.be("E", 1, "FetchEmail", 4000.0, r#"{"ui-nest":0}"#);
    e.be("E", 1, "CheckGPlus", 5000.0, r#"{"ui-nest":0}"#);
    // An improper overlap: starts inside a RunTask, ends after it.
    e.x(
        1,
        "Overlapping",
        8500.0,
        1000.0,
        r#"{"note":"starts inside RunTask, ends outside"}"#,
    );
    // A misplaced end: E "Outer" closes Outer and the Inner above it.
    e.be("B", 1, "Outer", 11_500.0, "{}");
    e.be("B", 1, "Inner", 11_600.0, "{}");
    e.be("E", 1, "Outer", 11_900.0, "{}");
    // Never closed: did not finish.
    e.be("B", 1, "Unfinished", 12_000.0, r#"{"why":"no E event"}"#);

    // IO thread: 3000 tiny tasks (0.5 us each) and a few long ones.
    for i in 0..3000 {
        e.x(2, "IOTask", 1000.0 + i as f64 * 3.0, 0.5, "{}");
    }
    for i in 0..3 {
        e.x(
            2,
            "ReadFile",
            11_000.0 + i as f64 * 400.0,
            300.0,
            r#"{"bytes":4096}"#,
        );
    }

    // Instants of every scope.
    e.add(r#"{"ph":"i","name":"ThreadMark","pid":1,"tid":1,"ts":2500,"s":"t"}"#.into());
    e.add(r#"{"ph":"i","name":"ProcessMark","pid":1,"tid":2,"ts":6000,"s":"p"}"#.into());
    e.add(r#"{"ph":"i","name":"NavigationStart","pid":1,"tid":1,"ts":1000,"s":"g"}"#.into());
    e.add(r#"{"ph":"R","name":"firstPaint","pid":2,"tid":10,"ts":3000}"#.into());

    // Counters: two series on one counter, one counter with an id.
    for i in 0..200 {
        let ts = 1000.0 + i as f64 * 60.0;
        let heap = 10.0 + (i as f64 / 10.0).sin() * 5.0 + i as f64 * 0.05;
        e.add(format!(r#"{{"ph":"C","name":"Memory","pid":1,"tid":1,"ts":{ts},"args":{{"heapMB":{heap:.3},"domNodes":{}}}}}"#, 100 + i % 37));
        if i % 4 == 0 {
            e.add(format!(r#"{{"ph":"C","name":"Queue","id":7,"pid":3,"tid":20,"ts":{ts},"args":{{"depth":{}}}}}"#, i % 9));
        }
    }

    // Nestable async: a request with a nested phase and an instant; two overlapping.
    e.add(r#"{"ph":"b","cat":"net","name":"Request","id":"0x10","pid":1,"tid":2,"ts":1500,"args":{"url":"https://example.com/a"}}"#.into());
    e.add(
        r#"{"ph":"b","cat":"net","name":"Headers","id":"0x10","pid":1,"tid":2,"ts":1700}"#.into(),
    );
    e.add(
        r#"{"ph":"n","cat":"net","name":"FirstByte","id":"0x10","pid":1,"tid":2,"ts":1800}"#.into(),
    );
    e.add(
        r#"{"ph":"e","cat":"net","name":"Headers","id":"0x10","pid":1,"tid":2,"ts":2200}"#.into(),
    );
    e.add(r#"{"ph":"e","cat":"net","name":"Request","id":"0x10","pid":1,"tid":2,"ts":6000,"args":{"status":200}}"#.into());
    e.add(
        r#"{"ph":"b","cat":"net","name":"Request","id":"0x11","pid":1,"tid":2,"ts":3000}"#.into(),
    );
    e.add(
        r#"{"ph":"e","cat":"net","name":"Request","id":"0x11","pid":1,"tid":2,"ts":7000}"#.into(),
    );
    // Legacy async with steps, all `T` (a step runs to the next one): Parse, then
    // Render. (A `p` step runs back to the step before it: after a `T` it would
    // cover that step's time on the same row.)
    e.add(r#"{"ph":"S","cat":"load","name":"PageLoad","id":5,"pid":2,"tid":10,"ts":1000}"#.into());
    e.add(r#"{"ph":"T","cat":"load","name":"PageLoad","id":5,"pid":2,"tid":10,"ts":2000,"args":{"step":"Parse"}}"#.into());
    e.add(r#"{"ph":"T","cat":"load","name":"PageLoad","id":5,"pid":2,"tid":10,"ts":5000,"args":{"step":"Render"}}"#.into());
    e.add(r#"{"ph":"F","cat":"load","name":"PageLoad","id":5,"pid":2,"tid":10,"ts":8000}"#.into());

    // Renderer main thread work, bound by flows to the browser.
    for f in 0..10 {
        let t = 1300.0 + f as f64 * 1000.0;
        e.add(format!(r#"{{"ph":"X","cat":"demo","name":"BeginMainFrame","pid":2,"tid":10,"ts":{t},"dur":400,"args":{{"frame":{f}}}}}"#));
    }
    // v1 flow: Browser Layout (frame 0) -> Renderer BeginMainFrame (frame 0).
    e.add(r#"{"ph":"s","cat":"ipc","name":"SendFrame","id":1,"pid":1,"tid":1,"ts":1100}"#.into());
    e.add(
        r#"{"ph":"f","cat":"ipc","name":"SendFrame","id":1,"pid":2,"tid":10,"ts":1300,"bp":"e"}"#
            .into(),
    );
    // v2 flow: Viz Submit (flow_out) -> Viz Draw (flow_in).
    e.add(r#"{"ph":"X","cat":"gpu","name":"Submit","pid":3,"tid":20,"ts":2450,"dur":20,"bind_id":"0xabc","flow_out":true}"#.into());
    e.add(r#"{"ph":"X","cat":"gpu","name":"Draw","pid":3,"tid":20,"ts":2700,"dur":150,"bind_id":"0xabc","flow_in":true}"#.into());

    // Objects with snapshots; one never deleted.
    e.add(
        r#"{"ph":"N","cat":"obj","name":"LayerTree","id":"0x1","pid":2,"tid":10,"ts":1000}"#.into(),
    );
    e.add(r#"{"ph":"O","cat":"obj","name":"LayerTree","id":"0x1","pid":2,"tid":10,"ts":3000,"args":{"snapshot":{"layers":3}}}"#.into());
    e.add(
        r#"{"ph":"D","cat":"obj","name":"LayerTree","id":"0x1","pid":2,"tid":10,"ts":9000}"#.into(),
    );
    e.add(
        r#"{"ph":"N","cat":"obj","name":"Document","id":"0x2","pid":2,"tid":10,"ts":1200}"#.into(),
    );

    // The browser's screenshots of the page, and the renderer's DOM counters.
    for (k, png) in SCREENSHOTS.iter().enumerate() {
        e.add(format!(r#"{{"ph":"O","cat":"disabled-by-default-devtools.screenshot","name":"Screenshot","id":"0x1","pid":1,"tid":1,"ts":{},"args":{{"snapshot":"{png}"}}}}"#, 1000 + k * 3000));
        e.add(format!(r#"{{"ph":"I","s":"t","cat":"disabled-by-default-devtools.timeline","name":"UpdateCounters","pid":2,"tid":10,"ts":{},"args":{{"data":{{"documents":1,"nodes":{},"jsEventListeners":{},"jsHeapSizeUsed":{}}}}}}}"#, 2000 + k * 3000, 120 + 40 * k, 4 + k, 2_000_000 + 350_000 * k));
    }

    // A CPU profile of the renderer main thread, streamed in two chunks.
    e.add(r#"{"ph":"P","cat":"disabled-by-default-v8.cpu_profiler","name":"Profile","id":"0x1","pid":2,"tid":10,"ts":1000,"args":{"data":{"startTime":1000}}}"#.into());
    let node = |id: u32, name: &str, parent: Option<u32>| {
        let p = parent.map_or(String::new(), |p| format!(r#","parent":{p}"#));
        format!(
            r#"{{"id":{id},"callFrame":{{"functionName":"{name}","scriptId":"1","url":"https://example.com/app.js","lineNumber":{id},"columnNumber":0}}{p}}}"#
        )
    };
    let nodes = [
        node(1, "(root)", None),
        node(2, "main", Some(1)),
        node(3, "render", Some(2)),
        node(4, "layout", Some(3)),
        node(5, "(idle)", Some(1)),
    ];
    let stacks = [2u32, 3, 3, 4, 4, 4, 3, 2, 5, 5];
    for (c, half) in stacks.chunks(5).enumerate() {
        let ns = if c == 0 {
            nodes.join(",")
        } else {
            String::new()
        };
        let samples: Vec<String> = half.iter().map(|s| s.to_string()).collect();
        e.add(format!(
            r#"{{"ph":"P","cat":"disabled-by-default-v8.cpu_profiler","name":"ProfileChunk","id":"0x1","pid":2,"tid":11,"ts":{},"args":{{"data":{{"cpuProfile":{{"nodes":[{ns}],"samples":[{}]}},"timeDeltas":[{}]}}}}}}"#,
            5000 + c * 5000,
            samples.join(","),
            vec!["500"; half.len()].join(",")
        ));
    }
    format!(
        "{{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n{}\n]}}\n",
        e.0.join(",\n")
    )
}

/// The demo, loaded.
pub fn trace() -> Result<Trace> {
    let text = json();
    let bytes = text.len() as u64;
    let opts = LoadOptions {
        source_name: "demo".into(),
        ..LoadOptions::default()
    };
    Ok(Trace::from_json(Box::new(text), bytes, &opts)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_has_every_kind_of_item() {
        let t = trace().unwrap();
        let s = t.stats();
        assert_eq!(s.processes, 3);
        assert!(s.slices > 3000 && s.instants >= 4 && s.async_slices >= 7 && s.flows == 2);
        assert!(s.counter_series == 3 && s.objects == 3 && s.object_snapshots == 5);
        assert!(s.profiles == 1 && s.samples == 10);
        let kinds: Vec<_> = t
            .diagnostics
            .sorted()
            .iter()
            .map(|d| d.kind.as_str())
            .collect();
        assert!(
            kinds.contains(&"misplaced_end") && kinds.contains(&"overlap"),
            "{kinds:?}"
        );
        let sl = &t.tables.slices;
        assert!((0..sl.len()).any(|i| sl.did_not_finish(i)));
        assert!(sl
            .tracks
            .iter()
            .any(|tr| tr.lane == tracescope_model::Lane::UiNest));
        assert!(t.tables.processes.iter().any(|p| !p.frame_url.is_none()));
    }

    /// Intervals that overlap on one row: `(row, start, end)` sorted by row and
    /// start; touching is fine.
    fn overlaps<R: Ord + Copy + std::fmt::Debug>(mut v: Vec<(R, i64, i64)>) -> Vec<String> {
        v.sort();
        v.windows(2)
            .filter(|w| w[0].0 == w[1].0 && w[1].1 < w[0].2)
            .map(|w| {
                format!(
                    "{:?} [{}, {}) and [{}, {})",
                    w[0].0, w[0].1, w[0].2, w[1].1, w[1].2
                )
            })
            .collect()
    }

    #[test]
    fn demo_slices_nest_on_every_row() {
        let t = trace().unwrap();
        let sl = &t.tables.slices;
        let rows = (0..sl.len())
            .map(|i| ((sl.thread(i), sl.lane(i), sl.depth(i)), sl.ts(i), sl.end(i)))
            .collect();
        assert_eq!(overlaps(rows), Vec::<String>::new(), "thread slices");
        // An async group's row is its lane.
        let a = &t.tables.async_slices;
        let rows = (0..a.ts.len())
            .map(|i| ((a.group[i], a.lane[i]), a.ts[i], a.ts[i] + a.dur[i]))
            .collect();
        assert_eq!(overlaps(rows), Vec::<String>::new(), "async slices");
        // The steps of PageLoad follow each other.
        let steps: Vec<(String, i64, i64)> = (0..a.ts.len())
            .filter(|&i| a.depth[i] == 1 && a.legacy[i])
            .map(|i| {
                (
                    t.tables.strings.get(a.name[i]).to_string(),
                    a.ts[i],
                    a.dur[i],
                )
            })
            .collect();
        assert_eq!(
            steps,
            [
                ("Parse".to_string(), 2_000_000, 3_000_000),
                ("Render".to_string(), 5_000_000, 3_000_000)
            ]
        );
    }
}
