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
    Action, ActionKind, ActionTable, Effects, Execute, Fire, HookAction, HookFailure, HookKey,
    Prepare, TableError,
};

/// The key that chooses the action.
pub const KEY: &str = "status";

/// The `status` action's kind, which [`layout`](crate::config::layout)
/// adds.
#[derive(Debug, Clone, Copy, Default)]
pub struct StatusKind;

impl ActionKind for StatusKind {
    fn key(&self) -> HookKey {
        HookKey::new(KEY, |_| {
            serde_json::json!({
                "type": "string",
                "minLength": 1,
                "description": "A file in the checkout that holds the last matching event's tag."
            })
        })
    }

    fn verb(&self) -> &'static str {
        "writes a status file"
    }

    fn validate(&self, table: &mut ActionTable<'_>) -> Result<Action, TableError> {
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
            None => Ok(Action::new(Status { path: rel })),
        }
    }
}

/// A `status` hook: its file, relative to the checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    path: PathBuf,
}

impl HookAction for Status {
    fn key(&self) -> &'static str {
        KEY
    }

    fn describe(&self, _: &Path) -> String {
        format!("write each event's tag to {}", self.path.display())
    }

    fn effects(&self) -> Effects {
        Effects::WRITES_FILE
    }

    /// A checkout that cannot be opened fails every write: said when the
    /// hooks are built.
    fn prepare(&self, cx: &mut Prepare<'_>) -> Box<dyn Execute> {
        let root = match Root::open(cx.root()) {
            Ok(root) => Some(root),
            Err(e) => {
                cx.problem(format!("the checkout cannot be opened: {e}"), None);
                None
            }
        };
        Box::new(Ready {
            path: self.path.clone(),
            root,
        })
    }
}

/// A `status` hook as built hooks hold it: the checkout, held open.
#[derive(Debug)]
struct Ready {
    path: PathBuf,
    root: Option<Root>,
}

/// How writing the status fails.
#[derive(Debug)]
pub enum StatusFailure {
    /// The checkout could not be opened when the hooks were built.
    NoCheckout,
    /// The file could not be opened beneath the checkout (a link out of
    /// it, a directory in its place).
    Open(io_beneath::Error),
    /// The write failed.
    Write(std::io::Error),
    /// The event's line has no tag.
    NoTag,
}

impl fmt::Display for StatusFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatusFailure::NoCheckout => f.write_str("the checkout could not be opened"),
            StatusFailure::Open(e) => write!(f, "the status file could not be opened: {e}"),
            StatusFailure::Write(e) => write!(f, "the status file could not be written: {e}"),
            StatusFailure::NoTag => f.write_str("the event has no tag"),
        }
    }
}

impl std::error::Error for StatusFailure {}

impl Execute for Ready {
    fn execute(&self, fire: Fire<'_>) -> Result<(), HookFailure> {
        self.write(fire.line())
            .map_err(|cause| HookFailure::action(KEY, cause))
    }
}

impl Ready {
    fn write(&self, line: &[u8]) -> Result<(), StatusFailure> {
        #[derive(serde::Deserialize)]
        struct Tagged {
            event: String,
        }
        let tag = serde_json::from_slice::<Tagged>(line)
            .map_err(|_| StatusFailure::NoTag)?
            .event;
        let root = self.root.as_ref().ok_or(StatusFailure::NoCheckout)?;
        let how = Open::write().create(0o644).truncate();
        let opened = root
            .open_file(&self.path, &how)
            .map_err(StatusFailure::Open)?;
        let mut file = opened.into_file();
        file.write_all(format!("{tag}\n").as_bytes())
            .map_err(StatusFailure::Write)
    }
}
