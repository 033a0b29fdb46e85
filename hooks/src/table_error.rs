//! The one error type of both stages of loading a hook table, and the
//! reason half of its message: what the table module and every action's
//! validator answer with.

use std::fmt;
use std::ops::Range;

use crate::key::HOOK;
use crate::position::{SourceLine, clipped, line_column, toml_key, write_or_list};
use crate::registry::{FieldKind, UnknownEvent, write_one_of};

/// The most characters of a key or of a parser's message that an error
/// shows: either may quote the file (a key as written, a value serde
/// names), and a line of the file may be a megabyte long.
const SHOWN: usize = 200;

/// The most characters of a value of a `where` as written that a message
/// quotes.
const WHERE_SHOWN: usize = 80;

/// An error in a TOML file that holds hook tables.
///
/// Its `Display` is the whole message an operator reads: the file, then the
/// key path when there is one, then the reason (which says what is
/// accepted), then the line and column when the parser gave a position.
///
/// Its `Debug` is that message too, as written, not quoted: a `main` that
/// returns `Result<(), Box<dyn Error>>` (or `anyhow::Result`) prints an
/// error with `Debug`, and the operator then reads
/// `Error: app.toml: key `x`: …`, not the message again in quotes with its
/// backticks and quotes escaped. (As anyhow's own `Debug` does. The message
/// is already safe to print: what it quotes from the file is escaped.)
/// `{:#?}` shows the parts ([`file`](Self::file), [`key`](Self::key),
/// [`kind`](Self::kind), [`position`](Self::position)).
///
/// ```
/// let err = io_hooks::TomlFile::new("app.toml", "x = ?\n")
///     .deserialize::<toml::Table>()
///     .unwrap_err();
/// assert_eq!(format!("{err:?}"), err.to_string());
/// let boxed: Box<dyn std::error::Error> = err.clone().into();
/// assert_eq!(format!("Error: {boxed:?}"), format!("Error: {err}"));
/// assert!(format!("{err:#?}").starts_with("TableError {\n    file: \"app.toml\","));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct TableError(pub(crate) Box<ErrorInner>);

// Boxed: a config error is rare and the `Ok` side is what callers pass
// around, so it should not pay for the message's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ErrorInner {
    pub(crate) file: String,
    pub(crate) key: Option<String>,
    pub(crate) kind: TableErrorKind,
    pub(crate) position: Option<(usize, usize)>,
    pub(crate) source_line: Option<SourceLine>,
    pub(crate) span: Option<Range<usize>>,
}

impl TableError {
    /// An error at `key` of `file`, whose text is `text`, over the bytes
    /// `span` when there are some: the position and the source line are
    /// counted from its start.
    pub(crate) fn at(
        file: &str,
        text: &str,
        key: Option<String>,
        span: Option<Range<usize>>,
        kind: TableErrorKind,
    ) -> TableError {
        let span = span.map(|s| within(text, s));
        TableError(Box::new(ErrorInner {
            file: file.to_owned(),
            key,
            kind,
            position: span.as_ref().map(|s| line_column(text, s.start)),
            source_line: span.as_ref().map(|s| SourceLine::at(text, s.start)),
            span,
        }))
    }

    /// The file, as named to [`TomlFile::new`](crate::TomlFile::new).
    pub fn file(&self) -> &str {
        &self.0.file
    }

    /// The key path (`hook[2].on`, tables counted from 1); `None` for a
    /// syntax error, which has no key.
    pub fn key(&self) -> Option<&str> {
        self.0.key.as_deref()
    }

    /// What is wrong.
    pub fn kind(&self) -> &TableErrorKind {
        &self.0.kind
    }

    /// The line and column (each from 1; the column counts characters) the
    /// problem starts at, when the parser gave one.
    pub fn position(&self) -> Option<(usize, usize)> {
        self.0.position
    }

    /// The line the problem is on, cut around its column, when the parser
    /// gave a position: for a caller that shows it under the message. A
    /// caller that must not show the file (one it did not choose to read,
    /// as a symbolic link can make it) does not call this.
    pub fn source_line(&self) -> Option<&SourceLine> {
        self.0.source_line.as_ref()
    }

