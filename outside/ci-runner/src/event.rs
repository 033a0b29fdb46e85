//! The runner's events: what a `[[hook]]` in `ci.local.toml` can ask for by
//! name in its `on`, and what it receives as one JSON line.

use io_hooks::HookEvents;
use serde::Serialize;

/// Something the runner did. Each is written as one JSON object whose
/// `event` key is its tag (`{"event":"job_started","job":{…}}`).
#[derive(Debug, Clone, PartialEq, Eq, HookEvents, Serialize)]
#[serde(tag = "event")]
pub enum CiEvent {
    /// The runner is ready to take pipelines; once per runner.
    #[serde(rename = "runner_ready")]
    RunnerReady,
    /// A pipeline started, with how many jobs it has.
    #[serde(rename = "pipeline_started")]
    PipelineStarted {
        /// The pipeline's name.
        pipeline: String,
        /// How many jobs it declares.
        jobs: usize,
    },
    /// A job was queued; every job of a pipeline is queued when it starts.
    #[serde(rename = "job_queued")]
    JobQueued(JobRef),
    /// A job started its first command.
    #[serde(rename = "job_started")]
    JobStarted {
        /// The job.
        job: JobRef,
    },
    /// One of a job's commands ended.
    #[serde(rename = "command_finished")]
    CommandFinished {
        /// The job.
        job: JobRef,
        /// The command, as written in `ci.toml`.
        argv: Vec<String>,
        /// Whether it exited with status 0.
        ok: bool,
        /// Why it failed, when it did.
        failure: Option<String>,
    },
    /// A job ended: all its commands passed, one failed, or a hook stopped it.
    #[serde(rename = "job_finished")]
    JobFinished {
        /// The job.
        job: JobRef,
        /// How it ended.
        outcome: Outcome,
    },
    /// A pipeline ended.
    #[serde(rename = "pipeline_finished")]
    PipelineFinished {
        /// The pipeline's name.
        pipeline: String,
        /// How it ended.
        outcome: Outcome,
    },
    /// The runner is shutting down; once per runner.
    #[serde(rename = "runner_stopping")]
    RunnerStopping,
}

/// Which job an event is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobRef {
    /// The pipeline the job belongs to.
    pub pipeline: String,
    /// The job's name in that pipeline.
    pub name: String,
    /// Its position in the pipeline, from 1.
    pub number: usize,
}

/// How a job or a pipeline ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every command exited with status 0.
    Passed,
    /// A command failed.
    Failed,
    /// A hook with `on_failure = "cancel"` failed, so the runner stopped.
    Cancelled,
}

impl CiEvent {
    /// One value of every kind, in declaration order: for
    /// [`io_hooks::check_tags`], and for a reader of the events' shapes.
    pub fn examples() -> Vec<CiEvent> {
        let job = JobRef {
            pipeline: "check".to_owned(),
            name: "test".to_owned(),
            number: 1,
        };
        vec![
            CiEvent::RunnerReady,
            CiEvent::PipelineStarted {
                pipeline: "check".to_owned(),
                jobs: 1,
            },
            CiEvent::JobQueued(job.clone()),
            CiEvent::JobStarted { job: job.clone() },
            CiEvent::CommandFinished {
                job: job.clone(),
                argv: vec!["true".to_owned()],
                ok: true,
                failure: None,
            },
            CiEvent::JobFinished {
                job,
                outcome: Outcome::Passed,
            },
            CiEvent::PipelineFinished {
                pipeline: "check".to_owned(),
                outcome: Outcome::Passed,
            },
            CiEvent::RunnerStopping,
        ]
    }
}
