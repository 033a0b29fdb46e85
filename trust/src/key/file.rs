//! The key's file: read when it is there and may be trusted, made whole
//! and given its name in one step when it is not.
//!
//! The key lives in a directory the embedder names (its data directory),
//! beneath no root a clone or a model shapes, so it is opened with rustix
//! directly rather than through io-beneath, whose opens have no exclusive
//! create; every open here is relative to the directory held open, never
//! follows a link at the last name, and is judged on its descriptor.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;

use super::KEY_FILE;
use super::chain::Tag;
use super::fresh::{random, temp_name};
use super::key_error::{KeyError, Refusal};

/// The key's bytes.
pub(super) type Bytes = [u8; Tag::LEN];

/// The mode the key's directory is made with: its owner's alone.
const DIR_MODE: u32 = 0o700;

/// Returns the key in `dir`'s [`KEY_FILE`], making `dir` (0700) and the
/// key (0600) when they are missing.
pub(super) fn load_or_create(dir: &Path) -> Result<Bytes, KeyError> {
    let dir_fd = match open_dir(dir)? {
        Some(fd) => fd,
        None => {
            make_dir(dir)?;
            open_dir(dir)?.ok_or_else(|| {
                KeyError::io(
                    dir,
                    "open the key's directory",
                    io::ErrorKind::NotFound.into(),
                )
            })?
        }
    };
    if let Some(key) = read(&dir_fd, dir)? {
        return Ok(key);
    }
    let mut key = [0; Tag::LEN];
    random(&mut key, dir)?;
    install(&dir_fd, dir, &key)
}

/// Returns the key in `dir`'s [`KEY_FILE`], judged as
/// [`load_or_create`] judges it; `None` when `dir` or the file does not
/// exist. Makes and writes nothing.
pub(super) fn load(dir: &Path) -> Result<Option<Bytes>, KeyError> {
    match open_dir(dir)? {
        Some(dir_fd) => read(&dir_fd, dir),
        None => Ok(None),
    }
}

/// Makes `dir` and the directories above it that are missing, 0700.
fn make_dir(dir: &Path) -> Result<(), KeyError> {
    #[allow(
        clippy::disallowed_methods,
        reason = "the embedder's own data directory, named by its caller and beneath no root a \
                  clone or a model shapes; what it holds is judged on its descriptor below"
    )]
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)
        .map_err(|cause| KeyError::io(dir, "make the key's directory", cause))
}

/// Opens `dir` and judges it: a directory of this user's that no one else
/// may write in, so no one else can put a key of theirs in it; `None` when
/// there is no such directory.
fn open_dir(dir: &Path) -> Result<Option<OwnedFd>, KeyError> {
    #[allow(
        clippy::disallowed_methods,
        reason = "the embedder's own data directory (a link to it is the embedder's choice), \
                  judged on the descriptor opened"
    )]
    let fd = match rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(None),
        Err(e) => return Err(KeyError::io(dir, "open the key's directory", e.into())),
    };
    let stat = rustix::fs::fstat(&fd)
        .map_err(|e| KeyError::io(dir, "look at the key's directory", e.into()))?;
    if let Some(refusal) = judge_dir(stat.st_uid, mode_of(&stat), me()) {
        return Err(KeyError::refused(dir, refusal));
    }
    // The descriptor's owner and bits, above, are what was opened; ACLs
    // and the directories above it are judged by the one rule the trust
    // store's directory and every local file get.
    if let Some(why) = crate::owner::others_may_write_dir(dir) {
        return Err(KeyError::Exposed {
            path: dir.to_path_buf(),
            why,
        });
    }
    Ok(Some(fd))
}

/// Why a directory owned by `owner`, of mode `mode`, may not hold the key
/// of the user `me`; `None` when it may.
pub(super) fn judge_dir(owner: u32, mode: u32, me: u32) -> Option<Refusal> {
    if owner != me {
        Some(Refusal::DirNotYours { owner, user: me })
    } else if mode & 0o022 != 0 {
        Some(Refusal::DirWritable {
            mode: mode & 0o7777,
        })
    } else {
        None
    }
}

/// Why a file of type `kind`, owned by `owner`, of mode `mode`, is not a
/// key the user `me` may trust; `None` when it is.
pub(super) fn judge_file(kind: FileType, owner: u32, mode: u32, me: u32) -> Option<Refusal> {
    if kind != FileType::RegularFile {
        Some(Refusal::NotAFile)
    } else if owner != me {
        Some(Refusal::NotYours { owner, user: me })
    } else if mode & 0o077 != 0 {
        Some(Refusal::Exposed {
            mode: mode & 0o7777,
        })
    } else {
        None
    }
}

