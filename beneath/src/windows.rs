//! Windows: the rules of the [crate] kept with a directory handle.
//!
//! cap-std's [`Dir`] is the handle names are opened beneath (Windows has no
//! `openat`; cap-std opens a name relative to a handle with
//! `NtCreateFile`), and cap-fs-ext's [`FollowSymlinks::No`] opens a name
//! without following a reparse point at it: a symbolic link or a junction
//! there is the error `ERROR_STOPPED_ON_SYMLINK`, as `O_NOFOLLOW` makes a
//! link `ELOOP` on Unix. The path is walked one name at a time from the
//! root, as Unix walks it without `openat2`: no link or junction under the
//! root is followed at all, and where a path meets one it is refused as
//! [`Error::Outside`] naming it (a read with [`Links::Anywhere`] aside).
//!
//! What cap-std does not refuse, and this module does, before anything is
//! opened: a name Windows reserves for a device (`CON`, `NUL`, `COM1`, in
//! any case and with any extension), a `name:stream` (an alternate data
//! stream: a second file behind a name), and a top-level name that the file
//! system opens as owned state though it is not spelled so: `.IO`, `.io.`
//! and `.io ` by their text (Win32 folds case and trims trailing dots and
//! spaces), an 8.3 short name such as `IO~1` or a name in another case of a
//! non-ASCII letter by the file it opens, compared with owned state's own
//! (volume serial number and file index).

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::{
    DirExt, FollowSymlinks, MetadataExt, OpenOptionsFollowExt, OpenOptionsMaybeDirExt,
};
use cap_std::fs::{Dir, OpenOptions};

use crate::{Error, Kind, Links, Open, Opened, Root, Via, Way, names, no_file};

/// `ERROR_STOPPED_ON_SYMLINK`: what an open that follows no reparse point
/// says of one, Windows' `ELOOP`.
const STOPPED_ON_SYMLINK: i32 = 681;

/// What [`Error::NotRegular`] says of a device name.
const DEVICE: &str = "a device Windows reserves by its name (`CON`, `NUL`, `COM1`, ...)";

/// The names Windows reserves for devices, whatever their extension.
const DEVICES: [&str; 32] = [
    "CON",
    "PRN",
    "AUX",
    "NUL",
    "CONIN$",
    "CONOUT$",
    "COM0",
    "COM1",
    "COM2",
    "COM3",
    "COM4",
    "COM5",
    "COM6",
    "COM7",
    "COM8",
    "COM9",
    "COM\u{b9}",
    "COM\u{b2}",
    "COM\u{b3}",
    "LPT0",
    "LPT1",
    "LPT2",
    "LPT3",
    "LPT4",
    "LPT5",
    "LPT6",
    "LPT7",
    "LPT8",
    "LPT9",
    "LPT\u{b9}",
    "LPT\u{b2}",
    "LPT\u{b3}",
];

impl Root {
    /// Opens `rel`, a relative path without `..`, beneath the root as `how`
    /// says, by the rules of the [crate] kept the Windows way (no
    /// link or junction followed; device names, streams and aliases of owned
    /// state refused).
    ///
    /// # Errors
    /// See [`Error`]; a file that does not exist is `Error::Io` of kind
    /// `NotFound`. A lazy root that cannot be opened now fails as its
    /// directory's open does (`Error::Io`).
    pub fn open_file(&self, rel: impl AsRef<Path>, how: &Open) -> Result<Opened, Error> {
        let rel = rel.as_ref();
        let opened_now;
        let dir = match &self.fd {
            Some(dir) => dir,
            None => {
                opened_now = open_dir(&self.path)?;
                &opened_now
            }
        };
        Beneath { root: self, dir }.open(rel, how)
    }

