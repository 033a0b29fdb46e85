//! The one decision: whether a file is the operator's, from evidence, or
//! from the operator's own word in the trust store.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::index::{self, IndexError, Tracking};
use crate::owner::{self, OthersMayWrite};
use crate::store::{Lookup, Store, StoreError};

/// Where the embedder found a file, which says what evidence counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Place {
    /// The operator's own configuration directory (io's user scope,
    /// `~/.config/io`): the operator's by where it lives, when they own it
    /// and no one else may write it.
    UserScope,
    /// A local file beside a project the operator works in (io's
    /// `io.local.toml`), which a clone or an archive may have delivered:
    /// the operator's when a git work tree holds it and no index of it
    /// lists it, they own it and no one else may write it.
    Local,
}

/// Why a file is, or is not, the operator's. `Display` gives the reason in
/// words fit to follow "because" or a colon: it names neither the file nor
/// a command, which are the embedder's words.
#[derive(Debug)]
#[non_exhaustive]
pub enum Verdict {
    /// The operator's: what it declares may act.
    Operators(Evidence),
    /// Not the operator's: what it declares must not act.
    NotOperators(Rejection),
}

/// The evidence that a file is the operator's.
#[derive(Debug)]
#[non_exhaustive]
pub enum Evidence {
    /// A [`Place::UserScope`] file the operator owns and no one else may
    /// write.
    UserScope,
    /// A [`Place::Local`] file in a git work tree that no index lists, that
    /// the operator owns and no one else may write.
    Untracked {
        /// The innermost work tree's top directory.
        work_tree: PathBuf,
    },
    /// The operator trusted this very content (the trust store says so).
    Trusted {
        /// What kept the evidence from sufficing without it.
        doubts: Vec<Doubt>,
    },
}

/// Why a file is not the operator's.
#[derive(Debug)]
#[non_exhaustive]
pub enum Rejection {
    /// A git index lists it: it came with the clone, as the project's own
    /// files do. Trust does not change that.
    Tracked {
        /// The work tree whose index lists it.
        work_tree: PathBuf,
        /// The path that index lists.
        listed: PathBuf,
    },
    /// The evidence does not suffice and the operator has not trusted this
    /// content.
    NotTrusted {
        /// What keeps the evidence from sufficing.
        doubts: Vec<Doubt>,
        /// Whether the operator trusted another content of it: the file
        /// changed since.
        changed: bool,
    },
    /// The evidence does not suffice, and there is no trust store to ask
    /// (the embedder has no data directory).
    NoStore {
        /// What keeps the evidence from sufficing.
        doubts: Vec<Doubt>,
    },
}

/// One thing that keeps the evidence from showing a file is the
/// operator's.
#[derive(Debug)]
#[non_exhaustive]
pub enum Doubt {
    /// No directory at or above the file holds a `.git`: an unpacked
    /// archive, a download, a directory someone else made.
    NoWorkTree,
    /// A git index that could hold it cannot be read.
    Index(IndexError),
    /// Someone else owns it, or may write it or a directory above it.
    OthersMayWrite(OthersMayWrite),
}

impl Verdict {
    /// Returns whether the file is the operator's.
    pub fn is_operators(&self) -> bool {
        matches!(self, Verdict::Operators(_))
    }

    /// Returns whether the operator trusted the file with another content
    /// than it has now.
    pub fn changed(&self) -> bool {
        matches!(
            self,
            Verdict::NotOperators(Rejection::NotTrusted { changed: true, .. })
        )
    }

    /// Returns whether trusting the file's content would make it the
    /// operator's: not when a git index lists it.
    pub fn trust_would_help(&self) -> bool {
        matches!(
            self,
            Verdict::NotOperators(Rejection::NotTrusted { .. } | Rejection::NoStore { .. })
        )
    }
}

impl fmt::Display for Doubt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Doubt::NoWorkTree => f.write_str("no git work tree holds it"),
            Doubt::Index(e) => write!(f, "whether git tracks it cannot be told: {e}"),
            Doubt::OthersMayWrite(w) => write!(f, "{w}"),
        }
    }
}

