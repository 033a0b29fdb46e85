//! `where`: read as written (a table of field names, each with a value, a
//! list or an inline table, every one with its span), then checked against
//! the field table of each event in `on` and compiled into a
//! [`Where`].
//!
//! A field of the envelope every event is delivered in
//! ([`HookEvents::ENVELOPE`]) is found on every event, and needs no `on`.
//!
//! Every mistake is refused here, at load: `where` without `on` (but on the
//! envelope's fields), a field an event of `on` lacks, a field that is free-form or nested, a value of the
//! wrong type, an empty list, a glob that does not compile, a table that is
//! neither `{ glob = … }` nor `{ min = …, max = … }`.

use std::ops::Range;

use toml::Spanned;

use super::where_value::{Target, test_of};
use crate::key::WHERE;
use crate::position::toml_key;
use crate::raw::Cx;
use crate::registry::{Field, HookEvents, HookFilter, Kind, did_you_mean, filterable_names};
use crate::table_error::{TableError, TableErrorKind};
use crate::r#where::matcher::{Condition, ENVELOPE_SLOT, NOT_IN_ON, Where};
use crate::r#where::{Node, RawWhere};

/// Checks `raw` (the table's `where`, at `span`) against each event of
/// `on` and compiles it. `on_written` says whether the table has `on`.
pub(super) fn compile<E: HookEvents>(
    raw: Option<Spanned<RawWhere>>,
    on: HookFilter<E>,
    on_written: bool,
    cx: &Cx<'_>,
) -> Result<Where<E>, TableError> {
    let Some(raw) = raw else {
        return Ok(Where::none());
    };
    // Without `on`, only the envelope's fields, which every event has.
    if !on_written && E::ENVELOPE.is_empty() {
        return Err(cx.error(WHERE, raw.span(), TableErrorKind::NoOn));
    }
    let span = raw.span();
    let mut entries = raw.into_inner().0;
    // The toml crate hands a table's keys sorted (its `preserve_order` is
    // the embedder's to turn on); conditions are kept, and shown, as written.
    entries.sort_by_key(|(name, _)| name.span().start);
    if entries.is_empty() {
        return Err(cx.error(WHERE, span, TableErrorKind::NoField));
    }
    let mut conditions = Vec::new();
    let mut args = None;
    for (name, value) in entries {
        if let (Some(tools), Node::Table(_)) = (cx.tools, value.get_ref())
            && *name.get_ref() == tools.args_field
            && on_written
        {
            args = Some((tools, name.span().start, value));
            continue;
        }
        let key = format!("{WHERE}.{}", toml_key(name.get_ref()));
        let at = |span: Range<usize>, e: TableErrorKind| cx.error(&key, span, e);
        let (slots, targets) = match envelope_field::<E>(name.get_ref()) {
            Some(envelope) => envelope_targets(on, envelope),
            None if !on_written => {
                let e = TableErrorKind::NoOnFor {
                    field: name.get_ref().clone(),
                    envelope: E::ENVELOPE.iter().map(|f| f.name).collect(),
                };
                return Err(at(name.span(), e));
            }
            None => event_targets(on, name.get_ref()).map_err(|e| at(name.span(), e))?,
        };
        let test = test_of(value, &targets, true).map_err(|refusal| {
            let (span, e) = *refusal;
            at(span, e)
        })?;
        conditions.push((
            name.span().start,
            Condition {
                name: name.into_inner().into_boxed_str(),
                slots,
                test,
                arg: None,
            },
        ));
    }
    if let Some((tools, at, value)) = args {
        let at_value = value.span();
        let Node::Table(entries) = value.into_inner() else {
            return Err(cx.error(WHERE, span, TableErrorKind::BadTable));
        };
        let tool = conditions
            .iter()
            .find(|(_, c)| *c.name == *tools.tool_field)
            .map(|(_, c)| &c.test);
        let compiled =
            super::compile_args::compile(tools, (entries, at_value), on, tool).map_err(|r| {
                let (span, key, e) = *r;
                cx.error(&key, span, e)
            })?;
        conditions.extend(compiled.into_iter().map(|c| (at, c)));
    }
    // As written: `where.args` is compiled last, once `where.tool` is known.
    conditions.sort_by_key(|(at, _)| *at);
    Ok(Where::new(conditions.into_iter().map(|(_, c)| c).collect()))
}

