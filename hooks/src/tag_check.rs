//! [`check_tags`]: what serde writes as each event's tag, against the tag
//! hooks are matched on, for the one disagreement the derive cannot see.

use std::convert::Infallible;
use std::fmt;

use serde::Serialize;
use serde::ser::{self, Impossible, SerializeMap, SerializeStruct, Serializer};

use crate::registry::{HookEvents, Kind};

/// Checks that serde writes each event of `E` with the tag hooks are matched
/// on, given one example value of every variant: one line in an embedder's
/// tests.
///
/// `#[derive(HookEvents)]` refuses a disagreement it can see (a
/// `#[serde(rename)]` and a `#[hook(tag)]` that differ, a `#[hook(tag)]` on
/// an enum with `#[serde]` attributes or a later `#[derive(Serialize)]`).
/// It cannot see a `Serialize` derived in the same `#[derive(...)]` as
/// itself, nor a hand-written one: there, an enum tagged only by
/// `#[hook(tag = "job_started")]` is written by serde as
/// `{"JobStarted":…}`, and no hook on `job_started` ever matches what its
/// lines say. This serialises each example until serde has written its tag
/// (for an external or adjacent tag, the variant's name; for an internal
/// one, the first field's value) and compares; then compares the whole of
/// what [`HookEvents::write_json`] writes with what serde_json writes
/// (they differ where a hand-written `Serialize` does not follow the
/// `#[serde]` attributes the derive's writer read).
///
/// ```
/// use io_hooks::{HookEvents, TagCheckError};
///
/// #[derive(serde::Serialize, HookEvents)]
/// enum Ci {
///     #[hook(tag = "job_started")]
///     JobStarted { id: u32 },
/// }
///
/// let err = io_hooks::check_tags(&[Ci::JobStarted { id: 1 }]).unwrap_err();
/// assert!(matches!(
///     err,
///     TagCheckError::Differs { event: "job_started", ref written, .. } if written == "JobStarted"
/// ));
///
/// // The fix: the tag where serde reads it.
/// #[derive(serde::Serialize, HookEvents)]
/// enum Fixed {
///     #[serde(rename = "job_started")]
///     JobStarted { id: u32 },
/// }
/// io_hooks::check_tags(&[Fixed::JobStarted { id: 1 }])?;
/// # Ok::<(), TagCheckError>(())
/// ```
///
/// # Errors
/// The first event, in the order of `examples`, whose serde tag is another
/// ([`TagCheckError::Differs`]) or absent ([`TagCheckError::NoTag`]), or
/// whose `write_json` bytes are not serde's ([`TagCheckError::OtherBytes`]); then
/// the first variant, in declaration order, with no example
/// ([`TagCheckError::NoExample`]), so that a variant added later is checked
/// too.
pub fn check_tags<E: HookEvents + Serialize>(examples: &[E]) -> Result<(), TagCheckError> {
    let enum_name = std::any::type_name::<E>();
    for example in examples {
        let event = example.tag();
        match written_tag(example) {
            Some(written) if written == event => {}
            Some(written) => {
                return Err(TagCheckError::Differs {
                    enum_name,
                    event,
                    written,
                });
            }
            None => return Err(TagCheckError::NoTag { enum_name, event }),
        }
        if let Some((written, serde)) = other_bytes(example) {
            return Err(TagCheckError::OtherBytes {
                enum_name,
                event,
                written,
                serde,
            });
        }
    }
    let missing = Kind::<E>::all().find(|kind| !examples.iter().any(|e| e.kind() == *kind));
    match missing {
        Some(kind) => Err(TagCheckError::NoExample {
            enum_name,
            event: kind.tag(),
        }),
        None => Ok(()),
    }
}

/// What [`HookEvents::write_json`] and serde_json write for `event`, as
/// text, when they differ (a failure as its message).
fn other_bytes<E: HookEvents + Serialize>(event: &E) -> Option<(String, String)> {
    let text = |bytes: serde_json::Result<Vec<u8>>| match bytes {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(err) => format!("(an error: {err})"),
    };
    let mut line = Vec::new();
    let written = text(event.write_json(&mut line).map(|()| line));
    let serde = text(serde_json::to_vec(event));
    (written != serde).then_some((written, serde))
}

/// Why serde and `#[derive(HookEvents)]` disagree on an event's tag, from
/// [`check_tags`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TagCheckError {
    /// serde writes the event with another tag, so a hook on `event` never
    /// matches what its lines say.
    Differs {
        /// The event enum's type name.
        enum_name: &'static str,
        /// The tag hooks are matched on (`HookEvents`).
        event: &'static str,
        /// The tag serde writes.
        written: String,
    },
    /// serde writes the event without a tag (untagged, or as something other
    /// than a variant).
    NoTag {
        /// The event enum's type name.
        enum_name: &'static str,
        /// The tag hooks are matched on (`HookEvents`).
        event: &'static str,
    },
    /// [`HookEvents::write_json`] writes the event otherwise than serde
    /// does: the enum is marked `#[hook(write_json)]`, but its `Serialize`
    /// is not serde's derive of the `#[serde]` attributes the derive's
    /// writer read. Take the mark off.
    OtherBytes {
        /// The event enum's type name.
        enum_name: &'static str,
        /// The tag hooks are matched on (`HookEvents`).
        event: &'static str,
        /// What `write_json` writes.
        written: String,
        /// What serde_json writes.
        serde: String,
    },
    /// No example of this event was given, so its tag was not checked.
    NoExample {
        /// The event enum's type name.
        enum_name: &'static str,
        /// The tag of the variant with no example.
        event: &'static str,
    },
}

