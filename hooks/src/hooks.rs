//! [`Hooks`]: one mask test per event, then every matching hook's action,
//! in the order written; what building them found wrong ([`Problem`]), and
//! what each hook did with an event ([`HookRun`]).
//!
//! The top of the crate's layers: it prepares and executes the actions
//! (`action/`), which use the process supervisor (`io_supervisor`), the
//! hooks' root (an `io_beneath::Root`) and the failure types
//! (`hook_failure.rs`); none of
//! those names this module (`hooks/tests/layers.rs` checks that the modules
//! name one another in no circle).

mod background;
mod hook_run;

pub use background::{QUEUE_BYTES, QUEUE_EVENTS, Undelivered};
pub use hook_run::HookRun;

use crate::action::{DynAction, Fire, Prepare, ProblemKind};
use crate::env::{ChildEnv, HookEnv};
use crate::hook_failure::HookFailure;
use crate::origin::Origin;
use background::{Queues, Report, Start, Worker};
use io_beneath::Root;
use io_supervisor::{StderrTail, Supervisor};

use std::cell::LazyCell;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::registry::{Enveloped, HookEvents, HookFilter};
use crate::spec::{Flow, HookSpec};

/// Every hook of one config, ready to receive events.
///
/// One `Hooks` serves a whole tree of runs: it is `Send + Sync`, and events
/// may be fired at it from any number of threads at once. Appends to one
/// file take turns, whichever `Hooks` they come from (the file is known by
/// its device and inode, not by the path that names it); appends to
/// different files, and `run` hooks on different threads, run concurrently,
/// each waiting only for its own file or child.
///
/// # Background hooks
///
/// A `run` hook with `background = true` ([`Action::run_in_background`](crate::Action::run_in_background))
/// does not hold up the thread that fires: the event's line is handed to
/// the hook's own worker thread (started at its first event) and `fire`
/// goes on at once. Per hook, events are executed in the order they were
/// fired, one child at a time, each under its `timeout_ms`, exactly as a
/// blocking hook would see them. Its queue is bounded ([`QUEUE_EVENTS`]
/// events, and [`QUEUE_BYTES`] bytes of lines): when it is full, `fire`
/// waits for the hook to take the next event (logged once per hook at warn
/// level) rather than drop one. A background hook's failure is logged at
/// warn level with the event's tag, and told to the report of
/// [`on_background`](Self::on_background); it never cancels
/// (`on_failure` [`Flow::Cancel`] keeps a hook blocking, whatever its
/// action says).
///
/// A host waits for them with [`wait_background`](Self::wait_background) at
/// the end of its run, before it reports; dropping the hooks waits too, and
/// then ends the workers. The hooks' [`Supervisor`] ends a background child
/// in flight with its process group, like any other, and the events still
/// queued for that hook are then not given to it (logged once, with their
/// number). A host's view of a fire, through [`fire_with`](Self::fire_with),
/// reports a background hook as
/// [`HookRun::background`], `Ok`, as soon as its event is queued.
///
/// Not for a hook whose work the host's next step reads (a formatter): that
/// one must finish before the step goes on, so it stays blocking.
///
/// ```
/// use io_hooks::{Action, Flow, HookEvents, HookFilter, HookSpec, Hooks};
///
/// #[derive(HookEvents, serde::Serialize)]
/// #[serde(tag = "event")]
/// enum Ev {
///     #[serde(rename = "started")]
///     Started { goal: String },
///     #[serde(rename = "finished")]
///     Finished,
/// }
///
/// let dir = tempfile::tempdir()?;
/// let audit = dir.path().join("audit.jsonl");
/// let hooks = Hooks::new(
///     vec![HookSpec::new(
///         HookFilter::from_names(["finished"])?,
///         Action::append(&audit),
///     )],
///     dir.path(),
/// );
/// // Created, empty, when the hooks are built.
/// assert_eq!(std::fs::read_to_string(&audit)?, "");
///
/// let started = Ev::Started { goal: "ship it".into() };
/// assert_eq!(hooks.fire_event(&started), Flow::Continue); // not wanted: one mask test
/// assert_eq!(hooks.fire_event(&Ev::Finished), Flow::Continue);
/// assert_eq!(std::fs::read_to_string(&audit)?, "{\"event\":\"finished\"}\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Hooks<E> {
    /// Every hook, in the order written, with what the engine keeps of it.
    hooks: Box<[Hook<E>]>,
    /// The root as given, made absolute when the hooks were built, so that
    /// a program relative to it, and every child's working directory, do
    /// not depend on the host's working directory at the moment an event
    /// fires; and held open, so that every `append` under it is opened
    /// beneath it. Shared with the background hooks' workers.
    root: Arc<Root>,
    /// What the host is told of each event a background hook finished.
    report_background: Option<Report>,
    /// Every background worker's queue, once started: what
    /// [`backlog`](Self::backlog)'s function reads.
    queues: Arc<Queues>,
    wanted: HookFilter<E>,
    /// What building them found wrong, in hook order.
    problems: Vec<Problem>,
    /// How much of a failed `run` hook's stderr to keep; `None`: none, and
    /// its stderr is null.
    stderr_tail: Option<usize>,
    /// The `run` hooks' children in flight, for the host's Ctrl-C.
    supervisor: Supervisor,
}

