//! Per-span state of the `tracing` layer, keyed by span id.
//!
//! The layer could keep its state in the registry's span extensions, but every
//! access there looks the span up in the registry's slab (two reference-count
//! updates), takes the extensions' lock and hashes a `TypeId`, and inserting
//! boxes the value: together most of a span's cost. This table is a fixed set of
//! mutex-protected hash maps with a multiplicative hash of the id, so one access
//! is an uncontended lock, a probe and an unlock, and entries are stored inline
//! (no allocation per span once a shard has grown). The lock is a spin lock
//! (one exchange to take, one plain store to release): its critical sections
//! are a probe and a few stores, and never run user code.

use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

/// Shards: threads creating and entering spans at once rarely share one.
const SHARDS: usize = 64;

/// Hashes a span id (a `u64`) with one multiplication.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are used; this keeps the hasher total anyway.
        for &b in bytes {
            self.write_u64(u64::from(b) ^ self.0.rotate_left(8));
        }
    }
    #[inline]
    fn write_u64(&mut self, id: u64) {
        // Fibonacci hashing; the rotation moves the well-mixed high bits down to
        // where the map takes its bucket index.
        self.0 = id.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(32);
    }
}

type Map<T> = HashMap<u64, T, BuildHasherDefault<IdHasher>>;

#[repr(align(128))]
struct Shard<T> {
    locked: AtomicBool,
    map: UnsafeCell<Map<T>>,
}

// SAFETY: `map` is only reached through a `Locked`, which holds `locked`.
unsafe impl<T: Send> Sync for Shard<T> {}

struct Locked<'a, T>(&'a Shard<T>);

impl<T> Deref for Locked<'_, T> {
    type Target = Map<T>;
    fn deref(&self) -> &Map<T> {
        // SAFETY: this guard holds the shard's lock.
        unsafe { &*self.0.map.get() }
    }
}

impl<T> DerefMut for Locked<'_, T> {
    fn deref_mut(&mut self) -> &mut Map<T> {
        // SAFETY: this guard holds the shard's lock.
        unsafe { &mut *self.0.map.get() }
    }
}

impl<T> Drop for Locked<'_, T> {
    #[inline]
    fn drop(&mut self) {
        self.0.locked.store(false, Ordering::Release);
    }
}

/// Values of type `T` keyed by span id.
pub(crate) struct SpanTable<T> {
    shards: Box<[Shard<T>]>,
}

impl<T> SpanTable<T> {
    pub fn new() -> SpanTable<T> {
        SpanTable {
            shards: (0..SHARDS)
                .map(|_| Shard {
                    locked: AtomicBool::new(false),
                    map: UnsafeCell::new(Map::default()),
                })
                .collect(),
        }
    }

    #[inline]
    fn shard(&self, id: u64) -> Locked<'_, T> {
        let i = (id.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize % SHARDS;
        let shard = &self.shards[i];
        let mut spins = 0u32;
        while shard.locked.swap(true, Ordering::Acquire) {
            // Held by a thread that may be descheduled: stop burning its CPU.
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        Locked(shard)
    }

    pub fn insert(&self, id: u64, value: T) {
        self.shard(id).insert(id, value);
    }

    /// Runs `f` on the value of `id`, if there is one, under its shard's lock.
    #[inline]
    pub fn with<R>(&self, id: u64, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        self.shard(id).get_mut(&id).map(f)
    }

    pub fn remove(&self, id: u64) -> Option<T> {
        self.shard(id).remove(&id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_update_remove() {
        let t = SpanTable::new();
        for id in 1..1000u64 {
            t.insert(id << 20 | 7, id);
        }
        assert_eq!(t.with(5 << 20 | 7, |v| *v), Some(5));
        assert_eq!(t.with(5 << 20 | 7, |v| std::mem::replace(v, 50)), Some(5));
        assert_eq!(t.remove(5 << 20 | 7), Some(50));
        assert_eq!(t.remove(5 << 20 | 7), None);
        assert_eq!(t.with(5 << 20 | 7, |v| *v), None);
        assert_eq!(t.with(999 << 20 | 7, |v| *v), Some(999));
    }
}
