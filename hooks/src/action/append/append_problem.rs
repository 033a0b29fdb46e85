//! What building the hooks finds wrong with an `append` hook's file
//! ([`AppendProblem`]), in words for an operator, with what to do about it.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use io_beneath::Way;

/// The key that chooses the action, which its problems name.
pub(crate) const KEY: &str = "append";
use crate::action::shell::{not_expanded_hint, write_not_expanded};
use crate::paste::{MAKE_DIRS, command_on};

/// Something that will make an `append` hook fail each time it fires, found
/// when the hooks were built, in the words a [`Problem`](crate::Problem) says.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum AppendProblem {
    /// The path is a directory.
    IsDirectory {
        /// The path.
        path: PathBuf,
    },
    /// The path is a symbolic link, which an append never follows.
    IsSymlink {
        /// The path.
        path: PathBuf,
    },
    /// The path exists and is not a regular file (a FIFO, a socket, a
    /// device).
    NotRegular {
        /// The path.
        path: PathBuf,
    },
    /// The directory the file would be created in does not exist.
    NoParent {
        /// The path.
        path: PathBuf,
        /// Its missing directory.
        parent: PathBuf,
    },
    /// The path is under the hooks' root and leads out of it: through
    /// `..`, or a directory that is a symbolic link to somewhere outside (a
    /// clone's `logs -> ~/.bashrc.d`).
    LeavesRoot {
        /// The path.
        path: PathBuf,
        /// The link, as written under the root, when one was found.
        through: Option<String>,
    },
    /// The path reaches the embedder's own state under the hooks' root (a
    /// name it gave [`io_beneath::Root::own`], as io's `.io`): by its name,
    /// through `..` or through a symbolic link (a clone's `logs ->
    /// .io/runs`).
    Owned {
        /// The path.
        path: PathBuf,
        /// The owned name it reaches.
        name: OsString,
        /// How it reaches it.
        way: Way,
    },
    /// The file could not be created for another reason.
    CannotCreate {
        /// The path.
        path: PathBuf,
        /// The system's reason, as an operator reads it.
        cause: String,
    },
    /// The path holds a `~`, `$NAME` or `${NAME}` that a shell would
    /// expand, which a hook takes literally because there is no shell.
    NotExpanded {
        /// The part of the path the operator wrote.
        text: String,
    },
    /// Windows: the sidecar `<log>.lock` every append to the log takes its
    /// lock on is in the way: a directory, a symbolic link or not a
    /// regular file (a clone's committed `audit.jsonl.lock/`), so every
    /// append would fail.
    #[cfg(windows)]
    LockInTheWay {
        /// The log.
        path: PathBuf,
        /// Its sidecar.
        lock: PathBuf,
        /// What the sidecar is: `a directory`, `a symbolic link`, `not a
        /// regular file`.
        is: &'static str,
    },
    /// The path was resolved against another root when its table was read
    /// ([`TomlFile::hooks`](crate::TomlFile::hooks),
    /// [`HookTables::into_specs`](crate::HookTables::into_specs)) than the
    /// one the hooks were built with ([`Hooks::new`](crate::Hooks::new)):
    /// the embedder gave two roots, and the file is not the one the
    /// operator meant. Nothing is created for it.
    OtherRoot {
        /// The path, as resolved when the table was read.
        path: PathBuf,
        /// The root the table was read with.
        read_with: PathBuf,
        /// The hooks' root, made absolute.
        root: PathBuf,
    },
}

impl AppendProblem {
    /// What the operator can do about it (see [`Problem::hint`](crate::Problem::hint)).
    pub(crate) fn hint(&self) -> Option<String> {
        Some(match self {
            AppendProblem::IsDirectory { .. } => {
                "name a file, as in `append = \"logs/audit.jsonl\"`".to_owned()
            }
            AppendProblem::IsSymlink { .. } => "name the file the link points to".to_owned(),
            AppendProblem::NotRegular { .. } => "name a regular file".to_owned(),
            AppendProblem::NoParent { parent, .. } => {
                format!("create it: {}", command_on(MAKE_DIRS, parent))
            }
            AppendProblem::LeavesRoot { .. } => leaves_root_hint(),
            AppendProblem::Owned { name, way, .. } => owned_hint(Path::new(name), way),
            AppendProblem::CannotCreate { .. } => return None,
            AppendProblem::NotExpanded { .. } => not_expanded_hint(),
            AppendProblem::OtherRoot { .. } => {
                "read the file and build the hooks with the same root".to_owned()
            }
            #[cfg(windows)]
            AppendProblem::LockInTheWay { .. } => {
                "move the lock path away, or name another log".to_owned()
            }
        })
    }