/// `a; b; c`.
fn doubts(f: &mut fmt::Formatter<'_>, doubts: &[Doubt]) -> fmt::Result {
    for (n, doubt) in doubts.iter().enumerate() {
        if n > 0 {
            f.write_str("; ")?;
        }
        write!(f, "{doubt}")?;
    }
    Ok(())
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Operators(Evidence::UserScope) => f.write_str(
                "it is in your own configuration directory, you own it, and no one else may \
                 write it",
            ),
            Verdict::Operators(Evidence::Untracked { work_tree }) => write!(
                f,
                "the git index of the work tree {} does not list it, you own it, and no one \
                 else may write it",
                work_tree.display()
            ),
            Verdict::Operators(Evidence::Trusted { doubts: d }) => {
                f.write_str("you trusted this content (")?;
                doubts(f, d)?;
                f.write_str(")")
            }
            Verdict::NotOperators(Rejection::Tracked { work_tree, listed }) => write!(
                f,
                "the git index of the work tree {} lists it (as `{}`), so it came with the \
                 clone",
                work_tree.display(),
                listed.display()
            ),
            Verdict::NotOperators(Rejection::NotTrusted { doubts: d, changed }) => {
                doubts(f, d)?;
                match changed {
                    true => f.write_str(", and it changed since you trusted it"),
                    false => f.write_str(", and you have not trusted it"),
                }
            }
            Verdict::NotOperators(Rejection::NoStore { doubts: d }) => {
                doubts(f, d)?;
                f.write_str(", and there is no data directory to record your trust in")
            }
        }
    }
}

/// Returns whether the file at `path`, found at `place`, holding `content`
/// (the bytes the caller read and will act on), is the operator's, with
/// the evidence or the refusal.
///
/// The rule, decided here for every embedder:
///
/// - a [`Place::UserScope`] file is the operator's when they own it and no
///   one else may write it or a directory above it ([`crate::owner`]);
/// - a [`Place::Local`] file is the operator's when it is in a git work
///   tree whose index (read by [`crate::index`], never by running `git`)
///   does not list it, and they own it and no one else may write it; an
///   index that lists it refuses it, whatever the store says;
/// - anywhere else (no work tree, another owner, writable by others, an
///   index that cannot be read) it is the operator's only when the trust
///   `store` holds its path with the hash of this very `content`. A
///   changed file is refused, and [`Verdict::changed`] says why.
///
/// The store is read only when the evidence does not suffice.
///
/// ```
/// use io_trust::{judge, Place, store::Store};
///
/// let project = tempfile::tempdir()?; // an unpacked archive: no `.git`
/// let data = tempfile::tempdir()?;
/// let file = project.path().join("app.local.toml");
/// std::fs::write(&file, "run = true\n")?;
/// let store = Store::new(data.path());
///
/// let verdict = judge(&file, b"run = true\n", Place::Local, Some(&store))?;
/// assert!(!verdict.is_operators());
/// assert_eq!(
///     verdict.to_string(),
///     "no git work tree holds it, and you have not trusted it"
/// );
///
/// store.trust(&file, b"run = true\n")?;
/// assert!(judge(&file, b"run = true\n", Place::Local, Some(&store))?.is_operators());
///
/// // Changed since: refused again, and the verdict says why.
/// let verdict = judge(&file, b"run = false\n", Place::Local, Some(&store))?;
/// assert!(verdict.changed());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`StoreError`] when the store had to be asked and cannot be read: never
/// taken for "nothing trusted".
pub fn judge(
    path: &Path,
    content: &[u8],
    place: Place,
    store: Option<&Store>,
) -> Result<Verdict, StoreError> {
    let mut found = Vec::new();
    let mut work_tree = None;
    if place == Place::Local {
        match index::tracking(path) {
            Ok(Tracking::Tracked { work_tree, listed }) => {
                return Ok(Verdict::NotOperators(Rejection::Tracked {
                    work_tree,
                    listed,
                }));
            }
            Ok(Tracking::Untracked { work_tree: top }) => work_tree = Some(top),
            Ok(Tracking::NoWorkTree) => found.push(Doubt::NoWorkTree),
            Err(e) => found.push(Doubt::Index(e)),
        }
    }
    if let Some(others) = owner::others_may_write(path) {
        found.push(Doubt::OthersMayWrite(others));
    }
    if found.is_empty() {
        return Ok(Verdict::Operators(match work_tree {
            Some(work_tree) => Evidence::Untracked { work_tree },
            None => Evidence::UserScope,
        }));
    }
    let Some(store) = store else {
        return Ok(Verdict::NotOperators(Rejection::NoStore { doubts: found }));
    };
    Ok(match store.lookup(path, content)? {
        Lookup::Trusted => Verdict::Operators(Evidence::Trusted { doubts: found }),
        Lookup::Changed { .. } => Verdict::NotOperators(Rejection::NotTrusted {
            doubts: found,
            changed: true,
        }),
        Lookup::Unknown => Verdict::NotOperators(Rejection::NotTrusted {
            doubts: found,
            changed: false,
        }),
    })
}
