//! What building the hooks finds wrong with one hook ([`ProblemKind`], held by
//! [`Problem`](crate::Problem)): an
//! action's own problem, of a type of its module's, told through
//! [`Prepare::problem`](crate::Prepare::problem) by every action alike.

use std::error::Error;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::shell;

/// What is wrong with one hook, as found when the hooks were built: the
/// action's own problem (a type of the built-in action's module, or an
/// embedder's action's type or words), with what the operator can do about
/// it. [`Problem`](crate::Problem) holds one and answers for it.
#[derive(Debug, Clone)]
pub(crate) struct ProblemKind {
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
    pub(crate) fn action(&self) -> &'static str {
        self.action
    }

    /// Returns the problem as its action's own type, when it is a `T`.
    pub(crate) fn downcast_ref<T: Error + 'static>(&self) -> Option<&T> {
        self.problem.downcast_ref()
    }

    /// Returns what the operator can do about it.
    pub(crate) fn hint(&self) -> Option<String> {
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

/// A built-in action's hint for a problem about `path`: none in the
/// kernel's trees, where no command makes a hook work.
pub(crate) fn hint(path: Option<&Path>, hint: Option<String>) -> Option<String> {
    match path {
        Some(path) if shell::is_kernels(path) => None,
        _ => hint,
    }
}
