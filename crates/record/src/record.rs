//! The binary record a trace point appends to its thread's ring.
//!
//! Layout, in 64-bit words:
//! `[header][ticks][site][id if F_ID][bind id if F_FLOW_IN or F_FLOW_OUT]`
//! `[name if F_DYN_NAME][args]`.
//! The header packs the record length, its kind, flags and one 4-bit type tag per
//! typed argument; strings are a length word followed by their bytes. Names,
//! categories and argument names stay behind the `site` pointer (a `'static`
//! [`Callsite`]), so the common event is three words and the JSON is produced by
//! the writer thread, off the hot path.

use std::marker::PhantomData;

use crate::args::ArgList;
use crate::callsite::Callsite;
use crate::{clock, ring, session};

pub const KIND_PAD: u8 = 0;
pub const KIND_BEGIN: u8 = 1;
pub const KIND_END: u8 = 2;
pub const KIND_INSTANT_T: u8 = 3;
pub const KIND_INSTANT_P: u8 = 4;
pub const KIND_INSTANT_G: u8 = 5;
pub const KIND_COUNTER: u8 = 6;
pub const KIND_ASYNC_BEGIN: u8 = 7;
pub const KIND_ASYNC_STEP: u8 = 8;
pub const KIND_ASYNC_END: u8 = 9;
pub const KIND_FLOW_START: u8 = 10;
pub const KIND_FLOW_STEP: u8 = 11;
pub const KIND_FLOW_END: u8 = 12;
pub const KIND_OBJECT_NEW: u8 = 13;
pub const KIND_OBJECT_SNAPSHOT: u8 = 14;
pub const KIND_OBJECT_DELETE: u8 = 15;
pub const KIND_LEGACY_ASYNC_BEGIN: u8 = 16;
pub const KIND_LEGACY_ASYNC_STEP_INTO: u8 = 17;
pub const KIND_LEGACY_ASYNC_STEP_PAST: u8 = 18;
pub const KIND_LEGACY_ASYNC_END: u8 = 19;

/// The record carries an id word.
pub(crate) const F_ID: u8 = 1;
/// The record carries its name as a string (the site's name is unused).
pub(crate) const F_DYN_NAME: u8 = 2;
/// The event is written without a name (the `E` of a dynamically named scope).
pub(crate) const F_NO_NAME: u8 = 4;
/// `site` points to a `tracing::Metadata`, not a [`Callsite`].
pub(crate) const F_TRACING: u8 = 8;
/// The arguments are one string holding a JSON object body, already escaped.
pub(crate) const F_JSON_ARGS: u8 = 16;
/// A v2 flow ends at this slice (`flow_in`); the record carries a bind id word.
pub const F_FLOW_IN: u8 = 32;
/// A v2 flow starts at this slice (`flow_out`); the record carries a bind id word.
pub const F_FLOW_OUT: u8 = 64;

/// Strings longer than this are cut (at a character boundary) when recorded.
pub const MAX_STR: usize = 4096;

#[inline(always)]
pub(crate) const fn header(len: usize, kind: u8, flags: u8, tags: u64) -> u64 {
    (len as u64 & 0xffff) | (kind as u64) << 16 | (flags as u64) << 24 | tags << 32
}
pub(crate) const fn header_len(h: u64) -> usize {
    (h & 0xffff) as usize
}
pub(crate) const fn header_kind(h: u64) -> u8 {
    (h >> 16) as u8
}
pub(crate) const fn header_flags(h: u64) -> u8 {
    (h >> 24) as u8
}
pub(crate) const fn header_tags(h: u64) -> u32 {
    (h >> 32) as u32
}

/// Cuts `s` to at most [`MAX_STR`] bytes at a character boundary.
#[inline]
pub(crate) fn clip(s: &str) -> &str {
    if s.len() <= MAX_STR {
        return s;
    }
    let mut end = MAX_STR;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Words taken by a string: its length word and its bytes.
#[inline(always)]
pub(crate) const fn str_words(len: usize) -> usize {
    1 + len.div_ceil(8)
}

/// Writes a length word and the bytes; returns the word after them.
///
/// # Safety
/// `p` must have room for `str_words(bytes.len())` words.
#[inline(always)]
pub(crate) unsafe fn write_str(p: *mut u64, bytes: &[u8]) -> *mut u64 {
    *p = bytes.len() as u64;
    std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.add(1).cast::<u8>(), bytes.len());
    p.add(str_words(bytes.len()))
}

