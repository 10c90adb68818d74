//! Giving the heap's free pages back to the kernel between build steps.

/// Returns the whole free pages of every malloc arena to the kernel (glibc's
/// `malloc_trim`; elsewhere nothing).
///
/// Blocks under glibc's mmap threshold (128 KiB, set by the binary) come from the
/// arenas, and freeing them leaves their pages resident: the parts' small record
/// vectors once joined, the profile chunks' samples once in the sample table.
/// The steps after them allocate their large buffers as mappings of their own and
/// cannot reuse those pages, so they stayed in the process's memory at its peak
/// (BENCHMARKS.md, "The model's peak, round 10").
pub(crate) fn free_heap_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: `malloc_trim` has no preconditions: it takes each arena's lock,
        // releases whole pages of free chunks with `madvise`, and leaves every
        // block in use untouched; any thread may call it at any time.
        unsafe {
            malloc_trim(0);
        }
    }
}
