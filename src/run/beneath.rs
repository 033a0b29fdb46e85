//! Opening a file beneath a root directory without leaving it: every read
//! and write the run loop makes in a workspace (the file tools, `.io/todo.md`,
//! `.io/memory/`, the journal under `.io/runs`) goes through here, so a
//! symbolic link a hostile clone commits (`src -> /home/user/.ssh`,
//! `.io -> /tmp/elsewhere`) cannot carry it out of the root.
//!
//! On Linux the kernel resolves the path with `openat2` and
//! `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`: a link is followed only while
//! it stays under the root. Where `openat2` is missing (`ENOSYS`: an old
//! kernel; `EPERM`: a seccomp filter; any other system) the path is walked
//! one component at a time, each opened with `O_NOFOLLOW`, so no link is
//! followed at all, inside the root or not.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

// Modes are `Mode`, built from the platform's own `mode_t` (`u32` on Linux,
// `u16` on macOS and FreeBSD), so no width is assumed.

/// The mode of a private file (the journal, `.io`'s notes): its owner's.
pub(crate) const PRIVATE_FILE: Mode = Mode::from_raw_mode(0o600);
/// The mode of a private directory (`.io` and everything under it).
pub(crate) const PRIVATE_DIR: Mode = Mode::from_raw_mode(0o700);
/// The mode a workspace file is created with, before the umask.
pub(crate) const SHARED_FILE: Mode = Mode::from_raw_mode(0o666);
/// The mode a workspace directory is created with, before the umask.
pub(crate) const SHARED_DIR: Mode = Mode::from_raw_mode(0o777);

/// How a path is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolve {
    /// `openat2` where the kernel has it, else [`Resolve::Walk`].
    Auto,
    /// One component at a time with `O_NOFOLLOW` (the fallback; tests force
    /// it).
    #[cfg(test)]
    Walk,
}

/// Set once `openat2` has answered `ENOSYS` or `EPERM`: it is not asked
/// again in this process.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// Why a path could not be opened beneath the root.
#[derive(Debug)]
pub(crate) enum Error {
    /// The path leads out of the root: `..`, an absolute path, or a
    /// symbolic link. `through` names the link when the walk found it.
    Outside {
        /// The link met on the way, when known.
        through: Option<String>,
    },
    /// The path names a FIFO, a socket or a device: opened without
    /// blocking and refused, since reading or writing it could wait for
    /// ever (a FIFO nobody writes) or never end (`/dev/zero`).
    NotRegular {
        /// What it is, as `a FIFO`.
        kind: &'static str,
    },
    /// Any other failure, as the system reported it.
    Io(io::Error),
}

impl From<Errno> for Error {
    fn from(e: Errno) -> Self {
        Error::Io(e.into())
    }
}

impl Error {
    /// The message a tool shows the model: `op` (`read`, `write`, ...) and
    /// `rel` as the model gave it.
    pub(crate) fn describe(&self, op: &str, rel: &str) -> String {
        match self {
            Error::Outside { through: None } => format!(
                "{op} {rel}: refused: `{rel}` leads outside the workspace (through `..`, an absolute path or a symbolic link)"
            ),
            Error::Outside {
                through: Some(link),
            } => format!(
                "{op} {rel}: refused: `{rel}` goes through the symbolic link `{link}`, which may lead outside the workspace (without openat2 no link is followed)"
            ),
            Error::NotRegular { kind } => format!(
                "{op} {rel}: refused: `{rel}` is {kind}, not a regular file (reading or writing it could block the run)"
            ),
            Error::Io(e) => format!("{op} {rel}: {e}"),
        }
    }
}

/// A root directory, and how paths under it are resolved.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Beneath<'a> {
    root: &'a Path,
    resolve: Resolve,
}

impl<'a> Beneath<'a> {
    /// Paths under `root`, resolved by `openat2` where the kernel has it.
    pub(crate) fn new(root: &'a Path) -> Self {
        Beneath {
            root,
            resolve: Resolve::Auto,
        }
    }

    /// Paths under `root`, resolved as `resolve` says.
    #[cfg(test)]
    pub(crate) fn with(root: &'a Path, resolve: Resolve) -> Self {
        Beneath { root, resolve }
    }

    /// The whole of the file `rel`.
    pub(crate) fn read(&self, rel: &Path) -> Result<Vec<u8>, Error> {
        let fd = self.open(rel, OFlags::RDONLY, Mode::empty(), None)?;
        let mut bytes = Vec::new();
        File::from(fd).read_to_end(&mut bytes).map_err(Error::Io)?;
        Ok(bytes)
    }

