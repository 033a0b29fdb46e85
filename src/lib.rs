//! io-harness: an agent harness's run events, and the hooks an operator
//! declares for them in a TOML file.
//!
//! An operator writes `[[hook]]` tables in `io.local.toml` (or the user-scope
//! file): the events a hook wants, and a file to `append` them to or an argv
//! to `run`. [`Config::discover`] reads and checks them strictly;
//! [`Config::hooks`] returns a [`Hooks`], which is an [`Observer`]; the caller
//! installs it like any other. Nothing installs a hook on its own.
//!
//! The whole flow, with the spec's own lines in the middle:
//!
//! ```
//! # use io_harness::run::{Contract, FileStore, Policy, ScriptedProvider};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let root = dir.path().to_path_buf();
//! # // The operator's checkout, as `git init` leaves one: `io.local.toml`
//! # // is untracked there, so it is theirs.
//! # for sub in [".git/objects", ".git/refs"] { std::fs::create_dir_all(root.join(sub))?; }
//! # std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n")?;
//! # std::fs::write(root.join("io.local.toml"), "[[hook]]\non = [\"step\", \"finished\"]\nappend = \"audit.jsonl\"\n")?;
//! # let provider = ScriptedProvider::from_toml("script.toml", r#"
//! # goal = "greet"
//! # [[turn]]
//! # calls = [{ tool = "write_file", args = { path = "hi.txt", content = "hi" } }]
//! # answer = "done"
//! # "#)?;
//! # let contract = Contract::new(provider.goal(), &root);
//! # let store = FileStore::new(root.join(".io/runs"))?;
//! # let policy = Policy::default();
//! # pollster::block_on(async {
//! use io_harness::{run_with_observed, ApproveAll, Config};
//!
//! let config = Config::discover(&root)?;
//! let hooks = config.hooks();
//! let result = run_with_observed(
//!     &contract, &provider, &store, &policy, &ApproveAll, &hooks,
//! ).await?;
//! # assert_eq!(result.outcome, io_harness::run::RunOutcome::Completed { steps: 1, answer: "done".into() });
//! # let audit = std::fs::read_to_string(root.join("audit.jsonl"))?;
//! # assert_eq!(audit.lines().count(), 2); // step, finished
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })
//! # }
//! ```
//!
//! The events are [`EventKind`]'s 27 variants, each with its wire tag written
//! literally on it; `#[derive(HookEvents)]` (from `io-hooks`) turns the enum
//! into the registry hook tables are checked against and the one-word bitset
//! a hook's `on` list becomes.

#![forbid(unsafe_code)]

mod config;
mod event;
mod event_schema;
mod hook_schema;
mod observer;
mod raw_json;
pub mod replay;
pub mod run;
mod supervisor;
mod tool_name;

/// What `io schema` publishes, generated from the registry: a JSON Schema
/// for `[[hook]]` tables ([`hook_schema`](schema::hook_schema)), so an
/// editor can complete event names and flag a bad key while the operator
/// types, and the events' own schema and documentation (`docs/events.md`).
/// Each is written in a module of its own: `hook_schema.rs` and
/// `event_schema.rs`.
pub mod schema {
    pub use crate::event_schema::{
        EventDoc, FieldDoc, envelope_docs, event_docs, events_markdown, events_schema,
        example_line, where_fields_line,
    };
    pub use crate::hook_schema::hook_schema;
}

pub use config::{
    Config, ConfigError, Hooks, HooksInForce, LOCAL_FILE, PROJECT_FILE, Scope, Source,
};
pub use event::{Cost, EventKind, Outcome, RunEvent, cost_words};
/// The engine's types that this crate's API hands out or takes, so that a
/// caller needs no `io-hooks` dependency of its own to name them.
pub use io_hooks::{
    Action, AppendAction, Effects, Enveloped, FieldValue, Flow, HookEnv, HookEvents, HookFailure,
    HookFilter, HookRun, HookSpec, Kind, Origin, Problem, RunAction, TableError, TableErrorKind,
    ToolClass, ToolTable, UnknownEvent, text::SourceLine,
};
/// The supervisor's types that this crate's API hands out or takes, for the
/// same reason.
pub use io_supervisor::{ProcessError, Supervisor};
pub use observer::Observer;
pub use raw_json::RawJson;
pub use run::{ApproveAll, resume_observed, run_observed, run_with_observed};
pub use supervisor::process_supervisor;
pub use tool_name::TOOLS;
