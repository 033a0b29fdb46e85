//! Why a `where` is refused.

use std::fmt;

use crate::position::clipped;
use crate::registry::{FieldKind, write_one_of};

/// The most characters of a value as written that a message quotes.
const SHOWN: usize = 80;

/// Why a `where` is refused: the reason half of a [`TableError`](crate::TableError) at
/// `hook[N].where` or `hook[N].where.<field>`.
///
/// A variant's `event` is empty for a field of the envelope, which every
/// event has ([`HookEvents::ENVELOPE`](crate::HookEvents::ENVELOPE)): its
/// message names it as `envelope field `depth``.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WhereError {
    /// `where` in a table without `on`.
    NoOn,
    /// `where` in a table without `on`, naming a field that is not the
    /// envelope's (which every event has, and needs no `on`).
    NoOnFor {
        /// The field as written.
        field: String,
        /// The envelope's fields, which `where` may name without `on`.
        envelope: Vec<&'static str>,
    },
    /// `where = {}`: a filter that names no field.
    NoField,
    /// An event of `on` has no field of that name.
    UnknownField {
        /// The event.
        event: &'static str,
        /// The field as written.
        field: String,
        /// The nearest field a filter may name, when one is close.
        suggestion: Option<&'static str>,
        /// The fields of the event a filter may name.
        fields: Vec<&'static str>,
    },
    /// The field holds a list, a map, free-form JSON or a nested value.
    NotFilterable {
        /// The event.
        event: &'static str,
        /// The field.
        field: &'static str,
        /// The fields of the event a filter may name.
        fields: Vec<&'static str>,
    },
    /// A value of another type than the field's.
    WrongType {
        /// The event.
        event: &'static str,
        /// The field.
        field: &'static str,
        /// The field's type.
        kind: FieldKind,
        /// What was written, in words (`a string`, `a glob`).
        found: &'static str,
    },
    /// `where.<field> = []`.
    EmptyList,
    /// A list inside a list.
    NestedList,
    /// A glob that does not compile.
    BadGlob {
        /// The glob as written.
        glob: String,
        /// Why, in the glob crate's words.
        reason: String,
    },
    /// A string the field never holds: it is an enum of unit variants
    /// (`#[hook(unit_enum)]`) whose names are known.
    NoSuchValue {
        /// The event.
        event: &'static str,
        /// The field.
        field: &'static str,
        /// The string as written.
        value: String,
        /// The nearest name, when one is close.
        suggestion: Option<&'static str>,
        /// Every string the field holds.
        values: &'static [&'static str],
        /// The prefixes of the other strings it holds.
        prefixes: &'static [&'static str],
    },
    /// A glob that matches none of the strings the field holds.
    GlobMatchesNone {
        /// The event.
        event: &'static str,
        /// The field.
        field: &'static str,
        /// The glob as written.
        glob: String,
        /// Every string the field holds.
        values: &'static [&'static str],
        /// The prefixes of the other strings it holds.
        prefixes: &'static [&'static str],
    },
    /// An integer, or a range, outside what an integer field holds.
    OutOfBounds {
        /// The event.
        event: &'static str,
        /// The field.
        field: &'static str,
        /// The integer or the range, as written (`-1`, `{ max = -1 }`).
        written: String,
        /// The least value the field holds.
        min: i128,
        /// The greatest.
        max: i128,
    },
    /// An inline table that is neither `{ glob = … }` nor
    /// `{ min = …, max = … }`.
    BadTable,
    /// `{ min = …, max = … }` with a bound that is not a number
    /// (`{ min = "3" }`).
    BoundNotANumber {
        /// `min` or `max`.
        bound: &'static str,
    },
    /// `{ min = a, max = b }` with `a` above `b`.
    EmptyRange,
    /// `where.args = {}`: a filter on a tool call's arguments that names
    /// none.
    NoArg {
        /// The event field holding the arguments ([`ToolTable::args_field`](crate::ToolTable::args_field)).
        args_field: &'static str,
    },
    /// `where.args.<name>`, and a tool the hook's `where.tool` names (or,
    /// without it, some tool) takes no argument of that name.
    UnknownArg {
        /// A tool that takes no such argument.
        tool: &'static str,
        /// The argument as written.
        arg: String,
        /// The nearest argument the tool takes, when one is close.
        suggestion: Option<&'static str>,
        /// The arguments the tool takes.
        args: Vec<&'static str>,
        /// Whether the hook names its tools (`where.tool`); without it the
        /// argument must be one every tool takes.
        named: bool,
        /// The tools that take the argument.
        takers: Vec<&'static str>,
        /// The embedder's tools, whose field names the message uses.
        table: &'static super::tool_args::ToolTable,
    },
    /// `where.args.<name>` on a tool whose arguments, or this argument,
    /// are free-form: nothing declares their names and types.
    FreeFormArgs {
        /// The tool, or `prefix…` for the tools known only at run time.
        tool: String,
        /// The argument, for a tool that declares it free-form.
        arg: Option<&'static str>,
        /// Why, in the embedder's words.
        why: &'static str,
        /// The event field holding the tool's name.
        tool_field: &'static str,
    },
}

