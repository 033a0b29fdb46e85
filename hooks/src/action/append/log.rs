//! The `append` action: one JSON line per event, one `write` per line.

use std::collections::BTreeMap;
use std::fs::File;
#[cfg(unix)]
use std::io::IoSlice;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

#[cfg(unix)]
use rustix::fs::{FileType, Mode, OFlags};
#[cfg(unix)]
use rustix::io::Errno;

use io_beneath::{Kind, Open, Opened, Root};

use super::append_failure::AppendFailure;
use super::append_problem::AppendProblem;
#[cfg(windows)]
use super::windows::{byte_at, is_loop, is_missing, look, open_as_written, size};
use crate::action::shell::shell_would_expand;
use crate::message::os_error;

/// Where an `append` hook's file is opened from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// This name under the hooks' root, resolved without leaving it.
    Beneath(PathBuf),
    /// A path outside the root: the operator's own, taken as written.
    AsWritten,
}

/// Where the append path `path` is opened from: a name under `root` (a
/// relative path, or an absolute one inside the root, as given or made
/// absolute), or a path outside it, the operator's own, taken as written.
fn target(root: &Root, path: &Path) -> Target {
    // Every path starts with an empty one: an empty root is only ever
    // matched made absolute.
    let as_given = (!root.given().as_os_str().is_empty())
        .then(|| path.strip_prefix(root.given()).ok())
        .flatten();
    let name = if let Some(name) = as_given {
        name
    } else if let Ok(name) = path.strip_prefix(root.path()) {
        name
    } else if path.is_relative() && !path.has_root() {
        // (Windows: `\\logs\\a`, rooted on the current drive, is absolute
        // as written, though std calls it relative.)
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

/// The part of `path` the operator wrote: relative to `root` (as given, or
/// made absolute) when under it, else `path` itself. With the root given
/// as `.`, `./$HOME/x` is `$HOME/x`, as written.
fn written<'p>(root: &Root, path: &'p Path) -> &'p Path {
    (!root.given().as_os_str().is_empty())
        .then(|| path.strip_prefix(root.given()).ok())
        .flatten()
        .or_else(|| path.strip_prefix(root.path()).ok())
        .unwrap_or(path)
}

/// A file's identity: its device and inode, as `fstat` gives them for the
/// descriptor an append opened. Two paths that name one file (a link, a
/// bind mount, `a/../b`) are one file; a file renamed away and replaced at
/// the same path is another.
pub(super) type FileId = (u64, u64);

/// Every file an append of this process has looked at, with its turn:
/// appends to one file take turns, from whichever `Hooks` and thread, so no
/// reader sees half of one event followed by half of another (a single
/// `write` with `O_APPEND` already keeps lines whole on a local file
/// system; the turn also covers file systems where it does not), while
/// appends to different files never wait on each other. Each hook's
/// [`Log`] keeps its file's turn, so the map is only locked when a hook
/// looks at its file, never on the per-event path.
static FILES: Mutex<BTreeMap<FileId, Arc<Turn>>> = Mutex::new(BTreeMap::new());

/// How many turns [`FILES`] holds before it drops those no hook keeps.
const IDLE_TURNS: usize = 64;

/// One file's turn: held by one append at a time. It guards no data, so a
/// lock poisoned by a panicking append is as good as a clean one.
type Turn = Mutex<()>;

/// The turn of the file `id`, the same for every append to it in this
/// process.
fn turn_of(id: FileId) -> Arc<Turn> {
    let mut files = FILES.lock().unwrap_or_else(PoisonError::into_inner);
    if files.len() > IDLE_TURNS {
        // Held by the map alone: no hook keeps it, nobody waits for it,
        // and the map's lock keeps anyone from taking it meanwhile.
        files.retain(|_, turn| Arc::strong_count(turn) > 1);
    }
    Arc::clone(files.entry(id).or_default())
}

/// The identity of the file open as `file`, whether it is a regular file,
/// and its size: one `fstat`.
#[cfg(unix)]
fn look(file: &File) -> io::Result<(FileId, bool, u64)> {
    let stat = rustix::fs::fstat(file)?;
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    let id = (stat.st_dev as u64, u64::from(stat.st_ino));
    let is_file = FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile;
    // A negative size is none: no partial line to end.
    Ok((id, is_file, u64::try_from(stat.st_size).unwrap_or(0)))
}

