//! The one way to reach a file beneath a root directory: every reader and
//! writer of a path a cloned repository or a model can shape goes through
//! [`Root`], and its rules are kept here, once.
//!
//! The root is usually a repository someone else wrote. Every name under it
//! is then theirs, symbolic links included: a committed `logs ->
//! ~/.bashrc.d` would carry an audit log into a directory a shell sources, a
//! committed `io.toml -> .env` would put a gitignored key in a parse error,
//! a committed `.io -> data` would make a journal git cannot see look like
//! one the operator's own run wrote. So:
//!
//! 1. **State the program owns** (the names given to [`Root::own`], such as
//!    a `.io` directory, and everything under them; or any path opened with
//!    [`Links::None`]) is reached with **no symbolic link at all**, neither on
//!    the way nor at the end. A path that is not owned but leads into owned
//!    state through a link is refused too ([`Error::Owned`]).
//! 2. **Any other path** is resolved beneath the root: a link is followed
//!    only while it stays under it ([`Links::Beneath`], the default). A
//!    reader of the operator's own file, such as a config file, may let a
//!    link lead anywhere ([`Links::Anywhere`]).
//! 3. **A file reached through any symbolic link**, inside the root as well
//!    as out of it, is said to be so ([`Opened::via`]): its caller shows
//!    nothing of what it holds in any message, since a committed link's
//!    target may be the operator's ignored `.env`.
//! 4. **A file's kind is judged on the descriptor that was opened**, in one
//!    path walk: a FIFO, a socket or a device is refused
//!    ([`Error::NotRegular`]), as is a file of the kernel's own file systems
//!    (`/proc`, `/sys`; [`Error::Kernel`]). On Linux a file opened for
//!    reading is first reached with `O_PATH`, which opens nothing, judged,
//!    and only then opened through `/proc/self/fd`: a device is never
//!    opened (opening one can act: a tape rewinds), a FIFO never waited on.
//! 5. Nothing is created through a symbolic link: a link to nothing is
//!    refused ([`Error::LinkToNothing`]), never made into a file.
//!
//! On Linux the kernel resolves each path with `openat2`:
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` first (one call, the common
//! case), and only when that meets a link, `RESOLVE_BENEATH |
//! RESOLVE_NO_MAGICLINKS`, after which where the file lies is read back
//! from `/proc/self/fd` to refuse owned state. Where `openat2` is missing
//! (`ENOSYS`: a kernel before 5.6; `EPERM`: a seccomp filter; every other
//! system) the path is walked one component at a time, each opened with
//! `O_NOFOLLOW`, so no link under the root is followed at all.
//!
//! ```
//! use io_hooks::beneath::{Error, Open, Root};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir(dir.path().join("state"))?;
//! std::fs::write(dir.path().join("notes.md"), "# notes\n")?;
//! std::os::unix::fs::symlink("/etc", dir.path().join("etc"))?;
//! std::os::unix::fs::symlink("state", dir.path().join("cache"))?;
//!
//! let root = Root::open(dir.path())?.own("state");
//! let notes = root.open_file("notes.md", &Open::read())?;
//! assert!(!notes.via().through_link());
//!
//! // A link out of the root, and a link into what the program owns.
//! assert!(matches!(root.open_file("etc/passwd", &Open::read()), Err(Error::Outside { .. })));
//! let into_state = root.open_file("cache/x", &Open::write().create(0o600));
//! assert!(matches!(into_state, Err(Error::Owned)));
//! assert!(!dir.path().join("state/x").exists());
//!
//! // The program's own state, by its name, with no link on the way.
//! let file = root.open_file("state/run.jsonl", &Open::append().create(0o600).dirs(0o700))?;
//! drop(file);
//! assert!(dir.path().join("state/run.jsonl").is_file());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

/// Set once `openat2` has answered `ENOSYS` or `EPERM`: it is not asked
/// again in this process.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// A directory that files are reached beneath, by the rules of the
/// [module](self): opened once, and every name under it resolved from that
/// descriptor, so a root renamed or replaced meanwhile changes nothing.
pub struct Root {
    /// As given.
    path: PathBuf,
    /// The directory, opened.
    fd: OwnedFd,
    /// The top-level names whose trees are the program's own state.
    owned: Vec<OsString>,
    /// The walk only (tests force the fallback).
    walk: bool,
}

impl fmt::Debug for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Root")
            .field("path", &self.path)
            .field("owned", &self.owned)
            .finish_non_exhaustive()
    }
}

