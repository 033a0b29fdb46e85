//! Finding the git work trees that hold a file, their git directories and
//! their indexes, and whether any of them lists the file.

use std::io;
#[cfg(unix)]
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::index_file::as_path;
use super::{Index, IndexError, MAX_INDEX};
use crate::read;

/// The most a `.git` file or a `commondir` file is read up to: each holds
/// one path.
const MAX_POINTER: u64 = 64 * 1024;

/// A git work tree: the directory that holds a `.git`, and the git
/// directory that `.git` is or names (`gitdir: …`, as a linked worktree
/// and a submodule have it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkTree {
    dir: PathBuf,
    git_dir: PathBuf,
}

impl WorkTree {
    /// Returns the work tree whose `.git` is in `dir`; `None` when `dir`
    /// holds no `.git` at all.
    ///
    /// The git directory must be one git would take: a `HEAD`, and
    /// `objects/` and `refs/` in it (or in the common directory its
    /// `commondir` names). No environment variable (`GIT_DIR`,
    /// `GIT_INDEX_FILE`, …) and no config is read: the answer is about the
    /// files at `dir`, whoever runs the reader.
    ///
    /// # Errors
    /// [`IndexError::Repository`] for a `.git` that is there but leads to
    /// no git directory that can be read: one this user may not read, a
    /// FIFO, a socket or a device, a `gitdir:` file naming nothing, a
    /// directory without `HEAD`.
    pub fn at(dir: &Path) -> Result<Option<WorkTree>, IndexError> {
        let dot_git = dir.join(".git");
        if std::fs::symlink_metadata(&dot_git).is_err() {
            return Ok(None);
        }
        let refuse = |reason: String| IndexError::Repository {
            dot_git: dot_git.clone(),
            reason,
        };
        let unreadable = |e: &io::Error| {
            format!(
                "exists but cannot be read ({}): run the program as the user who owns the \
                 checkout, or make its `.git` readable",
                read::os_error(e)
            )
        };
        let meta = std::fs::metadata(&dot_git).map_err(|e| refuse(unreadable(&e)))?;
        let git_dir = if meta.is_dir() {
            dot_git.clone()
        } else if meta.is_file() {
            let bytes = read::read_bounded(&dot_git, MAX_POINTER)
                .map_err(|e| refuse(unreadable(&e)))?
                .ok_or_else(|| refuse("is too long to be a `gitdir:` file".to_owned()))?;
            let named = bytes
                .strip_prefix(b"gitdir: ")
                .map(trim_line)
                .filter(|p| !p.is_empty())
                .ok_or_else(|| {
                    refuse("is a file that does not start `gitdir: `, as git's do".to_owned())
                })?;
            dir.join(as_path(named))
        } else {
            return Err(refuse(
                "is neither a directory nor a file (a FIFO, a socket or a device), which no \
                 repository has: remove it"
                    .to_owned(),
            ));
        };
        check_git_dir(&git_dir).map_err(|why| match git_dir == dot_git {
            true => refuse(why),
            false => refuse(format!("names `{}`, which {why}", git_dir.display())),
        })?;
        Ok(Some(WorkTree {
            dir: dir.to_path_buf(),
            git_dir,
        }))
    }

    /// Returns the work tree's top directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Returns its git directory.
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// Returns the path of its index file.
    pub fn index_path(&self) -> PathBuf {
        self.git_dir.join("index")
    }