    /// Returns what `rel`'s last name is, without following it (a link or a
    /// junction is [`Kind::Symlink`]), or `None` when there is no such name;
    /// a device name is [`Kind::Special`].
    ///
    /// # Errors
    /// As [`Root::open_file`] fails to reach the directory, or the look
    /// fails.
    pub fn kind_of(&self, rel: impl AsRef<Path>) -> Result<Option<Kind>, Error> {
        let rel = rel.as_ref();
        let names = names(rel).map_err(|refused| climbing(self, rel, refused))?;
        let Some((last, parents)) = names.split_last() else {
            return Err(no_file());
        };
        match refuse_name(last) {
            Err(Error::NotRegular { kind }) => return Ok(Some(Kind::Special(kind))),
            Err(other) => return Err(other),
            Ok(()) => {}
        }
        let dir = match parents.is_empty() {
            true => {
                if let Some(name) = self.owner(last) {
                    return Err(owned_by_name(name));
                }
                let file = self.open_file(last, &Open::read());
                if let Err(e @ Error::Owned { .. }) = file {
                    return Err(e);
                }
                match &self.fd {
                    Some(dir) => dir.try_clone()?,
                    None => open_dir(&self.path)?,
                }
            }
            false => {
                let dir: PathBuf = parents.iter().collect();
                let dir = self.open_file(dir, &Open::read())?.into_file();
                if !dir.metadata()?.is_dir() {
                    return Err(io::Error::from(io::ErrorKind::NotADirectory).into());
                }
                Dir::from_std_file(dir)
            }
        };
        match dir.symlink_metadata(last) {
            Ok(meta) => Ok(Some(kind(meta.file_type()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

/// What a file of type `file_type` is.
fn kind(file_type: cap_std::fs::FileType) -> Kind {
    if file_type.is_symlink() {
        Kind::Symlink
    } else if file_type.is_dir() {
        Kind::Directory
    } else if file_type.is_file() {
        Kind::Regular
    } else {
        Kind::Special("an unknown kind of file")
    }
}

/// Opens the directory `path`, to open names beneath it.
pub(crate) fn open_dir(path: &Path) -> io::Result<Dir> {
    Dir::open_ambient_dir(path, cap_std::ambient_authority())
}

/// [`Error::Owned`] by its name.
fn owned_by_name(name: &OsStr) -> Error {
    Error::Owned {
        name: name.to_os_string(),
        way: Way::Name,
    }
}

/// A name refused before anything is opened: a device's, or a stream's.
fn refuse_name(name: &OsStr) -> Result<(), Error> {
    let text = name.to_string_lossy();
    if text.contains(':') {
        return Err(Error::Io(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "`{text}` names an alternate data stream (`name:stream`), a second file behind a \
                 name, which is never opened"
            ),
        )));
    }
    // `CON.txt` and `con .log` are the console too: the part before the
    // first dot, trailing spaces trimmed, in any case.
    let stem = text
        .split('.')
        .next()
        .unwrap_or_default()
        .trim_end_matches(' ');
    let stem = stem.to_uppercase();
    if DEVICES.contains(&stem.as_str()) {
        return Err(Error::NotRegular { kind: DEVICE });
    }
    Ok(())
}

/// [`Error::Outside`] for a path with `..` or a prefix, or
/// [`Error::Owned`] when its words climb back into owned state
/// (`a/../.io/x`): no link is read, as none is followed.
fn climbing(root: &Root, rel: &Path, refused: Error) -> Error {
    let mut led: Vec<&OsStr> = Vec::new();
    for part in rel.components() {
        match part {
            Component::Normal(name) => led.push(name),
            Component::ParentDir if led.pop().is_some() => {}
            Component::CurDir => {}
            _ => return refused,
        }
    }
    match led.first().and_then(|first| root.owner(first)) {
        Some(name) => Error::Owned {
            name: name.to_os_string(),
            way: Way::Up,
        },
        None => refused,
    }
}

/// A [`Root`] with the handle an open starts from: the one held, or one
/// opened for this open.
struct Beneath<'r> {
    root: &'r Root,
    dir: &'r Dir,
}

impl Beneath<'_> {
    /// [`Root::open_file`]: the names checked, then walked one at a time.
    fn open(&self, rel: &Path, how: &Open) -> Result<Opened, Error> {
        let names = names(rel).map_err(|refused| climbing(self.root, rel, refused))?;
        let Some((last, parents)) = names.split_last() else {
            return Err(no_file());
        };
        for name in &names {
            refuse_name(name)?;
        }
        let owned = self.root.owner(names[0]);
        if let Some(name) = owned
            && !how.own
        {
            return Err(owned_by_name(name));
        }
        let links = how.links_for(owned.is_some());
        let mut dir: Option<Dir> = None;
        for (depth, name) in parents.iter().enumerate() {
            let at = dir.as_ref().unwrap_or(self.dir);
            if how.dirs.is_some() {
                match at.create_dir(name) {
                    Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e.into()),
                    _ => {}
                }
            }
            match at.open_dir_nofollow(name) {
                Ok(next) => {
                    if depth == 0 && owned.is_none() && may_alias(name) {
                        self.not_an_alias(next.dir_metadata()?, how)?;
                    }
                    dir = Some(next);
                }
                Err(_) if is_link(at, name) => return self.link_met(rel, depth + 1, links, how),
                Err(e) => return Err(e.into()),
            }
        }
        if parents.is_empty() && owned.is_none() && may_alias(last) {
            // Judged before the open, which may create or truncate.
            if let Ok(file) = self.dir.open_with(last, &look()) {
                self.not_an_alias(file.metadata()?, how)?;
            }
        }
        let at = dir.as_ref().unwrap_or(self.dir);
        let file = match at.open_with(last, &options(how)) {
            Ok(file) => file,
            Err(e) if e.raw_os_error() == Some(STOPPED_ON_SYMLINK) || is_link(at, last) => {
                return self.link_met(rel, names.len(), links, how);
            }
            Err(e) => return Err(e.into()),
        };
        finish(file.into_std(), Via::Direct, how)
    }

    /// Refuses a top-level name that is not owned state by its text but
    /// [may be an alias](may_alias), when the file it opened (`meta`, read
    /// from its handle) is owned state's all the same.
    fn not_an_alias(&self, meta: cap_std::fs::Metadata, how: &Open) -> Result<(), Error> {
        if self.root.owned.is_empty() || how.own {
            return Ok(());
        }
        let id = (meta.dev(), meta.ino());
        for owned in &self.root.owned {
            let Ok(state) = self.dir.open_with(owned, &look()) else {
                continue;
            };
            let state = state.metadata()?;
            if (state.dev(), state.ino()) == id {
                return Err(owned_by_name(owned));
            }
        }
        Ok(())
    }

    /// The error (or, for the operator's own read, the file) once the walk
    /// met a link or a junction as the `depth`-th name of `rel`: nothing
    /// under the root is followed.
    fn link_met(
        &self,
        rel: &Path,
        depth: usize,
        links: Links,
        how: &Open,
    ) -> Result<Opened, Error> {
        let link: PathBuf = rel.iter().filter(|n| *n != ".").take(depth).collect();
        let at_end = depth == rel.iter().filter(|n| *n != ".").count();
        if links == Links::Anywhere && !how.write && !(how.nofollow && at_end) {
            // The operator's own file: Windows follows the link, as the
            // kernel does on Unix without `/proc` to tell where it led.
            let file = std::fs::OpenOptions::new()
                .read(true)
                .open(self.root.path.join(rel))?;
            return finish(file, Via::LinkOut, how);
        }
        if how.unjudged && how.nofollow && at_end {
            return Err(io::Error::from_raw_os_error(STOPPED_ON_SYMLINK).into());
        }
        Err(Error::Outside {
            through: Some(link),
        })
    }
}

/// Whether `name` may be another name of a file the file system opens by
/// it: an 8.3 short name (`IO~1`, `IOD4A3~1`) has a `~`, and a name that
/// folds to another in a case other than ASCII's has a letter outside it.
/// Same-named in ASCII, dots and spaces is [`Root::own`]'s `same_name`.
fn may_alias(name: &OsStr) -> bool {
    let text = name.to_string_lossy();
    !text.is_ascii() || text.contains('~')
}

/// The options of an open that only looks: the file's handle, for what
/// it is, following no reparse point, a directory as well.
fn look() -> OpenOptions {
    let mut look = OpenOptions::new();
    look.read(true).follow(FollowSymlinks::No).maybe_dir(true);
    look
}

/// Whether `name` in `dir` is a symbolic link or a junction.
fn is_link(dir: &Dir, name: &OsStr) -> bool {
    dir.symlink_metadata(name)
        .is_ok_and(|meta| meta.file_type().is_symlink())
}

/// The options of the one open of the last name: as `how` says, no
/// reparse point followed, and a directory opened for a read (whose read
/// then fails, as on Unix). The mode is Unix's: a file made here takes its
/// directory's inherited access control list.
fn options(how: &Open) -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .read(!how.write)
        .write(how.write && !how.append)
        .append(how.append)
        .truncate(how.truncate)
        .create(how.create.is_some())
        .follow(FollowSymlinks::No)
        .maybe_dir(!how.write);
    options
}

/// `file`, reached as `via`, judged unless the open is unjudged: a regular
/// file or a directory, nothing else.
fn finish(file: File, via: Via, how: &Open) -> Result<Opened, Error> {
    if how.unjudged {
        return Ok(Opened {
            file,
            via: Via::Untold,
        });
    }
    let kind = file.metadata()?.file_type();
    if kind.is_symlink() {
        return Err(Error::Link);
    }
    if !kind.is_file() && !kind.is_dir() {
        return Err(Error::NotRegular {
            kind: "a special file",
        });
    }
    Ok(Opened { file, via })
}

#[cfg(test)]
mod tests;
