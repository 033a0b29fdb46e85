//! A key only this user's program holds, and the MAC it puts on each
//! record a program writes ([`Key`], [`Chain`], [`Tag`]): the key's file in
//! `file.rs` (`file_windows.rs`; what both need in `fresh.rs`), the chain
//! in `chain.rs`, their errors in `key_error.rs`.

mod chain;
#[cfg(unix)]
mod file;
#[cfg(windows)]
#[path = "file_windows.rs"]
mod file;
mod fresh;
mod key_error;
#[cfg(all(test, unix))]
mod tests;
#[cfg(all(test, windows))]
mod tests_windows;

use std::fmt;
use std::path::Path;

pub use chain::{Chain, Mismatch, Tag};
pub use key_error::{KeyError, Refusal};

/// The name of the key's file in the directory given to
/// [`Key::load_or_create`].
pub const KEY_FILE: &str = "records.key";

/// A secret key only this user's program holds: the MAC key of every
/// [`Chain`] it seals or verifies, so that a record the program reads back
/// is one it wrote. Its `Debug` shows nothing of it.
///
/// A program that keeps records where others can write (a journal in a
/// directory a cloned repository shapes) and acts on them later must know
/// they are its own. Ownership and mode bits say who wrote a file last,
/// not who composed it: a clone can ship a journal, and a file copied from
/// another machine is the copier's. A keyed MAC says it: the key is 32
/// random bytes in the user's data directory that no one else may read,
/// and every record carries a tag only that key makes.
///
/// The key is made on first use ([`Key::load_or_create`]): 32 bytes from
/// the operating system's generator, in a file [`KEY_FILE`], 0600, in a
/// directory of the embedder's naming (made 0700), written whole before it
/// takes its name, so that two processes making it at once agree on one.
/// An existing key file that others may read or write, that is not this
/// user's or not a regular file, or that is not exactly 32 bytes, is an
/// error saying what to do ([`KeyError`]), never replaced.
///
/// Records are sealed as a chain ([`Chain`]): the first tag covers the
/// sequence's id, each next one the tag before it and the record. A record
/// verifies only in the sequence it was written for, after the very records
/// it followed; a prefix of a sealed sequence verifies, as a crash leaves
/// one.
///
/// ```
/// use io_trust::{Key, Tag};
///
/// # if cfg!(windows) && std::env::var_os("IO_UNDER_WINE").is_some() {
/// #     eprintln!("skipped under wine: a key file there is readable by Everyone (its Unix mode)");
/// #     return Ok(());
/// # }
/// let data = tempfile::tempdir()?;
/// let key = Key::load_or_create(data.path())?;
///
/// // A writer seals each record in order and writes its tag beside it.
/// let records: [&[u8]; 3] = [b"begin", b"step 1", b"end"];
/// let mut seal = key.chain(b"run-42");
/// let tags: Vec<Tag> = records.iter().map(|r| seal.seal(r)).collect();
/// let written: Vec<String> = tags.iter().map(|t| t.to_string()).collect();
///
/// // A reader verifies each record, in order, before it uses it; the key is
/// // read back from the same file.
/// let key = Key::load_or_create(data.path())?;
/// let mut check = key.chain(b"run-42");
/// for (record, tag) in records.iter().zip(&written) {
///     let tag = Tag::from_hex(tag).expect("a tag as written");
///     check.verify(record, &tag)?;
/// }
///
/// // Out of order, in another sequence, or changed, a record does not verify.
/// let tag = |i: usize| Tag::from_hex(&written[i]).expect("a tag");
/// assert!(key.chain(b"run-42").verify(records[1], &tag(1)).is_err());
/// assert!(key.chain(b"run-7").verify(records[0], &tag(0)).is_err());
/// assert!(key.chain(b"run-42").verify(b"begin!", &tag(0)).is_err());
/// // Another key (another user, another machine) makes other tags.
/// let theirs = Key::from_bytes([7; 32]);
/// assert_eq!(theirs.chain(b"run-42").verify(records[0], &tag(0)).unwrap_err().record(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Key {
    mac: chain::Keyed,
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Key { .. }")
    }
}

impl Key {
    /// Returns the key in `dir`'s [`KEY_FILE`], making it when there is
    /// none: `dir` (and the directories above it that are missing) 0700, the
    /// key 32 random bytes from the operating system, its file 0600, made
    /// exclusively and given its name only once whole, so that two
    /// processes making it at once both return the one that took the name.
    ///
    /// `dir` is the embedder's own data directory (`io` passes
    /// `$IO_DATA_HOME`, `$XDG_DATA_HOME/io` or `~/.local/share/io`); a link
    /// to it is followed, a link as the key file is refused.
    ///
    /// # Errors
    /// [`KeyError::Refused`] when `dir` is another user's or others may
    /// write in it, or when the key file is a link, not a regular file,
    /// another user's, readable or writable by others, or not exactly 32
    /// bytes: nothing is read from it and nothing replaces it, and the
    /// message says what to do. [`KeyError::Io`] when the system refuses an
    /// operation or gives no random bytes.
    pub fn load_or_create(dir: impl AsRef<Path>) -> Result<Key, KeyError> {
        file::load_or_create(dir.as_ref()).map(Key::from_bytes)
    }

    /// Returns the key in `dir`'s [`KEY_FILE`] when there is one, judged as
    /// [`Key::load_or_create`] judges it, and `None` when `dir` or the file
    /// does not exist: for a reader that must write nothing (a shell's
    /// completion, which offers no journal when no key was ever made,
    /// rather than make one).
    ///
    /// ```
    /// use io_trust::Key;
    ///
    /// # if cfg!(windows) && std::env::var_os("IO_UNDER_WINE").is_some() {
    /// #     eprintln!("skipped under wine: a key file there is readable by Everyone (its Unix mode)");
    /// #     return Ok(());
    /// # }
    /// let data = tempfile::tempdir()?;
    /// assert!(Key::load(data.path())?.is_none());
    /// assert!(std::fs::read_dir(data.path())?.next().is_none(), "nothing made");
    /// Key::load_or_create(data.path())?;
    /// assert!(Key::load(data.path())?.is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Key::load_or_create`], for a directory or key file that is
    /// there but may not be trusted, or that the system refuses to read.
    pub fn load(dir: impl AsRef<Path>) -> Result<Option<Key>, KeyError> {
        Ok(file::load(dir.as_ref())?.map(Key::from_bytes))
    }

    /// Returns the key whose bytes are `bytes`: for a program that keeps
    /// its key elsewhere (a keyring), and for tests.
    pub fn from_bytes(bytes: [u8; Tag::LEN]) -> Key {
        Key {
            mac: chain::keyed(&bytes),
        }
    }

    /// Returns the chain of the sequence of records named `id` (a journal's
    /// run id), at its start: the chain a writer seals that sequence's
    /// records with, and a reader verifies them with.
    pub fn chain(&self, id: &[u8]) -> Chain {
        Chain::new(&self.mac, id)
    }
}
