//! Trace points (call sites) and the switch that turns each one on or off.
//!
//! Every macro expansion owns one `static Callsite`. Its `state` byte is the
//! whole cost of a disabled trace point: one relaxed load and a branch. The first
//! time a call site runs it registers itself (a mutex, once per call site) in an
//! intrusive list, so that a change of categories or the start and end of a
//! recording session can rewrite every state byte.

use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU8, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::category::CategoryFilter;
use crate::format::SiteJson;

const UNREGISTERED: u8 = 0;
const ENABLED: u8 = 1;
const DISABLED: u8 = 2;

/// One trace point: its category, name and argument names.
///
/// Created by the macros in a `static`; users never build one by hand.
/// `repr(C)` with `state` first, so C code can test it directly
/// (see `include/tracescope.h`).
#[repr(C)]
pub struct Callsite {
    state: AtomicU8,
    pub(crate) cat: &'static str,
    pub(crate) name: &'static str,
    pub(crate) arg_names: &'static [&'static str],
    next: AtomicPtr<Callsite>,
    /// The site's constant JSON, built by the writer thread on first use.
    pub(crate) json: OnceLock<SiteJson>,
}

impl Callsite {
    #[doc(hidden)]
    pub const fn new(
        cat: &'static str,
        name: &'static str,
        arg_names: &'static [&'static str],
    ) -> Callsite {
        Callsite {
            state: AtomicU8::new(UNREGISTERED),
            cat,
            name,
            arg_names,
            next: AtomicPtr::new(ptr::null_mut()),
            json: OnceLock::new(),
        }
    }

    /// Whether this trace point records now.
    #[inline(always)]
    pub fn enabled(&'static self) -> bool {
        match self.state.load(Ordering::Relaxed) {
            ENABLED => true,
            UNREGISTERED => self.register(),
            _ => false,
        }
    }

    /// The category, as written at the trace point.
    pub fn category(&self) -> &'static str {
        self.cat
    }

    #[cold]
    #[inline(never)]
    fn register(&'static self) -> bool {
        let mut config = config();
        // Another thread may have registered this call site while we waited.
        if self.state.load(Ordering::Relaxed) == UNREGISTERED {
            let head = HEAD.load(Ordering::Relaxed);
            self.next.store(head, Ordering::Relaxed);
            HEAD.store(self as *const Callsite as *mut Callsite, Ordering::Release);
            self.state
                .store(config.state_for(self.cat), Ordering::Relaxed);
        }
        self.state.load(Ordering::Relaxed) == ENABLED
    }
}

/// What decides the state of every call site.
pub(crate) struct Config {
    /// `None` until first needed, then `TRACESCOPE_CATEGORIES` or a run-time value.
    filter: Option<CategoryFilter>,
    /// Whether a recording session is running.
    active: bool,
}

impl Config {
    fn state_for(&mut self, cat: &str) -> u8 {
        let filter = self.filter.get_or_insert_with(CategoryFilter::from_env);
        if self.active && filter.enabled(cat) {
            ENABLED
        } else {
            DISABLED
        }
    }
}

static HEAD: AtomicPtr<Callsite> = AtomicPtr::new(ptr::null_mut());
static CONFIG: Mutex<Config> = Mutex::new(Config {
    filter: None,
    active: false,
});

fn config() -> MutexGuard<'static, Config> {
    // A panic while holding this lock cannot leave it inconsistent: keep going.
    CONFIG.lock().unwrap_or_else(|e| e.into_inner())
}

/// Changes the configuration and re-evaluates every registered call site.
fn reconfigure(change: impl FnOnce(&mut Config)) {
    let mut config = config();
    change(&mut config);
    let mut site = HEAD.load(Ordering::Acquire);
    while !site.is_null() {
        // SAFETY: only `&'static Callsite`s are ever linked into the list.
        let s: &'static Callsite = unsafe { &*site };
        s.state.store(config.state_for(s.cat), Ordering::Relaxed);
        site = s.next.load(Ordering::Relaxed);
    }
}

/// Turns recording on or off for every call site (session start and end).
pub(crate) fn set_active(active: bool) {
    reconfigure(|c| c.active = active);
}

/// Replaces the category list at run time; the syntax is that of
/// `TRACESCOPE_CATEGORIES` (see [`CategoryFilter`](crate::CategoryFilter)).
pub fn set_categories(spec: &str) {
    let filter = CategoryFilter::parse(spec);
    reconfigure(|c| c.filter = Some(filter));
}

/// Whether a trace point of category `cat` would record now.
pub fn category_enabled(cat: &str) -> bool {
    let mut config = config();
    config.state_for(cat) == ENABLED
}
