//! Who owns a file, and whether anyone but the running user may write it
//! or replace it: its owner, its mode bits, its POSIX ACL, and the same of
//! every directory above it.
//!
//! OpenSSH's `StrictModes` and git's `safe.directory` are the anchors: a
//! file someone else can change is not the operator's word, whoever wrote
//! it first. The rule, in one place:
//!
//! - **the file** is owned by the running user (the effective uid), has no
//!   group or other write bit, and carries no POSIX ACL entry that lets
//!   another user or any group write it;
//! - **every directory above it** (along the path as given and along its
//!   real path, links resolved) is owned by the running user or by root,
//!   and neither its mode bits nor its ACL let another user or a group
//!   write it; a group counts as others whichever group it is (who else is
//!   in it is not something a file can show). A directory others may write
//!   but whose sticky bit is set (`/tmp`) is accepted when the entry on the
//!   way through it is owned by the running user or root: the sticky bit
//!   keeps others from renaming or removing an entry they do not own;
//! - what cannot be looked at (a `stat` refused, an ACL that does not
//!   parse) counts as writable by others.
//!
//! POSIX ACLs are read on Linux (the `system.posix_acl_access` extended
//! attribute, format version 2). Other systems' ACLs (macOS's, FreeBSD's
//! NFSv4 ones) are not read: there, mode bits alone decide.
//!
//! On Windows (issue 47) the rule is the same, said in Windows' terms, as
//! git's `safe.directory` and Win32-OpenSSH's `StrictModes` say it there:
//!
//! - **the file** is owned by the running user (its token's user SID), or
//!   by the Administrators group when the running user's token is in that
//!   group (an elevated administrator's files are owned so by default, and
//!   git accepts it too); and its DACL grants no one but that user, SYSTEM
//!   and the Administrators group a right that writes it, appends to it,
//!   removes or renames it, or changes its DACL or owner (a NULL DACL
//!   grants everyone everything);
//! - **every directory above it** (along the path as given and along its
//!   real path) is owned by the running user, SYSTEM, the Administrators
//!   group or TrustedInstaller (Windows' own directories), and its DACL
//!   grants no one else a right that removes, renames or replaces an entry
//!   in it or the directory itself (`FILE_DELETE_CHILD`, `DELETE`,
//!   `WRITE_DAC`, `WRITE_OWNER`, or a generic write). Adding a new entry
//!   (`C:\` lets every user make a directory there) is not among them:
//!   Windows has no sticky bit because an entry that is there can be
//!   removed only with one of those rights;
//! - the directory given to [`others_may_write_dir`] itself may not be
//!   added to by anyone else either;
//! - what cannot be looked at (a handle or a DACL refused, an entry this
//!   crate does not read) counts as writable by others.

use std::fmt;
use std::io;
#[cfg(unix)]
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::read::os_error;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::{WRITE_DAC, make_private_dir};
#[cfg(windows)]
pub use windows::{others_granted, others_may_write, others_may_write_dir};

/// The sticky bit: in a directory with it, only an entry's owner (or the
/// directory's, or root) may rename or remove the entry.
#[cfg(unix)]
const STICKY: u32 = 0o1000;

/// Someone other than the running user may write a file or replace it:
/// where, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OthersMayWrite {
    /// The file, or the directory above it, that others may write.
    pub path: PathBuf,
    /// Whether `path` is the file itself (else a directory above it).
    pub is_file: bool,
    /// How.
    pub how: Writer,
}

/// How someone other than the running user may write a file or a
/// directory.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Writer {
    /// Another user owns it.
    Owner {
        /// Its owner.
        uid: u32,
        /// The running user.
        me: u32,
    },
    /// Its group may write it (the mode's group write bit).
    Group {
        /// Its group.
        gid: u32,
        /// Its mode's permission bits.
        mode: u32,
    },
    /// Anyone may write it (the mode's other write bit).
    Anyone {
        /// Its mode's permission bits.
        mode: u32,
    },
    /// Its POSIX ACL lets another user write it.
    AclUser {
        /// The user the ACL names.
        uid: u32,
    },
    /// Its POSIX ACL lets a group write it.
    AclGroup {
        /// The group the ACL names.
        gid: u32,
    },
    /// Who may write it could not be told.
    Unknown {
        /// Why.
        cause: String,
    },
    /// Another user or group owns it (Windows: its owner's SID).
    #[cfg(windows)]
    OwnerSid {
        /// Its owner, as `S-1-5-21-…`.
        owner: String,
        /// The running user.
        me: String,
    },
    /// Its DACL grants another user or group a right that writes or
    /// replaces it, or one of those [`others_granted`] was asked about
    /// (Windows).
    #[cfg(windows)]
    AclSid {
        /// Whom, as `S-1-5-21-…`.
        sid: String,
    },
    /// It has a NULL DACL, which lets everyone do anything with it
    /// (Windows).
    #[cfg(windows)]
    NullDacl,
}

