//! [`ConfigError`]: why a configuration could not be loaded.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use io_hooks::TableError;
use io_hooks::text::SourceLine;

use io_hooks::text::{os_error, pasteable_word};

/// Why a configuration could not be loaded. Each `Display` about a file
/// names the file first, then the key, then the reason; an unknown profile
/// and a root that cannot be used name the profile and the directory.
///
/// One shape throughout: a file is a `path: PathBuf`, a position a
/// `position: (line, column)` (each from 1, the column in characters), and
/// a cause a field named `cause`, which `Display` states, so `source()`
/// returns nothing.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConfigError {
    /// The discovery root is not a directory, or cannot be made absolute.
    Root {
        /// The root as given (or as made absolute).
        root: PathBuf,
        /// Why.
        cause: io::Error,
    },
    /// A file exists but cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: io::Error,
    },
    /// A file is larger than a config file may be, so it was not read whole.
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The most a config file may hold, in bytes (1 MiB).
        limit: u64,
    },
    /// A file declares hooks, and nothing shows it is the operator's: an
    /// `io.local.toml` outside any git work tree, owned by another user,
    /// writable by others, or in a work tree whose index cannot be read, or
    /// a user-scope file others may write; and the operator has not trusted
    /// its content with `io trust` (or it changed since). Its hooks are not
    /// loaded. The decision is [`io_trust::judge`]'s.
    Untrusted {
        /// The file.
        path: PathBuf,
        /// `hook`, or `profile.<name>.hook`.
        key: String,
        /// The file's scope: [`Scope::Local`](super::Scope::Local) or
        /// [`Scope::User`](super::Scope::User).
        scope: super::Scope,
        /// Why, in io-trust's words ([`io_trust::Verdict`]'s `Display`).
        reason: String,
        /// Whether `io trust` can record it: `false` when there is no data
        /// directory to record it in.
        can_trust: bool,
        /// Whether the operator trusted another content of it: it changed
        /// since.
        changed: bool,
    },
    /// A file declares hooks, and whether the operator trusted it could not
    /// be told: the trust store cannot be read. Never taken for "not
    /// trusted" in silence, nor for "trusted".
    TrustStore {
        /// The file.
        path: PathBuf,
        /// `hook`, or `profile.<name>.hook`.
        key: String,
        /// What is wrong with the store, naming it.
        cause: String,
    },
    /// A file is not UTF-8, so it is not TOML.
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The line and column of the first byte that is not UTF-8.
        position: (usize, usize),
    },
    /// A file holds a NUL character, which no config file needs: what holds
    /// one is not text (`/proc/self/environ` separates its secrets with
    /// them), so none of it is shown.
    Nul {
        /// The file.
        path: PathBuf,
        /// The line and column of the first NUL.
        position: (usize, usize),
    },
    /// A file reached through a symbolic link (from the directory it was
    /// found in: the discovery root, or the user-scope directory) does not
    /// load. Its problem is named, but nothing the file holds is shown: the
    /// link may lead to anyone's file (`~/.netrc`, a gitignored `.env` in
    /// the root itself), and a repository can commit such a link.
    Withheld {
        /// The file, as found.
        path: PathBuf,
        /// The directory it was found in.
        outside: PathBuf,
        /// Whether the link leads out of that directory (else it stays in
        /// it, as `io.toml -> .env` does).
        leads_out: bool,
        /// What is wrong, in words that quote nothing from the file.
        problem: String,
        /// The line and column, each from 1, when the problem has one.
        position: Option<(usize, usize)>,
    },
    /// A file is not valid TOML, or a `[[hook]]` table in it does not check.
    Table(TableError),
    /// A project-scope file (`io.toml`, or [`Config::from_toml`](super::Config::from_toml) text)
    /// declares `hook`: the engine's refusal
    /// ([`io_hooks::TomlFile::check_scope`]), whose kind is
    /// [`io_hooks::TableErrorKind::ProjectHooks`] and whose key is `hook` or
    /// `profile.<name>.hook`.
    ProjectHooks(TableError),
    /// An `io.local.toml` that the repository's git index tracks declares
    /// `hook`: it arrived with the clone, like `io.toml`.
    TrackedLocal {
        /// The file.
        path: PathBuf,
        /// `hook`, or `profile.<name>.hook`.
        key: String,
    },
    /// [`Config::with_profile`](super::Config::with_profile) named a profile no file declares.
    UnknownProfile {
        /// The name asked for.
        name: String,
        /// The nearest declared name, when one is close.
        suggestion: Option<String>,
        /// Every declared profile that may be shown, sorted.
        known: Vec<String>,
        /// How many other profiles are declared, in a file behind a
        /// symbolic link that leads out of where it was looked for: their
        /// names are that file's text, so they are counted, not shown.
        unlisted: usize,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Root { root, cause } => write!(
                f,
                "{}: cannot be the discovery root, which must be a directory: {}",
                root.display(),
                os_error(cause)
            ),
            ConfigError::Read { path, cause } => {
                write!(f, "{}: cannot be read: {}", path.display(), os_error(cause))
            }
            ConfigError::TooLarge { path, limit } => write!(
                f,
                "{}: larger than {} MiB, the most a config file may hold, so it is not read",
                path.display(),
                limit / (1024 * 1024)
            ),
            ConfigError::Untrusted {
                path,
                key,
                scope,
                reason,
                can_trust,
                changed,
            } => write_untrusted(f, path, key, *scope, reason, (*can_trust, *changed)),
            ConfigError::TrustStore { path, key, cause } => write!(
                f,
                "{}: key `{key}`: whether you trusted this file cannot be told ({cause}), so its \
                 hooks are not loaded",
                path.display()
            ),
            ConfigError::NotUtf8 {
                path,
                position: (line, column),
            } => write!(
                f,
                "{}: not UTF-8 text, which a TOML file must be (line {line}, column {column}); \
                 none of it is shown",
                path.display()
            ),
            ConfigError::Nul {
                path,
                position: (line, column),
            } => write!(
                f,
                "{}: holds a NUL character (line {line}, column {column}), which no config \
                 file needs, so it is not read as one and none of it is shown",
                path.display()
            ),
            ConfigError::Withheld {
                path,
                outside,
                leads_out,
                problem,
                position,
            } => write_withheld(f, path, outside, *leads_out, problem, *position),
            ConfigError::Table(e) | ConfigError::ProjectHooks(e) => write!(f, "{e}"),
            ConfigError::TrackedLocal { path, key } => write!(
                f,
                "{}: key `{key}`: this `io.local.toml` is tracked by the repository's git \
                 index, so it arrives with a `git clone` just as `io.toml` does, and may not \
                 declare hooks. Untrack it with `git rm --cached io.local.toml` (and list it in \
                 `.gitignore`), or move the hooks to the user-scope file.",
                path.display()
            ),
            ConfigError::UnknownProfile {
                name,
                suggestion,
                known,
                unlisted,
            } => write_unknown_profile(f, name, suggestion.as_deref(), known, *unlisted),
        }
    }
}

