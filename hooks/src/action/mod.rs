//! The action registry: the actions a hook may take, each one module here,
//! listed once in the `actions!` list below.
//!
//! A module brings everything about its action: its key and options (rows
//! of the key table, with what each accepts and its JSON Schema), what
//! validating a table into it means and its refusals, the line a checker
//! shows, what it does beyond the engine ([`Effects`]), what preparing it
//! when the hooks are built finds wrong (its own problem type) and keeps
//! (its `Ready`), how it executes one event, and its own ways of failing.
//! It names the interface it implements (`interface.rs`) and the layers
//! below, never this registry: it is given its variant's fields and
//! returns them, and the list makes the rest.
//!
//! From the list come the [`Action`] enum, [`ProblemKind`] (a variant per
//! action, holding that action's own problem type), the built hooks' `Ready`
//! enum, the dispatch from a variant to its module, and [`ACTIONS`], from
//! which the key list, the schema and the "neither … nor …" messages are
//! computed. So a new action is a new module and one line in the list. It
//! refuses a value of its keys in its own words with
//! [`TableErrorKind::Action`](crate::TableErrorKind::Action), and fails in a
//! way of its own with [`HookFailure::Action`] and a failure type of its
//! own module: no shared enum lists its variants.
//!
//! Each module has the same items, which take what every action is given as
//! one context struct ([`Prepare`], [`Describe`], [`Fire`]) and the
//! variant's own fields, by reference, in the order the list declares them:
//!
//! - `ENTRY`: its [`Entry`] (key, options, verb, effects);
//! - `validate(value, &mut RawHook, &Cx) -> Result<(fields…), TableError>`:
//!   its key's value (a [`KeyValue`], read in the key's shape), the table's
//!   other keys, and where the table is;
//! - `prepare(&Prepare, fields…) -> (Ready, Vec<Problem>)`: what would make
//!   it fail each time it fires, and its `Ready`, what built hooks hold to
//!   execute it;
//! - `Ready::execute(&self, Fire) -> Result<(), HookFailure>`, and
//!   `Ready::background(&self) -> bool`, whether its events go to a worker
//!   of its own (`run`'s `background = true`);
//! - `describe(&Describe, fields…) -> String`;
//! - its problem type, named in the list, with `hint()` and `path()` (the
//!   file the problem is about: no hint names a path in the kernel's trees).

mod append;
#[cfg(test)]
mod count;
mod interface;
mod run;
mod shell;

pub use append::{AppendFailure, AppendProblem};
pub use interface::Effects;
pub(crate) use interface::{Fire, Prepare};
pub use run::{DEFAULT_TIMEOUT, RunProblem};

use std::fmt;
use std::path::Path;

use toml::Spanned;

use crate::failure::HookFailure;
use crate::key::HookKey;
use crate::raw::{Cx, KeyValue, RawHook, RawValue};
use crate::table_error::{TableError, TableErrorKind};
use interface::{Describe, Entry};

/// One registered action: what its module declares, and its validator
/// made to return the [`Action`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ActionEntry {
    /// The key that chooses this action (`append`), a row of the key table.
    pub(crate) key: HookKey,
    /// Keys only this action takes (`timeout_ms` for `run`).
    pub(crate) options: &'static [HookKey],
    /// What a hook with this action does, as in "this hook appends".
    pub(crate) verb: &'static str,
    /// Checks a table whose action this is, given its key's value (no other
    /// action's key or option is in the table), into an [`Action`].
    pub(crate) validate: Validator,
    /// Its JSON Schema rules beyond each key's own ([`Entry::rules`]).
    pub(crate) rules: fn() -> Vec<serde_json::Value>,
}

impl ActionEntry {
    const fn new(entry: Entry, validate: Validator) -> Self {
        let Entry {
            key,
            options,
            verb,
            rules,
            ..
        } = entry;
        ActionEntry {
            key,
            options,
            verb,
            validate,
            rules,
        }
    }
}

