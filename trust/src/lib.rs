//! Whose file is this? Evidence that a file is the operator's, decided in
//! one place, and a key that proves a record was written by this user's
//! program.
//!
//! A program that reads a local config file from a directory a cloned
//! repository shapes, or resumes from a journal kept in such a directory,
//! must never infer ownership from a missing tool or an absent signal. This
//! crate answers from evidence only:
//!
//! - where a file lives, who owns it and who else may write it (mode bits
//!   and POSIX ACLs both);
//! - whether a git work tree's index lists it, read from the index itself
//!   (no `git` process, so a missing or broken `git` never reads as
//!   "untracked");
//! - where there is no such evidence, whether the operator trusted this
//!   very content (a store of paths and content hashes in the operator's
//!   data directory);
//! - for a journal: a keyed MAC with a key only this user's program holds.
#![forbid(unsafe_code)]

mod key;

pub use key::{Chain, KEY_FILE, Key, KeyError, Mismatch, Refusal, Tag};