impl fmt::Display for WhereError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WhereError::NoOn => f.write_str(
                "`where` filters on fields of the events in `on`, and this hook has no `on`; \
                 add `on`, naming the events whose fields it filters",
            ),
            WhereError::NoOnFor { field, envelope } => write_no_on_for(f, field, envelope),
            WhereError::NoField => f.write_str(
                "`where = {}` names no field; name one or more, as in \
                 `where.<field> = \"value\"`, or leave `where` out",
            ),
            WhereError::UnknownField {
                event,
                field,
                suggestion,
                fields,
            } => {
                write!(f, "event `{event}` has no field `{field}`")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean `{s}`?)")?;
                }
                write_filterable(f, fields)
            }
            WhereError::NotFilterable {
                event,
                field,
                fields,
            } => {
                write_field(f, field, event)?;
                f.write_str(
                    " is free-form or nested, and a filter names only a field holding a \
                     string, a number or a bool",
                )?;
                write_filterable(f, fields)
            }
            WhereError::WrongType {
                event,
                field,
                kind,
                found,
            } => {
                write_field(f, field, event)?;
                write!(
                    f,
                    " is {}, and this is {found}; write {}",
                    kind.as_str(),
                    accepted(*kind)
                )
            }
            WhereError::EmptyList => f.write_str(
                "an empty list matches no value, so the hook could never fire; write a value, \
                 or a list of one or more",
            ),
            WhereError::NestedList => {
                f.write_str("a list of values holds no list; write one flat list")
            }
            WhereError::BadGlob { glob, reason } => write!(
                f,
                "`{glob}` is not a glob: {reason}; `*` matches any characters, `?` one, \
                 `[abc]` one of those, and the glob matches the whole value"
            ),
            WhereError::NoSuchValue { .. }
            | WhereError::GlobMatchesNone { .. }
            | WhereError::OutOfBounds { .. } => self.fmt_values(f),
            WhereError::BadTable | WhereError::BoundNotANumber { .. } | WhereError::EmptyRange => {
                self.fmt_table(f)
            }
            WhereError::NoArg { .. }
            | WhereError::UnknownArg { .. }
            | WhereError::FreeFormArgs { .. } => self.fmt_args(f),
        }
    }
}

