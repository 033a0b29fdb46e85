//! A Windows file's security, read and set through a safe API: who owns
//! the file (its owner's SID), who runs this program (the running user's
//! SID, and whether that user is an administrator), and whom its DACL lets
//! write or read it.
//!
//! The rule it serves is git's (`is_path_owned_by_current_sid` in
//! `compat/mingw.c`) and Win32-OpenSSH's (`check_secure_file_permission`):
//! a file is someone's own when they own it and its DACL grants nothing
//! that matters to anyone but them, SYSTEM and the Administrators group
//! (who may take any file anyway). [`Security::granted_to_others`] asks
//! it, for the [`rights`] the caller names.
//!
//! The SID and ACL formats are read and built in safe Rust, on every
//! platform; only the calls into Windows (`Security::of_file`,
//! `current_user`, `is_administrator`, `make_private`, on Windows alone)
//! are not, and they are this workspace's only `unsafe` code, each block
//! with the proof of its soundness beside it.
//!
//! ```
//! use io_winsec::{Ace, AceKind, Security, Sid, rights};
//!
//! let me: Sid = "S-1-5-21-1-2-3-1001".parse()?;
//! let users: Sid = "S-1-5-32-545".parse()?;
//! let read_only = Ace { kind: AceKind::Allowed, flags: 0, mask: rights::GENERIC_READ, sid: users.clone() };
//! let mut security = Security { owner: Some(me.clone()), dacl: Some(vec![read_only]) };
//! assert_eq!(security.granted_to_others(&me, rights::WRITE), None);
//! assert_eq!(security.granted_to_others(&me, rights::READ), Some(Some(users)));
//! security.dacl = None; // a NULL DACL: everyone may do anything
//! assert_eq!(security.granted_to_others(&me, rights::WRITE), Some(None));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(unsafe_op_in_unsafe_fn)]

use std::fmt;
use std::str::FromStr;

#[cfg(windows)]
mod sys;

#[cfg(windows)]
pub use sys::{current_user, is_administrator, make_private};

/// Access rights, as an ACE's mask holds them.
pub mod rights {
    /// `FILE_READ_DATA` (a directory's `FILE_LIST_DIRECTORY`).
    pub const READ_DATA: u32 = 0x0001;
    /// `FILE_WRITE_DATA` (a directory's `FILE_ADD_FILE`).
    pub const WRITE_DATA: u32 = 0x0002;
    /// `FILE_APPEND_DATA` (a directory's `FILE_ADD_SUBDIRECTORY`).
    pub const APPEND_DATA: u32 = 0x0004;
    /// `FILE_DELETE_CHILD`: remove or rename any entry of a directory.
    pub const DELETE_CHILD: u32 = 0x0040;
    /// `DELETE`: remove or rename the file itself.
    pub const DELETE: u32 = 0x0001_0000;
    /// `WRITE_DAC`: change the DACL, and so grant anything.
    pub const WRITE_DAC: u32 = 0x0004_0000;
    /// `WRITE_OWNER`: take the file.
    pub const WRITE_OWNER: u32 = 0x0008_0000;
    /// `GENERIC_ALL`.
    pub const GENERIC_ALL: u32 = 0x1000_0000;
    /// `GENERIC_WRITE`.
    pub const GENERIC_WRITE: u32 = 0x4000_0000;
    /// `GENERIC_READ`.
    pub const GENERIC_READ: u32 = 0x8000_0000;
    /// `FILE_ALL_ACCESS`: every right a file has.
    pub const FULL: u32 = 0x001F_01FF;