impl fmt::Display for OthersMayWrite {
    /// `its directory /x may be written by its group (gid 100, mode 775)`,
    /// or, for the file itself, `another user (uid 65534) owns it, not you
    /// (uid 1000)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let it = match self.is_file {
            true => "it".to_owned(),
            false => format!("the directory {} above it", self.path.display()),
        };
        match &self.how {
            Writer::Owner { uid, me } => {
                write!(f, "another user (uid {uid}) owns {it}, not you (uid {me})")
            }
            Writer::Group { gid, mode } => write!(
                f,
                "{it} may be written by its group (gid {gid}, mode {mode:o})"
            ),
            Writer::Anyone { mode } => write!(f, "anyone may write {it} (mode {mode:o})"),
            Writer::AclUser { uid } => {
                write!(
                    f,
                    "a POSIX ACL on {it} lets another user (uid {uid}) write it"
                )
            }
            Writer::AclGroup { gid } => {
                write!(f, "a POSIX ACL on {it} lets a group (gid {gid}) write it")
            }
            Writer::Unknown { cause } => {
                write!(f, "who may write {it} cannot be told ({cause})")
            }
            #[cfg(windows)]
            Writer::OwnerSid { owner, me } => {
                write!(
                    f,
                    "another user or group ({owner}) owns {it}, not you ({me})"
                )
            }
            #[cfg(windows)]
            Writer::AclSid { sid } => {
                write!(
                    f,
                    "a DACL entry on {it} lets another user or group ({sid}) change it"
                )
            }
            #[cfg(windows)]
            Writer::NullDacl => write!(f, "{it} has no DACL at all, so everyone may change it"),
        }
    }
}

/// Returns why someone other than the running user may write the file at
/// `path` or replace it (the rule of the [module](self)), or `None` when
/// no one else may.
///
/// ```
/// # #[cfg(not(unix))] fn main() {} // The example is Unix's mode bits.
/// # #[cfg(unix)] fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::os::unix::fs::PermissionsExt;
/// use io_trust::owner::{others_may_write, Writer};
///
/// let dir = tempfile::tempdir()?;
/// let file = dir.path().join("io.local.toml");
/// std::fs::write(&file, "")?;
/// std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
/// assert_eq!(others_may_write(&file), None);
///
/// std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o660))?;
/// let why = others_may_write(&file).unwrap();
/// assert!(matches!(why.how, Writer::Group { .. }));
/// assert!(why.to_string().starts_with("it may be written by its group"));
/// # Ok(())
/// # }
/// ```
#[cfg(unix)]
pub fn others_may_write(path: &Path) -> Option<OthersMayWrite> {
    let me = rustix::process::geteuid().as_raw();
    let file = |how| OthersMayWrite {
        path: path.to_path_buf(),
        is_file: true,
        how,
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) => return Some(file(unknown(&e))),
    };
    if meta.uid() != me {
        return Some(file(Writer::Owner {
            uid: meta.uid(),
            me,
        }));
    }
    if let Some(how) = writers(path, &meta, me) {
        return Some(file(how));
    }
    directories_above(path, me)
}

/// Returns why someone other than the running user may write the
/// directory `dir`, or one above it, or replace it; `None` when no one else
/// may. The directory itself may be owned by root as well as by the
/// running user, as every directory above a file may.
#[cfg(unix)]
pub fn others_may_write_dir(dir: &Path) -> Option<OthersMayWrite> {
    let me = rustix::process::geteuid().as_raw();
    let found = |how| OthersMayWrite {
        path: dir.to_path_buf(),
        is_file: false,
        how,
    };
    match std::fs::metadata(dir) {
        Ok(meta) => {
            if let Some(how) = judge_dir(dir, &meta, me, None) {
                return Some(found(how));
            }
        }
        Err(e) => return Some(found(unknown(&e))),
    }
    directories_above(dir, me)
}

