//! The interface every action implements, and nothing else: the public
//! plug-in an embedder's own action uses exactly as `append` and `run` do.
//!
//! An action is two things. Its *kind* ([`ActionKind`]) is what a file's
//! reader knows of it: the key that chooses it (its identity, declared
//! once), the keys only it takes, which of the engine's keys it honours,
//! and how a table with its key becomes its typed action
//! ([`ActionKind::Action`]). That action is its *executor* ([`Execute`]):
//! it describes itself, declares its [`Effects`], is prepared when the
//! hooks are built ([`Prepare`]) and executes each event ([`Fire`]). The
//! engine brings the rest: `on`, `where`, `on_failure`, `timeout_ms` and
//! `background` (the deadline and the queue), the project-scope refusal,
//! unknown keys and their near misses, the order of hooks, the messages
//! and the supervisor of the children in flight.
//!
//! The action modules name this file and the layers below, never the
//! registry (`action/mod.rs`) that lists the built-in ones.

use std::any::Any;
use std::ffi::OsStr;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use toml::Spanned;

use super::problem_kind::ProblemKind;
use super::value;
use crate::env::ChildEnv;
use crate::hook_failure::HookFailure;
use crate::key::{BACKGROUND, HookKey, ON_FAILURE, TIMEOUT_MS};
use crate::raw::{Cx, RawHook, RawValue};
use crate::table_error::TableError;
use io_beneath::Root;
use io_supervisor::{StderrTail, Supervisor};

/// The default wall-clock ceiling on a hook whose action honours
/// `timeout_ms` and has none written: five seconds, chosen to be noticeable
/// when a spawning hook is wired to a hot event.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(5000);

/// A kind of action a hook may take, as a file's reader knows it: the key
/// that chooses it, the keys only it takes, which of the engine's keys it
/// honours, and how a table with its key becomes its typed
/// [`Action`](Self::Action). `append` and `run` are two, listed in the
/// engine's one list of built-in kinds; an embedder adds its own with
/// [`Layout::action`](crate::Layout::action), and its tables are then read,
/// checked and refused exactly as theirs are.
///
/// A table takes exactly one action's key. `on`, `where`, `on_failure`,
/// `timeout_ms` and `background` are the engine's, as are an unknown key
/// (with its near miss), a key of another action, a key of the engine's
/// that this action does not honour, a table with no action or two, and a
/// project file's refusal: the kind sees only a table whose action it is.
///
/// ```
/// use std::path::Path;
/// use io_hooks::{
///     ActionKind, ActionTable, Execute, Fire, HookFailure, HookKey, Prepare, TableError,
/// };
///
/// /// `echo = "text"`: writes nothing anywhere; a minimal action.
/// struct EchoKind;
///
/// #[derive(Debug, Clone)]
/// struct Echo(String);
///
/// impl ActionKind for EchoKind {
///     type Action = Echo;
///     const KEY: HookKey = HookKey::new("echo", "some text, as in `echo = \"hi\"`", |_| {
///         serde_json::json!({ "type": "string" })
///     });
///     const VERB: &'static str = "echoes";
///     fn validate(&self, table: &mut ActionTable<'_>) -> Result<Echo, TableError> {
///         let text: String = table.value()?;
///         if text.is_empty() {
///             return Err(table.refuse("echo", "`echo = \"\"` says nothing; write some text"));
///         }
///         Ok(Echo(text))
///     }
/// }
///
/// impl Execute for Echo {
///     fn describe(&self, _: &Path) -> String {
///         format!("echo {:?}", self.0)
///     }
///     fn prepare(&self, _: &mut Prepare<'_>) -> Self {
///         self.clone()
///     }
///     fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
///         assert!(fire.line().starts_with(b"{\"event\":\""));
///         Ok(())
///     }
/// }
/// ```
pub trait ActionKind: Send + Sync + 'static {
    /// The action a table of this kind becomes: what executes each event.
    type Action: Execute;

    /// The key that chooses this action (`append`, `webhook`): its
    /// identity, which names its hooks' failures and problems. No other
    /// action of the file, and no key of every hook (`on`, `where`,
    /// `on_failure`, `timeout_ms`, `background`), has it.
    const KEY: HookKey;

    /// The keys only this action takes, in the order a checker lists them.
    /// On a table of another action, each is refused as this action's.
    const OPTIONS: &'static [HookKey] = &[];

    /// What a hook with this action does, as in "this hook appends": the
    /// verb a refusal of another action's key uses.
    const VERB: &'static str;

    /// Whether it honours the engine's `timeout_ms`: the engine then reads
    /// it (a whole number of milliseconds, at least 1, [`DEFAULT_TIMEOUT`]
    /// when absent) and gives each event its deadline ([`Fire::deadline`]).
    /// When `false`, `timeout_ms` on its table is refused.
    const TIMEOUT: bool = false;

    /// Whether it honours the engine's `background`: the engine then hands
    /// each event of a hook with `background = true` to the hook's own
    /// worker ([`Hooks`](crate::Hooks)' "Background hooks"), and refuses it
    /// with `on_failure = "cancel"`. When `false`, `background` on its
    /// table is refused.
    const BACKGROUND: bool = false;

    /// Why it does not honour a key of the engine's, as `(key, why)`, said
    /// in the refusal of that key on its table: `append` says of
    /// `background` that an append is one write, done in microseconds.
    const WHY_NOT: &'static [(&'static str, &'static str)] = &[];

    /// The JSON Schema rules of a table with this action beyond each key's
    /// own schema: what [`validate`](Self::validate) refuses between two
    /// keys, so that an editor refuses it too.
    fn rules(&self) -> Vec<serde_json::Value> {
        Vec::new()
    }

    /// Checks a table whose action this is (its key's value and its
    /// options; no other action's key or option is in it) into its action.
    ///
    /// # Errors
    /// A value this action refuses, as [`ActionTable::refuse`] or
    /// [`ActionTable::value`] make it: naming the file, the key path and the
    /// line and column.
    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Self::Action, TableError>;
}