    /// The bytes of the text given to [`TomlFile`](crate::TomlFile) that
    /// the problem is about (a value, a key, a table, or where the parser
    /// stopped), when the parser gave a position: for a caller that
    /// underlines it, or hands it to a diagnostics crate (`ariadne`,
    /// `miette`, `codespan-reporting`). Its start is where
    /// [`position`](Self::position)'s line and column are; it lies within
    /// the text (`start <= end <= text.len()`).
    ///
    /// ```
    /// let text = "[[hook]]\non = [\"nope\"]\nappend = \"a\"\n";
    /// # #[derive(io_hooks::HookEvents)]
    /// # enum Ev { #[hook(tag = "done")] Done }
    /// let err = io_hooks::TomlFile::new("app.toml", text)
    ///     .hooks::<Ev>("/p".as_ref())
    ///     .unwrap_err();
    /// let span = err.span().expect("a span");
    /// assert_eq!(&text[span], "\"nope\"");
    /// ```
    pub fn span(&self) -> Option<Range<usize>> {
        self.0.span.clone()
    }
}

/// The `hook` array, as written, that the error at `key` is about, when
/// its message names the array (`[[hook]]`): `stage.apply.hook` for
/// `stage.apply.hook[1]`, and for `stage.apply.hooks`, a near miss of it.
/// `None` when the kind names no array, or the key is not in one.
fn array_of(key: &str, kind: &TableErrorKind) -> Option<String> {
    match kind {
        TableErrorKind::BothActions(_) => {
            let (array, n) = key.strip_suffix(']')?.rsplit_once('[')?;
            n.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| array.to_owned())
        }
        TableErrorKind::HiddenHooks {
            written,
            placed: true,
            ..
        }
        | TableErrorKind::StrayHookKey { written } => match key.strip_suffix(written.as_str())? {
            "" => Some(HOOK.to_owned()),
            section => Some(format!("{}.{HOOK}", section.strip_suffix('.')?)),
        },
        _ => None,
    }
}

/// `span` cut to lie within `text`, on character boundaries: a caller's
/// span ([`TableError::custom`]) may run past it.
fn within(text: &str, span: Range<usize>) -> Range<usize> {
    let mut start = span.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end.clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.0;
        write!(f, "{}: ", e.file)?;
        if let Some(key) = &e.key {
            write!(f, "key `{}`: ", clipped(key, SHOWN))?;
        }
        let array = e.key.as_deref().and_then(|key| array_of(key, &e.kind));
        let array = clipped(array.as_deref().unwrap_or(HOOK), SHOWN);
        e.kind.write(f, &array)?;
        if let Some((line, column)) = e.position {
            write!(f, " (line {line}, column {column})")?;
        }
        Ok(())
    }
}

impl fmt::Debug for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return fmt::Display::fmt(self, f);
        }
        f.debug_struct("TableError")
            .field("file", &self.0.file)
            .field("key", &self.0.key)
            .field("kind", &self.0.kind)
            .field("position", &self.0.position)
            .field("span", &self.0.span)
            .finish_non_exhaustive()
    }
}

/// `Display` states the whole reason, so `source()` returns nothing (see
/// the crate's error convention).
impl std::error::Error for TableError {}

