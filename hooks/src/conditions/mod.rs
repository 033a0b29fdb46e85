//! `where`: a hook's conditions on named, typed fields of its events (its
//! `on` is its filter, a [`HookFilter`](crate::HookFilter)). The field table
//! comes from the derive ([`Field`](crate::Field)); a table's `where` is read
//! as written ([`RawWhere`], `raw.rs`), checked against it when the file is
//! loaded (`table/conditions.rs`) and compiled into a [`Where`]
//! (`matcher.rs`, its globs `glob.rs`), which [`Hooks`](crate::Hooks)
//! evaluates on the event before it is serialised; why one is refused is a
//! [`WhereError`] (`error.rs`).

mod error;
pub(crate) mod glob;
pub(crate) mod matcher;
mod raw;

pub use error::WhereError;
pub use matcher::Where;
pub(crate) use raw::{EXPECTING, Entries, Node, RawWhere};