/// The first directory above `path` (along the path as given, then along
/// its real path) that others may write, with how.
#[cfg(unix)]
fn directories_above(path: &Path, me: u32) -> Option<OthersMayWrite> {
    let given = match std::path::absolute(path) {
        Ok(given) => given,
        Err(e) => return Some(dir_writer(path, unknown(&e))),
    };
    let real = match std::fs::canonicalize(path) {
        Ok(real) => real,
        Err(e) => return Some(dir_writer(path, unknown(&e))),
    };
    for walk in [given, real] {
        let mut child = walk.as_path();
        // Both walks are absolute: they end at `/`, never at "".
        while let Some(dir) = child.parent() {
            let how = match std::fs::metadata(dir) {
                Ok(meta) => judge_dir(dir, &meta, me, Some(child)),
                Err(e) => Some(unknown(&e)),
            };
            if let Some(how) = how {
                return Some(dir_writer(dir, how));
            }
            child = dir;
        }
    }
    None
}

fn dir_writer(dir: &Path, how: Writer) -> OthersMayWrite {
    OthersMayWrite {
        path: dir.to_path_buf(),
        is_file: false,
        how,
    }
}

/// How others may write the directory `dir` (its `meta`), on the way to
/// `child`: owned by neither `me` nor root, or writable by others without
/// a sticky bit that protects `child`.
#[cfg(unix)]
fn judge_dir(
    dir: &Path,
    meta: &std::fs::Metadata,
    me: u32,
    child: Option<&Path>,
) -> Option<Writer> {
    if meta.uid() != me && meta.uid() != 0 {
        return Some(Writer::Owner {
            uid: meta.uid(),
            me,
        });
    }
    let how = writers(dir, meta, me)?;
    let protected = meta.mode() & STICKY != 0
        && child.is_some_and(|child| {
            std::fs::symlink_metadata(child).is_ok_and(|c| c.uid() == me || c.uid() == 0)
        });
    (!protected || matches!(how, Writer::Unknown { .. })).then_some(how)
}

/// How a group, another user or anyone may write `path` (its `meta`) by
/// its mode bits or its ACL. With an ACL that has a mask, the mode's group
/// bits are the mask, and the ACL says who the group entries are.
#[cfg(unix)]
fn writers(path: &Path, meta: &std::fs::Metadata, me: u32) -> Option<Writer> {
    let mode = meta.mode() & 0o7777;
    if mode & 0o002 != 0 {
        return Some(Writer::Anyone { mode });
    }
    let group = Writer::Group {
        gid: meta.gid(),
        mode,
    };
    let acl = match acl(path) {
        Ok(acl) => acl,
        Err(cause) => return Some(Writer::Unknown { cause }),
    };
    match acl.as_deref().map(|bytes| parse_acl(bytes, me)) {
        None => (mode & 0o020 != 0).then_some(group),
        Some(Err(cause)) => Some(Writer::Unknown { cause }),
        Some(Ok(AclWrite::Named(how))) => Some(how),
        Some(Ok(AclWrite::OwningGroup)) => Some(group),
        Some(Ok(AclWrite::Nobody)) => None,
    }
}

fn unknown(e: &io::Error) -> Writer {
    Writer::Unknown { cause: os_error(e) }
}

/// `path`'s POSIX ACL as stored (its `system.posix_acl_access`
/// attribute); `None` without one.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn acl(path: &Path) -> Result<Option<Vec<u8>>, String> {
    use rustix::io::Errno;
    // An ACL entry is 8 bytes; an extended attribute's value is at most
    // 64 KiB.
    let mut buffer = vec![0u8; 64 * 1024];
    match rustix::fs::getxattr(path, "system.posix_acl_access", &mut buffer[..]) {
        Ok(len) => {
            buffer.truncate(len);
            Ok(Some(buffer))
        }
        // No ACL, or a file system without them.
        Err(Errno::NODATA | Errno::OPNOTSUPP) => Ok(None),
        Err(e) => Err(format!(
            "its ACL cannot be read: {}",
            os_error(&io::Error::from(e))
        )),
    }
}

/// Elsewhere the system's ACLs are not read: mode bits decide.
#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
fn acl(_path: &Path) -> Result<Option<Vec<u8>>, String> {
    Ok(None)
}

/// The ACL's tags (`acl_ea.h`).
#[cfg(unix)]
const ACL_USER_OBJ: u16 = 0x01;
#[cfg(unix)]
const ACL_USER: u16 = 0x02;
#[cfg(unix)]
const ACL_GROUP_OBJ: u16 = 0x04;
#[cfg(unix)]
const ACL_GROUP: u16 = 0x08;
#[cfg(unix)]
const ACL_MASK: u16 = 0x10;
#[cfg(unix)]
const ACL_OTHER: u16 = 0x20;
/// The write permission in an entry.
#[cfg(unix)]
const ACL_WRITE: u16 = 0x02;

