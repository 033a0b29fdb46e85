//! One argument of a tool call, read from the call's arguments (a JSON
//! object, as its text) for a `where` condition on it: only that key's
//! value is built, every other is skipped unread into a tree.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use crate::registry::FieldValue;

/// Whether argument `key` of the JSON object `json` is a value `test`
/// passes. An array of strings is given as the command line an operator
/// reads: its elements joined by single spaces. No such key, JSON that is
/// not an object, and any other value (an object, `null`, an array holding
/// something else than strings) pass no test.
pub(crate) fn with_value(json: &str, key: &str, test: impl FnOnce(FieldValue<'_>) -> bool) -> bool {
    let mut de = serde_json::Deserializer::from_str(json);
    let Ok(Some(value)) = (KeyOf { key }).deserialize(&mut de) else {
        return false;
    };
    match value {
        Value::String(s) => test(FieldValue::Str(&s)),
        Value::Bool(b) => test(FieldValue::Bool(b)),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => test(FieldValue::Int(i)),
            (None, Some(u), _) => test(FieldValue::UInt(u)),
            (None, None, Some(x)) => test(FieldValue::Float(x)),
            _ => false,
        },
        Value::Array(items) => {
            let words: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            words.is_some_and(|words| test(FieldValue::Str(&words.join(" "))))
        }
        Value::Null | Value::Object(_) => false,
    }
}

/// The value of `key` in a JSON object, the rest skipped.
struct KeyOf<'k> {
    key: &'k str,
}

impl<'de> DeserializeSeed<'de> for KeyOf<'_> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for KeyOf<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            // A repeated key's last value, the one serde_json keeps and so
            // the one the tool reads.
            if key == self.key {
                found = Some(map.next_value::<Value>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::r#where::glob::Glob;
    use crate::r#where::matcher::{Scalar, Test};

    fn matches(test: &Test, json: &str, key: &str) -> bool {
        with_value(json, key, |v| test.matches(v))
    }

    fn is(s: &str) -> Test {
        Test::Is(Scalar::Str(s.into()))
    }

    #[test]
    fn it_reads_one_key_and_joins_an_array_of_strings() {
        let json = r#"{"content":"x","path":"src/a.rs","argv":["git","push","-f"],"n":3}"#;
        assert!(matches(&is("src/a.rs"), json, "path"));
        assert!(!matches(&is("x"), json, "path"));
        assert!(matches(&is("git push -f"), json, "argv"));
        let glob = Test::Glob(Glob::new("git push*").expect("a glob"));
        assert!(matches(&glob, json, "argv"));
        let range = Test::Range {
            min: Some(super::super::matcher::Number::Int(2)),
            max: None,
        };
        assert!(matches(&range, json, "n"));
        // Past `i64`, and a float: each compared as a number.
        let big = r#"{"n":18446744073709551615,"x":2.5}"#;
        assert!(matches(&range, big, "n"));
        let at_most_2 = Test::Range {
            min: None,
            max: Some(super::super::matcher::Number::Float(2.0)),
        };
        assert!(!matches(&at_most_2, big, "x"));
        assert!(matches(&range, big, "x"));
        assert!(!matches(&is("x"), json, "missing"));
        assert!(!matches(&is("x"), "[1]", "path"));
        assert!(!matches(&is("1"), r#"{"argv":["a",1]}"#, "argv"));
        assert!(matches(&is("b"), r#"{"path":"a","path":"b"}"#, "path"));
    }
}
