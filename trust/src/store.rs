//! The trust store: the files the operator trusted, each by its path and
//! the SHA-256 of the content they trusted, kept in a data directory the
//! embedder names (io's is `$IO_DATA_HOME`, else `$XDG_DATA_HOME/io`, else
//! `~/.local/share/io`).
//!
//! One text file, [`Store::FILE_NAME`], read whole and bounded
//! ([`MAX_STORE`]):
//!
//! ```text
//! io-trust store, version 1
//! 5f0c…e1a2  /home/me/src/app/io.local.toml
//! ```
//!
//! The first line names the format. Each line after it is one record: the
//! content's SHA-256 in 64 lower-case hexadecimal digits, two spaces, and
//! the file's absolute path, its directory's real path (links resolved) and
//! its name, with `%`, control characters and DEL written `%XX`. A path is
//! recorded once; trusting it again replaces its hash.
//!
//! It is the operator's word, so it is read only when it is theirs: the
//! store file and every directory above it must be writable by no one else
//! ([`crate::owner`]). Anything else in it (a line that does not parse, a
//! second header, a relative path) is a [`StoreError`] naming the file and
//! the line: a store that cannot be read is never "nothing trusted" in
//! silence, nor "everything".
//!
//! It is written whole and atomically: a temporary file beside it (0600),
//! synced, then renamed over it, under an exclusive lock (`flock` on a
//! `.lock` file beside it) so that two programs trusting at once lose
//! neither record; the directory is made 0700.
//!
//! On Windows (issue 47): paths are recorded as Windows spells them (the
//! directory's real path is a `\\?\C:\…` one), written in UTF-8 (a path
//! that is not Unicode cannot be trusted, and says so); the lock is fs4's
//! `LockFileEx` on the same sidecar `.lock` file (Windows locks are
//! mandatory, so the store itself is never locked: a reader is never
//! refused); a directory the store makes is given a DACL of one entry, the
//! user's, that what is made in it inherits; std's rename replaces the
//! store as `rename(2)` does.

#[cfg(unix)]
use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io::{self, Write};
#[cfg(unix)]
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use io_beneath::{Links, Open, Root};
use sha2::Digest;

use crate::owner::{self, OthersMayWrite};
use crate::read::{self, os_error};

/// The largest store read, in bytes: 4 MiB, some 40,000 records.
pub const MAX_STORE: u64 = 4 * 1024 * 1024;

/// The store's first line, which names its format.
const HEADER: &str = "io-trust store, version 1";

/// How a file is made writable by its owner alone, said in a fix.
#[cfg(unix)]
const WRITABLE_BY_YOU: &str = "`chmod go-w`";
/// How a file is made writable by its owner alone, said in a fix:
/// Windows has no mode bits, so the others' entries leave its DACL.
#[cfg(windows)]
const WRITABLE_BY_YOU: &str = "remove the others' entries from its DACL, and from the \
                               directory's above it: Properties, Security, or `icacls`";

/// How long a writer waits for another to finish with the store.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// The SHA-256 of a file's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ContentHash(pub [u8; 32]);

impl ContentHash {
    /// Returns the SHA-256 of `content`.
    pub fn of(content: &[u8]) -> ContentHash {
        ContentHash(sha2::Sha256::digest(content).into())
    }

    /// Returns the hash 64 lower-case hexadecimal digits spell; `None` for
    /// anything else.
    pub fn from_hex(hex: &str) -> Option<ContentHash> {
        let digit = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        let bytes = hex.as_bytes();
        if bytes.len() != 64 {
            return None;
        }
        let mut hash = [0u8; 32];
        for (byte, pair) in hash.iter_mut().zip(bytes.chunks_exact(2)) {
            *byte = digit(pair[0])? << 4 | digit(pair[1])?;
        }
        Some(ContentHash(hash))
    }
}

impl fmt::Display for ContentHash {
    /// The 64 lower-case hexadecimal digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// One record: a file the operator trusted, and the content they trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trusted {
    /// The file: its directory's real path, and its name.
    pub path: PathBuf,
    /// The SHA-256 of the content trusted.
    pub hash: ContentHash,
}

/// What the store says of a file with a given content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lookup {
    /// Trusted with this very content.
    Trusted,
    /// Trusted, but with another content: the file changed since.
    Changed {
        /// The hash that was trusted.
        trusted: ContentHash,
    },
    /// Never trusted (or untrusted since).
    Unknown,
}