/// What is wrong, without the file, key or position: the reason half of a
/// [`TableError`].
///
/// Not an [`Error`](std::error::Error) itself, as [`std::io::ErrorKind`] is
/// not: it is what a [`TableError`] is, for a caller that branches on it.
/// The error to return, print or chain is the [`TableError`], whose message
/// also names the file, the key and the position; this `Display` is the
/// reason alone.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableErrorKind {
    /// The text is not TOML; the parser's own description.
    Syntax(String),
    /// A value has the wrong type or shape; serde's description, which names
    /// what was found and what is accepted.
    Shape(String),
    /// A key a hook table does not have.
    UnknownKey {
        /// The key as written.
        key: String,
        /// The nearest valid key, when one is close.
        suggestion: Option<&'static str>,
        /// Every valid key.
        expected: Vec<&'static str>,
    },
    /// An event name the event enum does not emit.
    UnknownEvent(UnknownEvent),
    /// `on = []`: a hook that could never fire.
    NoEvents(&'static [&'static str]),
    /// A table with none of the action keys (neither `append` nor `run`):
    /// the action keys, one of which it needs.
    NoAction(Vec<&'static str>),
    /// A table with more than one of the action keys (both `append` and
    /// `run`): the action keys, one of which it needs.
    BothActions(Vec<&'static str>),
    /// A key that belongs to another action than this hook's, as
    /// `timeout_ms` (a `run` key) on an `append` hook.
    #[non_exhaustive]
    KeyOfOtherAction {
        /// The key as written.
        key: &'static str,
        /// The action key it belongs to (`run`): for a key of the engine's
        /// (`timeout_ms`, `background`), the first action that honours it.
        owner: &'static str,
        /// For a key of the engine's, the other actions that honour it, in
        /// the order the file's reader lists them (`webhook`).
        also: Vec<&'static str>,
        /// What this hook does, as in "this hook appends".
        verb: &'static str,
        /// Why the key has no meaning here, when there is more to say.
        why: Option<&'static str>,
    },
    /// A `hook` key in a file that arrives with a `git clone`
    /// ([`TomlFile::project`](crate::TomlFile::project)). The words are the
    /// file's [`Layout`](crate::Layout)'s.
    #[non_exhaustive]
    ProjectHooks {
        /// The file that arrives with a clone
        /// ([`Layout::project_file`](crate::Layout::project_file)); "this file" when `None`.
        project_file: Option<String>,
        /// Where hooks belong instead, as the message words it
        /// ([`Layout::get_operator_files`](crate::Layout::get_operator_files));
        /// "a file of the operator's own" when `None`.
        operator_files: Option<String>,
    },
    /// A key that would declare hooks where none are read, so that they
    /// would load as none: a near miss of `hook` (`hooks`, `Hook`) at the
    /// top level or in a body of one of the [`Layout`](crate::Layout)'s sections, or
    /// `hook` (or a near miss) holding a table or an array anywhere else
    /// (`[[ci.hook]]`).
    #[non_exhaustive]
    HiddenHooks {
        /// The key alone, as written.
        written: String,
        /// Whether it sits where hooks are read, and so is wrong only by
        /// its spelling.
        placed: bool,
        /// Where hooks are read besides the top level, which the message
        /// lists: each [`Layout`](crate::Layout) section's key and noun, as
        /// [`Layout::get_sections`](crate::Layout::get_sections) gives them.
        sections: Vec<(String, String)>,
    },
    /// `on_failure = "cancel"` on a hook whose every event is marked
    /// `#[hook(last)]` ([`HookEvents::LAST`](crate::HookEvents::LAST)):
    /// nothing follows them that a cancel could stop.
    #[non_exhaustive]
    CancelStopsNothing {
        /// The hook's events, every one of them last.
        events: Vec<&'static str>,
    },
    /// A key of a hook table (`on`, `append`) at the top level or in a
    /// body of one of the [`Layout`](crate::Layout)'s sections, outside any
    /// `[[hook]]` table: its header was left out, and the keys would
    /// declare no hook.
    #[non_exhaustive]
    StrayHookKey {
        /// The key alone, as written.
        written: String,
    },
    /// An event named twice in one `on`.
    RepeatedEvent(String),
    /// A `name` that is not a hook's name: empty, longer than 64
    /// characters, holding a character that does not print as itself (a
    /// control or invisible one, `"`, `\`), or digits alone.
    #[non_exhaustive]
    BadName {
        /// What is wrong and what is accepted; never the name itself.
        reason: String,
    },
    /// A `name` an earlier table of the same array has.
    #[non_exhaustive]
    RepeatedName {
        /// The name, as written.
        name: String,
        /// The key path of the table that has it first (`hook[1]`).
        first: String,
    },
    // Why a `where` is refused, at `hook[N].where` or `hook[N].where.<field>`.
    // A variant's `event` is empty for a field of the envelope, which every
    // event has ([`HookEvents::ENVELOPE`](crate::HookEvents::ENVELOPE)): its
    // message names it as `envelope field `depth``.
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
        table: &'static crate::r#where::ToolTable,
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
    /// An embedder's own check ([`TableError::custom`]): its message, as
    /// given.
    Custom(String),
    /// An action's own refusal of its table, as its module words it: every
    /// action (`append`'s empty path, `run`'s empty argv or bad
    /// `timeout_ms`) refuses a value of its own keys this way, and one added
    /// to the engine does without an edit here.
    #[non_exhaustive]
    Action {
        /// The action's key, as in `count`.
        action: &'static str,
        /// What is wrong and what is accepted, as the action's module says
        /// it.
        reason: String,
    },
}

/// The kind's own `Display` names the top-level array, `[[hook]]`, where a
/// message names the array its table is in; a [`TableError`] names the
/// one its key is in (`[[stage.apply.hook]]`).
impl fmt::Display for TableErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, HOOK)
    }
}

