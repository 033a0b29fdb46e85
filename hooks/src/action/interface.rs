//! The interface every action implements, and nothing else: the public
//! plug-in an embedder's own action uses exactly as `append` and `run` do.
//!
//! An action is two things. Its *kind* ([`ActionKind`]) is what a file's
//! reader knows of it: the key that chooses it, the keys only it takes, and
//! how a table with its key becomes an [`Action`]. A hook's *action*
//! ([`HookAction`], held in an [`Action`]) is what one table said: it
//! describes itself, declares its [`Effects`], and is prepared when the hooks
//! are built ([`Prepare`]) into what executes each event ([`Execute`],
//! given a [`Fire`]). The engine brings the rest: `on`, `where`,
//! `on_failure`, the project-scope refusal, unknown keys and their near
//! misses, the order of hooks, the messages, the background queue and the
//! supervisor of the children in flight.
//!
//! The action modules name this file and the layers below, never the
//! registry (`action/mod.rs`) that lists the built-in ones.

use std::any::Any;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use toml::Spanned;

use super::problem::{ActionProblem, ProblemKind};
use crate::failure::HookFailure;
use crate::key::{HookKey, ON_FAILURE};
use crate::raw::{Cx, KeyValue, RawHook, RawValue};
use crate::root::Root;
use crate::table_error::{TableError, TableErrorKind};
use io_supervisor::{StderrTail, Supervisor};

/// What a built-in action's module declares about it, as its `ENTRY`: what
/// [`ActionKind`] says of it, in a `const` the key table is computed from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    /// The key that chooses this action (`append`), a row of the key table.
    pub(crate) key: HookKey,
    /// Keys only this action takes (`timeout_ms` for `run`).
    pub(crate) options: &'static [HookKey],
    /// What a hook with this action does, as in "this hook appends".
    pub(crate) verb: &'static str,
    /// The JSON Schema rules of a table with this action beyond each key's
    /// own schema: what its `validate` refuses between two keys, written
    /// so that an editor refuses it too.
    pub(crate) rules: fn() -> Vec<serde_json::Value>,
}

/// A built-in action's kind: what its `ENTRY` declares, and its validator.
#[derive(Clone, Copy)]
pub(crate) struct BuiltIn {
    /// What its module declares.
    pub(crate) entry: Entry,
    /// Its [`ActionKind::validate`].
    pub(crate) validate: fn(&mut ActionTable<'_>) -> Result<Action, TableError>,
}

impl ActionKind for BuiltIn {
    fn key(&self) -> HookKey {
        self.entry.key
    }

    fn options(&self) -> &'static [HookKey] {
        self.entry.options
    }

    fn verb(&self) -> &'static str {
        self.entry.verb
    }

    fn rules(&self) -> Vec<serde_json::Value> {
        (self.entry.rules)()
    }

    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Action, TableError> {
        (self.validate)(table)
    }
}

