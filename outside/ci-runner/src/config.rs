//! The runner's two files, and the rules for each.
//!
//! - `ci.toml` is the project's file: committed, so it arrives with a clone.
//!   It declares the pipelines (`[[pipeline.<name>.job]]`) and may declare
//!   no hook at all, since a hook runs a program on the machine that loads
//!   it.
//! - `ci.local.toml` is the operator's file, beside it and never committed.
//!   It declares hooks: at the top level (`[[hook]]`, for every pipeline),
//!   or for one pipeline of `ci.toml` (`[[pipeline.<name>.hook]]`).
//!
//! Whose `ci.local.toml` it is, is not assumed: a clone may commit one and
//! an archive has nothing to say it was not shipped. [`Config::load`] asks
//! [`io_trust::judge`], the rule io itself asks of its own local file, before
//! any of its hooks is read (a file that declares none is not judged):
//!
//! - in a git work tree whose index does not list it, owned by the user
//!   running the runner and writable by no one else, it is the operator's;
//! - listed by an index, it came with the clone: refused, trusted or not;
//! - anywhere else (no work tree, another owner, writable by others, an
//!   index that cannot be read) only the content the operator trusted
//!   with [`Ci::trust`](crate::Ci::trust) loads, as recorded in the trust
//!   store of the runner's data directory; an edit needs trusting again.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use io_beneath::{Open, Root};
use io_hooks::text::{did_you_mean, pasteable_word, toml_key};
use io_hooks::{HookSpec, HookTables, Layout, TableError, TomlFile};
use io_trust::store::{Store, StoreError, Trusted};
use io_trust::{Place, Rejection, Verdict};
use serde::Deserialize;
use toml::Spanned;

use crate::CiEvent;

/// The project's file, committed with the code.
pub const PROJECT_FILE: &str = "ci.toml";
/// The operator's file, beside [`PROJECT_FILE`], never committed.
pub const OPERATOR_FILE: &str = "ci.local.toml";
/// How long a command may run when its job gives no `timeout_ms`.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(600);

/// The runner's files in the words io-hooks' messages use: pipelines are
/// sections whose bodies declare hooks, `ci.toml` is what a clone brings,
/// `ci.local.toml` is where hooks go instead; and the runner's own action,
/// `status` ([`StatusKind`](crate::status::StatusKind)), beside `append`
/// and `run`.
pub fn layout() -> Layout {
    Layout::new()
        .section("pipeline", "a pipeline")
        .project_file(PROJECT_FILE)
        .operator_file(OPERATOR_FILE)
        .action(crate::status::StatusKind)
}

/// One job of a pipeline: commands run in order, each an argv (no shell).
#[derive(Debug, Clone)]
pub struct Job {
    /// The job's name.
    pub name: String,
    /// Its commands, in order.
    pub commands: Vec<Vec<String>>,
    /// How long each command may run.
    pub timeout: Duration,
}

/// Both files, read and checked.
#[derive(Debug)]
pub struct Config {
    /// The pipelines of `ci.toml`, by name.
    pub pipelines: BTreeMap<String, Vec<Job>>,
    /// The top-level hooks of `ci.local.toml`.
    pub hooks: Vec<HookSpec<CiEvent>>,
    /// Each pipeline's own hooks, from `ci.local.toml`.
    pub pipeline_hooks: BTreeMap<String, Vec<HookSpec<CiEvent>>>,
}