/// What executes one hook's action with each event: the typed action an
/// [`ActionKind`] validates a table into. It describes itself, declares
/// what it does beyond the engine, is prepared once when the hooks are
/// built, and executes each matching event, on the thread that fires or on
/// a background hook's worker.
///
/// `Debug` is asked for because a hook's [`HookSpec`](crate::HookSpec)
/// shows its action in its own `Debug`.
pub trait Execute: fmt::Debug + Send + Sync + 'static {
    /// Returns what it does, in one phrase, as a checker shows it:
    /// `append to audit.jsonl`, `post to https://hooks.example/x`. A path
    /// under `root` is shown relative to it. The engine adds its own keys
    /// (`(timeout 2000 ms, in the background)`).
    fn describe(&self, root: &Path) -> String;

    /// Returns what it does beyond the engine, for a checker's cost note.
    fn effects(&self) -> Effects {
        Effects::NONE
    }

    /// Returns the action prepared to execute, when the hooks are built,
    /// and tells `cx` what would make it fail each time it fires
    /// ([`Prepare::problem`]). When [`Prepare::creates`] is set and nothing
    /// is wrong, it may create what it writes to; otherwise it changes
    /// nothing. An action with nothing to prepare returns a copy of itself.
    fn prepare(&self, cx: &mut Prepare<'_>) -> Self
    where
        Self: Sized;

    /// Executes the action with one event. Shared by every thread that
    /// fires: it keeps no state that one event could leave for another, but
    /// what its own effect needs (an open file, a counter).
    ///
    /// # Errors
    /// Why it failed, as [`HookFailure::action`] wraps the action's own
    /// failure type (or [`HookFailure::Process`] for a program it ran).
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure>;
}