impl fmt::Display for TagCheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TagCheckError::Differs {
                enum_name,
                event,
                written,
            } => write!(
                f,
                "serde writes the event `{event}` of `{enum_name}` with the tag `{written}`, so \
                 a hook on `{event}` would never match its lines; write \
                 `#[serde(rename = \"{event}\")]` on its variant"
            ),
            TagCheckError::NoTag { enum_name, event } => write!(
                f,
                "serde writes the event `{event}` of `{enum_name}` without a tag, so no hook \
                 reading its lines could tell it apart; write it tagged, as \
                 `#[serde(tag = \"event\")]` on the enum"
            ),
            TagCheckError::OtherBytes {
                enum_name,
                event,
                written,
                serde,
            } => write!(
                f,
                "the derive's writer writes the event `{event}` of `{enum_name}` as {written} \
                 where serde writes {serde}: its `Serialize` is not serde's derive; take \
                 `#[hook(write_json)]` off the enum"
            ),
            TagCheckError::NoExample { enum_name, event } => write!(
                f,
                "no example of the event `{event}` of `{enum_name}` was given, so its tag was \
                 not checked; give one value of every variant"
            ),
        }
    }
}

impl std::error::Error for TagCheckError {}

/// The tag serde writes for `event`, or `None` when it writes none.
fn written_tag<T: Serialize + ?Sized>(event: &T) -> Option<String> {
    // The probe stops serialising, with an error, as soon as it knows: it
    // never ends any other way.
    match event.serialize(Probe) {
        Err(Stop(tag)) => tag,
        Ok(never) => match never {},
    }
}

/// The tag a value written first carries, when it is a string: an internal
/// tag's value, or an adjacent tag's (written as a unit variant).
fn string_tag<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    match value.serialize(serde_json::value::Serializer) {
        Ok(serde_json::Value::String(tag)) => Some(tag),
        _ => None,
    }
}

/// A serializer that reads only how a value begins: the variant's name, or
/// the first field of a struct or map.
struct Probe;

/// How the probe ends: with the tag, or knowing there is none.
#[derive(Debug)]
struct Stop(Option<String>);

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the tag probe stopped")
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop(None)
    }
}

/// Every value that is not a variant, a struct or a map carries no tag.
macro_rules! untagged {
    ($($method:ident($ty:ty)),* $(,)?) => {
        $(fn $method(self, _: $ty) -> Result<Infallible, Stop> {
            Err(Stop(None))
        })*
    };
}

impl Serializer for Probe {
    type Ok = Infallible;
    type Error = Stop;
    type SerializeSeq = Impossible<Infallible, Stop>;
    type SerializeTuple = Impossible<Infallible, Stop>;
    type SerializeTupleStruct = Impossible<Infallible, Stop>;
    type SerializeTupleVariant = Impossible<Infallible, Stop>;
    type SerializeMap = FirstEntry;
    type SerializeStruct = FirstEntry;
    type SerializeStructVariant = Impossible<Infallible, Stop>;

    untagged!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_unit_struct(&'static str),
    );

    fn serialize_none(self) -> Result<Infallible, Stop> {
        Err(Stop(None))
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Infallible, Stop> {
        Err(Stop(None))
    }

    fn serialize_unit(self) -> Result<Infallible, Stop> {
        Err(Stop(None))
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Infallible, Stop> {
        Err(Stop(Some(variant.to_owned())))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Infallible, Stop> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: &T,
    ) -> Result<Infallible, Stop> {
        Err(Stop(Some(variant.to_owned())))
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Stop> {
        Err(Stop(None))
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Stop> {
        Err(Stop(None))
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Stop> {
        Err(Stop(None))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Stop> {
        Err(Stop(Some(variant.to_owned())))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<FirstEntry, Stop> {
        Ok(FirstEntry)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<FirstEntry, Stop> {
        Ok(FirstEntry)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Stop> {
        Err(Stop(Some(variant.to_owned())))
    }
}

/// A struct or map: serde writes an internal or adjacent tag as its first
/// entry, so the first value is the tag when it is a string.
struct FirstEntry;

impl SerializeStruct for FirstEntry {
    type Ok = Infallible;
    type Error = Stop;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        Err(Stop(string_tag(value)))
    }

    fn end(self) -> Result<Infallible, Stop> {
        Err(Stop(None))
    }
}

impl SerializeMap for FirstEntry {
    type Ok = Infallible;
    type Error = Stop;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, _: &T) -> Result<(), Stop> {
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Stop> {
        Err(Stop(string_tag(value)))
    }

    fn end(self) -> Result<Infallible, Stop> {
        Err(Stop(None))
    }
}

#[cfg(test)]
mod tests {
    use super::Stop;

    /// A `Stop` never leaves the probe, but is an error serde may print in
    /// its own messages: it says what it is.
    #[test]
    fn a_stop_says_what_it_is() {
        assert_eq!(Stop(None).to_string(), "the tag probe stopped");
    }
}
