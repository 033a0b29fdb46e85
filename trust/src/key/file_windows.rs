//! The key's file on Windows (issue 47): read when it is there and may be
//! trusted, made whole and given its name in one step when it is not, as
//! `file.rs` does on Unix.
//!
//! The Windows way of each Unix step:
//!
//! - the directory, when made here, gets a DACL of one entry (the user's
//!   full control) that what is made in it inherits, as 0700; one that was
//!   there is judged by [`crate::owner::others_may_write_dir`];
//! - the key file is opened without following a reparse point
//!   (`FILE_FLAG_OPEN_REPARSE_POINT`, as `O_NOFOLLOW`) and judged on its
//!   handle: a regular file, not a reparse point, owned by the user (or by
//!   the Administrators group for an administrator), and its DACL lets no
//!   one but the user, SYSTEM and the Administrators group read or change
//!   it, as 0600;
//! - a new key is written to a file made exclusively (`CREATE_NEW`), given
//!   the one-entry DACL on its handle, synced, then hard-linked to its
//!   name, which fails when the name exists, as `linkat` does.

use std::fs::OpenOptions;
use std::io::{self, Read, Write};
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use io_winsec::{Security, Sid, rights};

use super::KEY_FILE;
use super::chain::Tag;
use super::fresh::{random, temp_name};
use super::key_error::{KeyError, Refusal};
use crate::owner::{self, Writer};

/// The key's bytes.
pub(super) type Bytes = [u8; Tag::LEN];

/// `FILE_FLAG_OPEN_REPARSE_POINT`: open a reparse point itself, never
/// where it leads.
const OPEN_REPARSE_POINT: u32 = 0x0020_0000;
/// `FILE_FLAG_BACKUP_SEMANTICS`: a directory opens too, to be refused as
/// not a file rather than failing the open.
const BACKUP_SEMANTICS: u32 = 0x0200_0000;
/// `FILE_ATTRIBUTE_REPARSE_POINT`.
const REPARSE_POINT: u32 = 0x0400;

/// Returns the key in `dir`'s [`KEY_FILE`], making `dir` (the user's alone)
/// and the key (likewise) when they are missing.
pub(super) fn load_or_create(dir: &Path) -> Result<Bytes, KeyError> {
    owner::make_private_dir(dir)
        .map_err(|cause| KeyError::io(dir, "make the key's directory", cause))?;
    check_dir(dir)?;
    if let Some(key) = read(dir)? {
        return Ok(key);
    }
    let mut key = [0; Tag::LEN];
    random(&mut key, dir)?;
    install(dir, &key)
}

/// Returns the key in `dir`'s [`KEY_FILE`], judged as
/// [`load_or_create`] judges it; `None` when `dir` or the file does not
/// exist. Makes and writes nothing.
pub(super) fn load(dir: &Path) -> Result<Option<Bytes>, KeyError> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(KeyError::io(dir, "look at the key's directory", e)),
        Ok(_) => {}
    }
    check_dir(dir)?;
    read(dir)
}

/// Judges `dir`: a directory no one else may write in or replace, so no
/// one else can put a key of theirs in it.
fn check_dir(dir: &Path) -> Result<(), KeyError> {
    match owner::others_may_write_dir(dir) {
        Some(why) => Err(KeyError::Exposed {
            path: dir.to_path_buf(),
            why,
        }),
        None => Ok(()),
    }
}

