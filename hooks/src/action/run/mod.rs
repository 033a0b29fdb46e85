//! The `run` action: spawn an argv with the event's JSON line on stdin.

use std::time::Duration;

use serde_json::json;

use super::{Action, ActionEntry, Describe, Fire, Prepare};
mod check;

use crate::failure::HookFailure;
use crate::problem::ProblemKind;
use crate::process;
use crate::shared::{Cx, Effects, HookKey, RawHook, Shape, TableError, TableErrorKind};

/// The default wall-clock ceiling on a `run` hook: five seconds, chosen to be
/// noticeable when a spawning hook is wired to a hot event.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(5000);

pub(super) const ENTRY: ActionEntry = ActionEntry {
    key: HookKey {
        name: "run",
        shape: Shape::Strings {
            array: "an argv array, program first, as in `run = [\"cargo\", \"fmt\"]` (there is no shell)",
            item: "a program or an argument, a string",
        },
        owner: Some("run"),
        schema: |_| {
            json!({
                "type": "array",
                "description": "An argv to spawn with the event's JSON line on stdin. Never a shell line.",
                "minItems": 1,
                "prefixItems": [ { "type": "string", "minLength": 1 } ],
                "items": { "type": "string" }
            })
        },
    },
    options: &[HookKey {
        name: "timeout_ms",
        shape: Shape::Int("a whole number of milliseconds, at least 1, as in `timeout_ms = 2000`"),
        owner: Some("run"),
        schema: |_| {
            json!({
                "type": "integer",
                "minimum": 1,
                "default": DEFAULT_TIMEOUT.as_millis() as u64,
                "description": "The wall-clock ceiling on a run hook, in milliseconds; the child is killed at it."
            })
        },
    }],
    verb: "runs a program",
    effects: Effects::SPAWNS_PROCESS,
    validate,
};

/// A program first, no NUL anywhere, and a timeout of at least 1 ms.
fn validate(raw: &mut RawHook, cx: &Cx<'_>) -> Result<Action, TableError> {
    let Some(run) = raw.take_strings("run") else {
        return Err(cx.table_error(TableErrorKind::NoAction(&super::NAMES)));
    };
    let span = run.span();
    let argv = run.into_inner();
    match argv.first() {
        None => {
            let kind = TableErrorKind::NoProgram { empty_array: true };
            return Err(cx.error("run", span, kind));
        }
        Some(program) if program.get_ref().is_empty() => {
            let kind = TableErrorKind::NoProgram { empty_array: false };
            return Err(cx.error("run", program.span(), kind));
        }
        Some(_) => {}
    }
    if let Some(bad) = argv.iter().position(|a| a.get_ref().contains('\0')) {
        let kind = TableErrorKind::NulInArgument { index: bad + 1 };
        return Err(cx.error("run", argv[bad].span(), kind));
    }
    let timeout = match raw.take_int("timeout_ms") {
        None => DEFAULT_TIMEOUT,
        Some(t) => match u64::try_from(*t.get_ref()) {
            Ok(ms) if ms >= 1 => Duration::from_millis(ms),
            _ => {
                let kind = TableErrorKind::BadTimeout(*t.get_ref());
                return Err(cx.error("timeout_ms", t.span(), kind));
            }
        },
    };
    Ok(Action::Run {
        argv: argv.into_iter().map(toml::Spanned::into_inner).collect(),
        timeout,
    })
}

/// A `run` hook as built hooks hold it: its argv and timeout.
#[derive(Debug)]
pub(crate) struct Ready {
    argv: Vec<String>,
    timeout: Duration,
}

/// What would make spawning `argv` fail each time (a missing program, one
/// that is not executable, a `#!` line naming no interpreter, a `~` no
/// shell expands); nothing is created.
pub(super) fn prepare(
    cx: &Prepare<'_>,
    argv: &[String],
    timeout: &Duration,
) -> (Ready, Vec<ProblemKind>) {
    let ready = Ready {
        argv: argv.to_vec(),
        timeout: *timeout,
    };
    (ready, check::run(argv, &cx.root.path))
}

impl Ready {
    #[inline]
    pub(super) fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        let Fire {
            line,
            root,
            interrupt,
            capture,
        } = fire;
        process::run(
            &self.argv,
            self.timeout,
            &root.path,
            line,
            interrupt,
            capture,
        )
        .map_err(HookFailure::Process)
    }
}

pub(super) fn describe(_: &Describe<'_>, argv: &[String], timeout: &Duration) -> String {
    let argv = serde_json::to_string(argv).unwrap_or_default();
    format!("run {argv} (timeout {} ms)", timeout.as_millis())
}