impl AsFd for Root {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// What a symbolic link on the way to a file that is not owned state may
/// do. Owned state is always reached as [`Links::None`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Links {
    /// No link at all, anywhere on the way: what owned state is reached
    /// with.
    None,
    /// A link is followed while it stays under the root (the default).
    #[default]
    Beneath,
    /// A link may lead anywhere, for a file the operator's word covers (a
    /// config file at the root): read-only, and [`Opened::via`] says where
    /// it led. An open that writes treats this as [`Links::Beneath`].
    Anywhere,
}

/// How a file was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Via {
    /// By its names alone: no symbolic link on the way.
    Direct,
    /// Through a symbolic link that stays under the root.
    LinkBeneath,
    /// Through a symbolic link that leads out of the root (only with
    /// [`Links::Anywhere`]); also said when where it leads could not be
    /// told (without `openat2`).
    LinkOut,
}

impl Via {
    /// Whether a symbolic link was on the way: then nothing of the file
    /// may be shown in a message.
    pub fn through_link(self) -> bool {
        self != Via::Direct
    }
}

/// What an open does: read (the default), write or append; create the file
/// and its directories; how links are treated. Built as
/// `Open::write().create(0o600).truncate()`.
#[derive(Debug, Clone)]
pub struct Open {
    write: bool,
    append: bool,
    truncate: bool,
    create: Option<u32>,
    dirs: Option<u32>,
    links: Links,
    not_owned: bool,
}

impl Open {
    /// Open for reading. A directory is opened too (its read fails, naming
    /// it); a FIFO, socket or device is refused.
    pub fn read() -> Self {
        Open {
            write: false,
            append: false,
            truncate: false,
            create: None,
            dirs: None,
            links: Links::Beneath,
            not_owned: false,
        }
    }

    /// Open for writing, from the start of the file.
    pub fn write() -> Self {
        Open {
            write: true,
            ..Open::read()
        }
    }

    /// Open for appending: each write goes to the end.
    pub fn append() -> Self {
        Open {
            append: true,
            ..Open::write()
        }
    }

    /// Create the file with `mode` (before the umask) when it is missing.
    pub fn create(mut self, mode: u32) -> Self {
        self.create = Some(mode);
        self
    }

    /// Empty the file when it is opened.
    pub fn truncate(mut self) -> Self {
        self.truncate = true;
        self
    }

    /// Make the missing directories on the way, with `mode` (before the
    /// umask).
    pub fn dirs(mut self, mode: u32) -> Self {
        self.dirs = Some(mode);
        self
    }

    /// How a symbolic link on the way is treated ([`Links`]).
    pub fn links(mut self, links: Links) -> Self {
        self.links = links;
        self
    }

    /// Refuse owned state, by its name or through a link
    /// ([`Error::Owned`]): for an open on someone else's behalf (a model's
    /// `write_file`), which must never reach the program's own files.
    pub fn not_owned(mut self) -> Self {
        self.not_owned = true;
        self
    }

    /// The flags of the one open that creates, writes or reads directly.
    fn flags(&self) -> OFlags {
        let mut flags = match self.write {
            true => OFlags::WRONLY,
            false => OFlags::RDONLY | OFlags::NOCTTY,
        };
        if self.append {
            flags |= OFlags::APPEND;
        }
        if self.truncate {
            flags |= OFlags::TRUNC;
        }
        if self.create.is_some() {
            flags |= OFlags::CREATE;
        }
        // A FIFO nobody writes would hold a read open for ever; a write-only
        // open of one nobody reads fails at once (`ENXIO`).
        flags | OFlags::NONBLOCK | OFlags::CLOEXEC
    }

    /// `openat2` refuses a mode without `O_CREAT`.
    fn mode(&self) -> Mode {
        self.create.map_or(Mode::empty(), raw_mode)
    }

    /// How links are treated for a path that is not owned state.
    fn links_for(&self, owned: bool) -> Links {
        match (owned, self.links) {
            (true, _) => Links::None,
            (false, Links::Anywhere) if self.write => Links::Beneath,
            (false, links) => links,
        }
    }
}

/// A file opened beneath a [`Root`], and how it was reached.
#[derive(Debug)]
pub struct Opened {
    file: File,
    via: Via,
}

impl Opened {
    /// The file.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The file, owned.
    pub fn into_file(self) -> File {
        self.file
    }

    /// How it was reached: through a symbolic link or not.
    pub fn via(&self) -> Via {
        self.via
    }

