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
//! `Renderer` of the other trace.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::trace::Trace;

/// The key of every process, indexed by [`ProcessId`](crate::ProcessId).
pub fn process_keys(trace: &Trace) -> Vec<String> {
    let bare = trace.tables.processes.iter().map(|p| {
        let name = (!p.name.is_none()).then(|| trace.str(p.name));
        let labels = (!p.labels.is_none()).then(|| trace.str(p.labels));
        match (name, labels) {
            (Some(n), Some(l)) => format!("{n} [{l}]"),
            (Some(n), None) => n.to_string(),
            (None, Some(l)) => format!("[{l}]"),
            (None, None) => format!("pid {}", trace.pid_text(p.pid)),
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
        let thread = if t.name.is_none() {
            format!("tid {}", trace.pid_text(t.tid))
        } else {
            trace.str(t.name).to_string()
        };
        format!("{}/{thread}", processes[t.process.index()])
    });
    numbered(bare)
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
    use super::numbered;

    #[test]
    fn equal_keys_are_numbered_in_order() {
        let keys = ["a", "b", "a", "a", "a#2"].map(String::from);
        assert_eq!(
            numbered(keys.into_iter()),
            ["a", "b", "a#3", "a#4", "a#2"].map(String::from)
        );
    }
}
