//! The interface every action implements, and nothing else: what its module
//! declares ([`Entry`], [`Effects`]) and what it is given when the hooks are
//! built, described and fired ([`Prepare`], [`Describe`], [`Fire`]). The
//! action modules name this file and the layers below, never the registry
//! (`action/mod.rs`) that lists them.

use std::path::Path;

use crate::key::HookKey;
use crate::process::{Capture, Interrupt};
use crate::root::Root;

/// What an action's module declares about it, as its `ENTRY`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    /// The key that chooses this action (`append`), a row of the key table.
    pub(crate) key: HookKey,
    /// Keys only this action takes (`timeout_ms` for `run`).
    pub(crate) options: &'static [HookKey],
    /// What a hook with this action does, as in "this hook appends".
    pub(crate) verb: &'static str,
    /// What it does beyond the engine ([`Action::effects`](super::Action::effects)).
    pub(crate) effects: Effects,
    /// The JSON Schema rules of a table with this action beyond each key's
    /// own schema: what its `validate` refuses between two keys, written
    /// so that an editor refuses it too.
    pub(crate) rules: fn() -> Vec<serde_json::Value>,
}

/// What an action does beyond the engine, as its module declares it on its
/// entry: what a checker says a hook costs (it may note a hook that
/// spawns a process on every event of a frequent kind).
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
}

impl Effects {
    /// Nothing beyond the engine.
    pub const NONE: Effects = Effects {
        writes_file: false,
        spawns_process: false,
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
}

/// What every action is prepared with when the hooks are built.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prepare<'a> {
    /// The hooks' root, absolute and held open.
    pub(crate) root: &'a Root,
    /// Whether to create what the action writes to when nothing is wrong
    /// ([`Hooks::new`](crate::Hooks::new)), or only to look
    /// ([`Hooks::check`](crate::Hooks::check)).
    pub(crate) create: bool,
    /// Whether a failure of this hook cancels the host's run: such a hook
    /// never runs in the background, where its cancel would come late.
    pub(crate) cancels: bool,
    /// The root the hook's table was read with, when it was read from one
    /// ([`HookSpec`](crate::HookSpec)'s).
    pub(crate) read_with: Option<&'a Path>,
}

/// What every action describes itself with, for a checker's line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Describe<'a> {
    /// The hooks' root: a path under it is shown relative to it.
    pub(crate) root: &'a Path,
}

/// What every action executes one event with, beside its own `Ready`.
#[derive(Debug)]
pub(crate) struct Fire<'a> {
    /// The event as one JSON line, with its newline.
    pub(crate) line: &'a [u8],
    /// The hooks' root, absolute and held open.
    pub(crate) root: &'a Root,
    /// What a spawned child is in flight on.
    pub(crate) interrupt: &'a Interrupt,
    /// Where the end of a spawned child's stderr is kept, when it is.
    pub(crate) capture: Option<&'a mut Capture>,
}
