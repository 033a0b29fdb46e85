//! Where a run's progress is kept so every ending is resumable: the
//! [`Store`] trait and [`FileStore`], an append-only journal per run.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::Write;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use rustix::fs::OFlags;

use serde::{Deserialize, Serialize};

use super::beneath::{self, Beneath};
use crate::event::Outcome;

/// One line of a run's journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Record {
    /// The run began: everything needed to continue it.
    Begin {
        /// The goal.
        goal: String,
        /// The workspace directory, absolute.
        workspace: PathBuf,
        /// 0 for a top-level run.
        depth: u32,
        /// The step limit.
        max_steps: u32,
        /// Where the run's instructions came from (`Contract::origin`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<String>,
        /// The MCP servers the run may call (`Contract::mcp_servers`).
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        mcp_servers: BTreeMap<String, Vec<String>>,
    },
    /// A step was committed.
    Step {
        /// Its number, from 1.
        step: u32,
        /// What the model will see of it next turn.
        observation: String,
        /// Whether it changed the workspace's bytes.
        moved_the_workspace: bool,
        /// The `seq` the run's next event takes.
        next_seq: u64,
    },
    /// Events up to `next_seq` (excluded) may be emitted before the next
    /// record: written before an event would take a `seq` beyond the last
    /// one reserved, so a resume after a crash starts past every `seq` the
    /// run may have used (docs/decisions.md, "seq reservation").
    Reserve {
        /// The first `seq` not reserved.
        next_seq: u64,
    },
    /// The run ended (it may still be resumed unless it completed).
    End {
        /// How.
        outcome: Outcome,
        /// Steps committed.
        steps: u32,
        /// The final answer or the failure, when there is one.
        detail: Option<String>,
        /// The `seq` the run's next event takes.
        next_seq: u64,
    },
}

/// A store could not record or read a run.
#[derive(Debug)]
pub struct StoreError {
    /// The journal concerned.
    pub path: PathBuf,
    /// What went wrong.
    pub cause: String,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.cause)
    }
}

impl std::error::Error for StoreError {}

/// Keeps each run's journal.
pub trait Store: Send + Sync {
    /// Appends one record to `run_id`'s journal. The record is durable in the
    /// store's terms when this returns.
    ///
    /// # Errors
    /// When the record cannot be written; the run stops with this error.
    fn append(&self, run_id: &str, record: &Record) -> Result<(), StoreError>;

    /// Every record of `run_id`'s journal, oldest first; `None` for a run the
    /// store has never seen.
    ///
    /// # Errors
    /// When the journal exists but cannot be read or parsed.
    fn load(&self, run_id: &str) -> Result<Option<Vec<Record>>, StoreError>;
}

/// A directory of journals, `<dir>/<run_id>.jsonl`, one JSON record a line,
/// each appended with one write and flushed to disk. The directory and its
/// journals are private to their owner (0700 and 0600): they hold the goal.
///
/// Loading drops a torn last record (a line without its newline: the write
/// a crash cut short), truncating the journal back to its last whole
/// record, as a write-ahead log does; a bad record before the last is
/// corruption and an error.
#[derive(Debug, Clone)]
pub struct FileStore {
    /// Every journal is opened beneath this directory.
    root: PathBuf,
    /// The journals' directory, relative to `root`.
    rel: PathBuf,
}

