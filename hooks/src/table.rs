//! `[[hook]]` tables: parsed strictly from TOML into [`HookSpec`]s.
//!
//! Two stages, each with its own kind of error. **Deserialization** (serde,
//! with `deny_unknown_fields` and [`toml::Spanned`]) settles the shape: the
//! keys a table may have and the type of each value; `serde_path_to_error`
//! says where. **Validation** then settles the meaning: exactly one of
//! `append` and `run`, a program to run, events that exist, a timeout that
//! applies. Both stages report through one [`TableError`], whose `Display`
//! is the operator's message:
//!
//! ```text
//! io.local.toml: key `hook[2].on`: unknown event `stepp` (did you mean `step`?); expected one of `started`, `step` (line 5, column 7)
//! ```
//!
//! The file comes first, then the key path, then what is wrong and what is
//! accepted, then the line and column. Tables are counted **from 1**:
//! `hook[2]` is the second `[[hook]]` in the file, which is how an operator
//! counts them.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_path_to_error::Segment;
use toml::Spanned;

use crate::registry::{HookEvents, HookFilter, UnknownEvent, did_you_mean, write_one_of};
use crate::spec::{Action, HookSpec, OnFailure};

/// The keys a `[[hook]]` table may hold, in the order the spec lists them.
pub const HOOK_KEYS: &[&str] = &["on", "append", "run", "on_failure", "timeout_ms"];

/// One TOML file, named for error messages.
///
/// `name` is what an error puts first: a path as the operator would
/// recognise it (`io.local.toml`, `/home/me/.config/io/io.toml`).
///
/// ```
/// use io_hooks::{HookEvents, TomlFile};
/// use std::path::Path;
///
/// #[derive(HookEvents)]
/// enum Ev {
///     #[hook(tag = "started")]
///     Started,
///     #[hook(tag = "step")]
///     Step,
/// }
///
/// let text = "[[hook]]\non = [\"step\"]\nappend = \"audit.jsonl\"\n";
/// let hooks = TomlFile::new("io.local.toml", text)
///     .hooks::<Ev>(Path::new("/work/project"))?
///     .expect("the file declares `hook`");
/// assert_eq!(hooks.len(), 1);
///
/// let text = "[[hook]]\non = [\"stepp\"]\nappend = \"audit.jsonl\"\n";
/// let err = TomlFile::new("io.local.toml", text)
///     .hooks::<Ev>(Path::new("/work/project"))
///     .unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "io.local.toml: key `hook[1].on`: unknown event `stepp` (did you mean `step`?); \
///      expected one of `started`, `step` (line 2, column 7)"
/// );
/// # Ok::<(), io_hooks::TableError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TomlFile<'a> {
    name: &'a str,
    text: &'a str,
}

impl<'a> TomlFile<'a> {
    /// The file called `name` (for messages) holding `text`.
    pub fn new(name: &'a str, text: &'a str) -> Self {
        TomlFile { name, text }
    }

