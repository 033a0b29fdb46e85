//! `io`: the operator's command line for hooks.
//!
//! Every command prints its result on stdout and its errors on stderr as one
//! readable paragraph; the exit codes are in `io --help`.

mod cli;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use io_harness::{EventKind, HookEvents, hook_schema};

use cli::{CmdResult, out};

const AFTER_HELP: &str = "\
Exit status: 0 success; 1 a config error, bad input or a failed run;
2 a usage error; 3 (io replay, io run) a hook cancelled the run.";

/// Check, inspect and try the `[[hook]]` tables of an io-harness config.
#[derive(Parser)]
#[command(name = "io", version, about, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load the config as a run would and say what its hooks do.
    ///
    /// Reads the user-scope file ($IO_CONFIG_HOME/io.toml, else
    /// $XDG_CONFIG_HOME/io/io.toml, else ~/.config/io/io.toml), then
    /// ROOT/io.toml, then ROOT/io.local.toml.
    #[command(after_help = "Example:\n  io check --root . --profile ci")]
    Check {
        /// The discovery root [default: the current directory].
        #[arg(long)]
        root: Option<PathBuf>,
        /// A `[profile.<name>]` to apply.
        #[arg(long)]
        profile: Option<String>,
    },
    /// List the events a hook may name, with when each fires and its cost.
    #[command(after_help = "Example:\n  io events\n  io events --json")]
    Events {
        /// One JSON array of {event, when, frequency} objects.
        #[arg(long)]
        json: bool,
    },
    /// Print a JSON Schema (draft 2020-12) for `[[hook]]` tables, for editors.
    #[command(after_help = "\
Example:
  io schema > io-hooks.schema.json
then, as the first line of io.local.toml (taplo / Even Better TOML):
  #:schema ./io-hooks.schema.json")]
    Schema,
    /// Replay a recorded run (JSON lines, as an `append` hook writes them)
    /// through the configured hooks, cancelling at the next step boundary as
    /// a run would.
    #[command(
        after_help = "Example:\n  io replay audit.jsonl\n  io replay - --json < events.jsonl"
    )]
    Replay {
        /// The events file, or `-` for stdin.
        file: String,
        /// The discovery root [default: the current directory].
        #[arg(long)]
        root: Option<PathBuf>,
        /// A `[profile.<name>]` to apply.
        #[arg(long)]
        profile: Option<String>,
        /// One JSON object per event, then a summary object.
        #[arg(long)]
        json: bool,
    },
    /// Run a scripted session in ROOT with the config's hooks installed, or
    /// resume a stored run.
    #[command(after_help = "\
Example:
  io run examples/demo/script.toml --root /tmp/ws
  io run --resume r-0123456789ab --root /tmp/ws")]
    Run {
        /// The script of model turns.
        #[arg(required_unless_present = "resume", conflicts_with = "resume")]
        script: Option<PathBuf>,
        /// Resume this run from its last committed step.
        #[arg(long, value_name = "RUN_ID")]
        resume: Option<String>,
        /// The workspace and discovery root [default: the current directory].
        #[arg(long)]
        root: Option<PathBuf>,
        /// A `[profile.<name>]` to apply.
        #[arg(long)]
        profile: Option<String>,
    },
    /// The spec's four hooks on a real run, in a fresh temporary workspace:
    /// an audit log, a notification, a formatter and a policy check that
    /// stops the run, which is then resumed.
    #[command(after_help = "Example:\n  io demo")]
    Demo {
        /// Lay the demo out here instead of a new temporary directory.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check { root, profile } => cli::check::check(root.as_deref(), profile.as_deref()),
        Command::Events { json } => events(json),
        Command::Schema => print_json(&hook_schema()),
        Command::Replay {
            file,
            root,
            profile,
            json,
        } => cli::replay::replay_file(&file, root.as_deref(), profile.as_deref(), json),
        Command::Run {
            script,
            resume,
            root,
            profile,
        } => {
            let start = match (&script, &resume) {
                (_, Some(run_id)) => cli::run::Start::Resume(run_id),
                (Some(script), None) => cli::run::Start::Script(script),
                // clap requires one of the two.
                (None, None) => return ExitCode::from(2),
            };
            cli::run::run(start, root.as_deref(), profile.as_deref())
        }
        Command::Demo { dir } => cli::demo::demo(dir.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            cli::err(&format!("io: {message}\n"));
            ExitCode::from(1)
        }
    }
}

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
    let mut text = String::new();
    for (tag, doc, freq) in rows {
        text.push_str(&format!("{tag:width$}  {:9}  {doc}\n", freq.as_str()));
    }
    out(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn print_json(value: &serde_json::Value) -> CmdResult {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    out(&format!("{text}\n"))?;
    Ok(ExitCode::SUCCESS)
}
