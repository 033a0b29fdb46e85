//! The observer the run loop calls for every event.

use crate::event::RunEvent;
use io_hooks::Flow;

/// Watches a run: called synchronously for every event, in order, and may
/// end the run by answering [`Flow::Cancel`], which the loop honours at the
/// next step boundary.
///
/// One observer serves a whole tree of runs, so it is called from several
/// threads at once: hence `Send + Sync`.
pub trait Observer: Send + Sync {
    /// Receives one event; the run waits for the answer.
    fn event(&self, event: &RunEvent) -> Flow;
}

/// Observing nothing: the run loop's "no observer".
impl Observer for () {
    #[inline]
    fn event(&self, _: &RunEvent) -> Flow {
        Flow::Continue
    }
}

impl<O: Observer + ?Sized> Observer for &O {
    #[inline]
    fn event(&self, event: &RunEvent) -> Flow {
        (**self).event(event)
    }
}