/// Whether `e` says the last name of a path opened with `O_NOFOLLOW` is a
/// symbolic link.
#[cfg(unix)]
fn is_loop(e: &io::Error) -> bool {
    matches!(Errno::from_io_error(e), Some(Errno::LOOP))
}

/// Whether `e` says a directory on a path is missing (or a file).
#[cfg(unix)]
fn is_missing(e: &io::Error) -> bool {
    matches!(Errno::from_io_error(e), Some(Errno::NOENT | Errno::NOTDIR))
}

/// The byte of `file` at `offset`.
#[cfg(unix)]
fn byte_at(file: &File, offset: u64) -> io::Result<Option<u8>> {
    let mut byte = [0u8];
    Ok((rustix::io::pread(file, &mut byte, offset)? == 1).then_some(byte[0]))
}

/// The size of `file` now.
#[cfg(unix)]
fn size(file: &File) -> io::Result<u64> {
    let stat = rustix::fs::fstat(file)?;
    Ok(u64::try_from(stat.st_size).unwrap_or(0))
}

/// An `append` hook's file as built hooks hold it.
#[derive(Debug)]
pub(crate) struct Log {
    target: Target,
    /// Whether the log's last byte has been looked at since the hooks were
    /// built (or since an append of ours may have left a partial line): the
    /// next append ends a partial last line first ([`append`]).
    looked: AtomicBool,
    /// The turn of the file found at the last look, chosen by its
    /// identity as learnt from the `fstat` the look needs anyway, so an
    /// append costs no `fstat` of its own (one per event took an append
    /// from 1.18× to 1.7× the raw open+write+close, BENCHMARKS.md). A file
    /// replaced since (a rotation) is still taken turns at by the identity
    /// of the one before, as every hook that looked before does; only a
    /// hook that first looks after the replacement takes the new file's,
    /// and its lines are then kept whole by `O_APPEND`'s one `write` alone,
    /// as they are on a local file system anyway.
    seen: Mutex<Option<Arc<Turn>>>,
    /// Windows: the sidecar other processes' appends take turns on
    /// ([`sidecar`]), its path and how it is reached, made once rather than
    /// at every append.
    #[cfg(windows)]
    lock: (PathBuf, Target),
}

impl Log {
    /// The log `path` names, under `root` or not.
    pub(crate) fn new(path: &Path, root: &Root) -> Self {
        let target = target(root, path);
        Log {
            #[cfg(windows)]
            lock: (sidecar(path), sidecar_target(&target)),
            target,
            looked: AtomicBool::new(false),
            seen: Mutex::new(None),
        }
    }

    /// The turn of the file found at the last look, when the log has been
    /// looked at.
    fn seen(&self) -> Option<Arc<Turn>> {
        if !self.looked.load(Ordering::Relaxed) {
            return None;
        }
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.clone()
    }
}

/// Opens the log for appending, creating it with mode 0600 when it is
/// missing: an audit log carries goals and tool arguments.
///
/// The root is usually a cloned repository, so what sits there is not the
/// operator's choice. A name under the root is resolved beneath it
/// ([`io_beneath`], an [unjudged](Open::unjudged) open): a committed `logs -> ~/.bashrc.d` must not carry an
/// audit log into a directory a shell sources. Whatever the target, the
/// last component is never followed if it is a symbolic link (`O_NOFOLLOW`:
/// a committed `audit.jsonl -> ~/.bashrc`), and the open never waits
/// (`O_NONBLOCK`, which changes nothing for a regular file) for a FIFO's
/// reader. All of it is flags on the one `open`, free on the per-event
/// path; that the file is a regular one is checked when the hooks are
/// built ([`create`]), where an extra `fstat` costs nothing that matters,
/// and at each hook's first append ([`append`]'s look).
fn open(path: &Path, target: &Target, root: &Root) -> io::Result<File> {
    open_as(path, target, root, true)
}

