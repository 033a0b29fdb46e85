//! Root-confined file access: the one way to reach a file beneath a root
//! directory. Every reader and writer of a path a cloned repository or a
//! model can shape goes through a [`Root`] (one capability: the directory,
//! held open, beneath which names are resolved) and its one door,
//! [`Root::open_file`], whose [`Open`] says what the open does; the rules
//! are kept here, once. This crate is the only code of io-harness allowed
//! to open a file (clippy's `disallowed-methods` keeps the rest to it).
//!
//! ```
//! # #[cfg(unix)] fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use io_beneath::{Error, Open, Root, Way};
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
//! assert_eq!(
//!     into_state.unwrap_err().to_string(),
//!     "it reaches `state`, the program's own state, through the symbolic link `cache`, and that \
//!      state is never reached through a link"
//! );
//! assert!(!dir.path().join("state/x").exists());
//!
//! // Owned state by its name: refused to any open but one of that state,
//! // which reaches it with no link on the way.
//! let by_name = root.open_file("state/x", &Open::write().create(0o600));
//! assert!(matches!(by_name, Err(Error::Owned { way: Way::Name, .. })));
//! let journal = Open::append().create(0o600).dirs(0o700).own_state();
//! drop(root.open_file("state/run.jsonl", &journal)?);
//! assert!(dir.path().join("state/run.jsonl").is_file());
//! # Ok(())
//! # }
//! # #[cfg(not(unix))] fn main() {} // Its links are Unix's: see the `windows` module's tests.
//! ```
//!
//! # What it guarantees
//!
//! The root is usually a repository someone else wrote. Every name under it
//! is then theirs, symbolic links included: a committed `logs ->
//! ~/.bashrc.d` would carry an audit log into a directory a shell sources, a
//! committed `io.toml -> .env` would put a gitignored key in a parse error,
//! a committed `.io -> data` would make a journal git cannot see look like
//! one the operator's own run wrote. So:
//!
//! 1. **State the program owns** (the names given to [`Root::own`], such as
//!    a `.io` directory, and everything under them) is **out of every
//!    other open's reach**: only an open marked as one of that state
//!    ([`Open::own_state`]) reaches it, by its names and with **no
//!    symbolic link at all**, neither on the way nor at the end (as is any
//!    path opened with [`Links::None`]). Every other open through the root
//!    (an action's, a plug-in's, a model's tool's) refuses a path that
//!    reaches it ([`Error::Owned`], which names the owned name and the
//!    way): by its name (in any ASCII case, and with the code points HFS+
//!    ignores left out, as macOS opens `.IO` and `.i\u{200c}o` as `.io`),
//!    through `..`, or through a symbolic link, or a chain of them, to it
//!    or to anything in it. Where a link leads is judged on the descriptor
//!    the kernel resolved beneath the root, before anything is created or
//!    opened for real, at every open: owned state made after a first look
//!    is refused as well.
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
//! An [unjudged](Open::unjudged) open, for a file opened at every event
//! and judged once beforehand, keeps rules 1 (on a root that owns state a
//! path with a link on the way is judged) and 2, and refuses a link at the
//! end with [`Open::nofollow`]; it skips the judging of rules 3 and 4.
//!
//! # How
//!
//! On Linux the kernel resolves each path with `openat2`:
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` first (one call, the common
//! case), and only when that meets a link, `RESOLVE_BENEATH |
//! RESOLVE_NO_MAGICLINKS`. Where that led is read back from
//! `/proc/self/fd`, for the file or for the directory a file is to be
//! created in, before anything is created or opened for real, to refuse
//! owned state. A path with `..` (never resolved) or through a link to a
//! name not there yet is read as words, each link replaced by its text,
//! only to name the owned state it reaches in its refusal. Where `openat2`
//! is missing (`ENOSYS`: a kernel before 5.6; `EPERM`: a seccomp filter;
//! every other system) the path is walked one component at a time, each
//! opened with `O_NOFOLLOW`, so no link under the root is followed at all
//! and owned state is reached by its names alone. An `openat2`
//! that answers `EAGAIN` (a rename anywhere on the host raced it) is asked
//! again, at most four times in all as cap-std does, and the path is then
//! walked for that open. A path of one name opened with
//! [`Open::nofollow`] is one plain `openat` from the root's descriptor:
//! with no `/` in it and `O_NOFOLLOW` on it, there is nothing for
//! `openat2` to check, and it is the cheaper call (an `append` hook's
//! per-event open of a file at the root).
//!
//! # Windows
//!
//! The root is a directory handle (cap-std's `Dir`) and a path is walked
//! from it one name at a time, each opened without following a reparse
//! point (cap-fs-ext's `FollowSymlinks::No`), as Unix walks without
//! `openat2`: no symbolic link or junction under the root is followed, and
//! a path that meets one is refused as [`Error::Outside`] naming it (only
//! the operator's own read, [`Links::Anywhere`], follows it, and is told
//! [`Via::LinkOut`]). A link or a junction as the last name of an
//! [unjudged](Open::unjudged) [`nofollow`](Open::nofollow) open (the
//! per-event append) is `Error::Io` of `ERROR_STOPPED_ON_SYMLINK`, as it is
//! `ELOOP` on Unix. Refused before anything is opened: a name Windows
//! reserves for a device (`CON`, `NUL`, `COM1`, in any case and with any
//! extension; [`Error::NotRegular`]), a `name:stream` (an alternate data
//! stream; `Error::Io` of kind `InvalidInput`), a drive or UNC prefix
//! (`C:`, `\\.\`; [`Error::Outside`]), and a name that reaches owned
//! state as [`Root::own`] says. What a file is, is judged on its handle: a
//! regular file or a directory. An append is opened with the right to
//! append and not to write elsewhere (`FILE_APPEND_DATA` without
//! `FILE_WRITE_DATA`), so each write goes to the end of the file whoever
//! else writes to it. There is no `/proc`: [`Error::Kernel`] is never returned.
//!
//! # Errors
//!
//! [`Error`]'s `Display` says the whole of it, an OS error without std's
//! " (os error N)", and `source()` returns nothing: a chain printer shows
//! each cause once.

