//! The `append` action: one JSON line per matching event, to a file.
//!
//! Its key and its validation are `append_key.rs`; the log file, what
//! building the hooks finds wrong with it and the one `write` per event,
//! `log.rs`, in the words of `append_problem.rs`; its own ways of failing,
//! `append_failure.rs`.

mod append_failure;
mod append_key;
pub(crate) mod append_problem;
mod log;
#[cfg(windows)]
mod windows;

pub(crate) use append_problem::AppendProblem;

use std::path::{Path, PathBuf};

use crate::action::interface::{ActionKind, ActionTable, Effects, Execute, Fire, Prepare};
use crate::hook_failure::HookFailure;
use crate::key::{BACKGROUND, HookKey};
use crate::table_error::TableError;
use append_key::KEY;

/// The `append` action's kind.
pub(crate) struct AppendKind;

impl ActionKind for AppendKind {
    type Action = AppendAction;
    const KEY: HookKey = append_key::ROW;
    const VERB: &'static str = "appends";
    const WHY_NOT: &'static [(&'static str, &'static str)] = &[(
        BACKGROUND,
        "an append is one write, done in microseconds, which never holds the run up",
    )];

    fn validate(&self, table: &mut ActionTable<'_>) -> Result<AppendAction, TableError> {
        append_key::validate(table).map(AppendAction::new)
    }
}

/// `append = path`: one JSON line per matching event, appended to `path`.
/// Built with [`Action::append`](crate::Action::append), read with
/// [`Action::get`](crate::Action::get).
///
/// Never in the background, and with no timeout: an append is one write,
/// done in microseconds.
#[derive(Clone)]
#[non_exhaustive]
pub struct AppendAction {
    /// The file, resolved against the hooks' root when it was relative.
    pub path: PathBuf,
    /// What its appends know of the file, once the hooks are built.
    log: Option<std::sync::Arc<log::Log>>,
}

impl AppendAction {
    /// The action appending to `path`, not yet prepared.
    pub(crate) fn new(path: PathBuf) -> Self {
        AppendAction { path, log: None }
    }
}

/// Shown as its path: what it was prepared with is the engine's.
impl std::fmt::Debug for AppendAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppendAction")
            .field("path", &self.path)
            .finish()
    }
}

/// Two appends are equal when they append to the same path.
impl PartialEq for AppendAction {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl Eq for AppendAction {}

impl Execute for AppendAction {
    fn describe(&self, root: &Path) -> String {
        let shown = self.path.strip_prefix(root).unwrap_or(&self.path);
        format!("append to {}", shown.display())
    }

    fn effects(&self) -> Effects {
        Effects::WRITES_FILE
    }

    /// What would make an append to its path fail; with `cx.create`, the
    /// file is created when nothing is wrong.
    fn prepare(&self, cx: &mut Prepare<'_>) -> Self {
        let path = &self.path;
        let log = Some(std::sync::Arc::new(log::Log::new(path, cx.root)));
        let prepared = AppendAction {
            path: path.clone(),
            log,
        };
        // A path resolved against another root than the hooks' is not where
        // the operator meant, and is not opened beneath the hooks' root: the
        // embedder gave two roots. Nothing is created for it.
        if let Some(read_with) = cx.read_with
            && path.starts_with(read_with)
            && !cx.root.is_at(read_with)
        {
            let problem = AppendProblem::OtherRoot {
                path: path.clone(),
                read_with: read_with.to_path_buf(),
                root: cx.root.path().to_path_buf(),
            };
            tell(cx, problem);
            return prepared;
        }
        let mut problems = log::check(path, cx.root);
        if cx.create && problems.is_empty() {
            problems.extend(log::create(path, cx.root));
        }
        for problem in problems {
            tell(cx, problem);
        }
        prepared
    }

    #[inline]
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        let fresh;
        let log = match &self.log {
            Some(log) => log,
            // Not prepared (never by the engine, which prepares every hook
            // when it builds them): what the file is, learned now.
            None => {
                fresh = log::Log::new(&self.path, fire.root);
                &fresh
            }
        };
        log::append(&self.path, log, fire.root, fire.line).map_err(|e| HookFailure::action(KEY, e))
    }
}

/// Tells `cx` of `problem`, with its hint for an operator.
fn tell(cx: &mut Prepare<'_>, problem: AppendProblem) {
    let hint = problem.operator_hint();
    cx.problem(problem, hint);
}
