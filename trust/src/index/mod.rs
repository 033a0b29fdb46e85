//! Whether a git work tree's index lists a file, read from the index file
//! itself: no `git` process, so a missing or broken `git` never reads as
//! "untracked".
//!
//! The reader is this crate's own (see docs/decisions.md for why not
//! `gix-index`): versions 2, 3 and 4 of git's index format (version 4's
//! prefix-compressed paths too), the trailing checksum verified (SHA-1, or
//! SHA-256 for a SHA-256 repository) before any entry is believed, a
//! sparse index's directory entries standing for everything under them.
//! It fails closed: a split index, a checksum that does not match or was
//! skipped, an unknown version or required extension, a count the bytes
//! cannot hold, a file over [`MAX_INDEX`] or one that cannot be read is an
//! [`IndexError`] naming the file and the reason, never "not listed".
//!
//! [`tracking`] is the question a caller asks; [`WorkTree`] and [`Index`]
//! are its parts, for a caller with other questions.

mod index_error;
mod index_file;
mod work_tree;

pub use index_error::{IndexError, IndexProblem};
pub use index_file::{Index, ObjectFormat};
pub use work_tree::{Tracking, WorkTree, tracking};

/// The largest index file read, in bytes: 256 MiB. The largest public
/// repositories' indexes are a few tens of MiB; a bigger file is refused
/// (an [`IndexError::TooLarge`]) rather than read into memory.
pub const MAX_INDEX: u64 = 256 * 1024 * 1024;
