//! `io replay EVENTS --expect GOLDEN`: the replay's `--json` lines compared
//! with the ones a former replay printed (GOLDEN), on what is decided by the
//! hooks and the recording alone, never on what varies run to run.
//!
//! Compared, per event line: `seq`, `event`, `run_id`, `depth`, `flow`,
//! `synthesized`, and per hook in `hooks`: `hook`, `key`, `name`, `ok`,
//! `queued`; on the summary line: `outcome`, `steps`, `cancelled_by`.
//! Not compared: `ms` (a timing), `error` (its text can carry a process's
//! own words, a path or a signal, while `ok` says the verdict), `stderr`
//! (a script's own output), and the `{"background": …}` lines, which a
//! background hook's worker writes when it ends, between any two lines.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use io_hooks::text::os_error;
use serde_json::{Map, Value, json};

/// The largest GOLDEN file read, in bytes: 64 MiB.
pub(super) const MAX_GOLDEN: u64 = 64 << 20;

/// What a replay compares: its event lines and its summary, each reduced to
/// the fields compared.
#[derive(Debug, PartialEq)]
pub(super) struct Compared {
    /// Per event line, in order: its compared fields, and its hooks'.
    events: Vec<(Value, Vec<Value>)>,
    /// The summary line's compared fields.
    summary: Value,
}

/// Why the golden file is refused, as the end of the message that names it.
const NOT_JSON_OUTPUT: &str = "GOLDEN must be what `io replay EVENTS --json` printed (record it \
                               with `io replay EVENTS --json > GOLDEN`)";

/// Reads the golden file at `path` (the operator's own, from the command
/// line), up to [`MAX_GOLDEN`] bytes, into what a replay compares.
///
/// # Errors
/// It cannot be read, is larger, is not UTF-8 or is not what `--json`
/// prints: the message names it and says why.
pub(super) fn read_golden(path: &Path) -> Result<Compared, String> {
    let name = path.display();
    #[allow(
        clippy::disallowed_methods,
        reason = "the operator's own path from the command line, opened as their shell would; \
                  it names no file beneath a root"
    )]
    let file = File::open(path).map_err(|e| format!("{name}: {}", os_error(&e)))?;
    let mut bytes = Vec::new();
    file.take(MAX_GOLDEN + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{name}: {}", os_error(&e)))?;
    if bytes.len() as u64 > MAX_GOLDEN {
        return Err(format!(
            "{name}: larger than {} MiB, the most `--expect` reads; replay a shorter recording",
            MAX_GOLDEN >> 20
        ));
    }
    let text =
        String::from_utf8(bytes).map_err(|_| format!("{name}: not UTF-8; {NOT_JSON_OUTPUT}"))?;
    parse_golden(&text).map_err(|e| format!("{name}: {e}"))
}

/// Reads GOLDEN's text into what a replay compares.
///
/// # Errors
/// A line that is not a line `io replay --json` prints, a dry run's output,
/// a line after the summary or no summary: the line number and the reason.
pub(super) fn parse_golden(text: &str) -> Result<Compared, String> {
    let mut events = Vec::new();
    let mut summary = None;
    for (number, line) in text.lines().enumerate() {
        let number = number + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .map_err(|e| format!("line {number}: not JSON ({e}); {NOT_JSON_OUTPUT}"))?;
        let Some(object) = value.as_object() else {
            return Err(format!(
                "line {number}: not a JSON object; {NOT_JSON_OUTPUT}"
            ));
        };
        if object.contains_key("background") {
            continue;
        }
        if summary.is_some() {
            return Err(format!(
                "line {number}: a line after the summary line (`{{\"outcome\": …}}`), which \
                 `--json` prints last; {NOT_JSON_OUTPUT}"
            ));
        }
        if object.contains_key("outcome") {
            summary = Some(summary_of(object).map_err(|e| format!("line {number}: {e}"))?);
        } else {
            events.push(event_of(object).map_err(|e| format!("line {number}: {e}"))?);
        }
    }
    let summary = summary.ok_or_else(|| {
        format!(
            "ends without the summary line (`{{\"outcome\": …}}`) that `--json` prints last: \
             the replay that wrote it was cut short; {NOT_JSON_OUTPUT}"
        )
    })?;
    Ok(Compared { events, summary })
}

/// Reduces the replay's own `--json` lines, as printed, to what is
/// compared.
///
/// # Errors
/// A line this replay printed that the golden reader would refuse: a bug.
pub(super) fn compared(lines: &[Value], summary: &Value) -> Result<Compared, String> {
    let mut events = Vec::new();
    for line in lines {
        let object = line.as_object().ok_or("an event line is not an object")?;
        events.push(event_of(object)?);
    }
    let summary = summary.as_object().ok_or("the summary is not an object")?;
    Ok(Compared {
        events,
        summary: summary_of(summary)?,
    })
}

