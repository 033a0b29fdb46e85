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

/// A `run` hook as built hooks hold it: its argv and timeout.
#[derive(Debug)]
pub(crate) struct Ready {
    argv: Vec<String>,
    timeout: Duration,
}

/// What would make spawning `argv` fail each time (a missing program, one
/// that is not executable, a `#!` line naming no interpreter, a `~` no
/// shell expands); nothing is created.
pub(crate) fn prepare(
    cx: &Prepare<'_>,
    argv: &[String],
    timeout: &Duration,
) -> (Ready, Vec<RunProblem>) {
    let ready = Ready {
        argv: argv.to_vec(),
        timeout: *timeout,
    };
    (ready, check::run(argv, &cx.root.path))
}

impl Ready {
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

pub(crate) fn describe(_: &Describe<'_>, argv: &[String], timeout: &Duration) -> String {
    let argv = serde_json::to_string(argv).unwrap_or_default();
    format!("run {argv} (timeout {} ms)", timeout.as_millis())
}
