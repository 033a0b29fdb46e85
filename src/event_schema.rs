//! What a hook receives, generated from [`RunEvent`] and [`EventKind`]: a
//! JSON Schema of one event line (`io schema --events`), the per-event
//! reference `io events TAG` prints, and `docs/events.md`.
//!
//! Everything here is read off the schema schemars derives from the two
//! types, which follows their serde attributes (the `event` tag, each
//! variant's rename, the optional envelope fields) and carries every doc
//! comment. One source: a field added to a variant is in the schema, in
//! `io events` and in the reference the moment it is in the enum.

use std::sync::OnceLock;

use io_hooks::{HookEvents, Kind};
use serde_json::{Map, Value};

use crate::event::{Cost, EventKind, RunEvent, cost_words};

/// `examples/events.jsonl`, a real run holding every event, embedded so
/// `io events TAG` can show one of its lines wherever `io` runs.
const EXAMPLES: &str = include_str!("../examples/events.jsonl");

/// The JSON Schema (draft 2020-12) of one event line, as an `append` hook
/// writes it and a `run` hook reads it on stdin.
///
/// An object with the envelope (`run_id` and `depth` always, `seq` and `at`
/// when known) and exactly one of the 27 events: a `oneOf` whose branches
/// each hold `event` to one tag, so a line with an unknown tag matches none.
/// Every variant and field carries its doc comment as `description`; `$id`
/// names the program's version (`urn:io-harness:events:` and the version).
///
/// ```
/// let schema = io_harness::schema::events_schema();
/// assert_eq!(schema["oneOf"][0]["properties"]["event"]["const"], "started");
/// assert_eq!(schema["required"], serde_json::json!(["run_id", "depth"]));
/// ```
pub fn events_schema() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut schema = generator.into_root_schema_for::<RunEvent>().to_value();
    if let Some(root) = schema.as_object_mut() {
        // Root keys in reading order; the type's own rustdoc (with its
        // doctest) is for Rust readers, not for an operator's editor.
        let generated = std::mem::take(root);
        root.insert(
            "$schema".into(),
            "https://json-schema.org/draft/2020-12/schema".into(),
        );
        root.insert(
            "$id".into(),
            format!("urn:io-harness:events:{}", env!("CARGO_PKG_VERSION")).into(),
        );
        root.insert("title".into(), "io-harness event line".into());
        root.insert(
            "description".into(),
            "One event as a hook receives it: one JSON object per line, the event's tag and \
             fields first, then the envelope saying which run emitted it and where in it."
                .into(),
        );
        for (key, value) in generated {
            if !matches!(key.as_str(), "$schema" | "title" | "description") {
                root.insert(key, value);
            }
        }
    }
    unwrap_descriptions(&mut schema);
    schema
}

