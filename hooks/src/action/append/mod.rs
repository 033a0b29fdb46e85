//! The `append` action: one JSON line per matching event, to a file.
//!
//! Its key and its validation are `keys.rs`; the file, what building the
//! hooks finds wrong with it and the one `write` per event, `file.rs`, in
//! the words of `problem.rs`; its own ways of failing, `failure.rs`.

mod failure;
mod file;
mod keys;
pub(crate) mod problem;

pub use failure::AppendFailure;
pub(crate) use keys::ENTRY;
pub use problem::AppendProblem;

use std::path::{Path, PathBuf};

use crate::action::interface::{
    Action, ActionTable, BuiltIn, Effects, Execute, Fire, HookAction, Prepare,
};
use crate::failure::HookFailure;
use crate::table_error::TableError;
use keys::KEY;

/// The `append` action's kind: its entry, and its validation.
pub(crate) const KIND: BuiltIn = BuiltIn {
    entry: ENTRY,
    validate,
};

/// A table whose action is `append`, checked into its action.
fn validate(table: &mut ActionTable<'_>) -> Result<Action, TableError> {
    let (value, raw, cx) = table.built_in()?;
    let path = keys::validate(value, raw, cx)?;
    Ok(Action::new(AppendAction { path }))
}

/// `append = path`: one JSON line per matching event, appended to `path`.
/// Built with [`Action::append`], read with [`Action::get`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AppendAction {
    /// The file, resolved against the hooks' root when it was relative.
    pub path: PathBuf,
}

impl HookAction for AppendAction {
    fn key(&self) -> &'static str {
        KEY
    }

    fn describe(&self, root: &Path) -> String {
        let shown = self.path.strip_prefix(root).unwrap_or(&self.path);
        format!("append to {}", shown.display())
    }

    fn effects(&self) -> Effects {
        Effects::WRITES_FILE
    }

    fn prepare(&self, cx: &mut Prepare<'_>) -> Box<dyn Execute> {
        let (ready, problems) = prepare(cx, &self.path);
        for problem in problems {
            cx.push(crate::action::problem::ProblemKind::Append(problem));
        }
        Box::new(ready)
    }
}

/// An `append` hook as built hooks hold it: its file, and what its appends
/// know of it.
#[derive(Debug)]
pub(crate) struct Ready {
    path: PathBuf,
    log: file::Log,
}

/// What would make an append to `path` fail; with `cx.create`, the file is
/// created when nothing is wrong.
fn prepare(cx: &Prepare<'_>, path: &Path) -> (Ready, Vec<AppendProblem>) {
    let log = file::Log::new(path, cx.root);
    // A path resolved against another root than the hooks' is not where
    // the operator meant, and is not opened beneath the hooks' root: the
    // embedder gave two roots. Nothing is created for it.
    if let Some(read_with) = cx.read_with
        && path.starts_with(read_with)
        && !cx.root.is_at(read_with)
    {
        let problem = AppendProblem::OtherRoot {
            path: path.to_path_buf(),
            read_with: read_with.to_path_buf(),
            root: cx.root.path().to_path_buf(),
        };
        return (
            Ready {
                path: path.to_path_buf(),
                log,
            },
            vec![problem],
        );
    }
    let mut problems = file::check(path, cx.root);
    if cx.create && problems.is_empty() {
        problems.extend(file::create(path, cx.root));
    }
    let path = path.to_path_buf();
    (Ready { path, log }, problems)
}

/// Never in the background: an append is one write, done in microseconds.
impl Execute for Ready {
    #[inline]
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        file::append(&self.path, &self.log, fire.root, fire.line)
            .map_err(|e| HookFailure::action(KEY, e))
    }
}