    /// The rights that change a file or who may: write or append to it,
    /// remove or rename it, change its DACL or its owner.
    pub const WRITE: u32 =
        WRITE_DATA | APPEND_DATA | DELETE | WRITE_DAC | WRITE_OWNER | GENERIC_WRITE | GENERIC_ALL;
    /// The rights that replace an entry of a directory, or the directory:
    /// remove or rename any entry in it, remove or rename it, change its
    /// DACL or its owner. Adding a new entry (`FILE_ADD_FILE`,
    /// `FILE_ADD_SUBDIRECTORY`) is not among them: it cannot touch an entry
    /// that is there, as a sticky directory on Unix lets anyone add one.
    pub const REPLACE_ENTRY: u32 =
        DELETE_CHILD | DELETE | WRITE_DAC | WRITE_OWNER | GENERIC_WRITE | GENERIC_ALL;
    /// The rights that read a file's content, and those that can grant
    /// them ([`WRITE_DAC`], [`WRITE_OWNER`]).
    pub const READ: u32 = READ_DATA | GENERIC_READ | GENERIC_ALL | WRITE_DAC | WRITE_OWNER;
}

/// A security identifier, as its bytes (a revision, a count, a 6-byte
/// authority, then that many 32-bit sub-authorities); `Display` and
/// `FromStr` use its string form, `S-1-5-32-544`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Sid(Vec<u8>);

impl Sid {
    /// The most sub-authorities a SID has (`SID_MAX_SUB_AUTHORITIES`).
    const MAX_SUB: usize = 15;

    /// Returns the SID these bytes hold; `None` when they are not one
    /// whole SID of revision 1.
    pub fn from_bytes(bytes: &[u8]) -> Option<Sid> {
        match bytes {
            [1, count, ..]
                if usize::from(*count) <= Self::MAX_SUB
                    && bytes.len() == 8 + 4 * usize::from(*count) =>
            {
                Some(Sid(bytes.to_vec()))
            }
            _ => None,
        }
    }

    /// Returns its bytes, as Windows lays a SID out.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Returns SYSTEM's SID, `S-1-5-18`.
    pub fn local_system() -> Sid {
        Sid::of(5, &[18])
    }

    /// Returns the Administrators group's SID, `S-1-5-32-544`.
    pub fn administrators() -> Sid {
        Sid::of(5, &[32, 544])
    }

    /// Returns TrustedInstaller's SID
    /// (`S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464`),
    /// which owns Windows' own directories.
    pub fn trusted_installer() -> Sid {
        Sid::of(
            5,
            &[
                80,
                956_008_885,
                3_418_522_649,
                1_831_038_044,
                1_853_292_631,
                2_271_478_464,
            ],
        )
    }

    /// Returns whether it is SYSTEM's or the Administrators group's, who
    /// may take any file, so whose rights never count as another's.
    pub fn is_system_or_administrators(&self) -> bool {
        *self == Sid::local_system() || *self == Sid::administrators()
    }

    /// A SID of `authority` (below 2^32) and `sub` (at most 15).
    fn of(authority: u32, sub: &[u32]) -> Sid {
        let mut bytes = vec![1, sub.len() as u8, 0, 0];
        bytes.extend(authority.to_be_bytes());
        for s in sub {
            bytes.extend(s.to_le_bytes());
        }
        Sid(bytes)
    }

    /// Its authority, from its six big-endian bytes.
    fn authority(&self) -> u64 {
        self.0[2..8]
            .iter()
            .fold(0, |acc, &b| acc << 8 | u64::from(b))
    }
}

impl fmt::Display for Sid {
    /// `S-1-5-21-…`, as `ConvertSidToStringSidW` writes it: the authority
    /// in decimal below 2^32, else in hexadecimal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "S-{}-", self.0[0])?;
        match self.authority() {
            a if a < 1 << 32 => write!(f, "{a}")?,
            a => write!(f, "0x{a:012X}")?,
        }
        for sub in self.0[8..].chunks_exact(4) {
            write!(
                f,
                "-{}",
                u32::from_le_bytes([sub[0], sub[1], sub[2], sub[3]])
            )?;
        }
        Ok(())
    }
}

impl fmt::Debug for Sid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sid({self})")
    }
}

