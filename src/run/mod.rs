//! A small, real run loop, so hooks have a run to react to.
//!
//! A run asks its [`Provider`] for a turn per step, streams the turn's text as
//! `token` events, puts each tool call through the [`Policy`] (and the
//! [`Approver`] when the policy asks), acts on a real workspace directory,
//! decides whether the step moved the workspace, commits the step to the
//! [`Store`] and emits `step`. An observer's [`Flow::Cancel`], from any
//! event, is honoured at the next step boundary: the step finishes, the run
//! records `cancelled` and returns [`RunOutcome::Cancelled`], resumable with
//! [`resume_observed`].
//!
//! The entry points are `async` because an embedder's loop awaits its model;
//! this reference loop does its work synchronously inside the future, so any
//! executor, `pollster::block_on` included, drives it.

pub(crate) mod boundary;
mod call;
mod policy;
mod provider;
mod script;
mod store;
mod tool_error;
mod tools;

use io_hooks::process::Tracked;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use std::{fmt, thread};

use io_hooks::text::OsMessage;
use io_hooks::{Flow, HookEvents};

pub use crate::event::now_rfc3339;
use crate::event::{EventKind, Outcome, RunEvent};
use crate::observer::Observer;

pub(crate) use call::TOOL_NAMES;
pub use policy::{ApprovalRequest, ApproveAll, Approver, DenyAll, Policy, Question, Rule};
pub use provider::{
    Provider, ProviderError, ScriptedOperator, ScriptedProvider, ToolCall, Turn, TurnRequest,
};
pub use store::{FileStore, Record, RunSummary, Store, StoreError, StoreLock};

use call::{Call, Tool};
use tools::{ToolError, ToolResult, Workspace};

/// What a run is asked to do, and its limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contract {
    /// The goal, given to the provider and carried by `started`.
    pub goal: String,
    /// The directory the tools act on.
    pub workspace: PathBuf,
    /// The run fails after this many steps without an answer.
    pub max_steps: u32,
    /// How deep a tree may grow: a child at this depth may not spawn.
    pub max_depth: u32,
    /// `stalled` fires after this many steps in a row move nothing.
    pub stall_after: u32,
    /// The wall-clock ceiling on each `exec` tool call.
    pub exec_timeout: Duration,
    /// The token budget `spend_draw` draws on.
    pub token_budget: u64,
    /// The run id to use; one is generated when absent.
    pub run_id: Option<String>,
    /// The MCP servers the `mcp` tool may call, by name: each an argv spoken
    /// to over stdio, one JSON-RPC request per call.
    pub mcp_servers: BTreeMap<String, Vec<String>>,
    /// Where the run's instructions came from, in the embedder's terms (for
    /// `io run`, the script's path): a name for messages. Kept in the
    /// journal; a child inherits it.
    pub origin: Option<String>,
    /// The instructions themselves (for `io run`, the script's text), pinned
    /// in the journal's `begin` record: a resume runs what the run began
    /// with, and reads no file the journal names (a journal's `origin`
    /// could name `~/.netrc`). A child inherits it.
    pub script: Option<String>,
}

impl Contract {
    /// A contract for `goal` in `workspace`, with the default limits: 50
    /// steps, depth 2, stalled after 3 idle steps, 30 s per command, a
    /// budget of 10 million tokens.
    pub fn new(goal: impl Into<String>, workspace: impl Into<PathBuf>) -> Self {
        Contract {
            goal: goal.into(),
            workspace: workspace.into(),
            max_steps: 50,
            max_depth: 2,
            stall_after: 3,
            exec_timeout: Duration::from_secs(30),
            token_budget: 10_000_000,
            run_id: None,
            mcp_servers: BTreeMap::new(),
            origin: None,
            script: None,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunOutcome {
    /// The model answered.
    Completed {
        /// Steps committed.
        steps: u32,
        /// The answer.
        answer: String,
    },
    /// An observer asked to stop; the run ended at a step boundary and can be
    /// resumed.
    Cancelled {
        /// Steps committed.
        steps: u32,
    },
    /// The run could not go on (the provider failed, the step limit); it can
    /// be resumed.
    Failed {
        /// Steps committed.
        steps: u32,
        /// Why.
        reason: String,
    },
}

impl RunOutcome {
    /// Steps committed.
    pub fn steps(&self) -> u32 {
        match self {
            RunOutcome::Completed { steps, .. }
            | RunOutcome::Cancelled { steps }
            | RunOutcome::Failed { steps, .. } => *steps,
        }
    }

    fn as_outcome(&self) -> Outcome {
        match self {
            RunOutcome::Completed { .. } => Outcome::Completed,
            RunOutcome::Cancelled { .. } => Outcome::Cancelled,
            RunOutcome::Failed { .. } => Outcome::Failed,
        }
    }
}

impl fmt::Display for RunOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunOutcome::Completed { steps: n, answer } => {
                write!(f, "completed after {}: {answer}", steps(*n))
            }
            RunOutcome::Cancelled { steps: n } => write!(f, "cancelled after {}", steps(*n)),
            RunOutcome::Failed { steps: n, reason } => {
                write!(f, "failed after {}: {reason}", steps(*n))
            }
        }
    }
}

