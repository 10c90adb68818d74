//! Per-thread event buffers: single-producer single-consumer rings of 64-bit words.
//!
//! The owning thread appends records without locks or allocation; the writer
//! thread is the only consumer. A record never wraps: when it does not fit before
//! the end of the buffer, a padding record fills the rest and it starts at 0.
//! When the ring is full the event is dropped and counted, never blocked on.

use std::cell::{Cell, UnsafeCell};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::record::{header, KIND_PAD};

/// Default ring size per thread: 4 MiB.
pub const DEFAULT_BUFFER_BYTES: usize = 4 << 20;
/// Smallest ring: large enough for the largest record (see `record::MAX_STR`).
pub const MIN_BUFFER_BYTES: usize = 256 << 10;

/// Ring size, in words, for threads that register from now on.
static RING_WORDS: AtomicUsize = AtomicUsize::new(DEFAULT_BUFFER_BYTES / 8);
/// Events that found no usable ring (recorded during thread teardown).
pub(crate) static ORPHAN_DROPS: AtomicU64 = AtomicU64::new(0);

pub(crate) fn set_buffer_bytes(bytes: usize) {
    let words = (bytes.max(MIN_BUFFER_BYTES) / 8).next_power_of_two();
    RING_WORDS.store(words, Ordering::Relaxed);
}

#[repr(align(128))]
struct Padded<T>(T);

/// What only the owning thread touches, in one cache line.
struct Producer {
    /// Next free position (words written since the ring was made).
    head: u64,
    /// Positions below this can be written without looking at the consumer or
    /// the end of the buffer: min(tail seen last + capacity, start of next lap).
    limit: u64,
    base: *mut u64,
    mask: u64,
}

/// Names and sort order of a thread, written as metadata events.
#[derive(Clone, Debug, Default)]
pub(crate) struct ThreadMeta {
    pub name: Option<String>,
    pub sort_index: Option<i64>,
    /// Bumped on every change so the writer knows to write it again.
    pub version: u64,
}

pub(crate) struct Ring {
    words: Box<[UnsafeCell<u64>]>,
    mask: u64,
    producer: Padded<UnsafeCell<Producer>>,
    /// Published end of the committed records (producer writes, Release).
    head: Padded<AtomicU64>,
    /// Start of the records not yet consumed (writer writes, Release).
    tail: Padded<AtomicU64>,
    /// Events dropped because the ring was full; the writer takes them with `swap`.
    pub dropped: AtomicU64,
    pub closed: AtomicBool,
    pub tid: u64,
    pub meta: Mutex<ThreadMeta>,
}

// SAFETY: `producer` and the words between head and tail+capacity are only
// touched by the owning thread; the rest are atomics or behind a mutex, and the
// head/tail Release/Acquire pairs order the word accesses between the two sides.
unsafe impl Sync for Ring {}
unsafe impl Send for Ring {}

impl Ring {
    fn new(words: usize, tid: u64, name: Option<String>) -> Ring {
        // Zeroed by the allocator (fresh pages from the OS for a large ring),
        // not by writing every word: a ring's pages are touched only as used.
        let zeroed = vec![0u64; words].into_boxed_slice();
        // SAFETY: `UnsafeCell<u64>` has the layout of `u64` (repr(transparent)).
        let buf: Box<[UnsafeCell<u64>]> =
            unsafe { Box::from_raw(Box::into_raw(zeroed) as *mut [UnsafeCell<u64>]) };
        let base = buf.as_ptr() as *mut u64;
        Ring {
            words: buf,
            mask: words as u64 - 1,
            producer: Padded(UnsafeCell::new(Producer {
                head: 0,
                limit: words as u64,
                base,
                mask: words as u64 - 1,
            })),
            head: Padded(AtomicU64::new(0)),
            tail: Padded(AtomicU64::new(0)),
            dropped: AtomicU64::new(0),
            closed: AtomicBool::new(false),
            tid,
            meta: Mutex::new(ThreadMeta {
                version: u64::from(name.is_some()),
                name,
                sort_index: None,
            }),
        }
    }

    fn capacity(&self) -> u64 {
        self.mask + 1
    }

