//! A generic hook engine: an event registry derived from an enum, a bitset
//! filter per hook, `[[hook]]` tables parsed strictly, and the `append` and
//! `run` actions that execute them.
//!
//! This crate knows nothing of any particular program's events or files: it
//! works for any enum that derives [`HookEvents`], and its messages name the
//! embedder's files and events, never its own ([`Layout`]).
//!
//! The whole flow: an event enum, an operator's `[[hook]]` tables checked
//! against it, and the hooks receiving events.
//!
//! ```
//! use io_hooks::{Flow, HookEvents, Hooks, TomlFile};
//!
//! #[derive(serde::Serialize, HookEvents)]
//! #[serde(tag = "event")]
//! enum Build {
//!     /// A build started; once per build.
//!     #[serde(rename = "started")]
//!     Started { target: String },
//!     /// A build finished; once per build.
//!     #[serde(rename = "finished")]
//!     Finished { ok: bool },
//! }
//!
//! let root = tempfile::tempdir()?;
//! let text = r#"
//! [[hook]]
//! on = ["finished"]
//! append = "builds.jsonl"
//! "#;
//! let specs = TomlFile::new("build.toml", text)
//!     .hooks::<Build>(root.path())?;
//! let hooks = Hooks::new(specs, root.path()); // creates builds.jsonl, empty
//!
//! // Not wanted: one mask test, nothing written.
//! assert_eq!(hooks.fire_event(&Build::Started { target: "x86_64".into() }), Flow::Continue);
//! assert_eq!(hooks.fire_event(&Build::Finished { ok: true }), Flow::Continue);
//! let log = std::fs::read_to_string(root.path().join("builds.jsonl"))?;
//! assert_eq!(log, "{\"event\":\"finished\",\"ok\":true}\n");
//!
//! // A misspelled event is refused when the file is read, never at run time.
//! let err = TomlFile::new("build.toml", "[[hook]]\non = [\"finishd\"]\nappend = \"b\"\n")
//!     .hooks::<Build>(root.path())
//!     .unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "build.toml: key `hook[1].on`: unknown event `finishd` (did you mean `finished`?); \
//!      expected one of `started`, `finished` (line 2, column 7)"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The module map
//!
//! Six layers, bottom to top. Each module names only its own layer and those
//! below, and no module and its children name one another in a circle
//! (`hooks/tests/layers.rs` reads the source and checks both, with this
//! table as its own). Beneath them all is the `io-beneath` crate: the one way
//! to reach a file beneath a root, and the hooks' root itself
//! ([`io_beneath::Root`], made absolute and held open).
//!
//! | layer | module | its one job |
//! | --- | --- | --- |
//! | 1 | `registry/` | the event registry: [`HookEvents`], [`Kind`], [`HookFilter`] (a hook's `on`, the one thing "filter" names), the derive's field tables |
//! | 1 | `tag_check.rs` | [`check_tags`]: each variant's tag against what serde writes |
//! | 1 | `message.rs` | how a message quotes what it did not write: an OS error (`text::os_error`), text from a file, invisible characters |
//! | 1 | `paste.rs` | a command printed for the operator to paste: each word quoted for a POSIX shell (`text::shell_word`) |
//! | 1 | `scan.rs` | a byte string scanned for a byte of one kind, a block at a time: a line's newline, a string's bytes to escape |
//! | 2 | `hook_failure.rs` | [`HookFailure`], the hook's side: serialisation, the process error, or an action's own failure |
//! | 3 | `position.rs` | lines, columns and key paths as an operator reads them |
//! | 3 | `key.rs` | a row of the key table ([`HookKey`]) and the engine's own key names, one constant each |
//! | 3 | `env.rs` | the variables a hook's child is given, each named by the embedder: [`HookEnv`] |
//! | 3 | `origin.rs` | where a hook was written, the name every message gives it: [`Origin`] |
//! | 3 | `where/` | `where`: [`Where`], compiled and evaluated, its globs; an embedder's tools and their arguments, [`ToolTable`] (`where.args.<name>`, [`Where::lets_through`]) |
//! | 3 | `raw.rs` | what a validator reads: a table's keys, typed but unchecked, and where the table is |
//! | 3 | `table_error.rs` | [`TableError`] and [`TableErrorKind`], a `where`'s refusals among its variants |
//! | 4 | `action/` | the actions: the public plug-in every action implements (`interface.rs`: [`ActionKind`], [`Execute`]), a key's value read in its key's words (`value.rs`), the problem building one finds, as a hook's [`Problem`] holds it (`problem_kind.rs`), the built-in ones (`append/`, `run/`), their one list and the set a file is read with (`mod.rs`) |
//! | 5 | `spec.rs` | [`HookSpec`], and [`Flow`], an event's answer and a hook's `on_failure` |
//! | 5 | `layout.rs` | the embedder's words and its own actions: [`Layout`] |
//! | 5 | `table/` | [`TomlFile`] and [`HookTables`]: reading a file's tables, validating them, the scope and placement refusals, the JSON Schema |
//! | 6 | `hooks.rs` | [`Hooks`]: the mask test, serialisation once, each matching hook's action in order; [`Problem`], [`HookRun`] |
//! | 6 | `hooks/background.rs` | a background hook's bounded queue and worker thread; [`Undelivered`] |
//! | 6 | `hooks/hook_run.rs` | what one hook did with one event, told to the host: [`HookRun`] |
//!
//! Beneath them all, a crate of its own: the process supervisor,
//! [`io_supervisor`] (a `run` hook's spawn, deadline and interrupt, its
//! [`Supervisor`](io_supervisor::Supervisor) and its
//! [`ProcessError`](io_supervisor::ProcessError)).
//!
//! # Actions of your own
//!
//! `append` and `run` are two actions of a public plug-in of two traits,
//! and an embedder adds its own in its own crate, with [`Layout::action`]:
//!
//! - its kind ([`ActionKind`]): the key that chooses it, declared once as
//!   an associated const ([`HookKey`], with what its value accepts and an
//!   example), its options, a verb, which of the engine's keys it honours
//!   (`timeout_ms`, `background`), and `validate`, which reads an
//!   [`ActionTable`] into its typed action (`type Action`) and refuses a
//!   value in its own words with the file, the key path, the line and the
//!   column;
//! - that action, its executor ([`Execute`]): `describe`, [`Effects`],
//!   `prepare`, which tells a [`Prepare`] what will make the hook fail each
//!   time (a problem of its own type, reached with
//!   [`Problem::downcast_ref`]), and `execute`, given a [`Fire`] with
//!   the event's tag and line, the root, the deadline and the
//!   [`Supervisor`](io_supervisor::Supervisor), failing with a type of its own through
//!   [`HookFailure::Action`].
//!
//! The engine gives it the rest: `on`, `where`, `on_failure`, `timeout_ms`
//! and `background` (the deadline and the background queue, for an action
//! that honours them; refused with a reason naming the action on one that
//! does not), the project-scope refusal, an unknown key and its near miss
//! among every action's keys, a key of another action, a value of the
//! wrong type said in the key's words, the JSON Schema
//! ([`hook_file_schema`] with the layout), and the messages.
//! `examples/webhook/` adds a `webhook` action (POST each event's line over
//! HTTP, every wait bounded by the hook's deadline; an answer that is not
//! 2xx is a failure) with the standard library's sockets: no async runtime
//! is asked of the engine.
//!
//! ```
//! use std::path::Path;
//! use io_hooks::{
//!     ActionKind, ActionTable, Execute, Fire, HookEvents, HookFailure, HookKey, Layout, Prepare,
//!     TableError, TomlFile,
//! };
//!
//! #[derive(HookEvents, serde::Serialize)]
//! #[serde(tag = "event")]
//! enum Ev {
//!     #[serde(rename = "done")]
//!     Done,
//! }
//!
//! /// `bell = 3`: rings the terminal's bell that many times (here, counts them).
//! struct BellKind;
//! #[derive(Debug, Clone, PartialEq)]
//! struct Bell(u8);
//!
//! impl ActionKind for BellKind {
//!     type Action = Bell;
//!     const KEY: HookKey = HookKey::new("bell", "a number of rings, as in `bell = 3`", |_| {
//!         serde_json::json!({ "type": "integer", "minimum": 1 })
//!     });
//!     const VERB: &'static str = "rings";
//!     fn validate(&self, table: &mut ActionTable<'_>) -> Result<Bell, TableError> {
//!         match table.value::<u8>()? {
//!             0 => Err(table.refuse("bell", "`bell = 0` rings nothing; write 1 or more")),
//!             n => Ok(Bell(n)),
//!         }
//!     }
//! }
//! impl Execute for Bell {
//!     fn describe(&self, _: &Path) -> String {
//!         format!("ring {} times", self.0)
//!     }
//!     fn prepare(&self, _: &mut Prepare<'_>) -> Self {
//!         self.clone()
//!     }
//!     fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
//!         assert_eq!(fire.tag(), "done");
//!         Ok(())
//!     }
//! }
//!
//! let layout = Layout::new().action(BellKind);
//! let read = |text: &str| TomlFile::new("app.toml", text).layout(&layout).hooks::<Ev>(Path::new("/p"));
//! let specs = read("[[hook]]\non = [\"done\"]\nbell = 2\n")?;
//! assert_eq!(specs[0].action.get::<Bell>(), Some(&Bell(2)));
//! assert_eq!(specs[0].action.key(), "bell");
//! assert_eq!(
//!     read("[[hook]]\nbell = 0\n").unwrap_err().to_string(),
//!     "app.toml: key `hook[1].bell`: `bell = 0` rings nothing; write 1 or more (line 2, column 8)"
//! );
//! assert_eq!(
//!     read("[[hook]]\nbell = \"2\"\n").unwrap_err().to_string(),
//!     "app.toml: key `hook[1].bell`: invalid type: string \"2\", expected a number of rings, \
//!      as in `bell = 3` (line 2, column 8)"
//! );
//! assert_eq!(
//!     read("[[hook]]\nbell = 2\ntimeout_ms = 100\n").unwrap_err().to_string(),
//!     "app.toml: key `hook[1].timeout_ms`: `timeout_ms` applies only to a `run` hook, and this \
//!      hook rings; remove it (line 3, column 14)"
//! );
//! assert_eq!(
//!     read("[[hook]]\nbel = 1\n").unwrap_err().to_string(),
//!     "app.toml: key `hook[1].bel`: unknown key `bel` (did you mean `bell`?); a hook table \
//!      takes `on`, `where`, `append`, `run`, `on_failure`, `timeout_ms`, `background`, `name`, `enabled`, `bell` \
//!      (line 2, column 1)"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Inside the crate, the built-in actions are modules of `action/` that
//! implement the same two traits (`append/`: `append_key.rs`,
//! `append_problem.rs`, and its mechanism, the log file `log.rs` and
//! `append_failure.rs`; `run/`: `run_key.rs`, `run_problem.rs` and
//! `check.rs`), each one line of the one list of built-in kinds
//! (`action::BUILT_IN`), from which the key table ([`HOOK_KEYS`])
//! is computed; `hooks/tests/layers.rs` checks that none names the list.
//!
//! # Tags: the derive and serde agree, or the build says why
//!
//! A variant's tag is written on it, where serde reads it:
//! `#[serde(rename = "job_started")]`. An enum-level `rename_all` is refused
//! at compile time ("variant `JobStarted` has no wire tag; add
//! `#[serde(rename = "job_started")]` …"): renaming a Rust variant must never
//! move a tag an operator wrote in a config, so the fix is that one line on
//! each variant. `#[hook(tag = "…")]` is for an enum serde does not
//! serialise, and is refused where the derive sees that serde names the
//! variants. The compiler does not show a derive a `Serialize` listed in its
//! own `#[derive(...)]`, nor a hand-written impl; for those, [`check_tags`]
//! is the one line of a test that compares each variant's tag with what
//! serde writes for it:
//!
//! ```
//! #[derive(serde::Serialize, io_hooks::HookEvents)]
//! #[serde(tag = "event")]
//! enum Ci {
//!     #[serde(rename = "job_started")]
//!     JobStarted { id: u32 },
//!     #[serde(rename = "job_finished")]
//!     JobFinished,
//! }
//! io_hooks::check_tags(&[Ci::JobStarted { id: 1 }, Ci::JobFinished])?;
//! # Ok::<(), io_hooks::TagCheckError>(())
//! ```
//!
//! # Errors
//!
//! One convention for every error type here ([`TableError`],
//! [`UnknownEvent`], [`HookFailure`], [`ProcessError`](io_supervisor::ProcessError),
//! [`Problem`], [`TagCheckError`], and the built-in actions' own problems
//! and failures, which an embedder reads through [`Problem`] and
//! [`HookFailure`]):
//!
//! - it implements [`std::error::Error`], and its `Display` is one whole
//!   message an operator can act on: what failed, where (file, key path
//!   counted from 1, line and column), why, and what is accepted;
//! - the cause is part of that message, so `source()` returns nothing and a
//!   chain printer (`main() -> Result`, anyhow, eyre) shows each cause once;
//!   a cause that is itself a value (an OS error) is kept in a field named
//!   `cause`. The one exception is an action's own failure
//!   ([`HookFailure::Action`]): its message shows its cause, and `source()`
//!   is that cause's next link;
//! - its `Debug` hides nothing private: [`TableError`], whose fields are
//!   private, shows its message as written, unquoted, so that a `main`
//!   returning `Result<(), Box<dyn Error>>` prints what an operator reads;
//!   the others derive it over their public fields;
//! - what kind of error it is comes as a `#[non_exhaustive]` enum to branch
//!   on ([`TableErrorKind`]); a [`Problem`] says its
//!   action ([`Problem::action`]), its message and its hint, and an
//!   embedder's action's own problem type is reached with
//!   [`Problem::downcast_ref`];
//! - no message names a file, a section or an event the embedder did not
//!   give: files and sections come from its [`Layout`], events from its enum.
//!
//! # Borrowed events
//!
//! An event enum may borrow (`enum Ev<'a>`): hooks built once as
//! `Hooks<Ev<'static>>` fire an `Ev<'a>` holding the caller's data.
//!
//! # Async hosts
//!
//! Firing blocks until the matching hooks have finished (see `# Blocking` on
//! [`Hooks::fire`]). The crate's `examples/tokio.rs` fires from tokio tasks
//! through `spawn_blocking`, and ends the hooks in flight on Ctrl-C through
//! [`Supervisor::interrupt`](io_supervisor::Supervisor::interrupt).
//!
//! ## Borrowed events in async code
//!
//! `spawn_blocking` (tokio's, async-std's, smol's `unblock`) takes a
//! `'static` closure, so an event that borrows the task's data cannot go
//! into it: error E0597, "`name` does not live long enough … argument
//! requires that `name` is borrowed for `'static`":
//!
//! ```compile_fail,E0597
//! # use io_hooks::{HookEvents, Hooks};
//! # #[derive(serde::Serialize, HookEvents)]
//! # #[serde(tag = "event")]
//! # enum Step<'a> {
//! #     #[serde(rename = "step")]
//! #     Step { name: &'a str },
//! # }
//! async fn step(hooks: std::sync::Arc<Hooks<Step<'static>>>) {
//!     let name = String::from("compile");
//!     let event = Step::Step { name: &name };
//!     let _ = tokio::task::spawn_blocking(move || hooks.fire_event(&event)).await;
//! }
//! ```
//!
//! Two ways take a borrowed event as it is. On tokio's multi-thread
//! runtime, `tokio::task::block_in_place` fires on the task's own thread
//! and first hands the worker's other tasks to another thread. Anywhere,
//! `std::thread::scope` fires on a thread that may borrow from the caller,
//! and the task's thread waits for it (the executor's thread is blocked as
//! long as the hooks run, so keep it to a runtime with threads to spare).
//! Or the event owns its data (`String` fields, or `Cow<'a, str>` made
//! owned), and `spawn_blocking` takes it.
//!
//! ```
//! use io_hooks::{Flow, HookEvents, Hooks, TomlFile};
//! use std::sync::Arc;
//!
//! #[derive(serde::Serialize, HookEvents)]
//! #[serde(tag = "event")]
//! enum Step<'a> {
//!     /// A step ran.
//!     #[serde(rename = "step")]
//!     Step { name: &'a str },
//! }
//!
//! async fn step(hooks: Arc<Hooks<Step<'static>>>, n: u32) -> Flow {
//!     let name = format!("compile {n}"); // the task's own, borrowed below
//!     let event = Step::Step { name: &name };
//!     if n % 2 == 0 {
//!         tokio::task::block_in_place(|| hooks.fire_event(&event))
//!     } else {
//!         std::thread::scope(|s| s.spawn(|| hooks.fire_event(&event)).join())
//!             .expect("firing does not panic")
//!     }
//! }
//!
//! #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let root = tempfile::tempdir()?;
//!     let text = "[[hook]]\non = [\"step\"]\nappend = \"steps.jsonl\"\n";
//!     let specs = TomlFile::new("app.toml", text)
//!         .hooks::<Step<'static>>(root.path())?;
//!     let hooks = Arc::new(Hooks::new(specs, root.path()));
//!     assert_eq!(step(Arc::clone(&hooks), 1).await, Flow::Continue);
//!     assert_eq!(tokio::spawn(step(hooks, 2)).await?, Flow::Continue);
//!     let log = std::fs::read_to_string(root.path().join("steps.jsonl"))?;
//!     assert_eq!(
//!         log,
//!         "{\"event\":\"step\",\"name\":\"compile 1\"}\n\
//!          {\"event\":\"step\",\"name\":\"compile 2\"}\n"
//!     );
//!     Ok(())
//! }
//! ```
//!
//! # Cargo features
//!
//! `tracing` (default): each problem found when hooks are built, and each
//! failure of a hook, is also logged at warn level through `tracing`, with
//! the target `io_hooks::hooks`. Without
//! it, they are only returned ([`Hooks::problems`], [`Hooks::fire_with`]).
//! No feature of another crate is turned on that an embedder's other crates
//! would feel: serde_json keeps its default map order (with `preserve_order`
//! on in the build, [`hook_table_schema`] lists keys in
//! [`HOOK_KEYS`]' order), and toml is only read.
//!
//! # Platforms
//!
//! Linux waits for a `run` hook on a pidfd; every other Unix with `waitid`
//! (macOS, the BSDs but OpenBSD, illumos) polls `waitid(WNOHANG)` instead,
//! a path Linux's tests also force. On Windows (issue 47) a `run` hook and
//! every process it starts live in a job object (io-supervisor's), an
//! `append` takes a lock on the sidecar `<log>.lock` around its one write
//! (the log itself is never locked: Windows' locks are mandatory), a
//! program is judged by `PATHEXT` and its kind rather than a `#!` line, and
//! a hint's command is PowerShell's (docs/decisions.md, "io-hooks on
//! Windows"). OpenBSD and any target neither Unix nor Windows are refused
//! at compile time, naming what is missing.