/// One hook as built hooks hold it: its spec, its name in messages, its
/// action prepared to execute, and its background worker.
struct Hook<E> {
    spec: HookSpec<E>,
    /// Its name in messages: its spec's origin, or `hook[N]` for a spec
    /// built in code.
    origin: Origin,
    /// Its action as its module prepared it to execute; shared with its
    /// background worker.
    ready: Arc<dyn DynAction>,
    /// Whether its events go to its worker: its action says `background`
    /// and its failure does not cancel (a cancel from the background would
    /// come late).
    background: bool,
    /// The variables its host names for its child, made when they were
    /// given ([`Hooks::with_env`]); shared with its background worker.
    env: Option<Arc<ChildEnv>>,
    /// Its background worker, started at its first event (`None` inside:
    /// it could not be started, and the hook runs while the host waits).
    /// Never set for a hook that is not `background`.
    worker: OnceLock<Option<Worker>>,
}

impl<E: HookEvents> fmt::Debug for Hooks<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hooks")
            .field("specs", &self.specs().collect::<Vec<_>>())
            .field("root", &self.root.given())
            .finish_non_exhaustive()
    }
}

// One `Hooks` serves events from many threads, whatever the event enum is.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    #[allow(dead_code)]
    const fn hooks_are_send_sync<E: HookEvents>() {
        send_sync::<Hooks<E>>();
    }
};

impl<E: HookEvents> Hooks<E> {
    /// Builds the hooks of `specs`, in the order written; `root` is the
    /// hooks' root, the working directory of every `run` hook, and what a
    /// relative `append` path or `run` program is resolved against.
    ///
    /// A relative `root` is made absolute here, against the working
    /// directory of the moment, so that no hook depends on where the host
    /// is when an event fires; an empty one (`Path::new("app.toml").parent()`
    /// gives `""`) is the working directory itself. [`root`](Self::root)
    /// returns it as given.
    ///
    /// Hooks read from a file ([`TomlFile::hooks`](crate::TomlFile::hooks),
    /// [`HookTables::into_specs`](crate::HookTables::into_specs)) were read
    /// with a root too, against which their relative `append` paths were
    /// resolved: it must be this one, the same directory however spelt
    /// (`""`, `.` and the working directory are one). An `append` hook read
    /// with another is a problem (which names both roots), and nothing is
    /// created for it.
    ///
    /// Every `append` file is created here, empty and with mode 0600, when
    /// it does not exist yet (an existing file is never truncated), so an
    /// empty file means "the filter matched nothing" and a missing one means
    /// "the hooks were never built".
    ///
    /// What would make a hook fail each time it fires (a `run` program that
    /// is missing or not executable, an `append` path that is a directory or
    /// whose directory is missing, a `~` or `$` no shell will expand) is
    /// found here, once: [`problems`](Self::problems) returns it, and each
    /// problem is also logged once through `tracing` at warn level (with the
    /// default `tracing` feature) for an embedder that does not ask. The hook
    /// is kept, and fails (subject to its `on_failure`) each time it fires
    /// and the cause persists.
    ///
    /// The root is held as [`Root::lazy`] makes it, owning nothing: an
    /// embedder with state of its own under the root builds the hooks with
    /// [`beneath`](Self::beneath).
    pub fn new(specs: Vec<HookSpec<E>>, root: &Path) -> Self {
        Self::beneath(specs, Root::lazy(root))
    }