/// Why the files could not be loaded. Its `Display` is one message for the
/// operator: the file, the key, what is wrong, and where.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConfigError {
    /// A file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: io::Error,
    },
    /// A file is not valid: io-hooks' message, in this runner's words, or
    /// one of this runner's own checks (a pipeline `ci.toml` does not have,
    /// an empty command), made with [`TableError::custom`] to read the same.
    Table(TableError),
    /// A git index lists `ci.local.toml`: it came with the clone, as
    /// `ci.toml` does, so its hooks are not loaded, and trusting it changes
    /// nothing.
    Tracked {
        /// The file.
        path: PathBuf,
        /// The first key that declares hooks (`hook`,
        /// `pipeline.<name>.hook`); `None` when [`Ci::trust`](crate::Ci::trust)
        /// was asked to trust it.
        key: Option<String>,
        /// The work tree whose index lists it.
        work_tree: PathBuf,
        /// The path that index lists, from the work tree's top.
        listed: PathBuf,
    },
    /// `ci.local.toml` declares hooks, nothing shows it is the operator's
    /// (no git work tree holds it, another user owns it, others may write
    /// it, or an index cannot be read), and the operator has not trusted
    /// this content with [`Ci::trust`](crate::Ci::trust): its hooks are not
    /// loaded. The decision is [`io_trust::judge`]'s.
    Untrusted {
        /// The file.
        path: PathBuf,
        /// The first key that declares hooks.
        key: String,
        /// Why, in io-trust's words ([`Verdict`]'s `Display`).
        reason: String,
        /// Whether the operator trusted another content of it: it changed
        /// since.
        changed: bool,
        /// The trust store asked ([`Store::file`]).
        store: PathBuf,
    },
    /// The trust store could not be read (so whether the operator trusted
    /// `ci.local.toml` cannot be told: never taken for "not trusted" in
    /// silence, nor for "trusted"), or written by
    /// [`Ci::trust`](crate::Ci::trust).
    TrustStore {
        /// The operator's file in question.
        path: PathBuf,
        /// What is wrong with the store, naming it and the fix.
        cause: StoreError,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Read { path, cause } => write!(
                f,
                "{}: could not be read: {}",
                path.display(),
                io_hooks::text::os_error(cause)
            ),
            ConfigError::Table(e) => write!(f, "{e}"),
            ConfigError::Tracked {
                path,
                key,
                work_tree,
                listed,
            } => write_tracked(f, path, key.as_deref(), work_tree, listed),
            ConfigError::Untrusted {
                path,
                key,
                reason,
                changed,
                store,
            } => {
                write!(
                    f,
                    "{}: key `{key}`: this `{OPERATOR_FILE}` is not known to be yours \
                     ({reason}), so its hooks are not loaded. ",
                    path.display()
                )?;
                let what = match changed {
                    true => "Read what changed, then trust it again",
                    false => "Read it, then trust it",
                };
                write!(
                    f,
                    "{what} as it is now with the runner's `Ci::trust`, which records its \
                     content's hash in {}; any later edit needs trusting again.",
                    store.display()
                )
            }
            // The store's own error names the file it was asked about.
            ConfigError::TrustStore {
                cause: cause @ StoreError::Resolve { .. },
                ..
            } => write!(f, "{cause}"),
            ConfigError::TrustStore { path, cause } => write!(f, "{}: {cause}", path.display()),
        }
    }
}

/// A tracked `ci.local.toml`: why its hooks do not load, and the command
/// that untracks it, quoted to paste (or described, when it cannot be).
fn write_tracked(
    f: &mut fmt::Formatter<'_>,
    path: &Path,
    key: Option<&str>,
    work_tree: &Path,
    listed: &Path,
) -> fmt::Result {
    write!(f, "{}: ", path.display())?;
    match key {
        Some(key) => write!(f, "key `{key}`: ")?,
        None => f.write_str("not trusted: ")?,
    }
    write!(
        f,
        "this `{OPERATOR_FILE}` is listed by the git index of the work tree {}, so it \
         arrives with a clone just as `{PROJECT_FILE}` does, and its hooks never run, \
         trusted or not. ",
        work_tree.display()
    )?;
    match (
        pasteable_word(work_tree.as_os_str()),
        pasteable_word(listed.as_os_str()),
    ) {
        (Ok(top), Ok(file)) => write!(
            f,
            "Untrack it with `git -C {top} rm --cached -- {file}` and list it in \
             `.gitignore`."
        ),
        (Err(why), _) | (_, Err(why)) => write!(
            f,
            "Untrack it with `git rm --cached` in that work tree and list it in \
             `.gitignore` (a name {why}, so no command to paste is printed)."
        ),
    }
}

/// The message is whole, so `source()` is nothing, as io-hooks' own errors.
impl std::error::Error for ConfigError {}

