//! What building the hooks finds wrong with one hook ([`ProblemKind`]): an
//! action's own problem, of a type of its module's, told through
//! [`Prepare::problem`](crate::Prepare::problem) by every action alike.

use std::error::Error;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::shell;

/// What is wrong with one hook, as found when the hooks were built: the
/// action's own problem ([`AppendProblem`](crate::AppendProblem),
/// [`RunProblem`](crate::RunProblem), or an embedder's action's type or
/// words), with what the operator can do about it.
///
/// An error, so that it can stand on its own; its `Display` is the
/// problem's, and `source()` returns nothing (a cause it quotes, such as
/// [`AppendProblem::CannotCreate`](crate::AppendProblem::CannotCreate)'s,
/// is text in it).
///
/// ```
/// use io_hooks::{Action, AppendProblem, HookFilter, HookSpec, Hooks};
/// # #[derive(io_hooks::HookEvents, serde::Serialize)]
/// # #[serde(tag = "event")]
/// # enum Ev { #[serde(rename = "job_started")] JobStarted }
/// let dir = tempfile::tempdir()?;
/// let specs = vec![HookSpec::<Ev>::new(HookFilter::ALL, Action::append(dir.path()))];
/// let problems = Hooks::check(&specs, dir.path());
/// assert_eq!(problems[0].kind.action(), "append");
/// let problem = problems[0].kind.downcast_ref::<AppendProblem>();
/// assert!(matches!(problem, Some(AppendProblem::IsDirectory { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct ProblemKind {
    /// The action's key.
    action: &'static str,
    /// What is wrong, as the action says it.
    problem: Arc<dyn Error + Send + Sync>,
    /// What the operator can do about it.
    hint: Option<String>,
}

impl ProblemKind {
    /// A problem of the action `action`.
    pub(crate) fn new(
        action: &'static str,
        problem: Box<dyn Error + Send + Sync>,
        hint: Option<String>,
    ) -> Self {
        ProblemKind {
            action,
            problem: Arc::from(problem),
            hint,
        }
    }

    /// Returns the key of the hook's action (`append`).
    pub fn action(&self) -> &'static str {
        self.action
    }

    /// Returns the problem as its action's own type, when it is a `T`
    /// ([`AppendProblem`](crate::AppendProblem) for `append`,
    /// [`RunProblem`](crate::RunProblem) for `run`).
    pub fn downcast_ref<T: Error + 'static>(&self) -> Option<&T> {
        self.problem.downcast_ref()
    }

    /// Returns what the operator can do about it: a command or an edit that
    /// fixes it, or `None` when there is none to give. A path under
    /// `/proc`, `/sys` or `/dev` (but `/dev/shm`, an ordinary file system)
    /// gets none from a built-in action: the kernel owns those, and no
    /// `mkdir` or `chmod` there makes a hook work.
    pub fn hint(&self) -> Option<String> {
        self.hint.clone()
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.problem.fmt(f)
    }
}

/// Two problems are equal when they are of the same action and say the
/// same, with the same hint: what an operator is shown of them.
impl PartialEq for ProblemKind {
    fn eq(&self, other: &Self) -> bool {
        self.action == other.action
            && self.hint == other.hint
            && self.problem.to_string() == other.problem.to_string()
    }
}

impl Eq for ProblemKind {}

/// An error, so that it can stand on its own; its `Display` says all of it,
/// and `source()` returns nothing.
impl Error for ProblemKind {}

/// A built-in action's hint for a problem about `path`: none in the
/// kernel's trees, where no command makes a hook work.
pub(crate) fn hint(path: Option<&Path>, hint: Option<String>) -> Option<String> {
    match path {
        Some(path) if shell::is_kernels(path) => None,
        _ => hint,
    }
}