    /// The whole of the file, or `None` once it holds more than `limit`
    /// bytes. The size the system reports is not trusted (a file can grow
    /// after any check): it is read in 8 KiB reads, so at most one read past
    /// the limit is held.
    ///
    /// # Errors
    /// A read that fails (a directory: "Is a directory").
    pub fn read_bounded(self, limit: u64) -> io::Result<Option<Vec<u8>>> {
        read_bounded(self.file, limit)
    }
}

/// [`Opened::read_bounded`], of any reader: a read a signal interrupts is
/// tried again.
fn read_bounded(mut file: impl Read, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    let mut chunk = [0; 8192];
    loop {
        match file.read(&mut chunk) {
            Ok(0) => return Ok(Some(bytes)),
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        if bytes.len() as u64 > limit {
            return Ok(None);
        }
    }
}

/// Why a file could not be reached beneath the root.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The path leads out of the root: an absolute path, `..`, or a
    /// symbolic link out. `through` names the link when only a walk (no
    /// `openat2`) met it, which cannot tell where it leads.
    Outside {
        /// The link met on the way, relative to the root, when known.
        through: Option<PathBuf>,
    },
    /// A symbolic link where none may be: on the way to owned state, or to
    /// a file opened with [`Links::None`]. It stays under the root.
    Link,
    /// The path is (by its name), or leads to (through a link), the
    /// program's own state, which this open may not reach.
    Owned,
    /// The path ends in a symbolic link to nothing, through which no file
    /// is created.
    LinkToNothing,
    /// The file is a FIFO, a socket or a device: refused without a read or
    /// a write, which could wait for ever or never end.
    NotRegular {
        /// What it is, as `a FIFO`.
        kind: &'static str,
    },
    /// The file belongs to one of the kernel's own file systems, whose
    /// "regular" files can block a read, hold secrets or act when read.
    Kernel {
        /// The file system, as `proc`.
        fs: &'static str,
    },
    /// Any other failure, as the system reported it.
    Io(io::Error),
}

impl From<Errno> for Error {
    fn from(e: Errno) -> Self {
        Error::Io(e.into())
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Io(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Outside { through: None } => f.write_str(
                "it leads out of the root (through `..`, an absolute path or a symbolic link)",
            ),
            Error::Outside {
                through: Some(link),
            } => write!(
                f,
                "it goes through the symbolic link `{}`, which may lead out of the root (without \
                 openat2 no link is followed)",
                link.display()
            ),
            Error::Link => f.write_str(
                "it goes through a symbolic link, and this file is reached through none",
            ),
            Error::Owned => f.write_str("it is, or leads into, the program's own state"),
            Error::LinkToNothing => f.write_str(
                "it is a symbolic link to a file that does not exist, and no file is created \
                 through a link",
            ),
            Error::NotRegular { kind } => write!(f, "it is {kind}, not a regular file"),
            Error::Kernel { fs } => write!(
                f,
                "it is a file of the kernel's {fs} file system (as under /proc or /sys), whose \
                 reads can block or hold secrets"
            ),
            Error::Io(e) => write!(f, "{}", crate::message::OsMessage(e)),
        }
    }
}

/// `Display` says all of it; `source()` returns nothing.
impl std::error::Error for Error {}

