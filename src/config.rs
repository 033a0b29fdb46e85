//! `Config`: the files an operator writes, read in scope order, with the
//! project-scope refusal and the one rule for hooks across scopes — the last
//! scope that declares `hook` supplies all of them.
//!
//! ```no_run
//! # fn main() -> Result<(), io_harness::ConfigError> {
//! use io_harness::Config;
//!
//! let config = Config::discover("/work/project")?.with_profile("ci")?;
//! if let Some(won) = config.hooks_in_force() {
//!     eprintln!("hooks from {} ({} scope)", won.source.path().display(), won.source.scope());
//! }
//! let hooks = config.hooks();
//! # let _ = hooks;
//! # Ok(()) }
//! ```

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use io_hooks::{
    HookSpec, HookTables, TableError, TomlFile, deserialize_table, did_you_mean, toml_key,
};
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};

use crate::event::EventKind;

/// The hooks observer for io-harness's events: what [`Config::hooks`]
/// returns and what the run loop is handed.
pub type Hooks = io_hooks::Hooks<EventKind>;

/// The file name of the project and user scopes.
pub const PROJECT_FILE: &str = "io.toml";
/// The file name of the local scope: gitignored, and the operator's own.
pub const LOCAL_FILE: &str = "io.local.toml";

/// Where a config file sits, which decides what it may declare.
///
/// Scopes are read in this order, and a later one wins where they differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// The operator's own file: `$IO_CONFIG_HOME/io.toml`, else
    /// `$XDG_CONFIG_HOME/io/io.toml`, else `$HOME/.config/io/io.toml`.
    User,
    /// `io.toml` at the discovery root, or [`Config::from_toml`] text: the
    /// file a `git clone` delivers, so it may not declare hooks.
    Project,
    /// `io.local.toml` at the discovery root.
    Local,
}

impl Scope {
    /// The scope's name, as messages print it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One file that was read, and what it declared.
#[derive(Debug, Clone)]
pub struct Source {
    path: PathBuf,
    scope: Scope,
    document: toml::Table,
    hooks: Option<Vec<HookSpec<EventKind>>>,
    profiles: Vec<(String, Option<Vec<HookSpec<EventKind>>>)>,
    in_force: bool,
}

impl Source {
    /// The file (for [`Config::from_toml`], the name `io.toml`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's scope.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The whole file as parsed, including the keys this crate does not own
    /// (`mcp`, `toolchain`, `policy`, `agent`, …), which are kept for their
    /// owners rather than rejected.
    pub fn document(&self) -> &toml::Table {
        &self.document
    }

    /// Whether the file's top level declares `hook` (even `hook = []`), so
    /// that it replaces the hooks of every earlier scope.
    pub fn declares_hooks(&self) -> bool {
        self.hooks.is_some()
    }

    /// Whether this file's hooks are the ones in force: its top-level
    /// `hook`, or the applied profile's body in it
    /// ([`Config::hooks_in_force`] says which). At most one source of a
    /// config answers `true`.
    pub fn in_force(&self) -> bool {
        self.in_force
    }

    /// The file's top-level hooks, checked; `None` when it declares none.
    pub fn hooks(&self) -> Option<&[HookSpec<EventKind>]> {
        self.hooks.as_deref()
    }

    /// The names of the `[profile.<name>]` tables the file declares.
    pub fn profiles(&self) -> impl Iterator<Item = &str> {
        self.profiles.iter().map(|(name, _)| name.as_str())
    }

    /// The hooks of the file's `[profile.<name>]` body, checked; `None` when
    /// the file has no such profile or its body declares no `hook`.
    pub fn profile_hooks(&self, name: &str) -> Option<&[HookSpec<EventKind>]> {
        self.profiles
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, hooks)| hooks.as_deref())
    }
}

/// Which file's hooks are in force, and through which profile.
#[derive(Debug, Clone, Copy)]
pub struct HooksInForce<'a> {
    /// The file whose `hook` array supplies every hook.
    pub source: &'a Source,
    /// The applied profile whose body held that array, or `None` when it is
    /// the file's top-level `hook`.
    pub profile: Option<&'a str>,
}

impl fmt::Display for HooksInForce<'_> {
    /// `hooks from /p/io.local.toml (local scope)`, with
    /// `` , profile `ci` `` when an applied profile supplied them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hooks from {} ({} scope)",
            self.source.path.display(),
            self.source.scope
        )?;
        if let Some(profile) = self.profile {
            write!(f, ", profile `{profile}`")?;
        }
        Ok(())
    }
}

