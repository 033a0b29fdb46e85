//! [`IndexError`]: why a git index could not be read, and
//! [`IndexProblem`]: what is wrong inside an index file.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::read::os_error;

/// Why whether a git index lists a file could not be told. Never read as
/// "not listed": a caller refuses the file, or asks the operator.
///
/// `Display` names the file and the reason, as one clause fit to follow
/// "because"; `source()` is none (the cause is in the text).
#[derive(Debug)]
#[non_exhaustive]
pub enum IndexError {
    /// A directory's real path could not be resolved, so which work trees
    /// hold it could not be told.
    Resolve {
        /// The path.
        path: PathBuf,
        /// Why.
        cause: io::Error,
    },
    /// A `.git` was found that does not lead to a git directory `io-trust`
    /// can read.
    Repository {
        /// The `.git` found.
        dot_git: PathBuf,
        /// What is wrong, and the fix.
        reason: String,
    },
    /// The index file could not be opened or read.
    Read {
        /// The index file.
        path: PathBuf,
        /// Why.
        cause: io::Error,
    },
    /// The index file is larger than [`MAX_INDEX`](super::MAX_INDEX).
    TooLarge {
        /// The index file.
        path: PathBuf,
        /// Its size in bytes, or the bound when it was found growing past it.
        size: u64,
    },
    /// The index file's bytes are not an index this reader can trust.
    Format {
        /// The index file.
        path: PathBuf,
        /// What is wrong with it.
        problem: IndexProblem,
    },
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexError::Resolve { path, cause } => write!(
                f,
                "`{}` cannot be resolved to its real path: {}",
                path.display(),
                os_error(cause)
            ),
            IndexError::Repository { dot_git, reason } => {
                write!(f, "`{}` {reason}", dot_git.display())
            }
            IndexError::Read { path, cause } => write!(
                f,
                "the git index `{}` cannot be read: {}",
                path.display(),
                os_error(cause)
            ),
            IndexError::TooLarge { path, size } => write!(
                f,
                "the git index `{}` holds {size} bytes, more than the {} MiB it is read up to",
                path.display(),
                super::MAX_INDEX / (1024 * 1024)
            ),
            IndexError::Format { path, problem } => {
                write!(f, "the git index `{}` {problem}", path.display())
            }
        }
    }
}

impl std::error::Error for IndexError {}

/// What is wrong inside an index file: each a reason the reader refuses
/// it rather than guess at what it lists.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum IndexProblem {
    /// It does not start with `DIRC`.
    Signature,
    /// Its version is not 2, 3 or 4.
    Version(u32),
    /// Its trailing checksum (SHA-1 or SHA-256) does not match its bytes.
    Checksum,
    /// Its trailing checksum is all zeros: written with `index.skipHash`
    /// (which `feature.manyFiles` sets), so nothing says it is whole.
    ChecksumSkipped,
    /// It ends before its header, an entry or an extension does.
    Truncated,
    /// It counts more entries than its bytes could hold.
    Count(u32),
    /// An entry is not as the format says: at which byte, and what.
    Entry {
        /// The entry's first byte in the file.
        at: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// It is split (`core.splitIndex`): its `link` extension names a
    /// shared index whose entries it does not hold.
    Split,
    /// It carries a required extension (its signature not upper-case)
    /// this reader does not know, which git's format says may change what
    /// the entries mean.
    Extension([u8; 4]),
}

impl fmt::Display for IndexProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexProblem::Signature => f.write_str("is not a git index (no `DIRC` signature)"),
            IndexProblem::Version(v) => write!(
                f,
                "has version {v}; the versions read are 2, 3 and 4 (`git update-index \
                 --index-version 4` rewrites it)"
            ),
            IndexProblem::Checksum => {
                f.write_str("does not match its checksum: it is damaged, or was cut short")
            }
            IndexProblem::ChecksumSkipped => f.write_str(
                "has no checksum (written with `index.skipHash`, which `feature.manyFiles` \
                 sets), so nothing says it is whole",
            ),
            IndexProblem::Truncated => f.write_str("ends in the middle of its content"),
            IndexProblem::Count(n) => {
                write!(f, "counts {n} entries, more than its bytes could hold")
            }
            IndexProblem::Entry { at, what } => write!(f, "has an entry at byte {at} that {what}"),
            IndexProblem::Split => f.write_str(
                "is split (`core.splitIndex`), and a split index is not read: `git \
                 update-index --no-split-index` joins it",
            ),
            IndexProblem::Extension(sig) => write!(
                f,
                "has a required extension `{}` that is not understood",
                sig.escape_ascii()
            ),
        }
    }
}
