//! The journals' store the Windows way (issue 47): a journal is trusted by
//! its owner's SID and its DACL (io-winsec), as its uid and mode bits are
//! on Unix; a run's lock is taken on a sidecar file beside its journal,
//! `<run>.jsonl.lock` (fs4, `LockFileEx`), since Windows' locks are
//! mandatory and a locked journal could not be appended to; the journals'
//! directory is read, and a journal renamed in, by path, while it is held
//! open beneath the root. A journal `io`
//! makes is given a DACL of one entry, its owner's full control (0600 the
//! Windows way): one made where it would inherit a DACL that lets others
//! write it (a directory made in `C:\` grants Authenticated Users
//! modify) would otherwise be refused by the check above at the run's
//! first lock.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::os::windows::fs::OpenOptionsExt;
use std::path::Path;

use io_beneath::{Links, Open};
use io_trust::owner::Writer;
use io_winsec::{Security, Sid, rights};

use super::{FileStore, StoreError, StoreLock};
use crate::run::tools::PRIVATE_FILE;

impl FileStore {
    /// Opens the journal `rel` for reading if it exists, and checks that it
    /// may be trusted: a regular file owned by this process's user (or by
    /// the Administrators group when this user is one), whose DACL lets no
    /// one else write it.
    pub(super) fn trusted(&self, rel: &Path) -> Result<Option<fs::File>, StoreError> {
        let file = match self.open(rel, Open::read()) {
            Ok(file) => file,
            Err(io_beneath::Error::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(e) => return Err(self.refused(rel, e)),
        };
        let me = io_winsec::current_user().map_err(|e| self.fail(rel, e))?;
        let security = Security::of_file(&file).map_err(|e| self.fail(rel, e))?;
        let admin = || io_winsec::is_administrator().unwrap_or(false);
        match untrusted(&security, &me, admin) {
            Some(reason) => Err(StoreError::Untrusted {
                path: self.root.join(rel),
                reason,
            }),
            None => Ok(Some(file)),
        }
    }

    /// [`Store::lock`](super::Store::lock) on Windows: the journal, when
    /// there is one, is judged as on Unix, then `<run>.jsonl.lock` beside
    /// it is made (beneath the root, through no link) and locked,
    /// exclusively and not waiting; the lock lasts as long as the returned
    /// claim, and the sidecar stays.
    pub(super) fn lock_sidecar(&self, run_id: &str) -> Result<StoreLock, StoreError> {
        let rel = self.journal(run_id)?;
        if self.trusted(&rel)?.is_none() {
            return Ok(StoreLock::default());
        }
        let mut name = rel.file_name().unwrap_or_default().to_owned();
        name.push(".lock");
        let sidecar = rel.with_file_name(name);
        let how = Open::write().create(PRIVATE_FILE).links(Links::None);
        let file = self
            .open(&sidecar, how)
            .map_err(|e| self.refused(&sidecar, e))?;
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => Ok(StoreLock::holding(file)),
            Err(fs4::TryLockError::WouldBlock) => Err(StoreError::Busy {
                path: self.root.join(&rel),
            }),
            Err(fs4::TryLockError::Error(e)) => Err(self.fail(&sidecar, e)),
        }
    }

    /// [`make_private`](Self::make_private) when `file`, the journal `rel`
    /// just opened, is empty: made now, or by a write that never landed.
    pub(super) fn private_if_new(&self, rel: &Path, file: &fs::File) -> Result<(), StoreError> {
        let len = file.metadata().map_err(|e| self.fail(rel, e))?.len();
        match len {
            0 => self.make_private(rel, file),
            _ => Ok(()),
        }
    }

