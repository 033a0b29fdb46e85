//! Loading hook tables: a TOML file named for its messages ([`TomlFile`],
//! the whole of its `impl`: reading the text, the scope and placement
//! refusals, the top-level `hook` array), a `hook` array as written
//! ([`HookTables`]), and an embedder's own error in the same shape
//! ([`TableError::custom`]).

use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use toml::Spanned;
use toml::de::DeTable;

use super::key_table::HOOK_KEYS;
use super::keypath;
use super::placement::hidden_hook;
use super::provenance::{self, Provenance};
use super::read::{self, HookTable};
use super::validate;
use crate::key::{HOOK, WHERE};
use crate::layout::Layout;
use crate::origin::Origin;
use crate::position::{KeySegment, TOML_PRIVATE, key_segments, line_column, render_key};
use crate::raw::Cx;
use crate::registry::{HookEvents, did_you_mean};
use crate::spec::HookSpec;
use crate::table_error::{ErrorInner, TableError, TableErrorKind};

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
/// `hook` in every form ([`TomlFile::check_scope`]).
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
///     .hooks::<Ev>(Path::new("/work/project"))?;
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
    provenance: Provenance,
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
            provenance: Provenance::Operator,
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
        let own = self.layout.actions().own_keys();
        read::with_own_keys(own, || serde_path_to_error::deserialize(de))
            .map_err(|e| self.shape_error(&e))
    }

    /// The top-level `hook` array of this file, checked and typed; empty
    /// when the file has no `hook` key at all, as when it has `hook = []`.
    /// Each spec's [`origin`](HookSpec::origin) is this file's
    /// [`name`](Self::name) and its table's key path, `hook[N]`.
    /// Other keys are ignored. The bodies of a [`Layout`]'s sections are the
    /// caller's to read, with [`HookTables::into_specs`].
    ///
    /// An embedder for which a file without `hook` means something else
    /// than a file with no hooks (one that replaces another's hooks only
    /// when it says `hook`) asks [`hook_keys`](Self::hook_keys) whether the
    /// key is there, or reads `Option<HookTables>` itself with
    /// [`deserialize`](Self::deserialize), as a section's body is read.
    ///
    /// `root` is the directory a relative `append` path is resolved
    /// against; an absolute one is kept. It is the hooks' root: give
    /// [`Hooks::new`](crate::Hooks::new) the same one (it reports a hook
    /// read with another as a [`Problem`](crate::Problem) naming both
    /// roots, and creates nothing for it).
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
    pub fn hooks<E: HookEvents>(&self, root: &Path) -> Result<Vec<HookSpec<E>>, TableError> {
        #[derive(Deserialize)]
        struct Doc {
            hook: Option<HookTables>,
        }
        self.check_scope()?;
        self.check_placement()?;
        let doc: Doc = self.deserialize()?;
        match doc.hook {
            Some(tables) => tables.into_specs(self, HOOK, root),
            None => Ok(Vec::new()),
        }
    }

    fn syntax_error(&self, e: &toml::de::Error) -> TableError {
        let kind = TableErrorKind::Syntax(e.message().trim_end().to_owned());
        TableError::at(self.name, self.text, None, e.span(), kind)
    }

    fn shape_error(&self, e: &serde_path_to_error::Error<toml::de::Error>) -> TableError {
        let inner = e.inner();
        let message = inner.message().trim_end();
        let mut segments = key_segments(e.path());
        if segments.contains(&KeySegment::Unknown)
            && let Ok(document) = DeTable::parse(self.text)
        {
            let offset = inner.span().map(|s| s.start);
            segments = keypath::resolve(segments, document.get_ref(), offset);
        }
        let key = render_key(&segments);
        // toml hands a date-time to a `Spanned` value (each of `where`'s)
        // as a map under its private key, and `Spanned`'s message named
        // that key: `invalid type: string "$__toml_private_datetime",
        // expected a spanned value`.
        let message = match message.contains(TOML_PRIVATE) {
            true if segments.contains(&KeySegment::Key(WHERE.to_owned())) => {
                "invalid type: date-time, expected a string, a number, a bool, a list of them or \
                 an inline table"
            }
            true => "invalid type: date-time, which this key does not take",
            false => message,
        };
        // What `HookTables` expects names the top-level array; a section's
        // is named as written (`[[stage.apply.hook]]`).
        let in_section;
        let message = match message.strip_suffix(HOOK_ARRAY_WRITTEN) {
            Some(head)
                if segments.len() > 1
                    && segments.last() == Some(&KeySegment::Key(HOOK.to_owned())) =>
            {
                in_section = format!("{head}an array of hook tables, written `[[{key}]]`");
                in_section.as_str()
            }
            _ => message,
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
                let expected = self.keys();
                TableErrorKind::UnknownKey {
                    suggestion: did_you_mean(k, expected.iter().copied()),
                    key: k.clone(),
                    expected,
                }
            }
            _ => TableErrorKind::Shape(message.to_owned()),
        };
        TableError::at(self.name, self.text, Some(key), inner.span(), kind)
    }

    /// Every key a hook table of this file may hold: the key table's, then
    /// the keys of the layout's own actions.
    fn keys(&self) -> Vec<&'static str> {
        let own = self.layout.actions().own_keys();
        HOOK_KEYS
            .iter()
            .copied()
            .chain(own.iter().map(|key| key.name))
            .collect()
    }

    fn error(&self, key: String, span: Range<usize>, kind: TableErrorKind) -> TableError {
        TableError::at(self.name, self.text, Some(key), Some(span), kind)
    }

    /// The file called `name` holding `text`, from a project's own files:
    /// one that arrives with a `git clone`. It may not declare hooks:
    /// [`check_scope`](Self::check_scope) and [`hooks`](Self::hooks) refuse
    /// any `hook` key, at the top level or in any body of a
    /// [`Layout`]'s section. The refusal names the embedder's files as the
    /// layout ([`layout`](Self::layout)) gives them.
    ///
    /// ```
    /// use io_hooks::{HookEvents, TomlFile};
    /// use std::path::Path;
    ///
    /// #[derive(HookEvents)]
    /// enum Ev {
    ///     #[hook(tag = "finished")]
    ///     Finished,
    /// }
    ///
    /// let cloned = "[[hook]]\nrun = [\"curl\", \"https://example.com/x.sh\"]\n";
    /// let err = TomlFile::project("app.toml", cloned)
    ///     .hooks::<Ev>(Path::new("/work/project"))
    ///     .unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "app.toml: key `hook`: a project-scoped file may not declare hooks, because a hook \
    ///      runs or writes on this machine and this file arrives with a `git clone`. Write it \
    ///      in a file of the operator's own instead."
    /// );
    /// ```
    pub fn project(name: &'a str, text: &'a str) -> Self {
        TomlFile {
            provenance: Provenance::Project,
            ..TomlFile::new(name, text)
        }
    }

    /// The `hook` keys the file declares, as key paths (`hook`,
    /// `target.linux.hook`): the top level first, then each body of each
    /// [`Layout`] section, the sections in the layout's order and the
    /// bodies by name. Empty when it declares none.
    ///
    /// # Errors
    /// A [`TableError`] when the text is not TOML.
    pub fn hook_keys(&self) -> Result<Vec<String>, TableError> {
        let document: toml::Table = self.deserialize()?;
        Ok(provenance::hook_keys(&document, self.layout))
    }

    /// Refuses a project-scope file that declares `hook` in any form; any
    /// other file passes.
    ///
    /// Any form includes what [`check_placement`](Self::check_placement)
    /// refuses as hidden: a near miss of `hook` (`[[hooks]]`, `Hook = []`)
    /// and `hook` where no hooks are read (`[[jobs.x.hook]]`). In a project
    /// file those are refused here, in the same words, so that the operator
    /// is told where hooks belong rather than how to declare one in a file
    /// that may not. Call this before [`check_placement`](Self::check_placement),
    /// as [`hooks`](Self::hooks) does.
    ///
    /// ```
    /// let err = io_hooks::TomlFile::project("app.toml", "[[hooks]]\nappend = \"a\"\n")
    ///     .check_scope()
    ///     .unwrap_err();
    /// assert_eq!(err.key(), Some("hooks"));
    /// assert!(err.to_string().contains("a project-scoped file may not declare hooks"));
    /// ```
    ///
    /// # Errors
    /// [`TableErrorKind::ProjectHooks`] naming the first `hook` key (else
    /// the first hidden one, by position), or a [`TableError`] when a
    /// project file's text is not TOML.
    pub fn check_scope(&self) -> Result<(), TableError> {
        if self.provenance == Provenance::Operator {
            return Ok(());
        }
        if let Some(key) = self.hook_keys()?.into_iter().next() {
            return Err(self.project_refusal(&key));
        }
        let document = DeTable::parse(self.text).map_err(|e| self.syntax_error(&e))?;
        match hidden_hook(document.get_ref(), self.layout) {
            Some(hidden) => Err(self.project_refusal(&hidden.key)),
            None => Ok(()),
        }
    }

    /// The error [`check_scope`](Self::check_scope) gives for a `hook` key
    /// at `key`, for a caller whose own reading of the file found one.
    pub fn project_refusal(&self, key: &str) -> TableError {
        TableError(Box::new(ErrorInner {
            file: self.name.to_owned(),
            key: Some(key.to_owned()),
            kind: TableErrorKind::ProjectHooks {
                project_file: self.layout.get_project_file().map(str::to_owned),
                operator_files: self.layout.get_operator_files(),
            },
            position: None,
            source_line: None,
            span: None,
        }))
    }

    /// Refuses a key that would declare hooks where none are read (see
    /// [`TableErrorKind::HiddenHooks`]): a near miss of `hook` at the top
    /// level or in a body of a [`Layout`]'s section, or
    /// `hook` (or a near miss) holding a table or an array anywhere else;
    /// and a key of a hook table written there outside any table
    /// ([`TableErrorKind::StrayHookKey`]: `on = […]` and `append = "…"`
    /// with no `[[hook]]` above them), which in a
    /// [`project`](Self::project) file is refused as a hook it may not
    /// declare.
    ///
    /// ```
    /// let err = io_hooks::TomlFile::new("app.toml", "on = [\"done\"]\nappend = \"a.jsonl\"\n")
    ///     .check_placement()
    ///     .unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "app.toml: key `on`: `on` is a key of a hook table, and it is written outside \
    ///      any, so it declares no hook and the file would load as no hooks at all; write \
    ///      `[[hook]]` on the line above it (line 1, column 1)"
    /// );
    /// ```
    /// [`hooks`](Self::hooks) calls it after
    /// [`check_scope`](Self::check_scope), which refuses all of these in a
    /// project file as hooks it may not declare: in a project file, call
    /// that first, or this one's "did you mean `hook`?" invites a hook the
    /// next check refuses.
    ///
    /// ```
    /// let err = io_hooks::TomlFile::new("app.toml", "[[ci.hook]]\nappend = \"a\"\n")
    ///     .check_placement()
    ///     .unwrap_err();
    /// assert_eq!(err.key(), Some("ci.hook"));
    /// assert!(err.to_string().contains("hooks are declared only at the top level"));
    /// ```
    ///
    /// # Errors
    /// [`TableErrorKind::HiddenHooks`] naming the first such key by
    /// position, or a [`TableError`] when the text is not TOML.
    pub fn check_placement(&self) -> Result<(), TableError> {
        let document = DeTable::parse(self.text).map_err(|e| self.syntax_error(&e))?;
        match hidden_hook(document.get_ref(), self.layout) {
            None => Ok(()),
            // A project file may declare no hook: it is told where hooks
            // go, not which header to write.
            Some(hidden) if hidden.stray && self.provenance == Provenance::Project => {
                Err(self.project_refusal(&hidden.key))
            }
            Some(hidden) if hidden.stray => Err(self.error(
                hidden.key,
                hidden.at..hidden.at,
                TableErrorKind::StrayHookKey {
                    written: hidden.written,
                },
            )),
            Some(hidden) => Err(self.error(
                hidden.key,
                hidden.at..hidden.at,
                TableErrorKind::HiddenHooks {
                    written: hidden.written,
                    placed: hidden.placed,
                    sections: self
                        .layout
                        .get_sections()
                        .map(|(key, noun)| (key.to_owned(), noun.to_owned()))
                        .collect(),
                },
            )),
        }
    }
}

