//! The `append` action: one JSON line per matching event, to a file.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{Action, ActionEntry};
use crate::exec::{Fire, HookFailure, ProblemKind, append};
use crate::shared::{Effects, HookKey, Root, Shape};
use crate::table::{Cx, RawHook, TableError, TableErrorKind};

pub(super) const ENTRY: ActionEntry = ActionEntry {
    key: HookKey {
        name: "append",
        shape: Shape::Text("a file path, as in `append = \"audit.jsonl\"`"),
        owner: Some("append"),
        schema: |_| {
            json!({
                "type": "string",
                "minLength": 1,
                "description": "A path, relative to the discovery root, to append one JSON line per matching event to."
            })
        },
    },
    options: &[],
    verb: "appends",
    effects: Effects::WRITES_FILE,
    validate,
};

/// A path that names a file, resolved against the discovery root (`join`
/// keeps an absolute path as it is).
fn validate(raw: &mut RawHook, cx: &Cx<'_>) -> Result<Action, TableError> {
    let Some(append) = raw.take_text("append") else {
        return Err(cx.table_error(TableErrorKind::NoAction));
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

pub(super) fn prepare(root: &Root, create: bool, path: &Path) -> Vec<ProblemKind> {
    let mut problems = append::check(path, root);
    if create && problems.is_empty() {
        problems.extend(append::create(path, root));
    }
    problems
}

#[inline]
pub(super) fn execute(fire: Fire<'_>, path: &Path) -> Result<(), HookFailure> {
    match fire.log {
        Some(log) => append::append(path, log, fire.root, fire.line),
        // Built hooks hold a log for every append hook; one made now would
        // do the same, looking at the last byte each time.
        None => append::append(
            path,
            &append::Log::new(path, fire.root),
            fire.root,
            fire.line,
        ),
    }
}

pub(super) fn describe(root: &Path, path: &Path) -> String {
    let shown = path.strip_prefix(root).unwrap_or(path);
    format!("append to {}", shown.display())
}
