//! Reading `io replay`'s input: one event per line, each line bounded, and
//! what is wrong with a line said in the operator's words, never with a
//! value from it (a recording can hold secrets).

use std::io::{BufRead, Read};

use io_harness::schema::{FieldDoc, envelope_docs, event_docs};
use io_harness::{EventKind, RawJson, RunEvent};
use io_hooks::text::os_error;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The most `--max-line` may say, newline excluded: the most one `write(2)`
/// puts down on Linux (2 GiB less 4 KiB, newline included), which is the
/// longest line an `append` hook can write whole (it writes each line with
/// one `write`, and a shorter write is a failed append).
pub(crate) const MAX_LINE: u64 = 0x7fff_f000 - 1;

/// The longest line `io replay` reads unless `--max-line` says otherwise,
/// newline excluded: 16 MiB, far beyond any event a run emits, and a bound
/// on what one line of a hostile file makes `io replay` hold (about three
/// times this, at most).
pub(crate) const DEFAULT_MAX_LINE: u64 = 16 << 20;

/// How many places a line that does not parse is tried at for a whole event
/// glued after a torn fragment: each try may read the rest of the line, so
/// a hostile line of many `{"event":` costs at most this many passes.
const GLUE_TRIES: usize = 16;

/// One line of the input, without its newline.
pub(super) struct Line {
    text: String,
    /// Whether it ended with a newline (only the last line may not).
    complete: bool,
}

/// The next line, `None` at the end of the input, or an error for a line
/// that is longer than `max` bytes (its newline not counted) or not UTF-8.
/// At most `max + 1` bytes of a line are held.
pub(super) fn read_line(reader: &mut impl BufRead, max: u64) -> Option<Result<Line, String>> {
    let mut bytes = Vec::new();
    let read = reader
        .by_ref()
        .take(max.saturating_add(1))
        .read_until(b'\n', &mut bytes);
    match read {
        Ok(0) => None,
        Err(e) => Some(Err(format!("could not be read: {}", os_error(&e)))),
        Ok(_) => {
            let complete = bytes.ends_with(b"\n");
            if complete {
                bytes.pop();
            }
            if bytes.len() as u64 > max {
                return Some(Err(format!(
                    "longer than {max} bytes, the most `io replay` reads; `--max-line BYTES` \
                     raises it (up to {MAX_LINE})"
                )));
            }
            Some(
                String::from_utf8(bytes)
                    .map(|text| Line { text, complete })
                    .map_err(|_| "not UTF-8".to_owned()),
            )
        }
    }
}

/// What one line holds.
#[derive(Debug)]
pub(super) enum Parsed {
    /// A blank line, skipped.
    Blank,
    /// An event.
    Event(RunEvent),
    /// A write cut short: a line without its newline that is not an event,
    /// or one whose JSON stops short. Skipped with a warning: it is no one's
    /// event, and a torn line left in a log must not stop every event after
    /// it from replaying.
    Torn,
    /// A torn fragment of `fragment` bytes with a whole event glued after
    /// it (a write cut short, then the next one appended to it). The
    /// fragment is skipped with a warning; the event is delivered.
    Glued {
        /// The fragment's length in bytes.
        fragment: usize,
        /// The event after it.
        event: RunEvent,
    },
    /// A whole line that is not an event: the replay stops here. The
    /// column, when it says where, and the reason.
    Bad(Option<usize>, String),
}

