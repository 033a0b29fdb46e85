//! The actions a hook may take, as a table: each is one module here,
//! registered once in the `actions!` list below.
//!
//! A module brings everything about its action: its key and options (rows
//! of the key table, with what each accepts and its JSON Schema), what
//! validating a table into it means, the line a checker shows, what it
//! does beyond the engine ([`Effects`]), what preparing it when the hooks
//! are built finds and keeps (its `Ready`), how it executes one event, and
//! the ways it fails. The key list, the schema, the "neither … nor …"
//! messages and the dispatch are all computed from the list, so a new
//! action is a new module and one line in the list; one that fails in a way
//! of its own says so with [`HookFailure::Action`] and a failure type of its
//! own module, without an edit to [`HookFailure`], and one that refuses a
//! value of its keys in its own words says so with
//! [`TableErrorKind::Action`](crate::shared::TableErrorKind::Action).
//!
//! Each module has the same functions, which take what every action is
//! given as one context struct ([`Prepare`], [`Fire`]) and the variant's
//! own fields by reference:
//!
//! - `validate(&mut RawHook, &Cx) -> Result<Action, TableError>`, named on
//!   its [`ActionEntry`];
//! - `prepare(&Prepare, fields…) -> (Ready, Vec<ProblemKind>)`: what would
//!   make it fail each time it fires, and its `Ready`, what built hooks
//!   hold to execute it;
//! - `Ready::execute(&self, Fire) -> Result<(), HookFailure>`;
//! - `describe(&Describe, fields…) -> String`.

mod append;
#[cfg(test)]
mod count;
mod run;

pub use append::AppendFailure;
pub use run::DEFAULT_TIMEOUT;

use std::path::Path;

use crate::failure::HookFailure;
use crate::problem::ProblemKind;
use crate::process::{Capture, Interrupt};
use crate::shared::{Cx, Effects, HookKey, RawHook, Root, TableError};

/// One registered action.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ActionEntry {
    /// The key that chooses this action (`append`), a row of the key table.
    pub(crate) key: HookKey,
    /// Keys only this action takes (`timeout_ms` for `run`).
    pub(crate) options: &'static [HookKey],
    /// What a hook with this action does, as in "this hook appends".
    pub(crate) verb: &'static str,
    /// What it does beyond the engine ([`Action::effects`]).
    pub(crate) effects: Effects,
    /// Checks a table whose action this is (its key is present, no other
    /// action's key or option is) into an [`Action`].
    pub(crate) validate: fn(&mut RawHook, &Cx<'_>) -> Result<Action, TableError>,
}

/// What every action is prepared with when the hooks are built.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prepare<'a> {
    /// The hooks' root, absolute and held open.
    pub(crate) root: &'a Root,
    /// Whether to create what the action writes to when nothing is wrong
    /// ([`Hooks::new`](crate::Hooks::new)), or only to look
    /// ([`Hooks::check`](crate::Hooks::check)).
    pub(crate) create: bool,
}

/// What every action describes itself with, for a checker's line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Describe<'a> {
    /// The hooks' root: a path under it is shown relative to it.
    pub(crate) root: &'a Path,
}

/// What every action executes one event with, beside its own `Ready`.
#[derive(Debug)]
pub(crate) struct Fire<'a> {
    /// The event as one JSON line, with its newline.
    pub(crate) line: &'a [u8],
    /// The hooks' root, absolute and held open.
    pub(crate) root: &'a Root,
    /// What a spawned child is in flight on.
    pub(crate) interrupt: &'a Interrupt,
    /// Where the end of a spawned child's stderr is kept, when it is.
    pub(crate) capture: Option<&'a mut Capture>,
}

