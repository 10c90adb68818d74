//! The process's allocator: mimalloc, giving freed memory back to the kernel soon.
//!
//! Why (BENCHMARKS.md, "The allocator"): a load builds each table from records it
//! then frees. glibc keeps freed blocks under its mmap threshold in the arena of the
//! thread that freed them, where the next family's blocks (other sizes, other
//! threads) mostly do not fit, so at 10 GB the process held 8.5 GB at its peak for a
//! model of about 5 GB. mimalloc purges freed pages after a short delay: the peak falls
//! to about 5 GB and the kernel spends less time reclaiming and zeroing. Transparent
//! huge pages stay off (the `no_thp` feature): on this kind of VM zeroing 2 MiB pages
//! costs more kernel time than the faults they save.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in `mi_option_e` (mimalloc.h, v3): libmimalloc-sys names
/// no constant for it.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long freed memory stays committed (milliseconds) before mimalloc gives it
/// back. Call first thing in `main`, before any other thread starts: mimalloc's
/// options are not thread safe.
pub fn set_purge_delay_ms(ms: i32) {
    // SAFETY: a plain setter of a global option; no other thread runs yet.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, ms.into()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purge_delay_names_mimallocs_option() {
        // Only `purge_delay` defaults to 1000 (ms) in mimalloc v3: a new mimalloc whose
        // enum moved would make `PURGE_DELAY` another option, and this fail.
        assert_eq!(unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) }, 1000);
        set_purge_delay_ms(10);
        assert_eq!(unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) }, 10);
    }
}