    /// Builds the hooks of `specs` as [`new`](Self::new) does, in `root`: a
    /// root the embedder made, which names the embedder's own state with
    /// [`Root::own`] (io's `.io`, its journals and notes).
    ///
    /// No action reaches that state: every open an action makes through
    /// the root ([`Fire::beneath`](crate::Fire::beneath),
    /// [`Prepare::beneath`](crate::Prepare::beneath)), `append`'s
    /// included, refuses a path that reaches it, by its name, through `..`
    /// or through a symbolic link ([`io_beneath::Error::Owned`]); an
    /// `append` hook whose file does is a [problem](Self::problems) when the
    /// hooks are built, and fails each time it fires.
    ///
    /// ```ignore-windows
    /// use io_hooks::{Action, HookFilter, HookSpec, Hooks};
    /// use io_beneath::Root;
    /// # #[derive(io_hooks::HookEvents, serde::Serialize)]
    /// # #[serde(tag = "event")]
    /// # enum Ev { #[serde(rename = "job_started")] JobStarted }
    /// let dir = tempfile::tempdir()?;
    /// std::fs::create_dir(dir.path().join(".state"))?;
    /// std::os::unix::fs::symlink(".state", dir.path().join("logs"))?;
    /// let specs = vec![HookSpec::<Ev>::new(
    ///     HookFilter::ALL,
    ///     Action::append(dir.path().join("logs/audit.jsonl")),
    /// )];
    /// let hooks = Hooks::beneath(specs, Root::lazy(dir.path()).own(".state"));
    /// assert_eq!(
    ///     hooks.problems()[0].message(),
    ///     format!(
    ///         "append: `{}` is refused: it reaches `.state`, the program's own state, through \
    ///          the symbolic link `logs`, and that state is never reached through a link",
    ///         dir.path().join("logs/audit.jsonl").display()
    ///     )
    /// );
    /// assert!(!dir.path().join(".state/audit.jsonl").exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn beneath(specs: Vec<HookSpec<E>>, root: Root) -> Self {
        // A hook switched off wants nothing: it never fires.
        let wanted = specs
            .iter()
            .filter(|s| s.enabled)
            .fold(HookFilter::EMPTY, |acc, s| acc.union(s.on));
        let root = Arc::new(root);
        let origins = origins(&specs);
        let (ready, problems) = prepare(&specs, &origins, &root, true);
        let hooks = specs
            .into_iter()
            .zip(origins)
            .zip(ready)
            .map(|((spec, origin), ready)| Hook {
                background: spec.action.background() && spec.on_failure != Flow::Cancel,
                spec,
                origin,
                ready,
                env: None,
                worker: OnceLock::new(),
            })
            .collect();
        #[cfg(feature = "tracing")]
        for problem in &problems {
            tracing::warn!(
                hook = problem.origin.key(),
                name = problem.origin.name(),
                file = problem.origin.file(),
                "{problem}; it fails each time it fires until this is fixed"
            );
        }
        Hooks {
            hooks,
            root,
            report_background: None,
            queues: Arc::default(),
            wanted,
            problems,
            stderr_tail: None,
            supervisor: Supervisor::new(),
        }
    }

    /// These hooks with their `run` children in flight on `supervisor`, a
    /// handle the host shares with its own children
    /// ([`Supervisor::run_argv`]), so that one call ends them all.
    pub fn with_supervisor(mut self, supervisor: Supervisor) -> Self {
        self.supervisor = supervisor;
        self
    }

    /// These hooks with `env`'s variables given to each `run` hook's child
    /// ([`HookEnv`]): the root, the event's tag and the hook's name under
    /// the names the host chose, and its own. Each hook's are made here,
    /// once; each event adds only its tag. Without it, or with an empty
    /// `env`, a child's environment is the host's, unchanged. Set before the
    /// first event is fired; a background worker already started keeps
    /// what it was started with.
    ///
    /// An embedder's own action reads them with [`Fire::env`].
    pub fn with_env(mut self, env: HookEnv) -> Self {
        for hook in &mut self.hooks[..] {
            let name = hook.origin.name().unwrap_or(hook.origin.key());
            hook.env = env.for_hook(self.root.path(), name).map(Arc::new);
        }
        self
    }

    /// Returns the supervisor of these hooks' `run` children in flight: its
    /// [`interrupt`](Supervisor::interrupt) kills each one's process group,
    /// and every `run` hook fired after it fails with
    /// [`ProcessError::Interrupted`](io_supervisor::ProcessError::Interrupted) without spawning. The engine never calls
    /// it; a host calls it on `SIGINT` or `SIGTERM`.
    pub fn supervisor(&self) -> Supervisor {
        self.supervisor.clone()
    }

    /// Keeps the last `limit` bytes a `run` hook writes to its stderr, and
    /// gives them with its failure ([`HookRun::stderr`]); for an operator's
    /// debugging view, such as an embedder's command that replays a run
    /// with its hooks' stderr. Off by default, when a hook's stderr goes to
    /// null.
    ///
    /// The stderr is read on a thread per spawn while the hook runs, so a
    /// hook writing any amount never blocks on a full pipe, and only the
    /// last `limit` bytes are held. The drain ends with the hook: once it
    /// has exited or been killed, what it left in the pipe is read (at most
    /// 1 MiB more), the pipe is closed and the thread joined, even while a
    /// background child of the hook keeps its stderr open. The library
    /// never prints it.
    ///
    /// ```ignore-windows
    /// use io_hooks::{Action, HookFilter, HookSpec, Hooks};
    /// # #[derive(io_hooks::HookEvents, serde::Serialize)]
    /// # #[serde(tag = "event")]
    /// # enum Ev { #[serde(rename = "job_started")] JobStarted }
    /// let dir = tempfile::tempdir()?;
    /// let argv = ["sh", "-c", "echo 'refused: no tests' >&2; exit 7"];
    /// let hooks = Hooks::new(
    ///     vec![HookSpec::new(HookFilter::<Ev>::ALL, Action::run(argv))],
    ///     dir.path(),
    /// )
    /// .capture_stderr(4096);
    /// let mut tails = Vec::new();
    /// hooks.fire_with(&Ev::JobStarted, &Ev::JobStarted, |run| tails.push(run.stderr.map(<[u8]>::to_vec)));
    /// assert_eq!(tails, [Some(b"refused: no tests\n".to_vec())]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn capture_stderr(mut self, limit: usize) -> Self {
        self.stderr_tail = Some(limit);
        self
    }

    /// What [`new`](Self::new) would find wrong with `specs`, without
    /// building anything: no file is created and nothing is logged. For a
    /// dry run, or a checker that must leave the disk as it found it.
    ///
    /// ```ignore-windows
    /// use io_hooks::{Action, HookFilter, HookSpec, Hooks};
    /// # #[derive(io_hooks::HookEvents, serde::Serialize)]
    /// # #[serde(tag = "event")]
    /// # enum Ev { #[serde(rename = "job_started")] JobStarted }
    /// let dir = tempfile::tempdir()?;
    /// let specs = vec![HookSpec::<Ev>::new(
    ///     HookFilter::ALL,
    ///     Action::append(dir.path().join("nope/audit.jsonl")),
    /// )];
    /// let problems = Hooks::check(&specs, dir.path());
    /// assert_eq!(problems[0].action(), "append");
    /// assert_eq!(
    ///     problems[0].message(),
    ///     format!(
    ///         "append: `{}` cannot be created: there is no directory `{}`",
    ///         dir.path().join("nope/audit.jsonl").display(),
    ///         dir.path().join("nope").display()
    ///     )
    /// );
    /// assert_eq!(problems[0].number(), 1);
    /// assert_eq!(problems[0].origin.key(), "hook[1]"); // built in code: no file
    /// assert!(problems[0].hint().unwrap().starts_with("create it: mkdir -p "));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check(specs: &[HookSpec<E>], root: &Path) -> Vec<Problem> {
        Self::check_beneath(specs, &Root::lazy(root))
    }

    /// What [`beneath`](Self::beneath) would find wrong with `specs` in
    /// `root`, without building anything: [`check`](Self::check) in a root
    /// the embedder made, so that a hook that reaches the embedder's own
    /// state ([`Root::own`]) is a problem here as it is there.
    pub fn check_beneath(specs: &[HookSpec<E>], root: &Root) -> Vec<Problem> {
        prepare(specs, &origins(specs), root, false).1
    }

    /// What building these hooks found wrong, in hook order: each problem
    /// makes its hook fail each time it fires, until it is fixed. Empty when
    /// every hook can run as written.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Whether the config declared no hook.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Returns the hooks' specs, in the order written.
    pub fn specs(&self) -> impl ExactSizeIterator<Item = &HookSpec<E>> + Clone + '_ {
        self.hooks.iter().map(|hook| &hook.spec)
    }

    /// Returns the spec of the hook at `index` in [`specs`](Self::specs)
    /// (from 0, as [`HookRun::index`] and [`Problem::index`] count), or
    /// `None` past the last one.
    pub fn spec(&self, index: usize) -> Option<&HookSpec<E>> {
        self.hooks.get(index).map(|hook| &hook.spec)
    }

    /// The hooks' root, as given to [`new`](Self::new) (hooks use it made
    /// absolute when they were built).
    pub fn root(&self) -> &Path {
        self.root.given()
    }

    /// Where each hook switched off (`enabled = false`) was written, in
    /// hook order: a host says so at every start, so that no hook is off
    /// without a word.
    ///
    /// ```
    /// use io_hooks::{Action, HookFilter, HookSpec, Hooks};
    /// # #[derive(io_hooks::HookEvents, serde::Serialize)]
    /// # #[serde(tag = "event")]
    /// # enum Ev { #[serde(rename = "job_started")] JobStarted }
    /// let dir = tempfile::tempdir()?;
    /// let specs = vec![
    ///     HookSpec::<Ev>::new(HookFilter::ALL, Action::append("a.jsonl")),
    ///     HookSpec::<Ev>::new(HookFilter::ALL, Action::append("b.jsonl"))
    ///         .with_name("audit")
    ///         .with_enabled(false),
    /// ];
    /// let hooks = Hooks::new(specs, dir.path());
    /// let off: Vec<String> = hooks.off().map(|o| o.label()).collect();
    /// assert_eq!(off, ["hook[2] \"audit\""]);
    /// let _ = hooks.fire_event(&Ev::JobStarted);
    /// assert!(dir.path().join("a.jsonl").exists());
    /// assert!(!dir.path().join("b.jsonl").exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn off(&self) -> impl Iterator<Item = &Origin> + '_ {
        self.hooks
            .iter()
            .filter(|h| !h.spec.enabled)
            .map(|h| &h.origin)
    }

    /// The union of every hook's filter.
    pub fn wanted(&self) -> HookFilter<E> {
        self.wanted
    }

    /// Delivers `event` to every hook that wants it, as `payload`.
    ///
    /// `event` decides which hooks match (by its kind) and names the event in
    /// logs; `payload` is what a hook receives, serialised once as one JSON
    /// line (an embedder may pass an envelope, whose flattened `event` tag is
    /// `event`'s; [`fire_event`](Self::fire_event) passes the event itself).
    ///
    /// An event no hook wants costs one mask test: no allocation, no lock and
    /// no serialisation. A hook's `where` (its [`HookSpec`]'s `r#where`) is then
    /// evaluated on `event` itself, and the payload is serialised only if
    /// some hook's filter lets the event through. Otherwise the matching hooks run in the order
    /// written, every one of them even after a failure; each failure is
    /// logged at warn level (with the `tracing` feature) with the hook's
    /// [`Origin`] (where it was written, or `hook[N]`, its index + 1, for a
    /// hook built in code), the event's tag and the cause, never the
    /// event's contents. The
    /// answer is [`Flow::Cancel`] when any failed hook's `on_failure` is
    /// [`Flow::Cancel`], but on an event marked `#[hook(last)]`
    /// ([`Kind::is_last`](crate::Kind::is_last)), which nothing follows
    /// that a cancel could stop: that failure is reported and logged as
    /// any other, and the answer is [`Flow::Continue`].
    ///
    /// # Blocking
    /// Runs on the calling thread and returns when every matching hook has
    /// finished: an `append` is a file open and write; a `run` hook is a
    /// process spawned and waited for, up to its `timeout_ms` (5 s by
    /// default) each. Never call it on an async executor's worker thread:
    /// fire from a thread of your own, or from `tokio::task::spawn_blocking`
    /// (this crate's `examples/tokio.rs` does, for tasks on a multi-thread
    /// runtime, with Ctrl-C ending the hooks in flight through
    /// [`Supervisor::interrupt`]). An event no hook wants returns at once.
    ///
    /// `event` may be the event in its envelope ([`Enveloped`]), so that a
    /// hook's `where` may name the envelope's fields
    /// ([`HookEvents::ENVELOPE`]); given the event alone, a condition on one
    /// of those never holds.
    #[inline]
    pub fn fire<V, T>(&self, event: &V, payload: &T) -> Flow
    where
        V: Enveloped<E> + ?Sized,
        T: Serialize + ?Sized,
    {
        if !self.wanted.contains(event.event()) {
            return Flow::Continue;
        }
        self.fire_matched(event, || serialize_line(payload), None)
    }

    /// [`fire`](Self::fire) with the payload's JSON line made by `line`
    /// rather than by `serde_json`: for an embedder whose payload has a
    /// writer of its own that puts the same bytes faster (`io`'s `RunEvent`
    /// writes its envelope's keys as literals). `line` is called once, at
    /// the first hook whose `where` lets the event through, never when
    /// every filter turns it away; it returns the object without its
    /// newline, which is added here, or why it cannot be written. A line
    /// that holds a newline is refused as one that cannot be written: each
    /// hook fails, and nothing is appended.
    ///
    /// ```
    /// # use io_hooks::{Action, Flow, HookEvents, HookFilter, HookSpec, Hooks};
    /// # #[derive(HookEvents, serde::Serialize)]
    /// # #[serde(tag = "event")]
    /// # enum Ev { #[serde(rename = "job_started")] JobStarted }
    /// # let dir = tempfile::tempdir()?;
    /// let log = dir.path().join("log");
    /// let hooks = Hooks::new(vec![HookSpec::new(HookFilter::<Ev>::ALL, Action::append(&log))], dir.path());
    /// let flow = hooks.fire_line(&Ev::JobStarted, || Ok(br#"{"event":"job_started"}"#.to_vec()));
    /// assert_eq!(flow, Flow::Continue);
    /// assert_eq!(std::fs::read_to_string(&log)?, "{\"event\":\"job_started\"}\n");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Blocking
    /// As [`fire`](Self::fire).
    #[inline]
    pub fn fire_line<V, L>(&self, event: &V, line: L) -> Flow
    where
        V: Enveloped<E> + ?Sized,
        L: FnOnce() -> Result<Vec<u8>, String>,
    {
        if !self.wanted.contains(event.event()) {
            return Flow::Continue;
        }
        let line = || {
            let mut line = line()?;
            // One event, one line, by construction: a writer of the
            // embedder's own that let a newline through would split the
            // event in two in every file it is appended to.
            if holds_newline(&line) {
                return Err(
                    "the line holds a newline, which would split the event in two".to_owned(),
                );
            }
            line.push(b'\n');
            Ok(line)
        };
        self.fire_matched(event, line, None)
    }

    /// [`fire`](Self::fire), calling `report` once per matching hook, in
    /// order, with what it did: an embedder's view of a run's hooks, for an
    /// operator who asks what each one did.
    ///
    /// ```ignore-windows
    /// # use io_hooks::{Action, Flow, HookEvents, HookFilter, HookSpec, Hooks};
    /// # #[derive(HookEvents, serde::Serialize)]
    /// # #[serde(tag = "event")]
    /// # enum Ev { #[serde(rename = "job_started")] JobStarted }
    /// # let dir = tempfile::tempdir()?;
    /// let hooks = Hooks::new(
    ///     vec![HookSpec::new(HookFilter::<Ev>::ALL, Action::append(dir.path().join("no/such/dir/log")))
    ///         .with_on_failure(Flow::Cancel)],
    ///     dir.path(),
    /// );
    /// let mut lines = Vec::new();
    /// let flow = hooks.fire_with(&Ev::JobStarted, &Ev::JobStarted, |run| {
    ///     lines.push(match run.result {
    ///         Ok(()) => format!("{} ok in {:?}", run.origin, run.elapsed),
    ///         Err(failure) => format!("{} {failure}", run.origin),
    ///     });
    /// });
    /// assert_eq!(flow, Flow::Cancel);
    /// assert!(lines[0].starts_with("hook[1] could not append to `"));
    /// assert!(lines[0].ends_with("log`: No such file or directory"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Blocking
    /// As [`fire`](Self::fire): returns when every matching hook has
    /// finished, `report` having been called on this thread.
    #[inline]
    pub fn fire_with<V, T, F>(&self, event: &V, payload: &T, mut report: F) -> Flow
    where
        V: Enveloped<E> + ?Sized,
        T: Serialize + ?Sized,
        F: FnMut(HookRun<'_>),
    {
        if !self.wanted.contains(event.event()) {
            return Flow::Continue;
        }
        self.fire_matched(event, || serialize_line(payload), Some(&mut report))
    }

    /// [`fire`](Self::fire) for an enum that is itself what hooks receive.
    ///
    /// (Not named `event`: an embedder may implement an observer trait of
    /// its own with an `event(&self, &Envelope)` method for `Hooks`, and an
    /// inherent method of that name would shadow it at every direct call.)
    ///
    /// # Blocking
    /// As [`fire`](Self::fire): returns when every matching hook has
    /// finished, which for a `run` hook can be its whole timeout.
    #[inline]
    pub fn fire_event(&self, event: &E) -> Flow
    where
        E: Serialize,
    {
        if !self.wanted.contains(event) {
            return Flow::Continue;
        }
        self.fire_matched(event, || event_line(event), None)
    }

    // Kept out of line, like tracing's slow path, so that the mask test is
    // all that inlines into the caller.
    #[cold]
    #[inline(never)]
    fn fire_matched<V, L>(
        &self,
        event: &V,
        make_line: L,
        // `None` from `fire`: nobody reads the elapsed time, so the clock is
        // not read (two reads are a tenth of an `append` hook's own cost).
        mut report: Option<&mut dyn FnMut(HookRun<'_>)>,
    ) -> Flow
    where
        V: Enveloped<E> + ?Sized,
        L: FnOnce() -> Result<Vec<u8>, String>,
    {
        let kind = event.event().kind();
        let tag = kind.tag();
        // Nothing follows a last event that a cancel could stop.
        let last = kind.is_last();
        // Serialised at the first hook whose `where` lets the event through:
        // an event every filter turns away is never serialised.
        let line = LazyCell::new(make_line);
        let mut flow = Flow::Continue;
        for (index, hook) in self.hooks.iter().enumerate() {
            if !hook.spec.enabled
                || !hook.spec.on.contains_kind(kind)
                || !hook.spec.r#where.passes(event)
            {
                continue;
            }
            let line = LazyCell::force(&line);
            let start = report.is_some().then(Instant::now);
            let mut capture = self.stderr_tail.map(StderrTail::new);
            let (result, queued) = self.execute(index, hook, line, tag, capture.as_mut());
            let elapsed = start.map_or(Duration::ZERO, |start| start.elapsed());
            if let Err(failure) = &result
                && hook.failed(failure, tag, last) == Flow::Cancel
            {
                flow = Flow::Cancel;
            }
            if let Some(report) = report.as_mut() {
                let stderr = match (&result, &capture) {
                    (Err(_), Some(capture)) => Some(capture.bytes()),
                    _ => None,
                };
                report(HookRun {
                    index,
                    origin: &hook.origin,
                    event: tag,
                    line: line.as_deref().unwrap_or_default(),
                    result: result.as_ref().map(|_| ()),
                    elapsed,
                    stderr,
                    background: queued,
                    seq: None,
                });
            }
        }
        flow
    }

    /// Executes hook `index` with the event's `line` (or fails it with why
    /// the event could not be serialised), or hands the line to its
    /// background worker: the result, and whether it was queued.
    #[inline]
    fn execute(
        &self,
        index: usize,
        hook: &Hook<E>,
        line: &Result<Vec<u8>, String>,
        tag: &'static str,
        capture: Option<&mut StderrTail>,
    ) -> (Result<(), HookFailure>, bool) {
        match line {
            Err(cause) => {
                let failure = HookFailure::Serialize {
                    event: tag,
                    cause: cause.clone(),
                };
                (Err(failure), false)
            }
            Ok(line) if hook.background && self.queue(index, hook, line, tag) => (Ok(()), true),
            Ok(line) => {
                let fire = Fire {
                    tag,
                    line,
                    root: &self.root,
                    limit: hook.spec.action.timeout().map(|t| (t, Instant::now() + t)),
                    supervisor: &self.supervisor,
                    capture,
                    env: hook.env.as_deref(),
                };
                (hook.ready.execute(fire), false)
            }
        }
    }

    /// Hands `line` to background hook `index`'s worker, starting it at the
    /// hook's first event; `false` when there is no worker (it could not be
    /// started, or has ended) and the event must run here.
    fn queue(&self, index: usize, hook: &Hook<E>, line: &[u8], tag: &'static str) -> bool {
        let worker = hook.worker.get_or_init(|| {
            let start = Start {
                ready: Arc::clone(&hook.ready),
                timeout: hook.spec.action.timeout(),
                index,
                origin: hook.origin.clone(),
                env: hook.env.clone(),
                root: Arc::clone(&self.root),
                supervisor: self.supervisor.clone(),
                stderr_tail: self.stderr_tail,
                report: self.report_background.clone(),
            };
            match Worker::start(start, &self.queues) {
                Ok(worker) => Some(worker),
                Err(cause) => {
                    #[cfg(feature = "tracing")]
                    {
                        let origin = &hook.origin;
                        tracing::warn!(
                            target: "io_hooks::background",
                            hook = origin.key(),
                            name = origin.name(),
                            file = origin.file(),
                            "{origin}'s background worker could not start ({cause}): it runs \
                             while the host waits"
                        );
                    }
                    #[cfg(not(feature = "tracing"))]
                    let _ = cause;
                    None
                }
            }
        });
        worker.as_ref().is_some_and(|w| w.push(line, tag))
    }

    /// Waits until every background hook has executed every event fired so
    /// far, each under its own limits (a `run` hook's `timeout_ms`): what a
    /// host calls at the end of a run, before it reports, so that the run's
    /// last event has reached every hook. Returns at once when no
    /// background hook has fired. Events fired meanwhile, from other
    /// threads, are waited for too.
    ///
    /// Dropping the hooks waits the same way, and then ends the workers.
    ///
    /// # Blocking
    /// For as long as the queued events take: at most
    /// [`QUEUE_EVENTS`] events per hook, each up to its timeout. A host's
    /// [`Supervisor`] ends the child in flight, and the events still queued
    /// are then not given to their hook.
    pub fn wait_background(&self) {
        for worker in self.hooks.iter().filter_map(|h| h.worker.get()?.as_ref()) {
            worker.wait_idle();
        }
    }

    /// Returns a function on these hooks' background queues, for a host's
    /// signal handler: it may be kept beyond the hooks, on another thread,
    /// and sees every worker, those started after it was made too. Called,
    /// it gives up on every background hook's queue, for a host that is
    /// ending (after its interrupt, [`Supervisor::interrupt`]): the events
    /// still queued are dropped, no event fired from then on is queued or
    /// executed, and what each hook that was given an event did not
    /// receive is returned ([`Undelivered`]), in hook order. The event a
    /// worker is executing is left to its deadline or the interrupt, and
    /// counted as cut short. It never waits for a worker: a queue's lock
    /// is held only between two events.
    ///
    /// ```
    /// use std::time::Duration;
    /// use io_hooks::{Action, HookFilter, HookSpec, Hooks};
    /// # #[derive(io_hooks::HookEvents, serde::Serialize)]
    /// # #[serde(tag = "event")]
    /// # enum Ev { #[serde(rename = "step")] Step }
    /// let dir = tempfile::tempdir()?;
    /// let notify = Action::run_in_background(["true"], Duration::from_secs(5));
    /// let hooks = Hooks::new(vec![HookSpec::new(HookFilter::<Ev>::ALL, notify)], dir.path());
    /// let abandon = hooks.backlog();
    /// assert!(abandon().is_empty(), "no background hook has been given an event");
    /// hooks.fire_event(&Ev::Step);
    /// hooks.wait_background();
    /// let undelivered = abandon();
    /// assert_eq!((undelivered[0].given, undelivered[0].not_delivered()), (1, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn backlog(&self) -> impl Fn() -> Vec<Undelivered> + Clone + Send + Sync + 'static {
        let queues = Arc::clone(&self.queues);
        move || queues.abandon()
    }

    /// Tells `report` what each background hook did with each event, on the
    /// hook's worker thread, as soon as it is done (so a host may print a
    /// failure as it happens, and hold nothing of it): a host's way to show a
    /// background hook's failure beside the run it belongs to (the failure
    /// is also logged at warn level with the `tracing` feature). Set before
    /// the first event is fired; a worker already started keeps what it was
    /// started with.
    ///
    /// ```ignore-windows
    /// use std::sync::{Arc, Mutex};
    /// use std::time::Duration;
    /// use io_hooks::{Action, HookFilter, HookSpec, Hooks};
    /// # #[derive(io_hooks::HookEvents, serde::Serialize)]
    /// # #[serde(tag = "event")]
    /// # enum Ev { #[serde(rename = "step")] Step }
    /// let dir = tempfile::tempdir()?;
    /// let notify = Action::run_in_background(["false"], Duration::from_secs(5));
    /// let failed = Arc::new(Mutex::new(Vec::new()));
    /// let seen = Arc::clone(&failed);
    /// let hooks = Hooks::new(vec![HookSpec::new(HookFilter::<Ev>::ALL, notify)], dir.path())
    ///     .on_background(move |run| {
    ///         if let Err(failure) = run.result {
    ///             seen.lock().unwrap().push(format!("{} on `{}`: {failure}", run.origin, run.event));
    ///         }
    ///     });
    /// hooks.fire_event(&Ev::Step); // returns at once
    /// hooks.wait_background();
    /// assert_eq!(*failed.lock().unwrap(), ["hook[1] on `step`: exited with status 1"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn on_background(mut self, report: impl Fn(HookRun<'_>) + Send + Sync + 'static) -> Self {
        self.report_background = Some(Arc::new(report));
        self
    }
}

