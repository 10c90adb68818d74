//! Names of processes and threads that stay the same from one run of a program to
//! the next, so that two traces can be compared: pids and tids change every run,
//! names do not.
//!
//! A process is known by its name and labels (`Renderer [example.com]`); a
//! process with neither, by its pid (`pid 42`), as nothing else names it. A thread
//! is known by its process's key and its own name (`Renderer/CrRendererMain`); an
//! unnamed thread by its tid. Processes (or threads of one process) with equal
//! keys are numbered in order of first appearance in the input (the tables'
//! order): the second `Renderer` is `Renderer#2`, and it matches the second
//! `Renderer` of the other trace. A name that spells its own pid or tid, when that
//! is a number the system assigned (300 or more: Linux keeps smaller pids for
//! itself, and kineto's stream ids, `stream 7`, stay below), has that number
//! masked: kineto's `thread 2856 (python)` is `thread * (python)` in every run.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::trace::Trace;

/// The key of every process, indexed by [`ProcessId`](crate::ProcessId).
pub fn process_keys(trace: &Trace) -> Vec<String> {
    let bare = trace.tables.processes.iter().map(|p| {
        let id = trace.pid_text(p.pid);
        let name = (!p.name.is_none()).then(|| masked(trace.str(p.name), &id));
        let labels = (!p.labels.is_none()).then(|| masked(trace.str(p.labels), &id));
        match (name, labels) {
            (Some(n), Some(l)) => format!("{n} [{l}]"),
            (Some(n), None) => n.to_string(),
            (None, Some(l)) => format!("[{l}]"),
            (None, None) => format!("pid {id}"),
        }
    });
    numbered(bare)
}

/// The key of every thread, `process/thread`, indexed by [`ThreadId`](crate::ThreadId).
pub fn thread_keys(trace: &Trace) -> Vec<String> {
    let processes = process_keys(trace);
    thread_keys_in(trace, &processes)
}

/// [`thread_keys`] given the processes' keys.
pub fn thread_keys_in(trace: &Trace, processes: &[String]) -> Vec<String> {
    let bare = trace.tables.threads.iter().map(|t| {
        let id = trace.pid_text(t.tid);
        let thread = if t.name.is_none() {
            format!("tid {id}")
        } else {
            masked(trace.str(t.name), &id)
        };
        format!("{}/{thread}", processes[t.process.index()])
    });
    numbered(bare)
}

/// Pids and tids from this one up are the system's, different every run.
const SYSTEM_IDS: u64 = 300;

/// `name` with every whole-number occurrence of `id` (a run's own pid or tid, at
/// least [`SYSTEM_IDS`]) replaced by `*`; a name that is the id itself is kept.
fn masked(name: &str, id: &str) -> String {
    let assigned = id.parse::<u64>().is_ok_and(|n| n >= SYSTEM_IDS) && !id.starts_with('0');
    if !assigned || name == id {
        return name.to_string();
    }
    let digit = |b: Option<&u8>| b.is_some_and(u8::is_ascii_digit);
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < name.len() {
        let whole = name[i..].starts_with(id)
            && !digit(i.checked_sub(1).and_then(|j| bytes.get(j)))
            && !digit(bytes.get(i + id.len()));
        if whole {
            out.push('*');
            i += id.len();
        } else {
            let c = name[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Keys in table order, the second and later of equal ones suffixed `#2`, `#3`, ...
/// (skipping a suffix some other key already is, so every key is unique).
fn numbered(bare: impl Iterator<Item = String>) -> Vec<String> {
    let bare: Vec<String> = bare.collect();
    let mut taken: FxHashSet<String> = bare.iter().cloned().collect();
    let mut seen: FxHashMap<&str, u32> = FxHashMap::default();
    let mut out = Vec::with_capacity(bare.len());
    for k in &bare {
        let n = seen.entry(k.as_str()).or_insert(0);
        *n += 1;
        if *n == 1 {
            out.push(k.clone());
            continue;
        }
        let mut key = format!("{k}#{n}");
        while taken.contains(&key) {
            *n += 1;
            key = format!("{k}#{n}");
        }
        taken.insert(key.clone());
        out.push(key);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{masked, numbered};

    #[test]
    fn own_ids_are_masked_in_names() {
        assert_eq!(masked("thread 2856 (python)", "2856"), "thread * (python)");
        assert_eq!(
            masked("thread 28567 (python)", "2856"),
            "thread 28567 (python)"
        );
        assert_eq!(masked("w2856x 12856", "2856"), "w*x 12856");
        assert_eq!(masked("stream 7", "7"), "stream 7");
        assert_eq!(masked("CrRendererMain", "777"), "CrRendererMain");
        assert_eq!(masked("777", "777"), "777");
        assert_eq!(masked("naïve 500", "500"), "naïve *");
    }

    #[test]
    fn equal_keys_are_numbered_in_order() {
        let keys = ["a", "b", "a", "a", "a#2"].map(String::from);
        assert_eq!(
            numbered(keys.into_iter()),
            ["a", "b", "a#3", "a#4", "a#2"].map(String::from)
        );
    }
}