    /// The name errors put first.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// The file's text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Deserializes the whole document into `T`, tracking the key path.
    ///
    /// This is how a caller with a larger document (one that embeds
    /// [`HookTables`] beside keys of its own) gets errors in the same shape as
    /// the hook tables': file, key path (arrays counted from 1), reason, line
    /// and column.
    ///
    /// # Errors
    /// A [`TableError`]: the text is not TOML, or does not have `T`'s shape.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, TableError> {
        let de = toml::de::Deserializer::parse(self.text).map_err(|e| self.syntax_error(&e))?;
        serde_path_to_error::deserialize(de).map_err(|e| self.shape_error(&e))
    }

    /// The top-level `hook` array of this file, checked and typed; `None`
    /// when the file has no `hook` key at all. Other keys are ignored.
    ///
    /// `root` is the discovery root: a relative `append` path is resolved
    /// against it, and an absolute one is kept.
    ///
    /// # Errors
    /// The first problem in the file, as a [`TableError`].
    pub fn hooks<E: HookEvents>(
        &self,
        root: &Path,
    ) -> Result<Option<Vec<HookSpec<E>>>, TableError> {
        #[derive(Deserialize)]
        struct Doc {
            hook: Option<HookTables>,
        }
        let doc: Doc = self.deserialize()?;
        doc.hook
            .map(|tables| tables.into_specs(self, "hook", root))
            .transpose()
    }

    fn syntax_error(&self, e: &toml::de::Error) -> TableError {
        TableError(Box::new(ErrorInner {
            file: self.name.to_owned(),
            key: None,
            kind: TableErrorKind::Syntax(e.message().trim_end().to_owned()),
            position: e.span().map(|s| line_column(self.text, s.start)),
        }))
    }

    fn shape_error(&self, e: &serde_path_to_error::Error<toml::de::Error>) -> TableError {
        let inner = e.inner();
        let message = inner.message().trim_end();
        let segments = key_segments(e.path());
        let key = render_key(&segments);
        let kind = match segments.as_slice() {
            // `deny_unknown_fields` on a hook table is the only source of
            // "unknown field" in a table of an array, and
            // serde_path_to_error ends the path with the key it was reading,
            // so the key comes from the path rather than from picking apart
            // serde's message.
            [.., KeySegment::Nth(_), KeySegment::Key(k)]
                if message.starts_with("unknown field") && !HOOK_KEYS.contains(&k.as_str()) =>
            {
                TableErrorKind::UnknownKey {
                    suggestion: did_you_mean(k, HOOK_KEYS.iter().copied()),
                    key: k.clone(),
                    expected: HOOK_KEYS,
                }
            }
            _ => TableErrorKind::Shape(message.to_owned()),
        };
        TableError(Box::new(ErrorInner {
            file: self.name.to_owned(),
            key: Some(key),
            kind,
            position: inner.span().map(|s| line_column(self.text, s.start)),
        }))
    }

    fn error(&self, key: String, span: std::ops::Range<usize>, kind: TableErrorKind) -> TableError {
        TableError(Box::new(ErrorInner {
            file: self.name.to_owned(),
            key: Some(key),
            kind,
            position: Some(line_column(self.text, span.start)),
        }))
    }
}

/// A `hook` array as written: deserialized, not yet validated.
///
/// Embed it in a larger `#[derive(Deserialize)]` document as
/// `hook: Option<HookTables>`, deserialize that with
/// [`TomlFile::deserialize`], then call [`into_specs`](Self::into_specs).
///
/// ```
/// use io_hooks::{HookEvents, HookTables, TomlFile};
/// use serde::Deserialize;
/// use std::path::Path;
///
/// #[derive(HookEvents)]
/// enum Ev {
///     #[hook(tag = "finished")]
///     Finished,
/// }
///
/// #[derive(Deserialize)]
/// struct Doc {
///     hook: Option<HookTables>,
///     model: Option<String>, // a key of the caller's own
/// }
///
/// let file = TomlFile::new("io.local.toml", "model = \"m\"\n[[hook]]\nrun = [\"notify\"]\n");
/// let doc: Doc = file.deserialize()?;
/// let hooks = doc.hook.unwrap().into_specs::<Ev>(&file, "hook", Path::new("/p"))?;
/// assert_eq!(hooks.len(), 1);
/// # Ok::<(), io_hooks::TableError>(())
/// ```
#[derive(Debug, Clone)]
pub struct HookTables {
    tables: Vec<Spanned<HookTable>>,
}

impl HookTables {
    /// How many tables the array holds.
    pub fn len(&self) -> usize {
        self.tables.len()
    }