/// A loaded configuration: the files read, in scope order, and the hooks
/// they add up to.
///
/// Hooks do not accumulate across scopes. The last file that declares `hook`
/// supplies them all, and an applied profile that declares `hook` comes after
/// every file. [`sources`](Self::sources) and
/// [`hooks_in_force`](Self::hooks_in_force) say which file won.
#[derive(Debug, Clone)]
pub struct Config {
    root: PathBuf,
    sources: Vec<Source>,
    profile: Option<String>,
}

impl Config {
    /// Reads the user-scope file, then `root/io.toml` (project), then
    /// `root/io.local.toml` (local). A file that does not exist is skipped;
    /// one that cannot be read or does not check is an error naming it.
    ///
    /// The user-scope directory is [`Config::user_dir`]: `$IO_CONFIG_HOME`,
    /// else `$XDG_CONFIG_HOME/io`, else `$HOME/.config/io`.
    ///
    /// `root` is the discovery root: it must be a directory, and is made
    /// absolute (without resolving symbolic links), so a relative `append`
    /// path means the same file whatever the process's directory later is.
    ///
    /// # Errors
    /// See [`ConfigError`]; each names the file it is about.
    pub fn discover(root: impl AsRef<Path>) -> Result<Self, ConfigError> {
        Self::discover_with(root.as_ref(), Self::user_dir().as_deref())
    }