impl<E> Hook<E> {
    /// Logs this hook's `failure` on the event `tag` at warn level, with
    /// what it does to the run: [`Flow::Cancel`] when the hook's failure
    /// cancels and the event is not `last` (nothing follows a last event
    /// that a cancel could stop).
    fn failed(&self, failure: &HookFailure, tag: &'static str, last: bool) -> Flow {
        let (flow, verdict) = match self.spec.on_failure {
            Flow::Continue => (Flow::Continue, "the run goes on"),
            Flow::Cancel if last => (
                Flow::Continue,
                "nothing follows this event that a cancel could stop",
            ),
            Flow::Cancel => (Flow::Cancel, "cancelling the run"),
        };
        let origin = &self.origin;
        #[cfg(feature = "tracing")]
        tracing::warn!(
            hook = origin.key(),
            name = origin.name(),
            file = origin.file(),
            event = tag,
            on_failure = self.spec.on_failure.as_str(),
            "{origin} failed on `{tag}`: {failure}; {verdict}"
        );
        #[cfg(not(feature = "tracing"))]
        let _ = (origin, failure, tag, verdict);
        flow
    }
}

/// The payload as one JSON line with its newline, or serde's reason it
/// cannot be serialised.
fn serialize_line<T: Serialize + ?Sized>(payload: &T) -> Result<Vec<u8>, String> {
    let mut line = Vec::with_capacity(256);
    serde_json::to_writer(&mut line, payload).map_err(|e| e.to_string())?;
    line.push(b'\n');
    Ok(line)
}