#![forbid(unsafe_code)]

#[cfg(not(any(unix, windows)))]
compile_error!(
    "io-hooks needs Unix or Windows: process groups or job objects (a timed-out hook is killed \
     with its children), a wait on one child (pidfd, waitid, or a process handle) and appends \
     that follow no link (O_NOFOLLOW, or Windows' reparse-point flags); this target has none"
);

#[cfg(target_os = "openbsd")]
compile_error!(
    "io-hooks needs waitid(2) to wait on a hook without reaping it, and OpenBSD has none"
);

mod action;
mod env;
mod hook_failure;
mod hooks;
mod key;
mod layout;
mod message;
mod origin;
mod paste;
mod position;
mod raw;
mod registry;
mod scan;
mod spec;
mod table;
mod table_error;
mod tag_check;
mod r#where;

pub use action::{
    Action, ActionKind, ActionTable, AppendAction, DEFAULT_TIMEOUT, Effects, Execute, Fire,
    Prepare, RunAction,
};
pub use env::HookEnv;
pub use hook_failure::HookFailure;
pub use hooks::{HookRun, Hooks, Problem, QUEUE_BYTES, QUEUE_EVENTS, Undelivered};
pub use io_hooks_derive::HookEvents;
pub use key::HookKey;
pub use layout::Layout;
pub use origin::Origin;
pub use registry::{
    Cost, Enveloped, Field, FieldKind, FieldValue, HookEvents, HookFilter, Kind, MAX_EVENTS,
    UnknownEvent,
};
pub use spec::{Flow, HookSpec};
pub use table::{HOOK_KEYS, HookTables, TomlFile, hook_file_schema, hook_table_schema};
pub use table_error::{TableError, TableErrorKind};
pub use tag_check::{TagCheckError, check_tags};
pub use r#where::{ToolClass, ToolSpec, ToolTable, Where};

