//! A generic hook engine: an event registry derived from an enum, a bitset
//! filter per hook, `[[hook]]` tables parsed strictly, and the `append` and
//! `run` actions that execute them.
//!
//! This crate knows nothing of any particular harness's events: it works for
//! any enum that derives [`HookEvents`].

#![warn(missing_docs)]

mod exec;
mod registry;
mod spec;
mod table;

pub use exec::{HookFailure, HookRun, Hooks, resolve_program, run_argv};
pub use io_hooks_derive::HookEvents;
pub use registry::{HookEvents, HookFilter, MAX_EVENTS, UnknownEvent, did_you_mean};
pub use spec::{Action, DEFAULT_TIMEOUT, Flow, HookSpec, OnFailure};
pub use table::{HOOK_KEYS, HookTables, TableError, TableErrorKind, TomlFile, toml_key};
