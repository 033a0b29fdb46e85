//! `where.<args>.<name>`: a condition on one argument of a tool call,
//! checked at load against the embedder's [`ToolTable`] (the arguments of
//! the tools the hook's `where.<tool>` names, or of every tool without
//! it) and compiled into a [`Condition`] that reads the argument from the
//! call's free-form arguments ([`Enveloped::free_form`](crate::Enveloped::free_form)).

use std::ops::Range;

use toml::Spanned;

use super::where_value::{Target, test_of};
use crate::registry::{
    Field, FieldKind, FieldValue, HookEvents, HookFilter, Kind, did_you_mean, filterable_names,
};
use crate::table_error::TableErrorKind;
use crate::r#where::matcher::{Condition, NOT_IN_ON, Scalar, Test};
use crate::r#where::{Entries, ToolClass, ToolSpec, ToolTable};

/// Where a refusal is, and why.
pub(super) type ArgRefusal = (Range<usize>, String, TableErrorKind);

/// The tools a hook's `where.<tool>` condition lets through, of `table`'s
/// declared ones and of its open prefixes; every one without it.
fn named_tools<'t>(
    table: &'t ToolTable,
    tool: Option<&Test>,
) -> (
    Vec<&'t ToolSpec>,
    Vec<&'t (&'static str, ToolClass, &'static str)>,
) {
    let Some(test) = tool else {
        return (table.tools.iter().collect(), table.open.iter().collect());
    };
    let tools = table
        .tools
        .iter()
        .filter(|t| test.matches(FieldValue::Str(t.name)))
        .collect();
    let open = table
        .open
        .iter()
        .filter(|(prefix, ..)| may_admit_prefix(test, prefix))
        .collect();
    (tools, open)
}

/// Whether `test` may let through a name starting with `prefix`.
pub(crate) fn may_admit_prefix(test: &Test, prefix: &str) -> bool {
    match test {
        Test::Is(Scalar::Str(s)) => s.starts_with(prefix),
        Test::Glob(glob) => super::where_value::may_share(glob.as_str(), prefix),
        Test::AnyOf(tests) => tests.iter().any(|t| may_admit_prefix(t, prefix)),
        _ => false,
    }
}

/// Compiles `where.<args> = { <name> = … }` (its `entries`) for a hook on
/// `on`, whose `where.<tool>` condition is `tool`.
pub(super) fn compile<E: HookEvents>(
    table: &'static ToolTable,
    (entries, span): (Entries, Range<usize>),
    on: HookFilter<E>,
    tool: Option<&Test>,
) -> Result<Vec<Condition>, Box<ArgRefusal>> {
    let args_key = crate::position::toml_key(table.args_field);
    if entries.is_empty() {
        let key = format!("{}.{args_key}", crate::key::WHERE);
        return Err(Box::new((
            span,
            key,
            TableErrorKind::NoArg {
                args_field: table.args_field,
            },
        )));
    }
    let mut conditions = Vec::new();
    for (name, value) in entries {
        let key = format!(
            "{}.{args_key}.{}",
            crate::key::WHERE,
            crate::position::toml_key(name.get_ref())
        );
        let refuse = |span: Range<usize>, e: TableErrorKind| Box::new((span, key.clone(), e));
        let slots = slots::<E>(table, on).map_err(|e| refuse(name.span(), e))?;
        let targets = targets(table, tool, &name).map_err(|e| refuse(name.span(), e))?;
        let test = test_of(value, &targets, true).map_err(|refusal| {
            let (span, e) = *refusal;
            refuse(span, e)
        })?;
        conditions.push(Condition {
            name: format!("{}.{}", table.args_field, name.get_ref()).into_boxed_str(),
            slots,
            test,
            arg: Some(name.into_inner().into_boxed_str()),
        });
    }
    Ok(conditions)
}

/// Each kind's position of the arguments field: every event of `on` must
/// carry it, free-form.
fn slots<E: HookEvents>(
    table: &ToolTable,
    on: HookFilter<E>,
) -> Result<Box<[u16]>, TableErrorKind> {
    let mut slots = vec![NOT_IN_ON; E::TAGS.len()].into_boxed_slice();
    for kind in Kind::<E>::all().filter(|k| on.contains_kind(*k)) {
        let fields = kind.fields();
        let at = fields
            .iter()
            .position(|f| f.name == table.args_field && f.kind == FieldKind::Other);
        match at.and_then(|i| u16::try_from(i).ok()) {
            Some(i) => slots[kind.index()] = i,
            None => {
                let filterable = filterable_names(kind);
                return Err(TableErrorKind::UnknownField {
                    event: kind.tag(),
                    field: table.args_field.to_owned(),
                    suggestion: None,
                    fields: filterable,
                });
            }
        }
    }
    Ok(slots)
}

