//! Replaying a recorded run through an observer, as the run would have
//! delivered it: what `io replay` drives.

use io_hooks::Flow;

use crate::event::{EventKind, RunEvent};
use crate::observer::Observer;
use crate::run::boundary::ending;

/// How a replay ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayOutcome {
    /// Every event was delivered.
    Completed {
        /// `step` events delivered.
        steps: u32,
    },
    /// An observer answered [`Flow::Cancel`]; delivery stopped at the next
    /// step boundary.
    Cancelled {
        /// `step` events delivered, the boundary's included.
        steps: u32,
    },
}

/// Delivers `events` to `observer` in order, honouring a cancel the way the
/// run loop does: after an event is answered with [`Flow::Cancel`], events
/// are still delivered up to and including the next `step` (the step in
/// progress finishes), and then delivery stops. A cancel answered to a
/// `step` itself stops right after it.
///
/// The end of the input is the end of the run: a cancel still pending
/// there ends the replay [`Cancelled`](ReplayOutcome::Cancelled), as a
/// cancel raised in a run's last step ends the run, and by the same rule
/// (one function decides both). A cancel answered to `finished` changes
/// nothing: a run emits `finished` after its ending is decided.
///
/// A recording of a tree is one stream: any run's `step` is a boundary.
///
/// ```
/// use io_harness::replay::{ReplayOutcome, replay};
/// use io_harness::{EventKind, Flow, Observer, RunEvent};
///
/// struct CancelOnToolCall;
/// impl Observer for CancelOnToolCall {
///     fn event(&self, e: &RunEvent) -> Flow {
///         if e.tag() == "tool_call" { Flow::Cancel } else { Flow::Continue }
///     }
/// }
///
/// let ev = |kind| RunEvent { kind, run_id: "r".into(), depth: 0, seq: None, at: None };
/// let recording = vec![
///     ev(EventKind::Step { step: 1, moved_the_workspace: true }),
///     ev(EventKind::ToolCall { step: 2, tool: "exec".into(), args: serde_json::json!({}).into() }),
///     ev(EventKind::Step { step: 2, moved_the_workspace: false }),
///     ev(EventKind::Step { step: 3, moved_the_workspace: false }),
/// ];
/// assert_eq!(replay(recording, &CancelOnToolCall), ReplayOutcome::Cancelled { steps: 2 });
/// ```
///
/// # Blocking
/// Returns when every event has been delivered: with the hooks as the
/// observer, after each matching hook has finished, a `run` hook's process
/// included.
pub fn replay<I>(events: I, observer: &dyn Observer) -> ReplayOutcome
where
    I: IntoIterator<Item = RunEvent>,
{
    let mut steps = 0;
    let mut cancelling = false;
    for event in events {
        let is_step = matches!(event.kind, EventKind::Step { .. });
        let ends = matches!(event.kind, EventKind::Finished { .. });
        cancelling |= observer.event(&event) == Flow::Cancel && !ends;
        if is_step {
            steps += 1;
            if let Some(outcome) = ending(cancelling, ReplayOutcome::Cancelled { steps }, None) {
                return outcome;
            }
        }
    }
    let completed = ReplayOutcome::Completed { steps };
    ending(
        cancelling,
        ReplayOutcome::Cancelled { steps },
        Some(completed),
    )
    .unwrap_or(completed)
}