/// Each kind's slot for a field (by position in `E::TAGS`), and the
/// fields a condition's value is checked against.
type Targets = (Box<[u16]>, Vec<Target>);

/// The envelope's field named `name`, with its position, when `E`'s
/// envelope has one.
fn envelope_field<E: HookEvents>(name: &str) -> Option<(usize, Field)> {
    E::ENVELOPE
        .iter()
        .position(|f| f.name == name)
        .map(|index| (index, E::ENVELOPE[index]))
}

/// Envelope field `index`, the same on every event of `on`: one target,
/// named for no event.
fn envelope_targets<E: HookEvents>(on: HookFilter<E>, (index, field): (usize, Field)) -> Targets {
    let slot = u16::try_from(index)
        .ok()
        .filter(|i| *i < ENVELOPE_SLOT)
        .map_or(NOT_IN_ON, |i| i | ENVELOPE_SLOT);
    let slots = Kind::<E>::all()
        .map(|kind| match on.contains_kind(kind) {
            true => slot,
            false => NOT_IN_ON,
        })
        .collect();
    let target = Target {
        event: "",
        field,
        choices: None,
        prefixes: &[],
    };
    (slots, vec![target])
}

/// The field `name` of each event of `on`.
fn event_targets<E: HookEvents>(on: HookFilter<E>, name: &str) -> Result<Targets, TableErrorKind> {
    let mut slots = vec![NOT_IN_ON; E::TAGS.len()].into_boxed_slice();
    let mut targets = Vec::new();
    for kind in Kind::<E>::all().filter(|k| on.contains_kind(*k)) {
        let (index, field) = find_field(kind, name)?;
        slots[kind.index()] = u16::try_from(index).unwrap_or(NOT_IN_ON);
        targets.push(Target {
            event: kind.tag(),
            field,
            choices: kind.field_choices(index),
            prefixes: kind.field_prefixes(index),
        });
    }
    Ok((slots, targets))
}

/// The field `name` of `kind`, with its position, when a filter may name
/// it. The fields a message lists end with the envelope's, which a filter
/// may name too.
fn find_field<E: HookEvents>(kind: Kind<E>, name: &str) -> Result<(usize, Field), TableErrorKind> {
    let fields = kind.fields();
    let filterable = filterable_names(kind);
    match fields.iter().position(|f| f.name == name) {
        Some(index) if fields[index].is_filterable() => Ok((index, fields[index])),
        Some(index) => Err(TableErrorKind::NotFilterable {
            event: kind.tag(),
            field: fields[index].name,
            fields: filterable,
        }),
        None => Err(TableErrorKind::UnknownField {
            event: kind.tag(),
            field: name.to_owned(),
            suggestion: did_you_mean(name, filterable.iter().copied()),
            fields: filterable,
        }),
    }
}

/// The JSON Schema of `where`, for an editor: the shapes a field's value
/// may have. Which fields exist depends on `on`, which the loader checks.
pub(super) fn schema() -> serde_json::Value {
    let scalar = serde_json::json!([
        { "type": "string" },
        { "type": "number" },
        { "type": "boolean" },
        {
            "type": "object",
            "description": "A glob, matched against the whole string: `*` any characters, `?` one, `[abc]` one of those.",
            "properties": { "glob": { "type": "string" } },
            "required": ["glob"],
            "additionalProperties": false
        },
        {
            "type": "object",
            "description": "A number within these bounds, each inclusive.",
            "properties": { "min": { "type": "number" }, "max": { "type": "number" } },
            "minProperties": 1,
            "additionalProperties": false
        }
    ]);
    let mut one_of = scalar.as_array().cloned().unwrap_or_default();
    one_of.push(serde_json::json!({
        "type": "array",
        "description": "Any of these values.",
        "minItems": 1,
        "items": { "oneOf": scalar }
    }));
    serde_json::json!({
        "type": "object",
        "description": "Conditions on named fields of the events in `on`, all of which must hold; needs `on`.",
        "minProperties": 1,
        "additionalProperties": { "oneOf": one_of }
    })
}