/// The key in `dir`'s [`KEY_FILE`] (held open as `dir_fd`), judged before a
/// byte is read; `None` when there is no such file.
fn read(dir_fd: &OwnedFd, dir: &Path) -> Result<Option<Bytes>, KeyError> {
    let path = dir.join(KEY_FILE);
    // O_NONBLOCK: a FIFO put there must not hold the open; it is refused
    // on its descriptor below.
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    #[allow(
        clippy::disallowed_methods,
        reason = "the key in the embedder's own data directory, opened without following a link \
                  and judged on its descriptor before it is read"
    )]
    let fd = match rustix::fs::openat(dir_fd, KEY_FILE, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(None),
        // O_NOFOLLOW on a link: ELOOP on Linux and macOS, EMLINK on FreeBSD.
        Err(Errno::LOOP | Errno::MLINK) => return Err(KeyError::refused(&path, Refusal::Link)),
        Err(e) => return Err(KeyError::io(&path, "open the key file", e.into())),
    };
    let stat = rustix::fs::fstat(&fd)
        .map_err(|e| KeyError::io(&path, "look at the key file", e.into()))?;
    let kind = FileType::from_raw_mode(stat.st_mode);
    if let Some(refusal) = judge_file(kind, stat.st_uid, mode_of(&stat), me()) {
        return Err(KeyError::refused(&path, refusal));
    }
    let mut bytes = Vec::with_capacity(Tag::LEN + 1);
    // One byte past a key's length is enough to know it is not one.
    File::from(fd)
        .take(Tag::LEN as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|cause| KeyError::io(&path, "read the key file", cause))?;
    let key = Bytes::try_from(bytes.as_slice()).map_err(|_| {
        let len = u64::try_from(stat.st_size)
            .unwrap_or(0)
            .max(bytes.len() as u64);
        KeyError::refused(&path, Refusal::Size { len })
    })?;
    Ok(Some(key))
}

/// Gives `key` the name [`KEY_FILE`] in `dir` (held open as `dir_fd`),
/// unless another process gave a key that name first; returns the key the
/// name holds then, ours or the other's.
///
/// The key is written whole to a file of its own, made exclusively
/// (`O_EXCL`, 0600), synced, then linked to its name, which fails when the
/// name exists: two processes making the key at once agree on the one
/// linked first, and no reader ever sees a key half written.
fn install(dir_fd: &OwnedFd, dir: &Path, key: &Bytes) -> Result<Bytes, KeyError> {
    install_as(dir_fd, dir, key, &temp_name(dir)?)
}

/// [`install`], with `temp` as the key's name until it is whole.
pub(super) fn install_as(
    dir_fd: &OwnedFd,
    dir: &Path,
    key: &Bytes,
    temp: &str,
) -> Result<Bytes, KeyError> {
    let path = dir.join(temp);
    // O_EXCL: a name already there (a file, or a link, which is not
    // followed) fails the open. Made with no permission at all, then given
    // exactly 0600 by `write_key`, whatever the umask.
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC;
    #[allow(
        clippy::disallowed_methods,
        reason = "a new file in the embedder's own data directory, made exclusively"
    )]
    let fd = rustix::fs::openat(dir_fd, temp, flags, Mode::empty())
        .map_err(|e| KeyError::io(&path, "make the key file", e.into()))?;
    let linked = write_key(fd, key)
        .map_err(|cause| KeyError::io(&path, "write the key file", cause))
        .and_then(|()| link(dir_fd, temp, dir));
    #[allow(
        clippy::disallowed_methods,
        reason = "the temporary name of the key just made, in the embedder's own data directory"
    )]
    let _ = rustix::fs::unlinkat(dir_fd, temp, AtFlags::empty());
    match linked? {
        true => {
            // The name lasts a crash too; a directory that cannot be synced
            // (some file systems refuse) still holds it.
            let _ = rustix::fs::fsync(dir_fd);
            Ok(*key)
        }
        false => read(dir_fd, dir)?.ok_or_else(|| {
            KeyError::io(
                &dir.join(KEY_FILE),
                "read the key file another process made",
                io::ErrorKind::NotFound.into(),
            )
        }),
    }
}

/// Links `temp` in `dir` (held open as `dir_fd`) to [`KEY_FILE`]: `true`
/// when it took the name, `false` when the name was already taken.
fn link(dir_fd: &OwnedFd, temp: &str, dir: &Path) -> Result<bool, KeyError> {
    #[allow(
        clippy::disallowed_methods,
        reason = "the key, whole, given its name in the embedder's own data directory; the link \
                  fails if the name exists, which is how two makers agree"
    )]
    match rustix::fs::linkat(dir_fd, temp, dir_fd, KEY_FILE, AtFlags::empty()) {
        Ok(()) => Ok(true),
        Err(Errno::EXIST) => Ok(false),
        Err(e) => Err(KeyError::io(
            &dir.join(KEY_FILE),
            "give the key file its name",
            e.into(),
        )),
    }
}

/// Writes `key` to the new file `fd`, makes it exactly 0600 whatever the
/// umask, and syncs it.
pub(super) fn write_key(fd: OwnedFd, key: &Bytes) -> io::Result<()> {
    rustix::fs::fchmod(&fd, Mode::from_raw_mode(0o600))?;
    let mut file = File::from(fd);
    file.write_all(key)?;
    file.sync_all()
}

/// The effective user.
fn me() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// The mode bits of `stat`, as a `u32` on every system.
#[allow(
    clippy::unnecessary_cast,
    reason = "`st_mode` is a u32 on Linux and a u16 on macOS and FreeBSD"
)]
fn mode_of(stat: &Stat) -> u32 {
    stat.st_mode as u32
}
