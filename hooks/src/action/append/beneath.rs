//! Opening a file beneath the hooks' root without leaving it, for the
//! `append` action.
//!
//! The root may be a cloned repository, and every directory in it is then
//! the clone's choice: a committed `logs -> ~/.bashrc.d` would carry an
//! operator's own `append = "logs/audit.jsonl"` into a directory a shell
//! sources. So a name under the root is opened from a descriptor of the
//! root held since the hooks were built. On Linux the kernel resolves it
//! with `openat2` and `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`: a link is
//! followed only while it stays under the root, and one call is all an
//! event costs. Where `openat2` is missing (`ENOSYS`: a kernel before 5.6;
//! `EPERM`: a seccomp filter; every other system) the name is walked one
//! component at a time, each opened with `O_NOFOLLOW`, so no link is
//! followed at all.
//!
//! This module is private to the `append` action: an embedder that opens
//! files of its own beneath a root keeps its own way of doing it.

use std::ffi::OsStr;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

#[cfg(test)]
use crate::shared::open_root;

/// Set once `openat2` has answered `ENOSYS` or `EPERM`: it is not asked
/// again in this process.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// How a name is resolved beneath the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolve {
    /// `openat2` where the kernel has it, else [`Resolve::Walk`].
    Auto,
    /// One component at a time with `O_NOFOLLOW` (the fallback; tests force
    /// it).
    #[cfg_attr(not(test), allow(dead_code))]
    Walk,
}

/// Why a name could not be opened beneath the root.
#[derive(Debug)]
pub(crate) enum Error {
    /// The name leads out of the root: `..` or a symbolic link. `through`
    /// names the link when the walk found it.
    Outside {
        /// The link met on the way, relative to the root, when known.
        through: Option<String>,
    },
    /// Any other failure, as the system reported it.
    Io(io::Error),
}

impl From<Errno> for Error {
    fn from(e: Errno) -> Self {
        Error::Io(e.into())
    }
}

/// Opens `name` beneath the directory `root` for `flags` (close-on-exec is
/// added), creating it with `mode`. Every directory on the way must stay
/// under the root; what the last name may be is `flags`'s business
/// (`O_NOFOLLOW` refuses a link there, whatever it points to).
pub(crate) fn open(
    root: BorrowedFd<'_>,
    name: &Path,
    flags: OFlags,
    mode: Mode,
    resolve: Resolve,
) -> Result<OwnedFd, Error> {
    let flags = flags | OFlags::CLOEXEC;
    if !stays_beneath(name) {
        return Err(Error::Outside { through: None });
    }
    if resolve == Resolve::Auto && !NO_OPENAT2.load(Ordering::Relaxed) {
        match kernel(root, name, flags, mode) {
            Err(Errno::NOSYS | Errno::PERM) => NO_OPENAT2.store(true, Ordering::Relaxed),
            // `RESOLVE_BENEATH` refuses a link that leaves the root;
            // `RESOLVE_NO_MAGICLINKS` a `/proc` magic link.
            Err(Errno::XDEV) => return Err(Error::Outside { through: None }),
            other => return other.map_err(Error::from),
        }
    }
    walk(root, name, flags, mode)
}

/// The walk: every directory opened in the one before with `O_NOFOLLOW`.
fn walk(root: BorrowedFd<'_>, name: &Path, flags: OFlags, mode: Mode) -> Result<OwnedFd, Error> {
    let names: Vec<&OsStr> = name.iter().filter(|n| *n != ".").collect();
    let Some((last, parents)) = names.split_last() else {
        return Err(Error::Io(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path names no file",
        )));
    };
    let mut dir: Option<OwnedFd> = None;
    let mut prefix = PathBuf::new();
    for name in parents {
        prefix.push(name);
        let at = dir.as_ref().map_or(root, AsFd::as_fd);
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        match rustix::fs::openat(at, *name, dir_flags, Mode::empty()) {
            Ok(fd) => dir = Some(fd),
            // `O_NOFOLLOW` on a link: `ELOOP`, or `ENOTDIR` with
            // `O_DIRECTORY`.
            Err(Errno::LOOP | Errno::NOTDIR) if is_link(at, name) => {
                return Err(Error::Outside {
                    through: Some(prefix.display().to_string()),
                });
            }
            Err(e) => return Err(e.into()),
        }
    }
    let at = dir.as_ref().map_or(root, AsFd::as_fd);
    Ok(rustix::fs::openat(
        at,
        *last,
        flags | OFlags::NOFOLLOW,
        mode,
    )?)
}

/// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`.
#[cfg(target_os = "linux")]
fn kernel(
    root: BorrowedFd<'_>,
    name: &Path,
    flags: OFlags,
    mode: Mode,
) -> rustix::io::Result<OwnedFd> {
    use rustix::fs::ResolveFlags;
    rustix::fs::openat2(
        root,
        name,
        flags,
        mode,
        ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
    )
}

/// No `openat2` here: the walk.
#[cfg(not(target_os = "linux"))]
fn kernel(_: BorrowedFd<'_>, _: &Path, _: OFlags, _: Mode) -> rustix::io::Result<OwnedFd> {
    Err(Errno::NOSYS)
}

/// Whether `name` in `dir` is a symbolic link.
pub(crate) fn is_link(dir: BorrowedFd<'_>, name: &OsStr) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink)
}

