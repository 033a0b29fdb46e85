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
//!
//! The decision is [`judge`]; [`index`], [`owner`] and [`store`] are its
//! parts, public for a caller with other questions. The whole flow, for an
//! embedder's own local file in an unpacked archive:
//!
//! ```
//! use io_trust::{judge, Place, Verdict, store::Store};
//!
//! let project = tempfile::tempdir()?; // no `.git`: nothing says whose it is
//! let data = tempfile::tempdir()?;    // the embedder's data directory
//! let file = project.path().join("app.local.toml");
//! let content = b"[[hook]]\nrun = [\"notify\"]\n";
//! std::fs::write(&file, content)?;
//! let store = Store::new(data.path());
//!
//! match judge(&file, content, Place::Local, Some(&store))? {
//!     Verdict::Operators(_) => unreachable!("no evidence, no trust yet"),
//!     refused => eprintln!("app: {} is not loaded: {refused}; run `app trust`", file.display()),
//! }
//! // `app trust`, once the operator read the file:
//! store.trust(&file, content)?;
//! assert!(judge(&file, content, Place::Local, Some(&store))?.is_operators());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

mod decision;
pub mod index;
mod key;
pub mod owner;
mod read;
pub mod store;

pub use decision::{Doubt, Evidence, Place, Rejection, Verdict, judge};
pub use key::{Chain, KEY_FILE, Key, KeyError, Mismatch, Refusal, Tag};