impl Root {
    /// Opens the directory `path` as a root.
    ///
    /// # Errors
    /// When `path` cannot be opened as a directory.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref();
        Ok(Root {
            path: path.to_path_buf(),
            fd: open_dir(path)?,
            owned: Vec::new(),
            walk: false,
        })
    }

    /// Names a top-level entry of the root (as `.io`) whose whole tree is
    /// the program's own state: reached with no symbolic link, and never
    /// through one from elsewhere. A name matches in any ASCII case, since a
    /// file system that folds case opens `.IO` as `.io`.
    pub fn own(mut self, name: impl Into<OsString>) -> Self {
        self.owned.push(name.into());
        self
    }

    /// The root's path, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `rel` names owned state by its first component.
    pub fn is_owned(&self, rel: &Path) -> bool {
        let first = rel.components().find_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        });
        first.is_some_and(|name| self.owns(name))
    }

    /// Whether `name` is one of the owned top-level names.
    fn owns(&self, name: &OsStr) -> bool {
        self.owned
            .iter()
            .any(|owned| owned.eq_ignore_ascii_case(name))
    }

    /// Opens `rel`, a relative path without `..`, beneath the root as `how`
    /// says, by the rules of the [module](self).
    ///
    /// # Errors
    /// See [`Error`]; a file that does not exist is
    /// `Error::Io` of kind `NotFound`.
    pub fn open_file(&self, rel: impl AsRef<Path>, how: &Open) -> Result<Opened, Error> {
        let rel = rel.as_ref();
        let names = names(rel)?;
        let Some((last, parents)) = names.split_last() else {
            return Err(no_file());
        };
        let owned = self.owns(names[0]);
        if owned && how.not_owned {
            return Err(Error::Owned);
        }
        let links = how.links_for(owned);
        let rel: PathBuf = names.iter().collect();
        let proc = Proc::open();
        // Without any link: one call.
        let direct = match (&proc, how.write) {
            (Some(_), false) => path_only(),
            _ => how.flags(),
        };
        match self.resolve(&rel, direct, how.mode(), Links::None) {
            Ok(fd) => return self.finish(fd, Via::Direct, how, proc.as_ref()),
            Err(Miss::Errno(Errno::NOENT)) if how.dirs.is_some() && !parents.is_empty() => {
                return self.create_in(parents, last, how, links, proc.as_ref());
            }
            Err(Miss::Errno(Errno::NXIO)) => return Err(fifo_or_socket()),
            Err(Miss::Errno(Errno::LOOP | Errno::NOTDIR) | Miss::Link(_))
                if links != Links::None && self.has_link(&rel) => {}
            Err(miss) => return Err(self.missed(&rel, miss, Links::None)),
        }
        // A link on the way: followed as far as `links` lets it, reaching
        // the file without creating, truncating or opening it.
        match self.follow(&rel, links, proc.as_ref(), how) {
            Err(Error::Io(e)) if e.kind() == io::ErrorKind::NotFound && how.create.is_some() => {
                self.create_in(parents, last, how, links, proc.as_ref())
            }
            other => other,
        }
    }

    /// Reaches `rel` through the links on its way, as `links` allows, and
    /// opens it as `how` says.
    fn follow(
        &self,
        rel: &Path,
        links: Links,
        proc: Option<&Proc>,
        how: &Open,
    ) -> Result<Opened, Error> {
        let Some(proc) = proc else {
            // Nothing to tell where a link led: for the operator's own
            // file, the kernel follows it; otherwise no link is followed.
            if links == Links::Anywhere && !how.write {
                let fd = rustix::fs::openat(&self.fd, rel, how.flags(), Mode::empty())
                    .map_err(|e| nxio(e.into()))?;
                return self.finish(fd, Via::LinkOut, how, None);
            }
            return Err(Error::Outside {
                through: self.first_link(rel),
            });
        };
        let (fd, via) = match self.resolve(rel, path_only(), Mode::empty(), Links::Beneath) {
            Ok(fd) => (fd, Via::LinkBeneath),
            Err(Miss::Errno(Errno::XDEV) | Miss::Link(_)) if links == Links::Anywhere => {
                let fd = self
                    .resolve(rel, path_only(), Mode::empty(), Links::Anywhere)
                    .map_err(|miss| self.missed(rel, miss, Links::Anywhere))?;
                (fd, Via::LinkOut)
            }
            Err(miss) => return Err(self.missed(rel, miss, Links::Beneath)),
        };
        self.finish(fd, via, how, Some(proc))
    }

    /// Makes the directories `parents` (when `how` says so) and creates or
    /// opens `last` in the last of them, never through a link at its end.
    fn create_in(
        &self,
        parents: &[&OsStr],
        last: &OsStr,
        how: &Open,
        links: Links,
        proc: Option<&Proc>,
    ) -> Result<Opened, Error> {
        let mut dir: Option<OwnedFd> = None;
        let mut via = Via::Direct;
        let mut prefix = PathBuf::new();
        for name in parents {
            if let Some(mode) = how.dirs {
                let at = dir.as_ref().map_or(self.fd.as_fd(), AsFd::as_fd);
                match rustix::fs::mkdirat(at, *name, raw_mode(mode)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            prefix.push(name);
            let (fd, reached) = self.dir(&prefix, links, proc)?;
            if reached.through_link() {
                via = reached;
            }
            dir = Some(fd);
        }
        let at = dir.as_ref().map_or(self.fd.as_fd(), AsFd::as_fd);
        let flags = how.flags() | OFlags::NOFOLLOW;
        match rustix::fs::openat(at, last, flags, how.mode()) {
            Ok(fd) => self.finish(fd, via, how, proc),
            Err(Errno::LOOP) => Err(self.dangling(at, last, proc)),
            Err(e) => Err(nxio(e.into())),
        }
    }

    /// Opens the directory `prefix`, through links as `links` allows;
    /// refuses owned state reached through one.
    fn dir(
        &self,
        prefix: &Path,
        links: Links,
        proc: Option<&Proc>,
    ) -> Result<(OwnedFd, Via), Error> {
        let flags = dir_flags();
        match self.resolve(prefix, flags, Mode::empty(), Links::None) {
            Ok(fd) => return Ok((fd, Via::Direct)),
            Err(Miss::Errno(Errno::LOOP | Errno::NOTDIR) | Miss::Link(_))
                if links != Links::None && self.has_link(prefix) => {}
            Err(miss) => return Err(self.missed(prefix, miss, Links::None)),
        }
        let Some(proc) = proc else {
            // Nothing to tell where the link led: not followed.
            return Err(Error::Outside {
                through: self.first_link(prefix),
            });
        };
        let fd = self
            .resolve(prefix, flags, Mode::empty(), Links::Beneath)
            .map_err(|miss| self.missed(prefix, miss, Links::Beneath))?;
        if self.lies_in_owned(&fd, proc) {
            return Err(Error::Owned);
        }
        Ok((fd, Via::LinkBeneath))
    }

    /// The file opened (or, on Linux for a read or a file reached through a
    /// link, reached with `O_PATH`) as `fd`, judged and then opened as
    /// `how` says.
    fn finish(
        &self,
        fd: OwnedFd,
        via: Via,
        how: &Open,
        proc: Option<&Proc>,
    ) -> Result<Opened, Error> {
        let stat = rustix::fs::fstat(&fd)?;
        let kind = FileType::from_raw_mode(stat.st_mode);
        if kind == FileType::Symlink {
            return Err(Error::Link);
        }
        if let Some(kind) = special(kind) {
            return Err(Error::NotRegular { kind });
        }
        if let Some(fs) = kernel_fs(&fd)? {
            return Err(Error::Kernel { fs });
        }
        if via == Via::LinkBeneath
            && let Some(proc) = proc
            && self.lies_in_owned(&fd, proc)
        {
            return Err(Error::Owned);
        }
        let opened = match proc {
            Some(proc) if is_path_only(&fd) => {
                if how.write && kind == FileType::Directory {
                    return Err(Errno::ISDIR.into());
                }
                // Created already, or it would not be here.
                let flags = how.flags() - OFlags::CREATE;
                proc.reopen(&fd, flags)?
            }
            _ => fd,
        };
        Ok(Opened {
            file: File::from(opened),
            via,
        })
    }

    /// Whether the file open as `fd` lies in owned state, as the kernel
    /// names where it is.
    fn lies_in_owned(&self, fd: &OwnedFd, proc: &Proc) -> bool {
        if self.owned.is_empty() {
            return false;
        }
        let (Ok(root), Ok(file)) = (proc.path_of(self.fd.as_fd()), proc.path_of(fd.as_fd())) else {
            // Where it is cannot be told: refused, as if it were.
            return true;
        };
        file.strip_prefix(&root)
            .ok()
            .and_then(|rel| rel.iter().next())
            .is_some_and(|first| self.owns(first))
    }

    /// What a link at `last` in `dir` that leads to nothing is: owned
    /// state's, or a link to nothing.
    fn dangling(&self, dir: BorrowedFd<'_>, last: &OsStr, proc: Option<&Proc>) -> Error {
        let Ok(target) = rustix::fs::readlinkat(dir, last, Vec::new()) else {
            return Error::LinkToNothing;
        };
        let target = path_from(target.into_bytes());
        if target.is_absolute() {
            return Error::Outside { through: None };
        }
        let within = proc.and_then(|proc| {
            let root = proc.path_of(self.fd.as_fd()).ok()?;
            let dir = proc.path_of(dir).ok()?;
            Some(dir.strip_prefix(root).ok()?.to_path_buf())
        });
        let Some(within) = within else {
            return Error::LinkToNothing;
        };
        // Where the link's text leads, read as words: enough to name owned
        // state (nothing is created either way).
        let mut led = Vec::new();
        for part in within.join(&target).components() {
            match part {
                Component::Normal(name) => led.push(name.to_os_string()),
                Component::ParentDir if led.pop().is_none() => {
                    return Error::Outside { through: None };
                }
                _ => {}
            }
        }
        match led.first() {
            Some(first) if self.owns(first) => Error::Owned,
            _ => Error::LinkToNothing,
        }
    }

    /// The error for `rel` once its resolution with `used` missed as
    /// `miss`.
    fn missed(&self, rel: &Path, miss: Miss, used: Links) -> Error {
        match miss {
            Miss::Link(link) => Error::Outside {
                through: Some(link),
            },
            Miss::Errno(Errno::XDEV) => Error::Outside { through: None },
            Miss::Errno(Errno::NXIO) => fifo_or_socket(),
            // A link where none may be: out of the root, or not.
            Miss::Errno(Errno::LOOP | Errno::NOTDIR)
                if used == Links::None && self.has_link(rel) =>
            {
                match self.resolve(rel, path_only(), Mode::empty(), Links::Beneath) {
                    Err(Miss::Errno(Errno::XDEV)) => Error::Outside { through: None },
                    Err(Miss::Link(link)) => Error::Outside {
                        through: Some(link),
                    },
                    _ => Error::Link,
                }
            }
            Miss::Errno(e) => e.into(),
        }
    }

    /// Whether a component of `rel` is a symbolic link.
    fn has_link(&self, rel: &Path) -> bool {
        self.first_link(rel).is_some()
    }

    /// The first component of `rel` that is a symbolic link, as a path
    /// under the root: for a message only.
    fn first_link(&self, rel: &Path) -> Option<PathBuf> {
        let mut prefix = PathBuf::new();
        for name in rel {
            prefix.push(name);
            if is_link(self.fd.as_fd(), &prefix) {
                return Some(prefix);
            }
        }
        None
    }

    /// Opens `rel` from the root with `flags`, links as `links` says:
    /// `openat2` where the kernel has it, else the walk.
    fn resolve(
        &self,
        rel: &Path,
        flags: OFlags,
        mode: Mode,
        links: Links,
    ) -> Result<OwnedFd, Miss> {
        let flags = flags | OFlags::CLOEXEC;
        if !self.walk && !NO_OPENAT2.load(Ordering::Relaxed) {
            match kernel(self.fd.as_fd(), rel, flags, mode, links) {
                Err(Errno::NOSYS | Errno::PERM) => NO_OPENAT2.store(true, Ordering::Relaxed),
                other => return other.map_err(Miss::Errno),
            }
        }
        match links {
            Links::Anywhere => rustix::fs::openat(&self.fd, rel, flags, mode).map_err(Miss::Errno),
            Links::None | Links::Beneath => walk(self.fd.as_fd(), rel, flags, mode),
        }
    }
}

/// How a resolution missed: as the system said, or (the walk) at a link.
#[derive(Debug)]
enum Miss {
    Errno(Errno),
    /// The walk met this link, relative to the root, and followed none.
    Link(PathBuf),
}

/// The walk: every directory opened in the one before with `O_NOFOLLOW`,
/// and the last name too.
fn walk(root: BorrowedFd<'_>, rel: &Path, flags: OFlags, mode: Mode) -> Result<OwnedFd, Miss> {
    let names: Vec<&OsStr> = rel.iter().filter(|n| *n != ".").collect();
    let Some((last, parents)) = names.split_last() else {
        return Err(Miss::Errno(Errno::INVAL));
    };
    let mut dir: Option<OwnedFd> = None;
    let mut prefix = PathBuf::new();
    for name in parents {
        prefix.push(name);
        let at = dir.as_ref().map_or(root, AsFd::as_fd);
        match rustix::fs::openat(at, *name, dir_flags() | OFlags::NOFOLLOW, Mode::empty()) {
            Ok(fd) => dir = Some(fd),
            // `O_NOFOLLOW` on a link: `ELOOP`, or `ENOTDIR` with
            // `O_DIRECTORY`.
            Err(Errno::LOOP | Errno::NOTDIR) if is_link(at, *name) => {
                return Err(Miss::Link(prefix));
            }
            Err(e) => return Err(Miss::Errno(e)),
        }
    }
    prefix.push(last);
    let at = dir.as_ref().map_or(root, AsFd::as_fd);
    match rustix::fs::openat(at, *last, flags | OFlags::NOFOLLOW, mode) {
        Err(Errno::LOOP) if is_link(at, *last) => Err(Miss::Link(prefix)),
        // `O_PATH | O_NOFOLLOW` reaches the link itself.
        Ok(fd)
            if rustix::fs::fstat(&fd)
                .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink) =>
        {
            Err(Miss::Link(prefix))
        }
        other => other.map_err(Miss::Errno),
    }
}