/// The key in `dir`'s [`KEY_FILE`], judged on its handle before a byte is
/// read; `None` when there is no such file.
fn read(dir: &Path) -> Result<Option<Bytes>, KeyError> {
    let path = dir.join(KEY_FILE);
    #[allow(
        clippy::disallowed_methods,
        reason = "the key in the embedder's own data directory, opened without following a \
                  reparse point and judged on its handle before it is read"
    )]
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(OPEN_REPARSE_POINT | BACKUP_SEMANTICS)
        .open(&path);
    let file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(KeyError::io(&path, "open the key file", e)),
    };
    let meta = file
        .metadata()
        .map_err(|e| KeyError::io(&path, "look at the key file", e))?;
    if meta.file_attributes() & REPARSE_POINT != 0 {
        return Err(KeyError::refused(&path, Refusal::Link));
    }
    if !meta.is_file() {
        return Err(KeyError::refused(&path, Refusal::NotAFile));
    }
    let security =
        Security::of_file(&file).map_err(|e| KeyError::io(&path, "read the key file's DACL", e))?;
    let me = io_winsec::current_user()
        .map_err(|e| KeyError::io(&path, "tell who runs this program", e))?;
    let admin = || io_winsec::is_administrator().unwrap_or(false);
    if let Some(why) = not_private(&security, &me, admin) {
        return Err(KeyError::NotPrivate { path, why });
    }
    let mut bytes = Vec::with_capacity(Tag::LEN + 1);
    // One byte past a key's length is enough to know it is not one.
    file.take(Tag::LEN as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|cause| KeyError::io(&path, "read the key file", cause))?;
    let key = Bytes::try_from(bytes.as_slice()).map_err(|_| {
        let len = meta.len().max(bytes.len() as u64);
        KeyError::refused(&path, Refusal::Size { len })
    })?;
    Ok(Some(key))
}

/// Why a key file of `security` is not `me`'s alone: another owner, or a
/// DACL entry that lets another read or change it
/// ([`owner::others_granted`], the rule every Windows file here is judged
/// by, asked for reading too); `None` when it is.
pub(super) fn not_private(
    security: &Security,
    me: &Sid,
    admin: impl FnOnce() -> bool,
) -> Option<String> {
    let why = match owner::others_granted(security, me, admin, rights::READ | rights::WRITE)? {
        Writer::OwnerSid { owner, me } => {
            format!("the key file is owned by {owner}, not by you ({me})")
        }
        Writer::AclSid { sid } => format!(
            "a DACL entry on the key file lets another user or group ({sid}) read or change it"
        ),
        Writer::NullDacl => "the key file has no DACL at all, so everyone may read it".to_owned(),
        // The rule's one other answer: a file with no owner.
        _ => "the key file has no owner".to_owned(),
    };
    Some(why)
}

/// Gives `key` the name [`KEY_FILE`] in `dir`, unless another process gave
/// a key that name first; returns the key the name holds then, ours or
/// the other's.
fn install(dir: &Path, key: &Bytes) -> Result<Bytes, KeyError> {
    let temp = temp_name(dir)?;
    let temp_path = dir.join(&temp);
    let linked = write_new(&temp_path, key)
        .map_err(|cause| KeyError::io(&temp_path, "make the key file", cause))
        .and_then(|()| link(&temp_path, dir));
    #[allow(
        clippy::disallowed_methods,
        reason = "the temporary name of the key just made, in the embedder's own data directory"
    )]
    let _ = std::fs::remove_file(&temp_path);
    match linked? {
        true => Ok(*key),
        false => read(dir)?.ok_or_else(|| {
            KeyError::io(
                &dir.join(KEY_FILE),
                "read the key file another process made",
                io::ErrorKind::NotFound.into(),
            )
        }),
    }
}

/// Makes the new file `path` exclusively, gives it the one-entry DACL on
/// its handle, writes `key` and syncs it.
fn write_new(path: &Path, key: &Bytes) -> io::Result<()> {
    #[allow(
        clippy::disallowed_methods,
        reason = "a new file in the embedder's own data directory, made exclusively"
    )]
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .access_mode(0x4000_0000 | 0x0002_0000 | owner::WRITE_DAC)
        .open(path)?;
    io_winsec::make_private(&file, false)?;
    file.write_all(key)?;
    file.sync_all()
}

/// Links `temp` to [`KEY_FILE`] in `dir`: `true` when it took the name,
/// `false` when the name was already taken.
fn link(temp: &Path, dir: &Path) -> Result<bool, KeyError> {
    let name = dir.join(KEY_FILE);
    #[allow(
        clippy::disallowed_methods,
        reason = "the key, whole, given its name in the embedder's own data directory; the link \
                  fails if the name exists, which is how two makers agree"
    )]
    match std::fs::hard_link(temp, &name) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(KeyError::io(&name, "give the key file its name", e)),
    }
}
