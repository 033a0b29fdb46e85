//! An index file's bytes, read: the header, the entries (versions 2, 3
//! and 4), the extensions and the trailing checksum, as git's
//! `gitformat-index` documentation lays them out.

#[cfg(unix)]
use std::ffi::OsStr;
#[cfg(unix)]
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use sha1::Digest;

use super::IndexProblem;

/// The mode git gives a sparse-directory entry (a tree).
const DIRECTORY_MODE: u32 = 0o040000;
/// The flags' bit that says an entry carries a second, extended word.
const EXTENDED: u16 = 0x4000;
/// The extended word's two defined bits: skip-worktree, intent-to-add.
const SKIP_WORKTREE: u16 = 0x4000;
const EXTENDED_KNOWN: u16 = 0x6000;
/// A name length of this or more is written as this.
const NAME_MASK: u16 = 0x0fff;
/// The stat fields before an entry's object name: ten 32-bit numbers.
const STAT: usize = 40;

/// The hash a repository names objects with, which is also its index's
/// checksum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ObjectFormat {
    /// SHA-1, 20 bytes: git's default.
    Sha1,
    /// SHA-256, 32 bytes (`git init --object-format=sha256`).
    Sha256,
}

impl ObjectFormat {
    /// Returns the length of its hashes in bytes.
    pub fn hash_len(self) -> usize {
        match self {
            ObjectFormat::Sha1 => 20,
            ObjectFormat::Sha256 => 32,
        }
    }

    /// Whether `body`'s hash is `trailer`.
    fn matches(self, body: &[u8], trailer: &[u8]) -> bool {
        match self {
            ObjectFormat::Sha1 => sha1::Sha1::digest(body).as_slice() == trailer,
            ObjectFormat::Sha256 => sha2::Sha256::digest(body).as_slice() == trailer,
        }
    }
}

/// One entry: its path, and whether it is a sparse index's directory
/// entry (`dir/`), which stands for every file under it.
#[derive(Debug, Clone)]
struct Entry {
    path: Box<[u8]>,
    directory: bool,
}

/// A git index read whole: the paths it lists, with its checksum verified.
///
/// Read one with [`WorkTree::index`](super::WorkTree::index), or parse
/// bytes with [`Index::parse`].
///
/// ```
/// use io_trust::index::Index;
///
/// // The index git writes for a repository with nothing added: its
/// // header (`DIRC`, version 2, no entries), then the header's SHA-1.
/// let mut bytes = b"DIRC\0\0\0\x02\0\0\0\0".to_vec();
/// bytes.extend(EMPTY_SHA1);
/// let index = Index::parse(&bytes)?;
/// assert_eq!(index.version(), 2);
/// assert!(!index.lists("io.local.toml"));
///
/// // One byte changed, and nothing is believed.
/// bytes[11] = 1;
/// assert!(Index::parse(&bytes).is_err());
/// # const EMPTY_SHA1: [u8; 20] = [
/// #     0x39, 0xd8, 0x90, 0x13, 0x9e, 0xe5, 0x35, 0x6c, 0x7e, 0xf5,
/// #     0x72, 0x21, 0x6c, 0xeb, 0xcd, 0x27, 0xaa, 0x41, 0xf9, 0xdf,
/// # ];
/// # Ok::<(), io_trust::index::IndexProblem>(())
/// ```
#[derive(Debug, Clone)]
pub struct Index {
    version: u32,
    format: ObjectFormat,
    entries: Vec<Entry>,
}

impl Index {
    /// Returns the index `bytes` hold, once its checksum (SHA-1, or
    /// SHA-256 for a SHA-256 repository) matches them.
    ///
    /// # Errors
    /// [`IndexProblem`]: not an index, a version other than 2, 3 or 4, a
    /// checksum that does not match or was skipped, an entry or extension
    /// that does not parse, a count its bytes cannot hold, a split index
    /// (`link`), or a required extension not understood. Nothing is
    /// guessed: an index that is not whole lists nothing.
    pub fn parse(bytes: &[u8]) -> Result<Index, IndexProblem> {
        if bytes.len() < 12 {
            return Err(IndexProblem::Truncated);
        }
        if &bytes[..4] != b"DIRC" {
            return Err(IndexProblem::Signature);
        }
        let version = be32(&bytes[4..8]);
        if !(2..=4).contains(&version) {
            return Err(IndexProblem::Version(version));
        }
        let format = checksum(bytes)?;
        let body = &bytes[..bytes.len() - format.hash_len()];
        let count = be32(&bytes[8..12]);
        // The least an entry can take: its stat, object name and flags, and
        // two bytes more (v4: a prefix length and a NUL; v2 and v3: a name
        // and its NUL at least).
        let least = STAT + format.hash_len() + 4;
        if count as usize > (body.len() - 12) / least {
            return Err(IndexProblem::Count(count));
        }
        let mut reader = Reader {
            bytes: body,
            at: 12,
        };
        let mut entries = Vec::with_capacity(count as usize);
        let mut previous = Vec::new();
        // Where the first entry with no name, and the first directory, are.
        let (mut empty, mut directory) = (None, None);
        for _ in 0..count {
            let at = reader.at;
            let entry = reader.entry(version, format, &mut previous)?;
            if entry.path.is_empty() {
                empty.get_or_insert(at);
            }
            if entry.directory {
                directory.get_or_insert(at);
            }
            entries.push(entry);
        }
        // After the entries, so that a split index (whose entries may have
        // no name) is called split.
        let sparse = reader.extensions()?;
        if let Some(at) = empty {
            return Err(IndexProblem::Entry {
                at,
                what: "has an empty path",
            });
        }
        if !sparse && let Some(at) = directory {
            return Err(IndexProblem::Entry {
                at,
                what: "is a directory, in an index that is not sparse (no `sdir` extension)",
            });
        }
        Ok(Index {
            version,
            format,
            entries,
        })
    }

