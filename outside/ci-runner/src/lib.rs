//! A small CI runner, written as an outside crate adopting
//! [`io_hooks`]: it uses only io-hooks' published API, and its operators
//! meet only its own words.
//!
//! A project commits `ci.toml`, its pipelines:
//!
//! ```toml
//! [[pipeline.check.job]]
//! name = "test"
//! commands = [["make", "test"]]
//! ```
//!
//! An operator keeps hooks in `ci.local.toml` beside it, for every pipeline
//! or for one:
//!
//! ```toml
//! [[hook]]
//! append = "ci-events.jsonl"
//!
//! [[pipeline.check.hook]]
//! on = ["job_finished"]
//! run = ["./notify"]
//! on_failure = "cancel"
//! ```
//!
//! Its hooks load only when the file is shown to be the operator's
//! ([`io_trust::judge`]): untracked in their git work tree and theirs
//! alone, or trusted as it is now with [`Ci::trust`]; a committed
//! `ci.local.toml` never runs. [`Ci::load`] takes the runner's data
//! directory, where that trust is kept.
//!
//! [`Ci::run`] runs a pipeline on the calling thread; [`Ci::run_async`]
//! runs it as a tokio task, each event and each command on a blocking
//! thread. A hook with `on_failure = "cancel"` that fails stops the
//! pipeline: its job and the pipeline end [`Outcome::Cancelled`].

#![forbid(unsafe_code)]

mod config;
mod event;
mod plan;
pub mod status;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use io_hooks::text::{did_you_mean, toml_key};
use io_hooks::{Flow, HookEvents, HookRun, Hooks};
use io_supervisor::Supervisor;

pub use config::{
    Config, ConfigError, DEFAULT_COMMAND_TIMEOUT, Job, OPERATOR_FILE, PROJECT_FILE, layout,
};
pub use event::{CiEvent, JobRef, Outcome};
use plan::{Next, Plan};

/// The runner: the pipelines of `ci.toml` and the hooks of `ci.local.toml`.
#[derive(Debug)]
pub struct Ci {
    root: PathBuf,
    pipelines: BTreeMap<String, Vec<Job>>,
    /// The top-level hooks: every pipeline's events, and the runner's own.
    hooks: Hooks<CiEvent>,
    /// Each pipeline's own hooks.
    pipeline_hooks: BTreeMap<String, Hooks<CiEvent>>,
    supervisor: Supervisor,
}

/// How a pipeline ended, and what its hooks said on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// How it ended.
    pub outcome: Outcome,
    /// Each hook that failed, as a message for the operator.
    pub hook_failures: Vec<String>,
}

/// What firing one event came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fired {
    /// [`Flow::Cancel`] when a failed hook had `on_failure = "cancel"`.
    pub flow: Flow,
    /// Each hook that failed, as a message for the operator.
    pub failures: Vec<String>,
}

/// A pipeline name `ci.toml` does not declare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoSuchPipeline {
    /// The name asked for.
    pub name: String,
    /// A declared name close to it.
    pub suggestion: Option<String>,
}

