//! The rule of the [module](super), the Windows way: owner SIDs and DACLs,
//! read on a handle through io-winsec.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::windows::fs::OpenOptionsExt;
use std::path::Path;

use io_winsec::{Security, Sid, rights};

use super::{OthersMayWrite, Writer, dir_writer, unknown};

/// `READ_CONTROL`: the access that reads a file's owner and DACL.
const READ_CONTROL: u32 = 0x0002_0000;
/// `FILE_FLAG_BACKUP_SEMANTICS`: what opening a directory takes.
const BACKUP_SEMANTICS: u32 = 0x0200_0000;

/// Opens `path` (a file or a directory, a reparse point at it followed,
/// as `metadata` follows a link) for its security only.
pub(crate) fn open_for_security(path: &Path, extra: u32) -> io::Result<File> {
    #[allow(
        clippy::disallowed_methods,
        reason = "opened for its owner and DACL only (READ_CONTROL, no data access), to judge \
                  whose it is"
    )]
    OpenOptions::new()
        .access_mode(READ_CONTROL | extra)
        .custom_flags(BACKUP_SEMANTICS)
        .open(path)
}

/// The rights no one else may have on the directory
/// [`others_may_write_dir`] is asked about: those that replace an entry or
/// the directory, and adding an entry too.
pub(super) const DIR_ITSELF: u32 = rights::WRITE | rights::DELETE_CHILD;

/// `WRITE_DAC`: the access that changes a file's DACL.
pub(crate) const WRITE_DAC: u32 = 0x0004_0000;

/// Makes the directory `dir` (and those above it that are missing) and,
/// when it is made here, gives it a DACL of one entry, the running user's
/// full control, that what is made in it inherits: 0700 the Windows way.
/// A directory that was there already is left as it is (its DACL is
/// judged, by [`others_may_write_dir`], before anything in it is used).
pub(crate) fn make_private_dir(dir: &Path) -> io::Result<()> {
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        #[allow(
            clippy::disallowed_methods,
            reason = "the directories above a data directory the embedder names, not a path a \
                      clone shapes"
        )]
        std::fs::create_dir_all(parent)?;
    }
    #[allow(
        clippy::disallowed_methods,
        reason = "a data directory the embedder names, made here and then made the user's alone"
    )]
    match std::fs::create_dir(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(()),
        Err(e) => return Err(e),
    }
    io_winsec::make_private(&open_for_security(dir, WRITE_DAC)?, true)
}

/// The security of `path`, read on a handle.
fn security(path: &Path) -> Result<Security, Writer> {
    open_for_security(path, 0)
        .and_then(|file| Security::of_file(&file))
        .map_err(|e| unknown(&e))
}

/// The running user's SID.
fn me() -> Result<Sid, Writer> {
    io_winsec::current_user().map_err(|e| unknown(&e))
}

/// Returns why someone other than the running user may write the file at
/// `path` or replace it (the rule of the [module](super)), or `None` when
/// no one else may.
pub fn others_may_write(path: &Path) -> Option<OthersMayWrite> {
    let file = |how| OthersMayWrite {
        path: path.to_path_buf(),
        is_file: true,
        how,
    };
    let judged = me().and_then(|me| {
        let security = security(path)?;
        let admin = || io_winsec::is_administrator().unwrap_or(false);
        match others_granted(&security, &me, admin, rights::WRITE) {
            Some(how) => Err(how),
            None => Ok(me),
        }
    });
    match judged {
        Ok(me) => directories_above(path, &me, rights::REPLACE_ENTRY),
        Err(how) => Some(file(how)),
    }
}

/// Returns why someone other than the running user may write the
/// directory `dir`, or one above it, or replace it; `None` when no one else
/// may. The directory itself may be owned by SYSTEM, the Administrators
/// group or TrustedInstaller as well as by the running user, as every
/// directory above a file may, and no one else may add an entry to it.
pub fn others_may_write_dir(dir: &Path) -> Option<OthersMayWrite> {
    let me = match me() {
        Ok(me) => me,
        Err(how) => return Some(dir_writer(dir, how)),
    };
    let how = security(dir).map_or_else(Some, |security| judge_dir(&security, &me, DIR_ITSELF));
    if let Some(how) = how {
        return Some(dir_writer(dir, how));
    }
    directories_above(dir, &me, rights::REPLACE_ENTRY)
}

