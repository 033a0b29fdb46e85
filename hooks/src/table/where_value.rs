//! A `where` condition's value, checked against the fields it is compared
//! with (an event's, the envelope's, or a tool call's arguments): its type,
//! the strings a field holds, an integer's bounds, and the forms a table
//! may take (`{ glob = … }`, `{ min = …, max = … }`), then compiled into a
//! [`Test`].

use std::ops::Range;

use toml::Spanned;

use crate::registry::{Field, FieldKind, did_you_mean};
use crate::table_error::TableErrorKind;
use crate::r#where::glob::Glob;
use crate::r#where::matcher::{Number, Scalar, Test};
use crate::r#where::{Entries, Node};

/// One field of `where` for one event of `on`: the event and the field.
pub(super) struct Target {
    /// The event; empty for a field of the envelope, which every event has.
    pub(super) event: &'static str,
    pub(super) field: Field,
    /// The strings the field holds, when they are known
    /// ([`Kind::field_choices`](crate::Kind::field_choices)).
    pub(super) choices: Option<&'static [&'static str]>,
    /// The prefixes of the other strings it holds ([`Kind::field_prefixes`](crate::Kind::field_prefixes)).
    pub(super) prefixes: &'static [&'static str],
}

/// Where a value is refused, and why (boxed: a load-time path, and the
/// error is large).
pub(super) type Refusal = Box<(Range<usize>, TableErrorKind)>;

/// The test `value` says, checked against the field of every target;
/// `top` is false inside a list.
pub(super) fn test_of(
    value: Spanned<Node>,
    targets: &[Target],
    top: bool,
) -> Result<Test, Refusal> {
    let span = value.span();
    let refuse = |e: TableErrorKind| Box::new((span.clone(), e));
    let (test, found) = match value.into_inner() {
        Node::Str(s) => (Test::Is(Scalar::Str(s.into_boxed_str())), FOUND_STR),
        Node::Bool(b) => (Test::Is(Scalar::Bool(b)), FOUND_BOOL),
        Node::Int(n) => (Test::Is(Scalar::Number(Number::Int(n))), FOUND_INT),
        Node::Float(x) => (Test::Is(Scalar::Number(Number::Float(x))), FOUND_FLOAT),
        Node::DateTime => {
            let first = targets.get(..1).unwrap_or_default();
            return Err(refuse(wrong_type(first, "a date-time")));
        }
        Node::List(_) if !top => return Err(refuse(TableErrorKind::NestedList)),
        Node::List(items) if items.is_empty() => return Err(refuse(TableErrorKind::EmptyList)),
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
fn check_bounds(test: &Test, targets: &[Target]) -> Result<(), TableErrorKind> {
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
            return Err(TableErrorKind::OutOfBounds {
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
fn check_choices(test: &Test, targets: &[Target]) -> Result<(), TableErrorKind> {
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
                return Err(TableErrorKind::NoSuchValue {
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
                return Err(TableErrorKind::GlobMatchesNone {
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
fn table_test(entries: Entries) -> Result<(Test, Found), TableErrorKind> {
    let mut glob = None;
    let (mut min, mut max) = (None, None);
    for (key, value) in entries {
        match (key.get_ref().as_str(), value.into_inner()) {
            ("glob", Node::Str(s)) if glob.is_none() => glob = Some(s),
            ("min", Node::Int(n)) => min = Some(Number::Int(n)),
            ("min", Node::Float(x)) => min = Some(Number::Float(x)),
            ("max", Node::Int(n)) => max = Some(Number::Int(n)),
            ("max", Node::Float(x)) => max = Some(Number::Float(x)),
            ("min", _) => return Err(TableErrorKind::BoundNotANumber { bound: "min" }),
            ("max", _) => return Err(TableErrorKind::BoundNotANumber { bound: "max" }),
            _ => return Err(TableErrorKind::BadTable),
        }
    }
    match (glob, min, max) {
        (Some(glob), None, None) => match Glob::new(&glob) {
            Ok(pattern) => Ok((Test::Glob(pattern), FOUND_GLOB)),
            Err(reason) => Err(TableErrorKind::BadGlob { glob, reason }),
        },
        (None, None, None) | (Some(_), _, _) => Err(TableErrorKind::BadTable),
        (None, min, max) => {
            if let (Some(lo), Some(hi)) = (min, max)
                && as_f64(lo) > as_f64(hi)
            {
                return Err(TableErrorKind::EmptyRange);
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
fn check_type(found: Found, targets: &[Target]) -> Result<(), TableErrorKind> {
    match targets.iter().find(|t| !found.1.contains(&t.field.kind)) {
        Some(t) => Err(wrong_type(std::slice::from_ref(t), found.0)),
        None => Ok(()),
    }
}

fn wrong_type(targets: &[Target], found: &'static str) -> TableErrorKind {
    match targets.first() {
        Some(t) => TableErrorKind::WrongType {
            event: t.event,
            field: t.field.name,
            kind: t.field.kind,
            found,
        },
        None => TableErrorKind::BadTable,
    }
}
