//! The events a run emits: [`EventKind`] (what happened) and [`RunEvent`]
//! (which run, where in it, and when).
//!
//! Each variant's `#[serde(rename)]` is its wire tag, the name an operator
//! writes in a hook's `on` list. It is written literally on the variant so
//! renaming a Rust variant can never change a name in somebody's config, and
//! `#[derive(HookEvents)]` refuses a variant without one.

use serde::{Deserialize, Serialize};

use io_hooks::HookEvents;

/// What happened in a run: one variant per event a hook may name.
///
/// Serialised flat and tagged on `event`, with each variant's payload beside
/// the tag. The first line of each variant's doc comment says when it fires
/// and how often; `io events` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, HookEvents)]
#[serde(tag = "event")]
pub enum EventKind {
    /// A run began; once per run. Carries the goal.
    #[serde(rename = "started")]
    #[hook(cost = "per_run")]
    Started {
        /// The goal the run was given.
        goal: String,
    },
    /// A step was committed; once per step, after its writes are classified.
    #[serde(rename = "step")]
    #[hook(cost = "per_step")]
    Step {
        /// The step's number, from 1.
        step: u32,
        /// Whether the step changed the workspace's bytes: the progress signal.
        moved_the_workspace: bool,
    },
    /// The model called a tool; once per tool call, before it runs.
    #[serde(rename = "tool_call")]
    #[hook(cost = "per_step")]
    ToolCall {
        /// The step the call belongs to.
        step: u32,
        /// The tool's name.
        tool: String,
        /// The call's arguments, as the model gave them.
        args: serde_json::Value,
    },
    /// The policy refused a tool call; when it happens, rarely.
    #[serde(rename = "refused")]
    #[hook(cost = "rare")]
    Refused {
        /// The step the call belonged to.
        step: u32,
        /// The tool that was refused.
        tool: String,
        /// Why, in the policy's words.
        reason: String,
    },
    /// A tool call needs the approver's answer; when it happens, rarely.
    #[serde(rename = "approval_requested")]
    #[hook(cost = "rare")]
    ApprovalRequested {
        /// The step the call belongs to.
        step: u32,
        /// The tool awaiting approval.
        tool: String,
        /// The call's arguments.
        args: serde_json::Value,
    },
    /// The approver answered; once per approval request.
    #[serde(rename = "approval_decided")]
    #[hook(cost = "rare")]
    ApprovalDecided {
        /// The step the call belongs to.
        step: u32,
        /// The tool that was decided on.
        tool: String,
        /// Whether the call may go ahead.
        approved: bool,
    },
    /// The run drew on its budget; once per model turn.
    #[serde(rename = "spend_draw")]
    #[hook(cost = "per_step")]
    SpendDraw {
        /// The step the turn belongs to.
        step: u32,
        /// Tokens the turn consumed.
        tokens: u64,
        /// Tokens left in the budget after it.
        remaining: u64,
    },
    /// A model request failed and is being tried again; when it happens.
    #[serde(rename = "retry")]
    #[hook(cost = "rare")]
    Retry {
        /// The step being retried.
        step: u32,
        /// The attempt about to be made, from 2.
        attempt: u32,
        /// What went wrong with the last attempt.
        reason: String,
    },
    /// The run switched to a fallback provider; when it happens, rarely.
    #[serde(rename = "fell_back_to")]
    #[hook(cost = "rare")]
    FellBackTo {
        /// The step at which it switched.
        step: u32,
        /// The provider now in use.
        provider: String,
        /// Why the previous one was abandoned.
        reason: String,
    },
    /// The model revised its plan; when it happens.
    #[serde(rename = "replan")]
    #[hook(cost = "rare")]
    Replan {
        /// The step at which it replanned.
        step: u32,
        /// The reason it gave.
        reason: String,
    },
    /// Steps went by without moving the workspace; when it happens, rarely.
    #[serde(rename = "stalled")]
    #[hook(cost = "rare")]
    Stalled {
        /// The step at which the stall was detected.
        step: u32,
        /// How many steps in a row moved nothing.
        steps_without_progress: u32,
    },
    /// A child run was started; once per child.
    #[serde(rename = "spawned")]
    #[hook(cost = "rare")]
    Spawned {
        /// The step that spawned it.
        step: u32,
        /// The child's own run id.
        child_run_id: String,
        /// The goal the child was given.
        goal: String,
    },
    /// A child run was not started; when it happens, rarely.
    #[serde(rename = "spawn_refused")]
    #[hook(cost = "rare")]
    SpawnRefused {
        /// The step that asked for it.
        step: u32,
        /// Why it was refused (depth limit, policy).
        reason: String,
    },
    /// The run wrote to its memory; when it happens.
    #[serde(rename = "memory_wrote")]
    #[hook(cost = "rare")]
    MemoryWrote {
        /// The step that wrote it.
        step: u32,
        /// The memory key written.
        key: String,
    },
    /// The run updated its todo list; when it happens.
    #[serde(rename = "todo_wrote")]
    #[hook(cost = "rare")]
    TodoWrote {
        /// The step that wrote it.
        step: u32,
        /// How many items the list now holds.
        items: u32,
    },
    /// The model asked the operator a question; when it happens, rarely.
    #[serde(rename = "question_asked")]
    #[hook(cost = "rare")]
    QuestionAsked {
        /// The step that asked.
        step: u32,
        /// The question.
        question: String,
    },
    /// The operator's answer arrived; once per question.
    #[serde(rename = "question_answered")]
    #[hook(cost = "rare")]
    QuestionAnswered {
        /// The step that asked.
        step: u32,
        /// The answer.
        answer: String,
    },
    /// The provider ran a tool on its side; when it happens.
    #[serde(rename = "server_tool_used")]
    #[hook(cost = "rare")]
    ServerToolUsed {
        /// The step it belongs to.
        step: u32,
        /// The server-side tool's name.
        tool: String,
    },
    /// The model streamed a token; once per streamed token, the hottest event.
    #[serde(rename = "token")]
    #[hook(cost = "per_token")]
    Token {
        /// The step being streamed.
        step: u32,
        /// The token's text.
        text: String,
    },
    /// A command ran under the sandbox; once per command the run executes.
    #[serde(rename = "sandbox")]
    #[hook(cost = "per_step")]
    Sandbox {
        /// The step that ran it.
        step: u32,
        /// The program, as resolved.
        program: String,
        /// The sandbox's verdict or the command's ending (`exited 0`, `timed out`).
        outcome: String,
    },
    /// An MCP server was contacted; when it happens.
    #[serde(rename = "mcp")]
    #[hook(cost = "rare")]
    Mcp {
        /// The step it belongs to.
        step: u32,
        /// The server's configured name.
        server: String,
        /// The method called.
        method: String,
    },
    /// A long-running process handle was started; once per handle.
    #[serde(rename = "handle_started")]
    #[hook(cost = "rare")]
    HandleStarted {
        /// The step that started it.
        step: u32,
        /// The handle's id.
        handle: String,
        /// The argv it runs.
        argv: Vec<String>,
    },
    /// A handle was polled to see whether it still runs; once per poll.
    #[serde(rename = "handle_polled")]
    #[hook(cost = "per_step")]
    HandlePolled {
        /// The step that polled it.
        step: u32,
        /// The handle's id.
        handle: String,
        /// Whether the process was still running.
        running: bool,
    },
    /// A handle's process was killed; when it happens.
    #[serde(rename = "handle_killed")]
    #[hook(cost = "rare")]
    HandleKilled {
        /// The step that killed it.
        step: u32,
        /// The handle's id.
        handle: String,
    },
    /// A handle's process exited; once per handle that ends by itself.
    #[serde(rename = "handle_exited")]
    #[hook(cost = "rare")]
    HandleExited {
        /// The step during which it was seen to exit.
        step: u32,
        /// The handle's id.
        handle: String,
        /// Its exit code, absent when a signal ended it.
        code: Option<i32>,
    },
    /// A handle was still running when its run ended (it is then killed); when it happens, rarely.
    #[serde(rename = "handle_orphaned")]
    #[hook(cost = "rare")]
    HandleOrphaned {
        /// The handle's id.
        handle: String,
    },
    /// A run ended; once per run. Carries the outcome and the step count.
    #[serde(rename = "finished")]
    #[hook(cost = "per_run")]
    Finished {
        /// How the run ended.
        outcome: Outcome,
        /// How many steps were committed.
        steps: u32,
    },
}