/// The trust store in a data directory.
///
/// ```
/// use io_trust::store::{Lookup, Store};
///
/// let data = tempfile::tempdir()?;
/// let project = tempfile::tempdir()?;
/// let file = project.path().join("io.local.toml");
/// std::fs::write(&file, "[[hook]]\n")?;
///
/// let store = Store::new(data.path());
/// assert_eq!(store.lookup(&file, b"[[hook]]\n")?, Lookup::Unknown);
/// store.trust(&file, b"[[hook]]\n")?;
/// assert_eq!(store.lookup(&file, b"[[hook]]\n")?, Lookup::Trusted);
/// assert!(matches!(store.lookup(&file, b"changed")?, Lookup::Changed { .. }));
/// assert_eq!(store.list()?.len(), 1);
/// assert!(store.untrust(&file)?.is_some());
/// assert!(store.list()?.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store file's name in the data directory.
    pub const FILE_NAME: &'static str = "trusted-files";

    /// Returns the store kept in the data directory `dir` (made, 0700,
    /// when something is first trusted).
    pub fn new(dir: impl Into<PathBuf>) -> Store {
        Store { dir: dir.into() }
    }

    /// Returns the data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Returns the store file's path.
    pub fn file(&self) -> PathBuf {
        self.dir.join(Self::FILE_NAME)
    }

    /// Returns every record, in the order written (by path); none when
    /// there is no store yet.
    ///
    /// # Errors
    /// [`StoreError`]: the store may be written by others, cannot be read,
    /// is too large, or holds a line that does not parse.
    pub fn list(&self) -> Result<Vec<Trusted>, StoreError> {
        self.read()
    }

    /// Returns whether the file at `path` is trusted with `content`.
    ///
    /// # Errors
    /// As [`list`](Self::list), and [`StoreError::Resolve`] when `path`'s
    /// directory cannot be resolved.
    pub fn lookup(&self, path: &Path, content: &[u8]) -> Result<Lookup, StoreError> {
        let path = key(path)?;
        let hash = ContentHash::of(content);
        Ok(match self.read()?.into_iter().find(|r| r.path == path) {
            Some(record) if record.hash == hash => Lookup::Trusted,
            Some(record) => Lookup::Changed {
                trusted: record.hash,
            },
            None => Lookup::Unknown,
        })
    }

    /// Records the file at `path` as trusted with `content` (replacing what
    /// was trusted of it before), and returns the record.
    ///
    /// # Errors
    /// As [`lookup`](Self::lookup), and when the store cannot be written or
    /// another writer holds it past 10 seconds.
    pub fn trust(&self, path: &Path, content: &[u8]) -> Result<Trusted, StoreError> {
        let record = Trusted {
            path: key(path)?,
            hash: ContentHash::of(content),
        };
        self.change(|records| {
            records.retain(|r| r.path != record.path);
            records.push(record.clone());
            records.sort_by(|a, b| a.path.cmp(&b.path));
            true
        })?;
        Ok(record)
    }

    /// Removes the record of the file at `path`, and returns it; `None`
    /// when it was not trusted.
    ///
    /// # Errors
    /// As [`trust`](Self::trust).
    pub fn untrust(&self, path: &Path) -> Result<Option<Trusted>, StoreError> {
        let path = key(path)?;
        if !self.read()?.iter().any(|r| r.path == path) {
            return Ok(None);
        }
        let mut removed = None;
        self.change(|records| {
            let at = records.iter().position(|r| r.path == path);
            removed = at.map(|at| records.remove(at));
            removed.is_some()
        })?;
        Ok(removed)
    }

    /// The records, checked: none when there is no store.
    fn read(&self) -> Result<Vec<Trusted>, StoreError> {
        let file = self.file();
        let exposed = |why| StoreError::Exposed {
            file: file.clone(),
            why,
        };
        match fs::symlink_metadata(&file) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if fs::symlink_metadata(&self.dir).is_ok()
                    && let Some(why) = owner::others_may_write_dir(&self.dir)
                {
                    return Err(exposed(why));
                }
                return Ok(Vec::new());
            }
            Err(cause) => return Err(StoreError::Io { path: file, cause }),
        }
        if let Some(why) = owner::others_may_write(&file) {
            return Err(exposed(why));
        }
        let bytes = read::open(&file, Links::None)
            .and_then(|opened| opened.read_bounded(MAX_STORE))
            .map_err(|cause| StoreError::Io {
                path: file.clone(),
                cause,
            })?
            .ok_or(StoreError::TooLarge {
                file: file.clone(),
                limit: MAX_STORE,
            })?;
        parse(&bytes).map_err(|(line, what)| StoreError::Malformed { file, line, what })
    }

    /// Reads, changes (`edit` says whether it changed anything) and writes
    /// the records back, under the store's lock.
    fn change(&self, edit: impl FnOnce(&mut Vec<Trusted>) -> bool) -> Result<(), StoreError> {
        let io_error = |path: &Path| {
            let path = path.to_path_buf();
            move |cause| StoreError::Io { path, cause }
        };
        make_dir(&self.dir).map_err(io_error(&self.dir))?;
        if let Some(why) = owner::others_may_write_dir(&self.dir) {
            return Err(StoreError::Exposed {
                file: self.file(),
                why,
            });
        }
        let root = Root::open(&self.dir).map_err(io_error(&self.dir))?;
        let _lock = self.lock(&root, LOCK_WAIT)?;
        let mut records = self.read()?;
        if !edit(&mut records) {
            return Ok(());
        }
        let mut text = format!("{HEADER}\n").into_bytes();
        for record in &records {
            text.extend_from_slice(format!("{}  ", record.hash).as_bytes());
            let path = path_bytes(&record.path).map_err(io_error(&record.path))?;
            text.extend_from_slice(&escape(&path));
            text.push(b'\n');
        }
        let temporary = format!("{}.tmp", Self::FILE_NAME);
        let write = Open::write().create(0o600).truncate().links(Links::None);
        let tmp_path = self.dir.join(&temporary);
        let written = root
            .open_file(&temporary, &write)
            .map_err(beneath_error)
            .and_then(|opened| {
                let mut file = opened.into_file();
                // A temporary file left by a crash keeps its old mode.
                #[cfg(unix)]
                rustix::fs::fchmod(&file, rustix::fs::Mode::from_raw_mode(0o600))?;
                file.write_all(&text)?;
                file.sync_all()
            });
        written.map_err(io_error(&tmp_path))?;
        #[allow(
            clippy::disallowed_methods,
            reason = "the operator's own data directory, just judged writable by no one else, \
                      and io-beneath has no rename"
        )]
        let renamed = fs::rename(&tmp_path, self.file());
        renamed.map_err(io_error(&self.file()))
    }

    /// The store's lock, held until the returned file is dropped: an
    /// exclusive `flock` on `trusted-files.lock`, waited for at most `wait`
    /// ([`LOCK_WAIT`]).
    fn lock(&self, root: &Root, wait: Duration) -> Result<fs::File, StoreError> {
        let name = format!("{}.lock", Self::FILE_NAME);
        let path = self.dir.join(&name);
        let how = Open::write().create(0o600).links(Links::None);
        let file = root
            .open_file(&name, &how)
            .map_err(beneath_error)
            .map_err(|cause| StoreError::Io {
                path: path.clone(),
                cause,
            })?
            .into_file();
        let deadline = Instant::now() + wait;
        loop {
            match try_lock(&file) {
                Ok(true) => return Ok(file),
                Ok(false) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Ok(false) => return Err(StoreError::Busy { lock: path }),
                Err(cause) => return Err(StoreError::Io { path, cause }),
            }
        }
    }
}