/// A kind of action a hook may take, as a file's reader knows it: the key
/// that chooses it, the keys only it takes, and how a table with its key
/// becomes an [`Action`]. `append` and `run` are two; an embedder adds its
/// own with [`Layout::action`](crate::Layout::action), and its tables are
/// then read, checked and refused exactly as theirs are.
///
/// A table takes exactly one action's key. `on`, `where` and `on_failure`
/// are the engine's, as are an unknown key (with its near miss), a key of
/// another action, a table with no action or two, and a project file's
/// refusal: the kind sees only a table whose action it is.
///
/// ```
/// use std::path::Path;
/// use io_hooks::{
///     Action, ActionKind, ActionTable, Execute, Fire, HookAction, HookFailure, HookKey,
///     Prepare, TableError,
/// };
///
/// /// `echo = "text"`: writes nothing anywhere; a minimal action.
/// struct EchoKind;
///
/// #[derive(Debug, Clone, PartialEq)]
/// struct Echo(String);
///
/// impl ActionKind for EchoKind {
///     fn key(&self) -> HookKey {
///         HookKey::new("echo", |_| serde_json::json!({ "type": "string" }))
///     }
///     fn verb(&self) -> &'static str {
///         "echoes"
///     }
///     fn validate(&self, table: &mut ActionTable<'_>) -> Result<Action, TableError> {
///         let text: String = table.value()?;
///         if text.is_empty() {
///             return Err(table.refuse("echo", "`echo = \"\"` says nothing; write some text"));
///         }
///         Ok(Action::new(Echo(text)))
///     }
/// }
///
/// impl HookAction for Echo {
///     fn key(&self) -> &'static str {
///         "echo"
///     }
///     fn describe(&self, _: &Path) -> String {
///         format!("echo {:?}", self.0)
///     }
///     fn prepare(&self, _: &mut Prepare<'_>) -> Box<dyn Execute> {
///         Box::new(self.clone())
///     }
/// }
///
/// impl Execute for Echo {
///     fn execute(&self, _: Fire<'_>) -> Result<(), HookFailure> {
///         Ok(())
///     }
/// }
/// ```
pub trait ActionKind: Send + Sync + 'static {
    /// The key that chooses this action (`append`, `webhook`): a key no
    /// other action of the file, and no key of every hook (`on`, `where`,
    /// `on_failure`), has.
    fn key(&self) -> HookKey;

    /// The keys only this action takes (`timeout_ms` for `run`), in the
    /// order a checker lists them. On a table of another action, each is
    /// refused as that action's.
    fn options(&self) -> &'static [HookKey] {
        &[]
    }

    /// What a hook with this action does, as in "this hook appends": the
    /// verb a refusal of another action's key uses.
    fn verb(&self) -> &'static str;

    /// The JSON Schema rules of a table with this action beyond each key's
    /// own schema: what [`validate`](Self::validate) refuses between two
    /// keys, so that an editor refuses it too.
    fn rules(&self) -> Vec<serde_json::Value> {
        Vec::new()
    }

    /// Checks a table whose action this is: its key's value and its options
    /// (no other action's key or option is in it), into the hook's
    /// [`Action`].
    ///
    /// # Errors
    /// A value this action refuses, as [`ActionTable::refuse`] or
    /// [`ActionTable::value`] make it: naming the file, the key path and the
    /// line and column.
    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Action, TableError>;
}

/// A table whose action is being checked, as [`ActionKind::validate`] is
/// given it: its action key's value, its options, and where it is, which
/// makes its errors.
pub struct ActionTable<'a> {
    /// The action's key.
    pub(crate) key: &'static str,
    /// The action key's value, until a built-in action takes it.
    pub(crate) value: Option<Spanned<RawValue>>,
    /// The span of the action key's value.
    pub(crate) span: Range<usize>,
    /// The table's other keys.
    pub(crate) raw: &'a mut RawHook,
    /// The options taken out of `raw`, with their spans, for a refusal.
    pub(crate) taken: Vec<(String, Range<usize>)>,
    /// Where the table is.
    pub(crate) cx: &'a Cx<'a>,
}

impl fmt::Debug for ActionTable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ActionTable")
            .field("key", &self.key)
            .field("at", &self.cx.at)
            .finish_non_exhaustive()
    }
}

