//! The `run` action: spawn an argv with the event's JSON line on stdin,
//! through the process supervisor ([`io_supervisor`]).
//!
//! Its key and its validation are `run_key.rs`; what building the hooks
//! finds wrong with a program, `check.rs`, in the words of `run_problem.rs`.
//! Its failures are the supervisor's own
//! ([`HookFailure::Process`]).

mod check;
mod run_key;
pub(crate) mod run_problem;

use std::path::Path;

use crate::action::interface::{
    ActionKind, ActionTable, DEFAULT_TIMEOUT, Effects, Execute, Fire, Prepare,
};
use crate::hook_failure::HookFailure;
use crate::key::HookKey;
use crate::table_error::TableError;

/// The `run` action's kind: it honours the engine's `timeout_ms` (its
/// child is killed at it) and `background`.
pub(crate) struct RunKind;

impl ActionKind for RunKind {
    type Action = RunAction;
    const KEY: HookKey = run_key::ROW;
    const VERB: &'static str = "runs a program";
    const TIMEOUT: bool = true;
    const BACKGROUND: bool = true;

    fn validate(&self, table: &mut ActionTable<'_>) -> Result<RunAction, TableError> {
        run_key::validate(table).map(|argv| RunAction { argv })
    }
}

/// `run = argv`: spawn `argv` with the event's JSON line on stdin. Built
/// with [`Action::run`](crate::Action::run) and its siblings, read with
/// [`Action::get`](crate::Action::get); its `timeout_ms` and `background`
/// are the engine's, read with [`Action::timeout`](crate::Action::timeout)
/// and [`Action::background`](crate::Action::background).
///
/// The child runs in the hooks' root, in a process group of its own, with
/// stdout and stderr discarded (the end of its stderr is kept when the
/// hooks [`capture_stderr`](crate::Hooks::capture_stderr)), its stdin the
/// event's JSON line then end of file, and the host's environment except
/// `PATH`, which keeps only its absolute entries (a script's bare `ls` never
/// runs a `./ls` in the root), with the variables the host names
/// ([`Hooks::with_env`](crate::Hooks::with_env)): the root, the event's
/// tag, the hook's name or key path, and the host's own (`io` names them
/// `IO_ROOT`, `IO_EVENT`, `IO_HOOK` and `IO_RUN_ID`); none when it names
/// none, and the environment is then the host's as it is. It inherits every
/// descriptor the host has open without close-on-exec: a host must mark the
/// descriptors it inherited close-on-exec at start, since the engine cannot
/// without `unsafe`. Its process group is killed at `timeout`, and by the
/// hooks' [`Supervisor`](io_supervisor::Supervisor).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunAction {
    /// The program and its arguments, as written: never a shell line.
    pub argv: Vec<String>,
}

/// What would make spawning the argv fail each time (a missing program,
/// one that is not executable, a `#!` line naming no interpreter, a `~` no
/// shell expands) is found at `prepare`; nothing is created.
impl Execute for RunAction {
    fn describe(&self, _: &Path) -> String {
        let argv = serde_json::to_string(&self.argv).unwrap_or_default();
        format!("run {argv}")
    }

    fn effects(&self) -> Effects {
        Effects::SPAWNS_PROCESS
    }

    fn prepare(&self, cx: &mut Prepare<'_>) -> Self {
        for problem in check::run(&self.argv, cx.root.path()) {
            let hint = problem.operator_hint();
            cx.problem(problem, hint);
        }
        self.clone()
    }

    #[inline]
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        let timeout = fire.timeout().unwrap_or(DEFAULT_TIMEOUT);
        // Empty, and not allocated, when the host names no variable.
        let env: Vec<_> = fire.env().collect();
        let Fire {
            line,
            root,
            supervisor,
            capture,
            ..
        } = fire;
        supervisor
            .run_argv_with_env(&self.argv, root.path(), line, timeout, capture, &env)
            .map_err(HookFailure::Process)
    }
}
