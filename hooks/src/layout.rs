//! [`Layout`]: where an embedder's files may declare hooks, and the names
//! its errors give those files, so that every message reads in the
//! embedder's words and none in this crate's.

/// Where a file may declare hooks, and the embedder's words for its files in
/// the errors that say so.
///
/// The engine reads `hook` arrays at the top level of a file. An embedder
/// whose files have named bodies that declare hooks of their own (a
/// `[target.<name>]` table, say) lists them with
/// [`section`](Self::section); a `hook` table anywhere else is refused as
/// hidden ([`TableErrorKind::HiddenHooks`](super::TableErrorKind::HiddenHooks)),
/// since it would load as none. [`project_file`](Self::project_file),
/// [`operator_file`](Self::operator_file) and
/// [`operator_place`](Self::operator_place) name, in the project-scope
/// refusal ([`TableErrorKind::ProjectHooks`](super::TableErrorKind::ProjectHooks)),
/// the file that arrives with a clone and the files where hooks belong
/// instead.
///
/// Every file name is given bare and quoted by the engine, as the message
/// shows it (`` `ci.toml` ``); [`operator_place`](Self::operator_place)
/// takes words that name no one file ("the user-scope file"), kept as
/// given.
///
/// [`Layout::new`], which a [`TomlFile`](super::TomlFile) uses unless given
/// another, has no sections and names no file. Its getters are `get_`-named,
/// as the builder methods take the plain names.
///
/// ```
/// use io_hooks::{HookEvents, Layout, TomlFile};
/// use std::path::Path;
///
/// #[derive(HookEvents)]
/// enum Job {
///     #[hook(tag = "job_finished")]
///     JobFinished,
/// }
///
/// let layout = Layout::new()
///     .section("target", "a target")
///     .project_file("ci.toml")
///     .operator_file("ci.local.toml")
///     .operator_place("your user-wide file");
///
/// let text = "[[targets.linux.hook]]\nappend = \"a.jsonl\"\n";
/// let err = TomlFile::new("ci.local.toml", text)
///     .layout(&layout)
///     .check_placement()
///     .unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "ci.local.toml: key `targets.linux.hook`: hooks are declared only at the top level \
///      (`[[hook]]`) or in a target (`[[target.<name>.hook]]`), so `hook` here would load as \
///      no hooks at all (line 1, column 17)"
/// );
///
/// let err = TomlFile::project("ci.toml", "[[hook]]\nappend = \"a.jsonl\"\n")
///     .layout(&layout)
///     .hooks::<Job>(Path::new("/srv/ci"))
///     .unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "ci.toml: key `hook`: a project-scoped file may not declare hooks, because a hook runs \
///      or writes on this machine and `ci.toml` arrives with a `git clone`. Write it in \
///      `ci.local.toml` or your user-wide file instead."
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Each section's key (`target`) and its noun, one body in words with
    /// its article ("a target").
    sections: Vec<(String, String)>,
    project_file: Option<String>,
    operator_places: Vec<OperatorPlace>,
    /// The embedder's own actions, beside `append` and `run`.
    actions: ActionSet,
    /// The embedder's tools and their arguments, for `where.<args>.<name>`.
    tools: Option<&'static ToolTable>,
}

/// One place hooks belong instead of a project file: a file's name, which
/// the message quotes, or words kept as given.
#[derive(Debug, Clone, PartialEq, Eq)]
enum OperatorPlace {
    File(String),
    Words(String),
}

impl Layout {
    /// Hooks at the top level only, and no file named: the messages say
    /// "this file" and "a file of the operator's own".
    pub const fn new() -> Self {
        Layout {
            sections: Vec::new(),
            project_file: None,
            operator_places: Vec::new(),
            actions: ActionSet { own: Vec::new() },
            tools: None,
        }
    }

    /// Also lets `where` name a tool call's arguments (`where.args.path`),
    /// checked at load against `table`: the arguments of the tools the
    /// hook's `where.<tool_field>` names, each argument's type, and no
    /// free-form ones ([`ToolTable`]).
    #[must_use]
    pub const fn tools(mut self, table: &'static ToolTable) -> Self {
        self.tools = Some(table);
        self
    }

