//! `io schema`: the JSON Schema of `[[hook]]` tables, or of one event line.

use io_harness::schema::{events_schema, hook_schema};

use crate::cli::exit::CmdResult;
use crate::cli::output::print_json;

/// Print a JSON Schema (draft 2020-12) for `[[hook]]` tables, for editors;
/// with --events, the schema of one event line a hook receives.
#[derive(clap::Args)]
#[command(after_help = "\
Example:
  io schema > io-hooks.schema.json
then, as the first line of io.local.toml (taplo / Even Better TOML):
  #:schema ./io-hooks.schema.json
The schema of the JSON line a hook receives:
  io schema --events > io-event.schema.json")]
pub(crate) struct Args {
    /// The schema of one event line (what an `append` hook writes and a
    /// `run` hook reads on stdin) instead of the `[[hook]]` one.
    #[arg(long)]
    events: bool,
}

/// Runs `io schema`.
///
/// Returns 0; an error when stdout cannot be written.
pub(crate) fn exec(args: &Args) -> CmdResult {
    if args.events {
        print_json(&events_schema())
    } else {
        print_json(&hook_schema())
    }
}
