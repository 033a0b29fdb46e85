//! The `run` action's key, its row of the key table, and what a value of
//! it must be. Its `timeout_ms` and `background` are the engine's
//! (`crate::key`), which `run` honours.

use std::fmt;

use serde_json::json;

use crate::action::interface::ActionTable;
use crate::key::{HookKey, Shape};
use crate::table_error::TableError;

pub(crate) use super::run_problem::KEY;

/// `run`'s row of the key table.
pub(crate) const ROW: HookKey = HookKey {
    name: KEY,
    shape: Shape::Strings {
        array: "an argv array, program first, as in `run = [\"tee\", \"-a\", \"events.jsonl\"]` (there is no shell)",
        item: "a program or an argument, a string",
    },
    owner: Some(KEY),
    schema: |_| {
        json!({
            "type": "array",
            "description": "An argv to spawn with the event's JSON line on stdin. Never a shell line.",
            "minItems": 1,
            "prefixItems": [ { "type": "string", "minLength": 1 } ],
            "items": { "type": "string" }
        })
    },
    elsewhere: None,
};

/// Why a `run` table is refused, in the action's words.
#[derive(Debug)]
enum Refusal {
    /// `run = []` (`empty_array`) or `run = ["", …]`.
    NoProgram { empty_array: bool },
    /// An element holding a NUL character, counted from 1.
    NulInArgument { index: usize },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NoProgram { empty_array } => {
                if *empty_array {
                    f.write_str("`run = []` names no program")?;
                } else {
                    f.write_str("`run` names no program: its first element is empty")?;
                }
                f.write_str("; write the program first, then its arguments, as in `run = [\"tee\", \"-a\", \"events.jsonl\"]`")
            }
            Refusal::NulInArgument { index } => write!(
                f,
                "element {index} of `run` holds a NUL character, which no program name or argument can"
            ),
        }
    }
}

/// A program first, and no NUL anywhere: the argv.
pub(crate) fn validate(table: &ActionTable<'_>) -> Result<Vec<String>, TableError> {
    let argv: Vec<String> = table.value()?;
    match argv.first() {
        None => {
            let refusal = Refusal::NoProgram { empty_array: true };
            return Err(table.refuse(KEY, refusal));
        }
        Some(program) if program.is_empty() => {
            let refusal = Refusal::NoProgram { empty_array: false };
            return Err(table.refuse_item(0, refusal));
        }
        Some(_) => {}
    }
    if let Some(bad) = argv.iter().position(|a| a.contains('\0')) {
        let refusal = Refusal::NulInArgument { index: bad + 1 };
        return Err(table.refuse_item(bad, refusal));
    }
    Ok(argv)
}