/// How often an event fires: what a hook on it costs (the spec's "What a
/// hook costs"). Each [`EventKind`] variant declares its class next to it, as
/// `#[hook(cost = "per_step")]`.
pub use io_hooks::Cost as Frequency;

// The cost is optional to the derive; every event of this harness declares
// one, or this does not compile.
const _: () = {
    let costs = <EventKind as HookEvents>::COSTS;
    let mut i = 0;
    while i < costs.len() {
        assert!(
            costs[i].is_some(),
            "every EventKind variant declares #[hook(cost)]"
        );
        i += 1;
    }
};

impl EventKind {
    /// How often the event at `index` in [`HookEvents::TAGS`] fires.
    ///
    /// ```
    /// use io_harness::{EventKind, Frequency, HookEvents};
    ///
    /// let token = EventKind::from_tag("token").expect("a tag");
    /// assert_eq!(EventKind::frequency(token), Frequency::PerToken);
    /// ```
    ///
    /// # Panics
    /// If `index` is not an index into `TAGS`.
    pub fn frequency(index: usize) -> Frequency {
        match <Self as HookEvents>::COSTS[index] {
            Some(cost) => cost,
            None => unreachable!("every EventKind variant declares #[hook(cost)]"),
        }
    }
}

/// How a run ended, as `finished` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The model gave its final answer.
    Completed,
    /// An observer (a hook with `on_failure = "cancel"`) ended the run at a
    /// step boundary; it can be resumed.
    Cancelled,
    /// The run could not go on (a provider or store error, the step limit).
    Failed,
}

