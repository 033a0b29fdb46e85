//! `io`: the operator's command line for hooks.
//!
//! Every command prints its result on stdout and its errors on stderr as one
//! readable paragraph; the exit codes are in `io --help`. This file parses
//! the command line and hands each command its own arguments: the commands
//! are in `commands/`, what they are built of in `cli/`.

mod cli;
mod commands;

use std::process::ExitCode;
use std::sync::atomic::Ordering;

use clap::{CommandFactory, Parser, Subcommand};

use cli::exit::CmdResult;
use cli::log::Verbosity;
use cli::output::{err, safe};

const AFTER_HELP: &str = "\
Hooks go in ROOT/io.local.toml (yours: untracked in a git work tree, or
trusted with io trust; refused if git tracks it) or in the user-scope file ($IO_CONFIG_HOME/io.toml, else
$XDG_CONFIG_HOME/io/io.toml, else ~/.config/io/io.toml). A project's io.toml
arrives with a clone and may not declare any.

Logging (-q, -v) covers io run and io replay; what they print as they go
(each event, each hook's result, the problems found with a hook) is their
output, not logging, and every level shows it.

Exit status: 0 success; 1 a config error, bad input, a failed run, or (io
check) a hook that cannot work as written; 2 a usage error; 3 (io replay,
io run) a hook cancelled the run; 128 + N when signal N ended io, or stopped
its run (130 for Ctrl-C: the run stops before its next tool call, its hooks
get `finished`, and the last line says how to resume; a second Ctrl-C ends
io at once).";

/// Check, inspect and try the `[[hook]]` tables of an io-harness config.
#[derive(Parser)]
#[command(
    name = "io",
    version,
    about = "Check, inspect and try the [[hook]] tables of an io-harness config",
    after_help = AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    verbosity: Verbosity,
}

#[derive(Subcommand)]
enum Command {
    Check(commands::check::Args),
    Events(commands::events::Args),
    Schema(commands::schema::Args),
    Replay(commands::replay::Args),
    Run(commands::run::Args),
    Runs(commands::runs::Args),
    Completions(commands::completions::Args),
    Demo(commands::demo::Args),
    Trust(commands::trust::Args),
    Untrust(commands::trust::UntrustArgs),
}

fn main() -> ExitCode {
    // A shell's Tab: answered before anything else starts (no signal
    // thread, no logging), and nothing but the answer is printed.
    if let Some(code) = commands::completions::answer(Cli::command) {
        return code;
    }
    let signalled = cli::signals::start_process();
    let cli = Cli::parse();
    let code = exit_code(dispatch(cli));
    // A signal that ended the work before `main` got here: its exit code,
    // once its thread has reaped the children (it exits the process).
    if signalled.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    code
}

/// Runs the command `cli` names with its arguments.
fn dispatch(cli: Cli) -> CmdResult {
    let verbosity = cli.verbosity;
    match cli.command {
        Command::Check(args) => commands::check::exec(&args),
        Command::Events(args) => commands::events::exec(&args),
        Command::Schema(args) => commands::schema::exec(&args),
        Command::Replay(args) => commands::replay::exec(&args, verbosity),
        Command::Run(args) => commands::run::exec(&args, verbosity),
        Command::Runs(args) => commands::runs::exec(&args),
        Command::Completions(args) => commands::completions::exec(&args),
        Command::Demo(args) => commands::demo::exec(&args),
        Command::Trust(args) => commands::trust::exec(&args),
        Command::Untrust(args) => commands::trust::exec_untrust(&args),
    }
}

/// The process's exit code for a command's `result`: its own, or 1 once
/// its message is printed on stderr. A message can quote outside input (a
/// profile name from a cloned `io.toml`, a path): escaped, as everything io
/// prints is.
fn exit_code(result: CmdResult) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(message) => {
            err(&format!("io: {}\n", safe(&message)));
            ExitCode::from(1)
        }
    }
}