    /// An index that lists nothing, as a repository has before anything
    /// was added to it (git writes no index file until then).
    pub(crate) fn empty() -> Index {
        Index {
            version: 2,
            format: ObjectFormat::Sha1,
            entries: Vec::new(),
        }
    }

    /// Returns the index's version: 2, 3 or 4.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Returns the repository's object format, as its checksum showed it.
    pub fn object_format(&self) -> ObjectFormat {
        self.format
    }

    /// Returns how many entries it holds (a conflicted path counts once per
    /// stage; a sparse directory once).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Returns whether it holds no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Returns the paths it lists, in its order (a sparse directory as
    /// `dir/`).
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.entries.iter().map(|e| as_path(&e.path))
    }

    /// Returns whether it lists `path` (relative to the work tree, `/`
    /// between names): an entry of that very path (any stage, an
    /// intent-to-add or skip-worktree one too), or a sparse directory
    /// entry above it.
    pub fn lists(&self, path: impl AsRef<Path>) -> bool {
        let Some(path) = index_bytes(path.as_ref()) else {
            return false;
        };
        self.entries.iter().any(|e| covers(e, &path, false))
    }

    /// Returns the entries that list `path` when ASCII case is ignored, as
    /// git's `:(icase)` pathspec matches: where the file system folds case,
    /// any of them may be the file `path` names. A sparse directory above
    /// `path` in any case is among them.
    pub fn listed_ignoring_case(&self, path: impl AsRef<Path>) -> Vec<&Path> {
        let Some(path) = index_bytes(path.as_ref()) else {
            return Vec::new();
        };
        self.entries
            .iter()
            .filter(|e| covers(e, &path, true))
            .map(|e| as_path(&e.path))
            .collect()
    }
}

/// Whether `entry` lists `path`: the same path, or a sparse directory
/// above it; ASCII case ignored when `fold`.
fn covers(entry: &Entry, path: &[u8], fold: bool) -> bool {
    let same = |a: &[u8], b: &[u8]| match fold {
        true => a.eq_ignore_ascii_case(b),
        false => a == b,
    };
    match entry.directory {
        true => path.len() > entry.path.len() && same(&path[..entry.path.len()], &entry.path),
        false => same(path, &entry.path),
    }
}

/// The path git's bytes name (an index entry's, or what a `.git` file or
/// a `commondir` file holds): the bytes themselves on Unix.
#[cfg(unix)]
pub(super) fn as_path(bytes: &[u8]) -> &Path {
    Path::new(OsStr::from_bytes(bytes))
}

/// The path git's bytes name (an index entry's, or what a `.git` file or
/// a `commondir` file holds) on Windows, where git writes paths in UTF-8:
/// bytes that are not (which no Windows file can be named) read as
/// `\u{FFFD}`, which names no file either, so a git directory named so is
/// not found and says so.
#[cfg(windows)]
pub(super) fn as_path(bytes: &[u8]) -> &Path {
    Path::new(std::str::from_utf8(bytes).unwrap_or("\u{FFFD}"))
}

/// A relative path as the index spells it: its own bytes on Unix.
#[cfg(unix)]
fn index_bytes(path: &Path) -> Option<std::borrow::Cow<'_, [u8]>> {
    Some(path.as_os_str().as_bytes().into())
}

/// A relative path as the index spells it: on Windows its names in UTF-8
/// with `/` between them, whichever separator it was given with (`\` or
/// `/`); `None` for one that is not Unicode, which no index entry names.
#[cfg(windows)]
fn index_bytes(path: &Path) -> Option<std::borrow::Cow<'_, [u8]>> {
    let names = path
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect::<Option<Vec<&str>>>()?;
    Some(names.join("/").into_bytes().into())
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// The object format whose hash of all but the trailer is the trailer.
fn checksum(bytes: &[u8]) -> Result<ObjectFormat, IndexProblem> {
    let mut zeros = false;
    for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
        let Some(split) = bytes
            .len()
            .checked_sub(format.hash_len())
            .filter(|&s| s >= 12)
        else {
            continue;
        };
        let (body, trailer) = bytes.split_at(split);
        if format.matches(body, trailer) {
            return Ok(format);
        }
        zeros |= trailer.iter().all(|&b| b == 0);
    }
    Err(match zeros {
        true => IndexProblem::ChecksumSkipped,
        false => IndexProblem::Checksum,
    })
}

