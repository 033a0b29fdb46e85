//! What building the hooks finds wrong, as data: [`Problem`].
//!
//! The checks here are the only build-time checks: [`Hooks::new`] runs them
//! (and logs each problem once, at warn level), [`Hooks::check`] runs them
//! without creating any file, and both hand the list back to the caller.
//!
//! [`Hooks::new`]: super::Hooks::new
//! [`Hooks::check`]: super::Hooks::check

use std::fmt;
use std::path::{Path, PathBuf};

/// Something that will make one hook fail each time it fires, found when the
/// hooks were built. Its `Display` is one line for an operator, starting
/// `hook[N]: `; [`hint`](Self::hint) says what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Problem {
    /// The hook's position in [`Hooks::specs`](super::Hooks::specs), from 0.
    pub index: usize,
    /// What is wrong.
    pub kind: ProblemKind,
}

impl Problem {
    /// The hook's number as messages write it, `hook[N]`: counted from 1.
    pub fn number(&self) -> usize {
        self.index + 1
    }

    /// What the operator can do about it, when there is something to say.
    pub fn hint(&self) -> Option<String> {
        self.kind.hint()
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hook[{}]: {}", self.number(), self.kind)
    }
}

/// What is wrong with one hook, as found when the hooks were built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemKind {
    /// A bare program name (no `/`) is not an executable file in any
    /// absolute `PATH` entry.
    NotInPath {
        /// The program as written.
        program: String,
        /// `./NAME`, when the discovery root holds a file of that name.
        in_root: Option<String>,
    },
    /// A program containing `/`, taken relative to the discovery root, does
    /// not exist.
    NoSuchProgram {
        /// The program as written.
        program: String,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The program exists but is not executable.
    NotExecutable {
        /// The program as written.
        program: String,
        /// The file.
        path: PathBuf,
    },
    /// The program is a directory.
    ProgramIsDirectory {
        /// The program as written.
        program: String,
        /// The directory.
        path: PathBuf,
    },
    /// A `~`, `$NAME` or `${NAME}` that a shell would expand, which a hook
    /// takes literally because there is no shell.
    NotExpanded {
        /// `run[N]` (from 1) or `append`.
        key: String,
        /// The text as written.
        text: String,
    },
    /// The `append` path is a directory.
    AppendIsDirectory {
        /// The path.
        path: PathBuf,
    },
    /// The `append` path is a symbolic link, which an append never follows.
    AppendIsSymlink {
        /// The path.
        path: PathBuf,
    },
    /// The `append` path exists and is not a regular file (a FIFO, a socket,
    /// a device).
    AppendNotRegular {
        /// The path.
        path: PathBuf,
    },
    /// The directory the `append` file would be created in does not exist.
    AppendNoParent {
        /// The path.
        path: PathBuf,
        /// Its missing directory.
        parent: PathBuf,
    },
    /// The `append` path is under the discovery root and leads out of it:
    /// through `..`, or a directory that is a symbolic link to somewhere
    /// outside (a clone's `logs -> ~/.bashrc.d`).
    AppendLeavesRoot {
        /// The path.
        path: PathBuf,
        /// The link, as written under the root, when one was found.
        through: Option<String>,
    },
    /// The `append` file could not be created for another reason.
    AppendCannotCreate {
        /// The path.
        path: PathBuf,
        /// The system's reason.
        reason: String,
    },
}

impl ProblemKind {
    /// What the operator can do about it, when there is something to say.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            ProblemKind::NotInPath {
                in_root: Some(local),
                ..
            } => format!("to run the file in the discovery root, write `{local}`"),
            ProblemKind::NotInPath { program, .. } => format!(
                "install `{program}`, or name it by its path (`/usr/local/bin/{program}`, `./scripts/{program}`)"
            ),
            ProblemKind::NoSuchProgram { .. } => {
                "a program containing `/` is relative to the discovery root; check the path"
                    .to_owned()
            }
            ProblemKind::NotExecutable { path, .. } => {
                format!("make it executable: chmod +x {}", path.display())
            }
            ProblemKind::ProgramIsDirectory { .. } => "name the program inside it".to_owned(),
            ProblemKind::NotExpanded { .. } => {
                "write the path out in full: a hook is never run through a shell".to_owned()
            }
            ProblemKind::AppendIsDirectory { .. } => {
                "name a file, as in `append = \"logs/audit.jsonl\"`".to_owned()
            }
            ProblemKind::AppendIsSymlink { .. } => "name the file the link points to".to_owned(),
            ProblemKind::AppendNotRegular { .. } => "name a regular file".to_owned(),
            ProblemKind::AppendNoParent { parent, .. } => {
                format!("create it: mkdir -p {}", parent.display())
            }
            ProblemKind::AppendLeavesRoot { .. } => leaves_root_hint(),
            ProblemKind::AppendCannotCreate { .. } => return None,
        })
    }
}