/// An [`ActionEntry`]'s validator.
type Validator = fn(Spanned<RawValue>, &mut RawHook, &Cx<'_>) -> Result<Action, TableError>;

/// `value` as the type an action's validator takes it as. The key was read
/// in the shape its row declares, which is that type's: the refusal is for
/// an action whose module declares one shape and takes another.
fn key_value<V: KeyValue>(
    value: Spanned<RawValue>,
    key: &str,
    cx: &Cx<'_>,
) -> Result<V, TableError> {
    let span = value.span();
    V::from_raw(value).ok_or_else(|| {
        let kind = TableErrorKind::Shape(format!(
            "the value of `{key}` was read in another shape than its action takes"
        ));
        cx.error(key, span, kind)
    })
}

/// Declares the actions: the [`Action`] enum, [`ProblemKind`], [`ACTIONS`],
/// the built hooks' `Ready`, and the dispatch from a variant to its
/// module's `validate`, `prepare`, `execute` and `describe`.
macro_rules! actions {
    ($(
        $(#[cfg($cfg:meta)])?
        $(#[doc = $doc:literal])*
        $variant:ident { $( $(#[doc = $fdoc:literal])* $field:ident : $ty:ty ),* $(,)? }
            => $module:ident, $problem:ident
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

        /// What is wrong with one hook, as found when the hooks were built:
        /// one variant per action, holding that action's own problem.
        ///
        /// An error, so that it can stand on its own; its `Display` says all
        /// of it, and `source()` returns nothing (a cause it quotes, such as
        /// [`AppendProblem::CannotCreate`]'s, is text in it).
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum ProblemKind {
            $(
                $(#[cfg($cfg)])?
                #[doc = concat!("A problem of a `", stringify!($module), "` hook.")]
                $variant($module::$problem),
            )*
        }

        /// Every action, in the order the list below declares them.
        pub(crate) const ACTIONS: &[ActionEntry] = &[$(
            $(#[cfg($cfg)])?
            {
                fn validate(
                    value: Spanned<RawValue>,
                    raw: &mut RawHook,
                    cx: &Cx<'_>,
                ) -> Result<Action, TableError> {
                    let value = key_value(value, $module::ENTRY.key.name, cx)?;
                    let ($($field,)*) = $module::validate(value, raw, cx)?;
                    Ok(Action::$variant { $($field),* })
                }
                ActionEntry::new($module::ENTRY, validate)
            },
        )*];

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
                            let problems = problems.into_iter().map(ProblemKind::$variant);
                            (Ready::$variant(ready), problems.collect())
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

        impl ProblemKind {
            /// What the operator can do about it: a command or an edit that
            /// fixes it, or `None` when there is none to give. A path under
            /// `/proc`, `/sys` or `/dev` (but `/dev/shm`, an ordinary file
            /// system) gets none: the kernel owns those, and no `mkdir` or
            /// `chmod` there makes a hook work.
            pub fn hint(&self) -> Option<String> {
                match self {
                    $(
                        $(#[cfg($cfg)])?
                        ProblemKind::$variant(problem) => match problem.path() {
                            Some(path) if shell::is_kernels(path) => None,
                            _ => problem.hint(),
                        },
                    )*
                }
            }
        }

        impl fmt::Display for ProblemKind {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(
                        $(#[cfg($cfg)])?
                        ProblemKind::$variant(problem) => problem.fmt(f),
                    )*
                }
            }
        }

        impl Ready {
            /// Whether its events go to a worker of its own rather than
            /// run while the host waits.
            pub(crate) fn background(&self) -> bool {
                match self {
                    $(
                        $(#[cfg($cfg)])?
                        Ready::$variant(ready) => ready.background(),
                    )*
                }
            }

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
    } => append, AppendProblem,
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
    /// `timeout`, and by the hooks' [`Interrupt`](crate::Interrupt).
    Run {
        /// The program and its arguments, as written: never a shell line.
        argv: Vec<String>,
        /// The wall-clock ceiling, from spawn.
        timeout: std::time::Duration,
        /// Whether each event is handed to the hook's own worker, in order,
        /// rather than run while the host waits ([`Hooks`](crate::Hooks)'
        /// "Background hooks").
        background: bool,
    } => run, RunProblem,
    #[cfg(test)]
    /// Test-only: add one to the counter `name` per matching event. It
    /// proves that an action is its module and this line.
    Count {
        /// The counter.
        name: String,
    } => count, CountProblem,
}

/// An error, so that it can stand on its own; its `Display` says all of it,
/// and `source()` returns nothing.
impl std::error::Error for ProblemKind {}

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
            background: false,
        }
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
        Action::Run {
            argv: argv.into_iter().map(Into::into).collect(),
            timeout,
            background: true,
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
