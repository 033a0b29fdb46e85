//! `[[hook]]` tables: parsed strictly from TOML into [`HookSpec`]s.
//!
//! Two stages, each with its own kind of error. **Deserialization** (serde,
//! a visitor that refuses a key the key table does not hold, and
//! [`toml::Spanned`]) settles the shape: the
//! keys a table may have and the type of each value; `serde_path_to_error`
//! says where. **Validation** then settles the meaning: exactly one of
//! `append` and `run`, a program to run, events that exist, a timeout that
//! applies. `on` is typed there too, as the one value whose message needs
//! the event enum (its example is the enum's first event). Both stages
//! report through one [`TableError`], whose `Display` is the operator's
//! message:
//!
//! ```text
//! ci.local.toml: key `hook[2].on`: unknown event `job_finishd` (did you mean `job_finished`?); expected one of `job_started`, `job_finished` (line 5, column 7)
//! ```
//!
//! The file comes first, then the key path, then what is wrong and what is
//! accepted, then the line and column. Tables are counted **from 1**:
//! `hook[2]` is the second `[[hook]]` in the file, which is how an operator
//! counts them.

mod filter;
mod keypath;
mod keys;
mod placement;
mod raw;
mod schema;
mod scope;
mod validate;

pub use keys::HOOK_KEYS;
pub use placement::{is_near_miss, near_miss_pattern};
pub use raw::deserialize_table;
pub use schema::{hook_file_schema, hook_table_schema};
pub use scope::Scope;

use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use toml::Spanned;

use crate::layout::Layout;
use crate::position::{KeySegment, SourceLine, key_segments, line_column, render_key};
use crate::registry::{HookEvents, did_you_mean};
use crate::shared::{ErrorInner, TableError, TableErrorKind};
use crate::spec::HookSpec;
use raw::HookTable;

/// One TOML file, named for error messages.
///
/// `name` is what an error puts first: a path as the operator would
/// recognise it (`ci.local.toml`, `/home/me/.config/ci/ci.toml`).
///
/// **A file that arrives with a `git clone` must not declare hooks.**
/// [`TomlFile::new`] loads hooks from any text; a hook runs a program or
/// writes a file on this machine, so hooks read from a repository's own
/// files let whoever wrote the repository run code on every machine that
/// clones it. Make such a file with [`TomlFile::project`], which refuses
/// `hook` in every form (see [`Scope`]).
///
/// ```
/// use io_hooks::{HookEvents, TomlFile};
/// use std::path::Path;
///
/// #[derive(HookEvents)]
/// enum Ev {
///     #[hook(tag = "job_started")]
///     JobStarted,
///     #[hook(tag = "job_finished")]
///     JobFinished,
/// }
///
/// let text = "[[hook]]\non = [\"job_finished\"]\nappend = \"audit.jsonl\"\n";
/// let hooks = TomlFile::new("ci.local.toml", text)
///     .hooks::<Ev>(Path::new("/work/project"))?
///     .expect("the file declares `hook`");
/// assert_eq!(hooks.len(), 1);
///
/// let text = "[[hook]]\non = [\"job_finishd\"]\nappend = \"audit.jsonl\"\n";
/// let err = TomlFile::new("ci.local.toml", text)
///     .hooks::<Ev>(Path::new("/work/project"))
///     .unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "ci.local.toml: key `hook[1].on`: unknown event `job_finishd` (did you mean \
///      `job_finished`?); expected one of `job_started`, `job_finished` (line 2, column 7)"
/// );
/// # Ok::<(), io_hooks::TableError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TomlFile<'a> {
    name: &'a str,
    text: &'a str,
    scope: Scope,
    layout: &'a Layout,
}

impl<'a> TomlFile<'a> {
    /// The file called `name` (for messages) holding `text`, which the
    /// operator wrote: it may declare hooks. For a file that arrives with a
    /// `git clone`, use [`TomlFile::project`].
    pub fn new(name: &'a str, text: &'a str) -> Self {
        TomlFile {
            name,
            text,
            scope: Scope::Operator,
            layout: &crate::layout::DEFAULT,
        }
    }