impl ActionTable<'_> {
    /// The action key's value, as `T`: a wrong type is refused with serde's
    /// words, at the value.
    ///
    /// # Errors
    /// A value that is not a `T`, naming the file, the key path, the line
    /// and the column.
    pub fn value<T: DeserializeOwned>(&self) -> Result<T, TableError> {
        let found = self.value.as_ref().map(|v| (v.get_ref(), v.span()));
        read_value(found, self.key, self.span.clone(), self.cx)
    }

    /// The option `name`'s value, as `T`, taken out of the table; `None`
    /// when it is not written. `name` is one of
    /// [`ActionKind::options`].
    ///
    /// # Errors
    /// A value that is not a `T`, as [`value`](Self::value).
    pub fn option<T: DeserializeOwned>(&mut self, name: &str) -> Result<Option<T>, TableError> {
        let Some(found) = self.raw.take(name) else {
            return Ok(None);
        };
        let span = found.span();
        self.taken.push((name.to_owned(), span.clone()));
        read_value(Some((found.get_ref(), span.clone())), name, span, self.cx).map(Some)
    }

    /// A refusal of the value of `key` (the action's key or one of its
    /// options), in this action's words: `reason` says what is wrong and
    /// what is accepted. The error names the file, the key path
    /// (``key `hook[2].webhook` ``), the line and the column of the value.
    pub fn refuse(&self, key: &str, reason: impl fmt::Display) -> TableError {
        let taken = self.taken.iter().find(|(name, _)| name == key);
        let span = match (key == self.key, taken) {
            (true, _) => self.span.clone(),
            (false, Some((_, span))) => span.clone(),
            (false, None) => self.raw.span(key).unwrap_or_else(|| self.cx.span.clone()),
        };
        let action = self.key;
        self.cx.refusal(key, span, action, reason)
    }

    /// The directory a relative path of this table is resolved against: the
    /// root the hooks are read with.
    pub fn root(&self) -> &Path {
        self.cx.root
    }

    /// Whether the table says `on_failure = "cancel"`: an action whose
    /// option cannot go with a cancel refuses it here.
    pub fn cancels(&self) -> bool {
        self.raw.choice(ON_FAILURE) == Some("cancel")
    }

    /// The action key's value as a built-in action's key read it (in the
    /// shape its row declares, which is `V`'s), taken; and the table's other
    /// keys and where it is, for the action's module.
    pub(crate) fn built_in<V: KeyValue>(
        &mut self,
    ) -> Result<(V, &mut RawHook, &Cx<'_>), TableError> {
        let kind = || {
            TableErrorKind::Shape(format!(
                "the value of `{}` was read in another shape than its action takes",
                self.key
            ))
        };
        let Some(value) = self.value.take().and_then(V::from_raw) else {
            return Err(self.cx.error(self.key, self.span.clone(), kind()));
        };
        Ok((value, self.raw, self.cx))
    }
}

/// `found` (a value of `key`, at `span`) as `T`.
fn read_value<T: DeserializeOwned>(
    found: Option<(&RawValue, Range<usize>)>,
    key: &str,
    span: Range<usize>,
    cx: &Cx<'_>,
) -> Result<T, TableError> {
    let shape = |message: String| cx.error(key, span.clone(), TableErrorKind::Shape(message));
    match found {
        Some((RawValue::Toml(value), _)) => {
            T::deserialize(value.clone()).map_err(|e| shape(e.message().trim_end().to_owned()))
        }
        _ => Err(shape(format!(
            "the value of `{key}` was read in another shape than its action takes"
        ))),
    }
}

/// One hook's action, as its table said it (or as an embedder built it in
/// code): what the hook does with each matching event. Held in an
/// [`Action`]; `append` ([`AppendAction`](crate::AppendAction)) and `run`
/// ([`RunAction`](crate::RunAction)) are two.
///
/// It is prepared once, when the hooks are built
/// ([`prepare`](Self::prepare)), into what executes each event.
pub trait HookAction: fmt::Debug + Send + Sync + Any + sealed::DynEq {
    /// The key that chose it (`append`): how failures and checkers name
    /// the action.
    fn key(&self) -> &'static str;

    /// What it does, in one phrase, as a checker shows it: `append to
    /// audit.jsonl`, `post to https://hooks.example/x (timeout 2000 ms)`.
    /// A path under `root` is shown relative to it.
    fn describe(&self, root: &Path) -> String;

    /// What it does beyond the engine, for a checker's cost note.
    fn effects(&self) -> Effects {
        Effects::NONE
    }

