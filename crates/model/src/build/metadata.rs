//! Metadata (spec section 10): names, sort indexes, labels, `TracingStartedInBrowser`.

use tracescope_format::json::Value;
use tracescope_format::{DiagKind, Diagnostics, Int64};

use super::records::MetaRec;
use super::registry::Registry;
use crate::args::{TextRef, Texts};
use crate::strings::{SharedStrings, StrId};
use crate::tables::{MetadataEvent, PidK};

/// Trace-wide facts from metadata events.
#[derive(Clone, Debug, Default)]
pub struct TraceFacts {
    pub num_cpus: Option<i64>,
    /// Milliseconds per build step.
    pub phases: Vec<(&'static str, f64)>,
    /// The input file of each process (all 0 for one file).
    pub process_file: Vec<u32>,
}

pub fn apply(
    recs: &[MetaRec],
    tracing_started: &[(u64, TextRef)],
    registry: &mut Registry,
    strings: &SharedStrings,
    texts: (&Texts<'_>, &str),
    diags: &mut Diagnostics,
) -> (Vec<MetadataEvent>, TraceFacts) {
    let mut facts = TraceFacts::default();
    let mut out = Vec::with_capacity(recs.len());
    for r in recs {
        out.push(MetadataEvent {
            process: r.process,
            thread: r.thread,
            name: r.name,
            args: r.args,
            offset: r.offset,
        });
        let name = strings.get(r.name);
        let applied = matches!(
            name.as_str(),
            "process_name"
                | "thread_name"
                | "process_sort_index"
                | "thread_sort_index"
                | "process_labels"
                | "process_uptime_seconds"
                | "num_cpus"
        );
        if !applied {
            continue;
        }
        let text = texts.0.resolve(texts.1, r.args);
        let args = Value::parse(&text).ok();
        let get = |k: &str| args.as_ref().and_then(|a| a.get(k));
        let bad = |diags: &mut Diagnostics| {
            diags.add(DiagKind::BadMetadata, r.offset, || {
                format!("{name}: {text}")
            })
        };
        let p = r.process.index();
        match name.as_str() {
            "process_name" => match get("name").and_then(Value::as_str) {
                Some(n) => registry.processes[p].name = strings.intern(n),
                None => bad(diags),
            },
            "thread_name" => match (get("name").and_then(Value::as_str), r.thread) {
                (Some(n), Some(t)) => registry.threads[t.index()].name = strings.intern(n),
                _ => bad(diags),
            },
            "process_sort_index" => match get("sort_index").and_then(Value::as_i64) {
                Some(i) => registry.processes[p].sort_index = Some(i),
                None => bad(diags),
            },
            "thread_sort_index" => match (get("sort_index").and_then(Value::as_i64), r.thread) {
                (Some(i), Some(t)) => registry.threads[t.index()].sort_index = Some(i),
                _ => bad(diags),
            },
            "process_labels" => match get("labels").and_then(Value::as_str) {
                Some(l) => {
                    let old = registry.processes[p].labels;
                    let joined = if old.is_none() {
                        l.to_string()
                    } else {
                        format!("{},{l}", strings.get(old))
                    };
                    registry.processes[p].labels = strings.intern(&joined);
                }
                None => bad(diags),
            },
            // Chrome writes the uptime as a string of digits (`{"uptime":"1880"}`).
            "process_uptime_seconds" => match get("uptime").and_then(|u| {
                u.as_f64()
                    .or_else(|| u.as_str().and_then(|s| s.trim().parse().ok()))
            }) {
                Some(u) => registry.processes[p].uptime_seconds = Some(u),
                None => bad(diags),
            },
            _ => match get("number").and_then(Value::as_i64) {
                Some(n) => facts.num_cpus = Some(n),
                None => bad(diags),
            },
        }
    }
    for (offset, args) in tracing_started {
        let text = texts.0.resolve(texts.1, *args);
        let Ok(v) = Value::parse(&text) else { continue };
        let Some(frames) = v
            .get("data")
            .and_then(|d| d.get("frames"))
            .and_then(Value::as_array)
        else {
            diags.add(DiagKind::BadMetadata, *offset, || {
                "TracingStartedInBrowser without data.frames".into()
            });
            continue;
        };
        for f in frames {
            let pid = match f.get("processId") {
                Some(Value::Number(n)) => Int64::parse_number(n),
                _ => None,
            };
            let Some(pid) = pid else { continue };
            // The pids of a file's frames are that file's.
            let file = texts.0.file_of(*offset) as u32;
            let p = registry.process_in(file, PidK::Int(pid)).index();
            let proc_ = &mut registry.processes[p];
            let main = f.get("parent").is_none();
            proc_.renders_frames = true;
            if let Some(url) = f.get("url").and_then(Value::as_str) {
                if proc_.frame_url == StrId::NONE || main {
                    proc_.frame_url = strings.intern(url);
                }
            }
        }
    }
    (out, facts)
}