    /// Where this file may declare hooks, and the words its errors use for
    /// the embedder's files: see [`Layout`]. Without it, hooks are read at
    /// the top level only and the messages name no file.
    #[must_use]
    pub fn layout(self, layout: &'a Layout) -> Self {
        TomlFile { layout, ..self }
    }

    /// The [`Layout`] given to [`layout`](Self::layout), or the default.
    pub fn get_layout(&self) -> &'a Layout {
        self.layout
    }

    /// The name errors put first.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// The file's text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The line and column (each from 1; the column counts characters) of
    /// byte `offset` in the text, as error messages give them. An offset
    /// past the end is clamped.
    ///
    /// ```
    /// let file = io_hooks::TomlFile::new("app.toml", "a = 1\n[[hooks]]\n");
    /// assert_eq!(file.position(8), (2, 3));
    /// ```
    pub fn position(&self, offset: usize) -> (usize, usize) {
        line_column(self.text, offset)
    }

    /// Deserializes the whole document into `T`, tracking the key path.
    ///
    /// This is how a caller with a larger document (one that embeds
    /// [`HookTables`] beside keys of its own) gets errors in the same shape as
    /// the hook tables': file, key path (arrays counted from 1), reason, line
    /// and column.
    ///
    /// A map key the path tracker cannot read as a string (a
    /// `BTreeMap<Spanned<String>, _>` key, an enum key) is found in the
    /// document instead, as the one key under which the rest of the path
    /// leads to the error's position; should none or several fit (an error
    /// without a position), the key path shows it as `?`. A
    /// `BTreeMap<String, Spanned<_>>` keeps the span without the search.
    ///
    /// # Errors
    /// A [`TableError`]: the text is not TOML, or does not have `T`'s shape.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, TableError> {
        let de = toml::de::Deserializer::parse(self.text).map_err(|e| self.syntax_error(&e))?;
        serde_path_to_error::deserialize(de).map_err(|e| self.shape_error(&e))
    }

    /// The top-level `hook` array of this file, checked and typed; `None`
    /// when the file has no `hook` key at all. Other keys are ignored. The
    /// bodies of a [`Layout`]'s sections are the caller's to read, with
    /// [`HookTables::into_specs`].
    ///
    /// `root` is the directory a relative `append` path is resolved
    /// against; an absolute one is kept.
    ///
    /// A [`project`](Self::project) file is refused first
    /// ([`check_scope`](Self::check_scope)) if it declares `hook` anywhere,
    /// in any spelling. Then a key that would hide hooks
    /// ([`check_placement`](Self::check_placement)): a near miss of `hook`
    /// such as `[[hooks]]` or `[[Hook]]`, or `hook` where no hooks are
    /// read, which would otherwise load as no hooks.
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
        self.check_scope()?;
        self.check_placement()?;
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
            source_line: e.span().map(|s| SourceLine::at(self.text, s.start)),
        }))
    }

    fn shape_error(&self, e: &serde_path_to_error::Error<toml::de::Error>) -> TableError {
        let inner = e.inner();
        let message = inner.message().trim_end();
        let mut segments = key_segments(e.path());
        if segments.contains(&KeySegment::Unknown)
            && let Ok(document) = toml::de::DeTable::parse(self.text)
        {
            let offset = inner.span().map(|s| s.start);
            segments = keypath::resolve(segments, document.get_ref(), offset);
        }
        let key = render_key(&segments);
        // toml hands a date-time to a `Spanned` value (each of `where`'s)
        // as a map under its private key, and `Spanned`'s message named
        // that key: `invalid type: string "$__toml_private_datetime",
        // expected a spanned value`.
        let message = match message.contains(crate::position::TOML_PRIVATE) {
            true if segments.contains(&KeySegment::Key("where".to_owned())) => {
                "invalid type: date-time, expected a string, a number, a bool, a list of them or \
                 an inline table"
            }
            true => "invalid type: date-time, which this key does not take",
            false => message,
        };
        let kind = match segments.as_slice() {
            // A hook table's key reader refuses an unknown key with
            // exactly this message; a caller's own table in an array (a
            // `deny_unknown_fields` struct) gives serde's message with its
            // own keys, and keeps it. serde_path_to_error ends the path with
            // the key it was reading, so the key comes from the path.
            [.., KeySegment::Nth(_), KeySegment::Key(k)]
                if !HOOK_KEYS.contains(&k.as_str()) && message == hook_table_refusal(k) =>
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
            source_line: inner.span().map(|s| SourceLine::at(self.text, s.start)),
        }))
    }

    fn error(&self, key: String, span: Range<usize>, kind: TableErrorKind) -> TableError {
        TableError::at(self.name, self.text, key, Some(span.start), kind)
    }
}