/// Takes the exclusive lock on the open lock file `file` if no one holds
/// it: `true` when taken, `false` when another holds it.
#[cfg(unix)]
fn try_lock(file: &fs::File) -> io::Result<bool> {
    use rustix::fs::FlockOperation;
    match rustix::fs::flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Takes the exclusive lock on the open lock file `file` if no one holds
/// it (`LockFileEx`, through fs4): `true` when taken, `false` when another
/// holds it.
#[cfg(windows)]
fn try_lock(file: &fs::File) -> io::Result<bool> {
    match fs4::FileExt::try_lock(file) {
        Ok(()) => Ok(true),
        Err(fs4::TryLockError::WouldBlock) => Ok(false),
        Err(fs4::TryLockError::Error(e)) => Err(e),
    }
}

/// The bytes a record writes for `path`: its own on Unix, its UTF-8 on
/// Windows, where a path that is not Unicode cannot be recorded.
#[cfg(unix)]
#[allow(
    clippy::unnecessary_wraps,
    reason = "fails on Windows, for a path that is not Unicode"
)]
fn path_bytes(path: &Path) -> io::Result<Vec<u8>> {
    Ok(path.as_os_str().as_bytes().to_vec())
}

/// The bytes a record writes for `path`: its own on Unix, its UTF-8 on
/// Windows, where a path that is not Unicode cannot be recorded.
#[cfg(windows)]
fn path_bytes(path: &Path) -> io::Result<Vec<u8>> {
    match path.to_str() {
        Some(text) => Ok(text.as_bytes().to_vec()),
        None => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is not Unicode, and the store records Unicode paths only on Windows",
                path.display()
            ),
        )),
    }
}