/// Whether `name` is relative and has no `..` (which `openat2` would allow
/// while it stays under the root, and the walk could not check).
pub(crate) fn stays_beneath(name: &Path) -> bool {
    name.components()
        .all(|c| matches!(c, Component::CurDir | Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::time::Duration;

    const BOTH: [Resolve; 2] = [Resolve::Auto, Resolve::Walk];

    fn create(root: &OwnedFd, name: &str, resolve: Resolve) -> Result<OwnedFd, Error> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW;
        open(
            root.as_fd(),
            Path::new(name),
            flags,
            Mode::from_raw_mode(0o600),
            resolve,
        )
    }

    /// A root with `out -> <outside>`, `in -> real` and `real/`.
    fn hostile() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let (root, outside) = (tmp.path().join("root"), tmp.path().join("outside"));
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        symlink(&outside, root.join("out")).unwrap();
        symlink("real", root.join("in")).unwrap();
        (tmp, root, outside)
    }

    /// A FIFO where a directory should be: each directory on the way is
    /// opened with `O_DIRECTORY`, so both ways fail at once with `ENOTDIR`
    /// rather than opening the FIFO for reading and waiting for a writer.
    #[test]
    fn a_fifo_on_the_way_is_no_directory_both_ways() {
        use crate::spawn::test_watchdog::{mkfifo, within};
        for resolve in BOTH {
            let tmp = tempfile::tempdir().unwrap();
            mkfifo(&tmp.path().join("pipe"));
            let fd = open_root(tmp.path()).unwrap();
            let got = within(Duration::from_secs(20), "the open", move || {
                create(&fd, "pipe/new", resolve).map(drop)
            });
            assert!(
                matches!(&got, Err(Error::Io(e)) if e.raw_os_error() == Some(Errno::NOTDIR.raw_os_error())),
                "{resolve:?}: {got:?}"
            );
        }
    }

    #[test]
    fn a_link_out_of_the_root_is_refused_both_ways() {
        for resolve in BOTH {
            let (_tmp, root, outside) = hostile();
            let fd = open_root(&root).unwrap();
            for name in [
                "out/new",
                "./out/new",
                "../outside/new",
                "real/../../outside/new",
            ] {
                let got = create(&fd, name, resolve);
                assert!(
                    matches!(got, Err(Error::Outside { .. })),
                    "{resolve:?} {name}: {got:?}"
                );
            }
            let walked = create(&fd, "out/new", Resolve::Walk);
            assert!(matches!(walked, Err(Error::Outside { through: Some(l) }) if l == "out"));
            assert_eq!(
                std::fs::read_dir(&outside).unwrap().count(),
                0,
                "{resolve:?}"
            );
            create(&fd, "real/f", resolve).expect("a plain name");
            create(&fd, "./g", resolve).expect("a plain name");
            let missing = create(&fd, "none/f", resolve);
            assert!(matches!(&missing, Err(Error::Io(e)) if e.kind() == io::ErrorKind::NotFound));
            let empty = create(&fd, ".", resolve);
            assert!(matches!(empty, Err(Error::Io(_))), "{resolve:?}");
        }
    }

    /// Every descriptor opened here is close-on-exec, whatever the caller's
    /// flags, so a hook spawned meanwhile inherits none; the root must be a
    /// directory.
    #[test]
    fn descriptors_are_close_on_exec_and_the_root_is_a_directory() {
        let (_tmp, root, _outside) = hostile();
        let fd = open_root(&root).unwrap();
        let cloexec = |fd: &OwnedFd| {
            rustix::io::fcntl_getfd(fd)
                .unwrap()
                .contains(rustix::io::FdFlags::CLOEXEC)
        };
        assert!(cloexec(&fd));
        for resolve in BOTH {
            for extra in [OFlags::empty(), OFlags::CLOEXEC] {
                let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | extra;
                let name = Path::new("real/g");
                let file = open(fd.as_fd(), name, flags, Mode::from_raw_mode(0o600), resolve);
                assert!(cloexec(&file.unwrap()), "{resolve:?} {extra:?}");
            }
        }
        let err = open_root(&root.join("real/g")).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(Errno::NOTDIR.raw_os_error()));
    }

    /// A link that stays under the root: `openat2` follows it, the walk
    /// does not (it cannot tell where a link leads without following it).
    #[test]
    fn a_link_that_stays_under_the_root_is_followed_only_by_openat2() {
        let (_tmp, root, _outside) = hostile();
        let fd = open_root(&root).unwrap();
        let walked = create(&fd, "in/f", Resolve::Walk);
        assert!(matches!(walked, Err(Error::Outside { through: Some(l) }) if l == "in"));
        if cfg!(target_os = "linux") && !NO_OPENAT2.load(Ordering::Relaxed) {
            create(&fd, "in/f", Resolve::Auto).expect("openat2 follows it");
            assert!(root.join("real/f").is_file());
        }
        // The last name is never followed when the caller says so, even to
        // a file under the root; a directory on the way that is a file is
        // no link, and not a way out.
        std::fs::write(root.join("real/file"), "").unwrap();
        symlink("real/file", root.join("to-file")).unwrap();
        for resolve in BOTH {
            let last = create(&fd, "to-file", resolve);
            assert!(
                matches!(&last, Err(Error::Io(e)) if e.raw_os_error() == Some(Errno::LOOP.raw_os_error())),
                "{resolve:?}: {last:?}"
            );
            let through_a_file = create(&fd, "real/file/f", resolve);
            assert!(
                matches!(&through_a_file, Err(Error::Io(e)) if e.raw_os_error() == Some(Errno::NOTDIR.raw_os_error())),
                "{resolve:?}: {through_a_file:?}"
            );
        }
        assert!(stays_beneath(Path::new("a/./b")));
        assert!(!stays_beneath(Path::new("/a")));
        assert!(!stays_beneath(Path::new("a/../b")));
    }
}