/// `1 step`, `3 steps`: a step count as messages write it.
pub fn steps(n: u32) -> String {
    if n == 1 {
        "1 step".to_owned()
    } else {
        format!("{n} steps")
    }
}

/// A run's id and ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    /// The run's id: what [`resume_observed`] takes.
    pub run_id: String,
    /// How it ended.
    pub outcome: RunOutcome,
}

/// A run could not be carried out or resumed at all.
#[derive(Debug)]
pub enum RunError {
    /// The store failed; the run stopped where it was.
    Store(StoreError),
    /// [`resume_observed`] was given a run the store has never seen.
    UnknownRun(String),
    /// [`resume_observed`] was given a run that already completed.
    AlreadyCompleted(String),
    /// The store's journal does not begin with the run's contract.
    Corrupt(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Store(e) => write!(f, "the store failed: {e}"),
            RunError::UnknownRun(id) => write!(f, "no run `{id}` in the store"),
            RunError::AlreadyCompleted(id) => {
                write!(
                    f,
                    "run `{id}` already completed; there is nothing to resume"
                )
            }
            RunError::Corrupt(id) => {
                write!(
                    f,
                    "the journal of run `{id}` does not begin with its contract"
                )
            }
        }
    }
}

/// `Display` states the cause, so `source()` returns nothing: a chain
/// printer shows each cause once.
impl std::error::Error for RunError {}

impl From<StoreError> for RunError {
    fn from(e: StoreError) -> Self {
        RunError::Store(e)
    }
}

/// Runs `contract` with the default [`Policy`] and [`ApproveAll`], reporting
/// every event to `observer`.
///
/// # Blocking
/// The future does the whole run in its first `poll` and never yields:
/// every provider call, store write, tool and hook runs on the polling
/// thread until the run ends. Under an async runtime, drive it from a
/// blocking thread (`tokio::task::spawn_blocking(move || pollster::block_on(…))`,
/// as `examples/run_on_tokio.rs` does), never with `.await` on a worker thread.
///
/// # Errors
/// Only when the store fails; every other ending is a [`RunOutcome`].
pub async fn run_observed(
    contract: &Contract,
    provider: &dyn Provider,
    store: &dyn Store,
    observer: &dyn Observer,
) -> Result<RunResult, RunError> {
    run_with_observed(
        contract,
        provider,
        store,
        &Policy::default(),
        &ApproveAll,
        observer,
    )
    .await
}

/// Runs `contract` under `policy`, asking `approver` when the policy says
/// ask, reporting every event (a child run's too) to `observer`.
///
/// # Blocking
/// The future does the whole run in its first `poll` and never yields:
/// every provider call, store write, tool and hook runs on the polling
/// thread until the run ends. Under an async runtime, drive it from a
/// blocking thread (`tokio::task::spawn_blocking(move || pollster::block_on(…))`,
/// as `examples/run_on_tokio.rs` does), never with `.await` on a worker thread.
///
/// # Errors
/// Only when the store fails; every other ending is a [`RunOutcome`].
pub async fn run_with_observed(
    contract: &Contract,
    provider: &dyn Provider,
    store: &dyn Store,
    policy: &Policy,
    approver: &dyn Approver,
    observer: &dyn Observer,
) -> Result<RunResult, RunError> {
    let env = Env {
        provider,
        store,
        policy,
        approver,
        observer,
    };
    let run_id = contract.run_id.clone().unwrap_or_else(new_run_id);
    env.start(contract, run_id, 0)
}

