//! The `append` action: one JSON line per event, one `write` per line.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use rustix::fs::OFlags;
use rustix::io::Errno;

use super::HookFailure;
use super::problem::ProblemKind;

/// Serialises every append in the process, whichever `Hooks` and whichever
/// file: a tree of runs emits from many threads at once, and no reader may
/// see half of one event followed by half of another. (A single `write` with
/// `O_APPEND` already keeps lines whole on a local file system; the lock
/// also covers file systems where it does not.)
static APPEND: Mutex<()> = Mutex::new(());

/// Opens `path` for appending, creating it with mode 0600 when it is
/// missing: an audit log carries goals and tool arguments.
///
/// The path is relative to the discovery root, which is usually a cloned
/// repository, so what sits there is not the operator's choice: a committed
/// `audit.jsonl -> ~/.bashrc` must not turn an audit log into a write to the
/// operator's shell profile, and a FIFO must not stall the run in `open`
/// waiting for a reader. So the last component is never followed if it is a
/// symbolic link (`O_NOFOLLOW`) and the open never waits (`O_NONBLOCK`,
/// which changes nothing for a regular file). Both are flags on the one
/// `open`, free on the per-event path; that the file is a regular one is
/// checked when the hooks are built ([`create`]), where an extra `fstat`
/// costs nothing that matters.
fn open(path: &Path) -> io::Result<File> {
    let flags = OFlags::NOFOLLOW | OFlags::NONBLOCK;
    OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(flags.bits() as i32)
        .open(path)
        .map_err(|e| match Errno::from_io_error(&e) {
            Some(Errno::LOOP) => io::Error::other(
                "it is a symbolic link, which an append hook never follows; name the file itself",
            ),
            _ => e,
        })
}

/// Creates the file, empty, when the hooks are built and [`check`] found
/// nothing wrong, and ends a torn last line ([`end_torn_line`]); what still
/// goes wrong is the one problem returned. A torn line that cannot be ended
/// is warned about (`number` is the hook's, from 1) and is no problem: each
/// append still works.
pub(crate) fn create(number: usize, path: &Path) -> Option<ProblemKind> {
    match open(path) {
        Err(e) => Some(ProblemKind::AppendCannotCreate {
            path: path.to_path_buf(),
            reason: super::OsMessage(&e).to_string(),
        }),
        // Raced into something else since `check` looked.
        Ok(file) if file.metadata().is_ok_and(|meta| !meta.is_file()) => {
            Some(ProblemKind::AppendNotRegular {
                path: path.to_path_buf(),
            })
        }
        Ok(file) => {
            if let Err(e) = end_torn_line(&file, path) {
                #[cfg(not(feature = "tracing"))]
                let _ = (number, e);
                #[cfg(feature = "tracing")]
                tracing::warn!(
                    hook = number,
                    path = %path.display(),
                    "hook[{number}]: `{}` ends with a partial line that could not be ended: {}",
                    path.display(),
                    super::OsMessage(&e)
                );
            }
            None
        }
    }
}

/// Ends the last line of a log that was cut short (a host killed in the
/// middle of a write, a full disk before this build) with a newline, so the
/// next event starts on a line of its own. A file whose last byte is a
/// newline, an empty one, and one that is not a regular file are left as
/// they are.
fn end_torn_line(mut file: &File, path: &Path) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() == 0 {
        return Ok(());
    }
    let mut last = [0u8];
    reader(file, path)?.read_exact_at(&mut last, meta.len() - 1)?;
    if last[0] != b'\n' {
        file.write_all(b"\n")?;
    }
    Ok(())
}

/// After a write that put only `fragment`, the start of a line, at the end
/// of `file`: leaves the file so that the next event starts on a line of
/// its own. When the file still ends with the fragment (nothing else wrote
/// after it), it is cut back off, and the file is as it was before the
/// event; otherwise (a FIFO, another process's line after ours) the
/// fragment is ended with a newline. Best effort: what fails here is left
/// for the next build of the hooks to repair ([`create`]).
///
/// Only ever reached on a short write, so the append's one `write` per
/// event stays its only cost.
#[cold]
fn unglue(mut file: &File, path: &Path, fragment: &[u8]) {
    use std::os::unix::fs::FileExt;
    if fragment.is_empty() {
        return;
    }
    if let Ok(meta) = file.metadata()
        && meta.is_file()
        && let Some(start) = meta.len().checked_sub(fragment.len() as u64)
        && let Ok(reader) = reader(file, path)
    {
        let mut tail = vec![0u8; fragment.len()];
        if reader.read_exact_at(&mut tail, start).is_ok()
            && tail == fragment
            && file.set_len(start).is_ok()
        {
            return;
        }
    }
    let _ = file.write_all(b"\n");
}

