//! The MAC over a sequence of records: each record's tag covers the tag
//! before it, the first is seeded with the sequence's id.

use std::fmt;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// What the seed's MAC covers before the id: a label of this construction
/// and its version, so that no other use of a key can produce a chain's
/// seed, and a later construction can be told from this one.
const SEED_LABEL: &[u8] = b"io-trust record chain 1\0";

/// HMAC-SHA-256, keyed once: each MAC clones it (the key's two hashed
/// blocks are computed once, not per record).
pub(super) type Keyed = Hmac<Sha256>;

/// The keyed MAC of `bytes`.
pub(super) fn keyed(bytes: &[u8; Tag::LEN]) -> Keyed {
    // HMAC takes a key of any length; 32 bytes is never refused.
    <Keyed as KeyInit>::new_from_slice(bytes).unwrap_or_else(|_| unreachable!())
}

/// The MAC of one record, as written beside it: 32 bytes, shown as 64
/// lowercase hexadecimal digits.
///
/// A tag has no `==`: the one comparison that matters, a tag read against
/// the tag the key makes, is [`Chain::verify`]'s, in constant time.
#[derive(Clone, Copy)]
pub struct Tag([u8; Tag::LEN]);

impl Tag {
    /// A tag's length in bytes.
    pub const LEN: usize = 32;

    /// A tag's length as text ([`Tag`]'s `Display`): two hexadecimal
    /// digits a byte.
    pub const HEX_LEN: usize = 2 * Tag::LEN;

    /// Returns the tag `text` spells: exactly [`Tag::HEX_LEN`] lowercase
    /// hexadecimal digits, as `Display` writes them; `None` for anything
    /// else (another length, an uppercase digit, a sign, a space).
    pub fn from_hex(text: &str) -> Option<Tag> {
        let text = text.as_bytes();
        if text.len() != Tag::HEX_LEN {
            return None;
        }
        let mut bytes = [0; Tag::LEN];
        for (byte, pair) in bytes.iter_mut().zip(text.chunks_exact(2)) {
            *byte = 16 * digit(pair[0])? + digit(pair[1])?;
        }
        Some(Tag(bytes))
    }

    /// Returns the tag's bytes.
    pub fn as_bytes(&self) -> &[u8; Tag::LEN] {
        &self.0
    }
}

/// The value of one lowercase hexadecimal digit.
fn digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut text = [0; Tag::HEX_LEN];
        for (pair, byte) in text.chunks_exact_mut(2).zip(self.0) {
            pair[0] = DIGITS[usize::from(byte >> 4)];
            pair[1] = DIGITS[usize::from(byte & 0xf)];
        }
        // Only ASCII digits were written.
        f.write_str(std::str::from_utf8(&text).unwrap_or_default())
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tag({self})")
    }
}

/// A record whose tag is not the one the key makes for it, here: the
/// record, or one before it, was changed, moved, left out or put in after
/// it was sealed, or the sequence was sealed with another key or for
/// another id ([`Chain::verify`]).
///
/// `Display` says which record, counting from 1; `source()` is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    record: u64,
}

impl Mismatch {
    /// Returns the record whose tag did not verify, counting from 1: 1 when
    /// the sequence was sealed with another key or for another id (or its
    /// first record was changed), more when the records before it verified.
    pub fn record(&self) -> u64 {
        self.record
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "record {}'s MAC does not verify with this key",
            self.record
        )
    }
}

impl std::error::Error for Mismatch {}

/// The MAC of one sequence of records (a journal), sealed or verified in
/// the order they were written.
///
/// Tag 0 is the MAC of the sequence's id; the tag of record *i* is
/// `HMAC-SHA-256(key, tag[i-1] || record[i])`. So a record verifies only
/// where it was sealed: in this sequence (another id gives another tag 0),
/// after the very records it followed, none changed, dropped or put in
/// between. What the chain allows is a *prefix*: the first *n* records of a
/// sealed sequence verify without the rest, as a crash or a cut leaves a
/// journal. A reader who must know that nothing was cut off the end keeps
/// that fact elsewhere (a last record that says it is the last).
///
/// Made by [`Key::chain`](super::Key::chain); a writer calls
/// [`seal`](Chain::seal) for each record, a reader [`verify`](Chain::verify),
/// each in order. A chain is cheap to clone: a writer clones it before
/// sealing and keeps the clone when the write fails.
#[derive(Clone)]
pub struct Chain {
    mac: Keyed,
    last: [u8; Tag::LEN],
    records: u64,
}

impl fmt::Debug for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chain")
            .field("records", &self.records)
            .finish_non_exhaustive()
    }
}

impl Chain {
    /// The chain of the sequence `id`, under the keyed MAC `mac`.
    pub(super) fn new(mac: &Keyed, id: &[u8]) -> Chain {
        let seed = mac.clone().chain_update(SEED_LABEL).chain_update(id);
        Chain {
            mac: mac.clone(),
            last: seed.finalize().into_bytes().into(),
            records: 0,
        }
    }

    /// The MAC of `record` after the records so far.
    fn mac_of(&self, record: &[u8]) -> Keyed {
        self.mac
            .clone()
            .chain_update(self.last)
            .chain_update(record)
    }

    /// Returns the tag of `record`, the next one of the sequence, and moves
    /// the chain past it.
    pub fn seal(&mut self, record: &[u8]) -> Tag {
        self.last = self.mac_of(record).finalize().into_bytes().into();
        self.records += 1;
        Tag(self.last)
    }

    /// Checks that `tag` is the tag of `record` as the next record of the
    /// sequence, comparing in constant time, and moves the chain past it
    /// when it is.
    ///
    /// # Errors
    /// [`Mismatch`], naming the record by its number, when the tag is not
    /// that one; the chain is then where it was.
    pub fn verify(&mut self, record: &[u8], tag: &Tag) -> Result<(), Mismatch> {
        match self.mac_of(record).verify_slice(&tag.0) {
            Ok(()) => {
                self.last = tag.0;
                self.records += 1;
                Ok(())
            }
            Err(_) => Err(Mismatch {
                record: self.records + 1,
            }),
        }
    }

    /// Returns how many records the chain has sealed or verified.
    pub fn records(&self) -> u64 {
        self.records
    }
}