/// Continues run `run_id` from its last committed step: a cancelled, failed
/// or interrupted run picks up where its journal ends, with its own id, in
/// the workspace and with the MCP servers its journal names.
///
/// That trusts the journal with what the run acts on: right for a store
/// only the caller writes. Where the journal lives in the workspace (a
/// [`FileStore::beneath`] it), a clone or the model could have written it:
/// use [`resume_in_observed`], which takes both from the caller.
///
/// # Blocking
/// The future does the whole run in its first `poll` and never yields:
/// every provider call, store write, tool and hook runs on the polling
/// thread until the run ends. Under an async runtime, drive it from a
/// blocking thread (`tokio::task::spawn_blocking(move || pollster::block_on(…))`,
/// as `examples/run_on_tokio.rs` does), never with `.await` on a worker thread.
///
/// # Errors
/// An unknown or completed run, an unreadable journal, or a store failure.
pub async fn resume_observed(
    run_id: &str,
    provider: &dyn Provider,
    store: &dyn Store,
    policy: &Policy,
    approver: &dyn Approver,
    observer: &dyn Observer,
) -> Result<RunResult, RunError> {
    let env = Env {
        provider,
        store,
        policy,
        approver,
        observer,
    };
    env.resume(run_id, None)
}

/// Continues run `run_id` as [`resume_observed`] does, but acting where
/// `place` says: its `workspace`, `mcp_servers`, `max_depth`,
/// `stall_after`, `exec_timeout` and `token_budget` are the caller's; only
/// the goal, depth, step limit, origin, script and progress come from the
/// journal. A journal can then name no directory to write in and no program
/// to run. `place`'s `goal`, `max_steps`, `run_id`, `origin` and `script`
/// are not used.
///
/// # Blocking
/// The future does the whole run in its first `poll` and never yields:
/// every provider call, store write, tool and hook runs on the polling
/// thread until the run ends. Under an async runtime, drive it from a
/// blocking thread (`tokio::task::spawn_blocking(move || pollster::block_on(…))`,
/// as `examples/run_on_tokio.rs` does), never with `.await` on a worker thread.
///
/// # Errors
/// An unknown or completed run, an unreadable, untrusted or busy journal,
/// or a store failure.
pub async fn resume_in_observed(
    run_id: &str,
    place: &Contract,
    provider: &dyn Provider,
    store: &dyn Store,
    policy: &Policy,
    approver: &dyn Approver,
    observer: &dyn Observer,
) -> Result<RunResult, RunError> {
    let env = Env {
        provider,
        store,
        policy,
        approver,
        observer,
    };
    env.resume(run_id, Some(place))
}

/// A fresh run id: `r-` and 12 hex digits from the clock, the process and a
/// counter, unique within a store in practice.
fn new_run_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mixed = nanos
        ^ (u64::from(std::process::id()) << 32)
        ^ COUNTER
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    format!("r-{:012x}", mixed & 0xffff_ffff_ffff)
}

/// Everything a run and its children share.
struct Env<'a> {
    provider: &'a dyn Provider,
    store: &'a dyn Store,
    policy: &'a Policy,
    approver: &'a dyn Approver,
    observer: &'a dyn Observer,
}

impl Env<'_> {
    fn start(
        &self,
        contract: &Contract,
        run_id: String,
        depth: u32,
    ) -> Result<RunResult, RunError> {
        self.store.append(
            &run_id,
            &Record::Begin {
                goal: contract.goal.clone(),
                workspace: contract.workspace.clone(),
                depth,
                max_steps: contract.max_steps,
                origin: contract.origin.clone(),
                script: contract.script.clone(),
                mcp_servers: contract.mcp_servers.clone(),
            },
        )?;
        let _lock = self.store.lock(&run_id)?;
        Run::new(self, contract, run_id, depth, 0).drive(State::default())
    }

    /// Resumes `run_id` from its journal, held for the whole run; with
    /// `place`, acting where the caller says rather than the journal.
    fn resume(&self, run_id: &str, place: Option<&Contract>) -> Result<RunResult, RunError> {
        let _lock = self.store.lock(run_id)?;
        let records = self
            .store
            .load(run_id)?
            .ok_or_else(|| RunError::UnknownRun(run_id.to_owned()))?;
        let Some(Record::Begin {
            goal,
            workspace,
            depth,
            max_steps,
            origin,
            script,
            mcp_servers,
        }) = records.first().cloned()
        else {
            return Err(RunError::Corrupt(run_id.to_owned()));
        };
        let state = State::from_journal(run_id, &records)?;
        let contract = match place {
            Some(place) => Contract {
                goal,
                max_steps,
                origin,
                script,
                run_id: None,
                ..place.clone()
            },
            None => Contract {
                max_steps,
                origin,
                script,
                mcp_servers,
                ..Contract::new(goal, workspace)
            },
        };
        let mut run = Run::new(self, &contract, run_id.to_owned(), depth, state.next_seq);
        run.resumed = true;
        *run.tokens_used.get_mut() = state.tokens_used;
        run.drive(state)
    }
}