/// The file `file` has open (for appending only), opened again for reading:
/// the same `path`, refused unless it is still the same file.
fn reader(file: &File, path: &Path) -> io::Result<File> {
    use std::os::unix::fs::MetadataExt;
    let flags = OFlags::NOFOLLOW | OFlags::NONBLOCK;
    let reader = OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)?;
    let (a, b) = (file.metadata()?, reader.metadata()?);
    if (a.dev(), a.ino()) != (b.dev(), b.ino()) {
        return Err(io::Error::other("the file was replaced"));
    }
    Ok(reader)
}

/// Appends `line` (which ends with its newline): open, exactly one `write`,
/// close. A write cut short is a failure, and leaves no partial line for the
/// next event to be glued to ([`unglue`]).
pub(crate) fn append(path: &Path, line: &[u8]) -> Result<(), HookFailure> {
    let failed = |source| HookFailure::Append {
        path: path.to_path_buf(),
        source,
    };
    // The lock guards no data, so a panic elsewhere cannot leave it
    // inconsistent: a poisoned lock is as good as a clean one.
    let _serialised = APPEND.lock().unwrap_or_else(PoisonError::into_inner);
    let mut file = open(path).map_err(failed)?;
    loop {
        match file.write(line) {
            Ok(n) if n == line.len() => return Ok(()),
            Ok(written) => {
                unglue(&file, path, &line[..written]);
                return Err(HookFailure::ShortWrite {
                    path: path.to_path_buf(),
                    written,
                    len: line.len(),
                });
            }
            // Nothing was written, so trying again is still one write.
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(failed(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rustix::fs::{CWD, FileType, Mode, mknodat};

    use super::super::run::test_watchdog::{ReleaseFifo, within};
    use super::*;

    /// `reader` opens the log again by its name, to cut a torn write back
    /// off or read the last byte at build time, and the name may have been
    /// swapped since the log was opened. A symbolic link there is refused
    /// as the first open refuses one, even a link to the log itself; a FIFO
    /// is refused at once, not waited on for a writer that never comes.
    #[test]
    fn the_re_open_follows_no_link_and_never_waits() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.jsonl");
        let file = open(&log).unwrap();
        assert!(reader(&file, &log).is_ok(), "the log itself");

        let moved = dir.path().join("moved.jsonl");
        std::fs::rename(&log, &moved).unwrap();
        std::os::unix::fs::symlink(&moved, &log).unwrap();
        let err = reader(&file, &log).unwrap_err();
        assert_eq!(Errno::from_io_error(&err), Some(Errno::LOOP), "{err}");

        std::fs::remove_file(&log).unwrap();
        mknodat(CWD, &log, FileType::Fifo, Mode::from_raw_mode(0o600), 0).unwrap();
        // Should the open wait for a writer, the watchdog fails the test and
        // this gives it one, so its thread goes on.
        let _release = ReleaseFifo {
            path: log.clone(),
            for_writing: true,
        };
        let path = log.clone();
        let got = within(Duration::from_secs(10), "re-opening a FIFO", move || {
            reader(&file, &path).map(drop)
        });
        let err = got.unwrap_err();
        assert_eq!(err.to_string(), "the file was replaced");
    }

    /// `create` opens what `check` found to be a regular file; should it have
    /// been swapped for something else since (here a device, which opens
    /// without blocking), `create` refuses it by itself.
    #[test]
    fn create_refuses_what_is_not_a_regular_file_whatever_check_saw() {
        let device = Path::new("/dev/null");
        assert!(
            matches!(create(1, device), Some(ProblemKind::AppendNotRegular { path }) if path == device)
        );
    }
}