/// An executor of any type, as the engine holds it.
pub(crate) trait DynAction: fmt::Debug + Send + Sync {
    /// `self`, to be downcast.
    fn as_any(&self) -> &dyn Any;
    /// [`Execute::describe`].
    fn describe(&self, root: &Path) -> String;
    /// [`Execute::effects`].
    fn effects(&self) -> Effects;
    /// [`Execute::prepare`], shared.
    fn prepare(&self, cx: &mut Prepare<'_>) -> Arc<dyn DynAction>;
    /// [`Execute::execute`].
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure>;
}

impl<T: Execute> DynAction for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn describe(&self, root: &Path) -> String {
        Execute::describe(self, root)
    }
    fn effects(&self) -> Effects {
        Execute::effects(self)
    }
    fn prepare(&self, cx: &mut Prepare<'_>) -> Arc<dyn DynAction> {
        Arc::new(Execute::prepare(self, cx))
    }
    #[inline]
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        Execute::execute(self, fire)
    }
}

/// A kind of any type, as a file's reader holds it.
pub(crate) trait DynKind: Send + Sync {
    /// [`ActionKind::KEY`].
    fn key(&self) -> HookKey;
    /// [`ActionKind::OPTIONS`].
    fn options(&self) -> &'static [HookKey];
    /// [`ActionKind::VERB`].
    fn verb(&self) -> &'static str;
    /// Whether it honours the engine's key `name`.
    fn honours(&self, name: &str) -> bool;
    /// [`ActionKind::WHY_NOT`] for `name`.
    fn why_not(&self, name: &str) -> Option<&'static str>;
    /// [`ActionKind::rules`].
    fn rules(&self) -> Vec<serde_json::Value>;
    /// [`ActionKind::validate`], into a hook's [`Action`].
    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Action, TableError>;
}

impl<K: ActionKind> DynKind for K {
    fn key(&self) -> HookKey {
        K::KEY
    }
    fn options(&self) -> &'static [HookKey] {
        K::OPTIONS
    }
    fn verb(&self) -> &'static str {
        K::VERB
    }
    fn honours(&self, name: &str) -> bool {
        (name == TIMEOUT_MS && K::TIMEOUT) || (name == BACKGROUND && K::BACKGROUND)
    }
    fn why_not(&self, name: &str) -> Option<&'static str> {
        K::WHY_NOT
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, why)| *why)
    }
    fn rules(&self) -> Vec<serde_json::Value> {
        ActionKind::rules(self)
    }
    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Action, TableError> {
        ActionKind::validate(self, table).map(Action::new::<K>)
    }
}

/// A table whose action is being checked, as [`ActionKind::validate`] is
/// given it: its action key's value, its options, and where it is, which
/// makes its errors.
pub struct ActionTable<'a> {
    /// The action's key.
    pub(crate) key: HookKey,
    /// The action key's value.
    pub(crate) value: Spanned<RawValue>,
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
            .field("key", &self.key.name)
            .field("at", &self.cx.at)
            .finish_non_exhaustive()
    }
}

