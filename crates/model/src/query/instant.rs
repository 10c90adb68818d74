//! Everything about one instant (`I`/`i`/`R`): name, category, scope, time, where
//! it is (thread, process, the track it is drawn on), its args and its raw text.

use super::tracks::TrackRef;
use crate::strings::StrId;
use crate::tables::{Lane, ProcessId, Scope, ThreadId};
use crate::trace::Trace;

#[derive(Clone, Debug, PartialEq)]
pub struct InstantDetails {
    /// Instants table row.
    pub id: u32,
    pub name: StrId,
    pub cat: StrId,
    pub ts: i64,
    pub scope: Scope,
    /// The phase as written (`I`, `i` or `R`).
    pub ph: u8,
    /// `None` for a global instant (and the thread of a process one).
    pub process: Option<ProcessId>,
    pub thread: Option<ThreadId>,
    /// The call-stack track a thread instant is drawn on; process instants are
    /// drawn on every thread of their process, global ones across all tracks.
    pub track: Option<TrackRef>,
    /// Compact JSON of the args.
    pub args: Option<String>,
    pub raw: String,
}

/// Details of instants table row `id`, or `None` when there is no such row.
pub fn instant_details(trace: &Trace, id: u32) -> Option<InstantDetails> {
    let ins = &trace.tables.instants;
    let i = id as usize;
    if i >= ins.len() {
        return None;
    }
    let scope = ins.scope[i];
    let thread = ins.thread[i].filter(|_| scope == Scope::Thread);
    let process = (scope != Scope::Global).then_some(ins.process[i]);
    let track = thread.map(|thread| TrackRef::Slices {
        thread,
        lane: Lane::Stack,
    });
    Some(InstantDetails {
        id,
        name: ins.name[i],
        cat: ins.cat[i],
        ts: ins.ts[i],
        scope,
        ph: ins.ph[i],
        process,
        thread,
        track,
        args: trace.merged_args(ins.args[i], Default::default()),
        raw: trace.event_text(ins.offset[i]).to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(json: &str) -> Trace {
        Trace::from_json(
            Box::new(json.to_string()),
            json.len() as u64,
            &Default::default(),
        )
        .expect("loads")
    }

    #[test]
    fn every_scope_with_args_and_raw_text() {
        let t = trace(
            r#"[{"ph":"i","s":"t","name":"mark","cat":"c","ts":1,"pid":1,"tid":2,"args":{"n":18446744073709551615}},
               {"ph":"I","s":"p","name":"proc","ts":2,"pid":1,"tid":2},
               {"ph":"R","s":"g","name":"nav","ts":3,"pid":1,"tid":2}]"#,
        );
        let d = instant_details(&t, 0).unwrap();
        assert_eq!(t.str(d.name), "mark");
        assert_eq!(t.str(d.cat), "c");
        assert_eq!((d.ts, d.scope, d.ph), (1000, Scope::Thread, b'i'));
        assert_eq!(t.thread_label(d.thread.unwrap()), "Thread 2");
        assert_eq!(
            d.track.map(|r| r.to_string()),
            Some(format!("s:{}:0", d.thread.unwrap()))
        );
        assert_eq!(d.args.as_deref(), Some(r#"{"n":18446744073709551615}"#));
        assert!(
            d.raw.starts_with(r#"{"ph":"i","s":"t","name":"mark""#),
            "{}",
            d.raw
        );
        let p = instant_details(&t, 1).unwrap();
        assert_eq!(
            (p.scope, p.thread, p.track, p.args),
            (Scope::Process, None, None, None)
        );
        assert!(p.process.is_some());
        let g = instant_details(&t, 2).unwrap();
        assert_eq!((g.scope, g.process, g.ph), (Scope::Global, None, b'R'));
        assert_eq!(instant_details(&t, 3), None);
    }
}
