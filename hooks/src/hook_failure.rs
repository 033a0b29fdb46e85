//! Why a hook failed, from the hook's side ([`HookFailure`]): its event
//! could not be serialised, the program it ran failed (the process runner's
//! own [`ProcessError`]), or its action failed in a way of its own. Knows
//! nothing of any action: each one's failures are a type of its own module.

use std::fmt;

use io_supervisor::ProcessError;

/// Why a hook failed. Its `Display` is written for an operator, and never
/// includes the event.
#[derive(Debug)]
#[non_exhaustive]
pub enum HookFailure {
    /// The event could not be serialised as JSON. The hook fails, and its
    /// `on_failure` applies, like any other failure.
    ///
    /// serde's reason is kept: the event type's `Serialize` is the
    /// embedder's own code, so what its errors say is the embedder's choice,
    /// and serde_json's own reasons (`key must be a string`) never quote a
    /// value. Without it an operator cannot tell which field to fix.
    Serialize {
        /// The event's tag.
        event: &'static str,
        /// serde's reason.
        cause: String,
    },
    /// The program the hook ran failed: not found, not spawned, a non-zero
    /// exit, a signal, the timeout, or the host's interrupt. A `run` hook
    /// fails this way, as [`io_supervisor`]'s runs do for an embedder.
    /// Its `Display` is the process error's.
    Process(ProcessError),
    /// An action failed in a way of its own, which its module declares as a
    /// type of its own (`append`'s is its module's `AppendFailure`),
    /// and an action added to the engine fails this way without an edit
    /// here. Its `Display` is the cause's, and `source()` the cause's own
    /// `source()`.
    Action {
        /// The action's key, as in `append`.
        action: &'static str,
        /// What went wrong, as the action's module says it; reach its type
        /// with `downcast_ref`.
        cause: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl HookFailure {
    /// An action's own failure: `cause`, of the action whose key is
    /// `action`.
    pub fn action(
        action: &'static str,
        cause: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        HookFailure::Action {
            action,
            cause: cause.into(),
        }
    }
}

impl From<ProcessError> for HookFailure {
    fn from(e: ProcessError) -> Self {
        HookFailure::Process(e)
    }
}

impl fmt::Display for HookFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HookFailure::Serialize { event, cause } => {
                write!(
                    f,
                    "could not serialise the `{event}` event as JSON: {cause}"
                )
            }
            HookFailure::Process(e) => e.fmt(f),
            HookFailure::Action { cause, .. } => cause.fmt(f),
        }
    }
}

/// Its `Display` states the cause, so `source()` returns nothing: a chain
/// printer shows each cause once. An action's own failure
/// ([`HookFailure::Action`]) shows its cause, and `source()` is the cause's
/// next link.
impl std::error::Error for HookFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HookFailure::Action { cause, .. } => cause.source(),
            _ => None,
        }
    }
}
