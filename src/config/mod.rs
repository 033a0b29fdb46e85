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

mod config_error;
mod discover;
mod read;
mod regular;

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use io_beneath::Root;
use io_hooks::text::did_you_mean;
use io_hooks::{HookEnv, HookSpec};

use crate::event::EventKind;

pub use config_error::ConfigError;
pub(crate) use regular::read_regular;

/// The hooks observer for io-harness's events: what [`Config::hooks`]
/// returns and what the run loop is handed.
pub type Hooks = io_hooks::Hooks<EventKind>;

/// The file name of the project and user scopes.
pub const PROJECT_FILE: &str = "io.toml";
/// The file name of the local scope: gitignored, and the operator's own.
pub const LOCAL_FILE: &str = "io.local.toml";

/// Where io's files declare hooks (the top level and each
/// `[profile.<name>]` body), and the spec's names for its files, which the
/// engine's refusals quote: the engine knows none of them. The loop's
/// tools and their arguments ([`TOOLS`](crate::tool_name::TOOLS)) are
/// what `where.args.<name>` is checked against.
pub(crate) fn hook_layout() -> io_hooks::Layout {
    io_hooks::Layout::new()
        .section("profile", "a profile")
        .project_file(PROJECT_FILE)
        .operator_file(LOCAL_FILE)
        .operator_place("the user-scope file")
        .tools(&crate::tool_name::TOOLS)
}

