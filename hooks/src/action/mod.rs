//! The action registry: the actions built into the engine, `append` and
//! `run`, each one module here, and the set of actions one file is read
//! with ([`ActionSet`]): the built-in ones, then an embedder's own
//! ([`Layout::action`](crate::Layout::action)).
//!
//! Every action, built-in or not, implements the public interface of
//! `interface.rs`: its kind ([`ActionKind`]: key, options, verb, schema
//! rules, `validate`) and its hook's action ([`HookAction`]: `describe`,
//! `effects`, `prepare` into an [`Execute`]). A built-in module also
//! declares its `ENTRY`, a `const` from which the key table
//! ([`HOOK_KEYS`](crate::schema::HOOK_KEYS)) is computed; a module names
//! the interface it implements and the layers below, never this registry.
//!
//! An action refuses a value of its keys in its own words with
//! [`TableErrorKind::Action`](crate::TableErrorKind::Action)
//! ([`ActionTable::refuse`]), fails in a way of its own with
//! [`HookFailure::Action`](crate::HookFailure::Action) and a failure type of its own, and tells what
//! building the hooks finds wrong with [`Prepare::problem`] (the built-in
//! ones, with a problem type of their own: [`AppendProblem`],
//! [`RunProblem`]).

mod append;
mod interface;
mod problem;
mod run;
mod shell;

pub use append::{AppendAction, AppendFailure, AppendProblem};
pub use interface::{Action, ActionKind, ActionTable, Effects, Execute, Fire, HookAction, Prepare};
pub(crate) use interface::{BuiltIn, Entry};
pub use problem::{ActionProblem, ProblemKind};
pub use run::{DEFAULT_TIMEOUT, RunAction, RunProblem};

use std::fmt;
use std::sync::Arc;

use crate::key::HookKey;

/// The built-in actions, in the order the key table lists them: the one
/// list of them.
pub(crate) const BUILT_IN: [BuiltIn; 2] = [append::KIND, run::KIND];

/// [`BUILT_IN`], where [`ActionSet::kinds`] borrows it.
static BUILT_IN_KINDS: [BuiltIn; BUILT_IN.len()] = BUILT_IN;

/// The built-in actions' entries, in the order of [`BUILT_IN`], for the
/// key table's `const`s.
pub(crate) const ENTRIES: [Entry; BUILT_IN.len()] = {
    let mut out = [BUILT_IN[0].entry; BUILT_IN.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = BUILT_IN[i].entry;
        i += 1;
    }
    out
};

/// The built-in actions' keys, in the order of [`ENTRIES`].
pub(crate) const NAMES: [&str; ENTRIES.len()] = {
    let mut out = [""; ENTRIES.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = ENTRIES[i].key.name;
        i += 1;
    }
    out
};

/// The actions one file is read with: the built-in ones, then an
/// embedder's own, in the order given.
#[derive(Clone, Default)]
pub(crate) struct ActionSet {
    /// The embedder's own, after the built-in ones.
    pub(crate) own: Vec<Arc<dyn ActionKind>>,
}

impl fmt::Debug for ActionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The built-in ones are in every set: only the embedder's are shown.
        let own = self.own.iter().map(|kind| kind.key().name);
        f.debug_list().entries(own).finish()
    }
}

impl ActionSet {
    /// Every kind, the built-in ones first.
    pub(crate) fn kinds(&self) -> impl Iterator<Item = &dyn ActionKind> {
        let built_in = BUILT_IN_KINDS.iter().map(|kind| kind as &dyn ActionKind);
        built_in.chain(self.own.iter().map(|kind| &**kind))
    }

    /// Every action key, the built-in ones first.
    pub(crate) fn names(&self) -> Vec<&'static str> {
        self.kinds().map(|kind| kind.key().name).collect()
    }

    /// The embedder's own actions' keys and options, each option owned by
    /// its action: the rows the key table lacks.
    pub(crate) fn own_keys(&self) -> Vec<HookKey> {
        let mut keys = Vec::new();
        for kind in &self.own {
            let owner = kind.key().name;
            keys.push(kind.key().owned_by(owner));
            keys.extend(kind.options().iter().map(|key| key.owned_by(owner)));
        }
        keys
    }
}