impl fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProblemKind::NotInPath { program, .. } => write!(
                f,
                "`{program}` is not an executable file in any absolute `PATH` entry (a bare \
                 name is looked up in `PATH` only, never in the discovery root, and relative \
                 entries such as `.` are skipped)"
            ),
            ProblemKind::NoSuchProgram { program, path } => {
                write!(f, "`{program}`: there is no `{}`", path.display())
            }
            ProblemKind::NotExecutable { program, path } => {
                write!(f, "`{program}`: `{}` is not executable", path.display())
            }
            ProblemKind::ProgramIsDirectory { program, path } => {
                write!(f, "`{program}`: `{}` is a directory", path.display())
            }
            ProblemKind::NotExpanded { key, text } => write!(
                f,
                "`{key}` = `{text}`: the `~` or `$` is taken literally, because there is no shell"
            ),
            ProblemKind::AppendIsDirectory { path } => {
                write!(f, "append: `{}` is a directory", path.display())
            }
            ProblemKind::AppendIsSymlink { path } => write!(
                f,
                "append: `{}` is a symbolic link, which an append hook never follows",
                path.display()
            ),
            ProblemKind::AppendNotRegular { path } => {
                write!(f, "append: `{}` is not a regular file", path.display())
            }
            ProblemKind::AppendNoParent { path, parent } => write!(
                f,
                "append: `{}` cannot be created: there is no directory `{}`",
                path.display(),
                parent.display()
            ),
            ProblemKind::AppendLeavesRoot { path, through } => leaves_root(f, path, through),
            ProblemKind::AppendCannotCreate { path, reason } => write!(
                f,
                "append: `{}` cannot be created: {reason}",
                path.display()
            ),
        }
    }
}

/// [`ProblemKind::AppendLeavesRoot`]'s message.
fn leaves_root(f: &mut fmt::Formatter<'_>, path: &Path, through: &Option<String>) -> fmt::Result {
    write!(
        f,
        "append: `{}` leads out of the discovery root",
        path.display()
    )?;
    match through {
        Some(link) => write!(f, " through the symbolic link `{link}`"),
        None => f.write_str(" (through `..` or a symbolic link)"),
    }
}

/// [`ProblemKind::AppendLeavesRoot`]'s hint.
fn leaves_root_hint() -> String {
    "a relative `append` path is opened beneath the root and follows no link out of it; \
     name a file under the root, or write an absolute path to append outside it"
        .to_owned()
}

/// Whether a shell would have expanded something in `text`: a leading `~`,
/// or `$` followed by a name or `{`.
pub(crate) fn shell_would_expand(text: &str) -> bool {
    if text.starts_with('~') {
        return true;
    }
    let bytes = text.as_bytes();
    bytes
        .windows(2)
        .any(|w| w[0] == b'$' && (w[1] == b'{' || w[1] == b'_' || w[1].is_ascii_alphabetic()))
}

/// The part of `path` the operator wrote: the path relative to `root` when it
/// is under it.
pub(crate) fn as_written<'a>(path: &'a Path, root: &Path) -> &'a Path {
    path.strip_prefix(root).unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::shell_would_expand;

    #[test]
    fn what_a_shell_would_expand_is_recognised() {
        for yes in [
            "~",
            "~/a",
            "~bob/x",
            "$HOME/bin",
            "${HOME}/x",
            "a$_b",
            "--to=$USER",
        ] {
            assert!(shell_would_expand(yes), "{yes}");
        }
        for no in ["a~b", "$", "$1", "cost$", "plain", "$$", "a/$-"] {
            assert!(!shell_would_expand(no), "{no}");
        }
    }
}