/// Reads `line`, taking it: what it held is dropped before the event is
/// delivered, so the line and its event are not both held while the event
/// is printed.
pub(super) fn parse(line: Line) -> Parsed {
    if line.text.trim().is_empty() {
        return Parsed::Blank;
    }
    let e = match event_of(&line.text) {
        Ok(event) => return Parsed::Event(event),
        Err(e) => e,
    };
    if line.complete
        && let Some((fragment, event)) = glued(&line.text)
    {
        return Parsed::Glued { fragment, event };
    }
    if !line.complete || e.is_eof() {
        return Parsed::Torn;
    }
    if e.is_syntax() {
        return Parsed::Bad(Some(e.column()), format!("not JSON: {}", syntax_reason(&e)));
    }
    // A shape error can come before a syntax error further on: looked for
    // without building the line's values.
    if let Err(syntax) = serde_json::from_str::<Json>(&line.text) {
        return Parsed::Bad(
            Some(syntax.column()),
            format!("not JSON: {}", syntax_reason(&syntax)),
        );
    }
    if let Some(kind) = not_an_object(&line.text) {
        let reason = format!("the line is {kind}, where an event is one JSON object");
        return Parsed::Bad(None, format!("not an event: {reason}"));
    }
    // The arguments are any JSON: nothing to describe in them.
    let text = match args_of(&line.text) {
        Ok(Some(args)) => splice(&line.text, args).unwrap_or_else(|| line.text.clone()),
        _ => line.text.clone(),
    };
    match serde_json::from_str::<Value>(&text) {
        Err(syntax) => Parsed::Bad(
            Some(syntax.column()),
            format!("not JSON: {}", syntax_reason(&syntax)),
        ),
        Ok(value) => Parsed::Bad(None, format!("not an event: {}", describe(&value, &e))),
    }
}

/// A line's top level, read for `args` alone: the rest is skipped as it is
/// read, nothing of it held.
#[derive(Deserialize)]
struct ArgsOnly<'a> {
    #[serde(borrow)]
    args: Option<&'a RawValue>,
}

/// The raw `args` of the JSON object `text`, borrowed from it; `Ok(None)`
/// when it has none or is not an object.
fn args_of(text: &str) -> Result<Option<&RawValue>, serde_json::Error> {
    match serde_json::from_str::<ArgsOnly<'_>>(text) {
        Ok(only) => Ok(only.args),
        Err(e) if e.is_syntax() || e.is_eof() => Err(e),
        // Not an object, or `args` twice: the event's own parse says so.
        Err(_) => Ok(None),
    }
}

/// `text` with the JSON `args` (borrowed from it) replaced by `null`.
fn splice(text: &str, args: &RawValue) -> Option<String> {
    let start = (args.get().as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start.checked_add(args.get().len())?;
    Some(format!("{}null{}", text.get(..start)?, text.get(end..)?))
}

/// The event `text` holds. A tool call's `args` is any JSON, which the
/// event holds as the text it came in ([`RawJson`]): it is cut out of the
/// line before the event is parsed, so no tree of its values is ever built
/// (serde reads a flattened, tagged event through a buffer of every value,
/// which made a 16 MiB line of `[0,0,…]` peak at 1.1 GiB).
fn event_of(text: &str) -> Result<RunEvent, serde_json::Error> {
    serde_json::from_str::<Json>(text)?;
    let Some(args) = args_of(text)? else {
        return serde_json::from_str(text);
    };
    let Some(spliced) = splice(text, args) else {
        return serde_json::from_str(text);
    };
    let mut event: RunEvent = serde_json::from_str(&spliced)?;
    if let EventKind::ToolCall { args: held, .. }
    | EventKind::ApprovalRequested { args: held, .. } = &mut event.kind
    {
        *held = RawJson::from_raw(args.to_owned());
    }
    Ok(event)
}

/// A line read as JSON and nothing kept: every value visited as serde_json
/// reads any (nested no deeper than its 128 levels), none held, so the line
/// fails here as a parse of it would, and costs one pass.
struct Json;

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Json)
    }
}