/// Whether `line` holds a newline. Every byte is looked at, 32 at a time
/// with no early exit ([`any_byte`](crate::scan::any_byte)), so the
/// compiler compares many at once: the line is one JSON object, which
/// never holds one, and the scan is on every event's path.
fn holds_newline(line: &[u8]) -> bool {
    crate::scan::any_byte::<32>(line, b' ', |b| b == b'\n')
}

/// The event as one JSON line with its newline, written by its own
/// [`HookEvents::write_json`] (the derive's, without serde's machinery), or
/// serde's reason it cannot be serialised. serde_json's compact form holds
/// no newline, so the line needs no check for one.
fn event_line<E: HookEvents + Serialize>(event: &E) -> Result<Vec<u8>, String> {
    let mut line = Vec::with_capacity(256);
    event.write_json(&mut line).map_err(|e| e.to_string())?;
    line.push(b'\n');
    Ok(line)
}

/// Each hook's name in messages: where its spec was written, or, for a
/// spec built in code, `hook[N]` (its index + 1).
fn origins<E>(specs: &[HookSpec<E>]) -> Vec<Origin> {
    specs
        .iter()
        .enumerate()
        .map(|(index, spec)| {
            spec.origin
                .clone()
                .unwrap_or_else(|| Origin::new(None, format!("hook[{}]", index + 1)))
                .named(spec.name.as_deref())
        })
        .collect()
}

