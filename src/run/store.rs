//! Where a run's progress is kept so every ending is resumable: the
//! [`Store`] trait and [`FileStore`], an append-only journal per run.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

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
/// each appended with one write and flushed to disk.
#[derive(Debug, Clone)]
pub struct FileStore {
    dir: PathBuf,
}

impl FileStore {
    /// A store in `dir`, created if missing.
    ///
    /// # Errors
    /// When `dir` cannot be created.
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(|e| StoreError {
            path: dir.clone(),
            cause: e.to_string(),
        })?;
        Ok(FileStore { dir })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, run_id: &str) -> Result<PathBuf, StoreError> {
        // A run id becomes a file name: nothing that could leave the directory.
        let ok = !run_id.is_empty()
            && run_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
            && !run_id.starts_with('.');
        if ok {
            Ok(self.dir.join(format!("{run_id}.jsonl")))
        } else {
            Err(StoreError {
                path: self.dir.clone(),
                cause: format!(
                    "`{run_id}` is not a run id (letters, digits, `-`, `_` and `.` only)"
                ),
            })
        }
    }
}

impl Store for FileStore {
    fn append(&self, run_id: &str, record: &Record) -> Result<(), StoreError> {
        let path = self.path(run_id)?;
        let fail = |e: io::Error| StoreError {
            path: path.clone(),
            cause: e.to_string(),
        };
        let mut line = serde_json::to_vec(record).map_err(|e| fail(io::Error::other(e)))?;
        line.push(b'\n');
        let mut file = OpenOptions::new()
            .append(true)
            .create(true)
            .open(&path)
            .map_err(fail)?;
        file.write_all(&line).map_err(fail)?;
        file.sync_data().map_err(fail)
    }

    fn load(&self, run_id: &str) -> Result<Option<Vec<Record>>, StoreError> {
        let path = self.path(run_id)?;
        let file = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(StoreError {
                    path,
                    cause: e.to_string(),
                });
            }
        };
        let mut records = Vec::new();
        for (n, line) in BufReader::new(file).lines().enumerate() {
            let fail = |cause: String| StoreError {
                path: path.clone(),
                cause: format!("line {}: {cause}", n + 1),
            };
            let line = line.map_err(|e| fail(e.to_string()))?;
            if line.trim().is_empty() {
                continue;
            }
            records.push(serde_json::from_str(&line).map_err(|e| fail(e.to_string()))?);
        }
        Ok(Some(records))
    }
}