    /// [`read`](Self::read), with `Ok(None)` when the file does not exist.
    pub(crate) fn read_if_any(&self, rel: &Path) -> Result<Option<Vec<u8>>, Error> {
        match self.read(rel) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(Error::Io(e)) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Replaces the file `rel` with `bytes`, creating it with `file_mode`
    /// and its missing directories with `dir_mode`.
    pub(crate) fn write(
        &self,
        rel: &Path,
        bytes: &[u8],
        file_mode: Mode,
        dir_mode: Mode,
    ) -> Result<(), Error> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC;
        let fd = self.open(rel, flags, file_mode, Some(dir_mode))?;
        File::from(fd).write_all(bytes).map_err(Error::Io)
    }

    /// Opens `rel` for appending, creating it with `file_mode` and its
    /// missing directories with `dir_mode`.
    pub(crate) fn append(
        &self,
        rel: &Path,
        file_mode: Mode,
        dir_mode: Mode,
    ) -> Result<File, Error> {
        let flags = OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE;
        Ok(File::from(self.open(
            rel,
            flags,
            file_mode,
            Some(dir_mode),
        )?))
    }

    /// Opens the file `rel`, for `flags`, with `mode` if it is created;
    /// with `dirs`, its missing directories are made first with that mode.
    ///
    /// Only a regular file (or a directory, which the kernel refuses to
    /// write and to read as a file) is opened: the open itself does not
    /// block (`O_NONBLOCK`: a FIFO with no writer would hold a read open
    /// for ever), and a FIFO, socket or device is refused as
    /// [`Error::NotRegular`] before a byte is read or written.
    pub(crate) fn open(
        &self,
        rel: &Path,
        flags: OFlags,
        mode: Mode,
        dirs: Option<Mode>,
    ) -> Result<OwnedFd, Error> {
        let names = names(rel)?;
        let Some((last, parents)) = names.split_last() else {
            return Err(Error::Io(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the path names no file",
            )));
        };
        let root = rustix::fs::open(
            self.root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        // `dir` is the directory `prefix` names, itself opened beneath the
        // root: a missing directory is made in it, never through a link.
        let mut dir = None;
        let mut prefix = PathBuf::new();
        for name in parents {
            if let Some(dir_mode) = dirs {
                match rustix::fs::mkdirat(dir.as_ref().unwrap_or(&root), *name, dir_mode) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            prefix.push(name);
            let flags = OFlags::RDONLY | OFlags::DIRECTORY;
            dir = Some(self.step(&root, dir.as_ref(), &prefix, flags, Mode::empty())?);
        }
        prefix.push(last);
        let fd = match self.step(&root, dir.as_ref(), &prefix, flags | OFlags::NONBLOCK, mode) {
            // A write-only open of a FIFO nobody reads, or of a socket.
            Err(Error::Io(e)) if e.raw_os_error() == Some(Errno::NXIO.raw_os_error()) => {
                return Err(Error::NotRegular {
                    kind: "a FIFO or a socket",
                });
            }
            other => other?,
        };
        match special(FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode)) {
            Some(kind) => Err(Error::NotRegular { kind }),
            None => Ok(fd),
        }
    }

    /// Opens `prefix` beneath `root`: with `openat2`, the whole of it from
    /// the root (a link may be followed while it stays beneath); walking,
    /// its last name in `dir`, the directory that holds it (`None`: the
    /// root).
    fn step(
        &self,
        root: &OwnedFd,
        dir: Option<&OwnedFd>,
        prefix: &Path,
        flags: OFlags,
        mode: Mode,
    ) -> Result<OwnedFd, Error> {
        let flags = flags | OFlags::CLOEXEC;
        let dir = dir.unwrap_or(root);
        let name = prefix.file_name().unwrap_or_default();
        if self.resolve == Resolve::Auto && !NO_OPENAT2.load(Ordering::Relaxed) {
            match kernel(root, prefix, flags, mode) {
                Err(Errno::NOSYS | Errno::PERM) => NO_OPENAT2.store(true, Ordering::Relaxed),
                // `RESOLVE_BENEATH` refuses a link that leaves the
                // directory; `RESOLVE_NO_MAGICLINKS` a `/proc` magic link.
                Err(Errno::XDEV) => return Err(Error::Outside { through: None }),
                Err(Errno::LOOP) if is_link(root, prefix) => {
                    return Err(Error::Outside { through: None });
                }
                other => return other.map_err(Error::from),
            }
        }
        match rustix::fs::openat(dir, name, flags | OFlags::NOFOLLOW, mode) {
            // `O_NOFOLLOW` on a link: `ELOOP`, or `ENOTDIR` with
            // `O_DIRECTORY`. Either way the answer is the same.
            Err(Errno::LOOP | Errno::NOTDIR) if is_link(dir, name) => Err(Error::Outside {
                through: Some(prefix.display().to_string()),
            }),
            other => other.map_err(Error::from),
        }
    }
}

/// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`.
#[cfg(target_os = "linux")]
fn kernel(root: &OwnedFd, path: &Path, flags: OFlags, mode: Mode) -> rustix::io::Result<OwnedFd> {
    use rustix::fs::ResolveFlags;
    rustix::fs::openat2(
        root,
        path,
        flags,
        mode,
        ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
    )
}

/// No `openat2` here: the walk.
#[cfg(not(target_os = "linux"))]
fn kernel(_: &OwnedFd, _: &Path, _: OFlags, _: Mode) -> rustix::io::Result<OwnedFd> {
    Err(Errno::NOSYS)
}

/// What a file of type `file_type` is, when it is a special file: one a
/// read or a write may block on, or never finish.
fn special(file_type: FileType) -> Option<&'static str> {
    match file_type {
        FileType::Fifo => Some("a FIFO"),
        FileType::Socket => Some("a socket"),
        FileType::CharacterDevice => Some("a character device"),
        FileType::BlockDevice => Some("a block device"),
        _ => None,
    }
}

/// Whether `name` in `dir` is a symbolic link.
fn is_link(dir: &OwnedFd, name: impl rustix::path::Arg) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink)
}

/// The names `rel` is made of; `Outside` for an absolute path or one with
/// `..` anywhere in it.
fn names(rel: &Path) -> Result<Vec<&str>, Error> {
    let mut names = Vec::new();
    for component in rel.components() {
        match component {
            Component::CurDir => {}
            Component::Normal(name) => names.push(name.to_str().ok_or_else(|| {
                Error::Io(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "the path is not UTF-8",
                ))
            })?),
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(Error::Outside { through: None });
            }
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    const BOTH: [Resolve; 2] = [Resolve::Auto, Resolve::Walk];

    /// A root with a link out (`out -> <outside>`), and the outside dir.
    fn hostile() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("root");
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&root).expect("root");
        std::fs::create_dir(&outside).expect("outside");
        std::fs::write(outside.join("secret"), "s").expect("secret");
        symlink(&outside, root.join("out")).expect("link");
        symlink("../outside/secret", root.join("rel-secret")).expect("link");
        (tmp, root, outside)
    }

    #[test]
    fn a_link_out_of_the_root_is_refused_both_ways_and_nothing_lands_outside() {
        for resolve in BOTH {
            let (_tmp, root, outside) = hostile();
            let b = Beneath::with(&root, resolve);
            for rel in ["out/new", "out/secret", "out/deeper/new", "rel-secret"] {
                let err = b.write(Path::new(rel), b"x", SHARED_FILE, SHARED_DIR);
                assert!(
                    matches!(err, Err(Error::Outside { .. })),
                    "{resolve:?} {rel}: {err:?}"
                );
                let err = b.read_if_any(Path::new(rel));
                assert!(
                    matches!(err, Err(Error::Outside { .. })),
                    "{resolve:?} {rel}: {err:?}"
                );
            }
            let mut left: Vec<_> = std::fs::read_dir(&outside)
                .expect("outside")
                .map(|e| e.expect("entry").file_name())
                .collect();
            left.sort();
            assert_eq!(left, ["secret"], "{resolve:?}");
            assert_eq!(
                std::fs::read(outside.join("secret")).expect("secret"),
                b"s",
                "{resolve:?}"
            );
        }
    }

    #[test]
    fn the_walk_names_the_link_and_openat2_is_used_where_the_kernel_has_it() {
        let (_tmp, root, _outside) = hostile();
        let err = Beneath::with(&root, Resolve::Walk)
            .write(Path::new("out/new"), b"x", SHARED_FILE, SHARED_DIR)
            .expect_err("refused");
        assert_eq!(
            err.describe("write", "out/new"),
            "write out/new: refused: `out/new` goes through the symbolic link `out`, which may lead outside the workspace (without openat2 no link is followed)"
        );
        // A link that stays under the root: openat2 follows it, the walk
        // does not. Which one ran tells whether openat2 is in use.
        std::fs::create_dir(root.join("real")).expect("real");
        symlink("real", root.join("alias")).expect("alias");
        let walked = Beneath::with(&root, Resolve::Walk).write(
            Path::new("alias/f"),
            b"x",
            SHARED_FILE,
            SHARED_DIR,
        );
        assert!(matches!(walked, Err(Error::Outside { through: Some(ref l) }) if l == "alias"));
        let auto = Beneath::new(&root).write(Path::new("alias/f"), b"x", SHARED_FILE, SHARED_DIR);
        if cfg!(target_os = "linux") && !NO_OPENAT2.load(Ordering::Relaxed) {
            auto.expect("openat2 follows a link that stays beneath the root");
            assert_eq!(std::fs::read(root.join("real/f")).expect("f"), b"x");
        } else {
            eprintln!("openat2 is not available here: only the walk was tested");
        }
    }

    #[test]
    fn dot_dot_and_absolute_paths_are_refused_before_any_open() {
        for resolve in BOTH {
            let (_tmp, root, _outside) = hostile();
            let b = Beneath::with(&root, resolve);
            for rel in ["../outside/new", "a/../../outside/new", "/tmp/x", "a/.."] {
                let err = b.write(Path::new(rel), b"x", SHARED_FILE, SHARED_DIR);
                assert!(
                    matches!(err, Err(Error::Outside { through: None })),
                    "{resolve:?} {rel}: {err:?}"
                );
            }
            assert!(!root.join("a").exists(), "no directory was made first");
        }
    }

    #[test]
    fn files_and_dirs_are_created_with_the_modes_given_and_plain_paths_work() {
        for resolve in BOTH {
            let (_tmp, root, _outside) = hostile();
            let b = Beneath::with(&root, resolve);
            b.write(Path::new("p/q/f"), b"one", PRIVATE_FILE, PRIVATE_DIR)
                .expect("write");
            b.write(Path::new("./p/q/f"), b"two", PRIVATE_FILE, PRIVATE_DIR)
                .expect("rewrite");
            assert_eq!(b.read(Path::new("p/q/f")).expect("read"), b"two");
            assert_eq!(b.read_if_any(Path::new("p/none")).expect("read"), None);
            let mode = |p: &str| {
                std::fs::metadata(root.join(p))
                    .expect("meta")
                    .permissions()
                    .mode()
                    & 0o777
            };
            assert_eq!(
                (mode("p"), mode("p/q"), mode("p/q/f")),
                (0o700, 0o700, 0o600)
            );
        }
    }

    #[test]
    fn a_special_file_is_refused_by_its_type_without_blocking() {
        for resolve in BOTH {
            let (_tmp, root, _outside) = hostile();
            let fifo = root.join("pipe");
            rustix::fs::mknodat(
                rustix::fs::CWD,
                &fifo,
                FileType::Fifo,
                Mode::from_raw_mode(0o600),
                0,
            )
            .expect("mkfifo");
            let b = Beneath::with(&root, resolve);
            // Read: the open succeeds at once (`O_NONBLOCK`), the type refuses.
            let err = b.read(Path::new("pipe")).expect_err("refused");
            assert!(
                matches!(err, Error::NotRegular { kind: "a FIFO" }),
                "{resolve:?}: {err:?}"
            );
            // Write-only, nobody reading: the open itself fails (`ENXIO`).
            let err = b
                .append(Path::new("pipe"), PRIVATE_FILE, PRIVATE_DIR)
                .expect_err("refused");
            assert!(
                matches!(
                    err,
                    Error::NotRegular {
                        kind: "a FIFO or a socket"
                    }
                ),
                "{resolve:?}: {err:?}"
            );
            assert_eq!(
                err.describe("write", "pipe"),
                "write pipe: refused: `pipe` is a FIFO or a socket, not a regular file (reading or writing it could block the run)"
            );
            // A device, where this user may make one (root): `/dev/null`'s
            // numbers, a read of which would succeed and say nothing.
            let null = rustix::fs::mknodat(
                rustix::fs::CWD,
                root.join("null"),
                FileType::CharacterDevice,
                Mode::from_raw_mode(0o600),
                rustix::fs::makedev(1, 3),
            );
            if null.is_ok() {
                let err = b.read(Path::new("null")).expect_err("refused");
                assert!(
                    matches!(
                        err,
                        Error::NotRegular {
                            kind: "a character device"
                        }
                    ),
                    "{resolve:?}: {err:?}"
                );
            } else {
                eprintln!("no device node could be made here: only the FIFO was tested");
            }
        }
    }
}