    /// Whether the array is empty (`hook = []`): a declaration of no hooks,
    /// which still replaces the hooks of an earlier scope.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// Validates every table, in the order written, into a [`HookSpec`].
    ///
    /// `key` is the array's key path as an operator would write it (`hook`,
    /// or `profile.ci.hook`); errors name a table as `` `{key}[N]` ``,
    /// counting from 1. `root` is the discovery root that relative `append`
    /// paths are resolved against.
    ///
    /// # Errors
    /// The first table that fails, as a [`TableError`].
    pub fn into_specs<E: HookEvents>(
        self,
        file: &TomlFile<'_>,
        key: &str,
        root: &Path,
    ) -> Result<Vec<HookSpec<E>>, TableError> {
        self.tables
            .into_iter()
            .enumerate()
            .map(|(i, table)| validate(table, &format!("{key}[{}]", i + 1), file, root))
            .collect()
    }
}

impl<'de> Deserialize<'de> for HookTables {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HookTables;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of hook tables, written `[[hook]]`")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HookTables, A::Error> {
                let mut tables = Vec::new();
                while let Some(t) = seq.next_element()? {
                    tables.push(t);
                }
                Ok(HookTables { tables })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<HookTables, A::Error> {
                Err(found_table(map, &self))
            }
        }
        d.deserialize_seq(V)
    }
}

/// One element of the `hook` array: a table, and only a table.
///
/// A derived struct also accepts a sequence, filling its fields by position,
/// so `hook = [[["step"], "audit.jsonl"]]` would otherwise load as a hook
/// with `on` and `append`. This wrapper asks for a map and hands that map to
/// the derived impl, which keeps `deny_unknown_fields` doing its job.
#[derive(Debug, Clone)]
struct HookTable(RawHook);

impl<'de> Deserialize<'de> for HookTable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HookTable;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a hook table, with `append` or `run` and optionally `on`, `on_failure`, `timeout_ms`",
                )
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<HookTable, A::Error> {
                RawHook::deserialize(de::value::MapAccessDeserializer::new(map)).map(HookTable)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<HookTable, A::Error> {
                Err(found_array(&self))
            }
        }
        d.deserialize_map(V)
    }
}

/// One table's keys, typed but not yet checked against each other.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHook {
    on: Option<Spanned<Strings<EventNoun>>>,
    append: Option<Spanned<Text<PathNoun>>>,
    run: Option<Spanned<Strings<ArgvNoun>>>,
    on_failure: Option<RawOnFailure>,
    timeout_ms: Option<Spanned<Millis>>,
}

/// What a value is called in a type error; lets one visitor serve each key.
trait Noun {
    const EXPECTING: &'static str;
}
/// What an element of an array is called in a type error.
trait ArrayNoun: Noun {
    type Item: Noun;
}

#[derive(Debug, Clone)]
struct EventNoun;
impl Noun for EventNoun {
    const EXPECTING: &'static str = "an array of event names, as in `on = [\"step\"]`";
}
impl ArrayNoun for EventNoun {
    type Item = EventNameNoun;
}
#[derive(Debug, Clone)]
struct EventNameNoun;
impl Noun for EventNameNoun {
    const EXPECTING: &'static str = "an event name, a string";
}

#[derive(Debug, Clone)]
struct ArgvNoun;
impl Noun for ArgvNoun {
    const EXPECTING: &'static str =
        "an argv array, program first, as in `run = [\"cargo\", \"fmt\"]` (there is no shell)";
}
impl ArrayNoun for ArgvNoun {
    type Item = ArgNoun;
}
#[derive(Debug, Clone)]
struct ArgNoun;
impl Noun for ArgNoun {
    const EXPECTING: &'static str = "a program or an argument, a string";
}

#[derive(Debug, Clone)]
struct PathNoun;
impl Noun for PathNoun {
    const EXPECTING: &'static str = "a file path, as in `append = \"audit.jsonl\"`";
}