/// Opens the log `target` names for appending (`write`, creating it with
/// mode 0600) or reading, with `O_NOFOLLOW`, `O_NONBLOCK` and `O_CLOEXEC`,
/// as [`open`] says.
fn open_as(path: &Path, target: &Target, root: &Root, write: bool) -> io::Result<File> {
    let opened = match target {
        Target::Beneath(name) => {
            let how = match write {
                true => Open::append().create(0o600),
                false => Open::read(),
            };
            root.open_file(name, &how.nofollow().unjudged())
                .map(Opened::into_file)
                .map_err(beneath_error)
        }
        Target::AsWritten => open_as_written(path, write),
    };
    opened.map_err(loop_error)
}

/// An open beneath the root that failed, in an append's words.
fn beneath_error(e: io_beneath::Error) -> io::Error {
    match e {
        io_beneath::Error::Outside { through: None } => {
            io::Error::other("it leads out of the hooks' root (through `..` or a symbolic link)")
        }
        io_beneath::Error::Outside {
            through: Some(link),
        } => io::Error::other(format!(
            "`{}` is a symbolic link, and without openat2 an append hook \
             follows no link under the hooks' root",
            link.display()
        )),
        io_beneath::Error::Io(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

/// `e`, or what an append says of a symbolic link as the last name.
fn loop_error(e: io::Error) -> io::Error {
    match is_loop(&e) {
        true => io::Error::other(
            "it is a symbolic link, which an append hook never follows; name the file itself",
        ),
        false => e,
    }
}

/// Opens the sidecar `<log>.lock` of the log `target` names, for writing
/// (never written: Windows locks only a handle with read or write access,
/// and an append-only one has neither), creating it, the log's own way.
#[cfg(windows)]
fn open_sidecar(path: &Path, target: &Target, root: &Root) -> io::Result<File> {
    let opened = match target {
        Target::Beneath(name) => root
            .open_file(name, &Open::write().create(0o600).nofollow().unjudged())
            .map(Opened::into_file)
            .map_err(beneath_error),
        Target::AsWritten => super::windows::open_lock_as_written(path),
    };
    opened.map_err(loop_error)
}

/// Opens `path`, outside the hooks' root, as written: the operator's own
/// path, whose directories are theirs to link. The last name is never
/// followed (`O_NOFOLLOW`) and the open never waits (`O_NONBLOCK`).
#[cfg(unix)]
fn open_as_written(path: &Path, write: bool) -> io::Result<File> {
    // (`open` refuses no mode, but `O_CREAT` is the one that takes it.)
    let (flags, mode) = match write {
        true => (
            OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE,
            Mode::from_raw_mode(0o600),
        ),
        false => (OFlags::RDONLY, Mode::empty()),
    };
    let flags = flags | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    #[allow(
        clippy::disallowed_methods,
        reason = "a path outside the hooks' root is the operator's own, opened as written; \
                  io-beneath resolves names beneath a root, and this one has none"
    )]
    let fd = rustix::fs::open(path, flags, mode)?;
    Ok(File::from(fd))
}

/// The log `file` (open for appending only) opened again for reading, by
/// the same way: refused unless it is still the same file.
fn reader(file: &File, path: &Path, target: &Target, root: &Root) -> io::Result<File> {
    let reader = open_as(path, target, root, false)?;
    if look(file)?.0 != look(&reader)?.0 {
        return Err(io::Error::other("the file was replaced"));
    }
    Ok(reader)
}

/// What would make an append to `path` fail, found without creating
/// anything: it holds a `~` or `$` a shell would have expanded (then that
/// alone; `root` tells which part the operator wrote), or it leads out of
/// the root, is a directory, a symbolic link or not a regular file, or its
/// directory does not exist.
pub(crate) fn check(path: &Path, root: &Root) -> Vec<AppendProblem> {
    // The part the operator wrote: relative to the root when under it.
    let written = written(root, path);
    // As for a program: `mkdir -p root/~` would fix nothing anyone meant,
    // so a `~` or `$` is the one problem named.
    if written
        .components()
        .any(|c| shell_would_expand(&c.as_os_str().to_string_lossy()))
    {
        return vec![AppendProblem::NotExpanded {
            text: written.display().to_string(),
        }];
    }
    let problems = check_kind(path, root);
    // Windows: each append locks the sidecar too; one in the way fails them
    // all, as the log itself would.
    #[cfg(windows)]
    let problems = match problems.is_empty() {
        true => lock_in_the_way(path, root).into_iter().collect(),
        false => problems,
    };
    problems
}

/// What [`check`] finds at `path` itself: what it is, and the way to it.
fn check_kind(path: &Path, root: &Root) -> Vec<AppendProblem> {
    let mut problems = Vec::new();
    match (target(root, path), root.is_open()) {
        (Target::Beneath(name), true) => check_beneath(path, &name, root, &mut problems),
        // A root that could not be opened: what is there is the path's.
        _ => check_as_written(path, &mut problems),
    }
    problems
}

/// Windows: the log `path`'s sidecar ([`sidecar`]) when something not a
/// regular file sits at its name, reached as the log is.
#[cfg(windows)]
fn lock_in_the_way(path: &Path, root: &Root) -> Option<AppendProblem> {
    let lock = sidecar(path);
    let is = check_kind(&lock, root).into_iter().find_map(|p| match p {
        AppendProblem::IsDirectory { .. } => Some("a directory"),
        AppendProblem::IsSymlink { .. } => Some("a symbolic link"),
        AppendProblem::NotRegular { .. } => Some("not a regular file"),
        _ => None,
    })?;
    Some(AppendProblem::LockInTheWay {
        path: path.to_path_buf(),
        lock,
        is,
    })
}

/// [`check`] for a path outside the root.
fn check_as_written(path: &Path, problems: &mut Vec<AppendProblem>) {
    let path = path.to_path_buf();
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            problems.push(AppendProblem::IsSymlink { path });
        }
        Ok(meta) if meta.is_dir() => problems.push(AppendProblem::IsDirectory { path }),
        Ok(meta) if !meta.is_file() => problems.push(AppendProblem::NotRegular { path }),
        Ok(_) => {}
        Err(_) => {
            if let Some(parent) = path.parent()
                && !parent.as_os_str().is_empty()
                && !parent.is_dir()
            {
                let parent = parent.to_path_buf();
                problems.push(AppendProblem::NoParent { path, parent });
            }
        }
    }
}