/// The absolute path a record's bytes name; `None` for one that is not
/// absolute or holds a NUL (or, on Windows, is not UTF-8).
#[cfg(unix)]
fn path_of(bytes: &[u8]) -> Option<PathBuf> {
    (bytes.starts_with(b"/") && !bytes.contains(&0))
        .then(|| Path::new(OsStr::from_bytes(bytes)).to_path_buf())
}

/// The absolute path a record's bytes name; `None` for one that is not
/// absolute or holds a NUL (or, on Windows, is not UTF-8).
#[cfg(windows)]
fn path_of(bytes: &[u8]) -> Option<PathBuf> {
    let text = std::str::from_utf8(bytes).ok()?;
    let path = Path::new(text);
    (path.is_absolute() && !bytes.contains(&0)).then(|| path.to_path_buf())
}

/// Makes the data directory `dir` and those above it that are missing,
/// 0700.
#[cfg(unix)]
fn make_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    #[allow(
        clippy::disallowed_methods,
        reason = "the operator's data directory, named by the embedder from the environment, \
                  not a path a clone shapes; judged writable by no one else before any use"
    )]
    let made = fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir);
    made
}

/// Makes the data directory `dir` and those above it that are missing;
/// `dir`, when made here, is given a DACL of one entry (the user's full
/// control) that what is made in it inherits, as 0700 on Unix.
#[cfg(windows)]
fn make_dir(dir: &Path) -> io::Result<()> {
    owner::make_private_dir(dir)
}

fn beneath_error(e: io_beneath::Error) -> io::Error {
    match e {
        io_beneath::Error::Io(e) => e,
        other => io::Error::new(io::ErrorKind::InvalidInput, other.to_string()),
    }
}

/// The path a record names for `path`: its directory's real path and its
/// name, so a root reached through a link is the same record.
fn key(path: &Path) -> Result<PathBuf, StoreError> {
    let resolve = |cause| StoreError::Resolve {
        path: path.to_path_buf(),
        cause,
    };
    if path.file_name().is_none() {
        return Err(resolve(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it names no file",
        )));
    }
    let (dir, name) = read::split(path);
    Ok(fs::canonicalize(dir).map_err(resolve)?.join(name))
}

/// The records in a store's bytes, or the line (from 1) that does not
/// parse and why.
fn parse(bytes: &[u8]) -> Result<Vec<Trusted>, (usize, &'static str)> {
    let Some(body) = bytes.strip_suffix(b"\n") else {
        return match bytes.is_empty() {
            true => Ok(Vec::new()),
            false => Err((bytes.split(|&b| b == b'\n').count(), "is not ended")),
        };
    };
    let mut lines = body.split(|&b| b == b'\n');
    if lines.next() != Some(HEADER.as_bytes()) {
        return Err((1, "is not the store's header (`io-trust store, version 1`)"));
    }
    let mut records = Vec::new();
    for (n, line) in lines.enumerate() {
        let bad = |what| (n + 2, what);
        let (hash, path) = line
            .split_at_checked(64)
            .ok_or(bad("is shorter than a hash"))?;
        let hash = std::str::from_utf8(hash)
            .ok()
            .and_then(ContentHash::from_hex)
            .ok_or(bad("does not start with a SHA-256 in hexadecimal"))?;
        let path = path
            .strip_prefix(b"  ")
            .ok_or(bad("has no two spaces after its hash"))?;
        let path = unescape(path).ok_or(bad("has a `%` that is not `%XX`"))?;
        let path = path_of(&path).ok_or(bad("does not name an absolute path"))?;
        if records.iter().any(|r: &Trusted| r.path == path) {
            return Err(bad("names a file an earlier line names"));
        }
        records.push(Trusted { path, hash });
    }
    Ok(records)
}

/// `bytes` with `%`, control characters and DEL written `%XX`.
fn escape(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        if b == b'%' || b < 0x20 || b == 0x7f {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        } else {
            out.push(b);
        }
    }
    out
}

/// [`escape`] undone; `None` for a `%` without two hexadecimal digits.
fn unescape(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = tail
                .get(..2)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            rest = &tail[2..];
        } else {
            out.push(b);
            rest = tail;
        }
    }
    Some(out)
}

