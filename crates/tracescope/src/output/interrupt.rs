//! Ctrl-C (SIGINT), SIGTERM and SIGHUP while writing: the temporaries are removed,
//! then the process dies of the signal as it would have without us.
//!
//! The handler only writes the signal number to a pipe (async-signal-safe); a thread
//! reading the pipe takes the lock of the temporaries (so a commit in progress
//! finishes its rename first), removes them, restores the default action and raises
//! the signal again.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// The temporaries of outputs not yet committed.
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn temps() -> MutexGuard<'static, Vec<PathBuf>> {
    TEMPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on the list of temporaries, with no interrupt cleanup running meanwhile.
pub fn while_locked<T>(f: impl FnOnce(&mut Vec<PathBuf>) -> T) -> T {
    f(&mut temps())
}

#[cfg(unix)]
pub use imp::install;

#[cfg(not(unix))]
pub fn install() {}

#[cfg(unix)]
mod imp {
    use std::sync::atomic::{AtomicI32, Ordering};
    use std::sync::Once;

    static PIPE_WRITE: AtomicI32 = AtomicI32::new(-1);
    const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    extern "C" fn on_signal(sig: libc::c_int) {
        let fd = PIPE_WRITE.load(Ordering::Relaxed);
        if fd >= 0 {
            let byte = sig as u8;
            // SAFETY: write(2) is async-signal-safe; errno is saved and restored.
            unsafe {
                let errno = *libc::__errno_location();
                libc::write(fd, (&byte as *const u8).cast(), 1);
                *libc::__errno_location() = errno;
            }
        }
    }

    /// Installs the handlers, once per process (on the first output made).
    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            let mut fds = [0 as libc::c_int; 2];
            // SAFETY: fds is a valid array of two ints.
            if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
                return;
            }
            let read_fd = fds[0];
            let spawned = std::thread::Builder::new()
                .name("tracescope-interrupt".into())
                .spawn(move || loop {
                    let mut byte = 0u8;
                    // SAFETY: reads one byte into a valid buffer.
                    let n = unsafe { libc::read(read_fd, (&mut byte as *mut u8).cast(), 1) };
                    if n == 1 {
                        clean_up_and_die(libc::c_int::from(byte));
                    } else if n < 0
                        && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                    {
                        continue;
                    } else {
                        return;
                    }
                });
            if spawned.is_err() {
                return;
            }
            PIPE_WRITE.store(fds[1], Ordering::Relaxed);
            for sig in SIGNALS {
                // SAFETY: a plain handler that only calls write(2).
                unsafe {
                    let mut sa: libc::sigaction = std::mem::zeroed();
                    sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                    sa.sa_flags = libc::SA_RESTART;
                    libc::sigemptyset(&mut sa.sa_mask);
                    libc::sigaction(sig, &sa, std::ptr::null_mut());
                }
            }
        });
    }

    fn clean_up_and_die(sig: libc::c_int) -> ! {
        // The lock is held to the end: no commit can rename a temporary after this.
        let temps = super::temps();
        for t in temps.iter() {
            super::super::remove_temp(t);
        }
        eprintln!("tracescope: interrupted; the unfinished output was removed");
        // SAFETY: restoring the default action and raising the signal again.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
        std::process::exit(128 + sig)
    }
}