/// The type error for a table where something else belongs, in TOML's
/// words: serde would say "map".
///
/// The toml crate hands a date-time to a visitor as a one-entry map under a
/// private key, so a key with toml's private prefix is named as the
/// date-time it is; should that convention change, the message degrades to
/// "table", which is still true of the value's shape. Only `next_key` and
/// `next_value` are called, and a failure of either is discarded, so the
/// key path stays the value's own.
fn found_table<'de, A: MapAccess<'de>>(mut map: A, expected: &dyn de::Expected) -> A::Error {
    let found = match map.next_key::<String>() {
        Ok(Some(key)) if key.starts_with(TOML_PRIVATE) => match map.next_value::<String>() {
            Ok(datetime) => format!("date-time `{datetime}`"),
            Err(_) => "date-time".to_owned(),
        },
        _ => "table".to_owned(),
    };
    de::Error::invalid_type(de::Unexpected::Other(&found), expected)
}

/// The prefix of the toml crate's private keys (its date-time).
const TOML_PRIVATE: &str = "$__toml_private";
/// The prefix of `serde_spanned`'s private keys ([`Spanned`]).
const SPANNED_PRIVATE: &str = "$__serde_spanned_private";

/// The type error for an array where something else belongs: serde would
/// say "sequence".
fn found_array<Er: de::Error>(expected: &dyn de::Expected) -> Er {
    Er::invalid_type(de::Unexpected::Other("array"), expected)
}

/// An array of strings, each with its span.
#[derive(Debug, Clone)]
struct Strings<N: ArrayNoun> {
    items: Vec<Spanned<Text<N::Item>>>,
}

impl<N: ArrayNoun> Strings<N> {
    fn into_strings(self) -> Vec<Spanned<String>> {
        self.items
            .into_iter()
            .map(|s| {
                let span = s.span();
                Spanned::new(span, s.into_inner().text)
            })
            .collect()
    }
}

impl<'de, N: ArrayNoun> Deserialize<'de> for Strings<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<N>(PhantomData<N>);
        impl<'de, N: ArrayNoun> Visitor<'de> for V<N> {
            type Value = Strings<N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(N::EXPECTING)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strings<N>, A::Error> {
                let mut items = Vec::new();
                while let Some(s) = seq.next_element()? {
                    items.push(s);
                }
                Ok(Strings { items })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Strings<N>, A::Error> {
                Err(found_table(map, &self))
            }
        }
        d.deserialize_seq(V(PhantomData))
    }
}

/// A string, with a type error that says what the string is for.
#[derive(Debug, Clone)]
struct Text<N> {
    text: String,
    noun: PhantomData<N>,
}

