//! The `append` action: one JSON line per matching event, to a file.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{Action, ActionEntry};
use crate::exec::{Capture, HookFailure, Interrupt, ProblemKind, append, check};
use crate::table::{Cx, HookKey, RawHook, Shape, TableError, TableErrorKind};

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

pub(super) fn prepare(number: usize, root: &Path, create: bool, path: &Path) -> Vec<ProblemKind> {
    let mut problems = check::append(path, root);
    if create && problems.is_empty() {
        problems.extend(append::create(number, path));
    }
    problems
}

#[inline]
pub(super) fn execute(
    line: &[u8],
    _root: &Path,
    _interrupt: &Interrupt,
    _capture: Option<&mut Capture>,
    path: &Path,
) -> Result<(), HookFailure> {
    append::append(path, line)
}

pub(super) fn describe(root: &Path, path: &Path) -> String {
    let shown = path.strip_prefix(root).unwrap_or(path);
    format!("append to {}", shown.display())
}