/// [`check`] for `name` under the root (`path` is how messages show it):
/// its directory is reached beneath the root, as an append reaches it, and
/// the name looked at there.
fn check_beneath(path: &Path, name: &Path, root: &Root, problems: &mut Vec<AppendProblem>) {
    let leaves = |problems: &mut Vec<AppendProblem>| {
        problems.push(AppendProblem::LeavesRoot {
            path: path.to_path_buf(),
            through: link_out(root.path(), name),
        });
    };
    if name.file_name().is_none() {
        return leaves(problems);
    }
    let path = path.to_path_buf();
    match root.kind_of(name) {
        Ok(None | Some(Kind::Regular)) => {}
        Ok(Some(Kind::Symlink)) => problems.push(AppendProblem::IsSymlink { path }),
        Ok(Some(Kind::Directory)) => problems.push(AppendProblem::IsDirectory { path }),
        Ok(Some(_)) => problems.push(AppendProblem::NotRegular { path }),
        Err(io_beneath::Error::Outside { .. }) => leaves(problems),
        Err(io_beneath::Error::Owned { name, way }) => {
            problems.push(AppendProblem::Owned { path, name, way });
        }
        // A FIFO or a device on the way is no directory, and is not opened.
        Err(io_beneath::Error::NotRegular { .. }) => no_parent(problems, path),
        Err(io_beneath::Error::Io(e)) if is_missing(&e) => no_parent(problems, path),
        Err(_) => {}
    }
}

/// Says that `path`'s directory is missing.
fn no_parent(problems: &mut Vec<AppendProblem>, path: PathBuf) {
    let parent = path.parent().unwrap_or(&path).to_path_buf();
    problems.push(AppendProblem::NoParent { path, parent });
}

/// The first directory on the way to `name` under `root` that is a
/// symbolic link resolving outside the root, as written under it; for
/// [`AppendProblem::LeavesRoot`]'s message.
fn link_out(root: &Path, name: &Path) -> Option<String> {
    let real_root = std::fs::canonicalize(root).ok()?;
    let mut prefix = PathBuf::new();
    for part in name.parent()? {
        prefix.push(part);
        let at = root.join(&prefix);
        let is_link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink());
        if is_link && !std::fs::canonicalize(&at).is_ok_and(|real| real.starts_with(&real_root)) {
            return Some(prefix.display().to_string());
        }
    }
    None
}

