//! `GET /api/search`: every match, paged. A search runs once in the background
//! (`tracescope_model::query::search::search_windows`, matches streaming in time
//! order) and is kept while the page asks for its pages; the same question asked
//! again (another page, another order) reads the same run.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

use axum::extract::{RawQuery, State};
use axum::response::Response;
use tracescope_model::query::search::{search_windows, Fields, Hit, HitKind, Pattern, SearchQuery};
use tracescope_model::Trace;

use super::analysis::flag;
use super::encode::hit_place;
use super::json::Obj;
use super::routes::{bad, run, ApiError, AppState, Params, St};

/// Searches kept at once (the oldest is stopped and dropped).
const KEPT: usize = 4;
/// Matches kept per search at most: 16 bytes each.
const MAX_HITS: usize = 32 << 20;
const MAX_QUERY: usize = 1000;
const MAX_LIMIT: usize = 10_000;
const DEFAULT_LIMIT: usize = 1000;
/// How long a request waits for its page by default, in ms.
const DEFAULT_WAIT: u64 = 150;
const MAX_WAIT: u64 = 10_000;

/// The question, as the search is found again by it.
#[derive(Clone, PartialEq, Eq)]
struct Key {
    q: String,
    regex: bool,
    fields: String,
}

/// One search, running or done.
struct Job {
    key: Key,
    id: u64,
    hits: RwLock<Vec<Hit>>,
    done: AtomicBool,
    capped: AtomicBool,
    cancel: AtomicBool,
    /// Rows of `hits` by duration (longest first, then time), once done.
    by_dur: OnceLock<Vec<u32>>,
    /// Notified when matches arrive or the search ends.
    changed: (Mutex<()>, Condvar),
}

impl Job {
    fn notify(&self) {
        let _guard = self.changed.0.lock();
        self.changed.1.notify_all();
    }