    /// [`discover`](Self::discover) with the user-scope directory given
    /// rather than read from the environment; `None` reads no user scope.
    ///
    /// For embedders with a `--config-home` of their own, and for tests,
    /// which must not share the process-wide environment.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let root = tempfile::tempdir()?;
    /// let home = tempfile::tempdir()?;
    /// std::fs::write(home.path().join("io.toml"), "[[hook]]\nappend = \"audit.jsonl\"\n")?;
    ///
    /// let config = io_harness::Config::discover_with(root.path(), Some(home.path()))?;
    /// assert_eq!(config.hook_specs().len(), 1);
    /// assert_eq!(config.hooks_in_force().unwrap().source.scope(), io_harness::Scope::User);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`discover`](Self::discover).
    pub fn discover_with(root: &Path, user_dir: Option<&Path>) -> Result<Self, ConfigError> {
        let root = std::path::absolute(root).map_err(|source| ConfigError::Root {
            root: root.to_path_buf(),
            source,
        })?;
        match std::fs::metadata(&root) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(ConfigError::Root {
                    root,
                    source: io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
                });
            }
            Err(source) => return Err(ConfigError::Root { root, source }),
        }

        let project = root.join(PROJECT_FILE);
        let local = root.join(LOCAL_FILE);
        let mut sources = Vec::new();
        if let Some(dir) = user_dir {
            let user = dir.join(PROJECT_FILE);
            // The operator's own file, reached also as the project file (the
            // harness pointed at the config directory itself): it is theirs,
            // so it is read once, as the user scope.
            if !same_file(&user, &project)
                && let Some(text) = read_if_present(&user)?
            {
                sources.push(load(&user, Scope::User, &text, &root)?);
            }
        }
        if let Some(text) = read_if_present(&project)? {
            let scope = match user_dir {
                Some(dir) if same_file(&dir.join(PROJECT_FILE), &project) => Scope::User,
                _ => Scope::Project,
            };
            sources.push(load(&project, scope, &text, &root)?);
        }
        if let Some(text) = read_if_present(&local)? {
            sources.push(load(&local, Scope::Local, &text, &root)?);
        }
        Ok(Config {
            root,
            sources,
            profile: None,
        }
        .settled())
    }

    /// The user-scope directory the environment names: `$IO_CONFIG_HOME` if
    /// set, else `$XDG_CONFIG_HOME/io` (when that is an absolute path, as
    /// the XDG specification requires), else `$HOME/.config/io`. An empty
    /// variable counts as unset. `None` when none applies.
    pub fn user_dir() -> Option<PathBuf> {
        user_dir_from(|name| std::env::var_os(name))
    }

    /// Project-scope text, as if it were `io.toml`: it may not declare
    /// hooks, at the top level or in any profile.
    ///
    /// The discovery root of such a config is `.`; it has no hooks for the
    /// root to matter to.
    ///
    /// ```
    /// let config = io_harness::Config::from_toml("[mcp]\nserver = \"x\"\n").unwrap();
    /// assert!(config.hooks().is_empty());
    /// assert!(config.sources()[0].document().contains_key("mcp"));
    ///
    /// let err = io_harness::Config::from_toml("[[hook]]\nappend = \"a\"\n").unwrap_err();
    /// assert!(err.to_string().starts_with(
    ///     "io.toml: key `hook`: a project-scoped file may not declare hooks"
    /// ));
    /// ```
    ///
    /// # Errors
    /// [`ConfigError::ProjectHooks`] for any `hook`, or the text's first
    /// problem.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let root = PathBuf::from(".");
        let source = load(Path::new(PROJECT_FILE), Scope::Project, text, &root)?;
        Ok(Config {
            root,
            sources: vec![source],
            profile: None,
        }
        .settled())
    }

    /// Applies the profile `name`: a `[profile.<name>]` body that declares
    /// `hook` then supplies every hook, as a scope after all the files would.
    /// Where several files declare the profile, the last one whose body
    /// declares `hook` wins. Applying another profile replaces this one.
    ///
    /// # Errors
    /// [`ConfigError::UnknownProfile`] when no file read declares
    /// `[profile.<name>]`, listing those that do.
    pub fn with_profile(mut self, name: &str) -> Result<Self, ConfigError> {
        let known = self.profiles();
        if !known.contains(&name) {
            let suggestion = did_you_mean(name, known.iter().copied()).map(str::to_owned);
            return Err(ConfigError::UnknownProfile {
                name: name.to_owned(),
                suggestion,
                known: known.into_iter().map(str::to_owned).collect(),
            });
        }
        self.profile = Some(name.to_owned());
        Ok(self.settled())
    }

    /// Marks the one source whose hooks are in force.
    fn settled(mut self) -> Self {
        let winner = self.winner().map(|(i, _)| i);
        for (i, source) in self.sources.iter_mut().enumerate() {
            source.in_force = winner == Some(i);
        }
        self
    }

    /// The applied profile, if any.
    pub fn profile(&self) -> Option<&str> {
        self.profile.as_deref()
    }

    /// Every profile any file declares, sorted, each once.
    pub fn profiles(&self) -> Vec<&str> {
        let set: BTreeSet<&str> = self.sources.iter().flat_map(Source::profiles).collect();
        set.into_iter().collect()
    }

    /// The discovery root: relative `append` paths are resolved against it,
    /// and every `run` hook starts in it.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The files read, in scope order (user, project, local).
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// The file, and the profile, whose `hook` array is in force; `None` when
    /// nothing declares `hook`.
    pub fn hooks_in_force(&self) -> Option<HooksInForce<'_>> {
        self.winner().map(|(i, via_profile)| HooksInForce {
            source: &self.sources[i],
            profile: if via_profile {
                self.profile.as_deref()
            } else {
                None
            },
        })
    }

    /// The index of the source whose hooks are in force, and whether they
    /// come from the applied profile's body in it. An applied profile that
    /// declares `hook` comes after every file; otherwise the last file that
    /// declares `hook` wins.
    fn winner(&self) -> Option<(usize, bool)> {
        let last = |found: &dyn Fn(&Source) -> bool| self.sources.iter().rposition(found);
        if let Some(name) = self.profile.as_deref()
            && let Some(i) = last(&|s| s.profile_hooks(name).is_some())
        {
            return Some((i, true));
        }
        last(&Source::declares_hooks).map(|i| (i, false))
    }

    /// The hooks in force, checked and in the order written; empty when no
    /// scope declares any.
    pub fn hook_specs(&self) -> &[HookSpec<EventKind>] {
        match self.hooks_in_force() {
            None => &[],
            Some(HooksInForce {
                source,
                profile: Some(name),
            }) => source.profile_hooks(name).unwrap_or(&[]),
            Some(HooksInForce { source, .. }) => source.hooks().unwrap_or(&[]),
        }
    }

    /// Builds the [`Hooks`] observer from the hooks in force, with the
    /// discovery root. Nothing installs it: pass it to the run as any other
    /// observer. [`Hooks::is_empty`](io_hooks::Hooks::is_empty) says whether
    /// there is anything to install.
    ///
    /// Each call builds a new observer; building it creates each `append`
    /// hook's file.
    pub fn hooks(&self) -> Hooks {
        Hooks::new(self.hook_specs().to_vec(), &self.root)
    }
}