/// The argument `name` of each tool the hook names, as a field a value is
/// checked against.
fn targets(
    table: &'static ToolTable,
    tool: Option<&Test>,
    name: &Spanned<String>,
) -> Result<Vec<Target>, TableErrorKind> {
    let (tools, open) = named_tools(table, tool);
    let mut targets = Vec::new();
    for spec in &tools {
        let Some(arg) = spec.arg(name.get_ref()) else {
            let args: Vec<&'static str> = spec.args.iter().map(|a| a.name).collect();
            return Err(TableErrorKind::UnknownArg {
                tool: spec.name,
                arg: name.get_ref().clone(),
                suggestion: did_you_mean(name.get_ref(), args.iter().copied()),
                args,
                named: tool.is_some(),
                takers: takers(table, name.get_ref()),
                table,
            });
        };
        // A list of strings is matched as one command line: a string.
        let kind = match arg.kind {
            FieldKind::Str | FieldKind::Strings => FieldKind::Str,
            kind @ (FieldKind::Integer | FieldKind::Float | FieldKind::Bool) => kind,
            FieldKind::Other => {
                return Err(TableErrorKind::FreeFormArgs {
                    tool: spec.name.to_owned(),
                    arg: Some(arg.name),
                    why: "its keys are its own",
                    tool_field: table.tool_field,
                });
            }
        };
        targets.push(Target {
            event: spec.name,
            field: Field { kind, ..*arg },
            choices: None,
            prefixes: &[],
        });
    }
    // Checked after the declared tools: without `where.tool`, an argument
    // some tool lacks is the first thing to say.
    if let Some((prefix, _, why)) = open.first() {
        return Err(TableErrorKind::FreeFormArgs {
            tool: format!("{prefix}…"),
            arg: None,
            why,
            tool_field: table.tool_field,
        });
    }
    Ok(targets)
}

/// The tools that take an argument `name`, for the hint.
fn takers(table: &ToolTable, name: &str) -> Vec<&'static str> {
    table
        .tools
        .iter()
        .filter(|t| t.arg(name).is_some_and(|a| a.kind != FieldKind::Other))
        .map(|t| t.name)
        .collect()
}

/// Adds `where.<args>` to a hook table's JSON Schema (`table`, from
/// `table_schema`), as far as JSON Schema can say the loader's rules, in
/// draft 7's keywords: on each event whose arguments field is free-form,
/// `where` may name it, holding the arguments some tool declares
/// ([`args_schema`]); a single `where.<tool>` string narrows them to that
/// tool's, a `where.<tool>` naming a tool known by a prefix refuses them,
/// and without `where.<tool>` only an argument every tool takes is named.
/// A list or a glob in `where.<tool>` is the loader's alone to check.
pub(super) fn patch_schema<E: HookEvents>(table: &mut serde_json::Value, tools: &ToolTable) {
    use serde_json::{Value, json};
    let (args, tool, where_key) = (tools.args_field, tools.tool_field, crate::key::WHERE);
    let args_schema = args_schema(tools);
    if let Some(Value::Object(r#where)) = table.pointer_mut(&format!("/properties/{where_key}")) {
        r#where.insert(
            "properties".to_owned(),
            json!({ args: args_schema.clone() }),
        );
    }
    let Some(Value::Array(rules)) = table.get_mut("allOf") else {
        return;
    };
    allow_on_events::<E>(rules, tools, &args_schema);
    // `where` names `args` only with `tool`, but for the arguments every
    // tool takes.
    let every: Vec<&str> = match tools.open.is_empty() {
        true => tools.tools.first().map_or_else(Vec::new, |first| {
            first
                .args
                .iter()
                .filter(|a| a.kind != FieldKind::Other)
                .map(|a| a.name)
                .filter(|name| {
                    tools
                        .tools
                        .iter()
                        .all(|t| t.arg(name).is_some_and(|a| a.kind != FieldKind::Other))
                })
                .collect()
        }),
        false => Vec::new(),
    };
    let refuse = |r#where: Value| json!({ "not": { "required": [where_key], "properties": { where_key: r#where } } });
    rules.push(refuse(json!({
        "required": [args],
        "not": { "required": [tool] },
        "properties": { args: { "not": { "propertyNames": { "enum": every } } } }
    })));
    for spec in tools.tools {
        let names: Vec<&str> = spec
            .args
            .iter()
            .filter(|a| a.kind != FieldKind::Other)
            .map(|a| a.name)
            .collect();
        rules.push(refuse(json!({
            "required": [tool, args],
            "properties": {
                tool: { "const": spec.name },
                args: { "not": { "propertyNames": { "enum": names } } }
            }
        })));
    }
    for (prefix, ..) in tools.open {
        let pattern = format!("^{}", regex_escape(prefix));
        rules.push(refuse(json!({
            "required": [tool, args],
            "properties": { tool: { "type": "string", "pattern": pattern } }
        })));
    }
}