    /// What the operator can do about it, none in the kernel's trees
    /// ([`Problem::hint`](crate::Problem::hint)).
    pub(crate) fn operator_hint(&self) -> Option<String> {
        crate::action::problem_kind::hint(self.path(), self.hint())
    }

    /// The file the problem is about, when it is about one.
    pub(crate) fn path(&self) -> Option<&Path> {
        match self {
            AppendProblem::NotExpanded { .. } => None,
            AppendProblem::IsDirectory { path }
            | AppendProblem::IsSymlink { path }
            | AppendProblem::NotRegular { path }
            | AppendProblem::NoParent { path, .. }
            | AppendProblem::LeavesRoot { path, .. }
            | AppendProblem::Owned { path, .. }
            | AppendProblem::CannotCreate { path, .. }
            | AppendProblem::OtherRoot { path, .. } => Some(path),
            #[cfg(windows)]
            AppendProblem::LockInTheWay { lock, .. } => Some(lock),
        }
    }
}

impl fmt::Display for AppendProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppendProblem::IsDirectory { path } => {
                write!(f, "append: `{}` is a directory", path.display())
            }
            AppendProblem::IsSymlink { path } => write!(
                f,
                "append: `{}` is a symbolic link, which an append hook never follows",
                path.display()
            ),
            AppendProblem::NotRegular { path } => {
                write!(f, "append: `{}` is not a regular file", path.display())
            }
            AppendProblem::NoParent { path, parent } => write!(
                f,
                "append: `{}` cannot be created: there is no directory `{}`",
                path.display(),
                parent.display()
            ),
            AppendProblem::LeavesRoot { path, through } => leaves_root(f, path, through),
            AppendProblem::Owned { path, name, way } => {
                let refusal = io_beneath::Error::Owned {
                    name: name.clone(),
                    way: way.clone(),
                };
                write!(f, "append: `{}` is refused: {refusal}", path.display())
            }
            AppendProblem::CannotCreate { path, cause } => {
                write!(f, "append: `{}` cannot be created: {cause}", path.display())
            }
            AppendProblem::NotExpanded { text } => write_not_expanded(f, KEY, text),
            AppendProblem::OtherRoot {
                path,
                read_with,
                root,
            } => write!(
                f,
                "append: `{}` was resolved against `{}` when its file was read, and the \
                 hooks' root is `{}`",
                path.display(),
                read_with.display(),
                root.display()
            ),
            #[cfg(windows)]
            AppendProblem::LockInTheWay { path, lock, is } => write!(
                f,
                "append: `{}`, the file appends to `{}` take their lock on, is {is}, so \
                 every append would fail",
                lock.display(),
                path.display()
            ),
        }
    }
}

/// [`AppendProblem::LeavesRoot`]'s message.
fn leaves_root(f: &mut fmt::Formatter<'_>, path: &Path, through: &Option<String>) -> fmt::Result {
    write!(
        f,
        "append: `{}` leads out of the hooks' root",
        path.display()
    )?;
    match through {
        Some(link) => write!(f, " through the symbolic link `{link}`"),
        None => f.write_str(" (through `..` or a symbolic link)"),
    }
}

/// [`AppendProblem::LeavesRoot`]'s hint.
fn leaves_root_hint() -> String {
    "a relative `append` path is opened beneath the hooks' root and follows no link out \
     of it; name a file under that root, or write an absolute path to append outside it"
        .to_owned()
}

/// [`AppendProblem::Owned`]'s hint.
fn owned_hint(name: &Path, way: &Way) -> String {
    let name = name.display();
    let mut hint = format!(
        "an append hook never writes `{name}`, which holds the program's own state; name a \
         file outside it"
    );
    if let Way::Link(Some(link)) = way {
        hint.push_str(&format!(
            ", by a path that does not go through the symbolic link `{}`",
            link.display()
        ));
    }
    hint
}

/// An error, so that it can stand on its own; its `Display` says all of it,
/// and `source()` returns nothing (a cause it quotes, as
/// [`CannotCreate`](Self::CannotCreate)'s, is text in it).
impl std::error::Error for AppendProblem {}