/// Creates the file, empty, when the hooks are built and [`check`] found
/// nothing wrong; what still goes wrong is the one problem returned. An
/// existing file is left byte for byte: a partial last line is ended by
/// the first append, not here, so building hooks whose filter never
/// matches changes no file.
pub(crate) fn create(path: &Path, root: &Root) -> Option<AppendProblem> {
    match open(path, &target(root, path), root) {
        Err(e) => Some(AppendProblem::CannotCreate {
            path: path.to_path_buf(),
            cause: os_error(&e).to_string(),
        }),
        // Raced into something else since `check` looked.
        Ok(file) if file.metadata().is_ok_and(|meta| !meta.is_file()) => {
            Some(AppendProblem::NotRegular {
                path: path.to_path_buf(),
            })
        }
        Ok(_) => None,
    }
}

/// Whether the log `file` (open for appending) ends with a partial line: a
/// host killed in the middle of a write, a full disk, a line a clone
/// committed. An empty file, one whose last byte is a newline, and one
/// that is not a regular file or cannot be read again do not.
fn ends_torn(file: &File, len: u64, path: &Path, log: &Log, root: &Root) -> bool {
    if len == 0 {
        return false;
    }
    let Ok(reader) = reader(file, path, &log.target, root) else {
        return false;
    };
    let mut len = len;
    // Another process appending a line of several pages grows the file a
    // page at a time, so a last byte that is not a newline may be the
    // middle of its line, which its one write is about to end: the tail is
    // taken for torn only when the size stays put across a second look. A
    // line in flight that pauses exactly there is the residual; it costs
    // one empty line, never a lost one.
    for _ in 0..4 {
        if !matches!(byte_at(&reader, len - 1), Ok(Some(last)) if last != b'\n') {
            return false;
        }
        std::thread::yield_now();
        match size(&reader) {
            // Emptied meanwhile (a rotation's truncation): nothing to end.
            Ok(0) => return false,
            Ok(now) if now != len => len = now,
            _ => return true,
        }
    }
    true
}

/// After a write that put only its first `written` bytes at the end of
/// `file`: ends that fragment so that whatever comes next starts on a line
/// of its own, and removes nothing.
///
/// The fragment's last byte is overwritten with a newline, in place. With
/// `O_APPEND` the descriptor's offset is the end of what this write put,
/// so the byte is ours wherever other writers' lines have landed since,
/// and no "truncate if the size is still N" is needed (there is none that
/// is atomic: a line another process appended between the check and the
/// truncation was cut off with the fragment). The fragment becomes a whole
/// line that is not an event, which a reader names as torn. Overwriting a
/// byte needs no space and does not grow the file, so it works where the
/// write was cut short: at a file size limit or on a full disk, where
/// appending a newline would fail too. Returns whether it was done; a file
/// that cannot seek (a FIFO) gets a newline appended instead, best effort.
///
/// Only ever reached on a short write, so the append's one `write` per
/// event stays its only cost.
#[cold]
fn unglue(file: &File, written: usize) -> bool {
    if written == 0 {
        return true;
    }
    #[cfg(windows)]
    return super::windows::unglue(file);
    #[cfg(unix)]
    unglue_in_place(file, written)
}

/// [`unglue`] on Unix: the fragment's last byte overwritten in place.
#[cfg(unix)]
fn unglue_in_place(mut file: &File, written: usize) -> bool {
    use std::io::Seek;
    let end = match file.stream_position() {
        Ok(end) if end >= written as u64 => end,
        _ => return file.write_all(b"\n").is_ok(),
    };
    // `pwrite` on a descriptor opened with `O_APPEND` appends (Linux), so
    // the flag is dropped first; the descriptor is this append's alone.
    let Ok(flags) = rustix::fs::fcntl_getfl(file) else {
        return false;
    };
    rustix::fs::fcntl_setfl(file, flags - OFlags::APPEND).is_ok()
        && matches!(rustix::io::pwrite(file, b"\n", end - 1), Ok(1))
}