#[doc(hidden)]
pub mod __private {
    pub use crate::registry::JsonValue;
    pub use crate::registry::{AsFieldValue, Choices, ChoicesOf, NoChoices, unit_variant_name};
    pub use serde_json;

    /// Both traits of the `field_choices` probe, for a glob import: a glob
    /// one of whose items is used warns of nothing, where a list naming
    /// both would warn of the one not used (and an `#[allow]` for it is
    /// refused by a crate's `forbid`).
    pub mod choices_in_scope {
        pub use crate::registry::{ChoicesOf as _, NoChoices as _};
    }

    /// The three traits of the `write_json` value probe, for a glob import,
    /// as `choices_in_scope`.
    pub mod json_in_scope {
        pub use crate::registry::{Direct as _, NotSerialize as _, ViaSerde as _};
    }
}

/// Text helpers the table errors are written with, for an embedder whose own
/// configuration errors should read the same way: a "did you mean"
/// suggestion, a key written as TOML writes it, a table that refuses an
/// array of tables with the same message a hook table does, the source
/// line an error points into, cut to a bounded width, an OS error without
/// std's " (os error N)", the characters a terminal shows as nothing,
/// which outside text must have escaped, a word of a command printed
/// for the operator to paste, quoted for a POSIX shell, and a JSON string
/// written as serde_json writes it, for an embedder's own envelope beside
/// an event's line.
pub mod text {
    pub use crate::message::{is_invisible, os_error};
    pub use crate::paste::{pasteable_word, shell_word};
    pub use crate::position::{SourceLine, toml_key};
    pub use crate::registry::did_you_mean;
    pub use crate::registry::json::write_json_str;
    pub use crate::table::deserialize_table;
}