/// Where a config file sits, which decides what it may declare.
///
/// Scopes are read in this order, and a later one wins where they differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// The operator's own file: `$IO_CONFIG_HOME/io.toml`, else
    /// `$XDG_CONFIG_HOME/io/io.toml`, else `$HOME/.config/io/io.toml`
    /// (on Windows, `%IO_CONFIG_HOME%\io.toml`, else
    /// `%APPDATA%\io\io.toml`).
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
    /// Whether the file lies where it was looked for, every link followed,
    /// so that its words may be printed: the names of its profiles are not
    /// listed otherwise.
    shown: bool,
    /// Whether its hooks load only because the operator trusted this very
    /// content with `io trust`.
    trusted: bool,
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

    /// Whether its hooks load only because the operator trusted this very
    /// content (`io trust`, the [`io_trust::store`]): nothing else showed
    /// it is theirs (no git work tree, another owner, a directory others
    /// may write, an index that cannot be read).
    pub fn trusted(&self) -> bool {
        self.trusted
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
    /// else `$XDG_CONFIG_HOME/io`, else `$HOME/.config/io` (on Windows,
    /// `%IO_CONFIG_HOME%`, else `%APPDATA%\io`).
    ///
    /// `root` is the discovery root: it must be a directory, and is made
    /// absolute (without resolving symbolic links), so a relative `append`
    /// path means the same file whatever the process's directory later is.
    ///
    /// # Errors
    /// See [`ConfigError`]; each names the file it is about.
    pub fn discover(root: impl AsRef<Path>) -> Result<Self, ConfigError> {
        Self::discover_with_data(
            root.as_ref(),
            Self::user_dir().as_deref(),
            Self::data_dir().as_deref(),
        )
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
        discover::discover(root, user_dir, None)
    }

    /// [`discover_with`](Self::discover_with), with the operator's data
    /// directory given too: the trust store `io trust` records in
    /// ([`io_trust::store::Store`]) is asked about a file that declares
    /// hooks when the evidence does not show it is the operator's. `None`
    /// asks no store, so such a file is refused.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use io_harness::{Config, ConfigError};
    ///
    /// // An unpacked archive: no git work tree says whose file it is.
    /// let root = tempfile::tempdir()?;
    /// let data = tempfile::tempdir()?;
    /// let text = "[[hook]]\nappend = \"audit.jsonl\"\n";
    /// let local = root.path().join("io.local.toml");
    /// std::fs::write(&local, text)?;
    /// let refused = Config::discover_with_data(root.path(), None, Some(data.path()));
    /// assert!(matches!(refused, Err(ConfigError::Untrusted { .. })));
    ///
    /// // What `io trust` records.
    /// io_trust::store::Store::new(data.path()).trust(&local, text.as_bytes())?;
    /// let config = Config::discover_with_data(root.path(), None, Some(data.path()))?;
    /// assert_eq!(config.hook_specs().len(), 1);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`discover`](Self::discover).
    pub fn discover_with_data(
        root: &Path,
        user_dir: Option<&Path>,
        data_dir: Option<&Path>,
    ) -> Result<Self, ConfigError> {
        discover::discover(root, user_dir, data_dir)
    }

    /// The user-scope directory the environment names: `$IO_CONFIG_HOME` if
    /// set, else `$XDG_CONFIG_HOME/io`, else `$HOME/.config/io`. An empty
    /// variable, or one holding a relative path, counts as unset (the XDG
    /// specification says so of `XDG_CONFIG_HOME`; a relative one would name
    /// a directory in the repository `io` runs in). `None` when none applies.
    ///
    /// On Windows: `%IO_CONFIG_HOME%` if set, else `%APPDATA%\io`, else
    /// `io` in Windows' roaming application data folder when `APPDATA` is
    /// unset; `XDG_CONFIG_HOME` and `HOME` are not read there.
    pub fn user_dir() -> Option<PathBuf> {
        discover::user_dir_from(|name| std::env::var_os(name))
    }

    /// The variables [`Config::user_dir`] passed over because each holds a
    /// relative path, as `NAME=value`, in the order it looked at them: what
    /// the line that says which hooks are in force names, since a
    /// user-scope file they would have led to was not read.
    pub fn user_dir_passed_over() -> Vec<String> {
        discover::user_dir_passed_over(|name| std::env::var_os(name))
    }

    /// The operator's data directory, where `io` keeps what is the operator's
    /// alone (the files they trusted, the key that authenticates journals):
    /// `$IO_DATA_HOME` if set, else `$XDG_DATA_HOME/io`, else
    /// `$HOME/.local/share/io`, each counted only when absolute, as for
    /// [`Config::user_dir`]. `None` when none applies. On Windows:
    /// `%IO_DATA_HOME%` if set, else `%APPDATA%\io` (the user-scope
    /// directory's place: etcetera's data directory there is `%APPDATA%`
    /// too).
    pub fn data_dir() -> Option<PathBuf> {
        discover::data_dir_from(|name| std::env::var_os(name))
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
        let source = read::load(Path::new(PROJECT_FILE), Scope::Project, text, &root, None)?;
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
    /// `[profile.<name>]`, listing those that do, but for those of a file
    /// that is a symbolic link leading out of where it was looked for
    /// (whose text is not ours to print, as a name of it would be).
    pub fn with_profile(mut self, name: &str) -> Result<Self, ConfigError> {
        let declared = self.profiles();
        if !declared.contains(&name) {
            let shown: BTreeSet<&str> = self
                .sources
                .iter()
                .filter(|s| s.shown)
                .flat_map(Source::profiles)
                .collect();
            let unlisted = declared.len() - shown.len();
            let known: Vec<&str> = shown.into_iter().collect();
            let suggestion = did_you_mean(name, known.iter().copied()).map(str::to_owned);
            return Err(ConfigError::UnknownProfile {
                name: name.to_owned(),
                suggestion,
                known: known.into_iter().map(str::to_owned).collect(),
                unlisted,
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

    /// Whether a git index tracks the file `rel` under the root, asked as
    /// it is asked of `io.local.toml` (every enclosing work tree's index,
    /// read by [`io_trust::index::tracking`], any case, through a link): a
    /// tracked file came with the clone. `Err` with the reason when an
    /// index on the way cannot be read.
    ///
    /// # Errors
    /// When an index on the way cannot be read; the caller refuses the file.
    pub fn tracks(&self, rel: &Path) -> Result<bool, String> {
        match io_trust::index::tracking(&self.root.join(rel)) {
            Ok(io_trust::index::Tracking::Tracked { .. }) => Ok(true),
            Ok(_) => Ok(false),
            Err(e) => Err(e.to_string()),
        }
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
        self.hooks_from(self.hook_specs().to_vec())
    }

    /// Builds a [`Hooks`] observer from `specs` (say, a chosen few of
    /// [`hook_specs`](Self::hook_specs)) as [`hooks`](Self::hooks) does: in
    /// this config's discovery root, and on the process's
    /// [`Supervisor`](io_supervisor::Supervisor), so that a signal to `io`
    /// ends them too.
    ///
    /// A `run` hook's child is given `IO_ROOT`, `IO_EVENT` and `IO_HOOK`
    /// ([`hook_env`](Self::hook_env) with no run), and no `IO_RUN_ID`;
    /// give the hooks `Config::hook_env(Some(run_id))` with
    /// [`Hooks::with_env`](io_hooks::Hooks::with_env) for a run.
    pub fn hooks_from(&self, specs: Vec<HookSpec<EventKind>>) -> Hooks {
        Hooks::beneath(specs, self.hooks_root())
            .with_supervisor(crate::supervisor::process_supervisor().clone())
            .with_env(Self::hook_env(None))
    }

    /// Returns the variables io gives a `run` hook's child beside the
    /// environment it inherits: `IO_ROOT`, the discovery root (absolute,
    /// not necessarily UTF-8); `IO_EVENT`, the event's tag; `IO_HOOK`, the
    /// hook's `name`, else its key path as written (`hook[2]`,
    /// `profile.ci.hook[1]`); and `IO_RUN_ID`, `run_id`, the run `io run`
    /// started or resumes (its journal's and `io runs`' id, the top-level
    /// run's even for a child run's event), or, with `None` (`io replay`,
    /// which is no run), removed from what the child inherits, so that an
    /// `IO_RUN_ID` io was itself given by an outer run's hook never reads as
    /// this one's.
    ///
    /// ```
    /// use io_harness::{Config, HookEnv};
    /// assert_eq!(
    ///     Config::hook_env(None),
    ///     HookEnv::new().remove("IO_RUN_ID").root("IO_ROOT").event("IO_EVENT").hook("IO_HOOK")
    /// );
    /// ```
    pub fn hook_env(run_id: Option<&str>) -> HookEnv {
        let env = match run_id {
            Some(id) => HookEnv::new().set("IO_RUN_ID", id),
            None => HookEnv::new().remove("IO_RUN_ID"),
        };
        env.root("IO_ROOT").event("IO_EVENT").hook("IO_HOOK")
    }

    /// Returns the root the hooks are built in: this config's discovery
    /// root, whose `.io` (the runs' journals, notes and todo list) is io's
    /// own state ([`Root::own`]), which no hook's action reaches, by its
    /// name, through `..` or through a symbolic link.
    pub fn hooks_root(&self) -> Root {
        Root::lazy(&self.root).own(".io")
    }
}