#![forbid(unsafe_code)]
// This crate is the one place a file is opened: the workspace's
// `disallowed-methods` rule (`.ci/clippy/clippy.toml`) is for the others.
#![allow(
    clippy::disallowed_methods,
    reason = "io-beneath is the one crate that opens files"
)]

#[cfg(not(any(unix, windows)))]
compile_error!(
    "io-beneath needs Unix or Windows: directory descriptors or handles to resolve names beneath \
     (openat and O_NOFOLLOW, or cap-std's Dir), and their file types; this target has neither"
);

#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows::open_dir;

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
#[cfg(unix)]
use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(unix)]
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
#[cfg(unix)]
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
#[cfg(unix)]
use rustix::io::Errno;

/// An open directory that names are opened beneath: a descriptor on Unix,
/// a handle (cap-std's `Dir`) on Windows.
#[cfg(unix)]
type DirHandle = OwnedFd;
/// An open directory that names are opened beneath: a descriptor on Unix,
/// a handle (cap-std's `Dir`) on Windows.
#[cfg(windows)]
type DirHandle = cap_std::fs::Dir;

/// Set once `openat2` has answered `ENOSYS` or `EPERM`: it is not asked
/// again in this process.
#[cfg(unix)]
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// A directory beneath which paths are resolved: the one capability this
/// crate opens files through, by the rules of the [crate](self).
///
/// It holds the path as given, that path made absolute (without resolving
/// links) when the root was made, and a descriptor of the directory from
/// which every name under it is resolved, so a root renamed or replaced
/// meanwhile changes nothing.
///
/// [`Root::open`] opens the directory now and fails when it cannot;
/// [`Root::lazy`] is for a root that may not exist yet (a directory a
/// program's configuration names): one it could not open is opened at each
/// [`Root::open_file`] instead, and that open fails as the directory's open
/// fails.
pub struct Root {
    /// As given.
    given: PathBuf,
    /// `given` made absolute, without resolving links.
    path: PathBuf,
    /// The directory, opened; `None` for a lazy root that could not be
    /// opened when it was made, opened then at each open.
    fd: Option<DirHandle>,
    /// The top-level names whose trees are the program's own state.
    owned: Vec<OsString>,
    /// The walk only (tests force the fallback).
    #[cfg(unix)]
    walk: bool,
    /// No `/proc` to ask (tests force the fallback of a system without it).
    #[cfg(unix)]
    no_proc: bool,
}

impl fmt::Debug for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Root")
            .field("given", &self.given)
            .field("path", &self.path)
            .field("open", &self.fd.is_some())
            .field("owned", &self.owned)
            .finish_non_exhaustive()
    }
}

/// `given` made absolute against the working directory now, without
/// resolving links: an empty path, as `Path::new("app.toml").parent()`
/// gives, is the working directory itself. Only when the working directory
/// is gone does it stay as given, and an open through it fails saying why.
fn absolute(given: &Path) -> PathBuf {
    let path = match given.as_os_str().is_empty() {
        true => std::env::current_dir(),
        false => std::path::absolute(given),
    };
    path.unwrap_or_else(|_| given.to_path_buf())
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
    /// Not told: the open was [unjudged](Open::unjudged), and a link that
    /// stays beneath the root may have been on the way.
    Untold,
}

impl Via {
    /// Returns whether a symbolic link was, or may have been, on the way:
    /// then nothing of the file may be shown in a message.
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
    own: bool,
    nofollow: bool,
    unjudged: bool,
}

impl Open {
    /// Returns an open for reading.
    ///
    /// A directory is opened too (its read fails, naming it); a FIFO, a
    /// socket or a device is refused.
    pub fn read() -> Self {
        Open {
            write: false,
            append: false,
            truncate: false,
            create: None,
            dirs: None,
            links: Links::Beneath,
            own: false,
            nofollow: false,
            unjudged: false,
        }
    }

    /// Returns an open for writing, from the start of the file.
    pub fn write() -> Self {
        Open {
            write: true,
            ..Open::read()
        }
    }

    /// Returns an open for appending: each write goes to the end.
    pub fn append() -> Self {
        Open {
            append: true,
            ..Open::write()
        }
    }

    /// Returns this open, creating the file with `mode` (before the umask)
    /// when it is missing. On Windows `mode` is not used: the file takes
    /// its directory's inherited access control list.
    pub fn create(mut self, mode: u32) -> Self {
        self.create = Some(mode);
        self
    }

    /// Returns this open, emptying the file when it is opened.
    pub fn truncate(mut self) -> Self {
        self.truncate = true;
        self
    }

    /// Returns this open, making the missing directories on the way with
    /// `mode` (before the umask; not used on Windows, as for
    /// [`Open::create`]).
    pub fn dirs(mut self, mode: u32) -> Self {
        self.dirs = Some(mode);
        self
    }

    /// Returns this open, treating a symbolic link on the way as `links`
    /// says.
    pub fn links(mut self, links: Links) -> Self {
        self.links = links;
        self
    }

    /// Returns this open, as one of the program's own state: a path whose
    /// first name a [`Root::own`] names (in any case) is reached, with no
    /// symbolic link at all.
    ///
    /// Without it, every open refuses such a path ([`Error::Owned`]), so
    /// that an action, a plug-in or a model's tool that opens through the
    /// root never reaches the program's own files by their names. With it
    /// or not, a path that reaches owned state through `..` or a symbolic
    /// link is refused.
    pub fn own_state(mut self) -> Self {
        self.own = true;
        self
    }

