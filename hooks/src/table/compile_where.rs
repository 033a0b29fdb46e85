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

use crate::key::WHERE;
use crate::position::toml_key;
use crate::raw::Cx;
use crate::registry::{Field, FieldKind, HookEvents, HookFilter, Kind, did_you_mean};
use crate::table_error::{TableError, TableErrorKind};
use crate::r#where::glob::Glob;
use crate::r#where::matcher::{Condition, ENVELOPE_SLOT, NOT_IN_ON, Number, Scalar, Test, Where};
use crate::r#where::{Entries, Node, RawWhere, WhereError};

/// One field of `where` for one event of `on`: the event and the field.
pub(super) struct Target {
    /// The event; empty for a field of the envelope, which every event has.
    pub(super) event: &'static str,
    pub(super) field: Field,
    /// The strings the field holds, when they are known
    /// ([`Kind::field_choices`]).
    pub(super) choices: Option<&'static [&'static str]>,
    /// The prefixes of the other strings it holds ([`Kind::field_prefixes`]).
    pub(super) prefixes: &'static [&'static str],
}

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
        return Err(cx.error(WHERE, raw.span(), WhereError::NoOn.into()));
    }
    let span = raw.span();
    let mut entries = raw.into_inner().0;
    // The toml crate hands a table's keys sorted (its `preserve_order` is
    // the embedder's to turn on); conditions are kept, and shown, as written.
    entries.sort_by_key(|(name, _)| name.span().start);
    if entries.is_empty() {
        return Err(cx.error(WHERE, span, WhereError::NoField.into()));
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
        let at = |span: Range<usize>, e: WhereError| cx.error(&key, span, e.into());
        let (slots, targets) = match envelope_field::<E>(name.get_ref()) {
            Some(envelope) => envelope_targets(on, envelope),
            None if !on_written => {
                let e = WhereError::NoOnFor {
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
            return Err(cx.error(WHERE, span, WhereError::BadTable.into()));
        };
        let tool = conditions
            .iter()
            .find(|(_, c)| *c.name == *tools.tool_field)
            .map(|(_, c)| &c.test);
        let compiled =
            super::compile_args::compile(tools, (entries, at_value), on, tool).map_err(|r| {
                let (span, key, e) = *r;
                cx.error(&key, span, e.into())
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
fn event_targets<E: HookEvents>(on: HookFilter<E>, name: &str) -> Result<Targets, WhereError> {
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
fn find_field<E: HookEvents>(kind: Kind<E>, name: &str) -> Result<(usize, Field), WhereError> {
    let fields = kind.fields();
    let filterable: Vec<&'static str> = fields
        .iter()
        .filter(|f| f.is_filterable())
        .chain(E::ENVELOPE)
        .map(|f| f.name)
        .collect();
    match fields.iter().position(|f| f.name == name) {
        Some(index) if fields[index].is_filterable() => Ok((index, fields[index])),
        Some(index) => Err(WhereError::NotFilterable {
            event: kind.tag(),
            field: fields[index].name,
            fields: filterable,
        }),
        None => Err(WhereError::UnknownField {
            event: kind.tag(),
            field: name.to_owned(),
            suggestion: did_you_mean(name, filterable.iter().copied()),
            fields: filterable,
        }),
    }
}

/// Where a value is refused, and why (boxed: a load-time path, and the
/// error is large).
type Refusal = Box<(Range<usize>, WhereError)>;

/// The test `value` says, checked against the field of every target;
/// `top` is false inside a list.
pub(super) fn test_of(
    value: Spanned<Node>,
    targets: &[Target],
    top: bool,
) -> Result<Test, Refusal> {
    let span = value.span();
    let refuse = |e: WhereError| Box::new((span.clone(), e));
    let (test, found) = match value.into_inner() {
        Node::Str(s) => (Test::Is(Scalar::Str(s.into_boxed_str())), FOUND_STR),
        Node::Bool(b) => (Test::Is(Scalar::Bool(b)), FOUND_BOOL),
        Node::Int(n) => (Test::Is(Scalar::Number(Number::Int(n))), FOUND_INT),
        Node::Float(x) => (Test::Is(Scalar::Number(Number::Float(x))), FOUND_FLOAT),
        Node::DateTime => {
            let first = targets.get(..1).unwrap_or_default();
            return Err(refuse(wrong_type(first, "a date-time")));
        }
        Node::List(_) if !top => return Err(refuse(WhereError::NestedList)),
        Node::List(items) if items.is_empty() => return Err(refuse(WhereError::EmptyList)),
        Node::List(items) => {
            let tests = items
                .into_iter()
                .map(|item| test_of(item, targets, false))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Test::AnyOf(tests.into_boxed_slice()));
        }
        Node::Table(entries) => table_test(entries).map_err(refuse)?,
    };
    check_type(found, targets).map_err(refuse)?;
    check_choices(&test, targets).map_err(refuse)?;
    check_bounds(&test, targets).map_err(refuse)?;
    Ok(test)
}

/// Whether an integer, or a range, takes in a value each target's field
/// can hold, where its bounds are known: `where.step = -1` on a `u32` is a
/// hook that could never fire.
fn check_bounds(test: &Test, targets: &[Target]) -> Result<(), WhereError> {
    let (lo, hi, written) = match test {
        Test::Is(Scalar::Number(Number::Int(n))) => (i128::from(*n), i128::from(*n), n.to_string()),
        Test::Range { min, max } => {
            // A float bound reaches no integer field (the type check).
            let int = |n: &Option<Number>, default: i128| match n {
                Some(Number::Int(n)) => i128::from(*n),
                _ => default,
            };
            (
                int(min, i128::MIN),
                int(max, i128::MAX),
                range_text(*min, *max),
            )
        }
        _ => return Ok(()),
    };
    for target in targets {
        if let Some((least, most)) = target.field.bounds
            && (hi < least || lo > most)
        {
            return Err(WhereError::OutOfBounds {
                event: target.event,
                field: target.field.name,
                written,
                min: least,
                max: most,
            });
        }
    }
    Ok(())
}

/// `{ min = 1, max = 5 }`, `{ max = -1 }`, as written.
fn range_text(min: Option<Number>, max: Option<Number>) -> String {
    let bound = |name: &str, n: Option<Number>| {
        n.map(|n| match n {
            Number::Int(n) => format!("{name} = {n}"),
            Number::Float(x) => format!("{name} = {x:?}"),
        })
    };
    let parts: Vec<String> = [bound("min", min), bound("max", max)]
        .into_iter()
        .flatten()
        .collect();
    format!("{{ {} }}", parts.join(", "))
}

/// Whether a string, or a glob, can match what each target's field holds,
/// where that is known: a value none of an enum's variants has is a hook
/// that could never fire.
fn check_choices(test: &Test, targets: &[Target]) -> Result<(), WhereError> {
    for target in targets {
        let prefixes = target.prefixes;
        let values = match target.choices {
            Some(values) => values,
            None if !prefixes.is_empty() => &[],
            None => continue,
        };
        match test {
            Test::Is(Scalar::Str(s))
                if !values.contains(&&**s) && !prefixes.iter().any(|p| s.starts_with(p)) =>
            {
                return Err(WhereError::NoSuchValue {
                    event: target.event,
                    field: target.field.name,
                    value: s.to_string(),
                    suggestion: did_you_mean(s, values.iter().copied()),
                    values,
                    prefixes,
                });
            }
            Test::Glob(glob)
                if !values.iter().any(|v| glob.matches(v))
                    && !prefixes.iter().any(|p| may_share(glob.as_str(), p)) =>
            {
                return Err(WhereError::GlobMatchesNone {
                    event: target.event,
                    field: target.field.name,
                    glob: glob.as_str().to_owned(),
                    values,
                    prefixes,
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether a string matching `glob` may start with `prefix`: the glob's
/// literal start (up to its first `*`, `?` or `[`) and the prefix agree as
/// far as the shorter goes. When they do not, every string the glob
/// matches differs from every string of that form at some position, so the
/// glob matches none of them; when they do, it may (the check refuses only
/// what can never match).
pub(super) fn may_share(glob: &str, prefix: &str) -> bool {
    let literal = glob.find(['*', '?', '[']).map_or(glob, |end| &glob[..end]);
    literal.starts_with(prefix) || prefix.starts_with(literal)
}

/// What a value was, for the type check: its words, and the field types
/// that take it.
type Found = (&'static str, &'static [FieldKind]);
const FOUND_STR: Found = ("a string", &[FieldKind::Str]);
const FOUND_BOOL: Found = ("a bool", &[FieldKind::Bool]);
const FOUND_INT: Found = ("an integer", &[FieldKind::Integer, FieldKind::Float]);
const FOUND_FLOAT: Found = ("a float", &[FieldKind::Float]);
const FOUND_GLOB: Found = ("a glob", &[FieldKind::Str]);
const FOUND_INT_RANGE: Found = (
    "a range of integers",
    &[FieldKind::Integer, FieldKind::Float],
);
const FOUND_FLOAT_RANGE: Found = ("a range of floats", &[FieldKind::Float]);

/// `{ glob = "…" }` or `{ min = …, max = … }`, as a test and what it is.
fn table_test(entries: Entries) -> Result<(Test, Found), WhereError> {
    let mut glob = None;
    let (mut min, mut max) = (None, None);
    for (key, value) in entries {
        match (key.get_ref().as_str(), value.into_inner()) {
            ("glob", Node::Str(s)) if glob.is_none() => glob = Some(s),
            ("min", Node::Int(n)) => min = Some(Number::Int(n)),
            ("min", Node::Float(x)) => min = Some(Number::Float(x)),
            ("max", Node::Int(n)) => max = Some(Number::Int(n)),
            ("max", Node::Float(x)) => max = Some(Number::Float(x)),
            _ => return Err(WhereError::BadTable),
        }
    }
    match (glob, min, max) {
        (Some(glob), None, None) => match Glob::new(&glob) {
            Ok(pattern) => Ok((Test::Glob(pattern), FOUND_GLOB)),
            Err(reason) => Err(WhereError::BadGlob { glob, reason }),
        },
        (None, None, None) | (Some(_), _, _) => Err(WhereError::BadTable),
        (None, min, max) => {
            if let (Some(lo), Some(hi)) = (min, max)
                && as_f64(lo) > as_f64(hi)
            {
                return Err(WhereError::EmptyRange);
            }
            let floats = [min, max]
                .iter()
                .any(|n| matches!(n, Some(Number::Float(_))));
            let found = if floats {
                FOUND_FLOAT_RANGE
            } else {
                FOUND_INT_RANGE
            };
            Ok((Test::Range { min, max }, found))
        }
    }
}

fn as_f64(n: Number) -> f64 {
    match n {
        Number::Int(n) => n as f64,
        Number::Float(x) => x,
    }
}

/// Whether every target's field takes a value `found` describes.
fn check_type(found: Found, targets: &[Target]) -> Result<(), WhereError> {
    match targets.iter().find(|t| !found.1.contains(&t.field.kind)) {
        Some(t) => Err(wrong_type(std::slice::from_ref(t), found.0)),
        None => Ok(()),
    }
}

fn wrong_type(targets: &[Target], found: &'static str) -> WhereError {
    match targets.first() {
        Some(t) => WhereError::WrongType {
            event: t.event,
            field: t.field.name,
            kind: t.field.kind,
            found,
        },
        None => WhereError::BadTable,
    }
}

impl From<WhereError> for TableErrorKind {
    fn from(e: WhereError) -> Self {
        TableErrorKind::Where(e)
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
