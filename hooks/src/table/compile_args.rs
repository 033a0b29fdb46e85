//! `where.<args>.<name>`: a condition on one argument of a tool call,
//! checked at load against the embedder's [`ToolTable`] (the arguments of
//! the tools the hook's `where.<tool>` names, or of every tool without
//! it) and compiled into a [`Condition`] that reads the argument from the
//! call's free-form arguments ([`Enveloped::free_form`](crate::Enveloped::free_form)).

use std::ops::Range;

use toml::Spanned;

use super::compile_where::{Target, test_of};
use crate::registry::{Field, FieldKind, FieldValue, HookEvents, HookFilter, Kind, did_you_mean};
use crate::r#where::matcher::{Condition, NOT_IN_ON, Scalar, Test};
use crate::r#where::{ArgKind, Entries, ToolSpec, ToolTable, WhereError};

/// Where a refusal is, and why.
pub(super) type ArgRefusal = (Range<usize>, String, WhereError);

/// The tools a hook's `where.<tool>` condition lets through, of `table`'s
/// declared ones and of its open prefixes; every one without it.
fn named_tools<'t>(
    table: &'t ToolTable,
    tool: Option<&Test>,
) -> (Vec<&'t ToolSpec>, Vec<&'t crate::r#where::OpenTools>) {
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
        .filter(|o| may_admit_prefix(test, o.prefix))
        .collect();
    (tools, open)
}

/// Whether `test` may let through a name starting with `prefix`.
pub(crate) fn may_admit_prefix(test: &Test, prefix: &str) -> bool {
    match test {
        Test::Is(Scalar::Str(s)) => s.starts_with(prefix),
        Test::Glob(glob) => super::compile_where::may_share(glob.as_str(), prefix),
        Test::AnyOf(tests) => tests.iter().any(|t| may_admit_prefix(t, prefix)),
        _ => false,
    }
}

/// Compiles `where.<args> = { <name> = … }` (its `entries`) for a hook on
/// `on`, whose `where.<tool>` condition is `tool`.
pub(super) fn compile<E: HookEvents>(
    table: &ToolTable,
    entries: Entries,
    on: HookFilter<E>,
    tool: Option<&Test>,
) -> Result<Vec<Condition>, Box<ArgRefusal>> {
    let args_key = crate::position::toml_key(table.args_field);
    let mut conditions = Vec::new();
    for (name, value) in entries {
        let key = format!(
            "{}.{args_key}.{}",
            crate::key::WHERE,
            crate::position::toml_key(name.get_ref())
        );
        let refuse = |span: Range<usize>, e: WhereError| Box::new((span, key.clone(), e));
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
fn slots<E: HookEvents>(table: &ToolTable, on: HookFilter<E>) -> Result<Box<[u16]>, WhereError> {
    let mut slots = vec![NOT_IN_ON; E::TAGS.len()].into_boxed_slice();
    for kind in Kind::<E>::all().filter(|k| on.contains_kind(*k)) {
        let fields = kind.fields();
        let at = fields
            .iter()
            .position(|f| f.name == table.args_field && f.kind == FieldKind::Other);
        match at.and_then(|i| u16::try_from(i).ok()) {
            Some(i) => slots[kind.index()] = i,
            None => {
                let filterable: Vec<&'static str> = fields
                    .iter()
                    .filter(|f| f.is_filterable())
                    .chain(E::ENVELOPE)
                    .map(|f| f.name)
                    .collect();
                return Err(WhereError::UnknownField {
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
    table: &ToolTable,
    tool: Option<&Test>,
    name: &Spanned<String>,
) -> Result<Vec<Target>, WhereError> {
    let (tools, open) = named_tools(table, tool);
    let mut targets = Vec::new();
    for spec in &tools {
        let Some(arg) = spec.arg(name.get_ref()) else {
            let args: Vec<&'static str> = spec.args.iter().map(|a| a.name).collect();
            return Err(WhereError::UnknownArg {
                tool: spec.name,
                arg: name.get_ref().clone(),
                suggestion: did_you_mean(name.get_ref(), args.iter().copied()),
                args,
                named: tool.is_some(),
                takers: takers(table, name.get_ref()),
            });
        };
        let kind = match arg.kind {
            ArgKind::Str | ArgKind::Strings => FieldKind::Str,
            ArgKind::Integer => FieldKind::Integer,
            ArgKind::Bool => FieldKind::Bool,
            _ => {
                return Err(WhereError::FreeFormArgs {
                    tool: spec.name.to_owned(),
                    arg: Some(arg.name),
                    why: "its keys are its own",
                });
            }
        };
        targets.push(Target {
            event: spec.name,
            field: Field::new(arg.name, kind, false),
            choices: None,
            prefixes: &[],
        });
    }
    // Checked after the declared tools: without `where.tool`, an argument
    // some tool lacks is the first thing to say.
    if let Some(o) = open.first() {
        return Err(WhereError::FreeFormArgs {
            tool: format!("{}…", o.prefix),
            arg: None,
            why: o.why_free_form,
        });
    }
    Ok(targets)
}

/// The tools that take an argument `name`, for the hint.
fn takers(table: &ToolTable, name: &str) -> Vec<&'static str> {
    table
        .tools
        .iter()
        .filter(|t| t.arg(name).is_some_and(|a| a.kind != ArgKind::FreeForm))
        .map(|t| t.name)
        .collect()
}

/// The JSON Schema of `where.<args>`, for an editor: the arguments some
/// tool declares, each with the shapes of its type (`where.<tool>`, which
/// narrows them, is the loader's to check).
pub(super) fn schema(table: &ToolTable) -> serde_json::Value {
    let string = serde_json::json!([
        { "type": "string" },
        {
            "type": "object",
            "properties": { "glob": { "type": "string" } },
            "required": ["glob"],
            "additionalProperties": false
        }
    ]);
    let integer = serde_json::json!([
        { "type": "integer" },
        {
            "type": "object",
            "properties": { "min": { "type": "integer" }, "max": { "type": "integer" } },
            "minProperties": 1,
            "additionalProperties": false
        }
    ]);
    let mut properties = serde_json::Map::new();
    for tool in table.tools {
        for arg in tool.args {
            let shapes = match arg.kind {
                ArgKind::Str | ArgKind::Strings => string.clone(),
                ArgKind::Integer => integer.clone(),
                ArgKind::Bool => serde_json::json!([{ "type": "boolean" }]),
                _ => continue,
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
        "description": "Conditions on a tool call's arguments: each names an argument of every tool `where.tool` names (an array of strings is matched as one command line, its elements joined by spaces).",
        "minProperties": 1,
        "properties": properties,
        "additionalProperties": false
    })
}
