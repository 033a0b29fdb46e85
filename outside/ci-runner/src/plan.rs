//! What a pipeline does next, apart from how it is done: the synchronous
//! runner and the async one drive the same [`Plan`], so they cannot differ
//! in which events fire or when a pipeline stops.

use std::time::Duration;

use io_hooks::Flow;

use crate::config::Job;
use crate::{CiEvent, JobRef, Outcome};

/// What the driver does next.
#[derive(Debug)]
pub(crate) enum Next {
    /// Fire this event, then tell the plan the answer ([`Plan::answered`]).
    Fire(CiEvent),
    /// Run this command, then tell the plan how it ended ([`Plan::ran`]).
    Command {
        /// The argv.
        argv: Vec<String>,
        /// Its deadline.
        timeout: Duration,
    },
    /// The pipeline is over: this is how it ended.
    Done(Outcome),
}

/// Where a pipeline is.
#[derive(Debug, Clone, Copy)]
enum At {
    Start,
    Queue(usize),
    Begin(usize),
    Command(usize, usize),
    EndJob(usize),
    End,
    Done,
}

/// One pipeline's run, as a sequence of [`Next`]s.
#[derive(Debug)]
pub(crate) struct Plan<'a> {
    pipeline: &'a str,
    jobs: &'a [Job],
    at: At,
    /// The command that just ran and how, until its event is fired.
    ran: Option<(usize, usize, Result<(), String>)>,
    job_outcome: Outcome,
    outcome: Outcome,
}

impl<'a> Plan<'a> {
    pub(crate) fn new(pipeline: &'a str, jobs: &'a [Job]) -> Self {
        Plan {
            pipeline,
            jobs,
            at: At::Start,
            ran: None,
            job_outcome: Outcome::Passed,
            outcome: Outcome::Passed,
        }
    }

    fn job(&self, j: usize) -> JobRef {
        JobRef {
            pipeline: self.pipeline.to_owned(),
            name: self.jobs[j].name.clone(),
            number: j + 1,
        }
    }

    /// What to do now.
    pub(crate) fn next(&mut self) -> Next {
        if let Some((j, c, result)) = self.ran.take() {
            self.at = match (&result, self.jobs[j].commands.len() > c + 1) {
                (Ok(()), true) => At::Command(j, c + 1),
                _ => At::EndJob(j),
            };
            if result.is_err() {
                self.job_outcome = Outcome::Failed;
            }
            return Next::Fire(CiEvent::CommandFinished {
                job: self.job(j),
                argv: self.jobs[j].commands[c].clone(),
                ok: result.is_ok(),
                failure: result.err(),
            });
        }
        match self.at {
            At::Start => {
                self.at = if self.jobs.is_empty() {
                    At::End
                } else {
                    At::Queue(0)
                };
                Next::Fire(CiEvent::PipelineStarted {
                    pipeline: self.pipeline.to_owned(),
                    jobs: self.jobs.len(),
                })
            }
            At::Queue(j) => {
                self.at = if j + 1 < self.jobs.len() {
                    At::Queue(j + 1)
                } else {
                    At::Begin(0)
                };
                Next::Fire(CiEvent::JobQueued(self.job(j)))
            }
            At::Begin(j) => {
                self.job_outcome = Outcome::Passed;
                self.at = if self.jobs[j].commands.is_empty() {
                    At::EndJob(j)
                } else {
                    At::Command(j, 0)
                };
                Next::Fire(CiEvent::JobStarted { job: self.job(j) })
            }
            // The result comes back through `ran`; until then, stay here.
            At::Command(j, c) => Next::Command {
                argv: self.jobs[j].commands[c].clone(),
                timeout: self.jobs[j].timeout,
            },
            At::EndJob(j) => {
                let outcome = self.job_outcome;
                if outcome != Outcome::Passed && self.outcome == Outcome::Passed {
                    self.outcome = outcome;
                }
                let more = j + 1 < self.jobs.len() && self.outcome == Outcome::Passed;
                self.at = if more { At::Begin(j + 1) } else { At::End };
                Next::Fire(CiEvent::JobFinished {
                    job: self.job(j),
                    outcome,
                })
            }
            At::End => {
                self.at = At::Done;
                Next::Fire(CiEvent::PipelineFinished {
                    pipeline: self.pipeline.to_owned(),
                    outcome: self.outcome,
                })
            }
            At::Done => Next::Done(self.outcome),
        }
    }

    /// The answer to the event just fired: a cancel stops the pipeline, which
    /// still says how its job and itself ended.
    pub(crate) fn answered(&mut self, flow: Flow) {
        let over = matches!(self.at, At::Done);
        if flow != Flow::Cancel || self.outcome == Outcome::Cancelled || over {
            return;
        }
        self.outcome = Outcome::Cancelled;
        self.job_outcome = Outcome::Cancelled;
        self.at = match self.at {
            At::Command(j, _) | At::EndJob(j) => At::EndJob(j),
            _ => At::End,
        };
    }

    /// How the command [`Next::Command`] gave ended.
    pub(crate) fn ran(&mut self, result: Result<(), String>) {
        if let At::Command(j, c) = self.at {
            self.ran = Some((j, c, result));
        }
    }
}
