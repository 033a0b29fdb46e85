//! [`Origin`]: where a hook was written, the name every message gives it.

use std::fmt;

/// Where a hook was written: the file, as the embedder named it to
/// [`TomlFile::new`](crate::TomlFile::new), and the table's key path as
/// written, tables counted from 1 (`hook[2]`, `profile.ci.hook[1]`,
/// `stage.apply.hook[1]`).
///
/// Every message about a hook names it this way: its problems
/// ([`Problem`](crate::Problem)), what it did with an event
/// ([`HookRun`](crate::HookRun)),
/// and the lines logged about it. A hook read from a file has one
/// ([`HookSpec::origin`](crate::HookSpec::origin)); one built in code has
/// none, and [`Hooks`](crate::Hooks) names it by its position in the list
/// it was given, `hook[N]` counted from 1, with no file.
///
/// `Display` is `{file}: {label}`, or the [`label`](Origin::label) alone
/// when there is no file (the label is the key path, then the hook's name
/// in quotes when it has one):
/// the order of a [`TableError`](crate::TableError)'s message. Neither part
/// is escaped: the file name is the embedder's, and the key path is as
/// [`toml_key`](crate::text::toml_key) writes each key, quoted and escaped
/// where TOML would quote it.
///
/// ```
/// use io_hooks::Origin;
///
/// let origin = Origin::new(Some("deploy.local.toml"), "stage.apply.hook[1]");
/// assert_eq!(origin.file(), Some("deploy.local.toml"));
/// assert_eq!(origin.key(), "stage.apply.hook[1]");
/// assert_eq!(origin.to_string(), "deploy.local.toml: stage.apply.hook[1]");
///
/// // A hook built in code: its position only.
/// assert_eq!(Origin::new(None, "hook[2]").to_string(), "hook[2]");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    file: Option<String>,
    key: String,
    name: Option<String>,
}

impl Origin {
    /// A hook written in `file` (`None`: in no file, built in code) at the
    /// key path `key`, as an operator would write it (`hook[2]`).
    pub fn new(file: Option<&str>, key: impl Into<String>) -> Self {
        Origin {
            file: file.map(str::to_owned),
            key: key.into(),
            name: None,
        }
    }

    /// The same origin, for a hook called `name` (`name = "…"`; `None`:
    /// none), which its [`label`](Origin::label) shows beside the key path.
    ///
    /// ```
    /// use io_hooks::Origin;
    ///
    /// let origin = Origin::new(Some("io.local.toml"), "hook[3]").named(Some("audit"));
    /// assert_eq!(origin.key(), "hook[3]");
    /// assert_eq!(origin.name(), Some("audit"));
    /// assert_eq!(origin.label(), "hook[3] \"audit\"");
    /// assert_eq!(origin.to_string(), "io.local.toml: hook[3] \"audit\"");
    /// ```
    #[must_use]
    pub fn named(mut self, name: Option<&str>) -> Self {
        self.name = name.map(str::to_owned);
        self
    }

    /// The hook's name, when it has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Returns what a message calls the hook: its key path, then its name
    /// in quotes when it has one (`hook[3] "audit"`). A name read from a
    /// table prints as itself (no control, invisible, `"` or `\`
    /// character); one given in code is the embedder's, to escape as it
    /// prints it.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("{} \"{name}\"", self.key),
            None => self.key.clone(),
        }
    }

    /// The file, as the embedder named it; `None` for a hook built in code.
    pub fn file(&self) -> Option<&str> {
        self.file.as_deref()
    }

    /// The table's key path, as written (`hook[2]`).
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{file}: {}", self.label()),
            None => f.write_str(&self.label()),
        }
    }
}
