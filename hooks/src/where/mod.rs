//! `where`: a hook's conditions on named, typed fields of its events (its
//! `on` is its filter, a [`HookFilter`](crate::HookFilter)). The field table
//! comes from the derive ([`Field`](crate::Field)); a table's `where` is read
//! as written ([`RawWhere`], `written.rs`), checked against it when the file
//! is loaded (`table/compile_where.rs`) and compiled into a [`Where`]
//! (`matcher.rs`, its globs `glob.rs`), which [`Hooks`](crate::Hooks)
//! evaluates on the event before it is serialised; why one is refused is a
//! [`TableErrorKind`](crate::TableErrorKind) (`table_error.rs`).

mod arg_value;
pub(crate) mod glob;
pub(crate) mod matcher;
mod tool_args;
mod written;

pub use matcher::Where;
pub use tool_args::{ToolClass, ToolSpec, ToolTable};
pub(crate) use written::{EXPECTING, Entries, Node, RawWhere};