impl<'de> Visitor<'de> for Json {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Json, E> {
        Ok(Json)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Json, E> {
        Ok(Json)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Json, E> {
        Ok(Json)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Json, E> {
        Ok(Json)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Json, E> {
        Ok(Json)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        while seq.next_element::<Json>()?.is_some() {}
        Ok(Json)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        while map.next_entry::<IgnoredAny, Json>()?.is_some() {}
        Ok(Json)
    }
}

/// What the JSON `text` is when it is not an object, told from its first
/// character (it has been read as JSON already).
fn not_an_object(text: &str) -> Option<&'static str> {
    match text.trim_start().chars().next()? {
        '{' => None,
        '[' => Some("an array"),
        '"' => Some("a string"),
        't' | 'f' => Some("a boolean"),
        'n' => Some("null"),
        _ => Some("a number"),
    }
}

/// serde_json's reason for a syntax error, without its position (the
/// caller gives the file's), in words for someone who did not write the
/// parser: `expected ident` is what it says of a misspelled `true`.
fn syntax_reason(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let reason = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(reason, _)| reason);
    match reason {
        "expected ident" => "expected `true`, `false` or `null`".to_owned(),
        // Valid JSON, but deeper than serde_json reads (its limit).
        "recursion limit exceeded" => "nested deeper than the 128 levels read".to_owned(),
        reason => reason.to_owned(),
    }
}

/// The fragment's length and the event, when `text` is a torn fragment with
/// a whole event glued after it: an event line begins `{"event":`, and the
/// glued one runs to the end of the line.
fn glued(text: &str) -> Option<(usize, RunEvent)> {
    text.match_indices("{\"event\":")
        .filter(|(at, _)| *at > 0)
        .take(GLUE_TRIES)
        .find_map(|(at, _)| event_of(&text[at..]).ok().map(|event| (at, event)))
}

/// Everything wrong with `value` as an event, at once: every missing field,
/// then each field whose type or value is not accepted, with what is
/// (never the value itself). `serde` is serde's own error, used, without its
/// values, only when nothing else is found (a repeated field).
fn describe(value: &Value, serde: &serde_json::Error) -> String {
    let Some(object) = value.as_object() else {
        return format!(
            "the line is {}, where an event is one JSON object",
            json_kind(value)
        );
    };
    let docs = event_docs();
    let mut problems = Vec::new();
    let mut missing = Vec::new();
    let mut fields = envelope_docs();
    let mut example = docs.first().and_then(|d| d.example);
    match object.get("event") {
        None => missing.push("event".to_owned()),
        Some(Value::String(tag)) => match docs.iter().find(|d| d.tag == tag) {
            Some(doc) => {
                fields.splice(0..0, doc.fields.iter().cloned());
                example = doc.example;
            }
            None => problems
                .push("field `event` is an unknown event name (`io events` lists them)".to_owned()),
        },
        Some(other) => problems.push(format!(
            "field `event` is {}, where an event name is expected (`io events` lists them)",
            json_kind(other)
        )),
    }
    missing.extend(
        fields
            .iter()
            .filter(|f| !f.optional && !object.contains_key(&f.name))
            .map(|f| f.name.clone()),
    );
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
        let s = if names.len() == 1 { "" } else { "s" };
        problems.insert(0, format!("missing field{s} {}", names.join(", ")));
    }
    let example = example.and_then(|line| serde_json::from_str::<Value>(line).ok());
    if let Some(Value::Object(example)) = example {
        problems.extend(
            fields
                .iter()
                .filter_map(|field| not_accepted(field, object.get(&field.name)?, &example)),
        );
    }
    if problems.is_empty() {
        let message = serde.to_string();
        let reason = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(reason, _)| reason);
        return without_values(reason);
    }
    problems.join("; ")
}

/// Why `given` is not accepted as `field`, or `None` when it is: tried in
/// place of the field in a whole example of the event, so the event's own
/// type decides, and the reason names the field, the kind of JSON given and
/// what `io events` says is accepted.
fn not_accepted(field: &FieldDoc, given: &Value, example: &Map<String, Value>) -> Option<String> {
    let mut probe = example.clone();
    probe.insert(field.name.clone(), given.clone());
    if serde_json::from_value::<RunEvent>(Value::Object(probe)).is_ok() {
        return None;
    }
    let kind = match given {
        Value::Number(_) if field.type_name.contains("integer") => {
            "a number out of range or not whole".to_owned()
        }
        Value::String(_) if field.type_name.starts_with('"') => "an unknown string".to_owned(),
        other => json_kind(other).to_owned(),
    };
    Some(format!(
        "field `{}` is {kind} (accepted: {})",
        field.name, field.type_name
    ))
}