/// In the rule of each event whose arguments field is free-form, lets
/// `where` name it, holding `args_schema`.
fn allow_on_events<E: HookEvents>(
    rules: &mut [serde_json::Value],
    tools: &ToolTable,
    args_schema: &serde_json::Value,
) {
    use serde_json::{Value, json};
    let (args, where_key) = (tools.args_field, crate::key::WHERE);
    for kind in Kind::<E>::all() {
        let has_args = kind
            .fields()
            .iter()
            .any(|f| f.name == args && f.kind == FieldKind::Other);
        let is_its_rule = |rule: &Value| {
            rule.pointer(&format!("/if/properties/{}/contains/const", crate::key::ON))
                == Some(&json!(kind.tag()))
        };
        let Some(rule) = rules.iter_mut().find(|r| is_its_rule(r)) else {
            continue;
        };
        let then = rule.pointer_mut(&format!("/then/properties/{where_key}"));
        if let (true, Some(Value::Object(then))) = (has_args, then) {
            if let Some(Value::Array(names)) = then
                .get_mut("propertyNames")
                .and_then(|p| p.get_mut("enum"))
            {
                names.push(json!(args));
            }
            if let Some(Value::Object(values)) = then.get_mut("properties") {
                values.insert(args.to_owned(), args_schema.clone());
            }
        }
    }
}

/// `text` with every character a regular expression would read as syntax
/// escaped.
fn regex_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "\\.^$|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The JSON Schema of `where.<args>`, for an editor: the arguments some
/// tool declares, each with the shapes of its type (`where.<tool>`, which
/// narrows them, is the loader's to check).
fn args_schema(table: &ToolTable) -> serde_json::Value {
    let string = serde_json::json!([
        { "type": "string" },
        {
            "type": "object",
            "properties": { "glob": { "type": "string" } },
            "required": ["glob"],
            "additionalProperties": false
        }
    ]);
    let number = |of_type: &str| {
        serde_json::json!([
            { "type": of_type },
            {
                "type": "object",
                "properties": { "min": { "type": of_type }, "max": { "type": of_type } },
                "minProperties": 1,
                "additionalProperties": false
            }
        ])
    };
    let (integer, float) = (number("integer"), number("number"));
    let mut properties = serde_json::Map::new();
    for tool in table.tools {
        for arg in tool.args {
            let shapes = match arg.kind {
                FieldKind::Str | FieldKind::Strings => string.clone(),
                FieldKind::Integer => integer.clone(),
                FieldKind::Float => float.clone(),
                FieldKind::Bool => serde_json::json!([{ "type": "boolean" }]),
                FieldKind::Other => continue,
            };
            let mut one_of = shapes.as_array().cloned().unwrap_or_default();
            one_of.push(serde_json::json!({
                "type": "array",
                "minItems": 1,
                "items": { "oneOf": shapes }
            }));
            let description = format!(
                "An argument of `{}`, and of any other tool that takes it.",
                tool.name
            );
            properties.entry(arg.name).or_insert_with(
                || serde_json::json!({ "description": description, "oneOf": one_of }),
            );
        }
    }
    serde_json::json!({
        "type": "object",
        "description": format!("Conditions on a tool call's arguments: each names an argument of every tool `where.{}` names (an array of strings is matched as one command line, its elements joined by spaces).", table.tool_field),
        "minProperties": 1,
        "properties": properties,
        "additionalProperties": false
    })
}
