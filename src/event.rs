//! The events a run emits: [`EventKind`] (what happened) and [`RunEvent`]
//! (which run, where in it, and when).
//!
//! Each variant's `#[serde(rename)]` is its wire tag, the name an operator
//! writes in a hook's `on` list. It is written literally on the variant so
//! renaming a Rust variant can never change a name in somebody's config, and
//! `#[derive(HookEvents)]` refuses a variant without one.

use serde::ser::{Error as _, Impossible, SerializeMap, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use io_hooks::text::write_json_str;
use io_hooks::{HookEvents, Kind};

/// What happened in a run: one variant per event a hook may name.
///
/// Serialised flat and tagged on `event`, with each variant's payload beside
/// the tag. The first line of each variant's doc comment says when it fires
/// and how often; `io events` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, HookEvents, schemars::JsonSchema)]
#[serde(tag = "event")]
// The envelope every line carries beside the event's own fields
// (`RunEvent`'s): a hook's `where` may name these on every event.
#[hook(envelope(run_id: String, depth: u32, seq: Option<u64>))]
// Its `Serialize` is serde's derive (above), so the derive writes each
// line itself, byte for byte what serde writes (`HookEvents::write_json`).
#[hook(write_json)]
pub enum EventKind {
    /// A run began, or was resumed; once per run, and once more per resume, which carries `resumed: true`. Carries the goal.
    #[serde(rename = "started")]
    #[hook(cost = "per_invocation")]
    Started {
        /// The goal the run was given.
        goal: String,
        /// `true` when this is a resume of a run that began before (it
        /// carries on the same `run_id` and `seq`); absent, never `false`,
        /// on a run's first start, so a first run's line is what it always
        /// was.
        #[serde(default, skip_serializing_if = "is_false")]
        resumed: bool,
    },
    /// A step was committed; once per step, after its writes are classified.
    #[serde(rename = "step")]
    #[hook(cost = "per_unit")]
    Step {
        /// The step's number, from 1.
        step: u32,
        /// Whether the step changed the workspace's bytes: the progress
        /// signal. Only `write_file` and `edit_file` count, and only when the
        /// bytes differ from what was there; an `exec` that writes files does
        /// not, so a run working through `exec` alone reads as no progress
        /// (and `stalled` fires).
        moved_the_workspace: bool,
    },
    /// The model called a tool; once per tool call, before it runs.
    #[serde(rename = "tool_call")]
    #[hook(cost = "per_unit")]
    ToolCall {
        /// The step the call belongs to.
        step: u32,
        /// The tool's name (`write_file`, `exec`, `spawn`, …).
        #[hook(values = crate::tool_name::TOOL_NAMES, prefix = "mcp__")]
        tool: String,
        /// The call's arguments, as the model gave them: a JSON object whose
        /// keys depend on the tool (`{"path": …, "content": …}`).
        #[schemars(with = "serde_json::Value")]
        args: crate::raw_json::RawJson,
    },
    /// The policy refused a tool call; when it happens, rarely.
    #[serde(rename = "refused")]
    #[hook(cost = "rare")]
    Refused {
        /// The step the call belonged to.
        step: u32,
        /// The tool that was refused.
        #[hook(values = crate::tool_name::TOOL_NAMES, prefix = "mcp__")]
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
        #[hook(values = crate::tool_name::TOOL_NAMES, prefix = "mcp__")]
        tool: String,
        /// The call's arguments.
        #[schemars(with = "serde_json::Value")]
        args: crate::raw_json::RawJson,
    },
    /// The approver answered; once per approval request.
    #[serde(rename = "approval_decided")]
    #[hook(cost = "rare")]
    ApprovalDecided {
        /// The step the call belongs to.
        step: u32,
        /// The tool that was decided on.
        #[hook(values = crate::tool_name::TOOL_NAMES, prefix = "mcp__")]
        tool: String,
        /// Whether the call may go ahead.
        approved: bool,
    },
    /// The run drew on its budget; once per model turn.
    #[serde(rename = "spend_draw")]
    #[hook(cost = "per_unit")]
    SpendDraw {
        /// The step the turn belongs to.
        step: u32,
        /// Tokens the turn consumed.
        tokens: u64,
        /// Tokens left in the run's budget after this turn, counting every
        /// turn of the run, those before a resume included.
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
    /// Steps went by without moving the workspace (no `write_file` or
    /// `edit_file` changed a byte; an `exec` does not count); when it
    /// happens, rarely.
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
        /// The child's own run id: the `run_id` of its events.
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
        /// The memory key written (the value is not carried).
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
        /// The server-side tool's name (`web_search`).
        tool: String,
    },
    /// The model streamed a token; once per streamed token, the hottest event.
    #[serde(rename = "token")]
    #[hook(cost = "per_item")]
    Token {
        /// The step being streamed.
        step: u32,
        /// The token's text, often a word or part of one with its leading
        /// space; the step's tokens joined are what the model said.
        text: String,
    },
    /// A command ran under the sandbox; once per command the run executes.
    #[serde(rename = "sandbox")]
    #[hook(cost = "per_unit")]
    Sandbox {
        /// The step that ran it.
        step: u32,
        /// The program, as the command named it (`true`, `cargo`).
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
        /// The JSON-RPC method called (`tools/list`).
        method: String,
    },
    /// A long-running process handle was started; once per handle.
    #[serde(rename = "handle_started")]
    #[hook(cost = "rare")]
    HandleStarted {
        /// The step that started it.
        step: u32,
        /// The handle's id (`h-1`), which the later `handle_*` events name.
        handle: String,
        /// The argv it runs, program first.
        argv: Vec<String>,
    },
    /// A handle was polled to see whether it still runs; once per poll.
    #[serde(rename = "handle_polled")]
    #[hook(cost = "per_unit")]
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
        /// Its exit code; `null` when a signal ended it.
        code: Option<i32>,
    },
    /// A handle was still running when its run ended (it is then killed); when it happens, rarely.
    #[serde(rename = "handle_orphaned")]
    // Emitted as the run ends, after its last step boundary: a cancel
    // answered to it stops nothing.
    #[hook(cost = "rare", last)]
    HandleOrphaned {
        /// The handle's id.
        handle: String,
    },
    /// A run ended, or a resume of it did; once per run, and once more per resume, which carries `resumed: true`. Carries the outcome and the step count.
    #[serde(rename = "finished")]
    // No step boundary follows it: a cancel answered to it stops nothing.
    #[hook(cost = "per_invocation", last)]
    Finished {
        /// How the run ended.
        #[hook(unit_enum)]
        outcome: Outcome,
        /// How many steps were committed, those before a resume included.
        steps: u32,
        /// `true` when the run that ended was a resume; absent, never
        /// `false`, otherwise.
        #[serde(default, skip_serializing_if = "is_false")]
        resumed: bool,
    },
}