/// Who besides the owner an ACL lets write.
#[cfg(unix)]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum AclWrite {
    /// A named user (not the running user, not root) or a named group.
    Named(Writer),
    /// The owning group.
    OwningGroup,
    /// No one.
    Nobody,
}

/// Who besides `me` (and root, who may write anything) a POSIX ACL in its
/// version 2 format (a 4-byte version, then 8-byte entries: tag,
/// permissions, id, little-endian) lets write, its mask applied; an
/// `Err` when it does not parse. Others' entry is the mode's other bits,
/// judged there.
#[cfg(unix)]
pub(crate) fn parse_acl(bytes: &[u8], me: u32) -> Result<AclWrite, String> {
    let malformed = |what: &str| format!("its ACL {what}");
    let (version, entries) = bytes
        .split_first_chunk::<4>()
        .ok_or_else(|| malformed("is shorter than its header"))?;
    if u32::from_le_bytes(*version) != 2 {
        return Err(malformed("is not of version 2"));
    }
    if entries.len() % 8 != 0 {
        return Err(malformed("ends in the middle of an entry"));
    }
    let entries: Vec<(u16, u16, u32)> = entries
        .chunks_exact(8)
        .map(|e| {
            (
                u16::from_le_bytes([e[0], e[1]]),
                u16::from_le_bytes([e[2], e[3]]),
                u32::from_le_bytes([e[4], e[5], e[6], e[7]]),
            )
        })
        .collect();
    let mask = entries
        .iter()
        .find(|(tag, _, _)| *tag == ACL_MASK)
        .map_or(u16::MAX, |(_, perm, _)| *perm);
    let mut owning_group = false;
    for &(tag, perm, id) in &entries {
        let writes = perm & mask & ACL_WRITE != 0;
        match tag {
            ACL_USER if writes && id != me && id != 0 => {
                return Ok(AclWrite::Named(Writer::AclUser { uid: id }));
            }
            ACL_GROUP if writes => return Ok(AclWrite::Named(Writer::AclGroup { gid: id })),
            ACL_GROUP_OBJ => owning_group = writes,
            ACL_USER | ACL_GROUP | ACL_USER_OBJ | ACL_MASK | ACL_OTHER => {}
            _ => return Err(malformed(&format!("has an entry of unknown tag {tag:#x}"))),
        }
    }
    Ok(match owning_group {
        true => AclWrite::OwningGroup,
        false => AclWrite::Nobody,
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// An ACL's bytes: the version, then each (tag, permissions, id).
    fn acl(entries: &[(u16, u16, u32)]) -> Vec<u8> {
        let mut bytes = 2u32.to_le_bytes().to_vec();
        for (tag, perm, id) in entries {
            bytes.extend(tag.to_le_bytes());
            bytes.extend(perm.to_le_bytes());
            bytes.extend(id.to_le_bytes());
        }
        bytes
    }

    #[test]
    fn an_acl_that_does_not_parse_is_said_so() {
        assert_eq!(
            parse_acl(&[2, 0, 0], 1000),
            Err("its ACL is shorter than its header".to_owned())
        );
        assert_eq!(
            parse_acl(&1u32.to_le_bytes(), 1000),
            Err("its ACL is not of version 2".to_owned())
        );
        let mut short = acl(&[(ACL_USER_OBJ, 6, 0)]);
        short.pop();
        assert_eq!(
            parse_acl(&short, 1000),
            Err("its ACL ends in the middle of an entry".to_owned())
        );
        assert_eq!(
            parse_acl(&acl(&[(0x40, 6, 0)]), 1000),
            Err("its ACL has an entry of unknown tag 0x40".to_owned())
        );
        assert_eq!(parse_acl(&acl(&[]), 1000), Ok(AclWrite::Nobody));
    }

    #[test]
    fn named_users_but_this_one_and_root_and_every_named_group_are_others() {
        let with = |tag, perm, id, mask: Option<u16>| {
            let mut entries = vec![(ACL_USER_OBJ, 6, 0), (tag, perm, id), (ACL_OTHER, 4, 0)];
            entries.extend(mask.map(|m| (ACL_MASK, m, 0)));
            parse_acl(&acl(&entries), 1000)
        };
        let user = |uid| Ok(AclWrite::Named(Writer::AclUser { uid }));
        assert_eq!(with(ACL_USER, 6, 5, Some(7)), user(5));
        assert_eq!(
            with(ACL_USER, 2, 5, None),
            user(5),
            "no mask: nothing masked"
        );
        assert_eq!(with(ACL_USER, 6, 5, Some(5)), Ok(AclWrite::Nobody));
        assert_eq!(with(ACL_USER, 4, 5, Some(7)), Ok(AclWrite::Nobody));
        assert_eq!(with(ACL_USER, 6, 1000, Some(7)), Ok(AclWrite::Nobody));
        assert_eq!(with(ACL_USER, 6, 0, Some(7)), Ok(AclWrite::Nobody));
        assert_eq!(
            with(ACL_GROUP, 2, 1000, Some(6)),
            Ok(AclWrite::Named(Writer::AclGroup { gid: 1000 }))
        );
        assert_eq!(with(ACL_GROUP, 6, 7, Some(4)), Ok(AclWrite::Nobody));
        assert_eq!(
            with(ACL_GROUP_OBJ, 6, 0, Some(6)),
            Ok(AclWrite::OwningGroup)
        );
        assert_eq!(with(ACL_GROUP_OBJ, 6, 0, Some(4)), Ok(AclWrite::Nobody));
        assert_eq!(with(ACL_GROUP_OBJ, 4, 0, Some(6)), Ok(AclWrite::Nobody));
        // Others' entry and the owner's are the mode's, judged there.
        assert_eq!(with(ACL_OTHER, 6, 0, Some(7)), Ok(AclWrite::Nobody));
        assert_eq!(with(ACL_USER_OBJ, 7, 0, Some(7)), Ok(AclWrite::Nobody));
    }

    /// A directory of its own, 0755, and its metadata.
    fn dir(mode: u32) -> (tempfile::TempDir, std::fs::Metadata) {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(mode)).unwrap();
        let meta = std::fs::metadata(dir.path()).unwrap();
        (dir, meta)
    }

    #[test]
    fn a_directory_is_judged_for_the_user_given_root_being_no_one_else() {
        let (d, meta) = dir(0o755);
        let owner = meta.uid();
        // Owned by the user judged for, or by root: no one else's.
        assert_eq!(judge_dir(d.path(), &meta, owner, None), None);
        let other = owner.wrapping_add(1);
        let expected = (owner != 0).then_some(Writer::Owner {
            uid: owner,
            me: other,
        });
        assert_eq!(judge_dir(d.path(), &meta, other, None), expected);
    }

    #[test]
    fn a_sticky_directory_protects_an_entry_of_the_user_or_of_root_only() {
        let (d, meta) = dir(0o1777);
        let owner = meta.uid();
        let child = d.path().join("child");
        std::fs::create_dir(&child).unwrap();
        let anyone = Some(Writer::Anyone { mode: 0o1777 });
        assert_eq!(judge_dir(d.path(), &meta, owner, Some(&child)), None);
        assert_eq!(judge_dir(d.path(), &meta, owner, None), anyone);
        assert_eq!(
            judge_dir(d.path(), &meta, owner, Some(&d.path().join("gone"))),
            anyone
        );
        if !rustix::process::geteuid().is_root() {
            return;
        }
        // Judged for uid 1000: root's entry is protected, 1000's too, and
        // 1001's is not.
        let uid = |n| Some(rustix::fs::Uid::from_raw(n));
        let me = 1000;
        assert_eq!(judge_dir(d.path(), &meta, me, Some(&child)), None);
        rustix::fs::chown(&child, uid(1000), None).unwrap();
        assert_eq!(judge_dir(d.path(), &meta, me, Some(&child)), None);
        rustix::fs::chown(&child, uid(1001), None).unwrap();
        assert_eq!(judge_dir(d.path(), &meta, me, Some(&child)), anyone);
        // Without the sticky bit nothing is protected.
        let (d, meta) = dir(0o777);
        assert_eq!(
            judge_dir(d.path(), &meta, meta.uid(), Some(d.path())),
            Some(Writer::Anyone { mode: 0o777 })
        );
    }

    #[test]
    fn every_way_of_writing_is_said_in_words() {
        let at = |how, is_file| OthersMayWrite {
            path: PathBuf::from("/p"),
            is_file,
            how,
        };
        let said = [
            (
                at(Writer::AclGroup { gid: 7 }, true),
                "a POSIX ACL on it lets a group (gid 7) write it",
            ),
            (
                at(
                    Writer::Unknown {
                        cause: "x".to_owned(),
                    },
                    false,
                ),
                "who may write the directory /p above it cannot be told (x)",
            ),
            (
                at(Writer::Owner { uid: 1, me: 2 }, false),
                "another user (uid 1) owns the directory /p above it, not you (uid 2)",
            ),
            (
                at(Writer::Anyone { mode: 0o777 }, false),
                "anyone may write the directory /p above it (mode 777)",
            ),
        ];
        for (found, words) in said {
            assert_eq!(found.to_string(), words);
        }
    }
}
