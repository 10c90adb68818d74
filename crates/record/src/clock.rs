//! The hot-path clock and its conversion to trace time.
//!
//! Trace points read a raw tick counter: the CPU's time-stamp counter where it is
//! invariant (x86_64 with the `constant_tsc`/`nonstop_tsc` guarantee), otherwise
//! `CLOCK_MONOTONIC` nanoseconds. The writer thread converts ticks to
//! `CLOCK_MONOTONIC` nanoseconds (the clock Chrome's own traces use, so traces
//! can be merged) by interpolating between anchors: pairs of (ticks, monotonic
//! ns) it takes before formatting each batch. The result is exact at every
//! anchor and strictly follows the tick order between them; no calibration
//! spin is needed at start-up.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

static USE_TSC: AtomicBool = AtomicBool::new(false);
static INIT: Once = Once::new();

/// Chooses the tick source once per process. `TRACESCOPE_CLOCK=monotonic`
/// forces the portable clock.
pub(crate) fn init() {
    INIT.call_once(|| {
        let forced_mono = std::env::var("TRACESCOPE_CLOCK").is_ok_and(|v| v == "monotonic");
        USE_TSC.store(!forced_mono && invariant_tsc(), Ordering::Relaxed);
    });
}

/// Whether ticks come from the time-stamp counter.
pub fn uses_tsc() -> bool {
    USE_TSC.load(Ordering::Relaxed)
}

#[cfg(target_arch = "x86_64")]
#[allow(unused_unsafe)] // `__cpuid` is unsafe before Rust 1.87
fn invariant_tsc() -> bool {
    // CPUID 0x8000_0007 EDX bit 8: the TSC runs at a constant rate in every
    // power state, which is what makes it a clock.
    // SAFETY: cpuid is available on every x86_64 CPU.
    let max_ext = unsafe { core::arch::x86_64::__cpuid(0x8000_0000) }.eax;
    max_ext >= 0x8000_0007
        && unsafe { core::arch::x86_64::__cpuid(0x8000_0007) }.edx & (1 << 8) != 0
}

#[cfg(not(target_arch = "x86_64"))]
fn invariant_tsc() -> bool {
    false
}

/// The raw tick counter read by every trace point.
#[inline(always)]
pub fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    if USE_TSC.load(Ordering::Relaxed) {
        // SAFETY: rdtsc has no preconditions on x86_64.
        return unsafe { core::arch::x86_64::_rdtsc() };
    }
    monotonic_ns() as u64
}

/// `CLOCK_MONOTONIC` in nanoseconds.
pub fn monotonic_ns() -> i64 {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: valid pointer; CLOCK_MONOTONIC always exists on unix.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        #[allow(clippy::unnecessary_cast)] // time_t and c_long are narrower on some targets
        let ns = ts.tv_sec as i64 * 1_000_000_000 + ts.tv_nsec as i64;
        ns
    }
    #[cfg(not(unix))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static BASE: OnceLock<Instant> = OnceLock::new();
        BASE.get_or_init(Instant::now).elapsed().as_nanos() as i64
    }
}

/// A tick count and the monotonic time it corresponds to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Anchor {
    pub ticks: u64,
    pub ns: i64,
}

/// Reads both clocks as close together as possible: the ticks are the midpoint
/// of two reads around the monotonic read, retried when a read was slow (an
/// interrupt or a descheduled vCPU between them would skew the pair).
pub(crate) fn anchor() -> Anchor {
    if !uses_tsc() {
        let ns = monotonic_ns();
        return Anchor {
            ticks: ns as u64,
            ns,
        };
    }
    let mut best: Option<(u64, Anchor)> = None;
    for _ in 0..8 {
        let t0 = serialized_ticks();
        let ns = monotonic_ns();
        let t1 = serialized_ticks();
        let width = t1.wrapping_sub(t0);
        let a = Anchor {
            ticks: t0 + width / 2,
            ns,
        };
        if best.is_none_or(|(w, _)| width < w) {
            best = Some((width, a));
        }
    }
    best.map(|(_, a)| a).unwrap_or(Anchor { ticks: 0, ns: 0 })
}

fn serialized_ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut aux = 0u32;
        // SAFETY: rdtscp is present on every CPU with an invariant TSC.
        return unsafe { core::arch::x86_64::__rdtscp(&mut aux) };
    }
    #[allow(unreachable_code)]
    {
        monotonic_ns() as u64
    }
}