/// Every hook's action prepared to execute, and every hook's problems, in
/// hook order, each named by `origins`; `create` makes the files that
/// actions write to.
fn prepare<E: HookEvents>(
    specs: &[HookSpec<E>],
    origins: &[Origin],
    root: &Root,
    create: bool,
) -> (Vec<Arc<dyn DynAction>>, Vec<Problem>) {
    let mut problems = Vec::new();
    let ready = specs
        .iter()
        .enumerate()
        .map(|(index, spec)| {
            let cancels = spec.on_failure == Flow::Cancel;
            let mut cx = Prepare {
                root,
                // A hook switched off makes no file: it never fires.
                create: create && spec.enabled,
                cancels,
                read_with: spec.read_with.as_deref(),
                key: spec.action.key(),
                problems: Vec::new(),
            };
            if cancels && spec.action.background() {
                cx.problem(
                    CANCEL_IN_BACKGROUND,
                    Some(CANCEL_IN_BACKGROUND_HINT.to_owned()),
                );
            }
            let ready = spec.action.prepare(&mut cx);
            // A hook switched off cannot fail: its problems are not its
            // host's to report until it is switched on.
            cx.problems.retain(|_| spec.enabled);
            problems.extend(cx.problems.into_iter().map(|kind| Problem {
                index,
                origin: origins[index].clone(),
                kind,
            }));
            ready
        })
        .collect();
    (ready, problems)
}

