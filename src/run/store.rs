//! Where a run's progress is kept so every ending is resumable: the
//! [`Store`] trait and [`FileStore`], an append-only journal per run.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::fs;
use std::io::{self, BufRead, Read, Write};
#[cfg(unix)]
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use io_beneath::{Links, Open, Root};
use io_hooks::text::os_error;
use io_trust::{Chain, Key};
#[cfg(unix)]
use rustix::fd::OwnedFd;
use serde::{Deserialize, Serialize};

use super::seal::{self, SealFault};
use super::tools::{PRIVATE_DIR, PRIVATE_FILE};
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
        /// The instructions themselves (`Contract::script`): what a resume
        /// runs, so that it reads no file the journal merely names.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        script: Option<String>,
        /// The MCP servers the run may call (`Contract::mcp_servers`).
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        mcp_servers: BTreeMap<String, Vec<String>>,
        /// The configuration profile the run was started with
        /// (`Contract::profile`); absent when none was, and in a journal
        /// begun before it was kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        profile: Option<String>,
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
        /// The tokens the run has drawn up to and including this step, so
        /// that a resume's `spend_draw` goes on from them. A journal written
        /// before this field reads it as 0.
        #[serde(default)]
        tokens_used: u64,
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
    /// The journal's path leads outside the workspace through a symbolic
    /// link, so it was not opened.
    Outside {
        /// The journal.
        path: PathBuf,
    },
    /// The journal's path goes through a symbolic link that stays in the
    /// workspace: a journal is reached through none, since git lists no
    /// path behind a link and a journal there could be a clone's.
    Link {
        /// The journal.
        path: PathBuf,
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
    /// A torn last record could not be cut off the journal.
    Truncate {
        /// The journal.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The journal is not one this user's runs wrote: owned by someone
    /// else, or writable by others. A resume acts on what the journal says,
    /// so it is refused.
    Untrusted {
        /// The journal.
        path: PathBuf,
        /// Why, in the operator's words.
        reason: String,
    },
    /// Another process holds the journal's lock: it is running or resuming
    /// the same run.
    Busy {
        /// The journal.
        path: PathBuf,
    },
    /// A line of the journal does not carry the MAC this user's key makes
    /// for it there ([`FileStore::sealed`]): the journal, or that line, is
    /// not as this user's `io` wrote it. Nothing of it is used.
    Unsealed {
        /// The journal.
        path: PathBuf,
        /// The line, from 1: 1 when the journal was sealed with another key
        /// or not at all (or its first line was changed), more when the
        /// lines before it verify.
        line: usize,
        /// What is wrong with its MAC.
        fault: SealFault,
    },
    /// A record before the last is not a whole record.
    Corrupt {
        /// The journal.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// The whole lines in the journal.
        lines: usize,
        /// The cause.
        source: serde_json::Error,
    },
}

impl StoreError {
    /// The file (or, for a bad run id, the directory) concerned.
    pub fn path(&self) -> &Path {
        match self {
            StoreError::Io { path, .. }
            | StoreError::Outside { path }
            | StoreError::Link { path }
            | StoreError::Untrusted { path, .. }
            | StoreError::Busy { path }
            | StoreError::Encode { path, .. }
            | StoreError::Truncate { path, .. }
            | StoreError::Unsealed { path, .. }
            | StoreError::Corrupt { path, .. } => path,
            StoreError::BadRunId { dir, .. } => dir,
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.path().display())?;
        match self {
            StoreError::Io { source, .. } => write!(f, "{}", os_error(source)),
            StoreError::Outside { .. } => f.write_str(
                "refused: the journal's path leads outside the workspace through a symbolic link",
            ),
            StoreError::Link { .. } => f.write_str(
                "refused: the journal's path goes through a symbolic link; `io` reaches its own \
                 files (`.io` and everything in it) through none, since a journal behind a link \
                 is one git cannot say whether a clone brought",
            ),
            StoreError::BadRunId { run_id, .. } => write!(
                f,
                "`{run_id}` is not a run id (letters, digits, `-`, `_` and `.` only)"
            ),
            StoreError::Untrusted { reason, .. } => write!(
                f,
                "refused: {reason}; a run is resumed only from a journal its own user's runs wrote"
            ),
            StoreError::Busy { .. } => f.write_str(
                "refused: another `io` holds this run's journal (it is running or resuming the \
                 run now); wait for it to end, then resume",
            ),
            StoreError::Encode { source, .. } => write!(f, "{source}"),
            StoreError::Truncate { source, .. } => {
                write!(f, "cannot drop the torn last record: {}", os_error(source))
            }
            StoreError::Unsealed {
                line: 1,
                fault: SealFault::Missing,
                ..
            } => f.write_str(
                "refused: the journal carries no MAC, so it is not one your `io` wrote: an `io` \
                 older than this one wrote it, or a hand did; a run is resumed only from a \
                 journal its own user's `io` wrote",
            ),
            StoreError::Unsealed { line: 1, .. } => f.write_str(
                "refused: the journal's MAC does not verify with your key, so it is not one your \
                 `io` wrote as it is: it was sealed with another key (on another machine, by \
                 another user's `io`, or before your key was replaced), or changed since; a run \
                 is resumed only from a journal its own user's `io` wrote",
            ),
            StoreError::Unsealed { line, fault, .. } => write!(
                f,
                "refused: line {line} {fault}, though the lines before it verify: a record was \
                 changed, moved, dropped or put in after your `io` wrote it"
            ),
            StoreError::Corrupt {
                line,
                lines,
                source,
                ..
            } => write!(
                f,
                "line {line} of {lines} is not a whole record ({source}); the journal is corrupt \
                 (only a torn last record, one without its newline, is dropped)"
            ),
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

    /// Claims `run_id`'s journal for as long as the returned guard lives,
    /// so no other process runs or resumes the run meanwhile. The run loop
    /// takes it once the run's first record is written, and before a
    /// resume reads the journal. The default claims nothing: a store only
    /// its caller writes has nobody to keep out.
    ///
    /// # Errors
    /// When the journal is held elsewhere ([`StoreError::Busy`]), or may
    /// not be trusted ([`StoreError::Untrusted`]).
    fn lock(&self, run_id: &str) -> Result<StoreLock, StoreError> {
        let _ = run_id;
        Ok(StoreLock::default())
    }
}

/// A journal claimed by [`Store::lock`]: held until dropped.
#[derive(Default)]
pub struct StoreLock {
    _held: Option<Box<dyn std::any::Any + Send>>,
}

impl StoreLock {
    /// A claim that lasts as long as `held` does (a locked file, say).
    pub fn holding(held: impl std::any::Any + Send) -> Self {
        StoreLock {
            _held: Some(Box::new(held)),
        }
    }
}

impl fmt::Debug for StoreLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreLock")
            .field("held", &self._held.is_some())
            .finish()
    }
}

/// A directory of journals, `<dir>/<run_id>.jsonl`, one JSON record a line,
/// each appended with one write and flushed to disk. The directory and its
/// journals are private to their owner (0700 and 0600): they hold the goal.
///
/// A journal is trusted only when it is a regular file this process's user
/// owns that nobody else may write (no group or other write bit): anything
/// else did not come from this user's runs (a clone committed it, another
/// user planted it), and [`Store::lock`] and [`FileStore::begin`] refuse it
/// before reading a byte. A run holds its journal's lock (`flock`,
/// exclusive, not waiting) from its first record to its end, so a second
/// `io` resuming the same run is refused at once.
///
/// Loading drops a torn last record (a line without its newline: the write
/// a crash cut short), truncating the journal back to its last whole
/// record, as a write-ahead log does; a bad record before the last is
/// corruption and an error.
///
/// A store [`sealed`](FileStore::sealed) with the user's key puts a MAC on
/// every record it writes (`{"mac":"…","step":{…}}`, a chain seeded with
/// the run id: [`io_trust::Chain`]) and verifies every record it reads
/// before a byte of it is used: a journal this user's program did not
/// write, or one changed, reordered or cut in the middle since, is refused
/// ([`StoreError::Unsealed`]), whoever owns the file. A store without a
/// key (an embedder's own directory, which only it writes) reads a
/// record as written, sealed or not.
#[derive(Debug, Clone)]
pub struct FileStore {
    /// Every journal is opened beneath this directory.
    root: PathBuf,
    /// The journals' directory, relative to `root`.
    rel: PathBuf,
    /// The key that seals and verifies every record, and each run's chain.
    seal: Option<Seal>,
}

/// A store's key, and where each run's chain is: after the last record
/// this process wrote or verified in its journal.
#[derive(Clone)]
struct Seal {
    key: Key,
    /// By run id; a run's entry is locked for the whole of an append, so
    /// its records are sealed and written in one order. `None` when the
    /// journal must be read (and verified) to know it.
    chains: Arc<Mutex<HashMap<String, RunChain>>>,
}

/// Where one run's chain is, locked for the whole of an append; `None`
/// until it is known.
type RunChain = Arc<Mutex<Option<Chain>>>;

impl fmt::Debug for Seal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Seal").finish_non_exhaustive()
    }
}