impl ActionTable<'_> {
    /// Returns the action key's value, as `T`. A value that is not a `T`
    /// is refused as a built-in action's is: what was written and what the
    /// key accepts, with its example ([`HookKey::new`]'s `accepts`).
    ///
    /// # Errors
    /// A value that is not a `T`, naming the file, the key path, the line
    /// and the column.
    pub fn value<T: DeserializeOwned>(&self) -> Result<T, TableError> {
        value::read(self.value.get_ref(), &self.key, self.value.span(), self.cx)
    }

    /// Returns the option `name`'s value, as `T`, taken out of the table;
    /// `None` when it is not written. `name` is one of
    /// [`ActionKind::OPTIONS`].
    ///
    /// # Errors
    /// A value that is not a `T`, as [`value`](Self::value).
    pub fn option<T: DeserializeOwned>(&mut self, name: &str) -> Result<Option<T>, TableError> {
        let Some((key, found)) = self.raw.take_keyed(name) else {
            return Ok(None);
        };
        let span = found.span();
        self.taken.push((name.to_owned(), span.clone()));
        value::read(found.get_ref(), &key, span, self.cx).map(Some)
    }

    /// Returns a refusal of the value of `key` (the action's key or one of
    /// its options), in this action's words: `reason` says what is wrong
    /// and what is accepted. The error names the file, the key path
    /// (``key `hook[2].webhook` ``), the line and the column of the value.
    pub fn refuse(&self, key: &str, reason: impl fmt::Display) -> TableError {
        let taken = self.taken.iter().find(|(name, _)| name == key);
        let span = match (key == self.key.name, taken) {
            (true, _) => self.value.span(),
            (false, Some((_, span))) => span.clone(),
            (false, None) => self.raw.span(key).unwrap_or_else(|| self.cx.span.clone()),
        };
        self.cx.refusal(key, span, self.key.name, reason)
    }

    /// Returns a refusal of element `item` (from 0) of the action key's
    /// value, an array, in this action's words, pointing at that element
    /// when its position is known (at the array's otherwise).
    pub fn refuse_item(&self, item: usize, reason: impl fmt::Display) -> TableError {
        let span = match self.value.get_ref() {
            RawValue::Strings(items) => items.get(item).map(Spanned::span),
            _ => None,
        };
        let span = span.unwrap_or_else(|| self.value.span());
        self.cx.refusal(self.key.name, span, self.key.name, reason)
    }

    /// Returns the directory a relative path of this table is resolved
    /// against: the root the hooks are read with.
    pub fn root(&self) -> &Path {
        self.cx.root
    }

    /// Returns whether the table says `on_failure = "cancel"`: an action
    /// whose option cannot go with a cancel refuses it here.
    pub fn cancels(&self) -> bool {
        self.raw.choice(ON_FAILURE) == Some("cancel")
    }
}

/// A hook's action: one of the actions a file's reader knows, `append`
/// ([`Action::append`]), `run` ([`Action::run`]) or an embedder's own
/// ([`Action::new`]), with the engine's keys its kind honours
/// (`timeout_ms`, `background`).
///
/// Cheap to clone (it is shared); read with [`key`](Self::key),
/// [`get`](Self::get), [`timeout`](Self::timeout) and
/// [`background`](Self::background):
///
/// ```
/// use io_hooks::{Action, RunAction, DEFAULT_TIMEOUT};
/// let action = Action::run(["notify-send", "done"]);
/// assert_eq!(action.key(), "run");
/// assert_eq!(action.get::<RunAction>().unwrap().argv, ["notify-send", "done"]);
/// assert_eq!(action.timeout(), Some(DEFAULT_TIMEOUT));
/// assert!(!action.background());
/// ```
#[derive(Clone)]
pub struct Action {
    /// What executes it.
    inner: Arc<dyn DynAction>,
    /// Its kind's key.
    key: &'static str,
    /// Its timeout, when its kind honours `timeout_ms`.
    timeout: Option<Duration>,
    /// Whether its kind honours `background`.
    takes_background: bool,
    /// Whether its events go to the hook's own worker.
    background: bool,
}

impl Action {
    /// Returns the action `action`, of the kind `K` (which names it and
    /// says which of the engine's keys it honours): an embedder's own, or
    /// one of the built-in ones. Its timeout is [`DEFAULT_TIMEOUT`] when
    /// `K` honours `timeout_ms`, and it runs while the host waits.
    pub fn new<K: ActionKind>(action: K::Action) -> Self {
        Action {
            inner: Arc::new(action),
            key: K::KEY.name,
            timeout: K::TIMEOUT.then_some(DEFAULT_TIMEOUT),
            takes_background: K::BACKGROUND,
            background: false,
        }
    }