/// `openat2` from `root`: beneath it, with no link (`Links::None`), a link
/// that stays beneath (`Links::Beneath`) or any but `/proc`'s magic links
/// (`Links::Anywhere`).
#[cfg(target_os = "linux")]
fn kernel(
    root: BorrowedFd<'_>,
    rel: &Path,
    flags: OFlags,
    mode: Mode,
    links: Links,
) -> rustix::io::Result<OwnedFd> {
    use rustix::fs::ResolveFlags;
    let resolve = match links {
        Links::None => ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS,
        Links::Beneath => ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
        Links::Anywhere => ResolveFlags::NO_MAGICLINKS,
    };
    rustix::fs::openat2(root, rel, flags, mode, resolve)
}

/// No `openat2` here: the walk.
#[cfg(not(target_os = "linux"))]
fn kernel(
    _: BorrowedFd<'_>,
    _: &Path,
    _: OFlags,
    _: Mode,
    _: Links,
) -> rustix::io::Result<OwnedFd> {
    Err(Errno::NOSYS)
}

/// `/proc/self/fd`, checked to be the kernel's: where a descriptor's file
/// lies, and a file reached with `O_PATH` opened for real.
struct Proc(OwnedFd);

impl Proc {
    /// `/proc/self/fd`, when it is mounted and is procfs.
    #[cfg(target_os = "linux")]
    fn open() -> Option<Proc> {
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = rustix::fs::open("/proc/self/fd", flags, Mode::empty()).ok()?;
        let kind = rustix::fs::fstatfs(&fd).ok()?.f_type;
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        let proc = i64::from(kind) as u64 == PROC_MAGIC;
        proc.then_some(Proc(fd))
    }