    /// Reserves `len` contiguous words for one record; None (and a counted
    /// drop) when the ring is full. Follow with [`Ring::commit`].
    ///
    /// # Safety
    /// Only the owning thread may call this, not re-entrantly, with `len` at
    /// most a quarter of the capacity.
    #[inline(always)]
    pub(crate) unsafe fn reserve(&self, len: usize) -> Option<*mut u64> {
        let p = &mut *self.producer.0.get();
        if p.head + len as u64 <= p.limit {
            return Some(p.base.add((p.head & p.mask) as usize));
        }
        self.reserve_slow(len as u64)
    }

    /// Publishes the record reserved last.
    ///
    /// # Safety
    /// As for `reserve`, after a successful `reserve(len)` whose words are written.
    #[inline(always)]
    pub(crate) unsafe fn commit(&self, len: usize) {
        let p = &mut *self.producer.0.get();
        p.head += len as u64;
        self.head.0.store(p.head, Ordering::Release);
    }

    #[cold]
    #[inline(never)]
    unsafe fn reserve_slow(&self, len: u64) -> Option<*mut u64> {
        let p = &mut *self.producer.0.get();
        let cap = self.capacity();
        let tail = self.tail.0.load(Ordering::Acquire);
        let room_to_end = cap - (p.head & p.mask);
        let need = if len <= room_to_end {
            len
        } else {
            room_to_end + len
        };
        if p.head + need - tail > cap {
            p.limit = tail + cap;
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        if len > room_to_end {
            // Fill the rest of this lap with padding; the record starts at 0.
            *p.base.add((p.head & p.mask) as usize) = header(room_to_end as usize, KIND_PAD, 0, 0);
            p.head += room_to_end;
            self.head.0.store(p.head, Ordering::Release);
        }
        let lap_end = (p.head | p.mask) + 1;
        p.limit = (tail + cap).min(lap_end);
        Some(p.base.add((p.head & p.mask) as usize))
    }

    #[cfg(test)]
    unsafe fn push(&self, len: usize, fill: impl FnOnce(*mut u64)) -> bool {
        match self.reserve(len) {
            Some(dst) => {
                fill(dst);
                self.commit(len);
                true
            }
            None => false,
        }
    }

    /// The committed records: `(tail, head)` positions.
    pub(crate) fn pending(&self) -> (u64, u64) {
        let head = self.head.0.load(Ordering::Acquire);
        (self.tail.0.load(Ordering::Relaxed), head)
    }

    /// The words at `pos..pos + len` (which must not wrap).
    ///
    /// # Safety
    /// Only the consumer may call this, for positions between tail and head.
    pub(crate) unsafe fn words(&self, pos: u64, len: usize) -> &[u64] {
        let start = (pos & self.mask) as usize;
        let len = len.min(self.words.len() - start);
        std::slice::from_raw_parts((self.words.as_ptr() as *const u64).add(start), len)
    }

    /// Words from `pos` to the end of the buffer.
    pub(crate) fn room_to_end(&self, pos: u64) -> u64 {
        self.capacity() - (pos & self.mask)
    }

    /// Gives consumed space back to the producer.
    pub(crate) fn release(&self, tail: u64) {
        self.tail.0.store(tail, Ordering::Release);
    }

    pub(crate) fn meta(&self) -> MutexGuard<'_, ThreadMeta> {
        self.meta.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Every live ring; the writer drains them and removes those of exited threads.
static REGISTRY: Mutex<Vec<Arc<Ring>>> = Mutex::new(Vec::new());

pub(crate) fn registry() -> MutexGuard<'static, Vec<Arc<Ring>>> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Marks a thread whose ring is gone (thread-local teardown has begun).
#[allow(clippy::manual_dangling_ptr)] // a sentinel compared by address, never read
const DEAD: *const Ring = 1 as *const Ring;

thread_local! {
    /// The current thread's ring; a const initializer and no destructor keep the
    /// access a single TLS load.
    static CURRENT: Cell<*const Ring> = const { Cell::new(ptr::null()) };
    /// Keeps the ring alive and marks it closed when the thread exits.
    static OWNER: Owner = const { Owner(UnsafeCell::new(None)) };
}

struct Owner(UnsafeCell<Option<Arc<Ring>>>);

impl Drop for Owner {
    fn drop(&mut self) {
        let _ = CURRENT.try_with(|c| c.set(DEAD));
        if let Some(ring) = self.0.get_mut().take() {
            ring.closed.store(true, Ordering::Release);
        }
    }
}

/// The current thread's ring, registered on first use. None (and the event
/// counted as dropped) during thread teardown.
#[inline(always)]
pub(crate) fn current() -> Option<&'static Ring> {
    let p = CURRENT.with(|c| c.get());
    if p as usize > DEAD as usize {
        // SAFETY: the ring is kept alive by OWNER until CURRENT is set to DEAD,
        // and the reference is only used by this thread before it returns.
        Some(unsafe { &*p })
    } else {
        current_slow()
    }
}

#[cold]
#[inline(never)]
fn current_slow() -> Option<&'static Ring> {
    let ring = register_current();
    if ring.is_none() {
        ORPHAN_DROPS.fetch_add(1, Ordering::Relaxed);
    }
    ring
}