    /// Returns the same action with `timeout` as its wall-clock ceiling,
    /// as `timeout_ms` sets it; no change for an action whose kind does not
    /// honour `timeout_ms`.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        if self.timeout.is_some() {
            self.timeout = Some(timeout);
        }
        self
    }

    /// Returns the same action with each event handed to the hook's own
    /// worker while the host goes on, as `background = true` sets it
    /// ([`Hooks`](crate::Hooks)' "Background hooks"); no change for an
    /// action whose kind does not honour `background`. Never with
    /// `on_failure` [`Flow::Cancel`](crate::Flow::Cancel): such a hook runs
    /// while the host waits, and [`Hooks::problems`](crate::Hooks::problems)
    /// says so.
    #[must_use]
    pub fn in_background(mut self) -> Self {
        self.background = self.takes_background;
        self
    }

    /// Returns the key that chose it (`append`): its kind's.
    pub fn key(&self) -> &'static str {
        self.key
    }

    /// Returns the action as its own type, when it is a `T`.
    pub fn get<T: Execute>(&self) -> Option<&T> {
        self.inner.as_any().downcast_ref()
    }

    /// Returns its wall-clock ceiling, when its kind honours `timeout_ms`.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Returns whether its events go to the hook's own worker
    /// (`background = true`).
    pub fn background(&self) -> bool {
        self.background
    }

    /// Returns what the action does beyond the engine (writes a file,
    /// spawns a process), as it declares it.
    pub fn effects(&self) -> Effects {
        self.inner.effects()
    }

    /// Returns what the action does, in one phrase, as a checker shows it:
    /// `append to audit.jsonl`, `run ["notify"] (timeout 5000 ms)`.
    /// Paths are shown relative to `root` when they are under it.
    pub fn describe(&self, root: &Path) -> String {
        let mut out = self.inner.describe(root);
        let background = if self.background {
            ", in the background"
        } else {
            ""
        };
        match self.timeout {
            Some(timeout) => {
                let ms = timeout.as_millis();
                out.push_str(&format!(" (timeout {ms} ms{background})"));
            }
            None if self.background => out.push_str(" (in the background)"),
            None => {}
        }
        out
    }

    /// Prepares it when the hooks are built ([`Execute::prepare`]).
    pub(crate) fn prepare(&self, cx: &mut Prepare<'_>) -> Arc<dyn DynAction> {
        self.inner.prepare(cx)
    }

    /// The same action with the engine's keys as a table wrote them.
    pub(crate) fn with_keys(mut self, timeout: Option<Duration>, background: bool) -> Self {
        if let Some(timeout) = timeout {
            self = self.with_timeout(timeout);
        }
        if background {
            self = self.in_background();
        }
        self
    }
}

impl fmt::Debug for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)?;
        // The engine's keys, shown when they are not their defaults.
        if self.timeout.is_some_and(|t| t != DEFAULT_TIMEOUT) || self.background {
            write!(
                f,
                " with {{ timeout: {:?}, background: {} }}",
                self.timeout, self.background
            )?;
        }
        Ok(())
    }
}

/// What an action does beyond the engine, as it declares it
/// ([`Execute::effects`]): what a checker says a hook costs (it may note a
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
/// ([`Execute::prepare`]), and where it tells what it finds wrong.
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
    /// Returns the hooks' root, absolute: a relative path of the action is
    /// resolved against it, and a spawned child runs in it.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// Returns the hooks' root as the engine holds it open, to open what
    /// the action reads or writes beneath it as `append` does
    /// ([`io_beneath::Root::open_file`]): no second descriptor of its own,
    /// and the same rules for a path a clone may shape.
    pub fn beneath(&self) -> &Root {
        self.root
    }

    /// Returns whether to create what the action writes to when nothing is
    /// wrong ([`Hooks::new`](crate::Hooks::new)), or only to look
    /// ([`Hooks::check`](crate::Hooks::check)), leaving the disk as it was.
    pub fn creates(&self) -> bool {
        self.create
    }

    /// Returns whether a failure of this hook cancels the host's run.
    pub fn cancels(&self) -> bool {
        self.cancels
    }

    /// Tells the engine of something that will make this hook fail each
    /// time it fires, in the action's words: `problem` says what is wrong
    /// (a type of the action's own, which a host reaches with
    /// [`Problem::downcast_ref`](crate::Problem::downcast_ref), or a
    /// `String`), `hint` what the
    /// operator can do about it. The hook is kept, and the problem is said
    /// at load ([`Hooks::problems`](crate::Hooks::problems)).
    pub fn problem(
        &mut self,
        problem: impl Into<Box<dyn std::error::Error + Send + Sync>>,
        hint: Option<String>,
    ) {
        let problem = ProblemKind::new(self.key, problem.into(), hint);
        self.problems.push(problem);
    }
}

