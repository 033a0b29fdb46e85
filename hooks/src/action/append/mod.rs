//! The `append` action: one JSON line per matching event, to a file.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{Action, ActionEntry, Describe, Fire, Prepare};
mod failure;
mod file;

pub use failure::AppendFailure;

use crate::failure::HookFailure;
use crate::problem::ProblemKind;
use crate::shared::{Cx, Effects, HookKey, RawHook, Shape, TableError, TableErrorKind};
use file as append;

pub(super) const ENTRY: ActionEntry = ActionEntry {
    key: HookKey {
        name: "append",
        shape: Shape::Text("a file path, as in `append = \"audit.jsonl\"`"),
        owner: Some("append"),
        schema: |_| {
            json!({
                "type": "string",
                "minLength": 1,
                "description": "A path, relative to the hooks' root, to append one JSON line per matching event to."
            })
        },
    },
    options: &[],
    verb: "appends",
    effects: Effects::WRITES_FILE,
    validate,
};

/// A path that names a file, resolved against the hooks' root (`join`
/// keeps an absolute path as it is).
fn validate(raw: &mut RawHook, cx: &Cx<'_>) -> Result<Action, TableError> {
    let Some(append) = raw.take_text("append") else {
        return Err(cx.table_error(TableErrorKind::NoAction(&super::NAMES)));
    };
    let span = append.span();
    let path = append.into_inner();
    if path.is_empty() {
        return Err(cx.error("append", span, TableErrorKind::EmptyPath));
    }
    if path.contains('\0') {
        return Err(cx.error("append", span, TableErrorKind::NulInPath));
    }
    Ok(Action::Append {
        path: cx.root.join(PathBuf::from(path)),
    })
}

/// An `append` hook as built hooks hold it: its file, and what its appends
/// know of it.
#[derive(Debug)]
pub(crate) struct Ready {
    path: PathBuf,
    log: append::Log,
}

/// What would make an append to `path` fail; with `cx.create`, the file is
/// created when nothing is wrong.
pub(super) fn prepare(cx: &Prepare<'_>, path: &Path) -> (Ready, Vec<ProblemKind>) {
    let mut problems = append::check(path, cx.root);
    if cx.create && problems.is_empty() {
        problems.extend(append::create(path, cx.root));
    }
    let log = append::Log::new(path, cx.root);
    let path = path.to_path_buf();
    (Ready { path, log }, problems)
}

impl Ready {
    #[inline]
    pub(super) fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        append::append(&self.path, &self.log, fire.root, fire.line)
            .map_err(|e| HookFailure::action("append", e))
    }
}

pub(super) fn describe(cx: &Describe<'_>, path: &Path) -> String {
    let shown = path.strip_prefix(cx.root).unwrap_or(path);
    format!("append to {}", shown.display())
}
