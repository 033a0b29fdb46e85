//! Which files may declare hooks at all: the refusal of a project-scope
//! file's `hook` keys.
//!
//! A hook runs a program or writes a file on the machine that loads it. A
//! file that arrives with a `git clone` (a config file committed to the
//! repository) is written by whoever wrote the repository, so loading hooks from it would
//! let a clone run code. [`TomlFile::project`] marks such a file, and
//! [`TomlFile::check_scope`] (which [`TomlFile::hooks`] calls first) refuses
//! any `hook` key in it, and any key that would be one elsewhere or spelt
//! otherwise.

use toml::de::DeTable;

use super::TomlFile;
use super::placement::hidden_hook;
use crate::layout::Layout;
use crate::position::toml_key;
use crate::shared::{ErrorInner, TableError, TableErrorKind};

/// Where a file comes from, and so whether it may declare hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scope {
    /// A file the operator wrote on this machine (in their home directory, or a
    /// git-ignored local file): it may declare hooks.
    Operator,
    /// A file a `git clone` delivers: any `hook` key in it is refused.
    Project,
}

/// The `hook` keys `document` declares: the top level, then each body of
/// each of `layout`'s sections, the sections in the layout's order and the
/// bodies by name (a `toml::Table` is sorted).
///
/// Decided on the parsed document, so a quoted or escaped key
/// (`"\u0068ook"`), a dotted key, an inline array and an empty array are all
/// the same key.
pub(super) fn hook_keys(document: &toml::Table, layout: &Layout) -> Vec<String> {
    let mut keys = Vec::new();
    if document.contains_key("hook") {
        keys.push("hook".to_owned());
    }
    for section in layout.get_sections() {
        let Some(toml::Value::Table(bodies)) = document.get(section.key()) else {
            continue;
        };
        for (name, body) in bodies {
            if let toml::Value::Table(body) = body
                && body.contains_key("hook")
            {
                keys.push(format!(
                    "{}.{}.hook",
                    toml_key(section.key()),
                    toml_key(name)
                ));
            }
        }
    }
    keys
}

impl<'a> TomlFile<'a> {
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
            scope: Scope::Project,
            ..TomlFile::new(name, text)
        }
    }

    /// Where this file comes from: [`Scope::Project`] when made with
    /// [`project`](Self::project), else [`Scope::Operator`].
    pub fn scope(&self) -> Scope {
        self.scope
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
        Ok(hook_keys(&document, self.layout))
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
        if self.scope == Scope::Operator {
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
        }))
    }
}