impl<'de, N: Noun> Deserialize<'de> for Text<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<N>(PhantomData<N>);
        impl<'de, N: Noun> Visitor<'de> for V<N> {
            type Value = Text<N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(N::EXPECTING)
            }
            fn visit_str<Er: de::Error>(self, v: &str) -> Result<Text<N>, Er> {
                Ok(Text {
                    text: v.to_owned(),
                    noun: PhantomData,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Text<N>, A::Error> {
                Err(found_table(map, &self))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Text<N>, A::Error> {
                Err(found_array(&self))
            }
        }
        d.deserialize_str(V(PhantomData))
    }
}

/// `timeout_ms` as written: any integer, so that `0` and `-5` reach the
/// validator's own message rather than a type error.
#[derive(Debug, Clone, Copy)]
struct Millis(i64);

impl<'de> Deserialize<'de> for Millis {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Millis;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whole number of milliseconds, at least 1, as in `timeout_ms = 2000`")
            }
            fn visit_i64<Er: de::Error>(self, v: i64) -> Result<Millis, Er> {
                Ok(Millis(v))
            }
            fn visit_u64<Er: de::Error>(self, v: u64) -> Result<Millis, Er> {
                // TOML integers are i64; saturate rather than fail on a
                // deserializer that hands out larger ones.
                Ok(Millis(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Millis, A::Error> {
                Err(found_table(map, &self))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Millis, A::Error> {
                Err(found_array(&self))
            }
        }
        d.deserialize_i64(V)
    }
}

/// `on_failure` as written.
#[derive(Debug, Clone, Copy)]
struct RawOnFailure(OnFailure);

impl<'de> Deserialize<'de> for RawOnFailure {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawOnFailure;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`\"continue\"` or `\"cancel\"`")
            }
            fn visit_str<Er: de::Error>(self, v: &str) -> Result<RawOnFailure, Er> {
                match v {
                    "continue" => Ok(RawOnFailure(OnFailure::Continue)),
                    "cancel" => Ok(RawOnFailure(OnFailure::Cancel)),
                    _ => Err(Er::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawOnFailure, A::Error> {
                Err(found_table(map, &self))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<RawOnFailure, A::Error> {
                Err(found_array(&self))
            }
        }
        d.deserialize_str(V)
    }
}

/// Checks one table's keys against each other and against `E`.
///
/// The order of the checks is the order an operator reads a table in: which
/// events, then which action, then the action's details.
fn validate<E: HookEvents>(
    table: Spanned<HookTable>,
    at: &str,
    file: &TomlFile<'_>,
    root: &Path,
) -> Result<HookSpec<E>, TableError> {
    let table_span = table.span();
    let HookTable(raw) = table.into_inner();
    let key = |k: &str| format!("{at}.{k}");

    let on = match raw.on {
        None => HookFilter::ALL,
        Some(on) => {
            let span = on.span();
            let names = on.into_inner().into_strings();
            if names.is_empty() {
                return Err(file.error(key("on"), span, TableErrorKind::NoEvents(E::TAGS)));
            }
            let mut filter = HookFilter::EMPTY;
            for name in &names {
                match HookFilter::<E>::from_names([name.get_ref()]) {
                    Ok(one) => filter = filter.union(one),
                    Err(unknown) => {
                        return Err(file.error(
                            key("on"),
                            name.span(),
                            TableErrorKind::UnknownEvent(unknown),
                        ));
                    }
                }
            }
            filter
        }
    };

    let action = match (raw.append, raw.run) {
        (None, None) => {
            return Err(file.error(at.to_owned(), table_span, TableErrorKind::NoAction));
        }
        (Some(_), Some(_)) => {
            return Err(file.error(at.to_owned(), table_span, TableErrorKind::BothActions));
        }
        (Some(append), None) => {
            if let Some(t) = raw.timeout_ms {
                return Err(file.error(
                    key("timeout_ms"),
                    t.span(),
                    TableErrorKind::TimeoutOnAppend,
                ));
            }
            let span = append.span();
            let path = append.into_inner().text;
            if path.is_empty() {
                return Err(file.error(key("append"), span, TableErrorKind::EmptyPath));
            }
            if path.contains('\0') {
                return Err(file.error(key("append"), span, TableErrorKind::NulInPath));
            }
            // `join` keeps an absolute path as it is.
            Action::Append {
                path: root.join(PathBuf::from(path)),
            }
        }
        (None, Some(run)) => {
            let span = run.span();
            let argv = run.into_inner().into_strings();
            match argv.first() {
                None => {
                    return Err(file.error(
                        key("run"),
                        span,
                        TableErrorKind::NoProgram { empty_array: true },
                    ));
                }
                Some(program) if program.get_ref().is_empty() => {
                    return Err(file.error(
                        key("run"),
                        program.span(),
                        TableErrorKind::NoProgram { empty_array: false },
                    ));
                }
                Some(_) => {}
            }
            if let Some(bad) = argv.iter().position(|a| a.get_ref().contains('\0')) {
                return Err(file.error(
                    key("run"),
                    argv[bad].span(),
                    TableErrorKind::NulInArgument { index: bad + 1 },
                ));
            }
            let timeout = match raw.timeout_ms {
                None => crate::spec::DEFAULT_TIMEOUT,
                Some(t) => {
                    let span = t.span();
                    let Millis(ms) = t.into_inner();
                    match u64::try_from(ms) {
                        Ok(ms) if ms >= 1 => Duration::from_millis(ms),
                        _ => {
                            return Err(file.error(
                                key("timeout_ms"),
                                span,
                                TableErrorKind::BadTimeout(ms),
                            ));
                        }
                    }
                }
            };
            Action::Run {
                argv: argv.into_iter().map(Spanned::into_inner).collect(),
                timeout,
            }
        }
    };

    Ok(HookSpec {
        on,
        action,
        on_failure: raw.on_failure.map(|f| f.0).unwrap_or_default(),
    })
}

/// An error in a TOML file that holds hook tables.
///
/// Its `Display` is the whole message an operator reads: the file, then the
/// key path when there is one, then the reason (which says what is
/// accepted), then the line and column when the parser gave a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError(Box<ErrorInner>);

// Boxed: a config error is rare and the `Ok` side is what callers pass
// around, so it should not pay for the message's size.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ErrorInner {
    file: String,
    key: Option<String>,
    kind: TableErrorKind,
    position: Option<(usize, usize)>,
}

impl TableError {
    /// The file, as named to [`TomlFile::new`].
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
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.0;
        write!(f, "{}: ", e.file)?;
        if let Some(key) = &e.key {
            write!(f, "key `{key}`: ")?;
        }
        write!(f, "{}", e.kind)?;
        if let Some((line, column)) = e.position {
            write!(f, " (line {line}, column {column})")?;
        }
        Ok(())
    }
}

impl std::error::Error for TableError {}

/// What is wrong, without the file, key or position: the reason half of a
/// [`TableError`].
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
        expected: &'static [&'static str],
    },
    /// An event name the event enum does not emit.
    UnknownEvent(UnknownEvent),
    /// `on = []`: a hook that could never fire.
    NoEvents(&'static [&'static str]),
    /// A table with neither `append` nor `run`.
    NoAction,
    /// A table with both `append` and `run`.
    BothActions,
    /// `run = []` (`empty_array`) or `run = ["", …]`.
    NoProgram {
        /// Whether the array was empty, rather than its first element.
        empty_array: bool,
    },
    /// A `run` element holding a NUL character.
    NulInArgument {
        /// The element's position in `run`, from 1.
        index: usize,
    },
    /// `append = ""`.
    EmptyPath,
    /// An `append` path holding a NUL character.
    NulInPath,
    /// `timeout_ms` on an `append` hook.
    TimeoutOnAppend,
    /// `timeout_ms` below 1.
    BadTimeout(i64),
}