/// Where a run is: what the journal holds of it.
#[derive(Default)]
struct State {
    observations: Vec<String>,
    /// Steps in a row that moved nothing.
    idle: u32,
    next_seq: u64,
    /// The tokens drawn by the steps committed.
    tokens_used: u64,
}

impl State {
    /// Where the journal of run `run_id` leaves it.
    fn from_journal(run_id: &str, records: &[Record]) -> Result<State, RunError> {
        let mut state = State::default();
        for record in records {
            match record {
                Record::Step {
                    observation,
                    moved_the_workspace,
                    next_seq,
                    tokens_used,
                    ..
                } => {
                    state.observations.push(observation.clone());
                    state.tokens_used = *tokens_used;
                    state.idle = if *moved_the_workspace {
                        0
                    } else {
                        state.idle + 1
                    };
                    state.next_seq = state.next_seq.max(*next_seq);
                }
                // Every event but `finished` was emitted before `End` was
                // written, and `finished` is counted in it: exact, so a
                // resume after a clean ending continues without a gap.
                Record::End {
                    outcome: Outcome::Completed,
                    ..
                } => return Err(RunError::AlreadyCompleted(run_id.to_owned())),
                Record::End { next_seq, .. } => state.next_seq = *next_seq,
                // After a crash, events up to the reservation may have been
                // seen: the resume starts past all of them.
                Record::Reserve { next_seq } => state.next_seq = state.next_seq.max(*next_seq),
                Record::Begin { .. } => {}
            }
        }
        Ok(state)
    }
}

/// How many `seq`s one [`Record::Reserve`] reserves: one journal write
/// (and flush) per this many events, and at most this many numbers skipped
/// by a resume after a crash.
const SEQ_BLOCK: u64 = 1024;

/// One run in progress.
struct Run<'e, 'a> {
    env: &'e Env<'a>,
    contract: &'e Contract,
    run_id: String,
    depth: u32,
    seq: AtomicU64,
    /// The first `seq` the journal has not reserved ([`Record::Reserve`]).
    reserved: Mutex<u64>,
    /// A reservation the store refused: the run stops with it at the next
    /// step boundary, and no event is emitted past it.
    store_failed: Mutex<Option<StoreError>>,
    /// Set by any event's `Flow::Cancel`; read at the step boundary.
    cancel: AtomicBool,
    tokens_used: AtomicU64,
    /// Background processes started with `exec_background`, by handle id.
    handles: Mutex<BTreeMap<String, Tracked>>,
    handles_started: AtomicU64,
    /// Whether this is a resume: `started` and `finished` say so.
    resumed: bool,
}

impl<'e, 'a> Run<'e, 'a> {
    fn new(env: &'e Env<'a>, contract: &'e Contract, run_id: String, depth: u32, seq: u64) -> Self {
        Run {
            env,
            contract,
            run_id,
            depth,
            seq: AtomicU64::new(seq),
            reserved: Mutex::new(seq),
            store_failed: Mutex::new(None),
            cancel: AtomicBool::new(false),
            tokens_used: AtomicU64::new(0),
            handles: Mutex::new(BTreeMap::new()),
            handles_started: AtomicU64::new(0),
            resumed: false,
        }
    }

    /// Reports one event. Its `seq` is taken whether or not the observer
    /// wants it, so a filtered log shows where it has gaps.
    fn emit(&self, kind: EventKind) {
        self.emit_if(self.env.observer.wants(kind.kind()), || kind);
    }

