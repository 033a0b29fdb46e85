//! How a run ended ([`RunOutcome`], [`RunResult`]), or why it could not be
//! carried out at all ([`RunError`]).

use std::fmt;

use super::store::StoreError;
use crate::event::Outcome;

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunOutcome {
    /// The model answered.
    Completed {
        /// Steps committed.
        steps: u32,
        /// The answer.
        answer: String,
    },
    /// An observer asked to stop; the run ended at a step boundary and can be
    /// resumed.
    Cancelled {
        /// Steps committed.
        steps: u32,
    },
    /// The run could not go on (the provider failed, the step limit); it can
    /// be resumed.
    Failed {
        /// Steps committed.
        steps: u32,
        /// Why.
        reason: String,
    },
    /// The observer said the host was interrupted
    /// ([`Observer::interrupted`](crate::Observer::interrupted)): the run
    /// called no tool after it, and a step it was in the middle of was not
    /// committed (a resume does that step again). It can be resumed.
    Interrupted {
        /// Steps committed.
        steps: u32,
    },
}

impl RunOutcome {
    /// Steps committed.
    pub fn steps(&self) -> u32 {
        match self {
            RunOutcome::Completed { steps, .. }
            | RunOutcome::Cancelled { steps }
            | RunOutcome::Failed { steps, .. }
            | RunOutcome::Interrupted { steps } => *steps,
        }
    }

    /// Returns the ending as `finished` reports it.
    pub fn as_outcome(&self) -> Outcome {
        match self {
            RunOutcome::Completed { .. } => Outcome::Completed,
            RunOutcome::Cancelled { .. } => Outcome::Cancelled,
            RunOutcome::Failed { .. } => Outcome::Failed,
            RunOutcome::Interrupted { .. } => Outcome::Interrupted,
        }
    }
}

impl fmt::Display for RunOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunOutcome::Completed { steps: n, answer } => {
                write!(f, "completed after {}: {answer}", steps(*n))
            }
            RunOutcome::Cancelled { steps: n } => write!(f, "cancelled after {}", steps(*n)),
            RunOutcome::Failed { steps: n, reason } => {
                write!(f, "failed after {}: {reason}", steps(*n))
            }
            RunOutcome::Interrupted { steps: n } => {
                write!(f, "interrupted after {}", steps(*n))
            }
        }
    }
}

/// `1 step`, `3 steps`: a step count as messages write it.
pub fn steps(n: u32) -> String {
    if n == 1 {
        "1 step".to_owned()
    } else {
        format!("{n} steps")
    }
}

/// A run's id and ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    /// The run's id: what [`resume_observed`](super::resume_observed) takes.
    pub run_id: String,
    /// How it ended.
    pub outcome: RunOutcome,
}

/// A run could not be carried out or resumed at all.
#[derive(Debug)]
pub enum RunError {
    /// The store failed; the run stopped where it was.
    Store(StoreError),
    /// [`resume_observed`](super::resume_observed) was given a run the store has never seen.
    UnknownRun(String),
    /// [`resume_observed`](super::resume_observed) was given a run that already completed.
    AlreadyCompleted(String),
    /// The store's journal does not begin with the run's contract.
    Corrupt(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Store(e) => write!(f, "the store failed: {e}"),
            RunError::UnknownRun(id) => write!(f, "no run `{id}` in the store"),
            RunError::AlreadyCompleted(id) => {
                write!(
                    f,
                    "run `{id}` already completed; there is nothing to resume"
                )
            }
            RunError::Corrupt(id) => {
                write!(
                    f,
                    "the journal of run `{id}` does not begin with its contract"
                )
            }
        }
    }
}

/// `Display` states the cause, so `source()` returns nothing: a chain
/// printer shows each cause once.
impl std::error::Error for RunError {}

impl From<StoreError> for RunError {
    fn from(e: StoreError) -> Self {
        RunError::Store(e)
    }
}