impl fmt::Display for NoSuchPipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{PROJECT_FILE}` has no pipeline `{}`", self.name)?;
        match &self.suggestion {
            Some(s) => write!(f, " (did you mean `{s}`?)"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for NoSuchPipeline {}

impl Ci {
    /// Reads `ci.toml` and `ci.local.toml` in `root`, and builds the hooks;
    /// `data_dir` is the runner's data directory, whose trust store says
    /// which `ci.local.toml` contents the operator trusted
    /// ([`Config::load`] says when it is asked).
    ///
    /// # Errors
    /// The first problem in the files, or a `ci.local.toml` that declares
    /// hooks and is not shown to be the operator's
    /// ([`ConfigError::Tracked`], [`ConfigError::Untrusted`]).
    pub fn load(root: &Path, data_dir: &Path) -> Result<Ci, ConfigError> {
        Ok(Ci::new(Config::load(root, data_dir)?, root))
    }

    /// The operator's word that the `ci.local.toml` of `root`, as it is
    /// now, is theirs: its path and the SHA-256 of its content, recorded in
    /// the trust store of `data_dir` (`trusted-files`, the directory made
    /// 0700 when missing), so that [`load`](Self::load) loads its hooks
    /// where nothing else shows the file is theirs (an unpacked archive, a
    /// directory someone else may write). An edit needs trusting again.
    /// Returns the record.
    ///
    /// Call it only once the operator has read the file. To take it back,
    /// `io_trust::store::Store::new(data_dir).untrust(&root.join(OPERATOR_FILE))`;
    /// `Store::list` shows every record.
    ///
    /// # Errors
    /// [`ConfigError::Read`] when there is no `ci.local.toml` to read,
    /// [`ConfigError::Tracked`] when a git index lists it (a file that came
    /// with the clone is never the operator's, trusted or not), and
    /// [`ConfigError::TrustStore`] when the store cannot be read or written.
    pub fn trust(root: &Path, data_dir: &Path) -> Result<io_trust::store::Trusted, ConfigError> {
        config::trust(root, data_dir)
    }

    /// The runner of `config`, whose commands and `run` hooks work in
    /// `root`, where relative `append` paths are too.
    pub fn new(config: Config, root: &Path) -> Ci {
        let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
        let supervisor = Supervisor::new();
        let build = |specs| Hooks::new(specs, &root).with_supervisor(supervisor.clone());
        let pipeline_hooks = config
            .pipeline_hooks
            .into_iter()
            .map(|(name, specs)| (name, build(specs)))
            .collect();
        Ci {
            hooks: build(config.hooks),
            pipeline_hooks,
            pipelines: config.pipelines,
            root,
            supervisor,
        }
    }

    /// The pipelines' names.
    pub fn pipelines(&self) -> impl Iterator<Item = &str> {
        self.pipelines.keys().map(String::as_str)
    }

    /// Returns the supervisor of every command and `run` hook in flight:
    /// what a Ctrl-C calls, whose `interrupt` kills them all and refuses to
    /// start another.
    pub fn supervisor(&self) -> Supervisor {
        self.supervisor.clone()
    }

    /// What is wrong with the hooks as written (a program not installed, a
    /// log whose directory is missing), one message each, with what to do.
    pub fn problems(&self) -> Vec<String> {
        self.all_hooks()
            .flat_map(|(key, hooks)| {
                hooks.problems().iter().map(move |p| {
                    let mut line =
                        format!("{OPERATOR_FILE}: `{key}[{}]`: {}", p.number(), p.message());
                    if let Some(hint) = p.hint() {
                        line.push_str(&format!("; {hint}"));
                    }
                    line
                })
            })
            .collect()
    }

    fn all_hooks(&self) -> impl Iterator<Item = (String, &Hooks<CiEvent>)> {
        let each = self
            .pipeline_hooks
            .iter()
            .map(|(name, hooks)| (format!("pipeline.{}.hook", toml_key(name)), hooks));
        std::iter::once(("hook".to_owned(), &self.hooks)).chain(each)
    }

    /// Fires `event` to the top-level hooks, and to `pipeline`'s own.
    ///
    /// # Blocking
    /// Until every matching hook has finished: call it from a blocking
    /// thread in an async program, as [`run_async`](Self::run_async) does.
    pub fn fire(&self, pipeline: Option<&str>, event: &CiEvent) -> Fired {
        let mut failures = Vec::new();
        let mut flow = fire_on(&self.hooks, "hook", event, &mut failures);
        if let Some((name, hooks)) = pipeline.and_then(|p| self.pipeline_hooks.get_key_value(p)) {
            let key = format!("pipeline.{}.hook", toml_key(name));
            if fire_on(hooks, &key, event, &mut failures) == Flow::Cancel {
                flow = Flow::Cancel;
            }
        }
        Fired { flow, failures }
    }

    /// Runs one command of a job in the root, as a `run` hook runs: an argv,
    /// no shell, its own process group, killed at `timeout` or on an
    /// interrupt.
    ///
    /// # Errors
    /// Why it failed, for the operator.
    pub fn command(&self, argv: &[String], timeout: Duration) -> Result<(), String> {
        self.supervisor
            .run_argv(argv, &self.root, b"", Stdio::null(), timeout)
            .map_err(|failure| failure.to_string())
    }

    fn jobs(&self, pipeline: &str) -> Result<&[Job], NoSuchPipeline> {
        self.pipelines
            .get(pipeline)
            .map(Vec::as_slice)
            .ok_or_else(|| NoSuchPipeline {
                name: pipeline.to_owned(),
                suggestion: did_you_mean(pipeline, self.pipelines()).map(str::to_owned),
            })
    }

    /// Runs `pipeline` on this thread: each job's commands in order, until
    /// one fails or a hook cancels.
    ///
    /// # Errors
    /// When `ci.toml` has no such pipeline.
    pub fn run(&self, pipeline: &str) -> Result<Report, NoSuchPipeline> {
        let mut plan = Plan::new(pipeline, self.jobs(pipeline)?);
        let mut hook_failures = Vec::new();
        loop {
            match plan.next() {
                Next::Fire(event) => {
                    let fired = self.fire(Some(pipeline), &event);
                    hook_failures.extend(fired.failures);
                    plan.answered(fired.flow);
                }
                Next::Command { argv, timeout } => plan.ran(self.command(&argv, timeout)),
                Next::Done(outcome) => {
                    return Ok(Report {
                        outcome,
                        hook_failures,
                    });
                }
            }
        }
    }

    /// [`run`](Self::run) as a tokio task: every event is fired, and every
    /// command run, through `spawn_blocking`, so no worker thread of the
    /// runtime waits on a hook or a command. Pipelines run side by side as
    /// tasks; [`supervisor`](Self::supervisor) ends what is in
    /// flight in all of them.
    ///
    /// # Errors
    /// When `ci.toml` has no such pipeline.
    pub async fn run_async(self: Arc<Self>, pipeline: String) -> Result<Report, NoSuchPipeline> {
        let mut plan = Plan::new(&pipeline, self.jobs(&pipeline)?);
        let mut hook_failures = Vec::new();
        loop {
            match plan.next() {
                Next::Fire(event) => {
                    let (ci, name) = (Arc::clone(&self), pipeline.clone());
                    let fired = tokio::task::spawn_blocking(move || ci.fire(Some(&name), &event))
                        .await
                        .unwrap_or_else(|e| Fired {
                            flow: Flow::Cancel,
                            failures: vec![format!("the hooks' thread failed: {e}")],
                        });
                    hook_failures.extend(fired.failures);
                    plan.answered(fired.flow);
                }
                Next::Command { argv, timeout } => {
                    let ci = Arc::clone(&self);
                    let result = tokio::task::spawn_blocking(move || ci.command(&argv, timeout))
                        .await
                        .unwrap_or_else(|e| Err(format!("its thread failed: {e}")));
                    plan.ran(result);
                }
                Next::Done(outcome) => {
                    return Ok(Report {
                        outcome,
                        hook_failures,
                    });
                }
            }
        }
    }
}

/// Fires `event` on `hooks`, whose array is `key` in `ci.local.toml`,
/// adding a message for each hook that failed.
fn fire_on(hooks: &Hooks<CiEvent>, key: &str, event: &CiEvent, failures: &mut Vec<String>) -> Flow {
    hooks.fire_with(event, event, |run: HookRun<'_>| {
        if let Err(failure) = run.result {
            let verdict = match hooks.spec(run.index).map(|s| s.on_failure) {
                Some(Flow::Cancel) => "so the pipeline stops",
                _ => "and the pipeline goes on",
            };
            failures.push(format!(
                "{OPERATOR_FILE}: `{key}[{}]` failed on `{}`: {failure}, {verdict}",
                run.number(),
                event.tag()
            ));
        }
    })
}
