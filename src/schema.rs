//! A JSON Schema for `[[hook]]` tables, generated from the registry, so an
//! editor can complete event names and flag a bad key while the operator
//! types.

use io_hooks::HookEvents;
use serde_json::{Value, json};

use crate::event::EventKind;

/// The JSON Schema (draft 2020-12) of an `io.local.toml` or user-scope file,
/// as far as hooks go: `[[hook]]` tables and `[profile.<name>]` bodies. Other
/// top-level keys are allowed, as the loader keeps them.
///
/// The `on` items are an enum of [`EventKind::TAGS`], each described by its
/// doc comment, so a new event is in the schema the moment it is in the enum.
///
/// ```
/// let schema = io_harness::hook_schema();
/// let on = &schema["$defs"]["hook"]["properties"]["on"]["items"]["enum"];
/// assert_eq!(on[0], "started");
/// ```
pub fn hook_schema() -> Value {
    let events: Vec<Value> = EventKind::TAGS
        .iter()
        .zip(EventKind::DOCS)
        .enumerate()
        .map(|(i, (tag, doc))| {
            json!({
                "const": tag,
                "description": format!("{doc} ({})", EventKind::frequency(i).as_str()),
            })
        })
        .collect();
    let hooks = json!({
        "type": "array",
        "description": "Hooks: each names the events it wants and either a file to append them to or an argv to run. A later scope replaces the whole array.",
        "items": { "$ref": "#/$defs/hook" }
    });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:io-harness:hooks:0.28",
        "title": "io-harness hooks",
        "description": "[[hook]] tables of io.local.toml or the user-scope io.toml. A project-scoped io.toml may not declare hooks.",
        "type": "object",
        "properties": {
            "hook": hooks,
            "profile": {
                "type": "object",
                "description": "Named profiles; applying one replaces the hooks when it declares any.",
                "additionalProperties": {
                    "type": "object",
                    "properties": { "hook": hooks }
                }
            }
        },
        "$defs": {
            "hook": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "on": {
                        "type": "array",
                        "description": "The event names this hook wants; absent means every event.",
                        "minItems": 1,
                        "uniqueItems": true,
                        "items": { "enum": EventKind::TAGS, "anyOf": events }
                    },
                    "append": {
                        "type": "string",
                        "minLength": 1,
                        "description": "A path, relative to the discovery root, to append one JSON line per matching event to."
                    },
                    "run": {
                        "type": "array",
                        "description": "An argv to spawn with the event's JSON line on stdin. Never a shell line.",
                        "minItems": 1,
                        "prefixItems": [ { "type": "string", "minLength": 1 } ],
                        "items": { "type": "string" }
                    },
                    "on_failure": {
                        "enum": ["continue", "cancel"],
                        "default": "continue",
                        "description": "\"cancel\" ends the run at its next step boundary when this hook fails."
                    },
                    "timeout_ms": {
                        "type": "integer",
                        "minimum": 1,
                        "default": io_hooks::DEFAULT_TIMEOUT.as_millis() as u64,
                        "description": "The wall-clock ceiling on a run hook, in milliseconds; the child is killed at it."
                    }
                },
                "oneOf": [
                    { "required": ["append"] },
                    { "required": ["run"] }
                ],
                "if": { "required": ["append"] },
                "then": { "not": { "required": ["timeout_ms"] } }
            }
        }
    })
}