    /// Returns its index, read whole (at most [`MAX_INDEX`]) and checked.
    /// A git directory with no `index` file yet (nothing was ever added)
    /// lists nothing, as git reads it.
    ///
    /// # Errors
    /// [`IndexError::Read`] when it cannot be opened or read (a FIFO or a
    /// device is refused without opening it), [`IndexError::TooLarge`], and
    /// [`IndexError::Format`] for everything [`Index::parse`] refuses.
    pub fn index(&self) -> Result<Index, IndexError> {
        let path = self.index_path();
        let read_error = |cause| IndexError::Read {
            path: path.clone(),
            cause,
        };
        let opened = match read::open(&path, io_beneath::Links::Anywhere) {
            Ok(opened) => opened,
            // No index at all; a link to nothing is not that.
            Err(e)
                if e.kind() == io::ErrorKind::NotFound
                    && std::fs::symlink_metadata(&path).is_err() =>
            {
                return Ok(Index::empty());
            }
            Err(e) => return Err(read_error(e)),
        };
        let size = opened.file().metadata().map_err(read_error)?.len();
        let too_large = |size| IndexError::TooLarge {
            path: path.clone(),
            size,
        };
        if over_bound(size) {
            return Err(too_large(size));
        }
        let bytes = opened
            .read_bounded(MAX_INDEX)
            .map_err(read_error)?
            .ok_or_else(|| too_large(MAX_INDEX))?;
        Index::parse(&bytes).map_err(|problem| IndexError::Format {
            path: path.clone(),
            problem,
        })
    }
}

/// Whether an index of `size` bytes is more than is read.
fn over_bound(size: u64) -> bool {
    size > MAX_INDEX
}

/// A file's bytes without the line end git writes after a path.
fn trim_line(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

/// Whether `git_dir` is a git directory as git's own test has it (`HEAD`,
/// `objects/`, `refs/`); why not, when it is not.
fn check_git_dir(git_dir: &Path) -> Result<(), String> {
    let missing = |what: &str, e: &io::Error| match e.kind() {
        io::ErrorKind::NotFound => format!("is not a git directory: it has no {what}"),
        _ => format!(
            "exists but cannot be read ({}): run the program as the user who owns the \
             checkout, or make its `.git` readable",
            read::os_error(e)
        ),
    };
    std::fs::symlink_metadata(git_dir.join("HEAD")).map_err(|e| missing("`HEAD`", &e))?;
    let common_file = git_dir.join("commondir");
    let common = match std::fs::symlink_metadata(&common_file) {
        Ok(_) => {
            let bytes = read::read_bounded(&common_file, MAX_POINTER)
                .map_err(|e| missing("readable `commondir`", &e))?
                .ok_or_else(|| "has a `commondir` too long to be a path".to_owned())?;
            git_dir.join(as_path(trim_line(&bytes)))
        }
        Err(_) => git_dir.to_path_buf(),
    };
    for sub in ["objects", "refs"] {
        let meta = std::fs::metadata(common.join(sub)).map_err(|e| missing(sub, &e))?;
        if !meta.is_dir() {
            return Err(format!(
                "is not a git directory: its `{sub}` is not a directory"
            ));
        }
    }
    Ok(())
}

/// Whether a file is listed by the index of a work tree that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Tracking {
    /// No directory at or above the file holds a `.git`: nothing says the
    /// file came with a clone, and nothing says it did not (an unpacked
    /// archive of a repository looks like this).
    NoWorkTree,
    /// The file is in a work tree, and no index of any work tree holding it
    /// lists it.
    Untracked {
        /// The innermost work tree's top directory.
        work_tree: PathBuf,
    },
    /// An index lists the file: it came with the clone.
    Tracked {
        /// The top directory of the work tree whose index lists it.
        work_tree: PathBuf,
        /// The path that index lists (relative to `work_tree`): the file's
        /// own, in another case, a sparse directory above it, or the file a
        /// symbolic link leads to.
        listed: PathBuf,
    },
}