/// The compared fields of a summary line.
fn summary_of(object: &Map<String, Value>) -> Result<Value, String> {
    match object.get("outcome").and_then(Value::as_str) {
        Some("completed" | "cancelled") => {}
        Some("dry_run") => {
            return Err(format!(
                "the summary of `io replay --dry-run --json`, which says which hooks would fire, \
                 not what they answered; {NOT_JSON_OUTPUT} without --dry-run"
            ));
        }
        _ => {
            return Err(format!(
                "`outcome` is not \"completed\" or \"cancelled\"; {NOT_JSON_OUTPUT}"
            ));
        }
    }
    Ok(json!({
        "outcome": object.get("outcome"),
        "steps": field(object, "steps", Value::is_u64)?,
        "cancelled_by": object.get("cancelled_by").cloned().unwrap_or_else(|| json!([])),
    }))
}

/// The compared fields of an event line, and of each hook in it.
fn event_of(object: &Map<String, Value>) -> Result<(Value, Vec<Value>), String> {
    let event = json!({
        "seq": field(object, "seq", |v| v.is_u64() || v.is_null())?,
        "event": field(object, "event", Value::is_string)?,
        "run_id": field(object, "run_id", Value::is_string)?,
        "depth": field(object, "depth", Value::is_u64)?,
        "flow": field(object, "flow", |v| v == "continue" || v == "cancel")?,
        "synthesized": object.get("synthesized").cloned().unwrap_or(Value::Bool(false)),
    });
    let hooks = field(object, "hooks", Value::is_array)?;
    let hooks = hooks
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(hook_of)
        .collect::<Result<_, _>>()?;
    Ok((event, hooks))
}

/// The compared fields of one hook's report in an event line.
fn hook_of(hook: &Value) -> Result<Value, String> {
    let object = hook
        .as_object()
        .ok_or_else(|| format!("a hook's report is not an object; {NOT_JSON_OUTPUT}"))?;
    if !object.contains_key("ok") {
        return Err(format!(
            "a hook's report without `ok`, as `--dry-run --json` prints (which hooks would \
             fire, not what they answered); {NOT_JSON_OUTPUT} without --dry-run"
        ));
    }
    let mut compared = json!({
        "hook": field(object, "hook", Value::is_u64)?,
        "key": field(object, "key", Value::is_string)?,
        "ok": field(object, "ok", Value::is_boolean)?,
    });
    if let Some(name) = object.get("name") {
        compared["name"] = name.clone();
    }
    if object.get("queued") == Some(&Value::Bool(true)) {
        compared["queued"] = Value::Bool(true);
    }
    Ok(compared)
}

/// `object[key]`, when `accepts` it.
fn field(
    object: &Map<String, Value>,
    key: &str,
    accepts: impl Fn(&Value) -> bool,
) -> Result<Value, String> {
    match object.get(key) {
        Some(value) if accepts(value) => Ok(value.clone()),
        Some(_) => Err(format!(
            "`{key}` is not what `--json` prints there; {NOT_JSON_OUTPUT}"
        )),
        None => Err(format!("no `{key}`; {NOT_JSON_OUTPUT}")),
    }
}

/// Where a replay first differs from its golden file: what names it, then
/// the expected side and the got side, each one line of JSON.
#[derive(Debug, PartialEq)]
pub(super) struct Difference {
    /// `event 3 (seq 2, tool_call), hook[1] "no-rm"`, or `the summary`.
    pub(super) at: String,
    pub(super) expected: String,
    pub(super) got: String,
}

/// Compares `got` with `expected`, event by event (in each, its hooks one
/// by one, then its own fields), then the summary.
///
/// Returns the first difference, or `None` when all match.
pub(super) fn first_difference(expected: &Compared, got: &Compared) -> Option<Difference> {
    let longest = expected.events.len().max(got.events.len());
    for index in 0..longest {
        let (want, have) = (expected.events.get(index), got.events.get(index));
        if want == have {
            continue;
        }
        let name = event_name(index, want.or(have).map(|(event, _)| event));
        let (Some((want_event, want_hooks)), Some((have_event, have_hooks))) = (want, have) else {
            return Some(Difference {
                at: name,
                expected: want.map_or_else(|| NO_EVENT.to_owned(), |(e, _)| e.to_string()),
                got: have.map_or_else(|| NO_EVENT.to_owned(), |(e, _)| e.to_string()),
            });
        };
        // A hook's verdict first: it is what made the flow differ.
        if want_hooks != have_hooks {
            return Some(hook_difference(&name, want_hooks, have_hooks));
        }
        return Some(Difference {
            at: name,
            expected: want_event.to_string(),
            got: have_event.to_string(),
        });
    }
    (expected.summary != got.summary).then(|| Difference {
        at: "the summary line".to_owned(),
        expected: expected.summary.to_string(),
        got: got.summary.to_string(),
    })
}

/// What a side without the event says.
const NO_EVENT: &str = "(no event: the replay ended before it)";