/// A cursor over an index's body (its bytes before the checksum).
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// The next `n` bytes.
    fn take(&mut self, n: usize) -> Result<&'a [u8], IndexProblem> {
        let end = self.at.checked_add(n).ok_or(IndexProblem::Truncated)?;
        let bytes = self
            .bytes
            .get(self.at..end)
            .ok_or(IndexProblem::Truncated)?;
        self.at = end;
        Ok(bytes)
    }

    fn u16(&mut self) -> Result<u16, IndexProblem> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    /// The bytes up to the next NUL, which is passed over.
    fn until_nul(&mut self) -> Result<&'a [u8], IndexProblem> {
        let rest = &self.bytes[self.at..];
        let len = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or(IndexProblem::Truncated)?;
        self.at += len + 1;
        Ok(&rest[..len])
    }

    /// A version 4 entry's prefix length: git's offset varint (each byte
    /// seven bits, high bit "more", one added per continuation).
    fn varint(&mut self, at: usize) -> Result<usize, IndexProblem> {
        let too_long = IndexProblem::Entry {
            at,
            what: "strips more of the previous path than it has",
        };
        let mut c = self.take(1)?[0];
        let mut value = u64::from(c & 0x7f);
        while c & 0x80 != 0 {
            c = self.take(1)?[0];
            value = (value + 1)
                .checked_mul(128)
                .filter(|v| *v <= u64::from(u32::MAX))
                .ok_or(too_long.clone())?
                + u64::from(c & 0x7f);
        }
        usize::try_from(value).map_err(|_| too_long)
    }

    /// One entry of a `version` index, `previous` the path before it (v4
    /// strips from it), which it becomes.
    fn entry(
        &mut self,
        version: u32,
        format: ObjectFormat,
        previous: &mut Vec<u8>,
    ) -> Result<Entry, IndexProblem> {
        let start = self.at;
        let bad = |what| IndexProblem::Entry { at: start, what };
        let stat = self.take(STAT)?;
        let mode = be32(&stat[24..28]);
        self.take(format.hash_len())?;
        let flags = self.u16()?;
        let mut skip_worktree = false;
        if flags & EXTENDED != 0 {
            if version < 3 {
                return Err(bad("has extended flags, which a version 2 index may not"));
            }
            let extended = self.u16()?;
            if extended & !EXTENDED_KNOWN != 0 {
                return Err(bad("has extended flags that are not defined"));
            }
            skip_worktree = extended & SKIP_WORKTREE != 0;
        }
        let name_start = self.at - start;
        let path: Box<[u8]> = if version == 4 {
            let strip = self.varint(start)?;
            let suffix = self.until_nul()?;
            let keep = previous
                .len()
                .checked_sub(strip)
                .ok_or(bad("strips more of the previous path than it has"))?;
            previous.truncate(keep);
            previous.extend_from_slice(suffix);
            previous.as_slice().into()
        } else {
            let name = self.until_nul()?;
            // 1 to 8 NULs end the name and pad the entry to a multiple of 8.
            let size = (name_start + name.len() + 8) & !7;
            let pad = self.take(size - (self.at - start))?;
            if pad.iter().any(|&b| b != 0) {
                return Err(bad("is not padded with NULs"));
            }
            name.into()
        };
        let written = usize::from(flags & NAME_MASK);
        let long = usize::from(NAME_MASK);
        if (written < long && written != path.len()) || (written == long && path.len() < long) {
            return Err(bad("gives a name length its name does not have"));
        }
        let directory = mode == DIRECTORY_MODE;
        if directory && !(skip_worktree && path.ends_with(b"/")) {
            return Err(bad(
                "is a directory but not a sparse one (skip-worktree, `dir/`)",
            ));
        }
        Ok(Entry { path, directory })
    }

    /// The extensions after the entries, up to the checksum; whether one
    /// says the index is sparse (`sdir`).
    fn extensions(&mut self) -> Result<bool, IndexProblem> {
        let mut sparse = false;
        while self.at < self.bytes.len() {
            let signature: [u8; 4] = self
                .take(4)?
                .try_into()
                .map_err(|_| IndexProblem::Truncated)?;
            let size = be32(self.take(4)?);
            self.take(size as usize)?;
            match &signature {
                b"link" => return Err(IndexProblem::Split),
                b"sdir" => sparse = true,
                // Upper case: optional, "can be ignored" (TREE, REUC, UNTR,
                // FSMN, EOIE, IEOT).
                [b'A'..=b'Z', ..] => {}
                _ => return Err(IndexProblem::Extension(signature)),
            }
        }
        Ok(sparse)
    }
}