fn register_current() -> Option<&'static Ring> {
    if CURRENT.with(|c| c.get()) == DEAD {
        return None;
    }
    let ring = Arc::new(Ring::new(
        RING_WORDS.load(Ordering::Relaxed),
        os_tid(),
        thread_name(),
    ));
    let ptr = Arc::as_ptr(&ring);
    let stored = OWNER.try_with(|o| {
        // SAFETY: OWNER is only touched by this thread, never re-entrantly.
        unsafe { *o.0.get() = Some(ring.clone()) };
    });
    if stored.is_err() {
        return None;
    }
    registry().push(ring);
    CURRENT.with(|c| c.set(ptr));
    // SAFETY: OWNER holds a reference until thread teardown, after which
    // CURRENT is DEAD and this pointer is never used again.
    Some(unsafe { &*ptr })
}

/// The OS thread id (Linux `gettid`), as Chrome writes it.
pub fn os_tid() -> u64 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid has no arguments and cannot fail.
        unsafe { libc::syscall(libc::SYS_gettid) as u64 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        thread_local!(static TID: u64 = NEXT.fetch_add(1, Ordering::Relaxed));
        TID.with(|t| *t)
    }
}

fn thread_name() -> Option<String> {
    if let Some(name) = std::thread::current().name() {
        return Some(name.to_string());
    }
    #[cfg(target_os = "linux")]
    {
        // Threads named by C code (pthread_setname_np) carry the name here.
        let mut buf = [0u8; 64];
        // SAFETY: buf is writable for its length.
        let rc = unsafe {
            libc::pthread_getname_np(libc::pthread_self(), buf.as_mut_ptr().cast(), buf.len())
        };
        if rc == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            if end > 0 {
                return Some(String::from_utf8_lossy(&buf[..end]).into_owned());
            }
        }
    }
    None
}

/// Runs `f` on the current thread's metadata (registering its ring if needed)
/// and marks it for writing.
pub(crate) fn update_thread_meta(f: impl FnOnce(&mut ThreadMeta)) {
    if let Some(ring) = current() {
        let mut meta = ring.meta();
        f(&mut meta);
        meta.version += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{header_kind, header_len, KIND_INSTANT_T};

    #[test]
    fn push_wraps_with_padding_and_drops_when_full() {
        let ring = Ring::new(16, 1, None);
        let rec = |ring: &Ring, len: usize| unsafe {
            ring.push(len, |p| {
                *p = header(len, KIND_INSTANT_T, 0, 0);
                for i in 1..len {
                    *p.add(i) = i as u64;
                }
            })
        };
        assert!(rec(&ring, 6));
        assert!(rec(&ring, 6));
        // 4 words left before the end, 4 free: a 6-word record does not fit.
        assert!(!rec(&ring, 6));
        assert_eq!(ring.dropped.load(Ordering::Relaxed), 1);
        let (tail, head) = ring.pending();
        assert_eq!((tail, head), (0, 12));
        ring.release(12);
        // Now it pads the last 4 words and starts again at 0.
        assert!(rec(&ring, 6));
        let (tail, head) = ring.pending();
        assert_eq!((tail, head), (12, 22));
        let pad = unsafe { ring.words(12, 1) }[0];
        assert_eq!(header_kind(pad), KIND_PAD);
        assert_eq!(header_len(pad), 4);
        let rec0 = unsafe { ring.words(16, 6) };
        assert_eq!(header_len(rec0[0]), 6);
        assert_eq!(&rec0[1..], &[1, 2, 3, 4, 5]);
    }
}
