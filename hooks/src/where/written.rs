//! `where` as written: a table of field names, each with a value, a list
//! or an inline table, every one with its span. What it means is settled
//! when the table is loaded (`table/compile_where.rs`), against the field table
//! of each event in `on`.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use toml::Spanned;

use crate::position::TOML_PRIVATE;

/// A table's entries as written: each key and value with its span.
pub(crate) type Entries = Vec<(Spanned<String>, Spanned<Node>)>;

/// What `where` says, as written: each field with its value.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawWhere(pub(crate) Entries);

/// One value under `where`, as written.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    List(Vec<Spanned<Node>>),
    Table(Entries),
    DateTime,
}

/// What a `where` is: the words its type error uses.
pub(crate) const EXPECTING: &str =
    "a table of field names, as in `where.<field> = \"value\"` or `where = { <field> = 1 }`";

impl<'de> Deserialize<'de> for RawWhere {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawWhere;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(EXPECTING)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawWhere, A::Error> {
                match entries(map)? {
                    Some(entries) => Ok(RawWhere(entries)),
                    None => Err(de::Error::invalid_type(
                        de::Unexpected::Other("date-time"),
                        &self,
                    )),
                }
            }
        }
        d.deserialize_map(V)
    }
}

/// A table's entries, each key and value with its span; `None` for the
/// one-entry map a date-time arrives as.
fn entries<'de, A: MapAccess<'de>>(mut map: A) -> Result<Option<Entries>, A::Error> {
    let mut out = Vec::new();
    while let Some(key) = map.next_key::<Spanned<String>>()? {
        if key.get_ref().starts_with(TOML_PRIVATE) {
            map.next_value::<de::IgnoredAny>()?;
            return Ok(None);
        }
        let value = map.next_value::<Spanned<Node>>()?;
        out.push((key, value));
    }
    Ok(Some(out))
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, a number, a bool, a list of them or an inline table")
            }
            fn visit_str<Er: de::Error>(self, v: &str) -> Result<Node, Er> {
                Ok(Node::Str(v.to_owned()))
            }
            fn visit_i64<Er: de::Error>(self, v: i64) -> Result<Node, Er> {
                Ok(Node::Int(v))
            }
            fn visit_u64<Er: de::Error>(self, v: u64) -> Result<Node, Er> {
                Ok(Node::Int(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_f64<Er: de::Error>(self, v: f64) -> Result<Node, Er> {
                Ok(Node::Float(v))
            }
            fn visit_bool<Er: de::Error>(self, v: bool) -> Result<Node, Er> {
                Ok(Node::Bool(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Spanned<Node>>()? {
                    items.push(item);
                }
                Ok(Node::List(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Node, A::Error> {
                Ok(entries(map)?.map_or(Node::DateTime, Node::Table))
            }
        }
        d.deserialize_any(V)
    }
}
