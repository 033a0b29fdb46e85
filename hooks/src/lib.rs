//! A generic hook engine: an event registry derived from an enum, a bitset
//! filter per hook, `[[hook]]` tables parsed strictly, and the `append` and
//! `run` actions that execute them.
//!
//! This crate knows nothing of any particular harness's events: it works for
//! any enum that derives [`HookEvents`].
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
//! let specs = TomlFile::new("io.local.toml", text)
//!     .hooks::<Build>(root.path())?
//!     .unwrap_or_default();
//! let hooks = Hooks::new(specs, root.path()); // creates builds.jsonl, empty
//!
//! // Not wanted: one mask test, nothing written.
//! assert_eq!(hooks.fire_event(&Build::Started { target: "x86_64".into() }), Flow::Continue);
//! assert_eq!(hooks.fire_event(&Build::Finished { ok: true }), Flow::Continue);
//! let log = std::fs::read_to_string(root.path().join("builds.jsonl"))?;
//! assert_eq!(log, "{\"event\":\"finished\",\"ok\":true}\n");
//!
//! // A misspelled event is refused when the file is read, never at run time.
//! let err = TomlFile::new("io.local.toml", "[[hook]]\non = [\"finishd\"]\nappend = \"b\"\n")
//!     .hooks::<Build>(root.path())
//!     .unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "io.local.toml: key `hook[1].on`: unknown event `finishd` (did you mean `finished`?); \
//!      expected one of `started`, `finished` (line 2, column 7)"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod action;
mod exec;
mod registry;
mod spec;
mod table;

pub use action::Action;
pub use exec::{HookFailure, HookRun, Hooks, resolve_program, run_argv, run_command};
pub use io_hooks_derive::HookEvents;
pub use registry::{HookEvents, HookFilter, MAX_EVENTS, UnknownEvent, did_you_mean};
pub use spec::{DEFAULT_TIMEOUT, Flow, HookSpec, OnFailure};
pub use table::{
    HOOK_KEYS, HookTables, TableError, TableErrorKind, TomlFile, deserialize_table,
    hook_table_schema, toml_key,
};