    /// Waits until `ready` holds, the search is done, or `deadline`.
    fn wait(&self, deadline: Instant, ready: impl Fn(&Job) -> bool) {
        let mut guard = self.changed.0.lock().unwrap_or_else(|e| e.into_inner());
        while !ready(self) && !self.done.load(Ordering::Acquire) {
            let now = Instant::now();
            if now >= deadline {
                return;
            }
            guard = self
                .changed
                .1
                .wait_timeout(guard, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// The searches of one served trace.
#[derive(Default)]
pub struct Jobs {
    list: Mutex<Vec<Arc<Job>>>,
    next: AtomicU64,
}

impl Jobs {
    /// The search for `key`, started if new.
    fn get(&self, state: &Arc<AppState>, key: Key, q: SearchQuery) -> Arc<Job> {
        let mut list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(j) = list.iter().find(|j| j.key == key) {
            return j.clone();
        }
        let job = Arc::new(Job {
            key,
            id: self.next.fetch_add(1, Ordering::Relaxed) + 1,
            hits: RwLock::new(Vec::new()),
            done: AtomicBool::new(false),
            capped: AtomicBool::new(false),
            cancel: AtomicBool::new(false),
            by_dur: OnceLock::new(),
            changed: (Mutex::new(()), Condvar::new()),
        });
        if list.len() >= KEPT {
            let old = list.remove(0);
            old.cancel.store(true, Ordering::Relaxed);
        }
        list.push(job.clone());
        let (state, j) = (state.clone(), job.clone());
        std::thread::spawn(move || {
            search_windows(&state.trace, &state.index, &q, &j.cancel, |w| {
                if w.is_empty() {
                    return;
                }
                let mut hits = j.hits.write().unwrap_or_else(|e| e.into_inner());
                let room = MAX_HITS.saturating_sub(hits.len());
                if w.len() > room {
                    j.capped.store(true, Ordering::Relaxed);
                    j.cancel.store(true, Ordering::Relaxed);
                }
                hits.extend(w.into_iter().take(room));
                drop(hits);
                j.notify();
            });
            j.done.store(true, Ordering::Release);
            j.notify();
        });
        job
    }
}

fn duration(trace: &Trace, h: &Hit) -> i64 {
    let t = &trace.tables;
    match h.kind {
        HitKind::Slice => t.slices.dur(h.id as usize),
        HitKind::Async => t.async_slices.dur[h.id as usize],
        HitKind::Instant => 0,
    }
}

/// Rows of `hits` longest first (then in time order).
fn by_duration(trace: &Trace, hits: &[Hit]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..hits.len() as u32).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(duration(trace, &hits[i as usize])), i));
    order
}

pub async fn search(State(s): St, RawQuery(q): RawQuery) -> Response {
    let state = s.clone();
    run(s, move |s| answer(&state, s, q)).await
}

fn answer(state: &Arc<AppState>, s: &AppState, q: Option<String>) -> Result<String, ApiError> {
    let p = Params::parse(q)?;
    let text = p.need("q")?;
    if text.is_empty() || text.len() > MAX_QUERY {
        return Err(bad(format!("q must be 1 to {MAX_QUERY} bytes")));
    }
    let regex = flag(&p, "regex")?;
    let fields_text = p.get("fields").unwrap_or("names,cats,args,ids");
    let fields = Fields::parse(fields_text)
        .ok_or_else(|| bad("fields must be a list of names, cats, args, ids"))?;
    let limit = p.count("limit", 1, MAX_LIMIT, Some(DEFAULT_LIMIT))?;
    let offset = p.count("offset", 0, u32::MAX as usize, Some(0))?;
    let by_dur = match p.get("sort").unwrap_or("time") {
        "time" => false,
        "duration" => true,
        _ => return Err(bad("sort must be time or duration")),
    };
    let descending = match p.get("order") {
        None => by_dur,
        Some("asc") => false,
        Some("desc") => true,
        Some(_) => return Err(bad("order must be asc or desc")),
    };
    let default_wait = if by_dur || descending || p.get("until") == Some("done") {
        MAX_WAIT
    } else {
        DEFAULT_WAIT
    };
    let wait = p.count("wait", 0, MAX_WAIT as usize, Some(default_wait as usize))? as u64;
    let pattern = Pattern::new(text, regex).map_err(bad)?;
    let key = Key {
        q: text.to_string(),
        regex,
        fields: fields_text.to_string(),
    };
    let job = s
        .searches
        .get(state, key, SearchQuery::new(pattern, fields));
    let deadline = Instant::now() + Duration::from_millis(wait);
    // A page in time order is final once the matches reach past it; any other
    // order needs them all.
    let in_order = !by_dur && !descending;
    let until_done = match p.get("until").unwrap_or("page") {
        "page" => false,
        "done" => true,
        _ => return Err(bad("until must be page or done")),
    };
    job.wait(deadline, |j| {
        in_order
            && !until_done
            && j.hits.read().map_or(0, |h| h.len()) >= offset.saturating_add(limit)
    });
    let done = job.done.load(Ordering::Acquire);
    let hits = job.hits.read().unwrap_or_else(|e| e.into_inner());
    let n = hits.len();
    let t = &s.trace;
    let rows: Vec<usize> = if by_dur {
        let fresh;
        let order: &[u32] = if done {
            job.by_dur.get_or_init(|| by_duration(t, &hits))
        } else {
            fresh = by_duration(t, &hits);
            &fresh
        };
        let pick = |k: usize| if descending { k } else { n - 1 - k };
        (offset..n.min(offset.saturating_add(limit)))
            .map(|k| order[pick(k)] as usize)
            .collect()
    } else {
        (offset..n.min(offset.saturating_add(limit)))
            .map(|k| if descending { n - 1 - k } else { k })
            .collect()
    };
    let page: Vec<Hit> = rows.iter().map(|&i| hits[i]).collect();
    drop(hits);
    let places: Vec<_> = page.iter().map(|h| hit_place(t, h)).collect();
    Ok(Obj::new()
        .num("search", job.id)
        .bool("done", done)
        .bool("capped", job.capped.load(Ordering::Relaxed))
        .num("total", n)
        .num("offset", offset)
        .str("sort", if by_dur { "duration" } else { "time" })
        .str("order", if descending { "desc" } else { "asc" })
        .nums("ts", page.iter().map(|h| h.ts))
        .nums("dur", page.iter().map(|h| duration(t, h)))
        .strs("kind", page.iter().map(|h| h.kind.as_str()))
        .nums("id", page.iter().map(|h| h.id))
        .strs("track", places.iter().map(|p| p.0.as_str()))
        .nums("row", places.iter().map(|p| p.1))
        .strs("name", places.iter().map(|p| t.name(p.3)))
        .strs("field", page.iter().map(|h| h.field.as_str()))
        .finish())
}