impl Seal {
    /// The place of `run_id`'s chain, made empty the first time.
    fn entry(&self, run_id: &str) -> RunChain {
        Arc::clone(guard(&self.chains).entry(run_id.to_owned()).or_default())
    }
}

/// `bytes` up to and including its last newline: a journal's whole
/// records, without a torn last one.
fn whole(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    &bytes[..end]
}

/// `mutex`'s guard; a thread that panicked holding it left the value whole
/// (a chain is put back only once its record is written).
fn guard<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl FileStore {
    /// A store in `dir`, created if missing.
    ///
    /// # Errors
    /// When `dir` cannot be created.
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let dir = dir.into();
        let mut builder = fs::DirBuilder::new();
        // Windows: the directory inherits its parent's DACL (an embedder's
        // own directory, as on Unix its umask decides the rest).
        #[cfg(unix)]
        builder.mode(PRIVATE_DIR);
        #[allow(
            clippy::disallowed_methods,
            reason = "the embedder's own directory, named by its caller and beneath no root: \
                      a store in a workspace a clone or a model shapes is `FileStore::beneath`"
        )]
        builder
            .recursive(true)
            .create(&dir)
            .map_err(|source| StoreError::Io {
                path: dir.clone(),
                source,
            })?;
        Ok(FileStore {
            root: dir,
            rel: PathBuf::new(),
            seal: None,
        })
    }

    /// A store in `root/rel` (as `.io/runs` in a workspace), whose
    /// directories and journals are opened beneath `root` through no
    /// symbolic link at all ([`io_beneath`], [`Links::None`]): a
    /// clone's `.io -> /tmp/elsewhere` is refused, not followed, and so is
    /// a `.io -> data` that stays in the workspace, behind which git lists
    /// no tracked journal. The directories are made, private, at the first
    /// append.
    pub fn beneath(root: impl Into<PathBuf>, rel: impl Into<PathBuf>) -> Self {
        FileStore {
            root: root.into(),
            rel: rel.into(),
            seal: None,
        }
    }

    /// Returns this store sealing every record it writes with `key`, and
    /// refusing every record it reads that `key` did not seal there: a
    /// journal is then used only when this user's program wrote it
    /// (`io` passes the key in its data directory, [`Key::load_or_create`]).
    pub fn sealed(mut self, key: Key) -> Self {
        self.seal = Some(Seal {
            key,
            chains: Arc::default(),
        });
        self
    }

    /// The directory.
    pub fn dir(&self) -> PathBuf {
        self.root.join(&self.rel)
    }

    /// The journal of `run_id`, relative to the root given to
    /// [`beneath`](Self::beneath): what a caller asks git about.
    ///
    /// # Errors
    /// A run id that cannot name a file ([`StoreError::BadRunId`]).
    pub fn journal(&self, run_id: &str) -> Result<PathBuf, StoreError> {
        // A run id becomes a file name: nothing that could leave the directory.
        let ok = !run_id.is_empty()
            && run_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
            && !run_id.starts_with('.');
        if ok {
            Ok(self.rel.join(format!("{run_id}.jsonl")))
        } else {
            Err(StoreError::BadRunId {
                dir: self.dir(),
                run_id: run_id.to_owned(),
            })
        }
    }

    /// The first record of `run_id`'s journal, read without writing
    /// anything, from a journal that may be trusted (see [`FileStore`]) and,
    /// for a [sealed](FileStore::sealed) store, verified; `None` for a run
    /// the store has never seen, or whose first record is torn (a crash
    /// during the run's first write).
    ///
    /// # Errors
    /// An untrusted or unreadable journal, a first line that does not
    /// verify, or one that is not a record.
    pub fn begin(&self, run_id: &str) -> Result<Option<Record>, StoreError> {
        let rel = self.journal(run_id)?;
        let Some(fd) = self.trusted(&rel)? else {
            return Ok(None);
        };
        let mut first = Vec::new();
        io::BufReader::new(fd)
            .take(MAX_BEGIN)
            .read_until(b'\n', &mut first)
            .map_err(|e| self.fail(&rel, e))?;
        let line = match first.strip_suffix(b"\n") {
            Some(line) => line,
            None if (first.len() as u64) < MAX_BEGIN => return Ok(None),
            // Over the bound: not a record, as its parse says.
            None => &first,
        };
        let mut chain = self.chain(run_id);
        let record = self.record(&rel, chain.as_mut(), line, 1, 1)?;
        Ok(Some(record))
    }

    /// The run ids of the journals in the store's directory, in no order;
    /// none when the directory is missing. The directory is reached as a
    /// journal is, through no symbolic link; each name is a run id
    /// [`journal`](Self::journal) takes, followed by `.jsonl`, and anything
    /// else in the directory is left out.
    ///
    /// # Errors
    /// A directory that cannot be reached (a link, say) or read.
    pub fn runs(&self) -> Result<Vec<String>, StoreError> {
        let dir = match self.open(&self.rel, Open::read()) {
            Ok(dir) => dir,
            Err(io_beneath::Error::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Vec::new());
            }
            Err(e) => return Err(self.refused(&self.rel, e)),
        };
        let mut runs = Vec::new();
        for name in self.names(&dir)? {
            if let Some(run_id) = name.strip_suffix(".jsonl")
                && self.journal(run_id).is_ok()
            {
                runs.push(run_id.to_owned());
            }
        }
        Ok(runs)
    }

    /// What `run_id`'s journal says of its run, read without writing
    /// anything, from a journal that may be trusted (see [`FileStore`]) and,
    /// for a [sealed](FileStore::sealed) store, every record of it
    /// verified: its goal, its steps, its last ending; `None` for a run the
    /// store has never seen. A torn last record is left out, as a load
    /// drops it.
    ///
    /// # Errors
    /// An untrusted or unreadable journal, a line that does not verify, or
    /// a record that is not one.
    pub fn summary(&self, run_id: &str) -> Result<Option<RunSummary>, StoreError> {
        let rel = self.journal(run_id)?;
        let Some(mut fd) = self.trusted(&rel)? else {
            return Ok(None);
        };
        let modified = self.modified(&rel, &fd)?;
        let mut summary = RunSummary {
            run_id: run_id.to_owned(),
            goal: String::new(),
            depth: 0,
            steps: 0,
            outcome: None,
            written: crate::event::rfc3339_millis(modified),
            profile: None,
        };
        let mut bytes = Vec::new();
        fd.read_to_end(&mut bytes).map_err(|e| self.fail(&rel, e))?;
        // What follows the last newline is a torn record, as `load` says.
        let (records, _) = self.records(&rel, self.chain(run_id), whole(&bytes))?;
        for record in records {
            match record {
                Record::Begin {
                    goal,
                    depth,
                    profile,
                    ..
                } => {
                    summary.goal = goal;
                    summary.depth = depth;
                    summary.profile = profile;
                }
                Record::Step { step, .. } => {
                    summary.steps = step;
                    summary.outcome = None;
                }
                Record::End { outcome, steps, .. } => {
                    summary.steps = steps;
                    summary.outcome = Some(outcome);
                }
                Record::Reserve { .. } => {}
            }
        }
        Ok(Some(summary))
    }

    /// Re-seals `run_id`'s journal with this store's key, when it was
    /// sealed with another key or not at all (a journal copied from
    /// another machine, or written by an `io` from before journals were
    /// sealed): for the operator's explicit word that the run is theirs
    /// (`io run --resume ID --adopt-journal`). Every other check holds
    /// first: the journal is reached through no link, is this user's and
    /// writable by no one else ([`Store::lock`], held meanwhile), and each
    /// line is a record. The records are written anew, each sealed, to a
    /// file beside it that then takes its name, so a crash leaves the
    /// journal as it was or as adopted.
    ///
    /// Returns the records adopted; `None` when there was nothing to adopt:
    /// no such journal, one this key already verifies, or a store without
    /// a key.
    ///
    /// # Errors
    /// A journal whose first lines verify with this key but a later one
    /// does not ([`StoreError::Unsealed`] past line 1): this user's `io`
    /// wrote it and it was changed since, so it is not adopted. An
    /// untrusted, busy, unreadable or corrupt journal, or a failed write.
    pub fn adopt(&self, run_id: &str) -> Result<Option<Vec<Record>>, StoreError> {
        let Some(seal) = &self.seal else {
            return Ok(None);
        };
        let rel = self.journal(run_id)?;
        let _held = self.lock(run_id)?;
        let Some(bytes) = self.read(&rel)? else {
            return Ok(None);
        };
        match self.records(&rel, self.chain(run_id), whole(&bytes)) {
            Ok(_) => return Ok(None),
            Err(StoreError::Unsealed { line: 1, .. }) => {}
            Err(e) => return Err(e),
        }
        let (records, _) = self.records(&rel, None, whole(&bytes))?;
        let mut chain = seal.key.chain(run_id.as_bytes());
        let mut text = Vec::new();
        for record in &records {
            text.extend(self.sealed_line(&rel, &mut chain, record)?);
        }
        self.replace(&rel, &text)?;
        *guard(&seal.entry(run_id)) = Some(chain);
        Ok(Some(records))
    }

    /// Writes `text` to a file beside the journal `rel` and gives it the
    /// journal's name: the journal is then either as it was or `text`.
    fn replace(&self, rel: &Path, text: &[u8]) -> Result<(), StoreError> {
        let name = rel.file_name().unwrap_or_default();
        let mut temp_name = name.to_owned();
        temp_name.push(".adopting");
        let temp = rel.with_file_name(&temp_name);
        let how = Open::write()
            .create(PRIVATE_FILE)
            .truncate()
            .links(Links::None);
        let mut file = self.open(&temp, how).map_err(|e| self.refused(&temp, e))?;
        #[cfg(windows)]
        self.make_private(&temp, &file)?;
        file.write_all(text).map_err(|e| self.fail(&temp, e))?;
        file.sync_data().map_err(|e| self.fail(&temp, e))?;
        drop(file);
        self.rename(rel, &temp_name, name)
    }

    /// The journals' directory, opened: beneath the root through no link,
    /// or, for a store in a directory of the embedder's own
    /// ([`FileStore::new`]), that directory itself.
    #[cfg(unix)]
    fn dir_fd(&self) -> Result<OwnedFd, StoreError> {
        if !self.rel.as_os_str().is_empty() {
            return self
                .open(&self.rel, Open::read())
                .map(OwnedFd::from)
                .map_err(|e| self.refused(&self.rel, e));
        }
        #[allow(
            clippy::disallowed_methods,
            reason = "the embedder's own directory, named by its caller and beneath no root, as \
                      `FileStore::new` makes it"
        )]
        let dir = rustix::fs::open(
            &self.root,
            rustix::fs::OFlags::RDONLY
                | rustix::fs::OFlags::DIRECTORY
                | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        );
        dir.map_err(|e| self.fail(Path::new(""), e.into()))
    }

    /// The records of `whole`, the journal `rel`'s lines up to its last
    /// newline, each verified as the next record of `chain` when there is
    /// one: blank lines skipped, any other line that does not verify or is
    /// not a record an error naming it. Returns the chain past the last.
    fn records(
        &self,
        rel: &Path,
        mut chain: Option<Chain>,
        whole: &[u8],
    ) -> Result<(Vec<Record>, Option<Chain>), StoreError> {
        let lines: Vec<&[u8]> = whole.split(|&b| b == b'\n').collect();
        // `split` leaves an empty piece after the final newline.
        let count = lines.len().saturating_sub(1);
        let mut records = Vec::new();
        for (n, line) in lines[..count].iter().enumerate() {
            if line.trim_ascii().is_empty() {
                continue;
            }
            records.push(self.record(rel, chain.as_mut(), line, n + 1, count)?);
        }
        Ok((records, chain))
    }

    /// The record on `line` (line `n` of `lines` of the journal `rel`),
    /// verified as the next record of `chain` when there is one.
    fn record(
        &self,
        rel: &Path,
        chain: Option<&mut Chain>,
        line: &[u8],
        n: usize,
        lines: usize,
    ) -> Result<Record, StoreError> {
        let json = seal::record_of(chain, line).map_err(|fault| StoreError::Unsealed {
            path: self.root.join(rel),
            line: n,
            fault,
        })?;
        serde_json::from_slice(&json).map_err(|source| StoreError::Corrupt {
            path: self.root.join(rel),
            line: n,
            lines,
            source,
        })
    }

    /// The chain `run_id`'s journal is sealed with, at its start; `None`
    /// for a store without a key.
    fn chain(&self, run_id: &str) -> Option<Chain> {
        self.seal.as_ref().map(|s| s.key.chain(run_id.as_bytes()))
    }

    /// `record` as a line of the journal `rel`, sealed as the next record
    /// of `chain`: its JSON with its MAC, and a newline.
    fn sealed_line(
        &self,
        rel: &Path,
        chain: &mut Chain,
        record: &Record,
    ) -> Result<Vec<u8>, StoreError> {
        let encode = |source| StoreError::Encode {
            path: self.root.join(rel),
            source,
        };
        let json = serde_json::to_vec(record).map_err(encode)?;
        seal::sealed_line(chain, &json).ok_or_else(|| {
            encode(<serde_json::Error as serde::ser::Error>::custom(
                "a record must be a JSON object with a key",
            ))
        })
    }

    /// The whole of the journal `rel`; `None` when there is none.
    fn read(&self, rel: &Path) -> Result<Option<Vec<u8>>, StoreError> {
        let mut bytes = Vec::new();
        match self.open(rel, Open::read()) {
            Ok(mut file) => file
                .read_to_end(&mut bytes)
                .map_err(|e| self.fail(rel, e))?,
            Err(io_beneath::Error::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(e) => return Err(self.refused(rel, e)),
        };
        Ok(Some(bytes))
    }

    /// Opens the journal `rel` as `how` says, beneath the root through no
    /// symbolic link.
    fn open(&self, rel: &Path, how: Open) -> Result<fs::File, io_beneath::Error> {
        Ok(Root::open(&self.root)?
            .open_file(rel, &how.links(Links::None))?
            .into_file())
    }

    /// Opens the journal `rel` for reading if it exists, and checks that it
    /// may be trusted: a regular file (never blocking on a FIFO), owned by
    /// this process's user, with no group or other write bit.
    #[cfg(unix)]
    fn trusted(&self, rel: &Path) -> Result<Option<fs::File>, StoreError> {
        let fd = match self.open(rel, Open::read()) {
            Ok(file) => file,
            Err(io_beneath::Error::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(e) => return Err(self.refused(rel, e)),
        };
        let stat = rustix::fs::fstat(&fd).map_err(|e| self.fail(rel, e.into()))?;
        let me = rustix::process::geteuid().as_raw();
        let reason = if stat.st_uid != me {
            Some(format!(
                "the journal is owned by uid {}, not by you (uid {me})",
                stat.st_uid
            ))
        } else if stat.st_mode & 0o022 != 0 {
            Some(format!(
                "the journal is writable by {} (mode {:o}); `io` makes it 0600",
                if stat.st_mode & 0o002 != 0 {
                    "anyone"
                } else {
                    "its group"
                },
                stat.st_mode & 0o7777
            ))
        } else {
            None
        };
        match reason {
            Some(reason) => Err(StoreError::Untrusted {
                path: self.root.join(rel),
                reason,
            }),
            None => Ok(Some(fd)),
        }
    }

    /// Appends `line`, a whole record and its newline, to the journal
    /// `rel` in one write, and syncs it.
    fn write_line(&self, rel: &Path, line: &[u8]) -> Result<(), StoreError> {
        let how = Open::append().create(PRIVATE_FILE).dirs(PRIVATE_DIR);
        let mut file = self.open(rel, how).map_err(|e| self.refused(rel, e))?;
        // Windows: a new journal is made its owner's alone, as 0600 is.
        #[cfg(windows)]
        self.private_if_new(rel, &file)?;
        file.write_all(line).map_err(|e| self.fail(rel, e))?;
        file.sync_data().map_err(|e| self.fail(rel, e))
    }

    /// The chain of `run_id`'s journal `rel` past its last whole record,
    /// every record verified, for a store sealed with `seal`; at its start
    /// when there is no journal.
    fn chain_at_end(&self, rel: &Path, run_id: &str, seal: &Seal) -> Result<Chain, StoreError> {
        let start = seal.key.chain(run_id.as_bytes());
        match self.read(rel)? {
            Some(bytes) => {
                let (_, chain) = self.records(rel, Some(start), whole(&bytes))?;
                Ok(chain.unwrap_or_else(|| seal.key.chain(run_id.as_bytes())))
            }
            None => Ok(start),
        }
    }

    /// The error for `rel`'s journal when the system refused it.
    fn fail(&self, rel: &Path, source: io::Error) -> StoreError {
        StoreError::Io {
            path: self.root.join(rel),
            source,
        }
    }

    /// The error for `rel`'s journal when it could not be opened beneath
    /// the root.
    fn refused(&self, rel: &Path, e: io_beneath::Error) -> StoreError {
        match e {
            io_beneath::Error::Io(source) => self.fail(rel, source),
            io_beneath::Error::NotRegular { kind } => self.fail(
                rel,
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("refused: the journal is {kind}, not a regular file"),
                ),
            ),
            io_beneath::Error::Outside { .. } => StoreError::Outside {
                path: self.root.join(rel),
            },
            io_beneath::Error::Link
            | io_beneath::Error::LinkToNothing
            | io_beneath::Error::Owned { .. } => StoreError::Link {
                path: self.root.join(rel),
            },
            other => self.fail(
                rel,
                io::Error::new(io::ErrorKind::InvalidInput, format!("refused: {other}")),
            ),
        }
    }
}

