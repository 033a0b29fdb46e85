//! The field table a `where` filter is checked against, and the values it
//! reads from an event: what `#[derive(HookEvents)]` generates per variant
//! ([`HookEvents::FIELDS`](super::HookEvents::FIELDS), [`HookEvents::field`](super::HookEvents::field)).
//!
//! A field a filter may name holds a string, an integer, a number or a
//! bool, or an `Option` of one (`None` never matches a value). Any other
//! field (a list, a map, free-form JSON, a struct of the embedder's) is
//! listed with [`FieldKind::Other`], so that a filter naming it is refused
//! at load with a reason rather than as a field that does not exist. A
//! field holding an enum of unit variants, which serde writes as the
//! variant's name, is a string a filter may name when the field says
//! `#[hook(unit_enum)]`: the derive sees a type's name, not its shape.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use serde::{de, ser};

/// One field of an event, as serde writes it: its wire name and JSON type.
///
/// ```
/// use io_hooks::{FieldKind, HookEvents, Kind};
///
/// #[derive(HookEvents, serde::Serialize)]
/// #[serde(tag = "event")]
/// enum Ev {
///     #[serde(rename = "job_finished")]
///     JobFinished {
///         #[serde(rename = "job")]
///         name: String,
///         attempt: u32,
///         exit: Option<i32>,
///         args: Vec<String>,
///         #[serde(skip)]
///         secret: String,
///     },
/// }
/// let fields = Kind::<Ev>::named("job_finished").fields();
/// let shown: Vec<_> = fields.iter().map(|f| (f.name, f.kind, f.optional)).collect();
/// assert_eq!(
///     shown,
///     [
///         ("job", FieldKind::Str, false),
///         ("attempt", FieldKind::Integer, false),
///         ("exit", FieldKind::Integer, true),
///         ("args", FieldKind::Other, false),
///     ]
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Field {
    /// The name serde writes it under (its `#[serde(rename)]`, else its
    /// Rust name).
    pub name: &'static str,
    /// What it holds.
    pub kind: FieldKind,
    /// Whether it is an `Option`: `None` (written `null`, or not at all)
    /// never matches a value.
    pub optional: bool,
    /// The least and the greatest value an integer field holds (its type's
    /// `MIN` and `MAX`, which the derive writes), when they are known: a
    /// filter's integer outside them is refused at load, as a hook that
    /// could never fire.
    pub bounds: Option<(i128, i128)>,
}

impl Field {
    /// A field named `name` holding `kind` (`optional` for an `Option`):
    /// what the derive writes.
    pub const fn new(name: &'static str, kind: FieldKind, optional: bool) -> Self {
        Field {
            name,
            kind,
            optional,
            bounds: None,
        }
    }

    /// This field, holding integers from `min` to `max` (inclusive): what
    /// the derive writes for a field of a primitive integer type.
    ///
    /// ```
    /// use io_hooks::{Field, FieldKind};
    ///
    /// let step = Field::new("step", FieldKind::Integer, false).bounded(0, u32::MAX.into());
    /// assert_eq!(step.bounds, Some((0, 4_294_967_295)));
    /// ```
    pub const fn bounded(self, min: i128, max: i128) -> Self {
        Field {
            bounds: Some((min, max)),
            ..self
        }
    }

    /// Returns whether a `where` filter may name it as an event's field:
    /// not [`FieldKind::Other`], nor [`FieldKind::Strings`], which is a
    /// tool's argument's kind.
    pub const fn is_filterable(&self) -> bool {
        !matches!(self.kind, FieldKind::Other | FieldKind::Strings)
    }
}

/// The JSON type of a [`Field`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldKind {
    /// A string (`String`, `&str`, `Cow<str>`, `Box<str>`, `PathBuf`, …).
    Str,
    /// An integer (`i8` to `i64`, `u8` to `u64`, `isize`, `usize`).
    Integer,
    /// A number (`f32`, `f64`).
    Float,
    /// A bool.
    Bool,
    /// A list, a map, free-form JSON or a nested value: no filter may name
    /// it.
    Other,
    /// A list of strings, as a tool's argument holds a command's argv
    /// ([`ToolSpec::args`](crate::ToolSpec::args)): `where.<args>.<name>`
    /// matches its elements joined by single spaces, the command line as an
    /// operator reads it (`git push --force`), with no quoting. An event's
    /// own list field is [`FieldKind::Other`].
    Strings,
}