/// Reads `path`; `None` when there is no such file.
fn read_if_present(path: &Path) -> Result<Option<String>, ConfigError> {
    // Only a regular file (or a symbolic link to one) is read. A FIFO would
    // block the load until someone writes to it, and a link to a device
    // such as `/dev/zero` (a repository can commit one) would never stop
    // reading. A directory is left to the read below, which names it.
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
        && !meta.is_dir()
    {
        return Err(ConfigError::Read {
            path: path.to_path_buf(),
            source: io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file (a FIFO, a socket or a device), so it is not read as config",
            ),
        });
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // A symbolic link to nothing is a file the operator meant to be
            // read: say so rather than skip it.
            if std::fs::symlink_metadata(path).is_ok() {
                return Err(ConfigError::Read {
                    path: path.to_path_buf(),
                    source: io::Error::new(
                        io::ErrorKind::NotFound,
                        "a symbolic link to a file that does not exist",
                    ),
                });
            }
            return Ok(None);
        }
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    String::from_utf8(bytes).map(Some).map_err(|e| {
        let bytes = e.as_bytes();
        let valid = e.utf8_error().valid_up_to();
        let before = String::from_utf8_lossy(&bytes[..valid]);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ConfigError::NotUtf8 {
            path: path.to_path_buf(),
            line,
            column,
        }
    })
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn user_dir_from(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = set("IO_CONFIG_HOME") {
        return Some(dir);
    }
    if let Some(dir) = set("XDG_CONFIG_HOME").filter(|d| d.is_absolute()) {
        return Some(dir.join("io"));
    }
    set("HOME").map(|home| home.join(".config").join("io"))
}

/// The `hook` keys a document declares, in the order they are checked: the
/// top level, then each `[profile.<name>]` body. Decided on the parsed
/// document, so quoting, escapes, dotted keys and inline arrays are all the
/// same key.
fn hook_keys(document: &toml::Table) -> Vec<String> {
    let mut keys = Vec::new();
    if document.contains_key("hook") {
        keys.push("hook".to_owned());
    }
    if let Some(toml::Value::Table(profiles)) = document.get("profile") {
        for (name, body) in profiles {
            if let toml::Value::Table(body) = body
                && body.contains_key("hook")
            {
                keys.push(format!("profile.{}.hook", toml_key(name)));
            }
        }
    }
    keys
}

fn first_hook_key(document: &toml::Table) -> Option<String> {
    hook_keys(document).into_iter().next()
}

/// Parses and checks one file of `scope`.
fn load(path: &Path, scope: Scope, text: &str, root: &Path) -> Result<Source, ConfigError> {
    let name = path.display().to_string();
    let file = TomlFile::new(&name, text);
    let document: toml::Table = file.deserialize()?;
    // Both refusals come before any table is checked: a file that may not
    // declare hooks is told so, not told how to fix a hook it may not have.
    if let Some(key) = first_hook_key(&document) {
        if scope == Scope::Project {
            return Err(ConfigError::ProjectHooks { file: name, key });
        }
        if scope == Scope::Local && git::tracks(root, LOCAL_FILE) {
            return Err(ConfigError::TrackedLocal { file: name, key });
        }
    }

    let raw: RawDocument = file.deserialize()?;
    let hooks = raw
        .hook
        .map(|tables| tables.into_specs(&file, "hook", root))
        .transpose()?;
    let mut profiles = Vec::new();
    for (profile, body) in raw.profile.map(|p| p.0).unwrap_or_default() {
        let key = format!("profile.{}.hook", toml_key(&profile));
        let hooks = body
            .hook
            .map(|tables| tables.into_specs(&file, &key, root))
            .transpose()?;
        profiles.push((profile, hooks));
    }
    // The refusal above looked at the same parsed document; this is the
    // typed view agreeing with it, kept so that no later change to the raw
    // types can let a project file's hooks through unnoticed.
    if scope == Scope::Project && (hooks.is_some() || profiles.iter().any(|(_, h)| h.is_some())) {
        return Err(ConfigError::ProjectHooks {
            file: name,
            key: "hook".to_owned(),
        });
    }
    Ok(Source {
        path: path.to_path_buf(),
        scope,
        document,
        hooks,
        profiles,
        in_force: false,
    })
}

/// The keys of a config file this module owns; every other key is left to
/// [`Source::document`].
#[derive(Deserialize)]
struct RawDocument {
    hook: Option<HookTables>,
    profile: Option<RawProfiles>,
}

/// `[profile.<name>]` tables, in the order written.
struct RawProfiles(Vec<(String, RawProfile)>);