    /// The tools a file of this layout is read with, when the embedder
    /// gave them.
    pub fn get_tools(&self) -> Option<&'static ToolTable> {
        self.tools
    }

    /// Also reads hook tables with `kind`'s key as hooks of that action, as
    /// `append` and `run` are read: an embedder's own action
    /// ([`ActionKind`]). Its key and options join the keys a hook table may
    /// hold, the "did you mean" of an unknown key, the "neither … nor"
    /// of a table without an action, and the JSON Schema
    /// ([`hook_file_schema`](crate::hook_file_schema)).
    ///
    /// # Panics
    /// When `kind`'s key or one of its options is a key a hook table already
    /// takes (`on`, `append`, `timeout_ms`, another action's of this
    /// layout): a mistake in the embedder's code, found at its first read.
    #[must_use]
    pub fn action<K: ActionKind>(mut self, kind: K) -> Self {
        let mut taken = self.actions.taken();
        let new = std::iter::once(K::KEY).chain(K::OPTIONS.iter().copied());
        for key in new {
            assert!(
                !taken.contains(&key.name()),
                "the action `{}` declares the key `{}`, which a hook table already takes",
                K::KEY.name(),
                key.name()
            );
            taken.push(key.name());
        }
        self.actions.push(kind);
        self
    }

    /// The actions a file of this layout is read with.
    pub(crate) fn actions(&self) -> &ActionSet {
        &self.actions
    }

    /// Also reads hooks in each body of the top-level table `key`
    /// (`[[key.<name>.hook]]`); `noun` names one body in messages, with its
    /// article ("a target"). A section named again replaces the first.
    #[must_use]
    pub fn section(mut self, key: impl Into<String>, noun: impl Into<String>) -> Self {
        let section = (key.into(), noun.into());
        match self.sections.iter_mut().find(|s| s.0 == section.0) {
            Some(same) => *same = section,
            None => self.sections.push(section),
        }
        self
    }

    /// The name of the file that arrives with a clone, bare: the
    /// project-scope refusal quotes it as
    /// `` `name` arrives with a `git clone` ``.
    #[must_use]
    pub fn project_file(mut self, name: impl Into<String>) -> Self {
        self.project_file = Some(name.into());
        self
    }

    /// A file where hooks belong instead of a project file, by its name,
    /// bare: the project-scope refusal quotes it in "Write it in … instead."
    /// Each call adds one, after those given before, and the message lists
    /// them as a sentence does: "`` `ci.local.toml` `` or `` `~/.ci.toml` ``".
    #[must_use]
    pub fn operator_file(mut self, name: impl Into<String>) -> Self {
        self.operator_places.push(OperatorPlace::File(name.into()));
        self
    }

    /// A place where hooks belong instead of a project file that is no one
    /// file's name ("the user-scope file"), in words the message keeps as
    /// given, listed with the [`operator_file`](Self::operator_file)s in
    /// the order given.
    #[must_use]
    pub fn operator_place(mut self, words: impl Into<String>) -> Self {
        self.operator_places
            .push(OperatorPlace::Words(words.into()));
        self
    }

    /// Returns each section's key (`target`) and its noun ("a target"), in
    /// the order given.
    pub fn get_sections(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + Clone + '_ {
        self.sections
            .iter()
            .map(|(key, noun)| (key.as_str(), noun.as_str()))
    }

    /// Whether `key` is a section's key.
    pub(crate) fn is_section(&self, key: &str) -> bool {
        self.sections.iter().any(|s| s.0 == key)
    }

    /// The project file's name, when given.
    pub fn get_project_file(&self) -> Option<&str> {
        self.project_file.as_deref()
    }

    /// Where hooks belong instead, as the project-scope refusal words it
    /// (files quoted, in the order given); `None` when none was given.
    pub fn get_operator_files(&self) -> Option<String> {
        if self.operator_places.is_empty() {
            return None;
        }
        let places: Vec<String> = self
            .operator_places
            .iter()
            .map(|place| match place {
                OperatorPlace::File(name) => format!("`{name}`"),
                OperatorPlace::Words(words) => words.clone(),
            })
            .collect();
        let places: Vec<&str> = places.iter().map(String::as_str).collect();
        Some(crate::position::or_list(&places))
    }
}

use crate::action::{ActionKind, ActionSet};
use crate::r#where::ToolTable;

/// The layout a [`TomlFile`](super::TomlFile) has unless given one.
pub(crate) static DEFAULT: Layout = Layout::new();
