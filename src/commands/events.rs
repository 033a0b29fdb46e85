//! `io events`: the events a hook may name, and with a tag, what a hook
//! receives for one of them.

use std::process::ExitCode;

use io_harness::schema::{EventDoc, FieldDoc, envelope_docs, event_docs, events_markdown};
use io_harness::{EventKind, HookEvents};
use io_hooks::{Kind, UnknownEvent};

use crate::cli::exit::CmdResult;
use crate::cli::output::{out, print_json};

/// List the events a hook may name, with when each fires and its cost;
/// with TAG, what a hook receives for that event.
///
/// With TAG: the event's doc, its cost class, its fields (name, JSON
/// type, meaning), the envelope every line carries, and a real line from
/// examples/events.jsonl. An unknown TAG is an error (exit 1), as an
/// unknown name in a hook's `on` list is.
#[derive(clap::Args)]
#[command(after_help = "\
Example:
  io events
  io events step
  io events --json
  io events --markdown > docs/events.md")]
pub(crate) struct Args {
    /// One event's tag (`step`, `tool_call`, …).
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::commands::completions::events))]
    tag: Option<String>,
    /// JSON: an array of {event, when, frequency, fields, example}
    /// objects, or one such object with TAG.
    #[arg(long, conflicts_with = "markdown")]
    json: bool,
    /// The operator's reference to every event, as docs/events.md holds it.
    #[arg(long, conflicts_with = "tag")]
    markdown: bool,
}

/// Runs `io events`: every event's tag, cost class and when it fires; with
/// `--markdown`, docs/events.md; with a tag, that one event.
///
/// Returns 0; an error when the tag names no event or stdout cannot be
/// written.
pub(crate) fn exec(args: &Args) -> CmdResult {
    if args.markdown {
        out(&events_markdown())?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(tag) = &args.tag {
        return one_event(tag, args.json);
    }
    if args.json {
        let list = event_docs().iter().map(event_json).collect();
        return print_json(&serde_json::Value::Array(list));
    }
    let rows =
        Kind::<EventKind>::all().map(|kind| (kind.tag(), kind.doc(), EventKind::frequency(kind)));
    let width = EventKind::TAGS.iter().map(|t| t.len()).max().unwrap_or(0);
    let mut text = String::new();
    for (tag, doc, freq) in rows {
        text.push_str(&format!(
            "{tag:width$}  {:9}  {doc}\n",
            io_harness::cost_words(freq)
        ));
    }
    out(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `io events TAG`: what a hook receives for one event.
fn one_event(tag: &str, json: bool) -> CmdResult {
    let kind =
        EventKind::from_tag(tag).ok_or_else(|| UnknownEvent::new::<EventKind>(tag).to_string())?;
    let docs = event_docs();
    let event = docs
        .iter()
        .find(|doc| doc.tag == kind.tag())
        .ok_or_else(|| format!("no documentation for `{tag}`"))?;
    if json {
        return print_json(&event_json(event));
    }
    let mut text = format!(
        "{}: {}\ncost: {}\n\nfields:\n",
        event.tag,
        event.doc,
        io_harness::cost_words(event.frequency)
    );
    let mut rows = vec![FieldDoc {
        name: "event".into(),
        type_name: "string".into(),
        optional: false,
        doc: format!("`{}`", event.tag),
    }];
    rows.extend(event.fields.iter().cloned());
    let envelope = envelope_docs();
    let width = rows
        .iter()
        .chain(&envelope)
        .map(|f| f.name.len())
        .max()
        .unwrap_or(0);
    let types = rows
        .iter()
        .chain(&envelope)
        .map(|f| field_type(f).len())
        .max()
        .unwrap_or(0);
    let line = |f: &FieldDoc| {
        format!(
            "  {:width$}  {:types$}  {}\n",
            f.name,
            field_type(f),
            f.doc.replace('\n', " ")
        )
    };
    rows.iter().for_each(|f| text.push_str(&line(f)));
    text.push_str("and the envelope, on every event:\n");
    envelope.iter().for_each(|f| text.push_str(&line(f)));
    text.push_str(&format!(
        "\n{}\n",
        io_harness::schema::where_fields_line(event.tag)
    ));
    if let Some(example) = event.example {
        text.push_str(&format!("\nexample (examples/events.jsonl):\n{example}\n"));
    }
    out(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// A field's type as `io events TAG` prints it: `integer`, `string, optional`.
fn field_type(field: &FieldDoc) -> String {
    if field.optional {
        format!("{}, optional", field.type_name)
    } else {
        field.type_name.clone()
    }
}

/// One event as `io events --json` gives it.
fn event_json(event: &EventDoc) -> serde_json::Value {
    let fields: Vec<serde_json::Value> = event
        .fields
        .iter()
        .map(|f| {
            serde_json::json!({
                "name": f.name, "type": f.type_name, "optional": f.optional, "doc": f.doc,
            })
        })
        .collect();
    let example = event
        .example
        .and_then(|line| serde_json::from_str::<serde_json::Value>(line).ok());
    serde_json::json!({
        "event": event.tag,
        "when": event.doc,
        "frequency": io_harness::cost_words(event.frequency).replace(' ', "_"),
        "fields": fields,
        "example": example,
    })
}