/// The first hook that differs in an event whose hooks differ.
fn hook_difference(name: &str, want: &[Value], have: &[Value]) -> Difference {
    let mut place = 0;
    while want.get(place) == have.get(place) {
        place += 1;
    }
    let hook = want.get(place).or(have.get(place));
    let key = hook
        .and_then(|h| h.get("key"))
        .and_then(Value::as_str)
        .unwrap_or("a hook");
    // Its name beside its key path, as every line about a hook says it; a
    // name is the operator's text, written as JSON writes a string.
    let label = match hook.and_then(|h| h.get("name")).filter(|n| n.is_string()) {
        Some(named) => format!("{key} {named}"),
        None => key.to_owned(),
    };
    let side = |h: Option<&Value>| h.map_or_else(|| "(no hook fired)".to_owned(), Value::to_string);
    Difference {
        at: format!("{name}, {label}"),
        expected: side(want.get(place)),
        got: side(have.get(place)),
    }
}

/// `event 3 (seq 2, tool_call)`: the event line's place, from 1, its `seq`
/// and its tag.
fn event_name(index: usize, event: Option<&Value>) -> String {
    let seq = event
        .and_then(|e| e.get("seq"))
        .filter(|s| !s.is_null())
        .map_or_else(|| "-".to_owned(), Value::to_string);
    let tag = event
        .and_then(|e| e.get("event"))
        .and_then(Value::as_str)
        .unwrap_or("?");
    format!("event {} (seq {seq}, {tag})", index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLDEN: &str = r#"{"seq":0,"event":"started","run_id":"r","depth":0,"hooks":[{"hook":1,"key":"hook[1]","ok":true,"error":null,"ms":1.5}],"flow":"continue"}
{"background":{"hook":2}}
{"seq":1,"event":"finished","run_id":"r","depth":0,"hooks":[],"flow":"continue"}
{"outcome":"completed","steps":0}
"#;

    #[test]
    fn timings_errors_and_background_lines_are_not_compared() {
        let golden = parse_golden(GOLDEN).expect("golden");
        let other = GOLDEN
            .replace("\"ms\":1.5", "\"ms\":99.0")
            .replace("\"error\":null", "\"error\":\"x\"")
            .replace("{\"background\":{\"hook\":2}}\n", "");
        assert_eq!(
            first_difference(&golden, &parse_golden(&other).expect("other")),
            None
        );
    }

    #[test]
    fn the_first_differing_hook_is_named_with_both_sides() {
        let golden = parse_golden(GOLDEN).expect("golden");
        let got = parse_golden(&GOLDEN.replace("\"ok\":true", "\"ok\":false")).expect("got");
        let difference = first_difference(&golden, &got).expect("a difference");
        assert_eq!(difference.at, "event 1 (seq 0, started), hook[1]");
        assert_eq!(
            difference.expected,
            r#"{"hook":1,"key":"hook[1]","ok":true}"#
        );
        assert_eq!(difference.got, r#"{"hook":1,"key":"hook[1]","ok":false}"#);
    }

    #[test]
    fn a_missing_event_or_summary_change_is_a_difference() {
        let golden = parse_golden(GOLDEN).expect("golden");
        let shorter: String = GOLDEN
            .lines()
            .filter(|l| !l.contains("finished"))
            .map(|l| format!("{l}\n"))
            .collect();
        let difference =
            first_difference(&golden, &parse_golden(&shorter).expect("shorter")).expect("diff");
        assert_eq!(difference.at, "event 2 (seq 1, finished)");
        assert_eq!(difference.got, NO_EVENT);
        let cancelled = GOLDEN.replace("\"completed\"", "\"cancelled\"");
        let difference =
            first_difference(&golden, &parse_golden(&cancelled).expect("c")).expect("diff");
        assert_eq!(difference.at, "the summary line");
    }

    #[test]
    fn what_json_does_not_print_is_refused_with_the_line() {
        for (text, says) in [
            ("not json\n", "line 1: not JSON"),
            ("[1]\n", "line 1: not a JSON object"),
            (
                "{\"outcome\":\"dry_run\",\"would_fire\":1}\n",
                "--dry-run --json",
            ),
            (
                "{\"seq\":0,\"event\":\"started\",\"run_id\":\"r\",\"depth\":0,\"hooks\":[{\"hook\":1,\"key\":\"hook[1]\"}],\"flow\":\"continue\"}\n",
                "without `ok`",
            ),
            ("{\"seq\":0}\n", "line 1: no `event`"),
            (
                "{\"outcome\":\"completed\",\"steps\":0}\n{\"outcome\":\"completed\",\"steps\":0}\n",
                "line 2: a line after the summary",
            ),
            ("", "ends without the summary line"),
        ] {
            let refused = parse_golden(text).expect_err(text);
            assert!(refused.contains(says), "{text:?}: {refused}");
        }
    }
}
