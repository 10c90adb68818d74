//! Events handed over in runs instead of as one vector, so a reader whose events can
//! be decoded independently (CTF packets) never holds all of them at once.

use crate::{Diagnostics, Event};

/// A reader's events in input order, split into consecutive runs that can be decoded
/// on different threads. A consumer builds one part per run and joins the parts in
/// run order: the result is what one pass over all events in order would give.
pub trait EventRuns<'a>: Sync {
    /// How many runs there are.
    fn runs(&self) -> usize;

    /// Gives each event of run `k` to `each`, in order; problems go to `diags`.
    fn run(&self, k: usize, diags: &mut Diagnostics, each: &mut dyn FnMut(Event<'a>));
}

/// Runs lent: a consumer that takes its runs by value (to drop them once read) also
/// takes a borrow, which it then cannot drop early.
impl<'a, T: EventRuns<'a> + ?Sized> EventRuns<'a> for &T {
    fn runs(&self) -> usize {
        (**self).runs()
    }

    fn run(&self, k: usize, diags: &mut Diagnostics, each: &mut dyn FnMut(Event<'a>)) {
        (**self).run(k, diags, each)
    }
}