/// A string that is not a SID's string form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotASid(pub String);

impl fmt::Display for NotASid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a SID (S-1-authority-sub-…, at most 15 sub-authorities)",
            self.0
        )
    }
}

impl std::error::Error for NotASid {}

impl FromStr for Sid {
    type Err = NotASid;

    /// Reads `S-1-5-32-544`: revision 1, a decimal authority below 2^32,
    /// at most 15 decimal sub-authorities.
    fn from_str(s: &str) -> Result<Sid, NotASid> {
        let wrong = || NotASid(s.to_owned());
        let mut parts = s.split('-');
        if parts.next() != Some("S") || parts.next() != Some("1") {
            return Err(wrong());
        }
        let authority: u32 = parts
            .next()
            .and_then(|a| a.parse().ok())
            .ok_or_else(wrong)?;
        let sub = parts
            .map(|p| p.parse::<u32>().map_err(|_| wrong()))
            .collect::<Result<Vec<_>, _>>()?;
        if sub.len() > Sid::MAX_SUB {
            return Err(wrong());
        }
        Ok(Sid::of(authority, &sub))
    }
}

/// What an ACE does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AceKind {
    /// `ACCESS_ALLOWED_ACE_TYPE`: grants its mask.
    Allowed,
    /// `ACCESS_DENIED_ACE_TYPE`: denies its mask.
    Denied,
}

/// One entry of a DACL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ace {
    /// Whether it grants or denies.
    pub kind: AceKind,
    /// Its flags (`INHERIT_ONLY_ACE` is [`Ace::INHERIT_ONLY`]).
    pub flags: u8,
    /// The rights it grants or denies ([`rights`]).
    pub mask: u32,
    /// Whom.
    pub sid: Sid,
}

impl Ace {
    /// `INHERIT_ONLY_ACE`: the entry is for what is made inside a
    /// directory, not for the directory itself.
    pub const INHERIT_ONLY: u8 = 0x08;
    /// `OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE`: the entry is inherited
    /// by files and directories made inside.
    pub const INHERITED_BY_ALL: u8 = 0x01 | 0x02;
}

/// A DACL that does not parse: what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadAcl(pub String);

impl fmt::Display for BadAcl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "its DACL {}", self.0)
    }
}

impl std::error::Error for BadAcl {}

/// Returns the entries of the ACL these bytes hold (an 8-byte header: a
/// revision of 2 or 4, its size, its entry count; then the entries).
///
/// # Errors
/// [`BadAcl`] for a header or an entry that does not fit, an entry that
/// is neither an allowed nor a denied one (an object or a callback entry,
/// which this crate does not read: a caller counts it as unknown), or a
/// SID that does not parse.
pub fn parse_acl(bytes: &[u8]) -> Result<Vec<Ace>, BadAcl> {
    let bad = |what: String| BadAcl(what);
    let header: &[u8; 8] = bytes
        .first_chunk()
        .ok_or_else(|| bad("is shorter than its header".to_owned()))?;
    if !matches!(header[0], 2 | 4) {
        return Err(bad(format!("is of revision {}", header[0])));
    }
    let size = usize::from(u16::from_le_bytes([header[2], header[3]]));
    let count = u16::from_le_bytes([header[4], header[5]]);
    let body = bytes
        .get(8..size)
        .ok_or_else(|| bad(format!("says it is {size} bytes long")))?;
    let mut rest = body;
    let mut aces = Vec::with_capacity(usize::from(count));
    for n in 0..count {
        let (ace, after) = parse_ace(rest).map_err(|what| bad(format!("entry {n} {what}")))?;
        aces.push(ace);
        rest = after;
    }
    Ok(aces)
}