impl TableError {
    /// An error of the embedder's own check on `file`, in the shape of the
    /// engine's: the file, `` key `{key}` ``, `message`, then the line and
    /// column of `span` (a byte range of the file's text, as
    /// [`toml::Spanned::span`] gives it) when there is one. Its kind is
    /// [`TableErrorKind::Custom`], and [`source_line`](Self::source_line)
    /// is the line `span` starts on.
    ///
    /// For what the engine cannot know is wrong: a name that refers to
    /// nothing, an empty command. `message` says what is wrong and what is
    /// accepted, as the engine's reasons do; it is shown whole, so it should
    /// quote the operator's text only as much as it needs to.
    ///
    /// ```
    /// use io_hooks::{TableError, TomlFile};
    /// use std::collections::BTreeMap;
    /// use toml::Spanned;
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Doc {
    ///     pipeline: BTreeMap<String, Spanned<toml::Table>>,
    /// }
    ///
    /// let file = TomlFile::new("ci.local.toml", "[pipeline.chek]\nx = 1\n");
    /// let doc: Doc = file.deserialize()?;
    /// let (name, body) = doc.pipeline.iter().next().unwrap();
    /// let err = TableError::custom(
    ///     &file,
    ///     format!("pipeline.{name}"),
    ///     format!("there is no pipeline `{name}`; the pipelines are `check`"),
    ///     Some(body.span()),
    /// );
    /// assert_eq!(
    ///     err.to_string(),
    ///     "ci.local.toml: key `pipeline.chek`: there is no pipeline `chek`; the pipelines \
    ///      are `check` (line 1, column 1)"
    /// );
    /// # Ok::<(), TableError>(())
    /// ```
    pub fn custom(
        file: &TomlFile<'_>,
        key: impl Into<String>,
        message: impl Into<String>,
        span: Option<Range<usize>>,
    ) -> TableError {
        let kind = TableErrorKind::Custom(message.into());
        TableError::at(
            file.name(),
            file.text(),
            key.into(),
            span.map(|s| s.start),
            kind,
        )
    }
}

/// serde's message for `key` in a hook table, which takes none such: what
/// [`raw`]'s key reader gives, and so how [`TomlFile::shape_error`] tells
/// a hook table's unknown key from one of a caller's own tables.
fn hook_table_refusal(key: &str) -> String {
    <toml::de::Error as serde::de::Error>::unknown_field(key, HOOK_KEYS)
        .message()
        .trim_end()
        .to_owned()
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
///     name: Option<String>, // a key of the caller's own
/// }
///
/// let file = TomlFile::new("app.toml", "name = \"nightly\"\n[[hook]]\nrun = [\"notify\"]\n");
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
    /// or `target.linux.hook`); errors name a table as `` `{key}[N]` ``,
    /// counting from 1. `root` is the directory that relative `append`
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
            .map(|(i, table)| validate::validate(table, &format!("{key}[{}]", i + 1), file, root))
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
                Err(raw::found_table(map, &self))
            }
        }
        d.deserialize_seq(V)
    }
}
