//! Processes and threads named by events, shared by parts read in parallel.

use std::sync::Mutex;

use rustc_hash::FxHashMap;

use crate::strings::StrId;
use crate::tables::{PidK, Process, ProcessId, Thread, ThreadId};

#[derive(Clone, Debug, Default)]
pub struct Registry {
    pub processes: Vec<Process>,
    pub threads: Vec<Thread>,
    /// By file (0 for one file; each of several files has its own pids) and pid.
    process_map: FxHashMap<(u32, PidK), ProcessId>,
    /// The file of each process.
    pub process_file: Vec<u32>,
    thread_map: FxHashMap<(ProcessId, PidK), ThreadId>,
    /// Offset of the first event naming each process and thread: parts register
    /// them in a racy order, this gives the deterministic one.
    process_first: Vec<u64>,
    thread_first: Vec<u64>,
}

impl Registry {
    /// The process of `pid`, made if new (after reading: ordered after those read).
    pub fn process(&mut self, pid: PidK) -> ProcessId {
        self.process_at((0, pid), u64::MAX)
    }

    /// [`Registry::process`] of one file among several.
    pub fn process_in(&mut self, file: u32, pid: PidK) -> ProcessId {
        self.process_at((file, pid), u64::MAX)
    }

    pub fn thread(&mut self, process: ProcessId, tid: PidK) -> ThreadId {
        self.thread_at(process, tid, u64::MAX)
    }

    fn process_at(&mut self, key: (u32, PidK), offset: u64) -> ProcessId {
        if let Some(&p) = self.process_map.get(&key) {
            let f = &mut self.process_first[p.index()];
            *f = (*f).min(offset);
            return p;
        }
        self.process_first.push(offset);
        self.process_file.push(key.0);
        let p = ProcessId::at(self.processes.len());
        self.processes.push(Process {
            pid: key.1,
            name: StrId::NONE,
            sort_index: None,
            labels: StrId::NONE,
            uptime_seconds: None,
            frame_url: StrId::NONE,
            renders_frames: false,
        });
        self.process_map.insert(key, p);
        p
    }

    fn thread_at(&mut self, process: ProcessId, tid: PidK, offset: u64) -> ThreadId {
        if let Some(&t) = self.thread_map.get(&(process, tid)) {
            let f = &mut self.thread_first[t.index()];
            *f = (*f).min(offset);
            return t;
        }
        self.thread_first.push(offset);
        let t = ThreadId::at(self.threads.len());
        self.threads.push(Thread {
            process,
            tid,
            name: StrId::NONE,
            sort_index: None,
        });
        self.thread_map.insert((process, tid), t);
        t
    }

    /// A process or thread named by a string pid/tid and by no metadata is named by
    /// that string (spec section 2: "any other string names its own process or
    /// thread and is also its display name").
    pub fn name_string_ids(&mut self) {
        for p in &mut self.processes {
            if let (PidK::Str(s), true) = (p.pid, p.name.is_none()) {
                p.name = s;
            }
        }
        for t in &mut self.threads {
            if let (PidK::Str(s), true) = (t.tid, t.name.is_none()) {
                t.name = s;
            }
        }
    }