/// Returns how someone other than `me` may have any of `rights` on a file
/// of `security`, or `None` when no one else may: the one Windows rule of
/// whose file it is, the way git's `is_path_owned_by_current_sid` and
/// Win32-OpenSSH's `check_secure_file_permission` judge one.
///
/// The file is `me`'s when `me` owns it, or the Administrators group does
/// and `admin` (asked only then) says `me` is an administrator, and its
/// DACL grants none of `rights` to anyone but `me`, SYSTEM and the
/// Administrators group
/// ([`Security::granted_to_others`](io_winsec::Security::granted_to_others)).
/// What it returns, and nothing else: [`Writer::OwnerSid`] for another
/// owner, [`Writer::Unknown`] when the file has no owner,
/// [`Writer::AclSid`] for a DACL entry that grants another any of
/// `rights`, and [`Writer::NullDacl`]. Callers asking for more than
/// writing (a key may not be read either) pass those rights and say so in
/// their own words.
///
/// Windows only.
pub fn others_granted(
    security: &Security,
    me: &Sid,
    admin: impl FnOnce() -> bool,
    rights: u32,
) -> Option<Writer> {
    match &security.owner {
        Some(owner) if owner == me => {}
        Some(owner) if *owner == Sid::administrators() && admin() => {}
        Some(owner) => {
            return Some(Writer::OwnerSid {
                owner: owner.to_string(),
                me: me.to_string(),
            });
        }
        None => {
            return Some(Writer::Unknown {
                cause: "it has no owner".to_owned(),
            });
        }
    }
    granted(security, me, rights)
}

/// How others may write or replace a directory of `security`: owned by
/// neither `me`, SYSTEM, the Administrators group nor TrustedInstaller, or
/// its DACL grants another any of `mask`.
pub(super) fn judge_dir(security: &Security, me: &Sid, mask: u32) -> Option<Writer> {
    match &security.owner {
        Some(owner)
            if owner == me
                || owner.is_system_or_administrators()
                || *owner == Sid::trusted_installer() => {}
        Some(owner) => {
            return Some(Writer::OwnerSid {
                owner: owner.to_string(),
                me: me.to_string(),
            });
        }
        None => {
            return Some(Writer::Unknown {
                cause: "it has no owner".to_owned(),
            });
        }
    }
    granted(security, me, mask)
}

/// Whom besides `me` the DACL of `security` grants any of `mask`.
fn granted(security: &Security, me: &Sid, mask: u32) -> Option<Writer> {
    security.granted_to_others(me, mask).map(|whom| match whom {
        Some(sid) => Writer::AclSid {
            sid: sid.to_string(),
        },
        None => Writer::NullDacl,
    })
}

