//! One run driven step by step: what a run and its children share
//! ([`Env`]), and a run in progress ([`Run`]): its turns, its tool calls
//! under the policy, its events, its journal, its children and its end.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;

use io_hooks::text::os_error;
use io_hooks::{Flow, HookEvents};
use io_supervisor::Tracked;

use super::boundary;
use super::call::{Call, Tool};
use super::contract::Contract;
use super::outcome::{RunError, RunOutcome, RunResult};
use super::policy::{ApprovalRequest, Approver, Policy, Question, Rule};
use super::provider::{self, Provider, ProviderError, ToolCall, Turn, TurnRequest};
use super::state::State;
use super::store::{Record, Store, StoreError};
use super::tools::{self, ToolError, ToolResult, Workspace};
use crate::event::{EventKind, RunEvent, now_rfc3339};
use crate::observer::Observer;

/// Everything a run and its children share.
pub(super) struct Env<'a> {
    provider: &'a dyn Provider,
    store: &'a dyn Store,
    policy: &'a Policy,
    approver: &'a dyn Approver,
    observer: &'a dyn Observer,
}

impl<'a> Env<'a> {
    /// The one way to make an `Env`, for every entry point.
    pub(super) fn new(
        provider: &'a dyn Provider,
        store: &'a dyn Store,
        policy: &'a Policy,
        approver: &'a dyn Approver,
        observer: &'a dyn Observer,
    ) -> Self {
        Env {
            provider,
            store,
            policy,
            approver,
            observer,
        }
    }

    /// Starts a run of `contract` as `run_id` at `depth`: its journal's
    /// `begin`, held for the whole run.
    pub(super) fn start(
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
                profile: contract.profile.clone(),
            },
        )?;
        let _lock = self.store.lock(&run_id)?;
        Run::new(self, contract, run_id, depth, 0).drive(State::default())
    }

    /// Resumes `run_id` from its journal, held for the whole run; with
    /// `place`, acting where the caller says rather than the journal.
    pub(super) fn resume(
        &self,
        run_id: &str,
        place: Option<&Contract>,
    ) -> Result<RunResult, RunError> {
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
            profile,
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
                profile,
                run_id: None,
                ..place.clone()
            },
            None => Contract {
                max_steps,
                origin,
                script,
                mcp_servers,
                profile,
                ..Contract::new(goal, workspace)
            },
        };
        let mut run = Run::new(self, &contract, run_id.to_owned(), depth, state.next_seq);
        run.resumed = true;
        *run.tokens_used.get_mut() = state.tokens_used;
        run.drive(state)
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
            if self.interrupted() {
                return self.end(RunOutcome::Interrupted { steps });
            }
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
            // Interrupted in the middle of the step: it is not committed,
            // and a resume does it again.
            let Some((observation, moved)) = self.take_step(step, &turn) else {
                return self.end(RunOutcome::Interrupted { steps });
            };
            self.commit(&mut state, step, observation, moved)?;
            self.store_ok()?;
            // An interrupt during the committed step's events (its `step`
            // hook, say) ends the run here, before the next step's first
            // tool; like a cancel, it wins over the step's answer.
            if self.interrupted() {
                return self.end(RunOutcome::Interrupted { steps: step });
            }
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

    /// Whether the host was interrupted
    /// ([`Observer::interrupted`]): asked at each step's start, before each
    /// tool call, before a step is committed and after.
    fn interrupted(&self) -> bool {
        self.env.observer.interrupted()
    }

    /// Streams the turn, carries out its calls; returns the observation and
    /// whether any write changed bytes on disk, or `None` when the host was
    /// interrupted before the step could be committed.
    fn take_step(&self, step: u32, turn: &Turn) -> Option<(String, bool)> {
        self.stream(step, turn);
        let done = self.act(step, &turn.calls)?;
        // Asked once more after the step's last event: a tool the
        // interrupt cut short (an `exec` whose group it killed) left an
        // observation that is not the tool's.
        (!self.interrupted()).then_some(done)
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
    /// returns the observation and whether any write changed bytes on disk,
    /// or `None` when the host was interrupted before a call.
    fn act(&self, step: u32, calls: &[ToolCall]) -> Option<(String, bool)> {
        let mut observations = Vec::new();
        let mut moved = false;
        let mut spawns = Vec::new();
        for call in calls {
            if self.interrupted() {
                return None;
            }
            self.emit(EventKind::ToolCall {
                step,
                tool: call.tool.clone(),
                args: crate::raw_json::RawJson::from(&call.args),
            });
            // The `tool_call` hooks have returned: an interrupt that came
            // meanwhile (one that ended a hook's process is set before it
            // does) is seen here, before the policy and the tool; and once
            // more after the approver's answer, which may take as long.
            if self.interrupted() {
                return None;
            }
            if let Err(refusal) = self.permit(step, call) {
                observations.push(refusal);
                continue;
            }
            if self.interrupted() {
                return None;
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
        if !spawns.is_empty() && self.interrupted() {
            return None;
        }
        observations.extend(self.spawn_all(step, &spawns));
        Some((observations.join("\n"), moved))
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
                    args: crate::raw_json::RawJson::from(&call.args),
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
                                os_error(&e)
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
            RunOutcome::Cancelled { .. } | RunOutcome::Interrupted { .. } => None,
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