impl FieldKind {
    /// The type in words, as an error or an embedder's listing of its events
    /// names it: `a string`,
    /// `an integer`, `a number`, `a bool`, `free-form or nested`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FieldKind::Str => "a string",
            FieldKind::Integer => "an integer",
            FieldKind::Float => "a number",
            FieldKind::Bool => "a bool",
            FieldKind::Other => "free-form or nested",
            FieldKind::Strings => "a list of strings (matched as one command line)",
        }
    }
}

/// A field's value, read from the event without serialising it.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum FieldValue<'a> {
    /// A string.
    Str(&'a str),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A floating-point number.
    Float(f64),
    /// A bool.
    Bool(bool),
}

/// A field's value as a filter reads it: what the derive's generated
/// [`HookEvents::field`](super::HookEvents::field) calls on a field of a filterable type. Not for
/// implementing by hand.
#[doc(hidden)]
pub trait AsFieldValue {
    /// The value, or `None` when there is none to match (`None`, a path
    /// that is not UTF-8).
    fn field_value(&self) -> Option<FieldValue<'_>>;
}

macro_rules! as_field_value {
    ($variant:ident($as:ty): $($t:ty),*) => {$(
        impl AsFieldValue for $t {
            #[inline]
            fn field_value(&self) -> Option<FieldValue<'_>> {
                Some(FieldValue::$variant(<$as>::from(*self)))
            }
        }
    )*};
}

as_field_value!(Int(i64): i8, i16, i32, i64);
as_field_value!(UInt(u64): u8, u16, u32, u64);
as_field_value!(Float(f64): f32, f64);
as_field_value!(Bool(bool): bool);

impl AsFieldValue for isize {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        i64::try_from(*self).ok().map(FieldValue::Int)
    }
}

impl AsFieldValue for usize {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        u64::try_from(*self).ok().map(FieldValue::UInt)
    }
}

impl AsFieldValue for str {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        Some(FieldValue::Str(self))
    }
}

impl AsFieldValue for String {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        Some(FieldValue::Str(self))
    }
}

impl AsFieldValue for Path {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        self.to_str().map(FieldValue::Str)
    }
}

impl AsFieldValue for PathBuf {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        self.as_path().field_value()
    }
}

impl AsFieldValue for Cow<'_, str> {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        Some(FieldValue::Str(self))
    }
}

impl<T: AsFieldValue + ?Sized> AsFieldValue for &T {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        (**self).field_value()
    }
}

impl<T: AsFieldValue + ?Sized> AsFieldValue for Box<T> {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        (**self).field_value()
    }
}

impl<T: AsFieldValue + ?Sized> AsFieldValue for Rc<T> {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        (**self).field_value()
    }
}

impl<T: AsFieldValue + ?Sized> AsFieldValue for Arc<T> {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        (**self).field_value()
    }
}

impl<T: AsFieldValue> AsFieldValue for Option<T> {
    #[inline]
    fn field_value(&self) -> Option<FieldValue<'_>> {
        self.as_ref().and_then(AsFieldValue::field_value)
    }
}

/// The value of a field marked `#[hook(unit_enum)]`: the serde name of the
/// unit variant it holds (`"cancelled"` for `Outcome::Cancelled` under
/// `rename_all = "snake_case"`), read by letting the value serialise itself
/// into [`VariantName`], which takes a unit variant and nothing else (and
/// sees through `Option` and a newtype struct). Nothing is allocated or
/// written; any other value is `None`, which no filter matches. What the
/// derive's generated [`HookEvents::field`](super::HookEvents::field) calls. Not for calling by hand.
#[doc(hidden)]
#[inline]
pub fn unit_variant_name<T: serde::Serialize + ?Sized>(value: &T) -> Option<FieldValue<'static>> {
    value
        .serialize(VariantName)
        .ok()
        .flatten()
        .map(FieldValue::Str)
}

/// A serializer that answers a unit variant's name: `None` for `None`,
/// and an error for anything else.
struct VariantName;

/// What [`VariantName`] and [`Names`] stop with: a value that is not a unit
/// variant, or anything past an enum's variant names. Dropped where it is
/// made; serde's error traits ask for the rest.
#[derive(Debug)]
struct Unread;

impl fmt::Display for Unread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("only a unit variant's name is read")
    }
}

impl std::error::Error for Unread {}

impl ser::Error for Unread {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Unread
    }
}

