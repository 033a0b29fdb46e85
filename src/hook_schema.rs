//! The JSON Schema of `[[hook]]` tables, generated from the registry, so
//! an editor can complete event names and flag a bad key while the
//! operator types: published as [`crate::schema::hook_schema`].

use serde_json::{Value, json};

use crate::event::EventKind;

/// The JSON Schema (draft 2020-12) of an `io.local.toml` or user-scope file,
/// named by the program's version (`$id` is `urn:io-harness:hooks:` and the
/// version `io --version` prints), as far as hooks go: [`io_hooks::hook_file_schema`], so `[[hook]]`
/// tables and `[profile.<name>]` bodies, and the same refusal of a `hook`
/// hidden anywhere else, or misspelt, as `io check`. Other keys are allowed,
/// as the loader keeps them.
///
/// The `$defs.hook` table is [`io_hooks::hook_table_schema`], computed from
/// the engine's key table. The `on` items are an enum of [`HookEvents::TAGS`](io_hooks::HookEvents::TAGS),
/// each described by its doc comment and frequency, so a new event is in the
/// schema the moment it is in the enum.
///
/// ```
/// let schema = io_harness::schema::hook_schema();
/// let on = &schema["$defs"]["hook"]["properties"]["on"]["items"]["enum"];
/// assert_eq!(on[0], "started");
/// ```
pub fn hook_schema() -> Value {
    let file = io_hooks::hook_file_schema::<EventKind>(
        |kind| {
            format!(
                "{} ({})",
                kind.doc(),
                crate::event::cost_words(EventKind::frequency(kind))
            )
        },
        "Hooks: each names the events it wants and either a file to append them to or an argv to run. A later scope replaces the whole array.",
        &crate::config::hook_layout(),
    );
    let mut schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("urn:io-harness:hooks:{}", env!("CARGO_PKG_VERSION")),
        "title": "io-harness hooks",
        "description": "[[hook]] tables of io.local.toml or the user-scope io.toml. A project-scoped io.toml may not declare hooks.",
    });
    if let (Some(schema), Value::Object(file)) = (schema.as_object_mut(), file) {
        schema.extend(file);
    }
    if let Some(profile) = schema.pointer_mut("/properties/profile")
        && let Some(profile) = profile.as_object_mut()
    {
        profile.insert(
            "description".to_owned(),
            "Named profiles; applying one replaces the hooks when it declares any.".into(),
        );
    }
    schema
}
