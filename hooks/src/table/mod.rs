//! `[[hook]]` tables: parsed strictly from TOML into [`HookSpec`](crate::HookSpec)s.
//!
//! Two stages, each with its own kind of error. **Deserialization** (serde,
//! a visitor that refuses a key the key table does not hold, and
//! [`toml::Spanned`]) settles the shape: the
//! keys a table may have and the type of each value; `serde_path_to_error`
//! says where. **Validation** then settles the meaning: exactly one of
//! `append` and `run`, a program to run, events that exist, a timeout that
//! applies. `on` is typed there too, as the one value whose message needs
//! the event enum (its example is the enum's first event). Both stages
//! report through one [`TableError`](crate::TableError), whose `Display` is the operator's
//! message:
//!
//! ```text
//! ci.local.toml: key `hook[2].on`: unknown event `job_finishd` (did you mean `job_finished`?); expected one of `job_started`, `job_finished` (line 5, column 7)
//! ```
//!
//! The file comes first, then the key path, then what is wrong and what is
//! accepted, then the line and column. Tables are counted **from 1**:
//! `hook[2]` is the second `[[hook]]` in the file, which is how an operator
//! counts them.
//!
//! The files of this module: loading a file and its `hook` arrays
//! (`toml_file.rs`), reading a table's keys and the type of each value
//! (`read.rs`, from the key table, `key_table.rs`), checking them against each
//! other and the event enum (`validate.rs`, and `where` in
//! `compile_where.rs`, a tool call's arguments in `compile_args.rs`, a condition's value in
//! `where_value.rs`), the refusals of hooks a file may not declare
//! (`provenance.rs`) or declares where none are read (`placement.rs`), key paths
//! serde could not name (`keypath.rs`), and the JSON Schema (`schema.rs`).

mod compile_args;
mod compile_where;
mod key_table;
mod keypath;
pub(crate) mod name;
mod placement;
mod provenance;
mod read;
mod schema;
mod toml_file;
mod validate;
mod where_value;

pub use key_table::HOOK_KEYS;
pub use read::deserialize_table;
pub use schema::{hook_file_schema, hook_table_schema};
pub use toml_file::{HookTables, TomlFile};