/// What kind of JSON `value` is, in words, without the value.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde's description of a value of the wrong shape, without the value:
/// `invalid type: string "s3cret", expected u64` becomes `invalid type:
/// string, expected u64`; `unknown variant `x`, expected one of …` becomes
/// `unknown variant, expected one of …`. What follows the last `, expected `
/// is the event type's own description, so it is kept; a field serde says
/// is missing or repeated is one of the type's own names, so it is kept too.
fn without_values(reason: &str) -> String {
    if reason.starts_with("missing field `") || reason.starts_with("duplicate field `") {
        return reason.to_owned();
    }
    let Some(quote) = reason.find(['`', '"', '\'']) else {
        return reason.to_owned();
    };
    let head = reason[..quote].trim_end();
    // serde's shapes end either `, expected WHAT` or (for a type with no
    // fields or variants) `, there are no …`, which is all the tail can be.
    if reason.ends_with(", there are no fields") || reason.ends_with(", there are no variants") {
        return head.to_owned();
    }
    match reason.rfind(", expected ") {
        Some(expected) if expected > quote => format!("{head}{}", &reason[expected..]),
        _ => head.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: u64) -> Vec<Result<(String, bool), String>> {
        let mut reader = input;
        std::iter::from_fn(|| read_line(&mut reader, max))
            .map(|l| l.map(|l| (l.text, l.complete)))
            .collect()
    }

    #[test]
    fn a_line_of_exactly_the_cap_is_read_and_one_byte_more_is_refused() {
        let ok = |s: &str, complete| Ok((s.to_owned(), complete));
        assert_eq!(lines(b"abcd\nxy\n", 4), [ok("abcd", true), ok("xy", true)]);
        assert_eq!(lines(b"abcd", 4), [ok("abcd", false)]);
        let too_long = lines(b"abcde\n", 4);
        assert!(
            matches!(&too_long[0], Err(e) if e.starts_with("longer than 4 bytes")),
            "{too_long:?}"
        );
        assert!(lines(b"abcde", 4)[0].is_err());
    }

    #[test]
    fn a_glued_event_is_looked_for_at_most_glue_tries_times() {
        let event =
            r#"{"event":"step","step":1,"moved_the_workspace":true,"run_id":"r","depth":0}"#;
        let decoys = |n: usize| r#"{"event":"#.repeat(n);
        let found = glued(&format!("{}{event}", decoys(GLUE_TRIES - 1)));
        assert_eq!(found.map(|(at, _)| at), Some(9 * (GLUE_TRIES - 1)));
        // The decoy at 0 is not a try (a fragment has a length), so
        // GLUE_TRIES decoys after it use every try up.
        assert!(glued(&format!("{}{event}", decoys(GLUE_TRIES + 1))).is_none());
        assert!(glued(&format!("{}{event}", decoys(GLUE_TRIES))).is_some());
    }

    #[test]
    fn the_most_max_line_may_say_is_the_longest_line_one_write_can_append() {
        // Linux's MAX_RW_COUNT: INT_MAX rounded down to a page.
        assert_eq!(MAX_LINE + 1, (i32::MAX as u64) & !4095);
        assert_eq!(DEFAULT_MAX_LINE, 16 * 1024 * 1024);
    }

    #[test]
    fn type_errors_lose_the_value_but_keep_what_was_expected() {
        for (serde, ours) in [
            (
                "invalid type: string \"s3cret, expected x\", expected u64",
                "invalid type: string, expected u64",
            ),
            (
                "unknown variant `s3cret`, expected one of `started`, `step`",
                "unknown variant, expected one of `started`, `step`",
            ),
            (
                "invalid value: integer `7`, expected a u8",
                "invalid value: integer, expected a u8",
            ),
            (
                "unknown field `s3cret`, there are no fields",
                "unknown field",
            ),
            ("missing field `run_id`", "missing field `run_id`"),
            ("expected value", "expected value"),
        ] {
            assert_eq!(without_values(serde), ours);
        }
    }

    #[test]
    fn a_name_that_says_expected_is_not_taken_for_serdes_tail() {
        for (serde, ours) in [
            // A key holding `, expected` in a type with no fields or
            // variants: serde's tail is `there are no …`, and nothing of
            // the key is kept.
            (
                "unknown field `s3cret, expected x`, there are no fields",
                "unknown field",
            ),
            (
                "unknown variant `s3cret, expected x`, there are no variants",
                "unknown variant",
            ),
            // A `, expected` before the first quote is serde's own words,
            // already in the head: not repeated after it.
            (
                "invalid length 2, expected tuple struct `Pair` with 3 elements",
                "invalid length 2, expected tuple struct",
            ),
        ] {
            assert_eq!(without_values(serde), ours);
        }
    }
}
