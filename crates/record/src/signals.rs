//! SIGINT/SIGTERM: end the trace cleanly, then die of the signal.
//!
//! The handler only writes the signal number to a pipe (async-signal-safe); a
//! thread reading the pipe stops the session (which drains and ends the trace),
//! restores the default action and raises the signal again, so the process
//! exits exactly as it would have without us.

#[cfg(unix)]
mod imp {
    use std::sync::atomic::{AtomicI32, Ordering};
    use std::sync::Once;

    static PIPE_WRITE: AtomicI32 = AtomicI32::new(-1);
    const SIGNALS: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

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
                .name("tracescope-signals".into())
                .spawn(move || loop {
                    let mut byte = 0u8;
                    // SAFETY: reading one byte into a valid buffer.
                    let n = unsafe { libc::read(read_fd, (&mut byte as *mut u8).cast(), 1) };
                    if n == 1 {
                        crate::session::stop(None);
                        // SAFETY: restoring the default action and re-raising is
                        // what the process would have done without us.
                        unsafe {
                            libc::signal(libc::c_int::from(byte), libc::SIG_DFL);
                            libc::raise(libc::c_int::from(byte));
                        }
                    } else if n < 0
                        && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
                    {
                        return;
                    }
                });
            if spawned.is_err() {
                return;
            }
            PIPE_WRITE.store(fds[1], Ordering::Relaxed);
            for sig in SIGNALS {
                // SAFETY: plain sigaction calls with valid, zero-initialised structs.
                unsafe {
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                        || old.sa_sigaction != libc::SIG_DFL
                    {
                        continue; // the program handles (or ignores) it: leave it be
                    }
                    let mut new: libc::sigaction = std::mem::zeroed();
                    new.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                    new.sa_flags = libc::SA_RESTART;
                    libc::sigemptyset(&mut new.sa_mask);
                    libc::sigaction(sig, &new, std::ptr::null_mut());
                }
            }
        });
    }
}

#[cfg(unix)]
pub(crate) use imp::install;

#[cfg(not(unix))]
pub(crate) fn install() {}