/// Joins the lines of each paragraph of every `description`, as rustdoc
/// and the derive's `DOCS` read a doc comment: schemars keeps the source's
/// hard wraps, which an editor would show as breaks mid-sentence. Paragraphs
/// (a blank line) stay apart.
fn unwrap_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                match child {
                    Value::String(text) if key == "description" => {
                        *text = text
                            .split("\n\n")
                            .map(|paragraph| paragraph.replace('\n', " "))
                            .collect::<Vec<_>>()
                            .join("\n\n");
                    }
                    _ => unwrap_descriptions(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// One field of an event line, as the reference shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDoc {
    /// The JSON key.
    pub name: String,
    /// Its JSON type in words: `string`, `integer`, `array of strings`,
    /// `integer or null`, `"completed", "cancelled" or "failed"`, …
    pub type_name: String,
    /// Whether the key may be absent from a line.
    pub optional: bool,
    /// Its doc comment.
    pub doc: String,
}

/// One event, as `io events TAG` and `docs/events.md` describe it.
#[derive(Debug, Clone, PartialEq)]
pub struct EventDoc {
    /// The wire tag, as written in a hook's `on` list.
    pub tag: &'static str,
    /// The variant's doc comment: when it fires and how often.
    pub doc: String,
    /// How often it fires: what a hook on it costs.
    pub frequency: Cost,
    /// Its own fields, after `event`, in the order a line holds them.
    pub fields: Vec<FieldDoc>,
    /// The first line of this event in `examples/events.jsonl`.
    pub example: Option<&'static str>,
}

/// Every event in [`HookEvents::TAGS`] order, read off [`events_schema`].
///
/// ```
/// let events = io_harness::schema::event_docs();
/// let step = &events[1];
/// assert_eq!(step.tag, "step");
/// assert_eq!(step.fields[0].name, "step");
/// assert_eq!(step.fields[0].type_name, "integer");
/// assert!(step.example.is_some_and(|line| line.starts_with(r#"{"event":"step""#)));
/// ```
pub fn event_docs() -> Vec<EventDoc> {
    let schema = events_schema();
    let branches = schema["oneOf"].as_array().cloned().unwrap_or_default();
    Kind::<EventKind>::all()
        .map(|kind| {
            let tag = kind.tag();
            let branch = branches
                .iter()
                .find(|b| b["properties"]["event"]["const"] == tag)
                .cloned()
                .unwrap_or(Value::Null);
            EventDoc {
                tag,
                doc: describe(&branch).unwrap_or(kind.doc()).to_owned(),
                frequency: EventKind::frequency(kind),
                fields: fields(&branch, &schema)
                    .into_iter()
                    .filter(|f| f.name != "event")
                    .collect(),
                example: example_line(kind),
            }
        })
        .collect()
}

/// The envelope's fields, which every line carries after the event's own.
///
/// ```
/// let names: Vec<String> = io_harness::schema::envelope_docs().into_iter().map(|f| f.name).collect();
/// assert_eq!(names, ["run_id", "depth", "seq", "at"]);
/// ```
pub fn envelope_docs() -> Vec<FieldDoc> {
    let schema = events_schema();
    fields(&schema, &schema)
}

/// The first line in `examples/events.jsonl` of events of `kind`; the file
/// is split and parsed once.
pub fn example_line(kind: Kind<EventKind>) -> Option<&'static str> {
    static FIRST: OnceLock<Vec<(Kind<EventKind>, &'static str)>> = OnceLock::new();
    let first = FIRST.get_or_init(|| {
        let mut first: Vec<(Kind<EventKind>, &'static str)> = Vec::new();
        for line in EXAMPLES.lines() {
            if let Ok(event) = serde_json::from_str::<RunEvent>(line) {
                let kind = event.kind.kind();
                if !first.iter().any(|(k, _)| *k == kind) {
                    first.push((kind, line));
                }
            }
        }
        first
    });
    first
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, line)| *line)
}

/// The `description` of a schema object.
fn describe(schema: &Value) -> Option<&str> {
    schema.get("description").and_then(Value::as_str)
}

/// The properties of `object` (a branch or the root), with `root`'s `$defs`
/// to resolve references against.
fn fields(object: &Value, root: &Value) -> Vec<FieldDoc> {
    let required: Vec<&str> = object["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = object["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| FieldDoc {
            name: name.clone(),
            type_name: type_name(property, root),
            optional: !required.contains(&name.as_str()),
            doc: describe(property).unwrap_or_default().to_owned(),
        })
        .collect()
}

/// A property's JSON type in words.
fn type_name(property: &Value, root: &Value) -> String {
    if let Some(reference) = property.get("$ref").and_then(Value::as_str) {
        let target = reference
            .strip_prefix("#/$defs/")
            .and_then(|name| root["$defs"].get(name));
        return match target {
            Some(target) => type_name(target, root),
            None => reference.to_owned(),
        };
    }
    if let Some(values) = property
        .get("oneOf")
        .and_then(Value::as_array)
        .filter(|values| values.iter().all(|v| v.get("const").is_some()))
    {
        let names: Vec<String> = values.iter().map(|v| v["const"].to_string()).collect();
        return one_of(&names, "or");
    }
    let object = property.as_object().cloned().unwrap_or_else(Map::new);
    let types: Vec<String> = match object.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => return "any JSON value".to_owned(),
    };
    let words: Vec<String> = types
        .iter()
        .map(|t| match t.as_str() {
            "array" => match property.get("items") {
                Some(items) => format!("array of {}s", type_name(items, root)),
                None => "array".to_owned(),
            },
            other => other.to_owned(),
        })
        .collect();
    one_of(&words, "or")
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(words: &[String], last: &str) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., end] => format!("{} {last} {end}", init.join(", ")),
    }
}