    /// [`emit`](Self::emit) for an event whose kind is built only when
    /// `wanted`, the observer's [`wants`](Observer::wants) for its kind,
    /// asked by the caller: a streamed token's text is not copied for an
    /// observer that ignores tokens, and the question is asked once a step
    /// rather than once a token.
    fn emit_if(&self, wanted: bool, kind: impl FnOnce() -> EventKind) {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        if !wanted || !self.reserve(seq) {
            return;
        }
        let event = RunEvent {
            kind: kind(),
            run_id: self.run_id.clone(),
            depth: self.depth,
            seq: Some(seq),
            at: Some(now_rfc3339()),
        };
        if self.env.observer.event(&event) == Flow::Cancel {
            self.cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Whether `seq` is reserved in the journal, reserving the next
    /// [`SEQ_BLOCK`] first when it is not: no event is seen with a `seq`
    /// the journal does not cover, so a resume after a SIGKILL never hands
    /// it out again. `false` when the store failed (kept for
    /// [`store_ok`](Self::store_ok)).
    fn reserve(&self, seq: u64) -> bool {
        let mut reserved = self
            .reserved
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if seq < *reserved {
            return true;
        }
        let next_seq = seq + SEQ_BLOCK;
        match self
            .env
            .store
            .append(&self.run_id, &Record::Reserve { next_seq })
        {
            Ok(()) => {
                *reserved = next_seq;
                true
            }
            Err(e) => {
                self.store_failed
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .get_or_insert(e);
                false
            }
        }
    }

    /// The store failure a reservation met, if any: the run stops with it.
    fn store_ok(&self) -> Result<(), RunError> {
        match self
            .store_failed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
        {
            Some(e) => Err(RunError::Store(e)),
            None => Ok(()),
        }
    }

    fn drive(&self, mut state: State) -> Result<RunResult, RunError> {
        self.emit(EventKind::Started {
            goal: self.contract.goal.clone(),
            resumed: self.resumed,
        });
        loop {
            let steps = state.observations.len() as u32;
            if steps >= self.contract.max_steps {
                let reason = format!("reached the step limit ({})", self.contract.max_steps);
                return self.end(RunOutcome::Failed { steps, reason });
            }
            let step = steps + 1;
            let turn = match self.turn(step, &state.observations) {
                Ok(turn) => turn,
                Err(e) => {
                    return self.end(RunOutcome::Failed {
                        steps,
                        reason: e.to_string(),
                    });
                }
            };
            let (observation, moved) = self.take_step(step, &turn);
            self.commit(&mut state, step, observation, moved)?;
            self.store_ok()?;
            // A cancel raised anywhere in this step, the last one included,
            // wins over the step's answer: the run ends `cancelled`, and a
            // resume asks the provider for the next step.
            let answered = turn.answer.map(|answer| RunOutcome::Completed {
                steps: step,
                answer,
            });
            if let Some(outcome) = boundary::ending(
                self.cancel.load(Ordering::Relaxed),
                RunOutcome::Cancelled { steps: step },
                answered,
            ) {
                return self.end(outcome);
            }
        }
    }

    /// Commits a step: the journal first, then the `step` event, then
    /// `stalled` when this step completes a streak of idle ones.
    fn commit(
        &self,
        state: &mut State,
        step: u32,
        observation: String,
        moved: bool,
    ) -> Result<(), RunError> {
        state.observations.push(observation.clone());
        self.env.store.append(
            &self.run_id,
            &Record::Step {
                step,
                observation,
                moved_the_workspace: moved,
                // The `step` event below takes one seq; the journal keeps
                // the one after it.
                next_seq: self.seq.load(Ordering::Relaxed) + 1,
                tokens_used: self.tokens_used.load(Ordering::Relaxed),
            },
        )?;
        self.emit(EventKind::Step {
            step,
            moved_the_workspace: moved,
        });
        state.idle = if moved { 0 } else { state.idle + 1 };
        if state.idle == self.contract.stall_after {
            self.emit(EventKind::Stalled {
                step,
                steps_without_progress: state.idle,
            });
        }
        Ok(())
    }

    /// Asks the provider for the step's turn: three attempts, then its
    /// fallback (three more), then the run fails.
    fn turn(&self, step: u32, observations: &[String]) -> Result<Turn, ProviderError> {
        let request = TurnRequest {
            goal: &self.contract.goal,
            step,
            depth: self.depth,
            observations,
        };
        let mut attempt = 1;
        loop {
            let error = match self.env.provider.turn(&request) {
                Ok(turn) => return Ok(turn),
                Err(e) => e,
            };
            if attempt < 3 {
                attempt += 1;
                self.emit(EventKind::Retry {
                    step,
                    attempt,
                    reason: error.to_string(),
                });
            } else if let Some(provider) = self.env.provider.fall_back() {
                attempt = 1;
                self.emit(EventKind::FellBackTo {
                    step,
                    provider,
                    reason: error.to_string(),
                });
            } else {
                return Err(error);
            }
        }
    }

    /// Streams the turn, carries out its calls; returns the observation and
    /// whether any write changed bytes on disk.
    fn take_step(&self, step: u32, turn: &Turn) -> (String, bool) {
        self.stream(step, turn);
        self.act(step, &turn.calls)
    }

    /// The turn's text as `token` events, then what the provider did on its
    /// side, what the turn spent and any new plan.
    fn stream(&self, step: u32, turn: &Turn) {
        let mut count = 0u64;
        // `token` is the hottest event: whether the observer wants it is
        // asked once a step (an empty `String` does not allocate), and each
        // token's text is copied only when it does.
        let wants_tokens = self.env.observer.wants(EventKind::TOKEN);
        for token in provider::tokens(&turn.say) {
            count += 1;
            self.emit_if(wants_tokens, || EventKind::Token {
                step,
                text: token.to_owned(),
            });
        }
        for tool in &turn.server_tools {
            self.emit(EventKind::ServerToolUsed {
                step,
                tool: tool.clone(),
            });
        }
        let used = self.tokens_used.fetch_add(count, Ordering::Relaxed) + count;
        self.emit(EventKind::SpendDraw {
            step,
            tokens: count,
            remaining: self.contract.token_budget.saturating_sub(used),
        });
        if let Some(reason) = &turn.replan {
            self.emit(EventKind::Replan {
                step,
                reason: reason.clone(),
            });
        }
    }

    /// Carries out the turn's calls in order, then its `spawn`s together;
    /// returns the observation and whether any write changed bytes on disk.
    fn act(&self, step: u32, calls: &[ToolCall]) -> (String, bool) {
        let mut observations = Vec::new();
        let mut moved = false;
        let mut spawns = Vec::new();
        for call in calls {
            self.emit(EventKind::ToolCall {
                step,
                tool: call.tool.clone(),
                args: crate::RawJson::from(&call.args),
            });
            if let Err(refusal) = self.permit(step, call) {
                observations.push(refusal);
                continue;
            }
            let result = match Call::parse(&call.tool, &call.args) {
                Ok(Call::Spawn(goal)) => {
                    spawns.push(goal);
                    continue;
                }
                Ok(Call::Now(tool)) => self.call(step, tool),
                Err(e) => Err(e),
            };
            match result {
                Ok(result) => {
                    moved |= result.moved;
                    observations.push(result.observation);
                }
                Err(e) => observations.push(format!("[{} failed] {e}", call.tool)),
            }
        }
        observations.extend(self.spawn_all(step, &spawns));
        (observations.join("\n"), moved)
    }

    /// The policy's verdict on a call, with the approver asked when it says
    /// ask. `Err` is the refusal the model sees.
    fn permit(&self, step: u32, call: &ToolCall) -> Result<(), String> {
        let rule = self.env.policy.for_call(&call.tool, &call.args);
        let refuse = |reason: String| {
            self.emit(EventKind::Refused {
                step,
                tool: call.tool.clone(),
                reason: reason.clone(),
            });
            Err(format!("[{} refused] {reason}", call.tool))
        };
        match rule {
            Rule::Allow => Ok(()),
            Rule::Deny => refuse("denied by policy".to_owned()),
            Rule::Ask => {
                self.emit(EventKind::ApprovalRequested {
                    step,
                    tool: call.tool.clone(),
                    args: crate::RawJson::from(&call.args),
                });
                let approved = self.env.approver.approve(&ApprovalRequest {
                    run_id: &self.run_id,
                    tool: &call.tool,
                    args: &call.args,
                });
                self.emit(EventKind::ApprovalDecided {
                    step,
                    tool: call.tool.clone(),
                    approved,
                });
                if approved {
                    Ok(())
                } else {
                    refuse("not approved".to_owned())
                }
            }
        }
    }

    /// Carries out one parsed call; `Err` is the failure the model sees.
    fn call(&self, step: u32, tool: Tool<'_>) -> Result<ToolResult, ToolError> {
        let workspace = self.workspace();
        match tool {
            Tool::ReadFile { path } => workspace.read_file(path),
            Tool::WriteFile { path, content } => workspace.write_file(path, content),
            Tool::EditFile { path, old, new } => workspace.edit_file(path, old, new),
            Tool::Exec { argv } => {
                let (result, outcome) = workspace.exec(&argv);
                self.emit(EventKind::Sandbox {
                    step,
                    program: argv.first().cloned().unwrap_or_default(),
                    outcome,
                });
                result
            }
            Tool::ExecBackground { argv } => self.start_background(step, argv),
            Tool::Poll { handle } => self.poll(step, handle),
            Tool::Kill { handle } => self.kill(step, handle),
            Tool::Mcp {
                server,
                method,
                params,
            } => self.mcp(step, server, method, &params),
            Tool::MemoryWrite { key, value } => {
                workspace.memory_write(key, value)?;
                self.emit(EventKind::MemoryWrote {
                    step,
                    key: key.to_owned(),
                });
                Ok(ToolResult::seen(format!("[remembered {key}]")))
            }
            Tool::TodoWrite { items } => {
                let items = workspace.todo_write(&items)?;
                self.emit(EventKind::TodoWrote { step, items });
                Ok(ToolResult::seen(format!("[todo: {items} items]")))
            }
            Tool::Ask { question } => Ok(self.ask(step, question)),
        }
    }

    /// The workspace the run's tools act on.
    fn workspace(&self) -> Workspace<'_> {
        Workspace {
            root: &self.contract.workspace,
            exec_timeout: self.contract.exec_timeout,
        }
    }

    /// `exec_background`: starts the argv and keeps it under a new handle.
    fn start_background(&self, step: u32, argv: Vec<String>) -> Result<ToolResult, ToolError> {
        let child = self.workspace().spawn_background(&argv)?;
        let n = self.handles_started.fetch_add(1, Ordering::Relaxed) + 1;
        let handle = format!("h-{n}");
        self.lock_handles().insert(handle.clone(), child);
        self.emit(EventKind::HandleStarted {
            step,
            handle: handle.clone(),
            argv,
        });
        Ok(ToolResult::seen(format!("[started {handle}]")))
    }

    /// `kill`: ends a handle's process group and forgets it.
    fn kill(&self, step: u32, handle: &str) -> Result<ToolResult, ToolError> {
        let child = self
            .lock_handles()
            .remove(handle)
            .ok_or_else(|| ToolError::NoHandle(handle.to_owned()))?;
        tools::kill_and_reap(child);
        self.emit(EventKind::HandleKilled {
            step,
            handle: handle.to_owned(),
        });
        Ok(ToolResult::seen(format!("[killed {handle}]")))
    }

    /// `mcp`: one request to one of the contract's MCP servers.
    fn mcp(
        &self,
        step: u32,
        server: &str,
        method: &str,
        params: &serde_json::Value,
    ) -> Result<ToolResult, ToolError> {
        let argv = self.contract.mcp_servers.get(server).ok_or_else(|| {
            let known = self.contract.mcp_servers.keys().cloned().collect();
            ToolError::NoMcpServer {
                server: server.to_owned(),
                known,
            }
        })?;
        let result = self.workspace().mcp(argv, method, params);
        self.emit(EventKind::Mcp {
            step,
            server: server.to_owned(),
            method: method.to_owned(),
        });
        result.map(|answer| ToolResult::seen(format!("[mcp {server} {method}] {answer}")))
    }

    /// `ask`: puts the question to the approver; no answer is an answer too.
    fn ask(&self, step: u32, question: &str) -> ToolResult {
        self.emit(EventKind::QuestionAsked {
            step,
            question: question.to_owned(),
        });
        let answer = self.env.approver.answer(&Question {
            run_id: &self.run_id,
            question,
        });
        ToolResult::seen(match answer {
            Some(answer) => {
                self.emit(EventKind::QuestionAnswered {
                    step,
                    answer: answer.clone(),
                });
                format!("[answer] {answer}")
            }
            None => "[no answer] nobody is there to answer; go on without".to_owned(),
        })
    }

    fn lock_handles(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Tracked>> {
        // The map stays consistent whatever panicked while holding it.
        self.handles
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Polls a handle: still running, or exited (and then forgotten).
    fn poll(&self, step: u32, handle: &str) -> Result<ToolResult, ToolError> {
        let mut handles = self.lock_handles();
        let child = handles
            .get_mut(handle)
            .ok_or_else(|| ToolError::NoHandle(handle.to_owned()))?;
        let status = child.try_wait().map_err(|error| ToolError::Poll {
            handle: handle.to_owned(),
            error,
        })?;
        drop(handles);
        self.emit(EventKind::HandlePolled {
            step,
            handle: handle.to_owned(),
            running: status.is_none(),
        });
        let Some(status) = status else {
            return Ok(ToolResult::seen(format!("[{handle}] running")));
        };
        self.lock_handles().remove(handle);
        self.emit(EventKind::HandleExited {
            step,
            handle: handle.to_owned(),
            code: status.code(),
        });
        Ok(ToolResult::seen(format!("[{handle}] {status}")))
    }

    /// Runs the step's `spawn` calls as child runs, all at once, each on its
    /// own thread; returns one observation per call, in call order.
    fn spawn_all(&self, step: u32, spawns: &[Result<&str, ToolError>]) -> Vec<String> {
        if spawns.is_empty() {
            return Vec::new();
        }
        thread::scope(|scope| {
            let handles: Vec<_> = spawns
                .iter()
                .enumerate()
                .map(|(k, goal)| {
                    let child = self.prepare_child(step, k, goal);
                    // A thread the system refuses (`RLIMIT_NPROC`) is a
                    // failed spawn the model is told of, not a panic.
                    thread::Builder::new()
                        .spawn_scoped(scope, move || match child {
                            Ok((contract, run_id)) => {
                                match self.env.start(&contract, run_id.clone(), self.depth + 1) {
                                    Ok(result) => format!("[child {run_id}] {}", result.outcome),
                                    Err(e) => format!("[child {run_id}] {e}"),
                                }
                            }
                            Err(refusal) => refusal,
                        })
                        .map_err(|e| {
                            format!(
                                "[spawn failed] no thread for the child run: {}",
                                OsMessage(&e)
                            )
                        })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.and_then(|h| {
                        h.join()
                            .map_err(|_| "[spawn failed] the child run panicked".to_owned())
                    })
                    .unwrap_or_else(|failed| failed)
                })
                .collect()
        })
    }

    /// Checks a `spawn` call and announces the child, or refuses it.
    fn prepare_child(
        &self,
        step: u32,
        k: usize,
        goal: &Result<&str, ToolError>,
    ) -> Result<(Contract, String), String> {
        let refuse = |reason: String| {
            self.emit(EventKind::SpawnRefused {
                step,
                reason: reason.clone(),
            });
            Err(format!("[spawn refused] {reason}"))
        };
        let goal = match goal {
            Ok(goal) => (*goal).to_owned(),
            Err(e) => return refuse(e.to_string()),
        };
        if self.depth >= self.contract.max_depth {
            return refuse(format!(
                "a run at depth {} may not spawn (max_depth = {})",
                self.depth, self.contract.max_depth
            ));
        }
        let run_id = format!("{}.{step}.{}", self.run_id, k + 1);
        self.emit(EventKind::Spawned {
            step,
            child_run_id: run_id.clone(),
            goal: goal.clone(),
        });
        let contract = Contract {
            goal,
            run_id: Some(run_id.clone()),
            ..self.contract.clone()
        };
        Ok((contract, run_id))
    }

    /// Records the ending, emits `finished`, and returns the result. A
    /// handle still running is reported as orphaned and killed: nothing the
    /// run started outlives it.
    fn end(&self, outcome: RunOutcome) -> Result<RunResult, RunError> {
        let orphans = std::mem::take(&mut *self.lock_handles());
        for (handle, child) in orphans {
            self.emit(EventKind::HandleOrphaned { handle });
            tools::kill_and_reap(child);
        }
        let detail = match &outcome {
            RunOutcome::Completed { answer, .. } => Some(answer.clone()),
            RunOutcome::Failed { reason, .. } => Some(reason.clone()),
            RunOutcome::Cancelled { .. } => None,
        };
        self.env.store.append(
            &self.run_id,
            &Record::End {
                outcome: outcome.as_outcome(),
                steps: outcome.steps(),
                detail,
                next_seq: self.seq.load(Ordering::Relaxed) + 1,
            },
        )?;
        self.emit(EventKind::Finished {
            outcome: outcome.as_outcome(),
            steps: outcome.steps(),
            resumed: self.resumed,
        });
        self.store_ok()?;
        Ok(RunResult {
            run_id: self.run_id.clone(),
            outcome,
        })
    }
}
