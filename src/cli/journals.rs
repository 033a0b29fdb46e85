//! Where `io` keeps its run journals and the key that seals them: what
//! `io run` writes, `io runs` lists and a shell's completion of
//! `--resume` reads.

use std::path::Path;

use io_harness::Config;
use io_harness::run::{FileStore, Key};

/// The store `io run` keeps its journals in, `.io/runs` beneath `root`,
/// each record sealed and verified with `key`: what `io runs` lists.
pub(crate) fn store(root: &Path, key: Key) -> FileStore {
    FileStore::beneath(root, Path::new(".io").join("runs")).sealed(key)
}

/// The key that seals this user's journals: [`io_harness::run::Key`]'s
/// file in the data directory ([`Config::data_dir`]), made on first use.
///
/// # Errors
/// No data directory, or a key file or directory that may not be
/// trusted (the message says why and what to do).
pub(crate) fn journal_key() -> Result<Key, String> {
    let dir = Config::data_dir().ok_or_else(|| {
        "no data directory for the key that seals run journals: set IO_DATA_HOME (or \
         XDG_DATA_HOME, or HOME) to an absolute path"
            .to_owned()
    })?;
    Key::load_or_create(&dir).map_err(|e| e.to_string())
}
