//! What `io run` checks of a script before anything runs, in the words the
//! config's errors use: the file, the key path as written
//! (`turn[2].calls[1].args.argv`), what is wrong and what is accepted, the
//! line and column. An unknown key gets the nearest known one; a call the
//! run loop would refuse for its arguments (`argv = "ls -l"`, a string where
//! an array belongs) is an error here, not a step that does nothing.

use std::ops::Range;

use io_hooks::text::{did_you_mean, toml_key};
use io_hooks::{TableError, TomlFile};
use serde_json::Value;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::call::Call;
use super::tools::ToolError;

/// The keys of each table a script holds, in the order documented.
pub(super) const SCRIPT_KEYS: &[&str] = &["goal", "fallback", "turn", "child", "operator"];
pub(super) const TURN_KEYS: &[&str] = &["say", "calls", "replan", "answer", "server_tools", "fail"];
pub(super) const CALL_KEYS: &[&str] = &["tool", "args"];
pub(super) const CHILD_KEYS: &[&str] = &["goal", "turn"];
pub(super) const OPERATOR_KEYS: &[&str] = &["approve", "answers"];

/// Each key of every table of the script is one its table takes: the first
/// that is not is an error naming the nearest. The types are left to
/// serde, which reports them with the key path. A text that is not TOML is
/// left to the parser too.
pub(crate) fn check_keys(file: &TomlFile<'_>) -> Result<(), TableError> {
    let Ok(document) = DeTable::parse(file.text()) else {
        return Ok(());
    };
    let top = document.get_ref();
    known(file, "", top, SCRIPT_KEYS, "a script")?;
    for (at, turn) in tables(top, "turn") {
        turns(file, &format!("turn[{at}]"), turn)?;
    }
    for (at, child) in tables(top, "child") {
        let child_key = format!("child[{at}]");
        known(file, &child_key, child, CHILD_KEYS, "a `[[child]]` table")?;
        for (at, turn) in tables(child, "turn") {
            turns(file, &format!("{child_key}.turn[{at}]"), turn)?;
        }
    }
    if let Some(DeValue::Table(operator)) = top.get("operator").map(Spanned::get_ref) {
        known(file, "operator", operator, OPERATOR_KEYS, "`[operator]`")?;
    }
    Ok(())
}

/// A turn's keys, and its calls' keys.
fn turns(file: &TomlFile<'_>, key: &str, turn: &DeTable<'_>) -> Result<(), TableError> {
    known(file, key, turn, TURN_KEYS, "a turn")?;
    for (at, call) in tables(turn, "calls") {
        known(
            file,
            &format!("{key}.calls[{at}]"),
            call,
            CALL_KEYS,
            "a call",
        )?;
    }
    Ok(())
}

/// The tables of the array `name` in `table`, each with its number from 1.
fn tables<'t, 'i>(table: &'t DeTable<'i>, name: &str) -> Vec<(usize, &'t DeTable<'i>)> {
    let Some(DeValue::Array(items)) = table.get(name).map(Spanned::get_ref) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item.get_ref() {
            DeValue::Table(table) => Some((i + 1, table)),
            _ => None,
        })
        .collect()
}

/// Every key of `table` (at `key`) is one of `keys`.
fn known(
    file: &TomlFile<'_>,
    key: &str,
    table: &DeTable<'_>,
    keys: &'static [&'static str],
    what: &str,
) -> Result<(), TableError> {
    let Some((name, _)) = table
        .iter()
        .find(|(name, _)| !keys.contains(&&**name.get_ref()))
    else {
        return Ok(());
    };
    let written = name.get_ref();
    let mut message = format!("unknown key `{}`", toml_key(written));
    if let Some(near) = did_you_mean(written, keys.iter().copied()) {
        message.push_str(&format!(" (did you mean `{near}`?)"));
    }
    let accepted: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    message.push_str(&format!("; {what} takes {}", accepted.join(", ")));
    Err(TableError::custom(
        file,
        join(key, &toml_key(written)),
        message,
        Some(name.span()),
    ))
}

/// `parent.child`, or `child` at the top.
fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_owned()
    } else {
        format!("{parent}.{child}")
    }
}

/// A call of the script, where the script holds it: its key path and the
/// span of its `args` (or of the call, with no `args`).
pub(crate) struct CallAt<'a> {
    /// `turn[2].calls[1]`, `child[1].turn[1].calls[3]`.
    pub(crate) key: String,
    /// The tool's name.
    pub(crate) tool: &'a str,
    /// Its arguments.
    pub(crate) args: &'a Value,
}

/// Each call of a tool the run loop has, checked as the loop reads its
/// arguments: the first it would refuse is an error at its key and
/// position. A tool the loop does not have is the model's to call (the
/// loop tells it so), and is left alone.
pub(crate) fn check_calls<'a>(
    file: &TomlFile<'_>,
    calls: impl IntoIterator<Item = CallAt<'a>>,
) -> Result<(), TableError> {
    for call in calls {
        let Err(refused) = Call::parse(call.tool, call.args) else {
            continue;
        };
        let (argument, message) = match refused {
            ToolError::MissingString(name) => (name, "a string"),
            ToolError::MissingArray(name) | ToolError::NotStrings(name) => (
                name,
                "an array of strings (as `[\"ls\", \"-l\"]`: no shell splits a string)",
            ),
            // Anything else the loop says of a call is about what it does,
            // not how it is written.
            _ => continue,
        };
        let tool = call.tool;
        let (key, message) = match call.args.get(argument) {
            Some(value) => (
                format!("{}.args.{}", call.key, toml_key(argument)),
                format!(
                    "`{tool}` takes `{argument}` as {message}, and this is {}",
                    json_kind(value)
                ),
            ),
            None => (
                format!("{}.args", call.key),
                format!("`{tool}` needs `{argument}`, {message}, and this call has none"),
            ),
        };
        let span = span_of(file, &key);
        return Err(TableError::custom(file, key, message, span));
    }
    Ok(())
}

/// What a JSON value is, in words.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(items) if items.iter().all(Value::is_string) => "an array of strings",
        Value::Array(_) => "an array holding something that is not a string",
        Value::Object(_) => "a table",
    }
}

/// The span of the value at `key` (dotted keys and `[N]` from 1, as
/// [`check_calls`] writes them), or of the nearest table on the way.
fn span_of(file: &TomlFile<'_>, key: &str) -> Option<Range<usize>> {
    let document = DeTable::parse(file.text()).ok()?;
    let mut span = None;
    let mut table = Some(document.get_ref());
    for part in key.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((name, rest)) => (name, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let name = name.trim_matches('"');
        let Some(value) = table.and_then(|t| t.get(name)) else {
            break;
        };
        let value = match (index, value.get_ref()) {
            (Some(n), DeValue::Array(items)) => match n.checked_sub(1).and_then(|i| items.get(i)) {
                Some(item) => item,
                None => break,
            },
            _ => value,
        };
        span = Some(value.span());
        table = match value.get_ref() {
            DeValue::Table(t) => Some(t),
            _ => None,
        };
    }
    span
}