/// Converts ticks to monotonic nanoseconds: piecewise linear through the
/// anchors taken so far (the latest `MAX_ANCHORS`), extrapolated beyond the
/// first and last. The same ticks convert to the same time whenever they are
/// formatted, so an event written late (the `tracing` layer's async begin)
/// lines up exactly with the slice it started with.
#[derive(Clone, Debug)]
pub(crate) struct Timebase {
    /// The newest segment's start and slope: almost every tick converts with it.
    newest: (Anchor, u64),
    anchors: VecDeque<Anchor>,
    /// `mults[i]`: nanoseconds per tick (32.32 fixed point) from `anchors[i]`
    /// to `anchors[i + 1]`.
    mults: VecDeque<u64>,
}

const MAX_ANCHORS: usize = 1024;

impl Timebase {
    pub fn new(start: Anchor) -> Timebase {
        Timebase {
            newest: (start, 0),
            anchors: VecDeque::from([start]),
            mults: VecDeque::new(),
        }
    }

    /// Adds a newer anchor.
    pub fn advance(&mut self, next: Anchor) {
        let Some(&last) = self.anchors.back() else {
            self.anchors.push_back(next);
            return;
        };
        if next.ticks <= last.ticks || next.ns < last.ns {
            return; // no time has passed (or a clock misbehaved): keep the segments
        }
        let dns = (next.ns - last.ns) as u128;
        let mult = ((dns << 32) / (next.ticks - last.ticks) as u128).min(u64::MAX as u128) as u64;
        self.newest = (last, mult);
        self.anchors.push_back(next);
        self.mults.push_back(mult);
        if self.anchors.len() > MAX_ANCHORS {
            self.anchors.pop_front();
            self.mults.pop_front();
        }
    }

    /// Monotonic nanoseconds of a tick count.
    #[inline]
    pub fn ns(&self, ticks: u64) -> i64 {
        let (a, mult) = self.newest;
        if ticks >= a.ticks && mult != 0 {
            let d = ((ticks - a.ticks) as u128 * mult as u128) >> 32;
            if d < (1u128 << 62) {
                return a.ns.saturating_add(d as i64);
            }
        }
        self.ns_slow(ticks)
    }

    fn ns_slow(&self, ticks: u64) -> i64 {
        let n = self.mults.len();
        if n == 0 {
            // One anchor only: ticks are nanoseconds or close to it; only the
            // drop counter can ask this early.
            let a = self.anchors[0];
            return a.ns.saturating_add(ticks.wrapping_sub(a.ticks) as i64);
        }
        // The segment starting at the latest anchor at or below `ticks` (the
        // newest one almost always), or the first segment before the first anchor.
        let seg = if ticks >= self.anchors[n - 1].ticks {
            n - 1
        } else {
            self.anchors
                .partition_point(|a| a.ticks <= ticks)
                .saturating_sub(1)
        };
        let (a, mult) = (self.anchors[seg], self.mults[seg]);
        let scale = |d: u64| ((d as u128 * mult as u128) >> 32).min(i64::MAX as u128) as i64;
        if ticks >= a.ticks {
            a.ns.saturating_add(scale(ticks - a.ticks))
        } else {
            a.ns.saturating_sub(scale(a.ticks - ticks))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timebase_interpolates_exactly_at_anchors() {
        let mut tb = Timebase::new(Anchor {
            ticks: 1000,
            ns: 50,
        });
        tb.advance(Anchor {
            ticks: 3000,
            ns: 1050,
        });
        assert_eq!(tb.ns(1000), 50);
        assert_eq!(tb.ns(3000), 1050);
        assert_eq!(tb.ns(2000), 550);
        assert_eq!(tb.ns(5000), 2050);
        assert_eq!(tb.ns(0), -450);
        // A stale or equal anchor changes nothing.
        tb.advance(Anchor {
            ticks: 3000,
            ns: 2000,
        });
        assert_eq!(tb.ns(3000), 1050);
        // A steeper next segment leaves earlier ticks where they were.
        tb.advance(Anchor {
            ticks: 4000,
            ns: 2050,
        });
        assert_eq!(tb.ns(2000), 550);
        assert_eq!(tb.ns(3500), 1550);
        assert_eq!(tb.ns(5000), 3050);
        assert_eq!(tb.ns(500), -200);
    }

    #[test]
    fn anchors_track_the_monotonic_clock() {
        init();
        let a = anchor();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let b = anchor();
        let mut tb = Timebase::new(a);
        tb.advance(b);
        let mid = ticks();
        let now = monotonic_ns();
        let got = tb.ns(mid);
        // The tick read just before `now` converts to within a few µs of it.
        assert!((now - got).abs() < 200_000, "now {now} got {got}");
        assert!(b.ns - a.ns >= 20_000_000);
    }
}