/// Returns whether the index of any git work tree that holds `file` lists
/// it, asked of each work tree from the innermost out (a repository made
/// inside another's work tree does not hide the enclosing index).
///
/// `file` is found by its directory's real path, so a root reached through
/// a link is the same root. A listed path counts when it is `file` by
/// name; in another case (git's `:(icase)`) when it is the same file
/// (device and inode), as on a file system that folds case; and when `file`
/// is a symbolic link, the path it leads to counts when that lies in the
/// work tree. The answer comes from the index file itself: no `git` is run,
/// so a missing or broken `git` can never read as "untracked".
///
/// ```
/// use io_trust::index::{tracking, Tracking};
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("io.local.toml"), "")?;
/// // An unpacked archive: no work tree, so no evidence either way.
/// assert_eq!(tracking(&dir.path().join("io.local.toml"))?, Tracking::NoWorkTree);
///
/// // What `git init` makes, with nothing added yet.
/// for sub in [".git/objects", ".git/refs"] {
///     std::fs::create_dir_all(dir.path().join(sub))?;
/// }
/// std::fs::write(dir.path().join(".git/HEAD"), "ref: refs/heads/main\n")?;
/// assert!(matches!(
///     tracking(&dir.path().join("io.local.toml"))?,
///     Tracking::Untracked { .. }
/// ));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`IndexError`] when a `.git` or an index on the way cannot be read and
/// no other index lists the file: never taken for "untracked".
pub fn tracking(file: &Path) -> Result<Tracking, IndexError> {
    let (parent, name) = read::split(file);
    let real_parent = std::fs::canonicalize(parent).map_err(|cause| IndexError::Resolve {
        path: parent.to_path_buf(),
        cause,
    })?;
    let file = real_parent.join(name);
    let target = std::fs::symlink_metadata(&file)
        .is_ok_and(|m| m.file_type().is_symlink())
        .then(|| std::fs::canonicalize(&file).ok())
        .flatten();
    let mut innermost = None;
    let mut failed = None;
    for dir in real_parent.ancestors() {
        let found = WorkTree::at(dir).and_then(|tree| match tree {
            Some(tree) => tree.index().map(|index| Some((tree, index))),
            None => Ok(None),
        });
        let (tree, index) = match found {
            Ok(Some(found)) => found,
            Ok(None) => continue,
            Err(e) => {
                failed.get_or_insert(e);
                continue;
            }
        };
        if let Some(listed) = listing(&index, &tree.dir, &file, target.as_deref()) {
            return Ok(Tracking::Tracked {
                work_tree: tree.dir,
                listed,
            });
        }
        innermost.get_or_insert(tree.dir);
    }
    match (failed, innermost) {
        (Some(e), _) => Err(e),
        (None, Some(work_tree)) => Ok(Tracking::Untracked { work_tree }),
        (None, None) => Ok(Tracking::NoWorkTree),
    }
}

/// The path `index` (of the work tree at `top`) lists `file` as, if any;
/// `target` is where `file` leads when it is a symbolic link.
fn listing(index: &Index, top: &Path, file: &Path, target: Option<&Path>) -> Option<PathBuf> {
    let rel = file.strip_prefix(top).ok()?;
    if index.lists(rel) {
        return Some(rel.to_path_buf());
    }
    // A sparse directory in another case counts without a look: its files
    // are not in the work tree to compare, so the answer leans to "listed".
    let same = index.listed_ignoring_case(rel).into_iter().find(|listed| {
        listed.to_str().is_some_and(|l| l.ends_with('/')) || same_file(&top.join(listed), file)
    });
    if let Some(listed) = same {
        return Some(listed.to_path_buf());
    }
    let rel = target?.strip_prefix(top).ok()?;
    (index.lists(rel) && same_file(&top.join(rel), file)).then(|| rel.to_path_buf())
}

/// Whether `a` and `b` lead to the same file (device and inode).
#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// Whether `a` and `b` lead to the same file: on Windows, whether their
/// real paths (`GetFinalPathNameByHandle`, in the case the file system
/// keeps) are the same.
#[cfg(windows)]
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_of_the_bound_is_read_and_one_byte_more_is_not() {
        assert!(!over_bound(0));
        assert!(!over_bound(MAX_INDEX));
        assert!(over_bound(MAX_INDEX + 1));
    }

    #[test]
    fn a_line_end_git_writes_is_taken_off_once() {
        assert_eq!(trim_line(b"a\r\n"), b"a");
        assert_eq!(trim_line(b"a\n"), b"a");
        assert_eq!(trim_line(b"a\r"), b"a");
        assert_eq!(trim_line(b"a\n\n"), b"a\n");
        assert_eq!(trim_line(b"a"), b"a");
    }
}
