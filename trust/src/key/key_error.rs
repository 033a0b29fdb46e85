//! Why a key could not be had: [`KeyError`], and the judgements of its
//! file and directory that refuse one ([`Refusal`]).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Why a directory or a file may not hold this user's key: the key would
/// then be one others could know or replace, and a record it sealed would
/// prove nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The key's directory is another user's, who could replace the key.
    DirNotYours {
        /// Its owner's uid.
        owner: u32,
        /// The effective uid of this process.
        user: u32,
    },
    /// Others may write in the key's directory (a group or other write
    /// bit, or an ACL's mask that allows it), so they could replace the
    /// key.
    DirWritable {
        /// Its permission bits.
        mode: u32,
    },
    /// The key file is a symbolic link: it is read from a regular file
    /// only.
    Link,
    /// The key file is not a regular file (a directory, a FIFO, a device).
    NotAFile,
    /// The key file is another user's.
    NotYours {
        /// Its owner's uid.
        owner: u32,
        /// The effective uid of this process.
        user: u32,
    },
    /// Others may read or write the key file (a group or other bit, or an
    /// ACL's mask that allows it), so the key may be known to them.
    Exposed {
        /// Its permission bits.
        mode: u32,
    },
    /// The key file does not hold exactly [`Tag::LEN`](super::Tag::LEN)
    /// bytes: a key is written whole before it takes its name, so this is
    /// not one.
    Size {
        /// How many bytes it holds (at least; a file is read one byte past
        /// a key's length).
        len: u64,
    },
}

/// What a new key costs: said in every fix that removes one.
const REMADE: &str = "a new key is made at the next use, and what the old one sealed no longer \
                      verifies";

impl Refusal {
    /// What is wrong, then what to do, as a sentence.
    fn says(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Refusal::DirNotYours { owner, user } => write!(
                f,
                "the key's directory is owned by uid {owner}, not by you (uid {user}), who could \
                 replace the key; name a directory of your own"
            ),
            Refusal::DirWritable { mode } => write!(
                f,
                "{} may write in the key's directory (mode {mode:o}), and could replace the key; \
                 take their write permission away (chmod go-w), or name a directory of your own",
                whom(mode & 0o022)
            ),
            Refusal::Link => write!(
                f,
                "the key file is a symbolic link, and a key is read from a regular file only; \
                 remove the link ({REMADE}), or put the file it leads to in its place"
            ),
            Refusal::NotAFile => write!(
                f,
                "the key file is not a regular file; remove it ({REMADE})"
            ),
            Refusal::NotYours { owner, user } => write!(
                f,
                "the key file is owned by uid {owner}, not by you (uid {user}); remove it \
                 ({REMADE}), or, if it is yours, give it to yourself (chown)"
            ),
            Refusal::Exposed { mode } => write!(
                f,
                "{} may {} the key file (mode {mode:o}), so its key may be known to them and \
                 proves nothing; remove it ({REMADE}), or, if no one else can have read it, make \
                 it yours alone (chmod 600)",
                whom(mode & 0o077),
                match (mode & 0o044 != 0, mode & 0o022 != 0) {
                    (true, true) => "read and write",
                    (true, false) => "read",
                    (false, true) => "write",
                    (false, false) => "execute",
                }
            ),
            Refusal::Size { len } => write!(
                f,
                "the key file holds {len} bytes, and a key is exactly {}: a key is written whole \
                 before the file takes its name, so this is not one; remove it ({REMADE})",
                super::Tag::LEN
            ),
        }
    }
}

/// Who the group and other bits of `mode` (any of rwx) name.
fn whom(mode: u32) -> &'static str {
    match (mode & 0o070 != 0, mode & 0o007 != 0) {
        (true, true) => "its group and others",
        (true, false) => "its group",
        _ => "others",
    }
}

/// A key could not be had: read, made or trusted.
///
/// `Display` names the file or directory first, then what is wrong and
/// the fix; `source()` returns nothing (the cause is in the text).
#[derive(Debug)]
#[non_exhaustive]
pub enum KeyError {
    /// The directory or the file may not hold this user's key; nothing was
    /// read from it, and nothing replaced it.
    Refused {
        /// The key's directory or file.
        path: PathBuf,
        /// Why.
        refusal: Refusal,
    },
    /// Someone else may write the key's directory or one above it, by the
    /// rule [`owner::others_may_write_dir`](crate::owner::others_may_write_dir)
    /// keeps for every file this crate judges (ACLs and every directory on
    /// the way included), so they could replace the key.
    Exposed {
        /// The key's directory.
        path: PathBuf,
        /// Who else may write, and where.
        why: crate::owner::OthersMayWrite,
    },
    /// The key file is not this user's alone (Windows): another owns it,
    /// or its DACL lets someone besides this user, SYSTEM and the
    /// Administrators group read or change it, so the key may be known to
    /// them; it is not read.
    #[cfg(windows)]
    NotPrivate {
        /// The key file.
        path: PathBuf,
        /// Who else, and how.
        why: String,
    },
    /// The system refused an operation on the key's directory or file, or
    /// gave no random bytes.
    Io {
        /// The key's directory or file.
        path: PathBuf,
        /// What was being done, as "open the key file".
        doing: &'static str,
        /// The system's error.
        cause: io::Error,
    },
}

impl KeyError {
    /// A refusal of `path`.
    pub(super) fn refused(path: &Path, refusal: Refusal) -> Self {
        KeyError::Refused {
            path: path.to_path_buf(),
            refusal,
        }
    }

    /// A failure of the system while `doing` something to `path`.
    pub(super) fn io(path: &Path, doing: &'static str, cause: io::Error) -> Self {
        KeyError::Io {
            path: path.to_path_buf(),
            doing,
            cause,
        }
    }

    /// Returns the directory or file concerned.
    pub fn path(&self) -> &Path {
        match self {
            KeyError::Refused { path, .. }
            | KeyError::Exposed { path, .. }
            | KeyError::Io { path, .. } => path,
            #[cfg(windows)]
            KeyError::NotPrivate { path, .. } => path,
        }
    }
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.path().display())?;
        match self {
            KeyError::Refused { refusal, .. } => {
                f.write_str("refused: ")?;
                refusal.says(f)
            }
            KeyError::Exposed { why, .. } => write!(
                f,
                "refused: {why}, and could replace the key; take that write permission away, \
                 or name a directory of your own"
            ),
            #[cfg(windows)]
            KeyError::NotPrivate { why, .. } => write!(
                f,
                "refused: {why}, so its key may be known to them and proves nothing; remove it \
                 ({REMADE})"
            ),
            KeyError::Io { doing, cause, .. } => {
                write!(f, "cannot {doing}: {}", os_message(cause))
            }
        }
    }
}

impl std::error::Error for KeyError {}

/// `e` as an operator reads it: "Permission denied", without std's " (os
/// error 13)" (the engine's `text::os_error`, which this crate, below the
/// engine, cannot borrow).
fn os_message(e: &io::Error) -> String {
    let text = e.to_string();
    match e.raw_os_error() {
        Some(code) => match text.strip_suffix(&format!(" (os error {code})")) {
            Some(short) => short.to_owned(),
            None => text,
        },
        None => text,
    }
}