    /// Prepares it when the hooks are built: returns what executes it, and
    /// tells `cx` what would make it fail each time it fires
    /// ([`Prepare::problem`]). When [`Prepare::creates`] is set and nothing
    /// is wrong, it may create what it writes to; otherwise it changes
    /// nothing.
    fn prepare(&self, cx: &mut Prepare<'_>) -> Box<dyn Execute>;
}

/// What executes one hook's action with each event, as
/// [`HookAction::prepare`] made it. Shared by every thread that fires: it
/// keeps no state that one event could leave for another, but what its
/// own effect needs (an open file, a counter).
pub trait Execute: fmt::Debug + Send + Sync {
    /// Executes the action with one event.
    ///
    /// # Errors
    /// Why it failed, as [`HookFailure::action`] wraps the action's own
    /// failure type (or [`HookFailure::Process`] for a program it ran).
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure>;

    /// Whether its events go to a worker of the hook's own rather than run
    /// while the host waits (`run`'s `background = true`), with the
    /// engine's bounded queue, order and interrupt
    /// ([`Hooks`](crate::Hooks)' "Background hooks"). A hook whose failure
    /// cancels ([`Prepare::cancels`]) runs while the host waits whatever
    /// this says: its cancel must come with the event that caused it.
    fn background(&self) -> bool {
        false
    }
}

mod sealed {
    use std::any::Any;

    /// Equality between two actions of any type: equal when they are of one
    /// type and that type's `PartialEq` says so.
    pub trait DynEq {
        /// `self == other`, when `other` is of `self`'s type.
        fn dyn_eq(&self, other: &dyn Any) -> bool;
        /// `self`, to be compared or downcast.
        fn as_any(&self) -> &dyn Any;
    }

    impl<T: PartialEq + Any> DynEq for T {
        fn dyn_eq(&self, other: &dyn Any) -> bool {
            other.downcast_ref::<T>().is_some_and(|other| self == other)
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }
}

/// A hook's action: one of the actions a file's reader knows, `append`
/// ([`Action::append`]), `run` ([`Action::run`]) or an embedder's own
/// ([`Action::new`]).
///
/// Cheap to clone (it is shared); read with [`key`](Self::key) and
/// [`get`](Self::get):
///
/// ```
/// use io_hooks::{Action, RunAction};
/// let action = Action::run(["notify-send", "done"]);
/// assert_eq!(action.key(), "run");
/// assert_eq!(action.get::<RunAction>().unwrap().argv, ["notify-send", "done"]);
/// ```
#[derive(Clone)]
pub struct Action(Arc<dyn HookAction>);

impl Action {
    /// The action `action`: an embedder's own, or one of the built-in ones.
    pub fn new(action: impl HookAction) -> Self {
        Action(Arc::new(action))
    }

    /// The key that chose it (`append`).
    pub fn key(&self) -> &'static str {
        self.0.key()
    }

    /// The action as its own type, when it is a `T`.
    pub fn get<T: HookAction>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref()
    }

    /// What the action does beyond the engine (writes a file, spawns a
    /// process), as it declares it.
    pub fn effects(&self) -> Effects {
        self.0.effects()
    }

    /// What the action does, in one phrase, as a checker shows it:
    /// `append to audit.jsonl`, `run ["notify"] (timeout 5000 ms)`.
    /// Paths are shown relative to `root` when they are under it.
    pub fn describe(&self, root: &Path) -> String {
        self.0.describe(root)
    }

    /// Prepares it when the hooks are built ([`HookAction::prepare`]).
    pub(crate) fn prepare(&self, cx: &mut Prepare<'_>) -> Box<dyn Execute> {
        self.0.prepare(cx)
    }
}

impl fmt::Debug for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for Action {
    fn eq(&self, other: &Self) -> bool {
        self.0.dyn_eq(other.0.as_any())
    }
}

/// What an action does beyond the engine, as it declares it
/// ([`HookAction::effects`]): what a checker says a hook costs (it may note a
/// hook that spawns a process on every event of a frequent kind).
///
/// ```
/// use io_hooks::{Action, Effects};
/// assert!(Action::run(["notify"]).effects().spawns_process);
/// assert_eq!(Action::append("audit.jsonl").effects(), Effects::WRITES_FILE);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Effects {
    /// It opens, writes and closes a file per event.
    pub writes_file: bool,
    /// It spawns a process per event, and waits for it.
    pub spawns_process: bool,
    /// It sends a request over the network per event, and waits for the
    /// answer.
    pub sends_request: bool,
}