impl fmt::Display for TableErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableErrorKind::Syntax(m) => write!(f, "not valid TOML: {m}"),
            TableErrorKind::Shape(m) => f.write_str(m),
            TableErrorKind::UnknownKey {
                key,
                suggestion,
                expected,
            } => {
                write!(f, "unknown key `{key}`")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean `{s}`?)")?;
                }
                f.write_str("; a hook table takes ")?;
                write_one_of(f, expected)
            }
            TableErrorKind::UnknownEvent(e) => write!(f, "{e}"),
            TableErrorKind::NoEvents(tags) => {
                f.write_str(
                    "`on = []` names no event, so the hook could never fire; \
                     leave `on` out for every event, or name one or more of ",
                )?;
                write_one_of(f, tags)
            }
            TableErrorKind::NoAction => f.write_str(
                "the table has neither `append` nor `run`; a hook needs exactly one of them",
            ),
            TableErrorKind::BothActions => f.write_str(
                "the table has both `append` and `run`; a hook needs exactly one of them \
                 (write two `[[hook]]` tables for two actions)",
            ),
            TableErrorKind::NoProgram { empty_array } => {
                if *empty_array {
                    f.write_str("`run = []` names no program")?;
                } else {
                    f.write_str("`run` names no program: its first element is empty")?;
                }
                f.write_str("; write the program first, then its arguments, as in `run = [\"cargo\", \"fmt\"]`")
            }
            TableErrorKind::NulInArgument { index } => write!(
                f,
                "element {index} of `run` holds a NUL character, which no program name or argument can"
            ),
            TableErrorKind::EmptyPath => f.write_str(
                "`append = \"\"` names no file; write a path, as in `append = \"audit.jsonl\"`",
            ),
            TableErrorKind::NulInPath => {
                f.write_str("the `append` path holds a NUL character, which no file name can")
            }
            TableErrorKind::TimeoutOnAppend => f.write_str(
                "`timeout_ms` applies only to a `run` hook, and this hook appends; remove it",
            ),
            TableErrorKind::BadTimeout(ms) => write!(
                f,
                "`timeout_ms = {ms}` is not a timeout; write a whole number of milliseconds, at least 1"
            ),
        }
    }
}