/// A file whose hooks are not loaded because nothing shows it is the
/// operator's: why, and the command that trusts it (or, for the user-scope
/// file, how to make it theirs alone).
fn write_untrusted(
    f: &mut fmt::Formatter<'_>,
    path: &Path,
    key: &str,
    scope: super::Scope,
    reason: &str,
    (can_trust, changed): (bool, bool),
) -> fmt::Result {
    let what = match scope {
        super::Scope::User => "this user-scope file",
        _ => "this `io.local.toml`",
    };
    write!(
        f,
        "{}: key `{key}`: {what} is not known to be yours ({reason}), so its hooks are not \
         loaded. ",
        path.display()
    )?;
    match (scope, can_trust) {
        (super::Scope::User, _) => f.write_str(
            "Make it and the directories above it yours alone: owned by you, with no group or \
             other write bit and no ACL that lets anyone else write them.",
        ),
        (_, false) => f.write_str(
            "Set IO_DATA_HOME (or HOME) to a directory of yours, so that `io trust` can record \
             your trust, or move the hooks to the user-scope file.",
        ),
        (_, true) => {
            let root = path.parent().unwrap_or(Path::new("."));
            // Quoted for a POSIX shell as every command `io` prints to paste
            // is, or not printed when it cannot be pasted as it is.
            let command = match pasteable_word(root.as_os_str()) {
                Ok(word) => format!("`io trust --root {word}`"),
                Err(why) => format!(
                    "`io trust` with `--root` set to its directory (whose name {why}, so no \
                     command to paste is printed)"
                ),
            };
            match changed {
                true => write!(
                    f,
                    "Read what changed, then run {command} again to trust it as it is now."
                ),
                false => write!(
                    f,
                    "Read it, then run {command} to trust it as it is now, or move the hooks \
                     to the user-scope file."
                ),
            }
        }
    }
}

