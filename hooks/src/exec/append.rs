//! The `append` action: one JSON line per event, one `write` per line.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use super::HookFailure;

/// Serialises every append in the process, whichever `Hooks` and whichever
/// file: a tree of runs emits from many threads at once, and no reader may
/// see half of one event followed by half of another. (A single `write` with
/// `O_APPEND` already keeps lines whole on a local file system; the lock
/// also covers file systems where it does not.)
static APPEND: Mutex<()> = Mutex::new(());

/// Opens `path` for appending, creating it with mode 0600 when it is
/// missing: an audit log carries goals and tool arguments.
fn open(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(path)
}

/// Creates the file, empty, when the hooks are built; warns when it cannot.
/// `number` is the hook's, counted from 1 as `hook[N]` is everywhere.
pub(super) fn create(number: usize, path: &Path) {
    if let Err(e) = open(path) {
        tracing::warn!(
            hook = number,
            path = %path.display(),
            "hook[{number}]: could not create `{}`: {}; each append will fail until it can",
            path.display(),
            super::OsMessage(&e)
        );
    }
}

/// Appends `line` (which ends with its newline): open, exactly one `write`,
/// close.
pub(super) fn append(path: &Path, line: &[u8]) -> Result<(), HookFailure> {
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