/// For `skip_serializing_if`: a `resumed` that is `false` is not written.
#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes a reference
fn is_false(b: &bool) -> bool {
    !*b
}

/// How often an event fires: what a hook on it costs (the spec's "What a
/// hook costs"). Each [`EventKind`] variant declares its class next to it, as
/// `#[hook(cost = "per_unit")]`; `io events` prints it as the event's
/// frequency, in this program's words ([`cost_words`]).
pub use io_hooks::Cost;

/// A cost class in `io`'s own words, as `io events`, `docs/events.md` and
/// the hook schema print it: the engine's `per_item` is a streamed token,
/// `per_unit` a step, `per_invocation` a run.
///
/// ```
/// use io_harness::{Cost, cost_words};
/// assert_eq!(cost_words(Cost::PerItem), "per token");
/// assert_eq!(cost_words(Cost::PerUnit), "per step");
/// assert_eq!(cost_words(Cost::PerInvocation), "per run");
/// assert_eq!(cost_words(Cost::Rare), "rare");
/// ```
pub fn cost_words(cost: Cost) -> &'static str {
    match cost {
        Cost::PerItem => "per token",
        Cost::PerUnit => "per step",
        Cost::PerInvocation => "per run",
        other => other.as_str(),
    }
}

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
    /// The kind of a streamed token: what the run loop asks an observer
    /// about once a step.
    pub const TOKEN: Kind<Self> = Kind::named("token");

    /// How often events of `kind` fire (every variant declares its cost, as
    /// the `const` assertion above proves).
    ///
    /// ```
    /// use io_harness::{Cost, EventKind, HookEvents};
    ///
    /// let token = EventKind::from_tag("token").expect("a tag");
    /// assert_eq!(EventKind::frequency(token), Cost::PerItem);
    /// assert_eq!(EventKind::frequency(EventKind::TOKEN), Cost::PerItem);
    /// ```
    pub fn frequency(kind: Kind<Self>) -> Cost {
        match kind.cost() {
            Some(cost) => cost,
            None => unreachable!("every EventKind variant declares #[hook(cost)]"),
        }
    }
}

