//! What an action's validator is given: a table's keys read but not yet
//! checked against each other ([`RawHook`]), and where the table is
//! ([`Cx`]), which makes the [`TableError`]s it answers with.

use std::ops::Range;
use std::path::Path;

use toml::Spanned;

use crate::key::HookKey;
use crate::table_error::{TableError, TableErrorKind};
use crate::r#where::RawWhere;

/// Where a table is, for an action's validator: its errors name the file,
/// the table (`hook[2]`) and the key.
pub(crate) struct Cx<'a> {
    /// The file's name, as an error puts it first.
    pub(crate) file: &'a str,
    /// The file's text, which positions are counted in.
    pub(crate) text: &'a str,
    /// The table's key path (`hook[2]`).
    pub(crate) at: &'a str,
    /// The table's span.
    pub(crate) span: Range<usize>,
    /// The directory relative paths are resolved against.
    pub(crate) root: &'a Path,
    /// The embedder's tools, for `where` on a call's arguments.
    pub(crate) tools: Option<&'static crate::r#where::ToolTable>,
}

impl Cx<'_> {
    /// An error at `key` of this table, at `span`.
    pub(crate) fn error(&self, key: &str, span: Range<usize>, kind: TableErrorKind) -> TableError {
        let key = format!("{}.{key}", self.at);
        TableError::at(self.file, self.text, Some(key), Some(span), kind)
    }

    /// An action's own refusal of the value of `key`, at `span`: `reason`
    /// says what is wrong and what is accepted, in the action's words.
    pub(crate) fn refusal(
        &self,
        key: &str,
        span: Range<usize>,
        action: &'static str,
        reason: impl std::fmt::Display,
    ) -> TableError {
        let kind = TableErrorKind::Action {
            action,
            reason: reason.to_string(),
        };
        self.error(key, span, kind)
    }

    /// An error about the table as a whole.
    pub(crate) fn table_error(&self, kind: TableErrorKind) -> TableError {
        let key = self.at.to_owned();
        TableError::at(
            self.file,
            self.text,
            Some(key),
            Some(self.span.clone()),
            kind,
        )
    }
}

/// An array of strings with its span, and each string's.
pub(crate) type Names = Spanned<Vec<Spanned<String>>>;

/// One table's keys, typed but not yet checked against each other, in the
/// order written.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawHook {
    values: Vec<(HookKey, Spanned<RawValue>)>,
}

/// A value of one of the [`Shape`](crate::key::Shape)s a key may have.
#[derive(Debug, Clone)]
pub(crate) enum RawValue {
    /// [`Shape::Strings`](crate::key::Shape::Strings): each string with its span.
    Strings(Vec<Spanned<String>>),
    /// [`Shape::Text`](crate::key::Shape::Text).
    Text(String),
    /// [`Shape::Int`](crate::key::Shape::Int).
    Int(i64),
    /// [`Shape::Bool`](crate::key::Shape::Bool).
    Bool(bool),
    /// [`Shape::Choice`](crate::key::Shape::Choice): the value, as listed in the shape.
    Choice(&'static str),
    /// [`Shape::Events`](crate::key::Shape::Events) given something other than an array: what it is,
    /// in serde's words (`string "x"`, ``integer `3` ``).
    NotArray(String),
    /// [`Shape::Where`](crate::key::Shape::Where): the `where` table as written.
    Where(RawWhere),
    /// [`Shape::Toml`](crate::key::Shape::Toml): the value as written.
    Toml(toml::Value),
}

impl RawHook {
    /// `key`'s value, read as written; a key appears once.
    pub(crate) fn push(&mut self, key: HookKey, value: Spanned<RawValue>) {
        self.values.push((key, value));
    }

    /// The keys present, in the order written.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &HookKey> + '_ {
        self.values.iter().map(|(key, _)| key)
    }

    /// The span of `name`'s value, when present.
    pub(crate) fn span(&self, name: &str) -> Option<Range<usize>> {
        self.values
            .iter()
            .find(|(key, _)| key.name == name)
            .map(|(_, value)| value.span())
    }

    /// `name`'s value as read, when present, taken out of the table.
    pub(crate) fn take(&mut self, name: &str) -> Option<Spanned<RawValue>> {
        self.take_keyed(name).map(|(_, value)| value)
    }

    /// `name`'s row and value as read, when present, taken out of the
    /// table.
    pub(crate) fn take_keyed(&mut self, name: &str) -> Option<(HookKey, Spanned<RawValue>)> {
        let at = self.values.iter().position(|(key, _)| key.name == name)?;
        Some(self.values.remove(at))
    }

    /// `name`'s value as `pick` reads it, with its span, when present.
    fn take_as<T>(&mut self, name: &str, pick: fn(RawValue) -> Option<T>) -> Option<Spanned<T>> {
        let value = self.take(name)?;
        let span = value.span();
        pick(value.into_inner()).map(|v| Spanned::new(span, v))
    }

    /// `name`'s event names, when present (and declared
    /// [`Shape::Events`](crate::key::Shape::Events)): `Err` with what was found instead of an array.
    pub(crate) fn take_events(&mut self, name: &str) -> Option<Result<Names, Spanned<String>>> {
        let value = self.take(name)?;
        let span = value.span();
        match value.into_inner() {
            RawValue::Strings(items) => Some(Ok(Spanned::new(span, items))),
            RawValue::NotArray(found) => Some(Err(Spanned::new(span, found))),
            _ => None,
        }
    }

    /// `name`'s integer, when present (and declared [`Shape::Int`](crate::key::Shape::Int)).
    pub(crate) fn take_int(&mut self, name: &str) -> Option<Spanned<i64>> {
        self.take_as(name, |v| match v {
            RawValue::Int(n) => Some(n),
            _ => None,
        })
    }

    /// `name`'s `where` table, when present (and declared [`Shape::Where`](crate::key::Shape::Where)).
    /// `name`'s string, when present (and declared [`Shape::Text`](crate::key::Shape::Text)).
    pub(crate) fn take_text(&mut self, name: &str) -> Option<Spanned<String>> {
        self.take_as(name, |v| match v {
            RawValue::Text(text) => Some(text),
            _ => None,
        })
    }

    /// `name`'s boolean, when present (and declared [`Shape::Bool`](crate::key::Shape::Bool)).
    pub(crate) fn take_bool(&mut self, name: &str) -> Option<Spanned<bool>> {
        self.take_as(name, |v| match v {
            RawValue::Bool(b) => Some(b),
            _ => None,
        })
    }

    /// `name`'s choice, when present, left in the table (for a validator
    /// whose key may not go with some value of another).
    pub(crate) fn choice(&self, name: &str) -> Option<&'static str> {
        self.values
            .iter()
            .find_map(|(key, value)| match value.get_ref() {
                RawValue::Choice(choice) if key.name == name => Some(*choice),
                _ => None,
            })
    }

    pub(crate) fn take_where(&mut self, name: &str) -> Option<Spanned<RawWhere>> {
        self.take_as(name, |v| match v {
            RawValue::Where(raw) => Some(raw),
            _ => None,
        })
    }

    /// `name`'s choice, when present (and declared [`Shape::Choice`](crate::key::Shape::Choice)).
    pub(crate) fn take_choice(&mut self, name: &str) -> Option<&'static str> {
        match self.take(name)?.into_inner() {
            RawValue::Choice(choice) => Some(choice),
            _ => None,
        }
    }
}