/// One step of a key path, as an operator reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum KeySegment {
    Key(String),
    /// An array position, from 1.
    Nth(usize),
}

/// The key path of a serde error, for an operator: array positions counted
/// from 1, [`Spanned`]'s private keys dropped, and nothing below a hook
/// table's key (`hook[2].on`, not `hook[2].on[3]`: the position points at
/// the element).
fn key_segments(path: &serde_path_to_error::Path) -> Vec<KeySegment> {
    let mut out = Vec::new();
    let mut in_table = false;
    for segment in path {
        match segment {
            Segment::Seq { index } => {
                if in_table && matches!(out.last(), Some(KeySegment::Key(_))) {
                    break;
                }
                in_table = true;
                out.push(KeySegment::Nth(index.saturating_add(1)));
            }
            Segment::Map { key } => {
                if key.starts_with(SPANNED_PRIVATE) || key.starts_with(TOML_PRIVATE) {
                    continue;
                }
                out.push(KeySegment::Key(key.clone()));
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

fn render_key(segments: &[KeySegment]) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            KeySegment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&toml_key(k));
            }
            KeySegment::Nth(n) => {
                out.push('[');
                out.push_str(&n.to_string());
                out.push(']');
            }
        }
    }
    if out.is_empty() {
        // The document itself: only a caller's own top-level type can fail
        // here, and the file name already says which document.
        out.push_str("(top level)");
    }
    out
}

/// `key` as it would be written in a TOML key path: bare when it can be,
/// quoted (with escapes) otherwise.
///
/// ```
/// assert_eq!(io_hooks::toml_key("ci"), "ci");
/// assert_eq!(io_hooks::toml_key("my ci"), "\"my ci\"");
/// assert_eq!(io_hooks::toml_key(""), "\"\"");
/// ```
pub fn toml_key(key: &str) -> Cow<'_, str> {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        return Cow::Borrowed(key);
    }
    let mut out = String::with_capacity(key.len() + 2);
    out.push('"');
    for c in key.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

/// The 1-based line and character column of byte `offset` in `text`.
///
/// An offset past the end, or inside a character, is clamped rather than
/// trusted: this runs on positions from another crate.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_characters_from_one() {
        assert_eq!(line_column("abc", 0), (1, 1));
        assert_eq!(line_column("a\nbc", 3), (2, 2));
        assert_eq!(line_column("é\nxé", 4), (2, 2));
        assert_eq!(line_column("é\nxé", 6), (2, 3));
        assert_eq!(line_column("ab", 99), (1, 3), "past the end is clamped");
        assert_eq!(line_column("é", 1), (1, 1), "inside a character is clamped");
    }

    #[test]
    fn keys_are_quoted_only_when_they_must_be() {
        assert_eq!(toml_key("hook"), "hook");
        assert_eq!(toml_key("a.b"), "\"a.b\"");
        assert_eq!(toml_key("say \"hi\""), "\"say \\\"hi\\\"\"");
        assert_eq!(toml_key("\u{7}"), "\"\\u0007\"");
    }
}