/// The ACE at the start of `bytes` and what follows it.
fn parse_ace(bytes: &[u8]) -> Result<(Ace, &[u8]), String> {
    let header: &[u8; 8] = bytes
        .first_chunk()
        .ok_or("is shorter than an entry's header")?;
    let kind = match header[0] {
        0 => AceKind::Allowed,
        1 => AceKind::Denied,
        other => return Err(format!("is of type {other}, which is not read")),
    };
    let size = usize::from(u16::from_le_bytes([header[2], header[3]]));
    let (ace, rest) = match bytes.split_at_checked(size) {
        Some(split) if size >= 8 => split,
        _ => return Err(format!("says it is {size} bytes long")),
    };
    let mask = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
    let sid = ace[8..]
        .get(..8 + 4 * usize::from(ace.get(9).copied().unwrap_or(0)))
        .and_then(Sid::from_bytes)
        .ok_or("holds no SID that parses")?;
    let ace = Ace {
        kind,
        flags: header[1],
        mask,
        sid,
    };
    Ok((ace, rest))
}

/// Returns the bytes of an ACL with `aces` (revision 2), as
/// `SetSecurityInfo` takes one, in 32-bit words so that it is aligned as
/// an `ACL` is.
pub fn build_acl(aces: &[Ace]) -> Vec<u32> {
    let size = 8 + aces
        .iter()
        .map(|a| 8 + a.sid.as_bytes().len())
        .sum::<usize>();
    let mut bytes = vec![2, 0];
    bytes.extend((size as u16).to_le_bytes());
    bytes.extend((aces.len() as u16).to_le_bytes());
    bytes.extend([0, 0]);
    for ace in aces {
        let kind = match ace.kind {
            AceKind::Allowed => 0,
            AceKind::Denied => 1,
        };
        bytes.extend([kind, ace.flags]);
        bytes.extend(((8 + ace.sid.as_bytes().len()) as u16).to_le_bytes());
        bytes.extend(ace.mask.to_le_bytes());
        bytes.extend(ace.sid.as_bytes());
    }
    // A SID is 8 + 4n bytes, so the ACL is whole words.
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// A file's owner and DACL, as `Security::of_file` reads them on
/// Windows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Security {
    /// Its owner; `None` when it has none.
    pub owner: Option<Sid>,
    /// Its DACL's entries; `None` for a NULL DACL, which grants everyone
    /// everything.
    pub dacl: Option<Vec<Ace>>,
}

impl Security {
    /// Returns whom besides `me`, SYSTEM and the Administrators group the
    /// DACL grants any of `rights` (its first such allowed entry that is
    /// not for inheritance only): `Some(Some(sid))`, or `Some(None)` for a
    /// NULL DACL, which grants everyone everything; `None` when it grants
    /// them to no one else.
    ///
    /// A denied entry is not weighed: it could only narrow what an allowed
    /// one grants, and which wins depends on the order and on the groups of
    /// whoever asks, which a file cannot show. So an entry that grants is
    /// counted whatever denies it, as OpenSSH counts it.
    pub fn granted_to_others(&self, me: &Sid, rights: u32) -> Option<Option<Sid>> {
        let Some(dacl) = &self.dacl else {
            return Some(None);
        };
        dacl.iter()
            .find(|ace| {
                ace.kind == AceKind::Allowed
                    && ace.flags & Ace::INHERIT_ONLY == 0
                    && ace.mask & rights != 0
                    && ace.sid != *me
                    && !ace.sid.is_system_or_administrators()
            })
            .map(|ace| Some(ace.sid.clone()))
    }

    /// Returns the DACL `make_private` gives: one entry, `me`'s full
    /// control, inherited by what is made inside when `inheritable`.
    pub fn private_dacl(me: &Sid, inheritable: bool) -> Vec<Ace> {
        vec![Ace {
            kind: AceKind::Allowed,
            flags: match inheritable {
                true => Ace::INHERITED_BY_ALL,
                false => 0,
            },
            mask: rights::FULL,
            sid: me.clone(),
        }]
    }
}

#[cfg(test)]
mod tests;
