//! The `append` action's system calls on Windows (issue 47), beside the
//! Unix ones in [`super::log`].
//!
//! - A log's identity is its volume serial number and file index, read from
//!   its handle (cap-fs-ext's `MetadataExt`: std's `file_index` is
//!   unstable), as Unix's is its device and inode.
//! - A path outside the root is opened with `FILE_FLAG_OPEN_REPARSE_POINT`,
//!   so a reparse point as its last name (a symbolic link, a junction) is
//!   opened as itself, never followed, and refused as
//!   `ERROR_STOPPED_ON_SYMLINK`, which io-beneath returns for one beneath
//!   the root: Windows' `ELOOP`, given the same message.
//! - Appends of other processes are kept from tearing a line by a lock on
//!   a sidecar file, `<log>.lock` beside the log (fs4): Windows' locks are
//!   mandatory, so the log itself is never locked (a reader such as
//!   `tail` would be refused), and the lock is held only around the one
//!   write of a line (and the first look at the log's last byte).

use std::fs::File;
use std::io::{self, Write};
use std::os::windows::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::time::{Duration, Instant};

use cap_fs_ext::MetadataExt;

/// `ERROR_STOPPED_ON_SYMLINK`: what an open that follows no reparse point
/// says of one (io-beneath's, and ours for a path outside the root).
const STOPPED_ON_SYMLINK: i32 = 681;

/// `FILE_FLAG_OPEN_REPARSE_POINT`: a reparse point is opened as itself.
const OPEN_REPARSE_POINT: u32 = 0x0020_0000;

/// `FILE_ATTRIBUTE_REPARSE_POINT`.
const REPARSE_POINT: u32 = 0x0400;

/// `ERROR_FILE_NOT_FOUND`, `ERROR_PATH_NOT_FOUND` and
/// `ERROR_DIRECTORY` (a name on the way is a file).
const MISSING: [i32; 3] = [2, 3, 267];

/// What an open of a log looks at: its identity, whether it is a regular
/// file, and its size.
pub(super) fn look(file: &File) -> io::Result<((u64, u64), bool, u64)> {
    let meta = cap_std::fs::Metadata::from_file(file)?;
    Ok(((meta.dev(), meta.ino()), meta.is_file(), meta.len()))
}

/// Whether `e` says a reparse point was the last name of a path opened
/// without following one.
pub(super) fn is_loop(e: &io::Error) -> bool {
    e.raw_os_error() == Some(STOPPED_ON_SYMLINK)
}

/// Whether `e` says a directory on a path is missing (or a file).
pub(super) fn is_missing(e: &io::Error) -> bool {
    e.raw_os_error().is_some_and(|code| MISSING.contains(&code))
}

/// Opens `path`, outside the hooks' root, as written (appending and
/// creating it, or reading): a reparse point as its last name is opened as
/// itself and refused.
pub(super) fn open_as_written(path: &Path, write: bool) -> io::Result<File> {
    let mut how = std::fs::OpenOptions::new();
    match write {
        true => how.append(true).create(true),
        false => how.read(true),
    };
    open_no_reparse(path, &mut how)
}

/// Opens the sidecar `path`, outside the hooks' root, for writing (never
/// written; a handle to lock) and creating it, as [`open_as_written`] opens
/// a log.
pub(super) fn open_lock_as_written(path: &Path) -> io::Result<File> {
    open_no_reparse(path, std::fs::OpenOptions::new().write(true).create(true))
}

/// Opens `path` as `how` says, a reparse point as its last name opened as
/// itself and refused.
fn open_no_reparse(path: &Path, how: &mut std::fs::OpenOptions) -> io::Result<File> {
    #[allow(
        clippy::disallowed_methods,
        reason = "a path outside the hooks' root is the operator's own, opened as written; \
                  io-beneath resolves names beneath a root, and this one has none"
    )]
    let file = how.custom_flags(OPEN_REPARSE_POINT).open(path)?;
    let attributes = std::os::windows::fs::MetadataExt::file_attributes(&file.metadata()?);
    if attributes & REPARSE_POINT != 0 {
        return Err(io::Error::from_raw_os_error(STOPPED_ON_SYMLINK));
    }
    Ok(file)
}

/// The byte of `file` at `offset`.
pub(super) fn byte_at(file: &File, offset: u64) -> io::Result<Option<u8>> {
    let mut byte = [0u8];
    Ok((file.seek_read(&mut byte, offset)? == 1).then_some(byte[0]))
}

/// The size of `file` now.
pub(super) fn size(file: &File) -> io::Result<u64> {
    Ok(file.metadata()?.len())
}

/// Ends the fragment a short write left at the end of `file`: a newline
/// appended after it. The sidecar lock is held across the write and this,
/// so no other writer's line lies between the fragment and the newline.
/// (A handle opened for appending alone cannot write in place, as Unix's
/// `pwrite` does.)
pub(super) fn unglue(mut file: &File) -> bool {
    file.write_all(b"\n").is_ok()
}

/// How long an append waits for another process to release the sidecar's
/// lock before it fails: a process that holds it for ever (a hung writer,
/// or one that means harm) costs each event this, never the run.
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The lock of other processes' appends to a log: its sidecar `<log>.lock`,
/// as `sidecar` opened it (the log's own way, beneath the root or as
/// written, never following a reparse point), locked until dropped. Tried
/// at growing intervals (1 ms to 16 ms) for [`LOCK_WAIT`], never waited on
/// without a bound.
///
/// # Errors
/// The sidecar's open, a lock that fails, or one still held by another
/// process after [`LOCK_WAIT`], each naming the sidecar.
pub(super) fn lock(sidecar: io::Result<File>, name: &Path) -> io::Result<Locked> {
    let about = |e: &dyn std::fmt::Display| {
        io::Error::other(format!("its lock file `{}`: {e}", name.display()))
    };
    let file = sidecar.map_err(|e| about(&crate::message::os_error(&e)))?;
    let deadline = Instant::now() + LOCK_WAIT;
    let mut nap = Duration::from_millis(1);
    loop {
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => return Ok(Locked(file)),
            Err(fs4::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(16));
            }
            Err(fs4::TryLockError::WouldBlock) => {
                return Err(about(&format_args!(
                    "another process has held its lock for {} s",
                    LOCK_WAIT.as_secs()
                )));
            }
            Err(fs4::TryLockError::Error(e)) => return Err(about(&crate::message::os_error(&e))),
        }
    }
}

/// A sidecar file held locked until dropped (closing the handle releases
/// the lock).
#[derive(Debug)]
pub(super) struct Locked(#[allow(dead_code, reason = "held for its lock")] File);
