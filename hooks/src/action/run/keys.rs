//! The `run` action's keys: `run` itself and its options `timeout_ms` and
//! `background`, their rows of the key table, and what a value of each must
//! be.

use std::fmt;
use std::time::Duration;

use serde_json::json;

use crate::action::interface::Entry;
use crate::key::{HookKey, ON_FAILURE, Shape};
use crate::raw::{Cx, Names, RawHook};
use crate::table_error::TableError;

pub(crate) use super::problem::KEY;

/// The option that sets a hook's timeout.
pub(crate) const TIMEOUT_MS: &str = "timeout_ms";

/// The option that hands a hook's events to a worker of its own.
pub(crate) const BACKGROUND: &str = "background";

/// The default wall-clock ceiling on a `run` hook: five seconds, chosen to be
/// noticeable when a spawning hook is wired to a hot event.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(5000);

pub(crate) const ENTRY: Entry = Entry {
    key: HookKey {
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
    },
    options: &[
        HookKey {
            name: TIMEOUT_MS,
            shape: Shape::Int(
                "a whole number of milliseconds, at least 1, as in `timeout_ms = 2000`",
            ),
            owner: Some(KEY),
            schema: |_| {
                json!({
                    "type": "integer",
                    "minimum": 1,
                    "default": DEFAULT_TIMEOUT.as_millis() as u64,
                    "description": "The wall-clock ceiling on a run hook, in milliseconds; the child is killed at it."
                })
            },
            elsewhere: None,
        },
        HookKey {
            name: BACKGROUND,
            shape: Shape::Bool("`true` or `false`, as in `background = true`"),
            owner: Some(KEY),
            schema: |_| {
                json!({
                    "type": "boolean",
                    "default": false,
                    "description": "Hand each event to this hook's own worker, in order, and let the run go on at once. Never for a hook whose work the next step reads (a formatter), nor with on_failure = \"cancel\"."
                })
            },
            elsewhere: Some(
                "an append is one write, done in microseconds, which never holds the run up",
            ),
        },
    ],
    verb: "runs a program",
    // What `validate` refuses between two keys, for an editor too.
    rules: || {
        vec![json!({
            "not": {
                "required": [BACKGROUND, ON_FAILURE],
                "properties": {
                    BACKGROUND: { "const": true },
                    ON_FAILURE: { "const": "cancel" }
                }
            }
        })]
    },
};

/// Why a `run` table is refused, in the action's words.
#[derive(Debug)]
enum Refusal {
    /// `run = []` (`empty_array`) or `run = ["", …]`.
    NoProgram { empty_array: bool },
    /// An element holding a NUL character, counted from 1.
    NulInArgument { index: usize },
    /// `timeout_ms` below 1.
    BadTimeout(i64),
    /// `background = true` with `on_failure = "cancel"`.
    CancelInBackground,
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
            Refusal::BadTimeout(ms) => write!(
                f,
                "`timeout_ms = {ms}` is not a timeout; write a whole number of milliseconds, at least 1"
            ),
            Refusal::CancelInBackground => f.write_str(
                "`background = true` cannot go with `on_failure = \"cancel\"`: a cancel from the \
                 background would land on a later step than the event that caused it, and a \
                 policy check must block; remove `background`, or make the hook \
                 `on_failure = \"continue\"`",
            ),
        }
    }
}

/// A program first, no NUL anywhere, a timeout of at least 1 ms, and no
/// `background` on a hook that cancels: the argv, the timeout and whether
/// the hook runs in the background.
pub(crate) fn validate(
    run: Names,
    raw: &mut RawHook,
    cx: &Cx<'_>,
) -> Result<(Vec<String>, Duration, bool), TableError> {
    let span = run.span();
    let argv = run.into_inner();
    let refuse = |span, refusal| cx.refusal(KEY, span, KEY, refusal);
    match argv.first() {
        None => return Err(refuse(span, Refusal::NoProgram { empty_array: true })),
        Some(program) if program.get_ref().is_empty() => {
            let refusal = Refusal::NoProgram { empty_array: false };
            return Err(refuse(program.span(), refusal));
        }
        Some(_) => {}
    }
    if let Some(bad) = argv.iter().position(|a| a.get_ref().contains('\0')) {
        let refusal = Refusal::NulInArgument { index: bad + 1 };
        return Err(refuse(argv[bad].span(), refusal));
    }
    let timeout = match raw.take_int(TIMEOUT_MS) {
        None => DEFAULT_TIMEOUT,
        Some(t) => match u64::try_from(*t.get_ref()) {
            Ok(ms) if ms >= 1 => Duration::from_millis(ms),
            _ => {
                let refusal = Refusal::BadTimeout(*t.get_ref());
                return Err(cx.refusal(TIMEOUT_MS, t.span(), KEY, refusal));
            }
        },
    };
    let background = match raw.take_bool(BACKGROUND) {
        Some(b) if *b.get_ref() && raw.choice(ON_FAILURE) == Some("cancel") => {
            return Err(cx.refusal(BACKGROUND, b.span(), KEY, Refusal::CancelInBackground));
        }
        Some(b) => b.into_inner(),
        None => false,
    };
    let argv = argv.into_iter().map(toml::Spanned::into_inner).collect();
    Ok((argv, timeout, background))
}