/// Why the trust store could not be read or written. Each names the store
/// file (or the path in question) and the fix.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// The store, or a directory above it, may be written by someone else:
    /// it is not read, since anyone who may write it may trust anything.
    Exposed {
        /// The store file.
        file: PathBuf,
        /// Who else may write it, and where.
        why: OthersMayWrite,
    },
    /// A file of the store could not be read, made or written.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        cause: io::Error,
    },
    /// The store is larger than [`MAX_STORE`].
    TooLarge {
        /// The store file.
        file: PathBuf,
        /// The bound, in bytes.
        limit: u64,
    },
    /// A line of the store does not parse.
    Malformed {
        /// The store file.
        file: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        what: &'static str,
    },
    /// The directory of a file to trust, untrust or look up cannot be
    /// resolved to its real path.
    Resolve {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: io::Error,
    },
    /// Another program held the store's lock for longer than it is waited
    /// for.
    Busy {
        /// The lock file.
        lock: PathBuf,
    },
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Exposed { file, why } => write!(
                f,
                "the trust store {} is not read: {why}, and whoever may write it may trust \
                 anything; make it writable by you alone ({WRITABLE_BY_YOU})",
                file.display()
            ),
            StoreError::Io { path, cause } => write!(
                f,
                "the trust store's {} cannot be used: {}",
                path.display(),
                os_error(cause)
            ),
            StoreError::TooLarge { file, limit } => write!(
                f,
                "the trust store {} is larger than {} MiB, the most it may hold, so it is not \
                 read; remove it to start again with nothing trusted",
                file.display(),
                limit / (1024 * 1024)
            ),
            StoreError::Malformed { file, line, what } => write!(
                f,
                "the trust store {} is not read: line {line} {what}; remove that line, or the \
                 file to start again with nothing trusted",
                file.display()
            ),
            StoreError::Resolve { path, cause } => write!(
                f,
                "{}: its directory cannot be resolved to its real path: {}",
                path.display(),
                os_error(cause)
            ),
            StoreError::Busy { lock } => write!(
                f,
                "the trust store is being changed by another program (it holds {} past {} \
                 seconds); try again",
                lock.display(),
                LOCK_WAIT.as_secs()
            ),
        }
    }
}

impl std::error::Error for StoreError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_that_holds_the_lock_past_the_wait_makes_the_store_busy() {
        let data = tempfile::tempdir().unwrap();
        let store = Store::new(data.path());
        let root = Root::open(data.path()).unwrap();
        let held = store.lock(&root, Duration::ZERO).unwrap();
        let started = Instant::now();
        let e = store.lock(&root, Duration::from_millis(60)).unwrap_err();
        assert!(started.elapsed() >= Duration::from_millis(60));
        assert!(
            matches!(&e, StoreError::Busy { lock } if *lock == data.path().join("trusted-files.lock")),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            format!(
                "the trust store is being changed by another program (it holds {} past 10 \
                 seconds); try again",
                data.path().join("trusted-files.lock").display()
            )
        );
        drop(held);
        assert!(store.lock(&root, Duration::ZERO).is_ok());
    }

    #[test]
    #[cfg(unix)]
    fn a_path_is_recorded_by_its_directorys_real_path_relative_or_not() {
        let here = fs::canonicalize(".").unwrap();
        assert_eq!(key(Path::new("x.toml")).unwrap(), here.join("x.toml"));
        assert_eq!(key(Path::new("./x.toml")).unwrap(), here.join("x.toml"));
        let e = key(Path::new("/")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/: its directory cannot be resolved to its real path: it names no file"
        );
        let e = key(Path::new("/no/such/dir/x")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/no/such/dir/x: its directory cannot be resolved"),
            "{e}"
        );
        let e = StoreError::Io {
            path: PathBuf::from("/d/trusted-files"),
            cause: io::Error::from(io::ErrorKind::PermissionDenied),
        };
        assert_eq!(
            e.to_string(),
            "the trust store's /d/trusted-files cannot be used: permission denied"
        );
    }

    #[test]
    fn escaping_is_undone_exactly() {
        let bytes: Vec<u8> = (0..=255).collect();
        let escaped = escape(&bytes);
        assert!(!escaped.iter().any(|&b| b < 0x20 || b == 0x7f));
        assert_eq!(unescape(&escaped), Some(bytes));
        assert_eq!(escape(b"a%\n\x1f \x7f~"), b"a%25%0A%1F %7F~".to_vec());
        assert_eq!(unescape(b"%"), None);
        assert_eq!(unescape(b"%2"), None);
        assert_eq!(unescape(b"%+1"), None);
        assert_eq!(unescape(b"%e9x"), Some(vec![0xe9, b'x']));
    }
}