impl<'de> Deserialize<'de> for RawProfiles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The profiles' entries, in the order the map gives them.
        struct Entries(Vec<(String, RawProfile)>);
        impl<'de> Deserialize<'de> for Entries {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Entries;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a table")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                        let mut out = Vec::new();
                        while let Some(entry) = map.next_entry()? {
                            out.push(entry);
                        }
                        Ok(Entries(out))
                    }
                }
                d.deserialize_map(V)
            }
        }
        let expecting = "a table of profiles, as in `[profile.ci]`";
        deserialize_table(d, &expecting).map(|Entries(entries)| RawProfiles(entries))
    }
}

/// A profile body: its `hook`, if any. Its other keys belong to others.
///
/// Only a table will do: a derived struct would also take an array and fill
/// `hook` from it by position, which is a way round the project-scope check.
struct RawProfile {
    hook: Option<HookTables>,
}

impl<'de> Deserialize<'de> for RawProfile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Body {
            hook: Option<HookTables>,
        }
        let expecting = "a profile body: a table, as in `[profile.ci]`";
        deserialize_table(d, &expecting).map(|Body { hook }| RawProfile { hook })
    }
}

/// Why a configuration could not be loaded. Each `Display` names the file
/// first, then the key, then the reason.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConfigError {
    /// The discovery root is not a directory, or cannot be made absolute.
    Root {
        /// The root as given (or as made absolute).
        root: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file exists but cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file is not UTF-8, so it is not TOML.
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The line of the first byte that is not UTF-8, from 1.
        line: usize,
        /// Its column, counted in characters from 1.
        column: usize,
    },
    /// A file is not valid TOML, or a `[[hook]]` table in it does not check.
    Table(TableError),
    /// A project-scope file (`io.toml`, or [`Config::from_toml`] text)
    /// declares `hook`.
    ProjectHooks {
        /// The file.
        file: String,
        /// `hook`, or `profile.<name>.hook`.
        key: String,
    },
    /// An `io.local.toml` that the repository's git index tracks declares
    /// `hook`: it arrived with the clone, like `io.toml`.
    TrackedLocal {
        /// The file.
        file: String,
        /// `hook`, or `profile.<name>.hook`.
        key: String,
    },
    /// [`Config::with_profile`] named a profile no file declares.
    UnknownProfile {
        /// The name asked for.
        name: String,
        /// The nearest declared name, when one is close.
        suggestion: Option<String>,
        /// Every declared profile, sorted.
        known: Vec<String>,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Root { root, source } => write!(
                f,
                "{}: cannot be the discovery root, which must be a directory: {source}",
                root.display()
            ),
            ConfigError::Read { path, source } => {
                write!(f, "{}: cannot be read: {source}", path.display())
            }
            ConfigError::NotUtf8 { path, line, column } => write!(
                f,
                "{}: not UTF-8 text, which a TOML file must be (line {line}, column {column})",
                path.display()
            ),
            ConfigError::Table(e) => write!(f, "{e}"),
            ConfigError::ProjectHooks { file, key } => write!(
                f,
                "{file}: key `{key}`: a project-scoped file may not declare hooks, because a \
                 hook runs or writes on this machine and `io.toml` arrives with a `git clone`. \
                 Write it in `io.local.toml` or the user-scope file instead."
            ),
            ConfigError::TrackedLocal { file, key } => write!(
                f,
                "{file}: key `{key}`: this `io.local.toml` is tracked by the repository's git \
                 index, so it arrives with a `git clone` just as `io.toml` does, and may not \
                 declare hooks. Untrack it with `git rm --cached io.local.toml` (and list it in \
                 `.gitignore`), or move the hooks to the user-scope file."
            ),
            ConfigError::UnknownProfile {
                name,
                suggestion,
                known,
            } => {
                write!(f, "unknown profile `{name}`")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean `{s}`?)")?;
                }
                if known.is_empty() {
                    f.write_str("; no file read declares a `[profile.<name>]` table")
                } else {
                    f.write_str("; the profiles declared are ")?;
                    for (i, k) in known.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "`{k}`")?;
                    }
                    Ok(())
                }
            }
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Root { source, .. } | ConfigError::Read { source, .. } => Some(source),
            ConfigError::Table(e) => Some(e),
            _ => None,
        }
    }
}

impl From<TableError> for ConfigError {
    fn from(e: TableError) -> Self {
        ConfigError::Table(e)
    }
}