/// A hook built in code in the background whose failure cancels: it runs
/// while the host waits, which building the hooks says (a table cannot
/// say both: its reader refuses it).
const CANCEL_IN_BACKGROUND: &str = "it runs in the background and its failure cancels the run, \
     which cannot go together: a cancel from the background would land on a later step than \
     the event that caused it, so it runs while the host waits";

/// What to do about [`CANCEL_IN_BACKGROUND`].
const CANCEL_IN_BACKGROUND_HINT: &str =
    "build its action without `in_background`, or make its `on_failure` `Flow::Continue`";

/// Something that will make one hook fail each time it fires, found when the
/// hooks were built. Its `Display` is one line for an operator, starting
/// with where the hook was written (`app.toml: stage.apply.hook[1]: `, or
/// `hook[N]: ` for a hook built in code); [`hint`](Self::hint) says what to
/// do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Problem {
    /// The hook's position in [`Hooks::specs`], from 0.
    pub index: usize,
    /// Where the hook was written ([`HookSpec::origin`]), or `hook[N]`
    /// (`index + 1`) with no file for a hook built in code: what its
    /// messages name it.
    pub origin: Origin,
    /// What is wrong, as the action says it, and the hint.
    kind: ProblemKind,
}

impl Problem {
    /// The hook's position in [`Hooks::specs`], counted from 1. (Messages
    /// name it by its [`origin`](Self::origin), which for a hook built in
    /// code is `hook[N]` with this number.)
    pub fn number(&self) -> usize {
        self.index + 1
    }