impl de::Error for Unread {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Unread
    }
}

/// The methods of a value that is not a unit variant's name.
macro_rules! not_a_name {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {$(
        fn $method(self, $(_: $arg),*) -> Result<$ret, Unread> {
            Err(Unread)
        }
    )*};
}

type Refused = ser::Impossible<Option<&'static str>, Unread>;

impl ser::Serializer for VariantName {
    type Ok = Option<&'static str>;
    type Error = Unread;
    type SerializeSeq = Refused;
    type SerializeTuple = Refused;
    type SerializeTupleStruct = Refused;
    type SerializeTupleVariant = Refused;
    type SerializeMap = Refused;
    type SerializeStruct = Refused;
    type SerializeStructVariant = Refused;

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Self::Ok, Unread> {
        Ok(Some(variant))
    }

    fn serialize_none(self) -> Result<Self::Ok, Unread> {
        Ok(None)
    }

    fn serialize_some<T: serde::Serialize + ?Sized>(self, value: &T) -> Result<Self::Ok, Unread> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: serde::Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Self::Ok, Unread> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: serde::Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Self::Ok, Unread> {
        Err(Unread)
    }

    not_a_name! {
        serialize_bool(bool) -> Self::Ok;
        serialize_i8(i8) -> Self::Ok;
        serialize_i16(i16) -> Self::Ok;
        serialize_i32(i32) -> Self::Ok;
        serialize_i64(i64) -> Self::Ok;
        serialize_u8(u8) -> Self::Ok;
        serialize_u16(u16) -> Self::Ok;
        serialize_u32(u32) -> Self::Ok;
        serialize_u64(u64) -> Self::Ok;
        serialize_f32(f32) -> Self::Ok;
        serialize_f64(f64) -> Self::Ok;
        serialize_char(char) -> Self::Ok;
        serialize_str(&str) -> Self::Ok;
        serialize_bytes(&[u8]) -> Self::Ok;
        serialize_unit() -> Self::Ok;
        serialize_unit_struct(&'static str) -> Self::Ok;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

/// The names `T`'s `Deserialize` reads an enum from: the `variants` it hands
/// `deserialize_enum` (through `Option` and a newtype struct), caught by a
/// deserializer that reads nothing. `None` for a type that is not an enum.
/// What [`ChoicesOf`] answers with.
fn variant_names<T: de::DeserializeOwned>() -> Option<&'static [&'static str]> {
    let found = std::cell::Cell::new(None);
    // The error is the point: the deserializer stops at the enum.
    let _ = T::deserialize(Names(&found));
    found.get()
}

/// A deserializer that records the variant names of the enum it is asked
/// for and reads nothing.
struct Names<'a>(&'a std::cell::Cell<Option<&'static [&'static str]>>);

impl<'de> de::Deserializer<'de> for Names<'_> {
    type Error = Unread;

    fn deserialize_any<V: de::Visitor<'de>>(self, _: V) -> Result<V::Value, Unread> {
        Err(Unread)
    }

    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Unread> {
        self.0.set(Some(variants));
        Err(Unread)
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unread> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: de::Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Unread> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// The probe the derive's generated [`HookEvents::field_choices`](super::HookEvents::field_choices) calls
/// `choices()` on, as `(&Choices::<T>::NEW).choices()`: with both traits in
/// scope, [`ChoicesOf`] answers for a `T` that derives `Deserialize` (its
/// impl is on `Choices<T>`, found before the autoref) and [`NoChoices`]
/// answers `None` for any other. Not for use by hand.
#[doc(hidden)]
pub struct Choices<T: ?Sized>(std::marker::PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> Choices<T> {
    /// The probe.
    pub const NEW: Self = Choices(std::marker::PhantomData);
}

/// The names, for a type that derives `Deserialize`.
#[doc(hidden)]
pub trait ChoicesOf {
    /// Its variants' names.
    fn choices(&self) -> Option<&'static [&'static str]>;
}

impl<T: de::DeserializeOwned> ChoicesOf for Choices<T> {
    fn choices(&self) -> Option<&'static [&'static str]> {
        variant_names::<T>()
    }
}

/// No names, for any other type.
#[doc(hidden)]
pub trait NoChoices {
    /// `None`.
    fn choices(&self) -> Option<&'static [&'static str]> {
        None
    }
}

impl<T: ?Sized> NoChoices for &Choices<T> {}
