//! A test-only third action, `count = "name"`: adds one to a named counter
//! per matching event. It exists to prove that an action is its module and
//! one line of the `actions!` list: nothing else in the crate names it, yet
//! it loads from TOML, is in the key list and the schema, and executes.

use std::fmt;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use serde_json::json;
use toml::Spanned;

use crate::action::interface::{Describe, Effects, Entry, Fire, Prepare};
use crate::failure::HookFailure;
use crate::key::{HookKey, Shape};
use crate::raw::{Cx, RawHook};
use crate::table_error::TableError;

/// The key that chooses the action.
const KEY: &str = "count";

pub(super) const ENTRY: Entry = Entry {
    key: HookKey {
        name: KEY,
        shape: Shape::Text("a counter name, as in `count = \"steps\"`"),
        owner: Some(KEY),
        schema: |_| json!({ "type": "string", "description": "A counter to add one to." }),
        elsewhere: None,
    },
    options: &[],
    verb: "counts",
    effects: Effects::NONE,
    rules: Vec::new,
};

/// Every counter, by name.
static COUNTS: Mutex<Vec<(String, usize)>> = Mutex::new(Vec::new());

/// A counter's name: not empty. Refused in a way of this action's own.
pub(super) fn validate(
    name: Spanned<String>,
    _: &mut RawHook,
    cx: &Cx<'_>,
) -> Result<(String,), TableError> {
    if name.get_ref().is_empty() {
        let reason = "`count = \"\"` names no counter; write one, as in `count = \"builds\"`";
        return Err(cx.refusal(KEY, name.span(), KEY, reason));
    }
    Ok((name.into_inner(),))
}

/// A counting hook as built hooks hold it: its counter's name.
#[derive(Debug)]
pub(crate) struct Ready {
    name: String,
}

/// What is wrong with a counter before it counts: nothing can be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CountProblem {}

impl CountProblem {
    pub(super) fn hint(&self) -> Option<String> {
        match *self {}
    }

    pub(super) fn path(&self) -> Option<&Path> {
        match *self {}
    }
}

impl fmt::Display for CountProblem {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {}
    }
}

pub(super) fn prepare(_: &Prepare<'_>, name: &str) -> (Ready, Vec<CountProblem>) {
    let name = name.to_owned();
    (Ready { name }, Vec::new())
}

/// How counting fails: a way of failing of this action's own, which no
/// other module names.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum CountFailure {
    /// The counter's name starts with `closed:`.
    Closed {
        /// The counter.
        name: String,
    },
}

impl fmt::Display for CountFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CountFailure::Closed { name } => write!(f, "the counter `{name}` is closed"),
        }
    }
}

impl std::error::Error for CountFailure {}

impl Ready {
    pub(super) fn background(&self) -> bool {
        false
    }

    pub(super) fn execute(&self, _: Fire<'_>) -> Result<(), HookFailure> {
        let name = &self.name;
        if name.starts_with("closed:") {
            let cause = CountFailure::Closed { name: name.clone() };
            return Err(HookFailure::action(KEY, cause));
        }
        let mut counts = COUNTS.lock().unwrap_or_else(PoisonError::into_inner);
        match counts.iter_mut().find(|(n, _)| n == name) {
            Some((_, count)) => *count += 1,
            None => counts.push((name.clone(), 1)),
        }
        Ok(())
    }
}

pub(super) fn describe(_: &Describe<'_>, name: &str) -> String {
    format!("count in {name}")
}