impl FileStore {
    /// A store in `dir`, created if missing.
    ///
    /// # Errors
    /// When `dir` cannot be created.
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let dir = dir.into();
        fs::DirBuilder::new()
            .recursive(true)
            .mode(beneath::PRIVATE_DIR)
            .create(&dir)
            .map_err(|e| StoreError {
                path: dir.clone(),
                cause: e.to_string(),
            })?;
        Ok(FileStore {
            root: dir,
            rel: PathBuf::new(),
        })
    }

    /// A store in `root/rel` (as `.io/runs` in a workspace), whose
    /// directories and journals are opened beneath `root`: a symbolic link
    /// in `rel` (a clone's `.io -> /tmp/elsewhere`) that leads outside
    /// `root` is refused, not followed. The directories are made, private,
    /// at the first append.
    pub fn beneath(root: impl Into<PathBuf>, rel: impl Into<PathBuf>) -> Self {
        FileStore {
            root: root.into(),
            rel: rel.into(),
        }
    }

    /// The directory.
    pub fn dir(&self) -> PathBuf {
        self.root.join(&self.rel)
    }

    /// The journal of `run_id`, relative to the root.
    fn journal(&self, run_id: &str) -> Result<PathBuf, StoreError> {
        // A run id becomes a file name: nothing that could leave the directory.
        let ok = !run_id.is_empty()
            && run_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
            && !run_id.starts_with('.');
        if ok {
            Ok(self.rel.join(format!("{run_id}.jsonl")))
        } else {
            Err(StoreError {
                path: self.dir(),
                cause: format!(
                    "`{run_id}` is not a run id (letters, digits, `-`, `_` and `.` only)"
                ),
            })
        }
    }

    /// The error for `rel`'s journal.
    fn fail(&self, rel: &Path, cause: String) -> StoreError {
        StoreError {
            path: self.root.join(rel),
            cause,
        }
    }

    fn describe(e: &beneath::Error) -> String {
        match e {
            beneath::Error::Io(e) => e.to_string(),
            beneath::Error::Outside { .. } => {
                "refused: the journal's path leads outside the workspace through a symbolic link"
                    .to_owned()
            }
        }
    }
}

impl Store for FileStore {
    fn append(&self, run_id: &str, record: &Record) -> Result<(), StoreError> {
        let rel = self.journal(run_id)?;
        let fail = |cause: String| self.fail(&rel, cause);
        let mut line = serde_json::to_vec(record).map_err(|e| fail(e.to_string()))?;
        line.push(b'\n');
        let mut file = Beneath::new(&self.root)
            .append(&rel, beneath::PRIVATE_FILE, beneath::PRIVATE_DIR)
            .map_err(|e| fail(Self::describe(&e)))?;
        file.write_all(&line).map_err(|e| fail(e.to_string()))?;
        file.sync_data().map_err(|e| fail(e.to_string()))
    }

    fn load(&self, run_id: &str) -> Result<Option<Vec<Record>>, StoreError> {
        let rel = self.journal(run_id)?;
        let fail = |cause: String| self.fail(&rel, cause);
        let files = Beneath::new(&self.root);
        let Some(bytes) = files
            .read_if_any(&rel)
            .map_err(|e| fail(Self::describe(&e)))?
        else {
            return Ok(None);
        };
        // Everything after the last newline is a torn record: dropped, and
        // cut off so the next append starts a whole line.
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if whole < bytes.len() {
            tracing::warn!(
                "{}: dropped a torn last record ({} bytes without a newline), as a crash leaves it",
                self.root.join(&rel).display(),
                bytes.len() - whole
            );
            let file = files
                .open(&rel, OFlags::WRONLY, 0, None)
                .map_err(|e| fail(Self::describe(&e)))?;
            fs::File::from(file)
                .set_len(whole as u64)
                .map_err(|e| fail(format!("cannot drop the torn last record: {e}")))?;
        }
        let lines: Vec<&[u8]> = bytes[..whole].split(|&b| b == b'\n').collect();
        // `split` leaves an empty piece after the final newline.
        let count = lines.len().saturating_sub(1);
        let mut records = Vec::new();
        for (n, line) in lines[..count].iter().enumerate() {
            if line.trim_ascii().is_empty() {
                continue;
            }
            let record = serde_json::from_slice(line).map_err(|e| {
                fail(format!(
                    "line {} of {count} is not a whole record ({e}); the journal is corrupt (only a torn last record, one without its newline, is dropped)",
                    n + 1
                ))
            })?;
            records.push(record);
        }
        Ok(Some(records))
    }
}