impl Effects {
    /// Nothing beyond the engine.
    pub const NONE: Effects = Effects {
        writes_file: false,
        spawns_process: false,
        sends_request: false,
    };
    /// Writes a file per event.
    pub const WRITES_FILE: Effects = Effects {
        writes_file: true,
        ..Effects::NONE
    };
    /// Spawns a process per event.
    pub const SPAWNS_PROCESS: Effects = Effects {
        spawns_process: true,
        ..Effects::NONE
    };
    /// Sends a request per event.
    pub const SENDS_REQUEST: Effects = Effects {
        sends_request: true,
        ..Effects::NONE
    };
}

/// What an action is prepared with when the hooks are built
/// ([`HookAction::prepare`]), and where it tells what it finds wrong.
#[derive(Debug)]
pub struct Prepare<'a> {
    /// The hooks' root, absolute and held open.
    pub(crate) root: &'a Root,
    /// Whether to create what the action writes to when nothing is wrong.
    pub(crate) create: bool,
    /// Whether a failure of this hook cancels the host's run.
    pub(crate) cancels: bool,
    /// The root the hook's table was read with, when it was read from one
    /// ([`HookSpec`](crate::HookSpec)'s).
    pub(crate) read_with: Option<&'a Path>,
    /// The action's key, which its problems are told under.
    pub(crate) key: &'static str,
    /// What was found wrong.
    pub(crate) problems: Vec<ProblemKind>,
}

impl Prepare<'_> {
    /// The hooks' root, absolute: a relative path of the action is resolved
    /// against it, and a spawned child runs in it.
    pub fn root(&self) -> &Path {
        &self.root.path
    }

    /// Whether to create what the action writes to when nothing is wrong
    /// ([`Hooks::new`](crate::Hooks::new)), or only to look
    /// ([`Hooks::check`](crate::Hooks::check)), leaving the disk as it was.
    pub fn creates(&self) -> bool {
        self.create
    }

    /// Whether a failure of this hook cancels the host's run: such a hook
    /// never runs in the background, where its cancel would come late.
    pub fn cancels(&self) -> bool {
        self.cancels
    }

    /// Tells the engine of something that will make this hook fail each
    /// time it fires, in the action's words: `message` says what is wrong,
    /// `hint` what the operator can do about it. The hook is kept, and the
    /// problem is said at load ([`Hooks::problems`](crate::Hooks::problems)).
    pub fn problem(&mut self, message: impl fmt::Display, hint: Option<String>) {
        let problem = ActionProblem {
            action: self.key,
            message: message.to_string(),
            hint,
        };
        self.problems.push(ProblemKind::Action(problem));
    }

    /// A built-in action's own problem.
    pub(crate) fn push(&mut self, problem: ProblemKind) {
        self.problems.push(problem);
    }
}

/// What an action executes one event with ([`Execute::execute`]).
#[derive(Debug)]
pub struct Fire<'a> {
    /// The event as one JSON line, with its newline.
    pub(crate) line: &'a [u8],
    /// The hooks' root, absolute and held open.
    pub(crate) root: &'a Root,
    /// What a spawned child is in flight on.
    pub(crate) supervisor: &'a Supervisor,
    /// Where the end of a spawned child's stderr is kept, when it is.
    pub(crate) capture: Option<&'a mut StderrTail>,
}

impl Fire<'_> {
    /// The event as one JSON line, with its newline: what the hook receives.
    pub fn line(&self) -> &[u8] {
        self.line
    }

    /// The hooks' root, absolute.
    pub fn root(&self) -> &Path {
        &self.root.path
    }

    /// Returns the hooks' supervisor: a child the action spawns runs on it
    /// ([`Supervisor::run_argv`]), and an action that waits on anything else
    /// checks [`Supervisor::is_interrupted`] so that the host's Ctrl-C ends
    /// it.
    pub fn supervisor(&self) -> &Supervisor {
        self.supervisor
    }
}
