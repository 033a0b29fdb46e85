//! What `#[derive(HookEvents)]`'s [`HookEvents::write_json`](super::HookEvents::write_json)
//! writes a field's value with: the bytes serde_json writes for it, a
//! string or a bool without going through serde.
//!
//! The generated code calls `(&&JsonValue(value)).write_json(out)` with the
//! three traits below in scope, and method resolution picks the first that
//! applies, as `Choices` does for `field_choices`: [`Direct`], on
//! `&JsonValue` of a string or a bool (found first); [`ViaSerde`], on
//! `&&JsonValue` of any `Serialize` type (after one autoref); and
//! [`NotSerialize`], on `JsonValue` of any other type (after a deref), an
//! error. The last is reached by no call: `write_json` needs the enum to be
//! `Serialize`, which a field whose type is not rules out, but the derive
//! cannot see that, and its code must compile for an enum serde only reads.

use serde::Serialize;
use serde::ser::Error as _;

/// A value about to be written as JSON: the probe of the module's doc. Not
/// for use by hand.
#[doc(hidden)]
pub struct JsonValue<'a, T: ?Sized>(pub &'a T);

/// A value written here, without serde: the same bytes, fewer steps.
#[doc(hidden)]
pub trait Direct {
    /// Appends the value's JSON to `out`.
    ///
    /// # Errors
    /// As `serde_json::to_writer` fails on it: never, for these types.
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()>;
}

impl Direct for &JsonValue<'_, str> {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        write_json_str(out, self.0)
    }
}

impl Direct for &JsonValue<'_, String> {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        write_json_str(out, self.0)
    }
}

impl Direct for &JsonValue<'_, &str> {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        write_json_str(out, self.0)
    }
}

impl Direct for &JsonValue<'_, bool> {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(if *self.0 { b"true" } else { b"false" });
        Ok(())
    }
}

/// Any other `Serialize` value, through serde_json.
#[doc(hidden)]
pub trait ViaSerde {
    /// Appends the value's JSON to `out`.
    ///
    /// # Errors
    /// As `serde_json::to_writer` fails on it.
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()>;
}

impl<T: Serialize + ?Sized> ViaSerde for &&JsonValue<'_, T> {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, self.0)
    }
}

/// A value serde cannot write: an error, in an enum serde does not write.
#[doc(hidden)]
pub trait NotSerialize {
    /// Fails.
    ///
    /// # Errors
    /// Always: the type has no `Serialize`.
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()>;
}

impl<T: ?Sized> NotSerialize for JsonValue<'_, T> {
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        let _ = out;
        Err(serde_json::Error::custom(
            "this value's type does not implement `Serialize`",
        ))
    }
}

/// Appends `s` to `out` as a JSON string, the bytes serde_json writes: it
/// escapes `"`, `\` and every byte below 0x20, and copies every other byte
/// as it is. A string with none of those (a run id, a time) is copied
/// between quotes here, sixteen bytes checked at a time; any other is
/// left to serde_json. The derive's `HookEvents::write_json` writes an
/// event's strings with it; an embedder writing its own envelope beside
/// that line (as `io` does) can too.
///
/// ```
/// let mut out = b"{\"run_id\":".to_vec();
/// io_hooks::text::write_json_str(&mut out, "r-1")?;
/// io_hooks::text::write_json_str(&mut out, "a \"quote\"\n")?;
/// assert_eq!(out, br#"{"run_id":"r-1""a \"quote\"\n""#);
/// # Ok::<(), serde_json::Error>(())
/// ```
///
/// # Errors
/// None in practice: writing to a `Vec` does not fail.
#[inline]
pub fn write_json_str(out: &mut Vec<u8>, s: &str) -> serde_json::Result<()> {
    if needs_escape(s.as_bytes()) {
        return serde_json::to_writer(out, s);
    }
    out.reserve(s.len() + 2);
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
    Ok(())
}

/// Whether any byte of `bytes` is one serde_json escapes: `"`, `\\`, or
/// below 0x20. Sixteen bytes at a time, which the compiler compares at
/// once ([`any_byte`](crate::scan::any_byte)).
fn needs_escape(bytes: &[u8]) -> bool {
    crate::scan::any_byte::<16>(bytes, b' ', |b| (b < 0x20) | (b == b'"') | (b == b'\\'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serde(value: &impl Serialize) -> Vec<u8> {
        serde_json::to_vec(value).expect("serialises")
    }

    #[test]
    fn every_byte_and_some_characters_are_written_as_serde_json_writes_them() {
        let mut samples: Vec<String> = (0u8..=0x7f).map(|b| char::from(b).to_string()).collect();
        samples.extend(
            [
                "",
                "plain",
                "é",
                "\u{2028}",
                "\u{2029}",
                "\u{feff}",
                "😀",
                "a\"b",
                "a\\b",
                "\u{7f}",
                "tab\there",
                "r-7f3a.1",
            ]
            .map(str::to_owned),
        );
        for s in &samples {
            let mut out = b"x".to_vec();
            write_json_str(&mut out, s).expect("writes");
            assert_eq!(out[1..], serde(s), "{s:?}");
        }
    }

    #[test]
    fn a_byte_to_escape_is_found_at_every_position_of_every_length() {
        for len in 0..=48 {
            let mut bytes = vec![b'a'; len];
            assert!(!needs_escape(&bytes), "{len}");
            for at in 0..len {
                for b in 0..=u8::MAX {
                    bytes[at] = b;
                    let escaped = b < 0x20 || b == b'"' || b == b'\\';
                    assert_eq!(needs_escape(&bytes), escaped, "{len} {at} {b}");
                }
                bytes[at] = b'a';
            }
        }
    }

    #[test]
    #[expect(
        clippy::needless_borrow,
        reason = "each probe is called as the derive calls it, on `&&JsonValue`"
    )]
    fn each_probe_writes_serde_jsons_bytes() {
        use super::{Direct as _, NotSerialize as _, ViaSerde as _};
        let mut out = Vec::new();
        (&&JsonValue("a\"b")).write_json(&mut out).expect("str");
        (&&JsonValue(&"é".to_owned()))
            .write_json(&mut out)
            .expect("String");
        (&&JsonValue(&"x")).write_json(&mut out).expect("&str");
        (&&JsonValue(&true)).write_json(&mut out).expect("bool");
        (&&JsonValue(&false)).write_json(&mut out).expect("bool");
        (&&JsonValue(&Some(-3i32)))
            .write_json(&mut out)
            .expect("serde");
        assert_eq!(out, "\"a\\\"b\"\"é\"\"x\"truefalse-3".as_bytes());
        struct Opaque;
        let err = (&&JsonValue(&Opaque))
            .write_json(&mut out)
            .expect_err("no Serialize");
        assert!(
            err.to_string().contains("does not implement `Serialize`"),
            "{err}"
        );
    }
}
