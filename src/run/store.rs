//! Where a run's progress is kept so every ending is resumable: the
//! [`Store`] trait and [`FileStore`], an append-only journal per run.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use io_hooks::text::OsMessage;
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

/// A store could not record or read a run. `Display` names the file first,
/// then the cause; `source()` returns nothing (the cause is in the text).
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// The journal (or the store's directory) could not be created, opened,
    /// written, synced or read.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A run id that cannot name a journal file.
    BadRunId {
        /// The store's directory.
        dir: PathBuf,
        /// The id as given.
        run_id: String,
    },
    /// A record could not be written as JSON.
    Encode {
        /// The journal.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
    /// A line of the journal could not be read.
    ReadLine {
        /// The journal.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// The cause.
        source: io::Error,
    },
    /// A line of the journal is not a record.
    Decode {
        /// The journal.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// The cause.
        source: serde_json::Error,
    },
}

impl StoreError {
    /// The file (or, for a bad run id, the directory) concerned.
    pub fn path(&self) -> &Path {
        match self {
            StoreError::Io { path, .. }
            | StoreError::Encode { path, .. }
            | StoreError::ReadLine { path, .. }
            | StoreError::Decode { path, .. } => path,
            StoreError::BadRunId { dir, .. } => dir,
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.path().display())?;
        match self {
            StoreError::Io { source, .. } => write!(f, "{}", OsMessage(source)),
            StoreError::BadRunId { run_id, .. } => write!(
                f,
                "`{run_id}` is not a run id (letters, digits, `-`, `_` and `.` only)"
            ),
            StoreError::Encode { source, .. } => write!(f, "{source}"),
            StoreError::ReadLine { line, source, .. } => {
                write!(f, "line {line}: {}", OsMessage(source))
            }
            StoreError::Decode { line, source, .. } => write!(f, "line {line}: {source}"),
        }
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
        fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
            path: dir.clone(),
            source,
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
            Err(StoreError::BadRunId {
                dir: self.dir.clone(),
                run_id: run_id.to_owned(),
            })
        }
    }
}

impl Store for FileStore {
    fn append(&self, run_id: &str, record: &Record) -> Result<(), StoreError> {
        let path = self.path(run_id)?;
        let fail = |source: io::Error| StoreError::Io {
            path: path.clone(),
            source,
        };
        let mut line = serde_json::to_vec(record).map_err(|source| StoreError::Encode {
            path: path.clone(),
            source,
        })?;
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
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let mut records = Vec::new();
        for (n, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|source| StoreError::ReadLine {
                path: path.clone(),
                line: n + 1,
                source,
            })?;
            if line.trim().is_empty() {
                continue;
            }
            let record = serde_json::from_str(&line).map_err(|source| StoreError::Decode {
                path: path.clone(),
                line: n + 1,
                source,
            })?;
            records.push(record);
        }
        Ok(Some(records))
    }
}