/// What an action executes one event with ([`Execute::execute`]).
#[derive(Debug)]
pub struct Fire<'a> {
    /// The event's tag.
    pub(crate) tag: &'static str,
    /// The event as one JSON line, with its newline.
    pub(crate) line: &'a [u8],
    /// The hooks' root, absolute and held open.
    pub(crate) root: &'a Root,
    /// The hook's timeout and the deadline it sets, when its action
    /// honours `timeout_ms`.
    pub(crate) limit: Option<(Duration, Instant)>,
    /// What a spawned child is in flight on.
    pub(crate) supervisor: &'a Supervisor,
    /// Where the end of a spawned child's stderr is kept, when it is.
    pub(crate) capture: Option<&'a mut StderrTail>,
    /// The variables the host names for a spawned child, when it names any.
    pub(crate) env: Option<&'a ChildEnv>,
}

impl<'a> Fire<'a> {
    /// Returns the event's tag (`deployed`), as the event enum declares it.
    pub fn tag(&self) -> &'static str {
        self.tag
    }

    /// Returns the event as one JSON line, with its newline: what the hook
    /// receives.
    pub fn line(&self) -> &[u8] {
        self.line
    }

    /// Returns the hooks' root, absolute.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// Returns the hooks' root as the engine holds it open: what the action
    /// writes beneath it is opened through it ([`io_beneath::Root::open_file`]),
    /// as `append`'s file is.
    pub fn beneath(&self) -> &Root {
        self.root
    }

    /// Returns the hook's `timeout_ms`, when its action honours it
    /// ([`ActionKind::TIMEOUT`]).
    pub fn timeout(&self) -> Option<Duration> {
        self.limit.map(|(timeout, _)| timeout)
    }

    /// Returns the instant the action must be done by: the hook's
    /// `timeout_ms` from when the engine began it, when its action honours
    /// `timeout_ms` ([`ActionKind::TIMEOUT`]). Every wait of the action
    /// (a connection, a write, an answer) is bounded by it.
    pub fn deadline(&self) -> Option<Instant> {
        self.limit.map(|(_, deadline)| deadline)
    }

    /// Returns the hooks' supervisor: a child the action spawns runs on it
    /// ([`Supervisor::run_argv`]), and an action that waits on anything else
    /// checks [`Supervisor::is_interrupted`] so that the host's Ctrl-C ends
    /// it.
    pub fn supervisor(&self) -> &Supervisor {
        self.supervisor
    }

    /// Returns the environment variables the host names for a child the
    /// action spawns ([`Hooks::with_env`](crate::Hooks::with_env)), in the
    /// order to apply them: `(name, Some(value))` to set, `(name, None)` to
    /// remove, this event's tag among them when the host names a variable
    /// for it. None at all when the host names none: the child then
    /// inherits the host's environment unchanged. `run` gives them to its
    /// child ([`Supervisor::run_argv_with_env`]).
    pub fn env(&self) -> impl Iterator<Item = (&'a OsStr, Option<&'a OsStr>)> + 'a {
        let tag = self.tag;
        self.env.into_iter().flat_map(move |env| env.with_tag(tag))
    }
}