    /// Keeps the processes and threads some record uses (a part read from a wrong
    /// guess of an event boundary may have named others before it was discarded),
    /// and renumbers them in order of first appearance in the input. Returns
    /// old-to-new id maps (`None` for those dropped).
    #[allow(clippy::type_complexity)]
    pub fn canonicalize(
        &mut self,
        used_p: &[bool],
        used_t: &[bool],
    ) -> (Vec<Option<ProcessId>>, Vec<Option<ThreadId>>) {
        let mut used_p = used_p.to_vec();
        for (t, th) in self.threads.iter().enumerate() {
            if used_t[t] {
                used_p[th.process.index()] = true;
            }
        }
        let order = |first: &[u64], used: &[bool]| {
            let mut o: Vec<u32> = (0..first.len() as u32)
                .filter(|&i| used[i as usize])
                .collect();
            o.sort_by_key(|&i| (first[i as usize], i));
            let mut remap = vec![None; first.len()];
            for (new, &old) in o.iter().enumerate() {
                remap[old as usize] = Some(new);
            }
            (o, remap)
        };
        let (porder, pmap) = order(&self.process_first, &used_p);
        let (torder, tmap) = order(&self.thread_first, used_t);
        let pmap: Vec<Option<ProcessId>> = pmap.into_iter().map(|n| n.map(ProcessId::at)).collect();
        let tmap: Vec<Option<ThreadId>> = tmap.into_iter().map(|n| n.map(ThreadId::at)).collect();
        self.processes = porder
            .iter()
            .map(|&i| self.processes[i as usize].clone())
            .collect();
        self.process_first = porder
            .iter()
            .map(|&i| self.process_first[i as usize])
            .collect();
        self.process_file = porder
            .iter()
            .map(|&i| self.process_file[i as usize])
            .collect();
        self.threads = torder
            .iter()
            .map(|&i| {
                let mut t = self.threads[i as usize].clone();
                t.process = pmap[t.process.index()].unwrap_or(t.process);
                t
            })
            .collect();
        self.thread_first = torder
            .iter()
            .map(|&i| self.thread_first[i as usize])
            .collect();
        self.process_map = self
            .processes
            .iter()
            .enumerate()
            .map(|(i, p)| ((self.process_file[i], p.pid), ProcessId::at(i)))
            .collect();
        self.thread_map = self
            .threads
            .iter()
            .enumerate()
            .map(|(i, t)| ((t.process, t.tid), ThreadId::at(i)))
            .collect();
        (pmap, tmap)
    }
}

#[derive(Debug, Default)]
pub struct SharedRegistry(pub Mutex<Registry>);

impl SharedRegistry {
    /// A copy of the registry so far (a followed trace builds each version from one).
    pub(crate) fn copy(&self) -> SharedRegistry {
        SharedRegistry(Mutex::new(self.lock().clone()))
    }

    pub fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A part's cache in front of [`SharedRegistry`], with the part's earliest offset
/// for each process and thread.
#[derive(Default)]
pub struct LocalRegistry {
    processes: FxHashMap<(u32, PidK), (ProcessId, u64)>,
    threads: FxHashMap<(ProcessId, PidK), (ThreadId, u64)>,
    /// The last process and thread looked up, with their entries' earliest offsets:
    /// events come in runs of one thread, so most lookups end here.
    last_process: Option<((u32, PidK), ProcessId, u64)>,
    last_thread: Option<((ProcessId, PidK), ThreadId, u64)>,
}

impl LocalRegistry {
    /// `offset` is the event's, `key` its file and pid.
    #[inline]
    pub fn process(&mut self, shared: &SharedRegistry, key: (u32, PidK), offset: u64) -> ProcessId {
        cached(
            &mut self.last_process,
            &mut self.processes,
            key,
            offset,
            || shared.lock().process_at(key, offset),
        )
    }

    #[inline]
    pub fn thread(
        &mut self,
        shared: &SharedRegistry,
        process: ProcessId,
        tid: PidK,
        offset: u64,
    ) -> ThreadId {
        cached(
            &mut self.last_thread,
            &mut self.threads,
            (process, tid),
            offset,
            || shared.lock().thread_at(process, tid, offset),
        )
    }

    /// Reports the part's earliest sighting of each process and thread. Offsets need
    /// not grow through a part (CTF events come in input order, their offsets in
    /// time order), so the first sighting is not always the earliest; without this
    /// the order of first appearance would depend on where parts begin.
    pub fn flush(&self, shared: &SharedRegistry) {
        let mut g = shared.lock();
        for (&key, &(_, offset)) in &self.processes {
            g.process_at(key, offset);
        }
        for (&(process, tid), &(_, offset)) in &self.threads {
            g.thread_at(process, tid, offset);
        }
    }
}

/// The id of `key` from the last lookup or the part's map (made by `make` if new),
/// keeping the earliest offset of each entry.
#[inline]
fn cached<K: Copy + Eq + std::hash::Hash, V: Copy>(
    last: &mut Option<(K, V, u64)>,
    map: &mut FxHashMap<K, (V, u64)>,
    key: K,
    offset: u64,
    make: impl FnOnce() -> V,
) -> V {
    match *last {
        // Not earlier than the entry's earliest: the entry stays as it is.
        Some((k, v, first)) if k == key && offset >= first => v,
        _ => {
            let e = map.entry(key).or_insert_with(|| (make(), offset));
            e.1 = e.1.min(offset);
            *last = Some((key, e.0, e.1));
            e.0
        }
    }
}