fn count(name: &str) -> usize {
    let counts = COUNTS.lock().unwrap_or_else(PoisonError::into_inner);
    counts
        .iter()
        .find(|(n, _)| n == name)
        .map_or(0, |(_, c)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::HOOK_KEYS;
    use crate::{Action, Flow, Hooks, TableErrorKind, TomlFile};

    #[derive(crate::HookEvents, serde::Serialize)]
    #[hook(crate = "crate")]
    #[serde(tag = "event")]
    enum Ev {
        #[serde(rename = "job_started")]
        JobStarted,
        #[serde(rename = "job_finished")]
        JobFinished,
    }

    #[test]
    fn a_third_action_loads_from_toml_and_executes() {
        let dir = tempfile::tempdir().unwrap();
        let text = "[[hook]]\non = [\"job_finished\"]\ncount = \"finishes-of-this-test\"\n";
        let specs = TomlFile::new("app.toml", text)
            .hooks::<Ev>(dir.path())
            .unwrap();
        assert_eq!(
            specs[0].action,
            Action::Count {
                name: "finishes-of-this-test".into()
            }
        );
        assert_eq!(
            specs[0].action.describe(dir.path()),
            "count in finishes-of-this-test"
        );
        let hooks = Hooks::new(specs, dir.path());
        for event in [
            Ev::JobStarted,
            Ev::JobFinished,
            Ev::JobFinished,
            Ev::JobStarted,
            Ev::JobFinished,
        ] {
            assert_eq!(hooks.fire_event(&event), Flow::Continue);
        }
        assert_eq!(count("finishes-of-this-test"), 3);
    }

    /// A way of failing of its own: the module's own type, through
    /// `HookFailure::Action`, with its text, and no edit to `HookFailure`.
    #[test]
    fn a_third_action_fails_in_a_way_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let text = "[[hook]]\ncount = \"closed:c\"\non_failure = \"cancel\"\n";
        let specs = TomlFile::new("app.toml", text)
            .hooks::<Ev>(dir.path())
            .unwrap();
        let hooks = Hooks::new(specs, dir.path());
        let mut failures = Vec::new();
        let flow = hooks.fire_with(&Ev::JobFinished, &Ev::JobFinished, |run| {
            let Err(HookFailure::Action { action, cause }) = run.result else {
                panic!("not an action's own failure: {:?}", run.result);
            };
            assert_eq!(*action, "count");
            let own = cause.downcast_ref::<CountFailure>();
            assert_eq!(
                own,
                Some(&CountFailure::Closed {
                    name: "closed:c".into()
                })
            );
            failures.push(run.result.unwrap_err().to_string());
        });
        assert_eq!(flow, Flow::Cancel);
        assert_eq!(failures, ["the counter `closed:c` is closed"]);
        assert_eq!(count("closed:c"), 0);
    }

    /// A refusal of its own at load: `TableErrorKind::Action`, with the
    /// action's words, the key path and the position, and no edit to
    /// `TableErrorKind`.
    #[test]
    fn a_third_action_refuses_its_table_in_a_way_of_its_own() {
        let text = "[[hook]]\non = [\"job_finished\"]\ncount = \"\"\n";
        let err = TomlFile::new("app.toml", text)
            .hooks::<Ev>(Path::new("/p"))
            .unwrap_err();
        assert!(
            matches!(
                err.kind(),
                TableErrorKind::Action {
                    action: "count",
                    ..
                }
            ),
            "{:?}",
            err.kind()
        );
        assert_eq!(
            err.to_string(),
            "app.toml: key `hook[1].count`: `count = \"\"` names no counter; write one, \
             as in `count = \"builds\"` (line 3, column 9)"
        );
    }

    #[test]
    fn a_third_action_is_in_the_computed_keys_schema_and_messages() {
        assert_eq!(
            HOOK_KEYS,
            [
                "on",
                "where",
                "append",
                "run",
                "count",
                "on_failure",
                "timeout_ms",
                "background"
            ]
        );
        let schema = crate::schema::hook_table_schema::<Ev>(|_| String::new());
        assert_eq!(schema["properties"]["count"]["type"], "string");
        assert_eq!(schema["oneOf"][2], json!({ "required": ["count"] }));
        // `timeout_ms` is a `run` option: refused on a counting hook, in
        // the schema and at load.
        let then = json!({ "not": { "anyOf": [
            { "required": ["timeout_ms"] },
            { "required": ["background"] }
        ] } });
        assert_eq!(schema["allOf"][1]["if"], json!({ "required": ["count"] }));
        assert_eq!(schema["allOf"][1]["then"], then);
        let text = "[[hook]]\ncount = \"c\"\ntimeout_ms = 5\n";
        let err = TomlFile::new("app.toml", text)
            .hooks::<Ev>(Path::new("/p"))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "app.toml: key `hook[1].timeout_ms`: `timeout_ms` applies only to a `run` \
             hook, and this hook counts; remove it (line 3, column 14)"
        );
        let err = TomlFile::new("app.toml", "[[hook]]\non = [\"job_finished\"]\n")
            .hooks::<Ev>(Path::new("/p"))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "app.toml: key `hook[1]`: the table has none of `append`, `run` or `count`; \
             a hook needs exactly one of them (line 1, column 1)"
        );
    }
}
