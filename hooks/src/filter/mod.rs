//! `where`: a hook's filter on named, typed fields of its events. The
//! field table comes from the derive ([`fields`]); a table's `where` is
//! checked against it when the file is loaded and compiled into a
//! [`Where`](matcher::Where), which the executor evaluates on the event
//! before it is serialised.

pub(crate) mod fields;
pub(crate) mod matcher;

pub use fields::{AsFieldValue, Field, FieldKind, FieldValue};
pub use matcher::Where;
