//! The `append` action's key, its row of the key table, and what a value of
//! it must be.

use std::fmt;
use std::path::PathBuf;

use serde_json::json;

use crate::action::interface::ActionTable;
use crate::key::{HookKey, Shape};
use crate::table_error::TableError;

pub(crate) use super::append_problem::KEY;

/// `append`'s row of the key table.
pub(crate) const ROW: HookKey = HookKey {
    name: KEY,
    shape: Shape::Text("a file path, as in `append = \"audit.jsonl\"`"),
    owner: Some(KEY),
    schema: |_| {
        json!({
            "type": "string",
            "minLength": 1,
            "description": "A path, relative to the hooks' root, to append one JSON line per matching event to."
        })
    },
    elsewhere: None,
};

/// Why an `append` table is refused, in the action's words.
#[derive(Debug)]
enum Refusal {
    /// `append = ""`.
    EmptyPath,
    /// A path holding a NUL character.
    NulInPath,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::EmptyPath => {
                "`append = \"\"` names no file; write a path, as in `append = \"audit.jsonl\"`"
            }
            Refusal::NulInPath => "the `append` path holds a NUL character, which no file name can",
        })
    }
}

/// A path that names a file, resolved against the hooks' root (`join`
/// keeps an absolute path as it is).
pub(crate) fn validate(table: &ActionTable<'_>) -> Result<PathBuf, TableError> {
    let path: String = table.value()?;
    let refusal = match () {
        () if path.is_empty() => Refusal::EmptyPath,
        () if path.contains('\0') => Refusal::NulInPath,
        () => return Ok(table.root().join(PathBuf::from(path))),
    };
    Err(table.refuse(KEY, refusal))
}
