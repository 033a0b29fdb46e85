//! The action registry: the actions built into the engine, `append` and
//! `run`, each one module here and one line of [`BUILT_IN`], and the set of
//! actions one file is read with ([`ActionSet`]): the built-in ones, then
//! an embedder's own ([`Layout::action`](crate::Layout::action)).
//!
//! Every action, built-in or not, implements the public interface of
//! `interface.rs`: its kind ([`ActionKind`]: key, options, verb, the
//! engine's keys it honours, `validate` into its typed action) and that
//! action, its executor ([`Execute`]: `describe`, `effects`, `prepare`,
//! `execute`). A module names the interface it implements and the layers
//! below, never this registry.
//!
//! An action refuses a value of its keys in its own words with
//! [`TableErrorKind::Action`](crate::TableErrorKind::Action)
//! ([`ActionTable::refuse`]), fails in a way of its own with
//! [`HookFailure::Action`](crate::HookFailure::Action) and a failure type of
//! its own, and tells what building the hooks finds wrong with
//! [`Prepare::problem`], with a problem type of its own (`AppendProblem`,
//! `RunProblem`, crate-private: an embedder reads their words through
//! [`Problem`](crate::Problem)).

mod append;
mod interface;
mod problem_kind;
mod run;
mod shell;
mod value;

pub use append::AppendAction;
pub(crate) use append::AppendKind;
pub(crate) use interface::DynAction;
pub use interface::{
    Action, ActionKind, ActionTable, DEFAULT_TIMEOUT, Effects, Execute, Fire, Prepare,
};
pub(crate) use problem_kind::ProblemKind;
pub use run::RunAction;
pub(crate) use run::RunKind;

use std::fmt;
use std::sync::Arc;

use crate::key::HookKey;
pub(crate) use interface::DynKind;

/// A kind of action as the key table and the reader of a file know it: its
/// key and options, in a `const` the key table is computed from, and the
/// kind itself.
#[derive(Clone, Copy)]
pub(crate) struct Entry {
    /// [`ActionKind::KEY`].
    pub(crate) key: HookKey,
    /// [`ActionKind::OPTIONS`].
    pub(crate) options: &'static [HookKey],
    /// The kind.
    kind: &'static dyn DynKind,
}

impl Entry {
    /// The entry of `kind`.
    const fn of<K: ActionKind>(kind: &'static K) -> Entry {
        Entry {
            key: K::KEY,
            options: K::OPTIONS,
            kind,
        }
    }
}

/// The built-in actions, in the order the key table lists them: the one
/// list of them. Each is its module's [`ActionKind`], the route an
/// embedder's own action takes too.
pub(crate) const BUILT_IN: [Entry; 2] = [Entry::of(&AppendKind), Entry::of(&RunKind)];

/// The built-in actions' keys, in the order of [`BUILT_IN`].
pub(crate) const NAMES: [&str; BUILT_IN.len()] = {
    let mut out = [""; BUILT_IN.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = BUILT_IN[i].key.name;
        i += 1;
    }
    out
};

/// The actions one file is read with: the built-in ones, then an
/// embedder's own, in the order given.
#[derive(Clone, Default)]
pub(crate) struct ActionSet {
    /// The embedder's own, after the built-in ones.
    pub(crate) own: Vec<Arc<dyn DynKind>>,
}

impl fmt::Debug for ActionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The built-in ones are in every set: only the embedder's are shown.
        let own = self.own.iter().map(|kind| kind.key().name);
        f.debug_list().entries(own).finish()
    }
}

impl ActionSet {
    /// Adds the embedder's own `kind`, after those added before.
    pub(crate) fn push<K: ActionKind>(&mut self, kind: K) {
        self.own.push(Arc::new(kind));
    }

    /// Every kind, the built-in ones first.
    pub(crate) fn kinds(&self) -> impl Iterator<Item = &dyn DynKind> {
        let built_in = BUILT_IN.iter().map(|entry| entry.kind);
        built_in.chain(self.own.iter().map(|kind| &**kind))
    }

    /// Every action key, the built-in ones first.
    pub(crate) fn names(&self) -> Vec<&'static str> {
        self.kinds().map(|kind| kind.key().name).collect()
    }

    /// The keys of the actions that honour the engine's key `name`
    /// (`timeout_ms`), the built-in ones first.
    pub(crate) fn honouring(&self, name: &str) -> Vec<&'static str> {
        self.kinds()
            .filter(|kind| kind.honours(name))
            .map(|kind| kind.key().name)
            .collect()
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

    /// Every key a hook table takes: those of every hook, then every
    /// action's key and options.
    pub(crate) fn taken(&self) -> Vec<&'static str> {
        use crate::key::{BACKGROUND, ON, ON_FAILURE, TIMEOUT_MS, WHERE};
        let every = [ON, WHERE, ON_FAILURE, TIMEOUT_MS, BACKGROUND];
        let built_in = BUILT_IN
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
    /// Returns `append = path`: one JSON line per matching event, appended
    /// to `path` (resolved against the hooks' root when relative, as a
    /// table's is).
    pub fn append(path: impl Into<std::path::PathBuf>) -> Self {
        Action::new::<AppendKind>(AppendAction::new(path.into()))
    }

    /// Returns `run = argv`: the program and its arguments (never a shell
    /// line), with the event's JSON line on stdin and the [default
    /// timeout](DEFAULT_TIMEOUT).
    pub fn run<I, S>(argv: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Action::new::<RunKind>(RunAction {
            argv: argv.into_iter().map(Into::into).collect(),
        })
    }

    /// Returns `run = argv` with `timeout_ms`: as [`Action::run`], with its
    /// own wall-clock ceiling ([`Action::with_timeout`]).
    pub fn run_with_timeout<I, S>(argv: I, timeout: std::time::Duration) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::run(argv).with_timeout(timeout)
    }

    /// Returns `run = argv` with `timeout_ms` and `background = true`: as
    /// [`Action::run_with_timeout`], each event handed to the hook's own
    /// worker while the host goes on ([`Action::in_background`]).
    pub fn run_in_background<I, S>(argv: I, timeout: std::time::Duration) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::run_with_timeout(argv, timeout).in_background()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    use std::path::PathBuf;

    #[cfg(unix)]
    use super::append::AppendProblem;
    #[cfg(unix)]
    use super::run::run_problem::RunProblem;

    /// A problem about a path in the kernel's trees gets no hint, whichever
    /// action's it is: no command there makes a hook work.
    #[cfg(unix)] // The kernel's trees are Unix's.
    #[test]
    fn the_kernels_trees_get_no_hint() {
        for path in ["/proc/x", "/sys/kernel/x", "/dev/null", "/dev/nope/a"] {
            let kind = AppendProblem::NoParent {
                path: PathBuf::from(path),
                parent: PathBuf::from(path),
            };
            assert_eq!(kind.operator_hint(), None, "{path}");
            let kind = RunProblem::NotExecutable {
                program: path.to_owned(),
                path: PathBuf::from(path),
            };
            assert_eq!(kind.operator_hint(), None, "{path}");
        }
        let kind = AppendProblem::NoParent {
            path: PathBuf::from("/dev/shm/x/a"),
            parent: PathBuf::from("/dev/shm/x"),
        };
        assert_eq!(
            kind.operator_hint().as_deref(),
            Some("create it: mkdir -p /dev/shm/x")
        );
    }
}
