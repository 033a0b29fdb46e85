//! `where`: a hook's filter on named, typed fields of its events. The
//! field table comes from the derive ([`Field`](crate::Field)); a table's
//! `where` is read as written ([`RawWhere`]), checked against it when the
//! file is loaded and compiled into a [`Where`], which the
//! executor evaluates on the event before it is serialised.

mod error;
pub(crate) mod glob;
pub(crate) mod matcher;
mod raw;

pub use error::WhereError;
pub use matcher::Where;
pub(crate) use raw::{EXPECTING, Entries, Node, RawWhere};