/// How a run ended, as `finished` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The model gave its final answer.
    Completed,
    /// An observer (a hook with `on_failure = "cancel"`) ended the run at a
    /// step boundary; it can be resumed.
    Cancelled,
    /// The run could not go on (a provider or store error, the step limit).
    Failed,
    /// The host was interrupted (`io`: Ctrl-C, `SIGTERM`, `SIGHUP`,
    /// `SIGQUIT`): the run called no further tool and committed no step
    /// in progress; it can be resumed.
    Interrupted,
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
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct RunEvent {
    /// What happened. First, so that `event` leads every line.
    #[serde(flatten)]
    pub kind: EventKind,
    /// The run that emitted it. A child run has its own, which begins with
    /// its parent's (`r-7393c7252d95.5.1`).
    pub run_id: String,
    /// 0 for a top-level run, one more for each level of child.
    pub depth: u32,
    /// The event's position in its run's stream, from 0. Every event takes
    /// one, wanted or not, so a hook that sees only some events sees gaps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub seq: Option<u64>,
    /// When it was emitted: RFC 3339, UTC, milliseconds
    /// (`2026-11-30T03:00:00.123Z`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("format" = "date-time"))]
    pub at: Option<String>,
}

impl RunEvent {
    /// This event's wire tag.
    pub fn tag(&self) -> &'static str {
        self.kind.tag()
    }
}

/// The envelope a hook's `where` reads, field by field in the order
/// `EventKind`'s `#[hook(envelope(run_id, depth, seq))]` declares them:
/// `where.depth = 0` holds for a top-level run's events, whatever the
/// event.
///
/// ```
/// use io_harness::{Enveloped, EventKind, FieldValue, HookEvents, Outcome, RunEvent};
///
/// let names: Vec<&str> = EventKind::ENVELOPE.iter().map(|f| f.name).collect();
/// assert_eq!(names, ["run_id", "depth", "seq"]);
/// let ev = RunEvent {
///     run_id: "r-1.2.1".into(),
///     depth: 1,
///     seq: None,
///     at: None,
///     kind: EventKind::Finished { outcome: Outcome::Completed, steps: 2, resumed: false },
/// };
/// assert_eq!(ev.envelope_field(0), Some(FieldValue::Str("r-1.2.1")));
/// assert_eq!(ev.envelope_field(1), Some(FieldValue::UInt(1)));
/// assert_eq!(ev.envelope_field(2), None);
/// ```
impl io_hooks::Enveloped<EventKind> for RunEvent {
    #[inline]
    fn event(&self) -> &EventKind {
        &self.kind
    }

    #[inline]
    fn envelope_field(&self, index: usize) -> Option<io_hooks::FieldValue<'_>> {
        match index {
            0 => Some(io_hooks::FieldValue::Str(&self.run_id)),
            1 => Some(io_hooks::FieldValue::UInt(self.depth.into())),
            2 => self.seq.map(io_hooks::FieldValue::UInt),
            _ => None,
        }
    }

    /// A tool call's arguments, as their JSON text, for `where.args.<name>`.
    #[inline]
    fn free_form(&self, index: usize) -> Option<&str> {
        let named_args = || {
            self.kind
                .kind()
                .fields()
                .get(index)
                .is_some_and(|f| f.name == "args")
        };
        match &self.kind {
            EventKind::ToolCall { args, .. } | EventKind::ApprovalRequested { args, .. }
                if named_args() =>
            {
                Some(args.get())
            }
            _ => None,
        }
    }
}

/// Writes the event's own fields, then the envelope, as one flat JSON
/// object: the bytes the derive with `#[serde(flatten)]` wrote.
///
/// `EventKind`'s derived `Serialize` (internally tagged) opens a struct and
/// writes `event` and the variant's fields; a private wrapper passes all of
/// that straight through to the real serializer and adds the envelope's
/// fields before the struct is closed. `Deserialize` stays derived, with
/// `flatten`, and reads these lines back.
impl Serialize for RunEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.kind.serialize(WithEnvelope {
            inner: serializer,
            event: self,
        })
    }
}

