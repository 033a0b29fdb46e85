//! `io`: the operator's command line for hooks.
//!
//! Every command prints its result on stdout and its errors on stderr as one
//! readable paragraph; exit codes are documented in `io --help`.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use io_harness::{EventKind, HookEvents, hook_schema};

const AFTER_HELP: &str = "\
Exit status: 0 success; 1 a config error or bad input; 2 a usage error;
3 (io replay, io run) the run was cancelled by a hook.";

/// Check, inspect and try the `[[hook]]` tables of an io-harness config.
#[derive(Parser)]
#[command(name = "io", version, about, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the events a hook may name, in the registry's order, with when
    /// each fires and what a hook on it costs.
    #[command(after_help = "Example:\n  io events\n  io events --json | jq -r '.[].event'")]
    Events {
        /// One JSON array of {event, when, frequency} objects.
        #[arg(long)]
        json: bool,
    },
    /// Print a JSON Schema (draft 2020-12) for `[[hook]]` tables, for editors.
    #[command(after_help = "\
Example:
  io schema > io-hooks.schema.json
then, at the top of io.local.toml (taplo / Even Better TOML):
  #:schema ./io-hooks.schema.json")]
    Schema,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Events { json } => events(json),
        Command::Schema => print_json(&hook_schema()),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("io: {message}");
            ExitCode::from(1)
        }
    }
}

type CmdResult = Result<ExitCode, String>;

fn events(json: bool) -> CmdResult {
    let rows = EventKind::TAGS
        .iter()
        .zip(EventKind::DOCS)
        .enumerate()
        .map(|(i, (tag, doc))| (*tag, *doc, EventKind::frequency(i)));
    if json {
        let list: Vec<serde_json::Value> = rows
            .map(|(tag, doc, freq)| {
                serde_json::json!({ "event": tag, "when": doc, "frequency": freq })
            })
            .collect();
        return print_json(&serde_json::Value::Array(list));
    }
    let width = EventKind::TAGS.iter().map(|t| t.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (tag, doc, freq) in rows {
        out.push_str(&format!("{tag:width$}  {:9}  {doc}\n", freq.as_str()));
    }
    write_stdout(&out)
}

fn print_json(value: &serde_json::Value) -> CmdResult {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    write_stdout(&format!("{text}\n"))
}

/// Writes to stdout; a closed pipe (`io events | head`) is not an error.
fn write_stdout(text: &str) -> CmdResult {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(format!("could not write to stdout: {e}")),
    }
}
