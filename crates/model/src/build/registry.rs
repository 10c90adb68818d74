//! Processes and threads named by events, shared by parts read in parallel.

use std::sync::Mutex;

use rustc_hash::FxHashMap;

use crate::strings::StrId;
use crate::tables::{PidK, Process, Thread};

#[derive(Debug, Default)]
pub struct Registry {
    pub processes: Vec<Process>,
    pub threads: Vec<Thread>,
    process_map: FxHashMap<PidK, u32>,
    thread_map: FxHashMap<(u32, PidK), u32>,
}

impl Registry {
    pub fn process(&mut self, pid: PidK) -> u32 {
        if let Some(&p) = self.process_map.get(&pid) {
            return p;
        }
        let p = self.processes.len() as u32;
        self.processes.push(Process {
            pid,
            name: StrId::NONE,
            sort_index: None,
            labels: StrId::NONE,
            uptime_seconds: None,
            frame_url: StrId::NONE,
            renders_frames: false,
        });
        self.process_map.insert(pid, p);
        p
    }

    pub fn thread(&mut self, process: u32, tid: PidK) -> u32 {
        if let Some(&t) = self.thread_map.get(&(process, tid)) {
            return t;
        }
        let t = self.threads.len() as u32;
        self.threads.push(Thread {
            process,
            tid,
            name: StrId::NONE,
            sort_index: None,
        });
        self.thread_map.insert((process, tid), t);
        t
    }
}

#[derive(Debug, Default)]
pub struct SharedRegistry(pub Mutex<Registry>);

impl SharedRegistry {
    pub fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A part's cache in front of [`SharedRegistry`].
#[derive(Default)]
pub struct LocalRegistry {
    processes: FxHashMap<PidK, u32>,
    threads: FxHashMap<(u32, PidK), u32>,
}

impl LocalRegistry {
    pub fn process(&mut self, shared: &SharedRegistry, pid: PidK) -> u32 {
        *self
            .processes
            .entry(pid)
            .or_insert_with(|| shared.lock().process(pid))
    }

    pub fn thread(&mut self, shared: &SharedRegistry, process: u32, tid: PidK) -> u32 {
        *self
            .threads
            .entry((process, tid))
            .or_insert_with(|| shared.lock().thread(process, tid))
    }
}
