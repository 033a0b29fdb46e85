//! The raw shape of a `[[hook]]` table: serde visitors that settle which
//! keys a table has and the type of each value, and nothing else.
//!
//! Which keys exist, and what each accepts, is read from the key table
//! ([`super::key_table::KEYS`]); nothing here names a key.

use std::cell::{Cell, RefCell};
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, Expected, MapAccess, SeqAccess, Visitor};
use toml::Spanned;

use super::key_table::{HOOK_KEYS, KEYS};
use crate::action;
use crate::key::{HookKey, Shape};
use crate::position::{TOML_PRIVATE, write_or_list};
use crate::raw::{RawHook, RawValue};

/// Deserializes a `T` that must be written as a table, and only a table.
///
/// A derived struct also accepts a sequence, filling its fields by position,
/// so `hook = [[["job_started"], "audit.jsonl"]]` would otherwise load as a hook with
/// `on` and `append`. This asks for a map and hands that map to `T`'s own
/// impl (so `deny_unknown_fields` keeps doing its job); an array is refused
/// as "invalid type: array, expected {expecting}".
///
/// ```
/// use serde::{Deserialize, Deserializer};
///
/// #[derive(Debug, Deserialize)]
/// struct Body {
///     hook: Option<u32>,
/// }
/// #[derive(Debug)]
/// struct Target(Body);
/// impl<'de> Deserialize<'de> for Target {
///     fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
///         io_hooks::text::deserialize_table(d, &"a target body").map(Target)
///     }
/// }
///
/// #[derive(Debug, Deserialize)]
/// struct Doc {
///     ci: Target,
/// }
/// let ok: Doc = toml::from_str("[ci]\nhook = 1\n").unwrap();
/// assert_eq!(ok.ci.0.hook, Some(1));
/// let err = toml::from_str::<Doc>("ci = [1]\n").unwrap_err();
/// assert!(err.message().starts_with("invalid type: array, expected a target body"));
/// ```
///
/// # Errors
/// The deserializer's error: an array, or another non-table value, or
/// whatever `T` refuses in the table.
pub fn deserialize_table<'de, D, T>(d: D, expecting: &dyn Expected) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V<'a, T>(&'a dyn Expected, std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<'_, T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.fmt(f)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(map))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<T, A::Error> {
            Err(found_array(&self))
        }
    }
    d.deserialize_map(V(expecting, std::marker::PhantomData))
}

/// One element of the `hook` array: a table, and only a table.
#[derive(Debug, Clone)]
pub(super) struct HookTable(pub(super) RawHook);

impl<'de> Deserialize<'de> for HookTable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_table(d, &HookTableExpected).map(HookTable)
    }
}

/// "a hook table, with `append` or `run` and optionally `on`, `where`, `on_failure`,
/// `timeout_ms`": computed from the key table.
struct HookTableExpected;