impl TableError {
    /// An error of the embedder's own check on `file`, in the shape of the
    /// engine's: the file, `` key `{key}` ``, `message`, then the line and
    /// column of `span` (a byte range of the file's text, as
    /// [`toml::Spanned::span`] gives it) when there is one. Its kind is
    /// [`TableErrorKind::Custom`], [`source_line`](Self::source_line)
    /// is the line `span` starts on, and [`span`](Self::span) is `span`,
    /// cut to lie within the text.
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
        TableError::at(file.name(), file.text(), Some(key.into()), span, kind)
    }
}

/// What a `hook` key must hold, as the visitor of [`HookTables`] says it;
/// an error at a section's `hook` names that array instead.
const HOOK_ARRAY_WRITTEN: &str = "an array of hook tables, written `[[hook]]`";

/// serde's message for `key` in a hook table, which takes none such: what
/// [`read`]'s key reader gives, and so how [`TomlFile::shape_error`] tells
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
    /// counting from 1, and each spec's [`origin`](HookSpec::origin) is
    /// the file's [`name`](TomlFile::name) and that key path. `root` is the
    /// directory that relative `append` paths are resolved against: the
    /// hooks' root, the one given to
    /// [`Hooks::new`](crate::Hooks::new), which reports a hook read with
    /// another as a [`Problem`](crate::Problem).
    ///
    /// # Errors
    /// The first table that fails, as a [`TableError`].
    pub fn into_specs<E: HookEvents>(
        self,
        file: &TomlFile<'_>,
        key: &str,
        root: &Path,
    ) -> Result<Vec<HookSpec<E>>, TableError> {
        let mut names = std::collections::BTreeMap::new();
        self.tables
            .into_iter()
            .enumerate()
            .map(|(i, table)| {
                let at = format!("{key}[{}]", i + 1);
                let cx = Cx {
                    file: file.name(),
                    text: file.text(),
                    at: &at,
                    span: table.span(),
                    root,
                    tools: file.get_layout().get_tools(),
                };
                let actions = file.get_layout().actions();
                let spec: HookSpec<E> =
                    validate::validate(table.into_inner(), &cx, actions, &mut names)?;
                let origin = Origin::new(Some(file.name()), at).named(spec.name.as_deref());
                Ok(spec.with_origin(origin))
            })
            .collect()
    }
}

impl<'de> Deserialize<'de> for HookTables {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HookTables;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(HOOK_ARRAY_WRITTEN)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HookTables, A::Error> {
                let mut tables = Vec::new();
                while let Some(t) = seq.next_element()? {
                    tables.push(t);
                }
                Ok(HookTables { tables })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<HookTables, A::Error> {
                Err(read::found_table(map, &self))
            }
        }
        d.deserialize_seq(V)
    }
}
