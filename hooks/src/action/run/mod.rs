//! The `run` action: spawn an argv with the event's JSON line on stdin,
//! through the process supervisor ([`io_supervisor`]).
//!
//! Its keys and their validation are `keys.rs`; what building the hooks
//! finds wrong with a program, `check.rs`, in the words of `problem.rs`.
//! Its failures are the supervisor's own
//! ([`HookFailure::Process`]).

mod check;
mod keys;
pub(crate) mod problem;

pub use keys::DEFAULT_TIMEOUT;
pub(crate) use keys::ENTRY;
pub use problem::RunProblem;

use std::path::Path;
use std::time::Duration;

use crate::action::interface::{
    Action, ActionTable, BuiltIn, Effects, Execute, Fire, HookAction, Prepare,
};
use crate::failure::HookFailure;
use crate::table_error::TableError;

/// The `run` action's kind: its entry, and its validation.
pub(crate) const KIND: BuiltIn = BuiltIn {
    entry: ENTRY,
    validate,
};

/// A table whose action is `run`, checked into its action.
fn validate(table: &mut ActionTable<'_>) -> Result<Action, TableError> {
    let (value, raw, cx) = table.built_in()?;
    let (argv, timeout, background) = keys::validate(value, raw, cx)?;
    Ok(Action::new(RunAction {
        argv,
        timeout,
        background,
    }))
}

/// `run = argv`: spawn `argv` with the event's JSON line on stdin. Built
/// with [`Action::run`] and its siblings, read with [`Action::get`].
///
/// The child runs in the hooks' root, in a process group of its own, with
/// stdout and stderr discarded (the end of its stderr is kept when the
/// hooks [`capture_stderr`](crate::Hooks::capture_stderr)), and the host's
/// environment except `PATH`, which keeps only its absolute entries (a
/// script's bare `ls` never runs a `./ls` in the root). It inherits every
/// descriptor the host has open without close-on-exec: a host must mark the
/// descriptors it inherited close-on-exec at start, since the engine cannot
/// without `unsafe`. Its process group is killed at `timeout`, and by the
/// hooks' [`Supervisor`](io_supervisor::Supervisor).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunAction {
    /// The program and its arguments, as written: never a shell line.
    pub argv: Vec<String>,
    /// The wall-clock ceiling, from spawn.
    pub timeout: Duration,
    /// Whether each event is handed to the hook's own worker, in order,
    /// rather than run while the host waits ([`Hooks`](crate::Hooks)'
    /// "Background hooks").
    pub background: bool,
}

impl HookAction for RunAction {
    fn key(&self) -> &'static str {
        keys::KEY
    }

    fn describe(&self, _: &Path) -> String {
        let argv = serde_json::to_string(&self.argv).unwrap_or_default();
        let background = if self.background {
            ", in the background"
        } else {
            ""
        };
        format!(
            "run {argv} (timeout {} ms{background})",
            self.timeout.as_millis()
        )
    }

    fn effects(&self) -> Effects {
        Effects::SPAWNS_PROCESS
    }

    fn prepare(&self, cx: &mut Prepare<'_>) -> Box<dyn Execute> {
        let ready = Ready {
            argv: self.argv.clone(),
            timeout: self.timeout,
            background: self.background && !cx.cancels,
        };
        for problem in check::run(&self.argv, &cx.root.path) {
            cx.push(crate::action::problem::ProblemKind::Run(problem));
        }
        Box::new(ready)
    }
}

/// A `run` hook as built hooks hold it: its argv, its timeout, and whether
/// its events go to a worker of its own.
#[derive(Debug)]
pub(crate) struct Ready {
    argv: Vec<String>,
    timeout: Duration,
    background: bool,
}

/// What would make spawning the argv fail each time (a missing program,
/// one that is not executable, a `#!` line naming no interpreter, a `~` no
/// shell expands) is found at `prepare`; nothing is created. A hook whose
/// failure cancels runs while the host waits, `background` or not: its
/// cancel must come with the event that caused it.
impl Execute for Ready {
    fn background(&self) -> bool {
        self.background
    }

    #[inline]
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        let Fire {
            line,
            root,
            supervisor,
            capture,
        } = fire;
        supervisor
            .run_argv_keeping_stderr(&self.argv, &root.path, line, self.timeout, capture)
            .map_err(HookFailure::Process)
    }
}
