//! A journal line's MAC: how a record is sealed as it is written and
//! verified as it is read (docs/run-script.md, "The journal").
//!
//! A sealed line is the record's JSON object with a first key of its own,
//! `mac`, 64 lowercase hexadecimal digits:
//!
//! ```text
//! {"mac":"<tag>","begin":{"goal":"…",…}}
//! ```
//!
//! The tag is [`io_trust::Chain`]'s, over the record's JSON exactly as
//! written after the `mac` key, with its `{` put back (`{"begin":{…}}`),
//! in a chain seeded with the run's id: so each line stays one JSON object
//! a reader (`jq .begin`) takes as it is, and a record verifies only in its
//! own journal, in its place, unchanged.

use std::borrow::Cow;
use std::fmt;

use io_trust::{Chain, Tag};

/// How a sealed line begins, before its tag.
const MAC_KEY: &[u8] = b"{\"mac\":\"";

/// What follows the tag, before the record's first key.
const AFTER_TAG: &[u8] = b"\",";

/// What is wrong with a line's MAC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SealFault {
    /// The line carries no MAC (or one that is not 64 lowercase
    /// hexadecimal digits).
    Missing,
    /// The line's MAC is not the one this user's key makes for it, here.
    Mismatch,
}

impl fmt::Display for SealFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SealFault::Missing => "carries no MAC",
            SealFault::Mismatch => "carries a MAC that does not verify with your key",
        })
    }
}

/// The line that seals `record`, a record's JSON object (`{"begin":…}`),
/// as the next record of `chain`; `None` when `record` is not a JSON object
/// with a first key (which no record is).
pub(super) fn sealed_line(chain: &mut Chain, record: &[u8]) -> Option<Vec<u8>> {
    let rest = record.strip_prefix(b"{").filter(|r| r.starts_with(b"\""))?;
    let tag = chain.seal(record).to_string();
    let mut line = Vec::with_capacity(MAC_KEY.len() + tag.len() + AFTER_TAG.len() + record.len());
    line.extend_from_slice(MAC_KEY);
    line.extend_from_slice(tag.as_bytes());
    line.extend_from_slice(AFTER_TAG);
    line.extend_from_slice(rest);
    line.push(b'\n');
    Some(line)
}

/// The record's JSON in `line` (without its newline), verified as the
/// next record of `chain` when there is one; with none, the record as
/// written, sealed or not.
///
/// # Errors
/// With a chain: a line without a MAC, or whose MAC does not verify.
pub(super) fn record_of<'a>(
    chain: Option<&mut Chain>,
    line: &'a [u8],
) -> Result<Cow<'a, [u8]>, SealFault> {
    let split = split(line);
    let Some(chain) = chain else {
        return Ok(split.map_or(Cow::Borrowed(line), |(_, record)| Cow::Owned(record)));
    };
    let (tag, record) = split.ok_or(SealFault::Missing)?;
    chain
        .verify(&record, &tag)
        .map_err(|_| SealFault::Mismatch)?;
    Ok(Cow::Owned(record))
}

/// A sealed line's tag and its record's JSON, `{` put back; `None` for a
/// line that is not sealed as [`sealed_line`] writes.
fn split(line: &[u8]) -> Option<(Tag, Vec<u8>)> {
    let rest = line.strip_prefix(MAC_KEY)?;
    let (tag, rest) = rest.split_at_checked(Tag::HEX_LEN)?;
    let tag = Tag::from_hex(std::str::from_utf8(tag).ok()?)?;
    let rest = rest.strip_prefix(AFTER_TAG)?;
    let mut record = Vec::with_capacity(rest.len() + 1);
    record.push(b'{');
    record.extend_from_slice(rest);
    Some((tag, record))
}

#[cfg(test)]
mod tests {
    use io_trust::Key;

    use super::{SealFault, record_of, sealed_line};

    #[test]
    fn a_sealed_line_is_the_record_with_its_mac_first_and_reads_back_verified() {
        let key = Key::from_bytes([1; 32]);
        let record = br#"{"reserve":{"next_seq":1024}}"#;
        let line = sealed_line(&mut key.chain(b"r-1"), record).expect("sealed");
        let tag = key.chain(b"r-1").seal(record).to_string();
        assert_eq!(
            String::from_utf8(line.clone()).expect("utf-8"),
            format!("{{\"mac\":\"{tag}\",\"reserve\":{{\"next_seq\":1024}}}}\n")
        );
        let json: serde_json::Value = serde_json::from_slice(&line).expect("one JSON object");
        assert_eq!(json["reserve"]["next_seq"], 1024);
        let line = &line[..line.len() - 1];
        let read = record_of(Some(&mut key.chain(b"r-1")), line).expect("verified");
        assert_eq!(&*read, record);
        // Another run's chain, another key, no MAC: refused.
        assert_eq!(
            record_of(Some(&mut key.chain(b"r-2")), line),
            Err(SealFault::Mismatch)
        );
        assert_eq!(
            record_of(Some(&mut Key::from_bytes([2; 32]).chain(b"r-1")), line),
            Err(SealFault::Mismatch)
        );
        assert_eq!(
            record_of(Some(&mut key.chain(b"r-1")), record),
            Err(SealFault::Missing)
        );
        // Without a chain, the record as written, sealed or not.
        assert_eq!(&*record_of(None, line).expect("as written"), record);
        assert_eq!(&*record_of(None, record).expect("as written"), record);
    }

    #[test]
    fn a_line_that_only_looks_sealed_carries_no_mac() {
        let key = Key::from_bytes([1; 32]);
        let tag = key.chain(b"r-1").seal(b"{\"x\":1}").to_string();
        for line in [
            format!("{{\"mac\":\"{}\",\"x\":1}}", &tag[..63]),
            format!("{{\"mac\":\"{}\",\"x\":1}}", tag.to_uppercase()),
            format!("{{\"mac\":\"{tag}\" ,\"x\":1}}"),
            format!("{{\"mac\": \"{tag}\",\"x\":1}}"),
            "{\"mac\":\"".to_owned(),
        ] {
            assert_eq!(
                record_of(Some(&mut key.chain(b"r-1")), line.as_bytes()),
                Err(SealFault::Missing),
                "{line}"
            );
        }
        assert!(sealed_line(&mut key.chain(b"r-1"), b"{}").is_none());
        assert!(sealed_line(&mut key.chain(b"r-1"), b"[1]").is_none());
    }
}
