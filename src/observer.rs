//! The observer the run loop calls for every event.

use crate::event::{EventKind, RunEvent};
use io_hooks::{Flow, Kind};

/// Watches a run: called synchronously for every event, in order, and may
/// end the run by answering [`Flow::Cancel`], which the loop honours at the
/// next step boundary.
///
/// One observer serves a whole tree of runs, so it is called from several
/// threads at once: hence `Send + Sync`.
pub trait Observer: Send + Sync {
    /// Receives one event; the run waits for the answer.
    fn event(&self, event: &RunEvent) -> Flow;

    /// Whether this observer wants events of `kind` at all. The loop asks
    /// before it builds the [`RunEvent`], so an event nobody wants costs no
    /// envelope and no clock read; a `token`, the most frequent, is asked
    /// about once a step and its text is not even copied. The default wants
    /// everything.
    #[inline]
    fn wants(&self, kind: Kind<EventKind>) -> bool {
        let _ = kind;
        true
    }

    /// Whether the host has been interrupted (for `io`: Ctrl-C, `SIGTERM`,
    /// `SIGHUP`, `SIGQUIT`) and the run must stop. The loop asks at each
    /// step's start, before each tool call (after the `tool_call` event's
    /// hooks have returned, and after the approver's answer), before it
    /// commits a step, and after. Once the answer is `true` the run calls
    /// no further tool and commits no step it is in the middle of (a
    /// resume does that step again), still emits the rest of a step it has
    /// committed, and ends
    /// [`RunOutcome::Interrupted`](crate::run::RunOutcome::Interrupted)
    /// with `finished`, resumable. A child run asks the same observer.
    ///
    /// For a stop that must come between a hook's return and the next
    /// tool call, set what this reads before ending the hook's process
    /// (`io` sets its flag, then calls
    /// [`Supervisor::end_in_flight`](io_supervisor::Supervisor::end_in_flight)):
    /// a hook that returns because it was ended then finds it set. The
    /// default is never.
    #[inline]
    fn interrupted(&self) -> bool {
        false
    }
}

/// Observing nothing: the run loop's "no observer".
impl Observer for () {
    #[inline]
    fn event(&self, _: &RunEvent) -> Flow {
        Flow::Continue
    }

    #[inline]
    fn wants(&self, _: Kind<EventKind>) -> bool {
        false
    }
}

impl<O: Observer + ?Sized> Observer for &O {
    #[inline]
    fn event(&self, event: &RunEvent) -> Flow {
        (**self).event(event)
    }

    #[inline]
    fn wants(&self, kind: Kind<EventKind>) -> bool {
        (**self).wants(kind)
    }

    #[inline]
    fn interrupted(&self) -> bool {
        (**self).interrupted()
    }
}

/// The hooks of a config are an observer like any other: install them with
/// `run_observed`, `run_with_observed` or `resume_observed`.
///
/// An event no hook wants is answered before the loop builds its envelope,
/// through [`wants`](Observer::wants): one mask test.
///
/// # Blocking
/// [`event`](Observer::event) is [`io_hooks::Hooks::fire_line`] with
/// [`RunEvent::json_line`]: it returns when every matching hook has
/// finished, a `run` hook's process included (up to its `timeout_ms`), and
/// the run waits with it; but a `background = true` hook, which is handed
/// the event and runs on its own worker. The run does
/// not wait for those: call [`io_hooks::Hooks::wait_background`] after the
/// run returns (as `io run` does, before it reports), or drop the hooks,
/// which waits too. Their failures never cancel the run; they are logged,
/// and told to [`io_hooks::Hooks::on_background`]'s report.
impl Observer for io_hooks::Hooks<EventKind> {
    #[inline]
    fn event(&self, event: &RunEvent) -> Flow {
        self.fire_line(event, || event.json_line().map_err(|e| e.to_string()))
    }

    #[inline]
    fn wants(&self, kind: Kind<EventKind>) -> bool {
        self.wanted().contains_kind(kind)
    }
}