/// `docs/events.md`: the operator's reference to every event, generated
/// (`io events --markdown`) and checked in; a test keeps the two equal.
pub fn events_markdown() -> String {
    let events = event_docs();
    let mut md = String::from(
        "# Events: what a hook receives\n\
         \n\
         <!-- Generated by `cargo run -q --bin io -- events --markdown > docs/events.md`\n\
         \x20    from the doc comments of `src/event.rs`; edit those, not this file. -->\n\
         \n\
         A hook gets one JSON object per event, on one line: an `append` hook\n\
         appends it (with a newline) to its file, a `run` hook reads it on stdin.\n\
         The object holds `event` (the tag a hook's `on` list names), the event's\n\
         own fields, then the envelope below. The JSON Schema of a line is\n\
         `io schema --events`; `io events TAG` prints one event's entry.\n\
         \n\
         How to read and write hooks is in [hooks.md](hooks.md).\n\
         \n\
         ## The envelope\n\
         \n\
         Every line ends with these, whatever the event:\n\
         \n",
    );
    md.push_str(&field_table(&envelope_docs()));
    let envelope: Vec<String> = EventKind::ENVELOPE
        .iter()
        .map(|f| format!("`{}`", f.name))
        .collect();
    md.push_str(&format!(
        "\nA hook's `where` may name {} on every event, with `on` or without:\n\
         `where.depth = 0` keeps a top-level run's events only.\n",
        envelope.join(", ")
    ));
    md.push_str("\n## The events\n\n| event | cost | when |\n| --- | --- | --- |\n");
    for event in &events {
        md.push_str(&format!(
            "| [`{0}`](#{0}) | {1} | {2} |\n",
            event.tag,
            cost_words(event.frequency),
            event.doc.replace('\n', " ")
        ));
    }
    md.push_str(
        "\nThe cost is how often the event fires, which is what a hook on it costs:\n\
         a `run` hook on a `per token` event spawns a process for every streamed\n\
         token.\n",
    );
    for event in &events {
        md.push_str(&format!(
            "\n### `{}`\n\n{}\n\nCost: {}.\n\n",
            event.tag,
            event.doc.replace('\n', " "),
            cost_words(event.frequency)
        ));
        if event.fields.is_empty() {
            md.push_str("No fields beyond `event` and the envelope.\n");
        } else {
            md.push_str(&field_table(&event.fields));
            md.push_str(&format!("\n{}\n", where_fields_line(event.tag)));
        }
        if EventKind::from_tag(event.tag).is_some_and(Kind::is_last) {
            md.push_str(
                "\nNo step boundary follows it, so a cancel answered to it stops nothing: \
                 a hook whose `on` holds only such events may not say \
                 `on_failure = \"cancel\"`.\n",
            );
        }
        if let Some(line) = event.example {
            md.push_str(&format!(
                "\nFrom `examples/events.jsonl`:\n\n```json\n{line}\n```\n"
            ));
        }
    }
    md
}

/// Which of an event's fields a hook's `where` may name, in words, as
/// `io events TAG` and docs/events.md say it: `` A `where` filter may name
/// `step`, `tool`. `` (or that it may name none). The list is the derive's
/// field table, which the loader checks a filter against.
///
/// ```
/// assert_eq!(
///     io_harness::schema::where_fields_line("step"),
///     "A `where` filter may name `step`, `moved_the_workspace`."
/// );
/// assert!(
///     io_harness::schema::where_fields_line("tool_call")
///         .starts_with("A `where` filter may name `step`, `tool`; `tool` is one of `read_file`, ")
/// );
/// ```
pub fn where_fields_line(tag: &str) -> String {
    let Some(kind) = EventKind::from_tag(tag) else {
        return "A `where` filter may name none of its fields.".to_owned();
    };
    let mut names = Vec::new();
    let mut known = Vec::new();
    for (index, field) in kind.fields().iter().enumerate() {
        if !field.is_filterable() {
            continue;
        }
        names.push(format!("`{}`", field.name));
        let values = kind.field_choices(index).unwrap_or_default();
        let prefixes = kind.field_prefixes(index);
        if values.is_empty() && prefixes.is_empty() {
            continue;
        }
        let mut holds: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
        holds.extend(
            prefixes
                .iter()
                .map(|p| format!("a string starting with `{p}`")),
        );
        let holds = match holds.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{}, or {last}", rest.join(", ")),
            _ => holds.join(""),
        };
        known.push(format!("`{}` is one of {holds}", field.name));
    }
    if names.is_empty() {
        return "A `where` filter may name none of its fields.".to_owned();
    }
    let mut line = format!("A `where` filter may name {}", names.join(", "));
    for known in known {
        line.push_str(&format!("; {known}"));
    }
    line.push('.');
    line
}

/// A Markdown table of `fields`.
fn field_table(fields: &[FieldDoc]) -> String {
    let mut md = String::from("| field | type | meaning |\n| --- | --- | --- |\n");
    for field in fields {
        let optional = if field.optional { ", optional" } else { "" };
        md.push_str(&format!(
            "| `{}` | {}{optional} | {} |\n",
            field.name,
            field.type_name.replace('|', "\\|"),
            field.doc.replace('\n', " ").replace('|', "\\|")
        ));
    }
    md
}
