//! [`RawJson`]: free-form JSON that is only passed on, held as the text it
//! came in.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

/// Free-form JSON (a tool call's arguments), held as its JSON text and
/// never as a tree of values: an event passes it on (to a hook, to a
/// printed line) and never walks it, so `[0,0,…]` costs its bytes, where a
/// `serde_json::Value` of it cost some thirty times more.
///
/// It serialises as that JSON, unchanged, with serde_json; two are equal
/// when they hold the same JSON value, whatever the spacing.
///
/// ```
/// use io_harness::RawJson;
///
/// let args = RawJson::from(&serde_json::json!({"path": "a.txt"}));
/// assert_eq!(args.get(), r#"{"path":"a.txt"}"#);
/// assert_eq!(args, RawJson::from(&serde_json::json!({ "path": "a.txt" })));
/// assert_eq!(args.to_value()["path"], "a.txt");
/// ```
#[derive(Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The JSON as a tree of values: for a caller that means to walk it.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::from_str(self.get()).unwrap_or(serde_json::Value::Null)
    }

    /// JSON text already checked by serde_json, held as it is.
    pub fn from_raw(raw: Box<RawValue>) -> Self {
        RawJson(raw)
    }
}

impl From<&serde_json::Value> for RawJson {
    fn from(value: &serde_json::Value) -> Self {
        let text = value.to_string();
        // A value's own text is always JSON; `null` is never needed.
        RawValue::from_string(text).map_or_else(|_| RawJson::default(), RawJson)
    }
}

impl From<serde_json::Value> for RawJson {
    fn from(value: serde_json::Value) -> Self {
        RawJson::from(&value)
    }
}

impl Default for RawJson {
    /// `null`.
    fn default() -> Self {
        RawJson(RawValue::NULL.to_owned())
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get() || self.to_value() == other.to_value()
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// Read from any deserializer, the value written out as JSON text as it is
/// visited: from serde_json's own, that is one pass and no tree.
impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut text = String::new();
        Text(&mut text).deserialize(deserializer)?;
        RawValue::from_string(text)
            .map(RawJson)
            .map_err(de::Error::custom)
    }
}

/// Writes the value it is given into its string, as JSON.
struct Text<'a>(&'a mut String);

impl Text<'_> {
    /// Appends `value` as serde_json writes it.
    fn push<E: de::Error>(self, value: &impl Serialize) -> Result<(), E> {
        let json = serde_json::to_string(value).map_err(E::custom)?;
        self.0.push_str(&json);
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Text<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Text<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.push(&v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.push(&v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.push(&v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.push(&v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.push(&v)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.push_str("null");
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.push('[');
        let mut first = true;
        loop {
            let at = self.0.len();
            if !first {
                self.0.push(',');
            }
            if seq.next_element_seed(Text(self.0))?.is_none() {
                self.0.truncate(at);
                break;
            }
            first = false;
        }
        self.0.push(']');
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.push('{');
        let mut first = true;
        while let Some(key) = map.next_key::<String>()? {
            if !first {
                self.0.push(',');
            }
            first = false;
            Text(self.0).push::<A::Error>(&key)?;
            self.0.push(':');
            map.next_value_seed(Text(self.0))?;
        }
        self.0.push('}');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_json_reads_back_as_the_same_value_from_text_or_from_a_tree() {
        let text = r#"{"a":[1,-2,2.5,true,null,"x\n\"é"],"b":{},"c":[],"d":[[[{}]]]}"#;
        let direct: RawJson = serde_json::from_str(text).expect("direct");
        assert_eq!(direct.get(), text);
        // Written as serde_json writes it: the same value.
        let escaped: RawJson = serde_json::from_str(r#" [ "\u00e9" ] "#).expect("escaped");
        assert_eq!(escaped.get(), r#"["é"]"#);
        let value: serde_json::Value = serde_json::from_str(text).expect("value");
        let from_tree: RawJson = serde_json::from_value(value.clone()).expect("tree");
        assert_eq!(from_tree.to_value(), value);
        assert_eq!(from_tree, direct);
        assert_eq!(serde_json::to_string(&direct).expect("out"), text);
        assert_eq!(format!("{direct:?}"), text);
        assert_eq!(format!("{direct}"), text);
        assert_ne!(direct, RawJson::default());
        assert_eq!(RawJson::default().get(), "null");
        let spaced: RawJson = serde_json::from_str("[1, 2]").expect("spaced");
        assert_eq!(spaced, RawJson::from(serde_json::json!([1, 2])));
    }
}
