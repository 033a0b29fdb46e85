//! The `run` action: spawn an argv with the event's JSON line on stdin,
//! through the process runner ([`process`](crate::process)).
//!
//! Its keys and their validation are `keys.rs`; what building the hooks
//! finds wrong with a program, `check.rs`, in the words of `problem.rs`.
//! Its failures are the process runner's own
//! ([`HookFailure::Process`]).

mod check;
mod keys;
mod problem;

pub use keys::DEFAULT_TIMEOUT;
pub(crate) use keys::{ENTRY, validate};
pub use problem::RunProblem;

use std::time::Duration;

use crate::action::interface::{Describe, Fire, Prepare};
use crate::failure::HookFailure;
use crate::process;

/// A `run` hook as built hooks hold it: its argv, its timeout, and whether
/// its events go to a worker of its own.
#[derive(Debug)]
pub(crate) struct Ready {
    argv: Vec<String>,
    timeout: Duration,
    background: bool,
}

/// What would make spawning `argv` fail each time (a missing program, one
/// that is not executable, a `#!` line naming no interpreter, a `~` no
/// shell expands); nothing is created. A hook whose failure cancels runs
/// while the host waits, `background` or not: its cancel must come with the
/// event that caused it.
pub(crate) fn prepare(
    cx: &Prepare<'_>,
    argv: &[String],
    timeout: &Duration,
    background: &bool,
) -> (Ready, Vec<RunProblem>) {
    let ready = Ready {
        argv: argv.to_vec(),
        timeout: *timeout,
        background: *background && !cx.cancels,
    };
    (ready, check::run(argv, &cx.root.path))
}

impl Ready {
    /// Whether its events go to a worker of its own.
    pub(crate) fn background(&self) -> bool {
        self.background
    }

    #[inline]
    pub(crate) fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        let Fire {
            line,
            root,
            interrupt,
            capture,
        } = fire;
        process::run(
            &self.argv,
            self.timeout,
            &root.path,
            line,
            interrupt,
            capture,
        )
        .map_err(HookFailure::Process)
    }
}

pub(crate) fn describe(
    _: &Describe<'_>,
    argv: &[String],
    timeout: &Duration,
    background: &bool,
) -> String {
    let argv = serde_json::to_string(argv).unwrap_or_default();
    let background = if *background {
        ", in the background"
    } else {
        ""
    };
    format!(
        "run {argv} (timeout {} ms{background})",
        timeout.as_millis()
    )
}
