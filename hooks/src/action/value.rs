//! An action key's value read as the type its action asks for
//! ([`ActionTable::value`](super::ActionTable::value)), refused as a
//! built-in key's is: "invalid type: integer `3`, expected an http:// URL,
//! as in …", the words being the key's own ([`HookKey`]'s `accepts`), never
//! those of the type it was read as (serde's `expected i64`).
//!
//! The value is handed to the type's `Deserialize` through a deserializer
//! of this module's, whose error type keeps what was found apart from what
//! the type expected, so that the message is built from the key.

use std::fmt;
use std::ops::Range;

use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Visitor};

use crate::key::HookKey;
use crate::raw::{Cx, RawValue};
use crate::table_error::{TableError, TableErrorKind};

/// `value`, of `key` at `span`, as `T`.
pub(crate) fn read<T: DeserializeOwned>(
    value: &RawValue,
    key: &HookKey,
    span: Range<usize>,
    cx: &Cx<'_>,
) -> Result<T, TableError> {
    let shape = |message: String| cx.error(key.name, span.clone(), TableErrorKind::Shape(message));
    let Some(value) = toml_value(value) else {
        return Err(shape(format!(
            "the value of `{}` was read in another shape than its action takes",
            key.name
        )));
    };
    T::deserialize(Toml(value)).map_err(|e| match e {
        Error::Found { invalid, found } => shape(format!(
            "invalid {invalid}: {found}, expected {}",
            key.shape.accepts()
        )),
        Error::Custom(message) => shape(message),
    })
}

/// A value as read in its key's shape, as TOML wrote it.
fn toml_value(value: &RawValue) -> Option<toml::Value> {
    Some(match value {
        RawValue::Toml(value) => value.clone(),
        RawValue::Text(text) => toml::Value::String(text.clone()),
        RawValue::Choice(choice) => toml::Value::String((*choice).to_owned()),
        RawValue::Int(n) => toml::Value::Integer(*n),
        RawValue::Bool(b) => toml::Value::Boolean(*b),
        RawValue::Strings(items) => toml::Value::Array(
            items
                .iter()
                .map(|item| toml::Value::String(item.get_ref().clone()))
                .collect(),
        ),
        RawValue::NotArray(_) | RawValue::Where(_) => return None,
    })
}

/// Why a value could not be read: what was found, kept apart from what the
/// type expected; or the type's own words (a missing field).
#[derive(Debug)]
enum Error {
    /// A value of the wrong type (`invalid` is `type`), an out-of-range one
    /// (`value`) or an array of the wrong length (`length`).
    Found {
        invalid: &'static str,
        found: String,
    },
    /// The type's own message.
    Custom(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Found { invalid, found } => write!(f, "invalid {invalid}: {found}"),
            Error::Custom(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Error::Custom(message.to_string())
    }

    fn invalid_type(found: de::Unexpected<'_>, _: &dyn de::Expected) -> Self {
        Error::Found {
            invalid: "type",
            found: in_toml_words(&found),
        }
    }

    fn invalid_value(found: de::Unexpected<'_>, _: &dyn de::Expected) -> Self {
        Error::Found {
            invalid: "value",
            found: in_toml_words(&found),
        }
    }

    fn invalid_length(len: usize, _: &dyn de::Expected) -> Self {
        Error::Found {
            invalid: "length",
            found: format!("an array of {len}"),
        }
    }
}

/// What was found, as TOML names it: an array and a table, where serde
/// says "sequence" and "map".
fn in_toml_words(found: &de::Unexpected<'_>) -> String {
    match found {
        de::Unexpected::Seq => "array".to_owned(),
        de::Unexpected::Map => "table".to_owned(),
        other => other.to_string(),
    }
}

/// A TOML value, deserialized with this module's [`Error`].
struct Toml(toml::Value);

impl<'de> IntoDeserializer<'de, Error> for Toml {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> Deserializer<'de> for Toml {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            toml::Value::String(s) => visitor.visit_string(s),
            toml::Value::Integer(n) => visitor.visit_i64(n),
            toml::Value::Float(x) => visitor.visit_f64(x),
            toml::Value::Boolean(b) => visitor.visit_bool(b),
            toml::Value::Datetime(d) => visitor.visit_string(d.to_string()),
            toml::Value::Array(items) => {
                let mut seq = SeqDeserializer::new(items.into_iter().map(Toml));
                let out = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(out)
            }
            toml::Value::Table(table) => {
                let mut map = MapDeserializer::new(table.into_iter().map(|(k, v)| (k, Toml(v))));
                let out = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(out)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // A written value is never TOML's absent one.
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            toml::Value::String(s) => visitor.visit_enum(s.into_deserializer()),
            other => Toml(other).deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_as<T: DeserializeOwned>(value: toml::Value) -> Result<T, String> {
        T::deserialize(Toml(value)).map_err(|e| e.to_string())
    }

    /// What was found is kept in TOML's words, whatever the type expected.
    #[test]
    fn a_wrong_value_is_said_as_found_in_tomls_words() {
        assert_eq!(
            read_as::<String>(toml::Value::Integer(3)).unwrap_err(),
            "invalid type: integer `3`"
        );
        let array = toml::Value::Array(vec![toml::Value::Integer(1)]);
        assert_eq!(read_as::<u16>(array).unwrap_err(), "invalid type: array");
        assert_eq!(
            read_as::<u8>(toml::Value::Integer(300)).unwrap_err(),
            "invalid value: integer `300`"
        );
        let pair: Vec<toml::Value> = vec![1.into(), 2.into(), 3.into()];
        assert_eq!(
            read_as::<(i64, i64)>(pair.into()).unwrap_err(),
            "invalid length: an array of 3"
        );
        assert_eq!(read_as::<Option<bool>>(true.into()), Ok(Some(true)));
        assert_eq!(
            read_as::<Vec<String>>(vec!["a"].into()),
            Ok(vec!["a".to_owned()])
        );
    }
}