/// The first directory above `path` (along the path as given, then along
/// its real path) whose DACL grants others any of `mask`, or that is owned
/// by another, with how.
fn directories_above(path: &Path, me: &Sid, mask: u32) -> Option<OthersMayWrite> {
    let given = match std::path::absolute(path) {
        Ok(given) => given,
        Err(e) => return Some(dir_writer(path, unknown(&e))),
    };
    let real = match std::fs::canonicalize(path) {
        Ok(real) => real,
        Err(e) => return Some(dir_writer(path, unknown(&e))),
    };
    for walk in [given, real] {
        // Both walks are absolute: they end at a drive's root (`C:\`,
        // `\\?\C:\`) or a share's, never at "".
        for dir in walk.ancestors().skip(1) {
            let how = security(dir).map_or_else(Some, |s| judge_dir(&s, me, mask));
            if let Some(how) = how {
                return Some(dir_writer(dir, how));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use io_winsec::{Ace, AceKind};

    use super::*;

    fn sid(s: &str) -> Sid {
        s.parse().expect("a SID")
    }

    fn owned(owner: &str, aces: Vec<Ace>) -> Security {
        Security {
            owner: Some(sid(owner)),
            dacl: Some(aces),
        }
    }

    fn allow(mask: u32, who: &str) -> Ace {
        Ace {
            kind: AceKind::Allowed,
            flags: 0,
            mask,
            sid: sid(who),
        }
    }

    const ME: &str = "S-1-5-21-1-2-3-1001";
    const OTHER: &str = "S-1-5-21-1-2-3-1002";

    #[test]
    fn a_file_is_the_users_or_an_administrators_groups_for_an_administrator() {
        let me = sid(ME);
        assert_eq!(
            others_granted(&owned(ME, vec![]), &me, || false, rights::WRITE),
            None
        );
        let admins = owned("S-1-5-32-544", vec![]);
        assert_eq!(others_granted(&admins, &me, || true, rights::WRITE), None);
        assert_eq!(
            others_granted(&admins, &me, || false, rights::WRITE),
            Some(Writer::OwnerSid {
                owner: "S-1-5-32-544".into(),
                me: ME.into()
            })
        );
        let system = owned("S-1-5-18", vec![]);
        assert!(matches!(
            others_granted(&system, &me, || true, rights::WRITE),
            Some(Writer::OwnerSid { .. })
        ));
        let none = Security {
            owner: None,
            dacl: Some(vec![]),
        };
        assert!(matches!(
            others_granted(&none, &me, || true, rights::WRITE),
            Some(Writer::Unknown { .. })
        ));
        let shared = owned(ME, vec![allow(rights::WRITE_DATA, OTHER)]);
        assert_eq!(
            others_granted(&shared, &me, || false, rights::WRITE),
            Some(Writer::AclSid { sid: OTHER.into() })
        );
        let null = Security {
            owner: Some(me.clone()),
            dacl: None,
        };
        assert_eq!(
            others_granted(&null, &me, || false, rights::WRITE),
            Some(Writer::NullDacl)
        );
    }

    #[test]
    fn a_directory_above_may_be_windows_own_and_let_others_add_entries() {
        let me = sid(ME);
        for owner in [
            ME,
            "S-1-5-18",
            "S-1-5-32-544",
            &Sid::trusted_installer().to_string(),
        ] {
            assert_eq!(
                judge_dir(&owned(owner, vec![]), &me, rights::REPLACE_ENTRY),
                None
            );
        }
        assert!(matches!(
            judge_dir(&owned(OTHER, vec![]), &me, rights::REPLACE_ENTRY),
            Some(Writer::OwnerSid { .. })
        ));
        // `C:\`: every user may make a directory there, and remove none.
        let root = owned(
            "S-1-5-18",
            vec![allow(rights::APPEND_DATA | rights::READ_DATA, "S-1-5-11")],
        );
        assert_eq!(judge_dir(&root, &me, rights::REPLACE_ENTRY), None);
        assert_eq!(
            judge_dir(&root, &me, DIR_ITSELF),
            Some(Writer::AclSid {
                sid: "S-1-5-11".into()
            }),
            "the directory judged itself may not be added to by others"
        );
        let shared = owned(ME, vec![allow(rights::DELETE_CHILD, OTHER)]);
        assert_eq!(
            judge_dir(&shared, &me, rights::REPLACE_ENTRY),
            Some(Writer::AclSid { sid: OTHER.into() })
        );
        for right in [rights::DELETE_CHILD, rights::WRITE_DATA, rights::DELETE] {
            let shared = owned(ME, vec![allow(right, OTHER)]);
            assert!(judge_dir(&shared, &me, DIR_ITSELF).is_some(), "{right:#x}");
        }
    }

    #[test]
    fn every_windows_way_of_writing_is_said_in_words() {
        let at = |how| OthersMayWrite {
            path: "C:\\p".into(),
            is_file: true,
            how,
        };
        let said = [
            (
                at(Writer::OwnerSid {
                    owner: OTHER.into(),
                    me: ME.into(),
                }),
                format!("another user or group ({OTHER}) owns it, not you ({ME})"),
            ),
            (
                at(Writer::AclSid { sid: OTHER.into() }),
                format!("a DACL entry on it lets another user or group ({OTHER}) change it"),
            ),
            (
                at(Writer::NullDacl),
                "it has no DACL at all, so everyone may change it".to_owned(),
            ),
        ];
        for (found, words) in said {
            assert_eq!(found.to_string(), words);
        }
    }
}