    /// Returns the key of the hook's action (`append`).
    pub fn action(&self) -> &'static str {
        self.kind.action()
    }

    /// Returns what is wrong, as the action says it: the
    /// [`Display`](fmt::Display) without the origin in front.
    pub fn message(&self) -> String {
        self.kind.to_string()
    }

    /// Returns what the operator can do about it: a command or an edit that
    /// fixes it, or `None` when there is none to give. A path under
    /// `/proc`, `/sys` or `/dev` (but `/dev/shm`, an ordinary file system)
    /// gets none from a built-in action: the kernel owns those, and no
    /// `mkdir` or `chmod` there makes a hook work.
    pub fn hint(&self) -> Option<String> {
        self.kind.hint()
    }

    /// Returns the problem as its action's own type, when it is a `T`: the
    /// type an embedder's action gave
    /// [`Prepare::problem`](crate::Prepare::problem).
    pub fn downcast_ref<T: std::error::Error + 'static>(&self) -> Option<&T> {
        self.kind.downcast_ref()
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.origin, self.kind)
    }
}

/// An error, so that a host may return it with `?`. As for the crate's
/// errors, `Display` says all of it (the action's message after the
/// origin) and `source()` returns nothing, so a chain printer says nothing
/// twice; the action's own problem is reached with
/// [`downcast_ref`](Problem::downcast_ref).
impl std::error::Error for Problem {}

#[cfg(test)]
mod tests {
    use super::holds_newline;

    #[test]
    fn a_newline_is_found_at_every_position_of_every_length() {
        for len in 0..=100 {
            let mut line = vec![b'x'; len];
            assert!(!holds_newline(&line), "{len}");
            for at in 0..len {
                line[at] = b'\n';
                assert!(holds_newline(&line), "{len} {at}");
                line[at] = b'\r';
                assert!(!holds_newline(&line), "{len} {at}");
                line[at] = b'x';
            }
        }
    }
}