impl TableErrorKind {
    /// The reason, naming `array` (`hook`, `stage.apply.hook`) where it
    /// names the array of tables the error is in.
    fn write(&self, f: &mut fmt::Formatter<'_>, array: &str) -> fmt::Result {
        match self {
            TableErrorKind::Syntax(m) => write!(f, "not valid TOML: {}", clipped(m, SHOWN)),
            TableErrorKind::Shape(m) => f.write_str(&clipped(m, SHOWN)),
            TableErrorKind::UnknownKey {
                key,
                suggestion,
                expected,
            } => write_unknown_key(f, key, *suggestion, expected),
            TableErrorKind::UnknownEvent(e) => write_unknown_event(f, e),
            TableErrorKind::NoEvents(tags) => {
                f.write_str(
                    "`on = []` names no event, so the hook could never fire; \
                     leave `on` out for every event, or name one or more of ",
                )?;
                write_one_of(f, tags)
            }
            TableErrorKind::NoAction(keys) => {
                f.write_str("the table has ")?;
                write_action_keys(f, keys, ("neither", "nor"), "none of ")?;
                f.write_str("; a hook needs exactly one of them")
            }
            TableErrorKind::BothActions(keys) => {
                f.write_str("the table has ")?;
                write_action_keys(f, keys, ("both", "and"), "more than one of ")?;
                write!(
                    f,
                    "; a hook needs exactly one of them \
                     (write two `[[{array}]]` tables for two actions)"
                )
            }
            TableErrorKind::KeyOfOtherAction {
                key,
                owner,
                also,
                verb,
                why,
            } => write_key_of_other_action(f, key, owner, also, verb, *why),
            TableErrorKind::ProjectHooks {
                project_file,
                operator_files,
            } => write_project_hooks(f, project_file.as_deref(), operator_files.as_deref()),
            TableErrorKind::HiddenHooks {
                written,
                placed,
                sections,
            } => write_hidden_hooks(f, written, *placed, sections, array),
            TableErrorKind::CancelStopsNothing { events } => write_cancel_stops_nothing(f, events),
            TableErrorKind::StrayHookKey { written } => write_stray_key(f, written, array),
            TableErrorKind::RepeatedEvent(name) => {
                write!(f, "`{name}` is named twice; name each event once")
            }
            TableErrorKind::BadName { reason } => f.write_str(reason),
            TableErrorKind::RepeatedName { name, first } => write_repeated_name(f, name, first),
            TableErrorKind::NoOn
            | TableErrorKind::NoOnFor { .. }
            | TableErrorKind::NoField
            | TableErrorKind::UnknownField { .. }
            | TableErrorKind::NotFilterable { .. }
            | TableErrorKind::WrongType { .. }
            | TableErrorKind::EmptyList
            | TableErrorKind::NestedList
            | TableErrorKind::BadGlob { .. }
            | TableErrorKind::NoSuchValue { .. }
            | TableErrorKind::GlobMatchesNone { .. }
            | TableErrorKind::OutOfBounds { .. }
            | TableErrorKind::BadTable
            | TableErrorKind::BoundNotANumber { .. }
            | TableErrorKind::EmptyRange
            | TableErrorKind::NoArg { .. }
            | TableErrorKind::UnknownArg { .. }
            | TableErrorKind::FreeFormArgs { .. } => self.write_where(f),
            TableErrorKind::Custom(message) => f.write_str(message),
            TableErrorKind::Action { reason, .. } => f.write_str(reason),
        }
    }
}