/// A file behind a link (out of `outside` when `leads_out`): its problem
/// and position, and nothing it holds.
fn write_withheld(
    f: &mut fmt::Formatter<'_>,
    path: &Path,
    outside: &Path,
    leads_out: bool,
    problem: &str,
    position: Option<(usize, usize)>,
) -> fmt::Result {
    write!(f, "{}: {problem}", path.display())?;
    if let Some((line, column)) = position {
        write!(f, " (line {line}, column {column})")?;
    }
    if leads_out {
        write!(
            f,
            "; none of it is shown, because it is a symbolic link leading out of `{}` \
             and may be anyone's file.",
            outside.display()
        )?;
    } else {
        write!(
            f,
            "; none of it is shown, because it is reached through a symbolic link, which may \
             lead to a file of yours that git ignores (a `.env`) in `{}`.",
            outside.display()
        )?;
    }
    f.write_str(
        " If it is yours, put the file itself there in place of the link to see what is wrong.",
    )
}

/// A profile no file declares, the nearest one, every one that may be
/// shown, and how many may not.
fn write_unknown_profile(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    suggestion: Option<&str>,
    known: &[String],
    unlisted: usize,
) -> fmt::Result {
    write!(f, "unknown profile `{name}`")?;
    if let Some(s) = suggestion {
        write!(f, " (did you mean `{s}`?)")?;
    }
    const OUTSIDE: &str = "in a file behind a symbolic link out of the root, so not shown";
    match (known.is_empty(), unlisted) {
        (true, 0) => return f.write_str("; no file read declares a `[profile.<name>]` table"),
        (true, n) => return write!(f, "; the {n} profile(s) declared are {OUTSIDE}"),
        (false, _) => f.write_str("; the profiles declared are ")?,
    }
    for (i, k) in known.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "`{k}`")?;
    }
    if unlisted > 0 {
        write!(f, ", and {unlisted} more {OUTSIDE}")?;
    }
    Ok(())
}

/// `Display` states the cause, so `source()` returns nothing: a chain
/// printer shows each cause once (io-hooks' convention too, but for its
/// `HookFailure::Action`, whose `source()` is its cause's next link).
impl std::error::Error for ConfigError {}

impl ConfigError {
    /// The line of the file the error points into, cut around the column,
    /// for a caller to show under the message; `None` when the error has no
    /// position or the file may not be shown
    /// ([`Withheld`](Self::Withheld), [`Nul`](Self::Nul),
    /// [`NotUtf8`](Self::NotUtf8)).
    pub fn source_line(&self) -> Option<&SourceLine> {
        match self {
            ConfigError::Table(e) | ConfigError::ProjectHooks(e) => e.source_line(),
            _ => None,
        }
    }
}

impl From<TableError> for ConfigError {
    fn from(e: TableError) -> Self {
        ConfigError::Table(e)
    }
}