impl Store for FileStore {
    fn append(&self, run_id: &str, record: &Record) -> Result<(), StoreError> {
        let rel = self.journal(run_id)?;
        let Some(seal) = &self.seal else {
            let mut line = serde_json::to_vec(record).map_err(|source| StoreError::Encode {
                path: self.root.join(&rel),
                source,
            })?;
            line.push(b'\n');
            return self.write_line(&rel, &line);
        };
        // The run's chain is taken for the write: a write that fails leaves
        // none, and the next append reads the journal to know where it is.
        let entry = seal.entry(run_id);
        let mut held = guard(&entry);
        let mut chain = match held.take() {
            Some(chain) => chain,
            None => self.chain_at_end(&rel, run_id, seal)?,
        };
        let line = self.sealed_line(&rel, &mut chain, record)?;
        self.write_line(&rel, &line)?;
        *held = Some(chain);
        Ok(())
    }

    fn load(&self, run_id: &str) -> Result<Option<Vec<Record>>, StoreError> {
        let rel = self.journal(run_id)?;
        let Some(bytes) = self.read(&rel)? else {
            return Ok(None);
        };
        // Every whole record is verified before anything is written.
        let whole = whole(&bytes);
        let (records, chain) = self.records(&rel, self.chain(run_id), whole)?;
        // Everything after the last newline is a torn record: dropped, and
        // cut off so the next append starts a whole line.
        if whole.len() < bytes.len() {
            tracing::warn!(
                "{}: dropped a torn last record ({} bytes without a newline), as a crash leaves it",
                self.root.join(&rel).display(),
                bytes.len() - whole.len()
            );
            let file = self
                .open(&rel, Open::write())
                .map_err(|e| self.refused(&rel, e))?;
            file.set_len(whole.len() as u64)
                .map_err(|source| StoreError::Truncate {
                    path: self.root.join(&rel),
                    source,
                })?;
        }
        if let Some(seal) = &self.seal {
            *guard(&seal.entry(run_id)) = chain;
        }
        Ok(Some(records))
    }

