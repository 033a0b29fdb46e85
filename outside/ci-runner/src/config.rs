//! The runner's two files, and the rules for each.
//!
//! - `ci.toml` is the project's file: committed, so it arrives with a clone.
//!   It declares the pipelines (`[[pipeline.<name>.job]]`) and may declare
//!   no hook at all, since a hook runs a program on the machine that loads
//!   it.
//! - `ci.local.toml` is the operator's file, beside it and never committed.
//!   It declares hooks: at the top level (`[[hook]]`, for every pipeline),
//!   or for one pipeline of `ci.toml` (`[[pipeline.<name>.hook]]`).

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use io_hooks::text::{did_you_mean, toml_key};
use io_hooks::{HookSpec, HookTables, Layout, TableError, TomlFile};
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
        }
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
    /// is one.
    ///
    /// # Errors
    /// The first problem, as a [`ConfigError`].
    pub fn load(root: &Path) -> Result<Config, ConfigError> {
        let read = |name: &str| {
            let path = root.join(name);
            #[allow(
                clippy::disallowed_methods,
                reason = "the runner's own ci.toml, read as an outside crate reads its config: \
                          this adopter shows io-hooks' API, not io's file rules"
            )]
            std::fs::read_to_string(&path).map_err(|cause| ConfigError::Read { path, cause })
        };
        let project = read(PROJECT_FILE)?;
        let operator = match read(OPERATOR_FILE) {
            Ok(text) => Some(text),
            Err(ConfigError::Read { cause, .. }) if cause.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        Config::from_texts(root, &project, operator.as_deref())
    }

    /// [`load`](Self::load), from the files' texts.
    ///
    /// # Errors
    /// The first problem, as a [`ConfigError`].
    pub fn from_texts(
        root: &Path,
        project: &str,
        operator: Option<&str>,
    ) -> Result<Config, ConfigError> {
        let layout = layout();
        let pipelines = read_project(&TomlFile::project(PROJECT_FILE, project).layout(&layout))?;
        let mut config = Config {
            pipelines,
            hooks: Vec::new(),
            pipeline_hooks: BTreeMap::new(),
        };
        if let Some(text) = operator {
            config.read_operator(&TomlFile::new(OPERATOR_FILE, text).layout(&layout), root)?;
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
