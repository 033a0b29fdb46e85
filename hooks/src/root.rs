//! The hooks' root as built hooks hold it ([`Root`]): the path the embedder
//! gave, made absolute, and a descriptor of it that every `append` beneath
//! it is opened from ([`beneath`](crate::beneath)).

use std::io;
use std::path::{Path, PathBuf};

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};

/// `given` made absolute against the working directory now, without
/// resolving links: an empty path, as `Path::new("app.toml").parent()`
/// gives, is the working directory itself. Only when the working directory
/// is gone does it stay as given, and what needs it fails saying why.
pub(crate) fn absolute(given: &Path) -> PathBuf {
    let path = match given.as_os_str().is_empty() {
        true => std::env::current_dir(),
        false => std::path::absolute(given),
    };
    path.unwrap_or_else(|_| given.to_path_buf())
}

/// The hooks' root as built hooks hold it: its path as given and made
/// absolute, and a descriptor of it that names under it are opened from.
#[derive(Debug)]
pub(crate) struct Root {
    /// As the embedder gave it.
    given: PathBuf,
    /// Made absolute, without resolving links.
    pub(crate) path: PathBuf,
    /// `None` when it could not be opened when the hooks were built: it is
    /// then opened at each append.
    pub(crate) fd: Option<OwnedFd>,
}

impl Root {
    /// The root `given`, made absolute against the working directory now
    /// (an empty path, as `Path::new("app.toml").parent()` gives, is the
    /// working directory itself), and opened now.
    pub(crate) fn open(given: &Path) -> Self {
        let path = absolute(given);
        let fd = open_root(&path).ok();
        Root {
            given: given.to_path_buf(),
            path,
            fd,
        }
    }

    /// The part of `path` the operator wrote: relative to the root (as
    /// given, or made absolute) when under it, else `path` itself. With the
    /// root given as `.`, `./$HOME/x` is `$HOME/x`, as written.
    pub(crate) fn written<'p>(&self, path: &'p Path) -> &'p Path {
        (!self.given.as_os_str().is_empty())
            .then(|| path.strip_prefix(&self.given).ok())
            .flatten()
            .or_else(|| path.strip_prefix(&self.path).ok())
            .unwrap_or(path)
    }

    /// Where the append path `path` is opened from: a name under the root
    /// (a relative path, or an absolute one inside the root), or a path
    /// outside it, the operator's own, taken as written.
    pub(crate) fn target(&self, path: &Path) -> Target {
        // Every path starts with an empty one: an empty root is only ever
        // matched made absolute.
        let as_given = (!self.given.as_os_str().is_empty())
            .then(|| path.strip_prefix(&self.given).ok())
            .flatten();
        let name = if let Some(name) = as_given {
            name
        } else if let Ok(name) = path.strip_prefix(&self.path) {
            name
        } else if path.is_relative() {
            path
        } else {
            return Target::AsWritten;
        };
        // The root itself is no file beneath it: as written, it is the
        // directory it is, and an append to it fails saying so.
        if name.as_os_str().is_empty() {
            return Target::AsWritten;
        }
        Target::Beneath(name.to_path_buf())
    }

    /// Calls `f` with the root's descriptor: the one held, or one opened
    /// now when none could be held.
    pub(crate) fn with_fd<T>(
        &self,
        f: impl FnOnce(BorrowedFd<'_>) -> io::Result<T>,
    ) -> io::Result<T> {
        match &self.fd {
            Some(fd) => f(fd.as_fd()),
            None => f(open_root(&self.path)?.as_fd()),
        }
    }
}

/// Where an `append` hook's file is opened from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// This name under the hooks' root, resolved without leaving it.
    Beneath(PathBuf),
    /// A path outside the root: the operator's own, taken as written.
    AsWritten,
}

/// Opens the directory `root`, to resolve names beneath it.
pub(crate) fn open_root(root: &Path) -> io::Result<OwnedFd> {
    crate::beneath::open_dir(root)
}