    #[cfg(windows)]
    fn lock(&self, run_id: &str) -> Result<StoreLock, StoreError> {
        self.lock_sidecar(run_id)
    }

    #[cfg(unix)]
    fn lock(&self, run_id: &str) -> Result<StoreLock, StoreError> {
        let rel = self.journal(run_id)?;
        let Some(fd) = self.trusted(&rel)? else {
            return Ok(StoreLock::default());
        };
        match rustix::fs::flock(&fd, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(StoreLock::holding(JournalLock(OwnedFd::from(fd)))),
            Err(rustix::io::Errno::WOULDBLOCK) => Err(StoreError::Busy {
                path: self.root.join(&rel),
            }),
            Err(e) => Err(self.fail(&rel, e.into())),
        }
    }
}

/// What a journal says of its run ([`FileStore::summary`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunSummary {
    /// The run's id.
    pub run_id: String,
    /// Its goal, as the run began with it.
    pub goal: String,
    /// 0 for a top-level run; a child run's journal says how deep it is.
    pub depth: u32,
    /// The steps committed.
    pub steps: u32,
    /// How it last ended; `None` when no ending follows its last step (a
    /// run still running, or one a signal, a `SIGKILL` or a crash ended).
    pub outcome: Option<Outcome>,
    /// When the journal was last written: RFC 3339, UTC, milliseconds, as
    /// an event's `at` (so that sorting the text sorts the times).
    pub written: String,
    /// The configuration profile the run was started with, which its
    /// resume must name too; `None` when none was, or the journal was
    /// begun before profiles were kept.
    pub profile: Option<String>,
}

