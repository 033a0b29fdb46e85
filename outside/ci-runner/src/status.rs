//! The runner's own hook action, `status = "ci-status.txt"`: after each
//! matching event, the file holds that event's tag and nothing else, for a
//! dashboard or a prompt to read. Added through io-hooks' public action
//! plug-in, as an outside crate adds one: the engine brings `on`, `where`,
//! `on_failure`, the refusal of a hook in `ci.toml`, unknown keys and every
//! message; this file brings the key, its check, what building the hooks
//! finds wrong, and the write.
//!
//! The file is reached through `io_beneath`, the one way to a path
//! under a checkout that a clone can shape: a committed `ci-status.txt ->
//! ~/.bashrc` is refused, never written through.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use io_beneath::{Open, Root};
use io_hooks::{
    ActionKind, ActionTable, Effects, Execute, Fire, HookFailure, HookKey, Prepare, TableError,
};

/// The key that chooses the action.
pub const KEY: &str = StatusKind::KEY.name();

/// The `status` action's kind, which [`layout`](crate::config::layout)
/// adds.
#[derive(Debug, Clone, Copy, Default)]
pub struct StatusKind;

impl ActionKind for StatusKind {
    type Action = Status;
    const KEY: HookKey = HookKey::new(
        "status",
        "a file in the checkout, as in `status = \"ci-status.txt\"`",
        |_| {
            serde_json::json!({
                "type": "string",
                "minLength": 1,
                "description": "A file in the checkout that holds the last matching event's tag."
            })
        },
    );
    const VERB: &'static str = "writes a status file";

    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Status, TableError> {
        let path: String = table.value()?;
        let rel = PathBuf::from(&path);
        let refusal = if path.is_empty() {
            Some("`status = \"\"` names no file; write one, as in `status = \"ci-status.txt\"`")
        } else if rel.is_absolute() || path.split('/').any(|part| part == "..") {
            Some("the status file is a path in the checkout, as in `status = \"ci-status.txt\"`")
        } else {
            None
        };
        match refusal {
            Some(why) => Err(table.refuse(KEY, why)),
            None => Ok(Status { path: rel }),
        }
    }
}

/// A `status` hook: its file, relative to the checkout, which it opens
/// through the root the hooks hold open.
#[derive(Debug, Clone)]
pub struct Status {
    path: PathBuf,
}

impl Execute for Status {
    fn describe(&self, _: &Path) -> String {
        format!("write each event's tag to {}", self.path.display())
    }

    fn effects(&self) -> Effects {
        Effects::WRITES_FILE
    }

    /// A checkout that cannot be opened fails every write: said when the
    /// hooks are built.
    fn prepare(&self, cx: &mut Prepare<'_>) -> Self {
        if !cx.beneath().is_open() {
            cx.problem("the checkout cannot be opened".to_owned(), None);
        }
        self.clone()
    }

    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        self.write(fire.beneath(), fire.tag())
            .map_err(|cause| HookFailure::action(KEY, cause))
    }
}

/// How writing the status fails.
#[derive(Debug)]
pub enum StatusFailure {
    /// The file could not be opened beneath the checkout (a link out of
    /// it, a directory in its place).
    Open(io_beneath::Error),
    /// The write failed.
    Write(std::io::Error),
}

impl fmt::Display for StatusFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatusFailure::Open(e) => write!(f, "the status file could not be opened: {e}"),
            StatusFailure::Write(e) => write!(f, "the status file could not be written: {e}"),
        }
    }
}

impl std::error::Error for StatusFailure {}

impl Status {
    /// Writes `tag`, the event's, and a newline as the whole file, beneath
    /// `root`.
    fn write(&self, root: &Root, tag: &str) -> Result<(), StatusFailure> {
        let how = Open::write().create(0o644).truncate();
        let opened = root
            .open_file(&self.path, &how)
            .map_err(StatusFailure::Open)?;
        let mut file = opened.into_file();
        file.write_all(format!("{tag}\n").as_bytes())
            .map_err(StatusFailure::Write)
    }
}