impl Expected for HookTableExpected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a hook table, with ")?;
        write_or_list(f, &action::NAMES, "`", "`")?;
        f.write_str(" and optionally ")?;
        let optional = HOOK_KEYS.iter().filter(|k| !action::NAMES.contains(k));
        for (i, key) in optional.enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{key}`")?;
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for RawHook {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawHook;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                HookTableExpected.fmt(f)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawHook, A::Error> {
                let mut raw = RawHook::default();
                while let Some(key) = map.next_key_seed(KeyName)? {
                    let key = key.0;
                    if raw.keys().any(|k| k.name == key.name) {
                        return Err(de::Error::duplicate_field(key.name));
                    }
                    let value = map.next_value_seed(SpannedSeed(key.shape))?;
                    raw.push(key, value);
                }
                Ok(raw)
            }
        }
        d.deserialize_map(V)
    }
}

thread_local! {
    /// The keys of the embedder's own actions of the file being read
    /// ([`TomlFile::deserialize`](super::TomlFile::deserialize) sets them
    /// around its read, from its layout): serde's `Deserialize` takes no
    /// seed, and a hook table may sit anywhere in the embedder's document.
    static OWN_KEYS: RefCell<Vec<HookKey>> = const { RefCell::new(Vec::new()) };
}

/// Runs `read` with `keys` as the keys of the file's own actions, and
/// restores the keys of any read around it.
pub(super) fn with_own_keys<T>(keys: Vec<HookKey>, read: impl FnOnce() -> T) -> T {
    let outer = OWN_KEYS.replace(keys);
    let out = read();
    OWN_KEYS.set(outer);
    out
}

/// A key read by [`KeyName`]: the key table's row, or an embedder's
/// action's.
struct Known(HookKey);

/// A key of a hook table, looked up in the key table, then among the keys
/// of the file's own actions; an unknown one is refused here, while the
/// key is being read, as `deny_unknown_fields` refuses it, so the error's
/// key path and position are the key's.
struct KeyName;

impl<'de> DeserializeSeed<'de> for KeyName {
    type Value = Known;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeyName {
    type Value = Known;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key of a hook table")
    }
    fn visit_str<Er: de::Error>(self, v: &str) -> Result<Self::Value, Er> {
        if let Some(key) = KEYS.iter().find(|key| key.name == v) {
            return Ok(Known(*key));
        }
        OWN_KEYS
            .with_borrow(|own| own.iter().find(|key| key.name == v).copied())
            .map(Known)
            .ok_or_else(|| Er::unknown_field(v, HOOK_KEYS))
    }
}

thread_local! {
    /// The shape the next [`Shaped`] is read as. `Spanned`'s `Deserialize`
    /// (toml's public way to a value's span) takes no seed, so the seed
    /// rides here, set by [`SpannedSeed`] just around each read and restored
    /// after it (an array's elements are read within the array's read).
    static SHAPE: Cell<Option<Shape>> = const { Cell::new(None) };
}

/// A value of a [`Shape`] with its span, read through `Spanned`'s public
/// `Deserialize` rather than the protocol it speaks with the toml crate.
struct SpannedSeed(Shape);

impl<'de> DeserializeSeed<'de> for SpannedSeed {
    type Value = Spanned<RawValue>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let outer = SHAPE.replace(Some(self.0));
        let read = Spanned::<Shaped>::deserialize(d);
        SHAPE.set(outer);
        let read = read?;
        Ok(Spanned::new(read.span(), read.into_inner().0))
    }
}

/// A value read as the shape [`SpannedSeed`] set.
struct Shaped(RawValue);

impl<'de> Deserialize<'de> for Shaped {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match SHAPE.get() {
            Some(shape) => shape.deserialize(d).map(Shaped),
            None => Err(de::Error::custom(
                "a hook table's value is read with its key",
            )),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Shape {
    type Value = RawValue;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RawValue, D::Error> {
        match self {
            Shape::Strings { .. } | Shape::Events { .. } => d.deserialize_seq(self),
            Shape::Text(_) | Shape::Choice(_) => d.deserialize_str(self),
            Shape::Int(_) => d.deserialize_i64(self),
            Shape::Bool(_) => d.deserialize_bool(self),
            Shape::Where => crate::r#where::RawWhere::deserialize(d).map(RawValue::Where),
            Shape::Toml(_) => toml::Value::deserialize(d).map(RawValue::Toml),
        }
    }
}

/// One visitor for every shape: each `visit_*` accepts the values of its
/// shape and refuses the rest with the shape's own words.
impl<'de> Visitor<'de> for Shape {
    type Value = RawValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Strings { array, .. } => f.write_str(array),
            Shape::Events { .. } => f.write_str("an array of event names"),
            Shape::Text(what) | Shape::Int(what) | Shape::Bool(what) => f.write_str(what),
            Shape::Choice(values) => write_or_list(f, values, "`\"", "\"`"),
            Shape::Where => f.write_str(crate::r#where::EXPECTING),
            Shape::Toml(what) => f.write_str(what),
        }
    }

    fn visit_bool<Er: de::Error>(self, v: bool) -> Result<RawValue, Er> {
        match self {
            Shape::Bool(_) => Ok(RawValue::Bool(v)),
            _ => self.refuse(de::Unexpected::Bool(v)),
        }
    }

    fn visit_f64<Er: de::Error>(self, v: f64) -> Result<RawValue, Er> {
        self.refuse(de::Unexpected::Float(v))
    }

    fn visit_str<Er: de::Error>(self, v: &str) -> Result<RawValue, Er> {
        match self {
            Shape::Text(_) => Ok(RawValue::Text(v.to_owned())),
            Shape::Choice(values) => match values.iter().find(|c| **c == v) {
                Some(choice) => Ok(RawValue::Choice(choice)),
                None => Err(Er::invalid_value(de::Unexpected::Str(v), &self)),
            },
            _ => self.refuse(de::Unexpected::Str(v)),
        }
    }

    fn visit_i64<Er: de::Error>(self, v: i64) -> Result<RawValue, Er> {
        match self {
            Shape::Int(_) => Ok(RawValue::Int(v)),
            _ => self.refuse(de::Unexpected::Signed(v)),
        }
    }

    fn visit_u64<Er: de::Error>(self, v: u64) -> Result<RawValue, Er> {
        match self {
            // TOML integers are i64; saturate rather than fail on a
            // deserializer that hands out larger ones.
            Shape::Int(_) => Ok(RawValue::Int(i64::try_from(v).unwrap_or(i64::MAX))),
            _ => self.refuse(de::Unexpected::Unsigned(v)),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawValue, A::Error> {
        let (Shape::Strings { item, .. } | Shape::Events { item }) = self else {
            return Err(found_array(&self));
        };
        let mut items = Vec::new();
        while let Some(s) = seq.next_element_seed(SpannedSeed(Shape::Text(item)))? {
            let span = s.span();
            if let RawValue::Text(text) = s.into_inner() {
                items.push(Spanned::new(span, text));
            }
        }
        Ok(RawValue::Strings(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawValue, A::Error> {
        match self {
            Shape::Events { .. } => Ok(RawValue::NotArray(found_table_name(map))),
            _ => Err(found_table(map, &self)),
        }
    }
}

impl Shape {
    /// A value of the wrong type: kept as what it is for
    /// [`Shape::Events`], refused in the shape's own words for the rest.
    fn refuse<Er: de::Error>(self, found: de::Unexpected<'_>) -> Result<RawValue, Er> {
        match self {
            Shape::Events { .. } => Ok(RawValue::NotArray(found.to_string())),
            _ => Err(Er::invalid_type(found, &self)),
        }
    }
}

/// The type error for a table where something else belongs, in TOML's
/// words: serde would say "map".
///
/// The toml crate hands a date-time to a visitor as a one-entry map under a
/// private key, so a key with toml's private prefix is named as the
/// date-time it is; should that convention change, the message degrades to
/// "table", which is still true of the value's shape. Only `next_key` and
/// `next_value` are called, and a failure of either is discarded, so the
/// key path stays the value's own.
pub(super) fn found_table<'de, A: MapAccess<'de>>(map: A, expected: &dyn Expected) -> A::Error {
    de::Error::invalid_type(de::Unexpected::Other(&found_table_name(map)), expected)
}

/// What [`found_table`] names the map: `table`, or the date-time it is.
fn found_table_name<'de, A: MapAccess<'de>>(mut map: A) -> String {
    match map.next_key::<String>() {
        Ok(Some(key)) if key.starts_with(TOML_PRIVATE) => match map.next_value::<String>() {
            Ok(datetime) => format!("date-time `{datetime}`"),
            Err(_) => "date-time".to_owned(),
        },
        _ => "table".to_owned(),
    }
}

/// The type error for an array where something else belongs: serde would
/// say "sequence".
pub(super) fn found_array<Er: de::Error>(expected: &dyn Expected) -> Er {
    Er::invalid_type(de::Unexpected::Other("array"), expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pins what the spans rest on: toml's `Spanned`, through its public
    /// `Deserialize`, gives the byte range of a value and of each element of
    /// an array, and every read leaves no shape behind.
    #[test]
    fn spans_are_toml_spanned_byte_ranges() {
        let text = "on = [\"a\", \"bc\"]\nappend = \"x\"\ntimeout_ms = 7\n";
        let mut raw: RawHook = toml::from_str(text).expect("a hook table");
        assert_eq!(SHAPE.get().map(|_| ()), None, "the shape is restored");
        assert_eq!(raw.span("append"), Some(26..29));
        assert_eq!(&text[26..29], "\"x\"");
        let on = raw
            .take_events("on")
            .expect("on is present")
            .expect("an array");
        assert_eq!((on.span(), &text[on.span()]), (5..16, "[\"a\", \"bc\"]"));
        let items: Vec<_> = on
            .into_inner()
            .into_iter()
            .map(|s| (s.span(), s.into_inner()))
            .collect();
        assert_eq!(items, [(6..9, "a".to_owned()), (11..15, "bc".to_owned())]);
        assert_eq!(raw.take_int("timeout_ms").map(Spanned::into_inner), Some(7));
    }

    /// A `Shaped` read outside a `SpannedSeed` has no shape to read as, and
    /// says so rather than guessing.
    #[test]
    fn a_value_without_its_key_is_refused() {
        let err = toml::from_str::<std::collections::BTreeMap<String, Shaped>>("a = 1\n")
            .err()
            .expect("no shape");
        assert!(err.message().contains("read with its key"), "{err}");
    }
}