impl RunEvent {
    /// The event as one line of JSON, without its newline: the bytes
    /// `serde_json::to_vec` writes with this type's `Serialize`, made
    /// faster for the per-event path of `append` and `run` hooks
    /// ([`io_hooks::Hooks::fire_line`]). The variant is written by
    /// [`HookEvents::write_json`], which `#[derive(HookEvents)]` writes
    /// without serde's machinery (its tag and keys are literals); the
    /// envelope's four keys, constants of this file that need no escaping,
    /// are written as literals too, and its values as serde_json writes
    /// them: `run_id` and `at` are public fields, so whatever an embedder
    /// put there is escaped (a string with nothing to escape, as a run id
    /// and a time are, is copied between quotes).
    ///
    /// ```
    /// use io_harness::{EventKind, RunEvent};
    ///
    /// let ev = RunEvent {
    ///     run_id: "r-\"7f3a\"".into(),
    ///     depth: 1,
    ///     seq: Some(12),
    ///     at: None,
    ///     kind: EventKind::Replan { step: 3, reason: "a\nb".into() },
    /// };
    /// assert_eq!(ev.json_line()?, serde_json::to_vec(&ev)?);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    ///
    /// # Errors
    /// As `serde_json::to_vec` fails on the variant's fields.
    pub fn json_line(&self) -> serde_json::Result<Vec<u8>> {
        let mut line = Vec::with_capacity(256);
        self.kind.write_json(&mut line)?;
        // An internally tagged variant is an object that holds `event` at
        // least: the envelope goes on before its closing brace, after a
        // comma.
        if line.pop() != Some(b'}') {
            return Err(serde::ser::Error::custom(
                "an event must serialise as a JSON object",
            ));
        }
        line.extend_from_slice(br#","run_id":"#);
        write_json_str(&mut line, &self.run_id)?;
        line.extend_from_slice(br#","depth":"#);
        serde_json::to_writer(&mut line, &self.depth)?;
        if let Some(seq) = self.seq {
            line.extend_from_slice(br#","seq":"#);
            serde_json::to_writer(&mut line, &seq)?;
        }
        if let Some(at) = &self.at {
            line.extend_from_slice(br#","at":"#);
            write_json_str(&mut line, at)?;
        }
        line.push(b'}');
        Ok(line)
    }

    /// How many envelope fields are written: `run_id`, `depth`, and `seq`
    /// and `at` when present.
    fn envelope_len(&self) -> usize {
        2 + usize::from(self.seq.is_some()) + usize::from(self.at.is_some())
    }
}

/// A serializer that hands `EventKind`'s struct (or map) to `inner` and
/// appends `event`'s envelope to it before closing it.
struct WithEnvelope<'a, S> {
    inner: S,
    event: &'a RunEvent,
}

/// The open struct or map of a [`WithEnvelope`].
struct EnvelopeFields<'a, T> {
    inner: T,
    event: &'a RunEvent,
}

impl<T: SerializeStruct> SerializeStruct for EnvelopeFields<'_, T> {
    type Ok = T::Ok;
    type Error = T::Error;

    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), T::Error> {
        self.inner.serialize_field(key, value)
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), T::Error> {
        self.inner.skip_field(key)
    }

    fn end(mut self) -> Result<T::Ok, T::Error> {
        let ev = self.event;
        self.inner.serialize_field("run_id", &ev.run_id)?;
        self.inner.serialize_field("depth", &ev.depth)?;
        match &ev.seq {
            Some(seq) => self.inner.serialize_field("seq", seq)?,
            None => self.inner.skip_field("seq")?,
        }
        match &ev.at {
            Some(at) => self.inner.serialize_field("at", at)?,
            None => self.inner.skip_field("at")?,
        }
        self.inner.end()
    }
}

impl<T: SerializeMap> SerializeMap for EnvelopeFields<'_, T> {
    type Ok = T::Ok;
    type Error = T::Error;

    fn serialize_key<K: Serialize + ?Sized>(&mut self, key: &K) -> Result<(), T::Error> {
        self.inner.serialize_key(key)
    }

    fn serialize_value<V: Serialize + ?Sized>(&mut self, value: &V) -> Result<(), T::Error> {
        self.inner.serialize_value(value)
    }

    fn end(mut self) -> Result<T::Ok, T::Error> {
        let ev = self.event;
        self.inner.serialize_entry("run_id", &ev.run_id)?;
        self.inner.serialize_entry("depth", &ev.depth)?;
        if let Some(seq) = &ev.seq {
            self.inner.serialize_entry("seq", seq)?;
        }
        if let Some(at) = &ev.at {
            self.inner.serialize_entry("at", at)?;
        }
        self.inner.end()
    }
}