/// What only Unix does its way: the journals' directory read and renamed
/// in through a descriptor, a journal's time from `fstat`. Windows' are in
/// `store/windows.rs`.
#[cfg(unix)]
impl FileStore {
    /// The names in the journals' directory, `dir` (opened beneath the
    /// root), each as lossy UTF-8.
    fn names(&self, dir: &fs::File) -> Result<Vec<String>, StoreError> {
        let entries =
            rustix::fs::Dir::read_from(dir).map_err(|e| self.fail(&self.rel, e.into()))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| self.fail(&self.rel, e.into()))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }

    /// When the journal `rel`, open as `fd`, was last written.
    fn modified(&self, rel: &Path, fd: &fs::File) -> Result<std::time::SystemTime, StoreError> {
        let modified = rustix::fs::fstat(fd).map_err(|e| self.fail(rel, e.into()))?;
        Ok(std::time::UNIX_EPOCH
            + std::time::Duration::new(
                u64::try_from(modified.st_mtime).unwrap_or(0),
                u32::try_from(modified.st_mtime_nsec).unwrap_or(0),
            ))
    }

    /// Gives the file `temp_name` beside the journal `rel` the journal's
    /// name, `name`, in the journals' directory opened through no link.
    fn rename(
        &self,
        rel: &Path,
        temp_name: &std::ffi::OsStr,
        name: &std::ffi::OsStr,
    ) -> Result<(), StoreError> {
        let dir = self.dir_fd()?;
        #[allow(
            clippy::disallowed_methods,
            reason = "both names are in the journals' directory, opened beneath the root through \
                      no link just above; io-beneath has no rename"
        )]
        rustix::fs::renameat(&dir, temp_name, &dir, name).map_err(|e| self.fail(rel, e.into()))?;
        // The new name lasts a crash too, where the file system syncs a
        // directory.
        let _ = rustix::fs::fsync(&dir);
        Ok(())
    }
}