    /// Returns this open, refusing a symbolic link as the last name even
    /// where [`Links`] would follow it: [`Error::Link`], or, for an
    /// [unjudged](Open::unjudged) open, the system's `ELOOP` as
    /// `Error::Io`. Links on the way to it are treated as `Links` says.
    pub fn nofollow(mut self) -> Self {
        self.nofollow = true;
        self
    }

    /// Returns this open, made in one resolution whose file is not judged
    /// on its descriptor: for an open repeated so often (a log appended to
    /// at each event) that a `fstat`, a `statfs` and `/proc` cost more than
    /// the write, whose file was judged once by a judged open or a stat
    /// beforehand. The name is resolved beneath the root as
    /// [`Links::Beneath`] says (by `openat2`, a link is followed while it
    /// stays beneath; by the walk, none is), `..` and absolute paths are
    /// refused, and nothing else is checked: a FIFO or a device is opened
    /// as the flags say (non-blocking), [`Opened::via`] is
    /// [`Via::Untold`], and no directory is made. On a root that
    /// [owns](Root::own) state, the path is first resolved with no link at
    /// all (one call still), and only one with a link on the way is judged,
    /// so that owned state is never reached through a link.
    pub fn unjudged(mut self) -> Self {
        self.unjudged = true;
        self
    }

    /// The flags of the one open that creates, writes or reads directly.
    #[cfg(unix)]
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
        if self.nofollow {
            flags |= OFlags::NOFOLLOW;
        }
        // A FIFO nobody writes would hold a read open for ever; a write-only
        // open of one nobody reads fails at once (`ENXIO`).
        flags | OFlags::NONBLOCK | OFlags::CLOEXEC
    }

    /// `openat2` refuses a mode without `O_CREAT`.
    #[cfg(unix)]
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
    /// Returns the file.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Returns the file, owned.
    pub fn into_file(self) -> File {
        self.file
    }

    /// Returns how it was reached: through a symbolic link or not.
    pub fn via(&self) -> Via {
        self.via
    }

    /// Returns the whole of the file, or `None` once it holds more than
    /// `limit` bytes. The size the system reports is not trusted (a file can grow
    /// after any check): it is read in 8 KiB reads, so at most one read past
    /// the limit is held.
    ///
    /// # Errors
    /// When a read fails (of a directory: "Is a directory").
    pub fn read_bounded(self, limit: u64) -> io::Result<Option<Vec<u8>>> {
        read_bounded(self.file, limit)
    }

    /// Returns the file's first `limit` bytes, or all of it when it is
    /// shorter: how a file starts (a program's `#!` line), read without
    /// holding more than `limit` bytes whatever the file's size.
    ///
    /// # Errors
    /// When a read fails (of a directory: "Is a directory").
    pub fn read_head(self, limit: u64) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.file.take(limit).read_to_end(&mut bytes)?;
        Ok(bytes)
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
///
/// Its `Display` says the whole of it, and `source()` returns nothing.
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
    /// The path reaches the program's own state (a name given to
    /// [`Root::own`]): by its name, in an open that is not one of that
    /// state ([`Open::own_state`]), or through `..` or a symbolic link,
    /// which no open may.
    Owned {
        /// The owned name it reaches, as given to [`Root::own`].
        name: OsString,
        /// How it reaches it.
        way: Way,
    },
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

/// How a path reaches the program's own state ([`Error::Owned`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Way {
    /// By its name: its first name is the owned one, in any case.
    Name,
    /// Through `..`: its names, read as words, climb back into it
    /// (`a/../.io/x`).
    Up,
    /// Through a symbolic link on the way: the first one, relative to the
    /// root, when it could be told.
    Link(Option<PathBuf>),
}

#[cfg(unix)]
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
                "it goes through the symbolic link `{}`, which may lead out of the root ({})",
                link.display(),
                NO_LINK_FOLLOWED,
            ),
            Error::Link => f.write_str(
                "it goes through a symbolic link, and this file is reached through none",
            ),
            Error::Owned { name, way } => owned_message(f, Path::new(name), way),
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
            Error::Io(e) => f.write_str(&os_message(e)),
        }
    }
}

/// Why a walk follows no link, as [`Error::Outside`] says it.
#[cfg(unix)]
const NO_LINK_FOLLOWED: &str = "without openat2 no link is followed";
/// Why a walk follows no link, as [`Error::Outside`] says it.
#[cfg(windows)]
const NO_LINK_FOLLOWED: &str = "on Windows no symbolic link or junction is followed";

/// `Display` says all of it; `source()` returns nothing.
impl std::error::Error for Error {}

/// [`Error::Owned`]'s message: the owned name and the way it was reached.
fn owned_message(f: &mut fmt::Formatter<'_>, name: &Path, way: &Way) -> fmt::Result {
    let name = name.display();
    match way {
        Way::Name => write!(
            f,
            "it is in `{name}`, the program's own state, which only the program itself opens"
        ),
        Way::Up => write!(
            f,
            "it reaches `{name}`, the program's own state, through `..`, and that state is \
             reached by its own names alone"
        ),
        Way::Link(link) => {
            write!(f, "it reaches `{name}`, the program's own state, through ")?;
            match link {
                Some(link) => write!(f, "the symbolic link `{}`", link.display())?,
                None => f.write_str("a symbolic link")?,
            }
            f.write_str(", and that state is never reached through a link")
        }
    }
}

/// `e` as an operator reads it: "Permission denied", without std's " (os
/// error 13)".
fn os_message(e: &io::Error) -> String {
    let text = e.to_string();
    match e.raw_os_error() {
        Some(code) => match text.strip_suffix(&format!(" (os error {code})")) {
            Some(short) => short.to_owned(),
            None => text,
        },
        None => text,
    }
}