/// Why a `where` is refused: the reason of the variants from
/// [`TableErrorKind::NoOn`] to [`TableErrorKind::FreeFormArgs`].
impl TableErrorKind {
    /// The reason a `where` is refused.
    fn write_where(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableErrorKind::NoOn => f.write_str(
                "`where` filters on fields of the events in `on`, and this hook has no `on`; \
                 add `on`, naming the events whose fields it filters",
            ),
            TableErrorKind::NoOnFor { field, envelope } => write_no_on_for(f, field, envelope),
            TableErrorKind::NoField => f.write_str(
                "`where = {}` names no field; name one or more, as in \
                 `where.<field> = \"value\"`, or leave `where` out",
            ),
            TableErrorKind::UnknownField {
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
            TableErrorKind::NotFilterable {
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
            TableErrorKind::WrongType {
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
            TableErrorKind::EmptyList => f.write_str(
                "an empty list matches no value, so the hook could never fire; write a value, \
                 or a list of one or more",
            ),
            TableErrorKind::NestedList => {
                f.write_str("a list of values holds no list; write one flat list")
            }
            TableErrorKind::BadGlob { glob, reason } => write!(
                f,
                "`{glob}` is not a glob: {reason}; `*` matches any characters, `?` one, \
                 `[abc]` one of those, and the glob matches the whole value"
            ),
            TableErrorKind::NoSuchValue { .. }
            | TableErrorKind::GlobMatchesNone { .. }
            | TableErrorKind::OutOfBounds { .. } => self.fmt_values(f),
            TableErrorKind::BadTable
            | TableErrorKind::BoundNotANumber { .. }
            | TableErrorKind::EmptyRange => self.fmt_table(f),
            // `NoArg`, `UnknownArg`, `FreeFormArgs`: a filter on a tool
            // call's arguments (`write` gives no other kind).
            _ => self.fmt_args(f),
        }
    }

    /// The message of a `{ glob = … }` or `{ min = …, max = … }` table that
    /// is not one.
    fn fmt_table(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableErrorKind::BoundNotANumber { bound } => write!(
                f,
                "`{bound}` must be a number, as `{{ {bound} = 3 }}`, not in quotes"
            ),
            TableErrorKind::EmptyRange => {
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
            TableErrorKind::NoArg { args_field } => write!(
                f,
                "`{{}}` names no argument; name one or more, as in \
                 `where.{args_field}.<name> = \"…\"`, or leave it out"
            ),
            TableErrorKind::FreeFormArgs {
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
            TableErrorKind::UnknownArg { .. } => self.fmt_unknown_arg(f),
            _ => Ok(()),
        }
    }

    /// The message of an argument a tool does not take.
    fn fmt_unknown_arg(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let TableErrorKind::UnknownArg {
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
        let arg = clipped(arg, WHERE_SHOWN);
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
            TableErrorKind::OutOfBounds {
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
                    clipped(written, WHERE_SHOWN)
                )
            }
            TableErrorKind::NoSuchValue {
                event,
                field,
                value,
                suggestion,
                values,
                prefixes,
            } => {
                write_holds(f, event, field, values, prefixes)?;
                write!(f, "`{}` is none of them", clipped(value, WHERE_SHOWN))?;
                suggestion.map_or(Ok(()), |s| write!(f, " (did you mean `{s}`?)"))
            }
            TableErrorKind::GlobMatchesNone {
                event,
                field,
                glob,
                values,
                prefixes,
            } => {
                write_holds(f, event, field, values, prefixes)?;
                let glob = clipped(glob, WHERE_SHOWN);
                write!(
                    f,
                    "the glob `{glob}` matches none of them, so the hook could never fire"
                )
            }
            _ => Ok(()),
        }
    }
}

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
        clipped(field, WHERE_SHOWN)
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

/// An unknown event, its name cut to what a message shows.
fn write_unknown_event(f: &mut fmt::Formatter<'_>, e: &UnknownEvent) -> fmt::Result {
    match clipped(&e.name, SHOWN) {
        std::borrow::Cow::Borrowed(_) => write!(f, "{e}"),
        std::borrow::Cow::Owned(name) => write!(f, "{}", UnknownEvent { name, ..e.clone() }),
    }
}

/// An engine key on a hook whose action does not honour it: the actions
/// that do (`owner`, then `also`), what this hook does (`verb`), and why.
fn write_key_of_other_action(
    f: &mut fmt::Formatter<'_>,
    key: &str,
    owner: &str,
    also: &[&str],
    verb: &str,
    why: Option<&str>,
) -> fmt::Result {
    write!(f, "`{key}` applies only to a ")?;
    let owners: Vec<&str> = std::iter::once(owner).chain(also.iter().copied()).collect();
    write_or_list(f, &owners, "`", "`")?;
    write!(f, " hook, and this hook {verb}")?;
    if let Some(why) = why {
        write!(f, " ({why})")?;
    }
    f.write_str("; remove it")
}

/// A name an earlier table of the array has: which, and whose.
fn write_repeated_name(f: &mut fmt::Formatter<'_>, name: &str, first: &str) -> fmt::Result {
    write!(
        f,
        "`name = \"{name}\"` is already {first}'s name; give each hook of the array a name of \
         its own"
    )
}

/// A cancel on events nothing follows: which, and the two ways out.
fn write_cancel_stops_nothing(f: &mut fmt::Formatter<'_>, events: &[&str]) -> fmt::Result {
    f.write_str("`on_failure = \"cancel\"` could never stop anything: nothing follows ")?;
    write_or_list(f, events, "`", "`")?;
    f.write_str(match events.len() {
        1 => ", the one event in `on`,",
        _ => ", the events in `on`,",
    })?;
    f.write_str(
        " that a cancel could stop; write `on_failure = \"continue\"` (or leave it out) to \
         have its failure reported, or name in `on` an event that comes before the work a \
         cancel should stop",
    )
}

/// A hook table's key `written` outside any table, and the header of
/// `array` to write above it.
fn write_stray_key(f: &mut fmt::Formatter<'_>, written: &str, array: &str) -> fmt::Result {
    write!(
        f,
        "`{written}` is a key of a hook table, and it is written outside any, so it declares no \
         hook and the file would load as no hooks at all; write `[[{array}]]` on the line above \
         it"
    )
}

/// A key a hook table does not have, the nearest one, and every one.
fn write_unknown_key(
    f: &mut fmt::Formatter<'_>,
    key: &str,
    suggestion: Option<&str>,
    expected: &[&str],
) -> fmt::Result {
    write!(f, "unknown key `{}`", clipped(key, SHOWN))?;
    if let Some(s) = suggestion {
        write!(f, " (did you mean `{s}`?)")?;
    }
    f.write_str("; a hook table takes ")?;
    write_one_of(f, expected)
}

/// The project-scope refusal, in the embedder's words when it gave them.
fn write_project_hooks(
    f: &mut fmt::Formatter<'_>,
    project_file: Option<&str>,
    operator_files: Option<&str>,
) -> fmt::Result {
    f.write_str(
        "a project-scoped file may not declare hooks, because a hook runs or writes on \
         this machine and ",
    )?;
    match project_file {
        Some(name) => write!(f, "`{name}`")?,
        None => f.write_str("this file")?,
    }
    write!(
        f,
        " arrives with a `git clone`. Write it in {} instead.",
        operator_files.unwrap_or("a file of the operator's own")
    )
}

/// A key that would hide hooks: misspelt where hooks are read (`placed`),
/// as `array` would be spelt, or out of place, with every place hooks are
/// read.
fn write_hidden_hooks(
    f: &mut fmt::Formatter<'_>,
    written: &str,
    placed: bool,
    sections: &[(String, String)],
    array: &str,
) -> fmt::Result {
    if placed {
        return write!(
            f,
            "did you mean `hook`? Hooks are declared only as `[[{array}]]` tables, so \
             `{written}` would load as no hooks at all"
        );
    }
    f.write_str(if written == HOOK {
        "hooks"
    } else {
        "did you mean `hook`? Hooks"
    })?;
    f.write_str(" are declared only ")?;
    write_places(f, sections)?;
    write!(f, ", so `{written}` here would load as no hooks at all")
}

/// "at the top level (`[[hook]]`) or in a target
/// (`[[target.<name>.hook]]`)", one place per section.
fn write_places(f: &mut fmt::Formatter<'_>, sections: &[(String, String)]) -> fmt::Result {
    let places: Vec<String> = std::iter::once("at the top level (`[[hook]]`)".to_owned())
        .chain(
            sections
                .iter()
                .map(|(key, noun)| format!("in {noun} (`[[{}.<name>.hook]]`)", toml_key(key))),
        )
        .collect();
    let places: Vec<&str> = places.iter().map(String::as_str).collect();
    write_or_list(f, &places, "", "")
}

/// The action keys: "neither `append` nor `run`" for two (`two` gives the
/// words), "none of `a`, `b` or `c`" for more (`many` gives the lead).
fn write_action_keys(
    f: &mut fmt::Formatter<'_>,
    keys: &[&str],
    two: (&str, &str),
    many: &str,
) -> fmt::Result {
    match keys {
        [a, b] => write!(f, "{} `{a}` {} `{b}`", two.0, two.1),
        keys => {
            f.write_str(many)?;
            write_or_list(f, keys, "`", "`")
        }
    }
}