/// One event as a hook receives it: the envelope that says which run and
/// where, and the [`EventKind`] flattened beside it.
///
/// On the wire it is one flat JSON object tagged on `event`, which is what an
/// `append` hook writes and what `io replay` reads back:
///
/// ```
/// use io_harness::{EventKind, RunEvent};
///
/// let ev = RunEvent {
///     run_id: "r-7f3a".into(),
///     depth: 0,
///     seq: Some(12),
///     at: Some("2026-11-30T03:00:00.123Z".into()),
///     kind: EventKind::Step { step: 3, moved_the_workspace: true },
/// };
/// let line = serde_json::to_string(&ev)?;
/// assert_eq!(
///     line,
///     r#"{"event":"step","step":3,"moved_the_workspace":true,"run_id":"r-7f3a","depth":0,"seq":12,"at":"2026-11-30T03:00:00.123Z"}"#
/// );
/// assert_eq!(serde_json::from_str::<RunEvent>(&line)?, ev);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEvent {
    /// What happened. First, so that `event` leads every line.
    #[serde(flatten)]
    pub kind: EventKind,
    /// The run that emitted it; a child run has its own.
    pub run_id: String,
    /// 0 for a top-level run, one more for each level of child.
    pub depth: u32,
    /// The event's position in its run's stream, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// When it was emitted: RFC 3339, UTC, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

impl RunEvent {
    /// This event's wire tag.
    pub fn tag(&self) -> &'static str {
        self.kind.tag()
    }
}

/// The current time as `RunEvent::at` writes it: RFC 3339, UTC, milliseconds.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}
