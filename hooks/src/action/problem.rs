//! What building the hooks finds wrong with one hook ([`ProblemKind`]): the
//! built-in actions' own problem types, and an embedder's action's
//! ([`ActionProblem`]).

use std::fmt;

use super::append::problem::AppendProblem;
use super::run::problem::RunProblem;
use super::shell;

/// What is wrong with one hook, as found when the hooks were built: the
/// built-in actions' own problem types, and an embedder's action's
/// ([`ActionProblem`]).
///
/// An error, so that it can stand on its own; its `Display` says all of it,
/// and `source()` returns nothing (a cause it quotes, such as
/// [`AppendProblem::CannotCreate`]'s, is text in it).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemKind {
    /// A problem of an `append` hook.
    Append(AppendProblem),
    /// A problem of a `run` hook.
    Run(RunProblem),
    /// A problem of a hook of an embedder's own action
    /// ([`Prepare::problem`](crate::Prepare::problem)).
    Action(ActionProblem),
}

impl ProblemKind {
    /// What the operator can do about it: a command or an edit that
    /// fixes it, or `None` when there is none to give. A path under
    /// `/proc`, `/sys` or `/dev` (but `/dev/shm`, an ordinary file
    /// system) gets none: the kernel owns those, and no `mkdir` or
    /// `chmod` there makes a hook work.
    pub fn hint(&self) -> Option<String> {
        let (path, hint) = match self {
            ProblemKind::Append(problem) => (problem.path(), problem.hint()),
            ProblemKind::Run(problem) => (problem.path(), problem.hint()),
            ProblemKind::Action(problem) => (None, problem.hint.clone()),
        };
        match path {
            Some(path) if shell::is_kernels(path) => None,
            _ => hint,
        }
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProblemKind::Append(problem) => problem.fmt(f),
            ProblemKind::Run(problem) => problem.fmt(f),
            ProblemKind::Action(problem) => problem.fmt(f),
        }
    }
}

/// An error, so that it can stand on its own; its `Display` says all of it,
/// and `source()` returns nothing.
impl std::error::Error for ProblemKind {}

/// What is wrong with a hook of an embedder's own action, as it told
/// [`Prepare::problem`](crate::Prepare::problem).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ActionProblem {
    /// The action's key.
    pub action: &'static str,
    /// What is wrong, in the action's words.
    pub message: String,
    /// What the operator can do about it.
    pub hint: Option<String>,
}

impl fmt::Display for ActionProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