impl From<TableError> for ConfigError {
    fn from(e: TableError) -> Self {
        ConfigError::Table(e)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectDoc {
    #[serde(default)]
    pipeline: BTreeMap<String, PipelineDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PipelineDoc {
    job: Vec<JobDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JobDoc {
    name: String,
    commands: Vec<Spanned<Vec<String>>>,
    timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OperatorDoc {
    hook: Option<HookTables>,
    #[serde(default)]
    pipeline: BTreeMap<String, Spanned<OperatorPipeline>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OperatorPipeline {
    hook: Option<HookTables>,
}

impl Config {
    /// Reads `ci.toml` in `root`, and `ci.local.toml` beside it when there
    /// is one, whose hooks load only when [`io_trust::judge`] finds it is
    /// the operator's: by evidence (untracked in a git work tree, theirs
    /// alone), or because they trusted this very content with
    /// [`Ci::trust`](crate::Ci::trust), in the trust store of `data_dir`,
    /// the runner's data directory (read only when the evidence does not
    /// suffice).
    ///
    /// ```
    /// use ci_runner::{Ci, Config, ConfigError};
    ///
    /// let archive = tempfile::tempdir()?; // unpacked: no `.git`
    /// let data = tempfile::tempdir()?;    // the runner's data directory
    /// std::fs::write(archive.path().join("ci.toml"), "")?;
    /// std::fs::write(archive.path().join("ci.local.toml"), "[[hook]]\nrun = [\"./notify\"]\n")?;
    ///
    /// let refused = Config::load(archive.path(), data.path()).unwrap_err();
    /// assert!(matches!(refused, ConfigError::Untrusted { .. }), "{refused}");
    ///
    /// // Once the operator has read it:
    /// Ci::trust(archive.path(), data.path())?;
    /// assert_eq!(Config::load(archive.path(), data.path())?.hooks.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The first problem, as a [`ConfigError`]: [`ConfigError::Tracked`]
    /// and [`ConfigError::Untrusted`] when `ci.local.toml` declares hooks
    /// and is not shown to be the operator's, [`ConfigError::TrustStore`]
    /// when the store had to be asked and cannot be read.
    pub fn load(root: &Path, data_dir: &Path) -> Result<Config, ConfigError> {
        let (_, project) = read(root, PROJECT_FILE)?;
        let path = root.join(OPERATOR_FILE);
        let operator = match read(root, OPERATOR_FILE) {
            Ok((_, text)) => Some(text),
            Err(ConfigError::Read { cause, .. }) if cause.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let store = Store::new(data_dir);
        Config::build(root, &project, operator.as_deref(), |file, text| {
            judged(&path, file, text, &store)
        })
    }

    /// [`load`](Self::load), from the files' texts, with no question of
    /// whose `operator` is: for a caller that has judged it itself, or a
    /// test that needs no trust.
    ///
    /// # Errors
    /// The first problem, as a [`ConfigError`].
    pub fn from_texts(
        root: &Path,
        project: &str,
        operator: Option<&str>,
    ) -> Result<Config, ConfigError> {
        Config::build(root, project, operator, |_, _| Ok(()))
    }

    /// Both texts read and checked, `judge` asked of the operator's before
    /// its hooks are read.
    fn build(
        root: &Path,
        project: &str,
        operator: Option<&str>,
        judge: impl FnOnce(&TomlFile<'_>, &str) -> Result<(), ConfigError>,
    ) -> Result<Config, ConfigError> {
        let layout = layout();
        let pipelines = read_project(&TomlFile::project(PROJECT_FILE, project).layout(&layout))?;
        let mut config = Config {
            pipelines,
            hooks: Vec::new(),
            pipeline_hooks: BTreeMap::new(),
        };
        if let Some(text) = operator {
            let file = TomlFile::new(OPERATOR_FILE, text).layout(&layout);
            judge(&file, text)?;
            config.read_operator(&file, root)?;
        }
        Ok(config)
    }

    fn read_operator(&mut self, file: &TomlFile<'_>, root: &Path) -> Result<(), ConfigError> {
        file.check_placement()?;
        let doc: OperatorDoc = file.deserialize()?;
        if let Some(tables) = doc.hook {
            self.hooks = tables.into_specs(file, "hook", root)?;
        }
        for (name, body) in doc.pipeline {
            if !self.pipelines.contains_key(&name) {
                return Err(self.unknown_pipeline(file, &name, body.span()).into());
            }
            if let Some(tables) = body.into_inner().hook {
                let key = format!("pipeline.{}.hook", toml_key(&name));
                let specs = tables.into_specs(file, &key, root)?;
                self.pipeline_hooks.insert(name, specs);
            }
        }
        Ok(())
    }
}

impl Config {
    /// `ci.local.toml` gives hooks to a pipeline `name` that `ci.toml` does
    /// not have, at `span`.
    fn unknown_pipeline(&self, file: &TomlFile<'_>, name: &str, span: Range<usize>) -> TableError {
        let mut message = format!("`{PROJECT_FILE}` has no pipeline `{name}`");
        if let Some(s) = did_you_mean(name, self.pipelines.keys().map(String::as_str)) {
            message.push_str(&format!(" (did you mean `{s}`?)"));
        }
        let known: Vec<String> = self.pipelines.keys().map(|k| format!("`{k}`")).collect();
        match known.as_slice() {
            [] => message.push_str("; it declares none"),
            _ => message.push_str(&format!("; its pipelines are {}", known.join(", "))),
        }
        TableError::custom(
            file,
            format!("pipeline.{}", toml_key(name)),
            message,
            Some(span),
        )
    }
}

/// The most bytes a config file of the runner's may hold.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The text of the file `name` in the checkout `root`, with its path.
///
/// The checkout is a clone's to shape, so the file is reached through
/// io-beneath, as the `status` action's is: a link that leads out of the
/// checkout (`ci.toml -> ~/.ssh/config`) is refused rather than read and
/// quoted in an error, and a FIFO or a device is refused rather than
/// waited on. The bytes read are the bytes judged and parsed.
fn read(root: &Path, name: &str) -> Result<(PathBuf, String), ConfigError> {
    let path = root.join(name);
    let failed = |cause| ConfigError::Read {
        path: path.clone(),
        cause,
    };
    let bytes = Root::open(root)
        .map_err(failed)?
        .open_file(Path::new(name), &Open::read())
        .map_err(|e| match e {
            io_beneath::Error::Io(e) => failed(e),
            other => failed(io::Error::other(other.to_string())),
        })?
        .read_bounded(MAX_CONFIG_BYTES)
        .map_err(failed)?
        .ok_or_else(|| failed(io::Error::other("it holds more than 1 MiB")))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        failed(io::Error::new(
            io::ErrorKind::InvalidData,
            "it is not UTF-8",
        ))
    })?;
    Ok((path, text))
}

/// Whether `ci.local.toml` at `path`, read as `file` holding `text`, may
/// load its hooks: [`io_trust::judge`] decides, asking `store` when the
/// evidence does not suffice. A file that declares no hook is not judged:
/// it can run nothing.
fn judged(path: &Path, file: &TomlFile<'_>, text: &str, store: &Store) -> Result<(), ConfigError> {
    let Some(key) = file.hook_keys()?.into_iter().next() else {
        return Ok(());
    };
    let verdict =
        io_trust::judge(path, text.as_bytes(), Place::Local, Some(store)).map_err(|cause| {
            ConfigError::TrustStore {
                path: path.to_path_buf(),
                cause,
            }
        })?;
    let path = path.to_path_buf();
    match verdict {
        Verdict::Operators(_) => Ok(()),
        Verdict::NotOperators(Rejection::Tracked { work_tree, listed }) => {
            Err(ConfigError::Tracked {
                path,
                key: Some(key),
                work_tree,
                listed,
            })
        }
        refused => Err(ConfigError::Untrusted {
            path,
            key,
            reason: refused.to_string(),
            changed: refused.changed(),
            store: store.file(),
        }),
    }
}

/// Records the `ci.local.toml` of `root`, as it is now, as the operator's
/// in the trust store of `data_dir`; refused when a git index lists it.
pub(crate) fn trust(root: &Path, data_dir: &Path) -> Result<Trusted, ConfigError> {
    let (path, text) = read(root, OPERATOR_FILE)?;
    let store_error = |cause| ConfigError::TrustStore {
        path: path.clone(),
        cause,
    };
    // No store: only whether an index lists it matters here.
    let verdict =
        io_trust::judge(&path, text.as_bytes(), Place::Local, None).map_err(store_error)?;
    if let Verdict::NotOperators(Rejection::Tracked { work_tree, listed }) = verdict {
        return Err(ConfigError::Tracked {
            path: path.clone(),
            key: None,
            work_tree,
            listed,
        });
    }
    Store::new(data_dir)
        .trust(&path, text.as_bytes())
        .map_err(store_error)
}

/// The pipelines of the project file, which may declare no hook.
fn read_project(file: &TomlFile<'_>) -> Result<BTreeMap<String, Vec<Job>>, ConfigError> {
    // The scope first: a misspelt or misplaced hook in `ci.toml` is told
    // that hooks belong in `ci.local.toml`, not how to write one here.
    file.check_scope()?;
    file.check_placement()?;
    let doc: ProjectDoc = file.deserialize()?;
    let mut pipelines = BTreeMap::new();
    for (name, body) in doc.pipeline {
        let mut jobs = Vec::with_capacity(body.job.len());
        for (j, job) in body.job.into_iter().enumerate() {
            let mut commands = Vec::with_capacity(job.commands.len());
            for (c, command) in job.commands.into_iter().enumerate() {
                if command.get_ref().first().is_none_or(String::is_empty) {
                    let key = format!(
                        "pipeline.{}.job[{}].commands[{}]",
                        toml_key(&name),
                        j + 1,
                        c + 1
                    );
                    let message = "a command names its program first, as in \
                                   `[\"make\", \"test\"]`, and this one is empty";
                    return Err(TableError::custom(file, key, message, Some(command.span())).into());
                }
                commands.push(command.into_inner());
            }
            jobs.push(Job {
                name: job.name,
                commands,
                timeout: job
                    .timeout_ms
                    .map_or(DEFAULT_COMMAND_TIMEOUT, Duration::from_millis),
            });
        }
        pipelines.insert(name, jobs);
    }
    Ok(pipelines)
}