impl Root {
    /// Returns the directory `path` opened as a root, made absolute against
    /// the working directory now (an empty path is the working directory).
    ///
    /// # Errors
    /// When `path` cannot be opened as a directory.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let given = path.as_ref();
        let path = absolute(given);
        let fd = open_dir(&path)?;
        Ok(Root::with(given, path, Some(fd)))
    }

    /// Returns the root `path`, made absolute against the working directory
    /// now (an empty path, as `Path::new("app.toml").parent()` gives, is the
    /// working directory itself) and opened now when it can be. When it
    /// cannot (it does not exist yet, or is no directory), each
    /// [`Root::open_file`] opens it first, and fails as that open fails.
    pub fn lazy(path: impl AsRef<Path>) -> Self {
        let given = path.as_ref();
        let path = absolute(given);
        let fd = open_dir(&path).ok();
        Root::with(given, path, fd)
    }

    /// The root `given`, at `path`, open as `fd`.
    fn with(given: &Path, path: PathBuf, fd: Option<DirHandle>) -> Self {
        Root {
            given: given.to_path_buf(),
            path,
            fd,
            owned: Vec::new(),
            #[cfg(unix)]
            walk: false,
            #[cfg(unix)]
            no_proc: false,
        }
    }

    /// Returns this root with `name`, a top-level entry of it (as `.io`),
    /// as the program's own state.
    ///
    /// Its whole tree is reached only by an open of that state
    /// ([`Open::own_state`]), by its names and with no symbolic link; every
    /// other open through the root refuses a path that reaches it, by its
    /// name, through `..` or through a link ([`Error::Owned`]). A name
    /// matches in any ASCII case and with the code points HFS+ ignores
    /// left out (as git matches `.git`), since a file system that folds
    /// case opens `.IO` as `.io`, and macOS's HFS+ opens `.i\u{200c}o` as
    /// `.io` too. On Windows, trailing dots and spaces are left out as well
    /// (Win32 opens `.io.` and `.io ` as `.io`), and a top-level name with a
    /// `~` or a letter outside ASCII (an 8.3 short name such as `IO~1`, or
    /// a case the file system folds beyond ASCII's) is refused when the
    /// file it opens is owned state's.
    pub fn own(mut self, name: impl Into<OsString>) -> Self {
        self.owned.push(name.into());
        self
    }

    /// Returns the root's path as given.
    pub fn given(&self) -> &Path {
        &self.given
    }

    /// Returns the root's path made absolute when the root was made,
    /// without resolving links.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Returns whether the directory was opened when the root was made (a
    /// [`Root::lazy`] one may not have been).
    pub fn is_open(&self) -> bool {
        self.fd.is_some()
    }

    /// Returns whether `path`, made absolute now as the root's own path was,
    /// is the root's path: two roots given differently (`.` and the working
    /// directory) are one.
    pub fn is_at(&self, path: &Path) -> bool {
        absolute(path) == self.path
    }

    /// Returns whether `rel` names owned state by its first component.
    pub fn is_owned(&self, rel: &Path) -> bool {
        let first = rel.components().find_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        });
        first.is_some_and(|name| self.owner(name).is_some())
    }

    /// The owned top-level name, as given, that `name` is.
    fn owner(&self, name: &OsStr) -> Option<&OsStr> {
        self.owned
            .iter()
            .find(|owned| same_name(owned, name))
            .map(OsString::as_os_str)
    }

    /// Opens `rel`, a relative path without `..`, beneath the root as `how`
    /// says, by the rules of the [crate](self).
    ///
    /// # Errors
    /// See [`Error`]; a file that does not exist is `Error::Io` of kind
    /// `NotFound`. A lazy root that cannot be opened now fails as its
    /// directory's open does (`Error::Io`).
    #[cfg(unix)]
    pub fn open_file(&self, rel: impl AsRef<Path>, how: &Open) -> Result<Opened, Error> {
        let rel = rel.as_ref();
        self.at(|at| match how.unjudged {
            true => at.unjudged(rel, how),
            false => at.open(rel, how),
        })
        .map_err(|e| self.told(rel, e))
    }

    /// `e`, the error of an open of `rel`, as it is told: owned state
    /// reached through a link names the first link on the way, once here
    /// for every place that finds it; a name missing beyond a link whose
    /// words lead into owned state (`logs -> .io/runs` before `.io` is
    /// made) is refused as owned state's, not as missing.
    #[cfg(unix)]
    fn told(&self, rel: &Path, e: Error) -> Error {
        match e {
            Error::Owned {
                name,
                way: Way::Link(None),
            } => Error::Owned {
                name,
                way: Way::Link(self.at(|at| Ok(at.first_link(rel))).ok().flatten()),
            },
            Error::Io(missing) if missing.kind() == io::ErrorKind::NotFound => {
                match self.at(|at| Ok(at.by_words(rel))) {
                    Ok(Some(
                        owned @ Error::Owned {
                            way: Way::Link(_), ..
                        },
                    )) => owned,
                    _ => Error::Io(missing),
                }
            }
            other => other,
        }
    }

    /// `act` with the root's descriptor: the one held, or one opened now
    /// for a lazy root.
    #[cfg(unix)]
    fn at<T>(&self, act: impl FnOnce(At<'_>) -> Result<T, Error>) -> Result<T, Error> {
        let opened_now;
        let fd = match &self.fd {
            Some(fd) => fd.as_fd(),
            None => {
                opened_now = open_dir(&self.path)?;
                opened_now.as_fd()
            }
        };
        act(At { root: self, fd })
    }

    /// Returns what `rel`'s last name is, without following it (a link is
    /// [`Kind::Symlink`]), or `None` when there is no such name: its
    /// directory is reached by a judged read open ([`Open::read`], links as
    /// [`Links::Beneath`] says) and the name looked at in it, nothing
    /// opened. For a check that says what an open would meet.
    ///
    /// # Errors
    /// As [`Root::open_file`] fails to reach the directory (a directory that
    /// does not exist is `Error::Io` of kind `NotFound`, one that is a file
    /// `Error::Io` of `ENOTDIR`), or the look fails.
    #[cfg(unix)]
    pub fn kind_of(&self, rel: impl AsRef<Path>) -> Result<Option<Kind>, Error> {
        let rel = rel.as_ref();
        let names = match names(rel) {
            Ok(names) => names,
            Err(refused) => return self.at(|at| Err(at.climbing(rel, refused))),
        };
        let Some((last, parents)) = names.split_last() else {
            return Err(no_file());
        };
        let look =
            |dir: BorrowedFd<'_>| match rustix::fs::statat(dir, *last, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => Ok(Some(Kind::of(FileType::from_raw_mode(stat.st_mode)))),
                Err(Errno::NOENT) => Ok(None),
                Err(e) => Err(e.into()),
            };
        if parents.is_empty() {
            if let Some(name) = self.owner(last) {
                return Err(Error::Owned {
                    name: name.to_os_string(),
                    way: Way::Name,
                });
            }
            return self.at(|at| look(at.fd));
        }
        let dir: PathBuf = parents.iter().collect();
        let dir = self.open_file(dir, &Open::read())?.into_file();
        if !dir.metadata()?.is_dir() {
            return Err(Errno::NOTDIR.into());
        }
        look(dir.as_fd())
    }
}