    /// No `/proc` to ask elsewhere.
    #[cfg(not(target_os = "linux"))]
    fn open() -> Option<Proc> {
        None
    }

    /// The name of `fd` in this directory.
    fn name(fd: BorrowedFd<'_>) -> String {
        use rustix::fd::AsRawFd;
        fd.as_raw_fd().to_string()
    }

    /// Where the file open as `fd` lies, as the kernel names it.
    fn path_of(&self, fd: BorrowedFd<'_>) -> io::Result<PathBuf> {
        let link = rustix::fs::readlinkat(&self.0, Self::name(fd), Vec::new())?;
        Ok(path_from(link.into_bytes()))
    }

    /// The file reached as `fd` (with `O_PATH`) opened with `flags`: the
    /// same file, whatever its path now leads to.
    fn reopen(&self, fd: &OwnedFd, flags: OFlags) -> Result<OwnedFd, Error> {
        rustix::fs::openat(&self.0, Self::name(fd.as_fd()), flags, Mode::empty())
            .map_err(|e| nxio(e.into()))
    }
}

/// procfs's `f_type`.
#[cfg(target_os = "linux")]
const PROC_MAGIC: u64 = 0x9fa0;

/// The flags that reach a file without opening it (`O_PATH`), where the
/// system has them.
#[cfg(target_os = "linux")]
fn path_only() -> OFlags {
    OFlags::PATH | OFlags::CLOEXEC
}