    /// Gives `file`, opened beneath the root as `rel`, a DACL of one entry,
    /// the running user's full control (io-winsec's `make_private`). The
    /// handle io-beneath gives has no `WRITE_DAC`, so `rel` is opened again
    /// by path for it (its last name not followed), and changed only when
    /// that is the same file (volume serial number and file index):
    /// anything swapped in between is left as it is, and refused.
    pub(super) fn make_private(&self, rel: &Path, file: &fs::File) -> Result<(), StoreError> {
        /// `READ_CONTROL | WRITE_DAC`: the access that reads and sets a DACL.
        const DACL_ACCESS: u32 = 0x0002_0000 | 0x0004_0000;
        /// `FILE_FLAG_OPEN_REPARSE_POINT`: a reparse point there is opened
        /// itself, never followed.
        const OPEN_REPARSE_POINT: u32 = 0x0020_0000;
        #[allow(
            clippy::disallowed_methods,
            reason = "opened for its DACL only (no data access, its last name not followed), and \
                      used only when it is the very file just opened beneath the root"
        )]
        let again = fs::OpenOptions::new()
            .access_mode(DACL_ACCESS)
            .custom_flags(OPEN_REPARSE_POINT)
            .open(self.root.join(rel))
            .map_err(|e| self.fail(rel, e))?;
        let same = |f: &fs::File| {
            f.try_clone()
                .and_then(same_file::Handle::from_file)
                .map_err(|e| self.fail(rel, e))
        };
        if same(file)? != same(&again)? {
            return Err(self.fail(
                rel,
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "refused: the journal was replaced while it was being made private",
                ),
            ));
        }
        io_winsec::make_private(&again, false).map_err(|e| self.fail(rel, e))
    }

    /// The names in the journals' directory (`dir`, opened beneath the
    /// root through no link, which Windows keeps from being removed while
    /// it is open), each as lossy UTF-8.
    pub(super) fn names(&self, dir: &fs::File) -> Result<Vec<String>, StoreError> {
        let _ = dir;
        #[allow(
            clippy::disallowed_methods,
            reason = "the journals' directory, just opened beneath the root through no link and \
                      held open meanwhile; io-beneath has no directory listing"
        )]
        let entries = fs::read_dir(self.dir()).map_err(|e| self.fail(&self.rel, e))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| self.fail(&self.rel, e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }

    /// When the journal `rel`, open as `file`, was last written.
    pub(super) fn modified(
        &self,
        rel: &Path,
        file: &fs::File,
    ) -> Result<std::time::SystemTime, StoreError> {
        file.metadata()
            .and_then(|m| m.modified())
            .map_err(|e| self.fail(rel, e))
    }

    /// Gives the file `temp_name` beside the journal `rel` the journal's
    /// name (`MoveFileEx` with replace, as std's rename is on Windows), by
    /// path. The journals' directory of a store beneath a root is held
    /// open meanwhile, reached beneath the root through no link: a
    /// directory io-beneath opens is shared without `FILE_SHARE_DELETE`
    /// (cap-std's rule), so it cannot be renamed away and a junction put in
    /// its place between that open and the rename.
    pub(super) fn rename(
        &self,
        rel: &Path,
        temp_name: &OsStr,
        name: &OsStr,
    ) -> Result<(), StoreError> {
        let _held = match self.rel.as_os_str().is_empty() {
            // `FileStore::new`'s: the embedder's own directory, beneath no
            // root, as Unix's `dir_fd` takes it.
            true => None,
            false => Some(
                self.open(&self.rel, Open::read())
                    .map_err(|e| self.refused(&self.rel, e))?,
            ),
        };
        let dir = self.dir();
        #[allow(
            clippy::disallowed_methods,
            reason = "both names are in the journals' directory, which the temporary file was \
                      just made in beneath the root through no link and which is held open \
                      through the rename; io-beneath has no rename"
        )]
        fs::rename(dir.join(temp_name), dir.join(name)).map_err(|e| self.fail(rel, e))
    }
}

/// Why a journal of `security` may not be trusted by the user `me` (`admin`
/// says whether that user is an administrator, asked only when the owner is
/// the Administrators group), or `None` when it may: io-trust's one Windows
/// rule of whose file it is ([`io_trust::owner::others_granted`]), for
/// writing, said of the journal.
fn untrusted(security: &Security, me: &Sid, admin: impl FnOnce() -> bool) -> Option<String> {
    let why = match io_trust::owner::others_granted(security, me, admin, rights::WRITE)? {
        Writer::OwnerSid { owner, me } => {
            format!("the journal is owned by {owner}, not by you ({me})")
        }
        Writer::AclSid { sid } => {
            format!("the journal's DACL lets {sid} write it; `io` makes it its owner's alone")
        }
        Writer::NullDacl => "the journal has a NULL DACL, which lets anyone write it; `io` makes \
                             it its owner's alone"
            .to_owned(),
        // The rule's one other answer: a journal with no owner.
        _ => "the journal has no owner".to_owned(),
    };
    Some(why)
}

#[cfg(test)]
mod tests {
    use io_winsec::{Ace, AceKind, Security, Sid, rights};

    use super::untrusted;

    fn sid(text: &str) -> Sid {
        text.parse().expect("a SID")
    }

    fn allowed(who: &Sid, mask: u32) -> Ace {
        Ace {
            kind: AceKind::Allowed,
            flags: 0,
            mask,
            sid: who.clone(),
        }
    }

    #[test]
    fn a_journal_is_trusted_only_when_its_owner_is_the_user_and_no_one_else_may_write_it() {
        let me = sid("S-1-5-21-1-2-3-1001");
        let other = sid("S-1-5-21-1-2-3-1002");
        let mine = |dacl| Security {
            owner: Some(me.clone()),
            dacl,
        };
        assert_eq!(
            untrusted(&mine(Some(vec![allowed(&me, rights::FULL)])), &me, || false),
            None
        );
        // Others may read it.
        let read = vec![
            allowed(&me, rights::FULL),
            allowed(&other, rights::READ_DATA),
        ];
        assert_eq!(untrusted(&mine(Some(read)), &me, || false), None);
        let write = vec![allowed(&other, rights::APPEND_DATA)];
        let why = untrusted(&mine(Some(write)), &me, || false).expect("refused");
        assert!(
            why.contains("S-1-5-21-1-2-3-1002") && why.contains("write"),
            "{why}"
        );
        let why = untrusted(&mine(None), &me, || false).expect("refused");
        assert!(why.contains("NULL DACL"), "{why}");
        let theirs = Security {
            owner: Some(other.clone()),
            dacl: Some(vec![]),
        };
        let why = untrusted(&theirs, &me, || true).expect("refused");
        assert!(why.contains("owned by S-1-5-21-1-2-3-1002"), "{why}");
        let nobody = Security {
            owner: None,
            dacl: Some(vec![]),
        };
        assert_eq!(
            untrusted(&nobody, &me, || true).as_deref(),
            Some("the journal has no owner")
        );
    }

    #[test]
    fn a_journal_the_administrators_own_is_trusted_only_by_an_administrator() {
        let me = sid("S-1-5-21-1-2-3-1001");
        let admins = Security {
            owner: Some(Sid::administrators()),
            dacl: Some(vec![]),
        };
        assert_eq!(untrusted(&admins, &me, || true), None);
        let why = untrusted(&admins, &me, || false).expect("refused");
        assert!(why.contains("S-1-5-32-544"), "{why}");
    }
}