/// The sidecar of the log `path` whose lock appends take on Windows:
/// `<log>.lock` beside it.
#[cfg(windows)]
fn sidecar(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// The sidecar of the log `target` names, reached the same way.
#[cfg(windows)]
fn sidecar_target(target: &Target) -> Target {
    match target {
        Target::Beneath(name) => Target::Beneath(sidecar(name)),
        Target::AsWritten => Target::AsWritten,
    }
}

/// Why an append refused what it opened.
const NOT_A_FILE: &str = "it is not a regular file (a FIFO, a socket or a device), and an \
    append hook writes only to a file";

/// Appends `line` (which ends with its newline) to the log `path` of one
/// hook: open, exactly one `write`, close. The first append after the hooks
/// were built also looks at the log's last byte, and puts a newline before
/// the line when the log ends with a partial one, in the same `write`. A
/// write cut short is a failure, and leaves no partial line for the next
/// event to be glued to ([`unglue`]).
pub(crate) fn append(
    path: &Path,
    log: &Log,
    root: &Root,
    line: &[u8],
) -> Result<(), AppendFailure> {
    let failed = |cause| AppendFailure::Io {
        path: path.to_path_buf(),
        cause,
    };
    let mut file = open(path, &log.target, root).map_err(failed)?;
    let (turn, look) = match log.seen() {
        Some(turn) => (turn, None),
        None => {
            let (id, is_file, len) = look(&file).map_err(failed)?;
            // Judged at this look, from the `fstat` it makes anyway: a FIFO,
            // a socket or a device (one the problems flagged when the hooks
            // were built, with a reader at its other end) gets no event,
            // and is looked at again at the next.
            if !is_file {
                return Err(failed(io::Error::other(NOT_A_FILE)));
            }
            (turn_of(id), Some(len))
        }
    };
    // Windows: other processes' appends wait on the sidecar's lock. Its
    // open is this thread's own, made before the turn: only the lock needs
    // it.
    #[cfg(windows)]
    let sidecar = open_sidecar(&log.lock.0, &log.lock.1, root);
    // Dropped before `file`: the close is outside the turn.
    let _turn = turn.lock().unwrap_or_else(PoisonError::into_inner);
    // Dropped before the turn: released before another thread takes it.
    #[cfg(windows)]
    let _locked = super::windows::lock(sidecar, &log.lock.0).map_err(failed)?;
    let torn = look.is_some_and(|len| {
        *log.seen.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&turn));
        !log.looked.swap(true, Ordering::Relaxed) && ends_torn(&file, len, path, log, root)
    });
    let newline: &[u8] = if torn { b"\n" } else { b"" };
    let len = newline.len() + line.len();
    loop {
        // `writev` only when there is a newline to put first: a plain
        // `write` is the cheaper call on the per-event path.
        let wrote = match torn {
            #[cfg(unix)]
            true => file.write_vectored(&[IoSlice::new(newline), IoSlice::new(line)]),
            // Windows has no `writev`: std's writes the first buffer alone,
            // so the two are made one (once per log, at its first append).
            #[cfg(windows)]
            true => file.write(&[newline, line].concat()),
            false => file.write(line),
        };
        match wrote {
            Ok(n) if n == len => return Ok(()),
            Ok(written) => {
                if !unglue(&file, written) {
                    // Left partial: the next append looks again.
                    log.looked.store(false, Ordering::Relaxed);
                }
                return Err(AppendFailure::ShortWrite {
                    path: path.to_path_buf(),
                    written,
                    len,
                });
            }
            // Nothing was written, so trying again is still one write.
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                if torn {
                    log.looked.store(false, Ordering::Relaxed);
                }
                return Err(failed(e));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    /// The identity of the file at `path`.
    fn id_of(path: &Path) -> FileId {
        look(&File::open(path).unwrap()).unwrap().0
    }

    /// While an append holds one file, an append to another file goes
    /// through, and one to the same file waits for it. With one lock for
    /// every file, the first append would wait too, and the test would fail
    /// at its deadline.
    #[test]
    fn appends_to_different_files_do_not_wait_on_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
        let root = Arc::new(Root::lazy(dir.path()));
        for path in [&a, &b] {
            assert_eq!(create(path, &root), None);
        }
        let turn_a = turn_of(id_of(&a));
        let held = turn_a.lock().unwrap();
        let spawn_append = |path: &Path, done: mpsc::Sender<()>| {
            let (path, root) = (path.to_path_buf(), Arc::clone(&root));
            std::thread::spawn(move || {
                let log = Log::new(&path, &root);
                append(&path, &log, &root, b"{}\n").unwrap();
                let _ = done.send(());
            })
        };
        let (done_b, b_done) = mpsc::channel();
        let to_b = spawn_append(&b, done_b);
        let limit = Duration::from_secs(10);
        assert_eq!(b_done.recv_timeout(limit), Ok(()), "b waited for a");
        to_b.join().unwrap();
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "{}\n");

        let (done_a, a_done) = mpsc::channel();
        let to_a = spawn_append(&a, done_a);
        // Polls a condition, bounded: the append to `a` has its turn in hand
        // (held by the map, this test and that append), and all that is left
        // before it writes is to take it.
        let deadline = Instant::now() + limit;
        while Arc::strong_count(&turn_a) < 3 {
            assert!(Instant::now() < deadline, "the append to a never queued");
            std::thread::yield_now();
        }
        assert_eq!(a_done.try_recv(), Err(mpsc::TryRecvError::Empty));
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "", "a waits its turn");
        drop(held);
        assert_eq!(
            a_done.recv_timeout(limit),
            Ok(()),
            "a was never given its turn"
        );
        to_a.join().unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "{}\n");
    }

    /// Once the map of turns holds more than `IDLE_TURNS`, the next look
    /// drops every turn no hook keeps, and keeps every turn a hook still
    /// holds: a host that appends to many files over its life does not grow
    /// the map for ever, and a hook that looked before the sweep still
    /// takes the same turn as one that looks after it.
    #[test]
    fn a_sweep_drops_idle_turns_and_keeps_held_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::lazy(dir.path());
        let look = |name: String| {
            let path = dir.path().join(name);
            let log = Log::new(&path, &root);
            append(&path, &log, &root, b"{}\n").unwrap();
            (log, id_of(&path))
        };
        let (kept, kept_id) = look("kept".to_owned());
        // Held while they are made, so that no sweep drops them early: the
        // map then holds more than `IDLE_TURNS` whatever other tests hold.
        let idle: Vec<(Log, FileId)> = (0..=IDLE_TURNS)
            .map(|i| look(format!("idle-{i}")))
            .collect();
        let idle: Vec<FileId> = idle.into_iter().map(|(_, id)| id).collect();
        let (_last, _) = look("last".to_owned());
        let files = FILES.lock().unwrap_or_else(PoisonError::into_inner);
        let left = idle.iter().filter(|id| files.contains_key(*id)).count();
        assert_eq!(left, 0, "turns no hook keeps were left in the map");
        let held = files.get(&kept_id).expect("a held turn was dropped");
        assert!(Arc::ptr_eq(held, &kept.seen().unwrap()));
    }

    /// A look that finds another file than the first (the log replaced, and
    /// looked at again after a failed append) takes that file's turn; a
    /// look that finds the first file again takes the first turn back.
    #[test]
    fn each_look_takes_the_turn_of_the_file_it_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::lazy(dir.path());
        let path = dir.path().join("log");
        let (first, other) = (dir.path().join("first"), dir.path().join("other"));
        std::fs::write(&path, "").unwrap();
        std::fs::hard_link(&path, &first).unwrap();
        std::fs::write(&other, "").unwrap();
        let log = Log::new(&path, &root);
        let turn_of = |file: &Path| {
            let probe = Log::new(file, &root);
            append(file, &probe, &root, b"").unwrap();
            probe.seen().unwrap()
        };
        append(&path, &log, &root, b"{}\n").unwrap();
        let at_first = log.seen().unwrap();
        assert!(Arc::ptr_eq(&at_first, &turn_of(&first)));
        // Replaced, and looked at again: the other file's turn.
        std::fs::rename(&other, &path).unwrap();
        log.looked.store(false, Ordering::Relaxed);
        append(&path, &log, &root, b"{}\n").unwrap();
        let at_other = log.seen().unwrap();
        assert!(!Arc::ptr_eq(&at_other, &at_first));
        assert!(Arc::ptr_eq(&at_other, &turn_of(&path)));
        // Until a look finds the first file there again.
        std::fs::rename(&first, &path).unwrap();
        log.looked.store(false, Ordering::Relaxed);
        append(&path, &log, &root, b"{}\n").unwrap();
        assert!(Arc::ptr_eq(&log.seen().unwrap(), &at_first));
        // No look, no turn.
        log.looked.store(false, Ordering::Relaxed);
        assert!(log.seen().is_none());
    }

    /// Two hooks whose paths name one file (here through a hard link) take
    /// turns at it: the turn is the file's, not the path's; another file
    /// has another.
    #[test]
    fn a_file_is_known_by_its_identity_not_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::lazy(dir.path());
        let [a, b, c] = ["a", "b", "c"].map(|name| dir.path().join(name));
        std::fs::write(&a, "").unwrap();
        std::fs::hard_link(&a, &b).unwrap();
        std::fs::write(&c, "").unwrap();
        let turn = |path: &Path| {
            let log = Log::new(path, &root);
            append(path, &log, &root, b"{}\n").unwrap();
            log.seen().expect("looked at by its first append")
        };
        assert!(Arc::ptr_eq(&turn(&a), &turn(&b)));
        assert!(!Arc::ptr_eq(&turn(&a), &turn(&c)));
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "{}\n{}\n{}\n");
    }

    /// `create` opens what `check` found to be a regular file; should it have
    /// been swapped for something else since (here a device, which opens
    /// without blocking), `create` refuses it by itself.
    #[cfg(unix)]
    #[test]
    fn create_refuses_what_is_not_a_regular_file_whatever_check_saw() {
        let device = Path::new("/dev/null");
        let root = Root::lazy(Path::new("/tmp"));
        assert_eq!(target(&root, device), Target::AsWritten);
        assert!(
            matches!(create(device, &root), Some(AppendProblem::NotRegular { path }) if path == device)
        );
    }

    /// A path is under the root however it names it: relative, joined with
    /// the root as given, or with the root made absolute; anything else
    /// absolute is taken as written.
    #[test]
    fn a_path_under_the_root_is_a_name_beneath_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::lazy(dir.path());
        let beneath = |name: &str| Target::Beneath(PathBuf::from(name));
        assert_eq!(target(&root, &dir.path().join("logs/a")), beneath("logs/a"));
        assert_eq!(target(&root, Path::new("logs/a")), beneath("logs/a"));
        assert_eq!(target(&root, Path::new("/elsewhere/a")), Target::AsWritten);
        // The root itself is the directory it is, not a file beneath it.
        assert_eq!(target(&root, dir.path()), Target::AsWritten);
        let relative = Root::lazy(Path::new("."));
        assert_eq!(target(&relative, Path::new("./a")), beneath("a"));
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(target(&relative, &cwd.join("b")), beneath("b"));
        assert!(relative.is_open());
    }

    /// A fragment left by a short write gets a newline in place of its last
    /// byte, even after another writer's line: that line is left whole, and
    /// the file does not grow.
    #[cfg(unix)]
    #[test]
    fn a_fragment_is_ended_in_place_whatever_was_appended_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, "{\"a\":1}\n").unwrap();
        let mut ours = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        ours.write_all(b"{\"frag").unwrap();
        let mut theirs = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        theirs.write_all(b"{\"b\":2}\n").unwrap();
        assert!(unglue(&ours, 6));
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":1}\n{\"fra\n{\"b\":2}\n"
        );
        assert!(unglue(&ours, 0), "nothing written, nothing to end");
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 22);
    }

    /// What cannot seek (a pipe, as a FIFO swapped in would be) gets a
    /// newline after the fragment instead.
    #[cfg(unix)]
    #[test]
    fn a_fragment_in_a_pipe_is_followed_by_a_newline() {
        let (reader, writer) = rustix::pipe::pipe().unwrap();
        let writer = File::from(writer);
        (&writer).write_all(b"{\"frag").unwrap();
        assert!(unglue(&writer, 6));
        drop(writer);
        let mut got = String::new();
        io::Read::read_to_string(&mut File::from(reader), &mut got).unwrap();
        assert_eq!(got, "{\"frag\n");
    }
}