/// The methods an internally tagged enum never calls: each is an error
/// rather than a silently different line.
macro_rules! not_an_object {
    ($($method:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        $(
            fn $method(self, $($arg: $ty),*) -> Result<$ret, S::Error> {
                $(let _ = $arg;)*
                Err(S::Error::custom("an event must serialise as a JSON object"))
            }
        )*
    };
}

impl<'a, S: Serializer> Serializer for WithEnvelope<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = EnvelopeFields<'a, S::SerializeMap>;
    type SerializeStruct = EnvelopeFields<'a, S::SerializeStruct>;
    type SerializeStructVariant = Impossible<S::Ok, S::Error>;

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        let len = len + self.event.envelope_len();
        Ok(EnvelopeFields {
            inner: self.inner.serialize_struct(name, len)?,
            event: self.event,
        })
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        let len = len.map(|len| len + self.event.envelope_len());
        Ok(EnvelopeFields {
            inner: self.inner.serialize_map(len)?,
            event: self.event,
        })
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        let _ = value;
        Err(S::Error::custom("an event must serialise as a JSON object"))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let _ = (name, value);
        Err(S::Error::custom("an event must serialise as a JSON object"))
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let _ = (name, index, variant, value);
        Err(S::Error::custom("an event must serialise as a JSON object"))
    }

    not_an_object! {
        serialize_bool(v: bool) -> S::Ok;
        serialize_i8(v: i8) -> S::Ok;
        serialize_i16(v: i16) -> S::Ok;
        serialize_i32(v: i32) -> S::Ok;
        serialize_i64(v: i64) -> S::Ok;
        serialize_u8(v: u8) -> S::Ok;
        serialize_u16(v: u16) -> S::Ok;
        serialize_u32(v: u32) -> S::Ok;
        serialize_u64(v: u64) -> S::Ok;
        serialize_f32(v: f32) -> S::Ok;
        serialize_f64(v: f64) -> S::Ok;
        serialize_char(v: char) -> S::Ok;
        serialize_str(v: &str) -> S::Ok;
        serialize_bytes(v: &[u8]) -> S::Ok;
        serialize_none() -> S::Ok;
        serialize_unit() -> S::Ok;
        serialize_unit_struct(name: &'static str) -> S::Ok;
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str) -> S::Ok;
        serialize_seq(len: Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(len: usize) -> Self::SerializeTuple;
        serialize_tuple_struct(name: &'static str, len: usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(
            name: &'static str,
            index: u32,
            variant: &'static str,
            len: usize
        ) -> Self::SerializeTupleVariant;
        serialize_struct_variant(
            name: &'static str,
            index: u32,
            variant: &'static str,
            len: usize
        ) -> Self::SerializeStructVariant;
    }
}

/// The current time as `RunEvent::at` writes it: RFC 3339, UTC, milliseconds
/// (`2026-11-30T03:00:00.123Z`).
///
/// The 24 bytes are written into a stack array with integer arithmetic, then
/// copied once into the `String` that becomes the field: no `fmt`
/// machinery.
/// A clock set before 1970 reads as 1970-01-01.
pub fn now_rfc3339() -> String {
    rfc3339_millis(std::time::SystemTime::now())
}

/// `time` as RFC 3339, UTC, milliseconds; the same text as
/// `humantime::format_rfc3339_millis` for any time from 1970 to 9999.
pub(crate) fn rfc3339_millis(time: std::time::SystemTime) -> String {
    let since = time
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = since.as_secs();
    let (year, month, day) = civil_from_days(secs / 86_400);
    let of_day = secs % 86_400;
    let mut buf = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut value: u64| {
        for i in (at..at + width).rev() {
            buf[i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, month);
    put(8, 2, day);
    put(11, 2, of_day / 3600);
    put(14, 2, of_day / 60 % 60);
    put(17, 2, of_day % 60);
    put(20, 3, u64::from(since.subsec_millis()));
    // Digits, dashes and colons only: always UTF-8.
    std::str::from_utf8(&buf)
        .map(str::to_owned)
        .unwrap_or_default()
}

/// The proleptic Gregorian (year, month, day) of the `days`-th day after
/// 1970-01-01 (Howard Hinnant's `civil_from_days`, for days ≥ 0).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn the_clock_reads_as_humantime_wrote_it() {
        // Every day from 1970 into 2200 at a varying time of day, leap days
        // and century years among them, plus the last millisecond of 9999.
        let mut secs = 0u64;
        let mut checked = 0;
        while secs < 7_258_118_400 {
            let t = UNIX_EPOCH + Duration::from_millis(secs * 1000 + secs % 1000);
            assert_eq!(
                rfc3339_millis(t),
                humantime::format_rfc3339_millis(t).to_string()
            );
            secs += 86_400 + 3_607;
            checked += 1;
        }
        assert!(checked > 80_000);
        let last = UNIX_EPOCH + Duration::from_millis(253_402_300_799_999);
        assert_eq!(rfc3339_millis(last), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn a_clock_before_1970_reads_as_the_epoch() {
        let t = UNIX_EPOCH - Duration::from_secs(5);
        assert_eq!(rfc3339_millis(t), "1970-01-01T00:00:00.000Z");
    }
}