/// What a name is, as [`Root::kind_of`] tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// A regular file.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link, not followed.
    Symlink,
    /// A FIFO, a socket or a device, named as `a FIFO`.
    Special(&'static str),
}

#[cfg(unix)]
impl Kind {
    /// The kind of a file of type `file_type`.
    fn of(file_type: FileType) -> Self {
        match file_type {
            FileType::RegularFile => Kind::Regular,
            FileType::Directory => Kind::Directory,
            FileType::Symlink => Kind::Symlink,
            other => Kind::Special(special(other).unwrap_or("an unknown kind of file")),
        }
    }
}

/// A [`Root`] with the descriptor an open resolves from: the one held, or
/// one opened for this open.
#[cfg(unix)]
struct At<'r> {
    root: &'r Root,
    fd: BorrowedFd<'r>,
}

#[cfg(unix)]
impl At<'_> {
    /// [`Root::open_file`], judged: by the rules of the [crate](self).
    fn open(&self, rel: &Path, how: &Open) -> Result<Opened, Error> {
        let names = names(rel).map_err(|refused| self.climbing(rel, refused))?;
        let Some((last, parents)) = names.split_last() else {
            return Err(no_file());
        };
        let owned = self.root.owner(names[0]);
        if let Some(name) = owned
            && !how.own
        {
            return Err(Error::Owned {
                name: name.to_os_string(),
                way: Way::Name,
            });
        }
        let links = how.links_for(owned.is_some());
        let rel: PathBuf = names.iter().collect();
        let proc = (!self.root.no_proc).then(Proc::open).flatten();
        // Without any link: one call.
        let direct = match (&proc, how.write) {
            (Some(_), false) => path_only(),
            _ => how.flags(),
        };
        let direct = self.resolve(&rel, direct, how.mode(), Links::None);
        between(Step::Resolved);
        match direct {
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
                let fd = rustix::fs::openat(self.fd, rel, how.flags(), Mode::empty())
                    .map_err(|e| nxio(e.into()))?;
                return self.finish(fd, Via::LinkOut, how, None);
            }
            return Err(Error::Outside {
                through: self.first_link(rel),
            });
        };
        // `O_PATH | O_NOFOLLOW` reaches a link at the end itself, which
        // `finish` refuses.
        let reach = match how.nofollow {
            true => path_only() | OFlags::NOFOLLOW,
            false => path_only(),
        };
        let (fd, via) = match self.resolve(rel, reach, Mode::empty(), Links::Beneath) {
            Ok(fd) => (fd, Via::LinkBeneath),
            Err(Miss::Errno(Errno::XDEV) | Miss::Link(_)) if links == Links::Anywhere => {
                let fd = self
                    .resolve(rel, reach, Mode::empty(), Links::Anywhere)
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
                let at = dir.as_ref().map_or(self.fd, AsFd::as_fd);
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
        let at = dir.as_ref().map_or(self.fd, AsFd::as_fd);
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
        if let Some(name) = self.lies_in_owned(&fd, proc) {
            return Err(through_link(name));
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
            && let Some(name) = self.lies_in_owned(&fd, proc)
        {
            return Err(through_link(name));
        }
        let opened = match proc {
            Some(proc) if is_path_only(&fd) => {
                if how.write && kind == FileType::Directory {
                    return Err(Errno::ISDIR.into());
                }
                // Created already, or it would not be here; and
                // `/proc/self/fd`'s entry is a link, the one to follow.
                let flags = how.flags() - OFlags::CREATE - OFlags::NOFOLLOW;
                proc.reopen(&fd, flags)?
            }
            _ => fd,
        };
        Ok(Opened {
            file: File::from(opened),
            via,
        })
    }

    /// The owned name the file open as `fd` lies in, as the kernel names
    /// where it is, or `None` when it lies in none.
    ///
    /// Judged on the descriptor that is then opened or created in, so a
    /// name changed meanwhile changes nothing of what was judged. Where it
    /// lies cannot be told (no answer from `/proc`, or a path that is not
    /// under the root's, which a resolution beneath the root gives only
    /// when a rename raced it): refused, as if it lay in the first owned
    /// name.
    fn lies_in_owned(&self, fd: &OwnedFd, proc: &Proc) -> Option<OsString> {
        let first = self.root.owned.first()?;
        let (Ok(root), Ok(file)) = (proc.path_of(self.fd), proc.path_of(fd.as_fd())) else {
            return Some(first.clone());
        };
        let Ok(rel) = file.strip_prefix(&root) else {
            return Some(first.clone());
        };
        let top = rel.iter().next()?;
        self.root.owner(top).map(OsStr::to_os_string)
    }

    /// The error for `rel`, which `names` or `stays_beneath` refused as
    /// `refused` (an absolute path, or one with `..`): [`Error::Owned`]
    /// when its words reach owned state, else `refused`.
    fn climbing(&self, rel: &Path, refused: Error) -> Error {
        self.by_words(rel).unwrap_or(refused)
    }

    /// Where `rel` leads, read as words from the root, with nothing
    /// opened: each symbolic link on the way replaced by the text it holds
    /// (at most [`WORD_LINKS`] of them, as the kernel follows at most 40),
    /// and each `..` taking back the name before it. Returns
    /// [`Error::Owned`] when the words end in owned state; `None` when they
    /// do not, climb out of the root, or meet an absolute link or too many
    /// links.
    ///
    /// For a path no descriptor is judged for: one with `..`, which is
    /// never resolved, or one through a link to a name that does not exist
    /// yet (`logs -> .io/runs` before `.io` is made). It is a reading, not
    /// a resolution: a race can make it say other than an open would meet,
    /// and it only ever turns one refusal into a more precise one.
    fn by_words(&self, rel: &Path) -> Option<Error> {
        if self.root.owned.is_empty() {
            return None;
        }
        let mut todo = Vec::new();
        push_words(&mut todo, rel)?;
        let climbed = todo.iter().any(|name| name == "..");
        let (mut led, mut link, mut links) = (PathBuf::new(), None, 0);
        while let Some(name) = todo.pop() {
            if name == ".." {
                if !led.pop() {
                    return None;
                }
                continue;
            }
            led.push(&name);
            if let Ok(text) = rustix::fs::readlinkat(self.fd, &led, Vec::new()) {
                links += 1;
                if links > WORD_LINKS {
                    return None;
                }
                link.get_or_insert_with(|| led.clone());
                led.pop();
                push_words(&mut todo, &path_from(text.into_bytes()))?;
            }
        }
        let name = self.root.owner(led.iter().next()?)?.to_os_string();
        let way = match (link, climbed) {
            (Some(link), _) => Way::Link(Some(link)),
            (None, true) => Way::Up,
            (None, false) => Way::Name,
        };
        Some(Error::Owned { name, way })
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
            let root = proc.path_of(self.fd).ok()?;
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
        match led.first().and_then(|first| self.root.owner(first)) {
            Some(name) => through_link(name.to_os_string()),
            None => Error::LinkToNothing,
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
            if is_link(self.fd, &prefix) {
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
        if !self.root.walk && !NO_OPENAT2.load(Ordering::Relaxed) {
            // One name, not followed if it is a link: `openat2` would check
            // nothing that `O_NOFOLLOW` does not (the name has no `/` to
            // leave by, and is not `..`), and a plain `openat` is about
            // 180 ns cheaper an open (BENCHMARKS.md): on the per-event path
            // of an `append` hook whose file sits at the root, a fifth of
            // what the engine adds to the syscalls.
            if cfg!(target_os = "linux") && flags.contains(OFlags::NOFOLLOW) && is_one_name(rel) {
                return rustix::fs::openat(self.fd, rel, flags, mode).map_err(Miss::Errno);
            }
            match kernel(self.fd, rel, flags, mode, links) {
                // Only when `openat2` itself is refused: an `EPERM` can be
                // the file's answer (an append-only or immutable file),
                // which must not send every later open to the walk.
                Err(Errno::NOSYS | Errno::PERM) if openat2_refused(self.fd) => {
                    NO_OPENAT2.store(true, Ordering::Relaxed);
                }
                // Renamed under it each time it was tried: the walk, this
                // once.
                Err(Errno::AGAIN) => {}
                other => return other.map_err(Miss::Errno),
            }
        }
        match links {
            Links::Anywhere => rustix::fs::openat(self.fd, rel, flags, mode).map_err(Miss::Errno),
            Links::None | Links::Beneath => walk(self.fd, rel, flags, mode),
        }
    }
}

#[cfg(unix)]
impl At<'_> {
    /// [`Root::open_file`], [unjudged](Open::unjudged): one `openat2` with
    /// `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` (a link is followed only
    /// while it stays under the root), else the walk, which follows none.
    /// No `fstat`, no `/proc`: what the file is was judged beforehand.
    fn unjudged(&self, rel: &Path, how: &Open) -> Result<Opened, Error> {
        if !stays_beneath(rel) {
            return Err(self.climbing(rel, Error::Outside { through: None }));
        }
        if !self.root.owned.is_empty() {
            return self.unjudged_owning(rel, how);
        }
        let (flags, mode) = (how.flags(), how.mode());
        match self.resolve(rel, flags, mode, Links::Beneath) {
            Ok(fd) => Ok(Opened {
                file: File::from(fd),
                via: Via::Untold,
            }),
            Err(miss) => Err(unjudged_miss(rel, how, miss)),
        }
    }
}

/// The error of an unjudged open of `rel` whose resolution missed as
/// `miss`.
#[cfg(unix)]
fn unjudged_miss(rel: &Path, how: &Open, miss: Miss) -> Error {
    match miss {
        Miss::Errno(Errno::XDEV) => Error::Outside { through: None },
        // The last name is the flags' business: `O_NOFOLLOW`'s `ELOOP`.
        Miss::Link(link) if how.nofollow && link.iter().count() == depth(rel) => Errno::LOOP.into(),
        Miss::Link(link) => Error::Outside {
            through: Some(link),
        },
        Miss::Errno(e) => e.into(),
    }
}

#[cfg(unix)]
impl At<'_> {
    /// [`At::unjudged`] on a root that owns state: a path owned by its
    /// name is refused, or judged for an open of that state; any other is
    /// resolved with no link at all, in one call, which by its names alone
    /// cannot reach owned state. Only a path with a link on the way is
    /// judged ([`At::open`]), where the link leads checked on the
    /// descriptor; a link as its last name is `ELOOP` for a
    /// [`nofollow`](Open::nofollow) open, as an unjudged open says it.
    fn unjudged_owning(&self, rel: &Path, how: &Open) -> Result<Opened, Error> {
        if let Some(name) = first_name(rel).and_then(|first| self.root.owner(first)) {
            return match how.own {
                true => self.open(rel, how),
                false => Err(Error::Owned {
                    name: name.to_os_string(),
                    way: Way::Name,
                }),
            };
        }
        match self.resolve(rel, how.flags(), how.mode(), Links::None) {
            Ok(fd) => Ok(Opened {
                file: File::from(fd),
                via: Via::Untold,
            }),
            Err(miss @ (Miss::Errno(Errno::LOOP | Errno::NOTDIR) | Miss::Link(_))) => {
                match self.first_link(rel) {
                    Some(link) if how.nofollow && depth(&link) == depth(rel) => {
                        Err(Errno::LOOP.into())
                    }
                    Some(_) => self.open(rel, how),
                    None => Err(unjudged_miss(rel, how, miss)),
                }
            }
            Err(miss) => Err(unjudged_miss(rel, how, miss)),
        }
    }
}

/// [`Error::Owned`] through a link on the way, named at the door
/// ([`Root::open_file`]).
#[cfg(unix)]
fn through_link(name: OsString) -> Error {
    Error::Owned {
        name,
        way: Way::Link(None),
    }
}

/// The first name of `rel`, `.` and empty names aside, read on its bytes
/// as [`stays_beneath`] reads them: on the per-event path of an unjudged
/// open.
#[cfg(unix)]
fn first_name(rel: &Path) -> Option<&OsStr> {
    use std::os::unix::ffi::OsStrExt;
    rel.as_os_str()
        .as_bytes()
        .split(|b| *b == b'/')
        .find(|part| !part.is_empty() && *part != b".")
        .map(OsStr::from_bytes)
}

/// Whether `name` is the owned name `owned` as a file system that folds
/// ASCII case would open it, with the code points HFS+ ignores left out
/// (git's list for `.git`, `is_hfs_dotgit`): `.IO` and `.i\u{200c}o` are
/// `.io` on macOS.
fn same_name(owned: &OsStr, name: &OsStr) -> bool {
    let (owned, bytes) = (owned.as_encoded_bytes(), name.as_encoded_bytes());
    // Win32 trims a name's trailing dots and spaces: `.io.` and `.io ` are
    // `.io` there.
    #[cfg(windows)]
    let bytes = match bytes.iter().rposition(|b| *b != b'.' && *b != b' ') {
        Some(end) => &bytes[..=end],
        None => bytes,
    };
    if bytes.is_ascii() {
        return owned.eq_ignore_ascii_case(bytes);
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let kept: String = text.chars().filter(|c| !hfs_ignores(*c)).collect();
    owned.eq_ignore_ascii_case(kept.as_bytes())
}

/// Whether HFS+ leaves `c` out of a name it compares: the joiners,
/// direction marks and formatting characters git's `next_hfs_char` skips.
fn hfs_ignores(c: char) -> bool {
    matches!(c, '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}')
}

/// How many symbolic links [`At::by_words`] replaces by their text before
/// it gives up, as the kernel follows at most 40.
#[cfg(unix)]
const WORD_LINKS: usize = 40;

/// Puts `path`'s names on `todo` last first, so that they are taken in
/// order, `.` left out and `..` kept; `None` for an absolute path.
#[cfg(unix)]
fn push_words(todo: &mut Vec<OsString>, path: &Path) -> Option<()> {
    let mut words = Vec::new();
    for part in path.components() {
        match part {
            Component::Normal(name) => words.push(name.to_os_string()),
            Component::ParentDir => words.push(OsString::from("..")),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    todo.extend(words.into_iter().rev());
    Some(())
}

/// How many names `rel` is made of, `.` aside.
#[cfg(unix)]
fn depth(rel: &Path) -> usize {
    rel.iter().filter(|n| *n != ".").count()
}

/// How a resolution missed: as the system said, or (the walk) at a link.
#[derive(Debug)]
#[cfg(unix)]
enum Miss {
    Errno(Errno),
    /// The walk met this link, relative to the root, and followed none.
    Link(PathBuf),
}

/// The walk: every directory opened in the one before with `O_NOFOLLOW`,
/// and the last name too.
#[cfg(unix)]
fn walk(root: BorrowedFd<'_>, rel: &Path, flags: OFlags, mode: Mode) -> Result<OwnedFd, Miss> {
    // No `Vec` of the names and no path built as it goes: on the per-event
    // path of an unjudged open (a kernel without `openat2`), those two
    // allocations cost more than the rest. The names up to the `n`-th
    // (`prefix`) are put together only for a link met, which is an error.
    let mut names = rel.iter().filter(|n| *n != ".");
    let prefix =
        |count: usize| -> PathBuf { rel.iter().filter(|n| *n != ".").take(count).collect() };
    let Some(mut name) = names.next() else {
        return Err(Miss::Errno(Errno::INVAL));
    };
    let mut dir: Option<OwnedFd> = None;
    let mut depth = 1;
    for next in names {
        let at = dir.as_ref().map_or(root, AsFd::as_fd);
        match rustix::fs::openat(at, name, dir_flags() | OFlags::NOFOLLOW, Mode::empty()) {
            Ok(fd) => dir = Some(fd),
            // `O_NOFOLLOW` on a link: `ELOOP`, or `ENOTDIR` with
            // `O_DIRECTORY`.
            Err(Errno::LOOP | Errno::NOTDIR) if is_link(at, name) => {
                return Err(Miss::Link(prefix(depth)));
            }
            Err(e) => return Err(Miss::Errno(e)),
        }
        name = next;
        depth += 1;
    }
    let last = name;
    let at = dir.as_ref().map_or(root, AsFd::as_fd);
    let opened = rustix::fs::openat(at, last, flags | OFlags::NOFOLLOW, mode);
    between(Step::Walked);
    match opened {
        Err(Errno::LOOP) if is_link(at, last) => Err(Miss::Link(prefix(depth))),
        // `O_PATH | O_NOFOLLOW` reaches the link itself.
        Ok(fd)
            if rustix::fs::fstat(&fd)
                .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink) =>
        {
            Err(Miss::Link(prefix(depth)))
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
    retry_again(|| rustix::fs::openat2(root, rel, flags, mode, resolve))
}

/// Whether `rel` is one name: not empty, without a `/`, and neither `.`
/// nor `..`.
#[cfg(unix)]
fn is_one_name(rel: &Path) -> bool {
    let bytes = rel.as_os_str().as_encoded_bytes();
    !bytes.is_empty() && !bytes.contains(&b'/') && bytes != b"." && bytes != b".."
}

/// Whether `openat2` itself is refused here (`ENOSYS`: a kernel before
/// 5.6; `EPERM`: a seccomp filter), asked with an open that cannot fail
/// otherwise: the root itself, as a path.
#[cfg(target_os = "linux")]
fn openat2_refused(root: BorrowedFd<'_>) -> bool {
    let probe = kernel(
        root,
        Path::new("."),
        OFlags::PATH,
        Mode::empty(),
        Links::None,
    );
    matches!(probe, Err(Errno::NOSYS | Errno::PERM))
}

/// No `openat2` here: always refused.
#[cfg(all(unix, not(target_os = "linux")))]
fn openat2_refused(_: BorrowedFd<'_>) -> bool {
    true
}

/// How many times `openat2` is asked while it answers `EAGAIN`, as cap-std
/// asks it: the kernel says so when a rename anywhere on the host raced the
/// resolution, which can happen again each time, so the tries are bounded
/// and the caller then walks.
#[cfg(target_os = "linux")]
const AGAIN_TRIES: usize = 4;

/// `open`, asked again while it answers `EAGAIN`, at most [`AGAIN_TRIES`]
/// times in all; then `EAGAIN`.
#[cfg(target_os = "linux")]
fn retry_again<T>(mut open: impl FnMut() -> rustix::io::Result<T>) -> rustix::io::Result<T> {
    for _ in 1..AGAIN_TRIES {
        match open() {
            Err(Errno::AGAIN) => {}
            other => return other,
        }
    }
    open()
}

/// No `openat2` here: the walk.
#[cfg(all(unix, not(target_os = "linux")))]
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
#[cfg(unix)]
struct Proc(OwnedFd);

#[cfg(unix)]
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
#[cfg(all(unix, not(target_os = "linux")))]
fn path_only() -> OFlags {
    OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
}

/// Whether `fd` was opened with `O_PATH`.
#[cfg(target_os = "linux")]
fn is_path_only(fd: &OwnedFd) -> bool {
    rustix::fs::fcntl_getfl(fd).is_ok_and(|flags| flags.contains(OFlags::PATH))
}

/// No `O_PATH` here.
#[cfg(all(unix, not(target_os = "linux")))]
fn is_path_only(_: &OwnedFd) -> bool {
    false
}

/// The flags a directory on the way is opened with.
#[cfg(target_os = "linux")]
fn dir_flags() -> OFlags {
    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC
}

/// The flags a directory on the way is opened with.
#[cfg(all(unix, not(target_os = "linux")))]
fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC
}

/// Opens the directory `path`, to resolve names beneath it.
#[cfg(unix)]
fn open_dir(path: &Path) -> io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    Ok(rustix::fs::open(path, flags, Mode::empty())?)
}

/// The path whose bytes are `bytes`, as a link holds it.
#[cfg(unix)]
fn path_from(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(<OsString as std::os::unix::ffi::OsStringExt>::from_vec(
        bytes,
    ))
}

/// A mode given as a number, as the system's own width.
#[cfg(unix)]
fn raw_mode(mode: u32) -> Mode {
    #[allow(
        clippy::unnecessary_cast,
        reason = "mode_t is u16 on macOS and FreeBSD"
    )]
    Mode::from_raw_mode(mode as rustix::fs::RawMode)
}

/// `ENXIO` from an open is a write-only open of a FIFO nobody reads, or of
/// a socket.
#[cfg(unix)]
fn nxio(e: Error) -> Error {
    match e {
        Error::Io(io) if io.raw_os_error() == Some(Errno::NXIO.raw_os_error()) => fifo_or_socket(),
        other => other,
    }
}

#[cfg(unix)]
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
#[cfg(unix)]
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
#[cfg(unix)]
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
#[cfg(unix)]
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
#[cfg(unix)]
fn is_link(dir: BorrowedFd<'_>, name: impl rustix::path::Arg) -> bool {
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
#[cfg(unix)]
fn stays_beneath(name: &Path) -> bool {
    // As `names` judges, without collecting them, and on the bytes: this is
    // on the per-event path of an unjudged open, where `components()` cost
    // about 190 instructions for a one-name path. A Unix path's components
    // are its `/`-separated parts, empty ones and a `.` skipped; only a
    // leading `/` (`RootDir`) and a `..` part (`ParentDir`) are neither
    // `CurDir` nor `Normal` (`stays_beneath_is_components` checks the two
    // readings agree).
    let bytes = name.as_os_str().as_encoded_bytes();
    bytes.first() != Some(&b'/') && !bytes.split(|b| *b == b'/').any(|part| part == b"..")
}

/// A point between two steps of an open, where a race could change what
/// a name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg(unix)]
enum Step {
    /// `open`'s first resolution has answered.
    Resolved,
    /// The walk's open of the last name has answered.
    Walked,
}

/// Where a test acts as a race would, at `step`; nothing outside the tests.
#[inline(always)]
#[cfg(unix)]
fn between(step: Step) {
    #[cfg(all(test, unix))]
    tests::between(step);
    let _ = step;
}

#[cfg(all(test, unix))]
mod tests;