/// Appends one event to the current thread's ring. Returns whether it was kept
/// (false when the ring was full or the thread is exiting; both are counted).
#[inline(always)]
#[allow(clippy::too_many_arguments)] // one call per event kind, all inlined
pub(crate) fn write<A: ArgList>(
    kind: u8,
    mut flags: u8,
    ticks: Option<u64>,
    site: usize,
    id: Option<u64>,
    bind: Option<u64>,
    name: Option<&str>,
    args: &A,
) -> bool {
    let name = name.map(clip);
    if id.is_some() {
        flags |= F_ID;
    }
    // A bind id is written exactly when one of the flow flags says so.
    let bind = if flags & (F_FLOW_IN | F_FLOW_OUT) != 0 {
        Some(bind.unwrap_or(0))
    } else {
        None
    };
    if name.is_some() {
        flags |= F_DYN_NAME;
    }
    let len = 3
        + usize::from(id.is_some())
        + usize::from(bind.is_some())
        + name.map_or(0, |n| str_words(n.len()))
        + args.words();
    let Some(ring) = ring::current() else {
        return false;
    };
    let t = match ticks {
        Some(t) => t,
        None => clock::ticks(),
    };
    // SAFETY: `current` is the calling thread's own ring, nothing below records
    // events (arguments were converted beforehand), and `len` is bounded by
    // `MAX_STR` to far below a quarter of the smallest ring.
    unsafe {
        let Some(p) = ring.reserve(len) else {
            return false;
        };
        *p = header(len, kind, flags, args.tags());
        *p.add(1) = t;
        *p.add(2) = site as u64;
        let mut q = p.add(3);
        if let Some(id) = id {
            *q = id;
            q = q.add(1);
        }
        if let Some(bind) = bind {
            *q = bind;
            q = q.add(1);
        }
        if let Some(name) = name {
            q = write_str(q, name.as_bytes());
        }
        args.write(q);
        ring.commit(len);
    }
    true
}

/// Records one event of a [`Callsite`]; used by the macros. `flow` is the v2
/// flow binding: `F_FLOW_IN`/`F_FLOW_OUT` flags and the bind id.
#[doc(hidden)]
#[inline(always)]
pub fn emit<A: ArgList>(
    site: &'static Callsite,
    kind: u8,
    id: Option<u64>,
    flow: (u8, u64),
    name: Option<&str>,
    args: A,
) -> bool {
    write(
        kind,
        flow.0,
        None,
        site as *const Callsite as usize,
        id,
        Some(flow.1),
        name,
        &args,
    )
}

/// Records a `B` event and returns the guard that records its `E`.
#[doc(hidden)]
#[inline(always)]
pub fn scope<A: ArgList>(
    site: &'static Callsite,
    flow: (u8, u64),
    name: Option<&str>,
    args: A,
) -> ScopeGuard {
    let dynamic = name.is_some();
    if emit(site, KIND_BEGIN, None, flow, name, args) {
        ScopeGuard {
            site: Some(site),
            flags: if dynamic { F_NO_NAME } else { 0 },
            session: session::current_id(),
            _not_send: PhantomData,
        }
    } else {
        ScopeGuard::disabled()
    }
}

/// Ends a scoped slice when dropped (an `E` event on the thread that began it).
///
/// Returned by [`trace_scope!`](crate::trace_scope); `trace_event!` keeps one
/// in a hidden local. When the `B` was not recorded (category off, ring full)
/// the guard records nothing, so begins and ends stay balanced.
#[must_use = "the slice ends when this guard is dropped"]
pub struct ScopeGuard {
    site: Option<&'static Callsite>,
    flags: u8,
    session: u32,
    _not_send: PhantomData<*const ()>,
}

impl ScopeGuard {
    /// A guard that records nothing.
    #[inline(always)]
    pub fn disabled() -> ScopeGuard {
        ScopeGuard {
            site: None,
            flags: 0,
            session: 0,
            _not_send: PhantomData,
        }
    }

    /// Whether the slice's begin was recorded.
    pub fn is_recording(&self) -> bool {
        self.site.is_some()
    }
}

impl Drop for ScopeGuard {
    #[inline(always)]
    fn drop(&mut self) {
        if let Some(site) = self.site {
            // An end belongs to the session that recorded its begin.
            if session::current_id() == self.session {
                write(
                    KIND_END,
                    self.flags,
                    None,
                    site as *const Callsite as usize,
                    None,
                    None,
                    None,
                    &(),
                );
            }
        }
    }
}