/// No `O_PATH`: a read that does not block.
#[cfg(not(target_os = "linux"))]
fn path_only() -> OFlags {
    OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
}

/// Whether `fd` was opened with `O_PATH`.
#[cfg(target_os = "linux")]
fn is_path_only(fd: &OwnedFd) -> bool {
    rustix::fs::fcntl_getfl(fd).is_ok_and(|flags| flags.contains(OFlags::PATH))
}

/// No `O_PATH` here.
#[cfg(not(target_os = "linux"))]
fn is_path_only(_: &OwnedFd) -> bool {
    false
}

/// The flags a directory on the way is opened with.
#[cfg(target_os = "linux")]
fn dir_flags() -> OFlags {
    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC
}

/// The flags a directory on the way is opened with.
#[cfg(not(target_os = "linux"))]
fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC
}

/// Opens the directory `path`, to resolve names beneath it.
pub(crate) fn open_dir(path: &Path) -> io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    Ok(rustix::fs::open(path, flags, Mode::empty())?)
}

/// The path whose bytes are `bytes`, as a link holds it.
fn path_from(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(<OsString as std::os::unix::ffi::OsStringExt>::from_vec(
        bytes,
    ))
}

/// A mode given as a number, as the system's own width.
fn raw_mode(mode: u32) -> Mode {
    #[allow(
        clippy::unnecessary_cast,
        reason = "mode_t is u16 on macOS and FreeBSD"
    )]
    Mode::from_raw_mode(mode as rustix::fs::RawMode)
}