#[cfg(windows)]
mod windows;

/// A journal's `flock`, released when dropped by an explicit unlock, not by
/// the close alone.
///
/// A `flock` lives on the open file description, and a child that another
/// thread is spawning holds a copy of every description of the process from
/// its fork until its exec closes it (`O_CLOEXEC`). Closing our descriptor
/// in that window would leave the lock held by the child's copy, so a
/// resume right after a run returned could be refused as
/// [`StoreError::Busy`]. `LOCK_UN` releases the lock on the description
/// itself, whoever else holds a copy of it.
#[cfg(unix)]
struct JournalLock(OwnedFd);

#[cfg(unix)]
impl Drop for JournalLock {
    fn drop(&mut self) {
        // Nothing to do on failure: the close that follows is the fallback.
        let _ = rustix::fs::flock(&self.0, rustix::fs::FlockOperation::Unlock);
    }
}

/// The most of a journal's first line [`FileStore::begin`] reads: the goal
/// and the contract, far below this.
const MAX_BEGIN: u64 = 16 * 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::StoreLock;

    /// What a `{:?}` of a run's state shows of its lock: whether it holds
    /// one, never what it holds.
    #[test]
    fn a_locks_debug_says_whether_it_holds_a_claim() {
        assert_eq!(
            format!("{:?}", StoreLock::default()),
            "StoreLock { held: false }"
        );
        assert_eq!(
            format!("{:?}", StoreLock::holding(7_u8)),
            "StoreLock { held: true }"
        );
    }
}