impl ActionSet {
    /// Every key a hook table takes: those of every hook, then every
    /// action's key and options.
    pub(crate) fn taken(&self) -> Vec<&'static str> {
        let every = [crate::key::ON, crate::key::WHERE, crate::key::ON_FAILURE];
        let built_in = ENTRIES
            .iter()
            .flat_map(|entry| std::iter::once(&entry.key).chain(entry.options))
            .map(|key| key.name);
        let own = self.own_keys();
        every
            .into_iter()
            .chain(built_in)
            .chain(own.iter().map(|key| key.name))
            .collect()
    }
}

/// Two sets read a table alike when they add the same keys, in the same
/// order (a kind is known by its keys: a layout refuses two kinds that
/// share one).
impl PartialEq for ActionSet {
    fn eq(&self, other: &Self) -> bool {
        let names = |set: &ActionSet| -> Vec<&'static str> {
            set.own_keys().iter().map(|key| key.name).collect()
        };
        names(self) == names(other)
    }
}

impl Eq for ActionSet {}

impl Action {
    /// `append = path`: one JSON line per matching event, appended to
    /// `path` (resolved against the hooks' root when relative, as a
    /// table's is).
    pub fn append(path: impl Into<std::path::PathBuf>) -> Self {
        Action::new(AppendAction { path: path.into() })
    }

    /// `run = argv`: the program and its arguments (never a shell line),
    /// with the event's JSON line on stdin and the [default
    /// timeout](DEFAULT_TIMEOUT).
    pub fn run<I, S>(argv: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::run_with_timeout(argv, DEFAULT_TIMEOUT)
    }

    /// `run = argv` with `timeout_ms`: as [`Action::run`], with its own
    /// wall-clock ceiling.
    pub fn run_with_timeout<I, S>(argv: I, timeout: std::time::Duration) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Action::new(RunAction {
            argv: argv.into_iter().map(Into::into).collect(),
            timeout,
            background: false,
        })
    }

    /// `run = argv` with `timeout_ms` and `background = true`: as
    /// [`Action::run_with_timeout`], each event handed to the hook's own
    /// worker while the host goes on ([`Hooks`](crate::Hooks)' "Background
    /// hooks"). Never with [`OnFailure::Cancel`](crate::OnFailure::Cancel):
    /// such a hook runs while the host waits, and
    /// [`Hooks::problems`](crate::Hooks::problems) says so.
    pub fn run_in_background<I, S>(argv: I, timeout: std::time::Duration) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Action::new(RunAction {
            argv: argv.into_iter().map(Into::into).collect(),
            timeout,
            background: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// A problem about a path in the kernel's trees gets no hint, whichever
    /// action's it is: no command there makes a hook work.
    #[test]
    fn the_kernels_trees_get_no_hint() {
        for path in ["/proc/x", "/sys/kernel/x", "/dev/null", "/dev/nope/a"] {
            let kind = ProblemKind::Append(AppendProblem::NoParent {
                path: PathBuf::from(path),
                parent: PathBuf::from(path),
            });
            assert_eq!(kind.hint(), None, "{path}");
            let kind = ProblemKind::Run(RunProblem::NotExecutable {
                program: path.to_owned(),
                path: PathBuf::from(path),
            });
            assert_eq!(kind.hint(), None, "{path}");
        }
        let kind = ProblemKind::Append(AppendProblem::NoParent {
            path: PathBuf::from("/dev/shm/x/a"),
            parent: PathBuf::from("/dev/shm/x"),
        });
        assert_eq!(
            kind.hint().as_deref(),
            Some("create it: mkdir -p /dev/shm/x")
        );
    }
}