/// Whether a repository's git index tracks a file, asked of `git` itself.
mod git {
    use std::path::Path;
    use std::process::{Command, Stdio};
    use std::time::Duration;

    /// How long git may take to answer. `ls-files` on one path answers in
    /// milliseconds even in a large repository; a git that has not answered
    /// by then is stuck (a FIFO planted as `.git/index`, a hung network
    /// file system) and will not.
    const ANSWER_WITHIN: Duration = Duration::from_secs(5);

    /// Whether the git index of the repository holding `root` tracks
    /// `root/name`.
    ///
    /// `git` is looked up only in the absolute entries of `PATH`, so an empty
    /// or `.` entry cannot run a `git` planted in the repository, and it is
    /// run with an argv, never a shell. Where there is no `git`, where `root`
    /// is not in a repository, or where git cannot answer (in time), the
    /// answer is "not tracked": this check narrows a hazard the spec leaves
    /// open, and without git nobody can have cloned the file in the first
    /// place.
    pub(super) fn tracks(root: &Path, name: &str) -> bool {
        tracks_within(root, name, ANSWER_WITHIN)
    }

    fn tracks_within(root: &Path, name: &str, limit: Duration) -> bool {
        let Ok(git) = io_hooks::resolve_program("git", root) else {
            return false;
        };
        let mut command = Command::new(git);
        // Only the repository at `root` matters, not how this process was
        // started: a git hook's GIT_DIR or temporary GIT_INDEX_FILE, a
        // GIT_CEILING_DIRECTORIES that hides the repository, pathspec modes.
        for (key, _) in std::env::vars_os() {
            if key.as_encoded_bytes().starts_with(b"GIT_") {
                command.env_remove(key);
            }
        }
        command
            // Nothing is fetched for a partial clone's missing objects (a
            // fetch would run the transport a hostile config names).
            .env("GIT_NO_LAZY_FETCH", "1")
            .arg("--no-pager")
            // A `.git/config` that came with a tarball rather than a clone
            // could name commands; none that `ls-files` could reach may run.
            .args(["-c", "core.fsmonitor=false"])
            .args(["-c", "core.hooksPath=/dev/null"])
            // A repository another user owns is refused by git ("dubious
            // ownership") because its config could run commands; with the
            // overrides above `ls-files` runs none, and without the answer a
            // checkout made by another uid would load cloned hooks.
            .args(["-c", "safe.directory=*"])
            .arg("-C")
            .arg(root)
            .args(["ls-files", "--error-unmatch", "--", name])
            .current_dir(root)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // Spawned and waited on as a `run` hook is: its own process group,
        // killed and reaped at the deadline. Exit 0 is "tracked"; anything
        // else, a timeout included, is "not tracked".
        io_hooks::run_command(command, b"", limit).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn io_config_home_comes_first() {
        let vars = [
            ("IO_CONFIG_HOME", "/cfg"),
            ("XDG_CONFIG_HOME", "/xdg"),
            ("HOME", "/home/me"),
        ];
        assert_eq!(user_dir_from(env(&vars)), Some(PathBuf::from("/cfg")));
    }

    #[test]
    fn xdg_config_home_comes_next_and_must_be_absolute() {
        let vars = [("XDG_CONFIG_HOME", "/xdg"), ("HOME", "/home/me")];
        assert_eq!(user_dir_from(env(&vars)), Some(PathBuf::from("/xdg/io")));
        let vars = [("XDG_CONFIG_HOME", "rel"), ("HOME", "/home/me")];
        assert_eq!(
            user_dir_from(env(&vars)),
            Some(PathBuf::from("/home/me/.config/io"))
        );
    }

    #[test]
    fn empty_variables_count_as_unset() {
        let vars = [
            ("IO_CONFIG_HOME", ""),
            ("XDG_CONFIG_HOME", ""),
            ("HOME", "/h"),
        ];
        assert_eq!(
            user_dir_from(env(&vars)),
            Some(PathBuf::from("/h/.config/io"))
        );
        assert_eq!(user_dir_from(env(&[])), None);
    }

    #[test]
    fn hook_keys_are_found_on_the_parsed_document() {
        let doc: toml::Table = toml::from_str(
            "\"\\u0068ook\" = []\n[profile.\"my ci\"]\nhook.x = 1\n[profile.b]\nmodel = 1\n",
        )
        .unwrap();
        assert_eq!(hook_keys(&doc), ["hook", "profile.\"my ci\".hook"]);
    }
}
