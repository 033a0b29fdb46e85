//! The `append` action: one JSON line per matching event, to a file.
//!
//! Its key and its validation are `keys.rs`; the file, what building the
//! hooks finds wrong with it and the one `write` per event, `file.rs`, in
//! the words of `problem.rs`; its own ways of failing, `failure.rs`.

mod failure;
mod file;
mod keys;
mod problem;

pub use failure::AppendFailure;
pub(crate) use keys::{ENTRY, validate};
pub use problem::AppendProblem;

use std::path::{Path, PathBuf};

use crate::action::interface::{Describe, Fire, Prepare};
use crate::failure::HookFailure;
use crate::root::absolute;
use keys::KEY;

/// An `append` hook as built hooks hold it: its file, and what its appends
/// know of it.
#[derive(Debug)]
pub(crate) struct Ready {
    path: PathBuf,
    log: file::Log,
}

/// What would make an append to `path` fail; with `cx.create`, the file is
/// created when nothing is wrong.
pub(crate) fn prepare(cx: &Prepare<'_>, path: &Path) -> (Ready, Vec<AppendProblem>) {
    let log = file::Log::new(path, cx.root);
    // A path resolved against another root than the hooks' is not where
    // the operator meant, and is not opened beneath the hooks' root: the
    // embedder gave two roots. Nothing is created for it.
    if let Some(read_with) = cx.read_with
        && path.starts_with(read_with)
        && absolute(read_with) != cx.root.path
    {
        let problem = AppendProblem::OtherRoot {
            path: path.to_path_buf(),
            read_with: read_with.to_path_buf(),
            root: cx.root.path.clone(),
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

impl Ready {
    /// Never: an append is one write, done in microseconds.
    pub(crate) fn background(&self) -> bool {
        false
    }

    #[inline]
    pub(crate) fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        file::append(&self.path, &self.log, fire.root, fire.line)
            .map_err(|e| HookFailure::action(KEY, e))
    }
}

pub(crate) fn describe(cx: &Describe<'_>, path: &Path) -> String {
    let shown = path.strip_prefix(cx.root).unwrap_or(path);
    format!("append to {}", shown.display())
}