/// `ENXIO` from an open is a write-only open of a FIFO nobody reads, or of
/// a socket.
fn nxio(e: Error) -> Error {
    match e {
        Error::Io(io) if io.raw_os_error() == Some(Errno::NXIO.raw_os_error()) => fifo_or_socket(),
        other => other,
    }
}

fn fifo_or_socket() -> Error {
    Error::NotRegular {
        kind: "a FIFO or a socket",
    }
}

fn no_file() -> Error {
    Error::Io(io::Error::new(
        io::ErrorKind::InvalidInput,
        "the path names no file",
    ))
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

/// The magic numbers (`statfs`'s `f_type`) of the kernel's own file
/// systems, whose "regular" files are not files: `/proc/kmsg` and
/// tracefs's `trace_pipe` block a read until the kernel has something to
/// say, `/proc/self/environ` holds the environment's secrets, and a `/sys`
/// attribute can act when read.
const KERNEL_FILE_SYSTEMS: [(u64, &str); 8] = [
    (0x9fa0, "proc"),
    (0x6265_6572, "sysfs"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x7363_6673, "securityfs"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0x6265_6570, "configfs"),
];

/// The kernel file system `fd`'s file is on, if it is one of those.
fn kernel_fs(fd: &OwnedFd) -> io::Result<Option<&'static str>> {
    // `f_type` is an `i64` on x86-64 and narrower or unsigned elsewhere.
    #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
    let kind = rustix::fs::fstatfs(fd)?.f_type as u64;
    Ok(KERNEL_FILE_SYSTEMS
        .iter()
        .find(|(magic, _)| *magic == kind)
        .map(|(_, name)| *name))
}

/// Whether `name` in `dir` is a symbolic link.
pub(crate) fn is_link(dir: BorrowedFd<'_>, name: impl rustix::path::Arg) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink)
}

/// The names `rel` is made of; `Outside` for an absolute path or one with
/// `..` anywhere in it (which `openat2` would allow while it stays under
/// the root, and the walk could not check).
fn names(rel: &Path) -> Result<Vec<&OsStr>, Error> {
    let mut names = Vec::new();
    for component in rel.components() {
        match component {
            Component::CurDir => {}
            Component::Normal(name) => names.push(name),
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(Error::Outside { through: None });
            }
        }
    }
    Ok(names)
}

/// Whether `name` is relative and has no `..`.
pub(crate) fn stays_beneath(name: &Path) -> bool {
    names(name).is_ok()
}

/// How the `append` action's per-event open resolves a name beneath the
/// root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolve {
    /// `openat2` where the kernel has it, else [`Resolve::Walk`].
    Auto,
    /// One component at a time with `O_NOFOLLOW` (the fallback; tests force
    /// it).
    #[cfg_attr(not(test), allow(dead_code))]
    Walk,
}

/// The `append` action's per-event open of `name` beneath the directory
/// `root`: one `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` (a
/// link is followed only while it stays under the root), else the walk,
/// which follows none. What the last name may be is `flags`'s business
/// (`O_NOFOLLOW` refuses a link there); close-on-exec is added. This is the
/// rule [`Links::Beneath`] states, on the one call an event can afford: no
/// `fstat`, no `/proc`, judged when the hooks are built instead.
pub(crate) fn open_beneath(
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
        match kernel(root, name, flags, mode, Links::Beneath) {
            Err(Errno::NOSYS | Errno::PERM) => NO_OPENAT2.store(true, Ordering::Relaxed),
            Err(Errno::XDEV) => return Err(Error::Outside { through: None }),
            other => return other.map_err(Error::from),
        }
    }
    let depth = name.iter().filter(|n| *n != ".").count();
    match walk(root, name, flags, mode) {
        Ok(fd) => Ok(fd),
        // The last name is `flags`'s business: `O_NOFOLLOW`'s `ELOOP`.
        Err(Miss::Link(link)) if link.iter().count() == depth => Err(Errno::LOOP.into()),
        Err(Miss::Link(link)) => Err(Error::Outside {
            through: Some(link),
        }),
        Err(Miss::Errno(e)) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests;
