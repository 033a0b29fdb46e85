//! What one hook did with one event ([`HookRun`]): told to the report of
//! [`Hooks::fire_with`](crate::Hooks::fire_with) for each matching hook, and
//! to [`Hooks::on_background`](crate::Hooks::on_background)'s for each event
//! a background hook's worker finished. Names only the layers below.

use std::time::Duration;

use crate::hook_failure::HookFailure;
use crate::origin::Origin;

/// What one hook did with one event: given to the `report` of
/// [`Hooks::fire_with`](crate::Hooks::fire_with) for each matching hook, on
/// the thread that fires, and to the report of
/// [`Hooks::on_background`](crate::Hooks::on_background) for each event a
/// background hook finished, on the hook's worker thread.
#[derive(Debug)]
#[non_exhaustive]
pub struct HookRun<'a> {
    /// The hook's position in [`Hooks::specs`](crate::Hooks::specs), from
    /// 0.
    pub index: usize,
    /// Where the hook was written, or `hook[index + 1]` with no file for a
    /// hook built in code: what messages name it.
    pub origin: &'a Origin,
    /// The tag of the event.
    pub event: &'static str,
    /// The event's JSON line, with its newline, as the hook was given it
    /// (empty when the event could not be serialised: `result` says why).
    pub line: &'a [u8],
    /// `Ok` when it succeeded, or why it failed. A background hook's
    /// failure never cancels the host's run.
    pub result: Result<(), &'a HookFailure>,
    /// How long the action took, spawn, wait and any kill included (for a
    /// background hook's event, not counting the time it waited in the
    /// queue).
    pub elapsed: Duration,
    /// For a failed hook of hooks built with
    /// [`capture_stderr`](crate::Hooks::capture_stderr): the last bytes it
    /// wrote to its stderr (empty when it wrote none, or it never ran).
    /// `None` otherwise.
    pub stderr: Option<&'a [u8]>,
    /// Whether the hook runs in the background. In `fire_with`'s report,
    /// the event was handed to its worker: `result` is then `Ok` and
    /// `elapsed` the time it took to queue it, and what the hook did with
    /// it is told to [`on_background`](crate::Hooks::on_background)'s
    /// report, where this is always `true`.
    pub background: bool,
    /// In [`on_background`](crate::Hooks::on_background)'s report: which
    /// of the events given to this hook it was, from 1, in the order they
    /// were fired. `None` in `fire_with`'s.
    pub seq: Option<u64>,
}

impl HookRun<'_> {
    /// Returns the hook's position in [`Hooks::specs`](crate::Hooks::specs),
    /// counted from 1 (a hook built in code is named `hook[N]` with this
    /// number).
    pub fn number(&self) -> usize {
        self.index + 1
    }
}
