//! The one error type of both stages of loading a hook table, and the
//! reason half of its message: what the table module and every action's
//! validator answer with.

use std::fmt;
use std::ops::Range;

use crate::key::HOOK;
use crate::position::{SourceLine, clipped, line_column, toml_key, write_or_list};
use crate::registry::{UnknownEvent, write_one_of};

/// The most characters of a key or of a parser's message that an error
/// shows: either may quote the file (a key as written, a value serde
/// names), and a line of the file may be a megabyte long.
const SHOWN: usize = 200;

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
    /// A `where` that is refused: why.
    Where(crate::r#where::WhereError),
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
            TableErrorKind::UnknownEvent(e) => match clipped(&e.name, SHOWN) {
                std::borrow::Cow::Borrowed(_) => write!(f, "{e}"),
                std::borrow::Cow::Owned(name) => {
                    write!(f, "{}", UnknownEvent { name, ..e.clone() })
                }
            },
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
            } => {
                write!(f, "`{key}` applies only to a ")?;
                let owners: Vec<&str> = std::iter::once(*owner)
                    .chain(also.iter().copied())
                    .collect();
                write_or_list(f, &owners, "`", "`")?;
                write!(f, " hook, and this hook {verb}")?;
                if let Some(why) = why {
                    write!(f, " ({why})")?;
                }
                f.write_str("; remove it")
            }
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
            TableErrorKind::Where(e) => write!(f, "{e}"),
            TableErrorKind::Custom(message) => f.write_str(message),
            TableErrorKind::Action { reason, .. } => f.write_str(reason),
        }
    }
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
