//! `io`: the operator's command line for hooks.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use io_harness::{EventKind, HookEvents};

/// Check, inspect and try the `[[hook]]` tables of an io-harness config.
#[derive(Parser)]
#[command(name = "io", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the events a hook may name, in the registry's order.
    ///
    /// Example: io events
    Events,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Events => {
            let width = EventKind::TAGS.iter().map(|t| t.len()).max().unwrap_or(0);
            for (tag, doc) in EventKind::TAGS.iter().zip(EventKind::DOCS) {
                println!("{tag:width$}  {doc}");
            }
            ExitCode::SUCCESS
        }
    }
}