impl WhereError {
    /// The message of a `{ glob = … }` or `{ min = …, max = … }` table that
    /// is not one.
    fn fmt_table(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WhereError::BoundNotANumber { bound } => write!(
                f,
                "`{bound}` must be a number, as `{{ {bound} = 3 }}`, not in quotes"
            ),
            WhereError::EmptyRange => {
                f.write_str("`min` is above `max`, so no value matches; swap them")
            }
            _ => f.write_str(
                "a field's table is `{ glob = \"…\" }` for a string, or `{ min = …, max = … }` \
                 (either or both) for a number",
            ),
        }
    }

    /// The message of a filter on a tool call's arguments.
    fn fmt_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WhereError::NoArg { args_field } => write!(
                f,
                "`{{}}` names no argument; name one or more, as in \
                 `where.{args_field}.<name> = \"…\"`, or leave it out"
            ),
            WhereError::FreeFormArgs {
                tool,
                arg,
                why,
                tool_field,
            } => {
                match arg {
                    Some(arg) => write!(f, "argument `{arg}` of `{tool}` is free-form")?,
                    None => write!(f, "the arguments of `{tool}` are free-form")?,
                }
                write!(
                    f,
                    " ({why}), and a filter names only an argument a tool declares with its \
                     type; narrow `where.{tool_field}` to tools that declare theirs, or read \
                     the arguments in a `run` hook's script"
                )
            }
            WhereError::UnknownArg { .. } => self.fmt_unknown_arg(f),
            _ => Ok(()),
        }
    }

    /// The message of an argument a tool does not take.
    fn fmt_unknown_arg(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let WhereError::UnknownArg {
            tool,
            arg,
            suggestion,
            args,
            named,
            takers,
            table,
        } = self
        else {
            return Ok(());
        };
        let (tool_field, args_field) = (table.tool_field, table.args_field);
        let arg = clipped(arg, SHOWN);
        write!(f, "tool `{tool}` takes no argument `{arg}`")?;
        if let Some(s) = suggestion {
            write!(f, " (did you mean `{s}`?)")?;
        }
        f.write_str("; its arguments are ")?;
        write_one_of(f, args)?;
        if !named {
            write!(
                f,
                "; without `where.{tool_field}`, `where.{args_field}` names only an argument \
                 every tool takes"
            )?;
        }
        if !takers.is_empty() {
            write!(f, "; name the tools that take it in `where.{tool_field}`: ")?;
            write_one_of(f, takers)?;
        }
        Ok(())
    }

    /// The message of a value the field can never hold: none of its known
    /// strings, or outside its integer type.
    fn fmt_values(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WhereError::OutOfBounds {
                event,
                field,
                written,
                min,
                max,
            } => {
                write_field(f, field, event)?;
                write!(
                    f,
                    " holds an integer from {min} to {max}, and `{}` is outside that range, so \
                     the hook could never fire",
                    clipped(written, SHOWN)
                )
            }
            WhereError::NoSuchValue {
                event,
                field,
                value,
                suggestion,
                values,
                prefixes,
            } => {
                write_holds(f, event, field, values, prefixes)?;
                write!(f, "`{}` is none of them", clipped(value, SHOWN))?;
                suggestion.map_or(Ok(()), |s| write!(f, " (did you mean `{s}`?)"))
            }
            WhereError::GlobMatchesNone {
                event,
                field,
                glob,
                values,
                prefixes,
            } => {
                write_holds(f, event, field, values, prefixes)?;
                let glob = clipped(glob, SHOWN);
                write!(
                    f,
                    "the glob `{glob}` matches none of them, so the hook could never fire"
                )
            }
            _ => Ok(()),
        }
    }
}

impl std::error::Error for WhereError {}

/// "field `f` of `e` holds one of `a`, `b`; ", with "or a string starting
/// with `p`" for each prefix.
fn write_holds(
    f: &mut fmt::Formatter<'_>,
    event: &str,
    field: &str,
    values: &[&str],
    prefixes: &[&str],
) -> fmt::Result {
    write_field(f, field, event)?;
    f.write_str(" holds ")?;
    if !values.is_empty() {
        f.write_str("one of ")?;
        write_one_of(f, values)?;
    }
    for (i, prefix) in prefixes.iter().enumerate() {
        let joint = match (i, values.is_empty()) {
            (0, true) => "",
            (0, false) => ", or ",
            _ => " or ",
        };
        write!(f, "{joint}a string starting with `{prefix}`")?;
    }
    f.write_str("; ")
}

/// A field that is not the envelope's, in a `where` without `on`; the
/// envelope's fields, which every event has.
fn write_no_on_for(f: &mut fmt::Formatter<'_>, field: &str, envelope: &[&str]) -> fmt::Result {
    write!(
        f,
        "`{}` is not a field every event has, and this hook has no `on`; add `on`, naming the \
         events whose field it is (without `on`, `where` names only ",
        clipped(field, SHOWN)
    )?;
    write_one_of(f, envelope)?;
    f.write_str(", which every event has)")
}

/// "field `f` of `e`", or "envelope field `f`" for a field of the
/// envelope (`event` empty), which every event has.
fn write_field(f: &mut fmt::Formatter<'_>, field: &str, event: &str) -> fmt::Result {
    match event {
        "" => write!(f, "envelope field `{field}`"),
        event => write!(f, "field `{field}` of `{event}`"),
    }
}

/// "; a filter on it may name `a`, `b`", or that it may name none.
fn write_filterable(f: &mut fmt::Formatter<'_>, fields: &[&str]) -> fmt::Result {
    if fields.is_empty() {
        f.write_str("; it has no field a filter may name")
    } else {
        f.write_str("; a filter on it may name ")?;
        write_one_of(f, fields)
    }
}

/// What a field of `kind` accepts, in words.
fn accepted(kind: FieldKind) -> &'static str {
    match kind {
        FieldKind::Str => "a string, a list of them, or `{ glob = \"…\" }`",
        FieldKind::Integer => "an integer, a list of them, or `{ min = …, max = … }`",
        FieldKind::Float => "a number, a list of them, or `{ min = …, max = … }`",
        FieldKind::Bool => "`true` or `false`",
        FieldKind::Other | FieldKind::Strings => "nothing: no filter may name it",
    }
}