/// Declares the actions: the [`Action`] enum, [`ACTIONS`], and the
/// dispatch from a variant to its module's `prepare`, `execute` and
/// `describe`, each of which takes the variant's fields by reference.
macro_rules! actions {
    ($(
        $(#[cfg($cfg:meta)])?
        $(#[doc = $doc:literal])*
        $variant:ident { $( $(#[doc = $fdoc:literal])* $field:ident : $ty:ty ),* $(,)? }
            => $module:ident
    ),* $(,)?) => {
        /// A hook's action: exactly one of the registered actions (`append`
        /// and `run`).
        ///
        /// Read by matching (with `..`: an action may gain an option, and
        /// the enum an action); built with [`Action::append`] and
        /// [`Action::run`].
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum Action {
            $(
                $(#[cfg($cfg)])?
                $(#[doc = $doc])*
                #[non_exhaustive]
                $variant { $( $(#[doc = $fdoc])* $field: $ty ),* },
            )*
        }

        /// Every action, in the order the list below declares them.
        pub(crate) const ACTIONS: &[ActionEntry] = &[$( $(#[cfg($cfg)])? $module::ENTRY, )*];

        /// A hook's action as built hooks hold it, ready to execute: each
        /// action's own `Ready`, made by its `prepare`.
        #[derive(Debug)]
        pub(crate) enum Ready {
            $(
                $(#[cfg($cfg)])?
                $variant($module::Ready),
            )*
        }

        impl Action {
            /// Prepares the action when the hooks are built: returns what
            /// executes it, and what would make it fail each time it fires
            /// (and, when `cx.create` is set and nothing is wrong, creates
            /// what it writes to).
            pub(crate) fn prepare(&self, cx: &Prepare<'_>) -> (Ready, Vec<ProblemKind>) {
                match self {
                    $(
                        $(#[cfg($cfg)])?
                        Action::$variant { $($field),* } => {
                            let (ready, problems) = $module::prepare(cx, $($field),*);
                            (Ready::$variant(ready), problems)
                        }
                    )*
                }
            }

            /// What the action does beyond the engine (writes a file, spawns
            /// a process), as its module declares it.
            pub fn effects(&self) -> Effects {
                match self {
                    $(
                        $(#[cfg($cfg)])?
                        Action::$variant { .. } => $module::ENTRY.effects,
                    )*
                }
            }

            /// What the action does, in one phrase, as a checker shows it:
            /// `append to audit.jsonl`, `run ["notify"] (timeout 5000 ms)`.
            /// Paths are shown relative to `root` when they are under it.
            pub fn describe(&self, root: &Path) -> String {
                match self {
                    $(
                        $(#[cfg($cfg)])?
                        Action::$variant { $($field),* } => {
                            $module::describe(&Describe { root }, $($field),*)
                        }
                    )*
                }
            }
        }

        impl Ready {
            /// Executes the action with one event.
            #[inline]
            pub(crate) fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
                match self {
                    $(
                        $(#[cfg($cfg)])?
                        Ready::$variant(ready) => ready.execute(fire),
                    )*
                }
            }
        }
    };
}

actions! {
    /// Append one JSON line per matching event to `path`.
    Append {
        /// The file, resolved against the hooks' root when it was
        /// relative.
        path: std::path::PathBuf,
    } => append,
    /// Spawn `argv` with the event's JSON line on stdin.
    ///
    /// The child runs in the hooks' root, in a process group of its own,
    /// with stdout and stderr discarded (the end of its stderr is kept when
    /// the hooks [`capture_stderr`](crate::Hooks::capture_stderr)), and the
    /// host's environment except `PATH`, which keeps only its absolute
    /// entries (a script's bare `ls` never runs a `./ls` in the root). It
    /// inherits every descriptor the host has open without close-on-exec: a
    /// host must mark the descriptors it inherited close-on-exec at start,
    /// since the engine cannot without `unsafe`. Its process group is killed at
    /// `timeout`, and by the hooks' [`Interrupt`].
    Run {
        /// The program and its arguments, as written: never a shell line.
        argv: Vec<String>,
        /// The wall-clock ceiling, from spawn.
        timeout: std::time::Duration,
    } => run,
    #[cfg(test)]
    /// Test-only: add one to the counter `name` per matching event. It
    /// proves that an action is its module and this line.
    Count {
        /// The counter.
        name: String,
    } => count,
}

impl Action {
    /// `append = path`: one JSON line per matching event, appended to
    /// `path` (resolved against the hooks' root when relative, as a
    /// table's is).
    pub fn append(path: impl Into<std::path::PathBuf>) -> Self {
        Action::Append { path: path.into() }
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
        Action::Run {
            argv: argv.into_iter().map(Into::into).collect(),
            timeout,
        }
    }
}

/// The action keys, in the order of [`ACTIONS`].
pub(crate) const NAMES: [&str; ACTIONS.len()] = {
    let mut out = [""; ACTIONS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = ACTIONS[i].key.name;
        i += 1;
    }
    out
};
