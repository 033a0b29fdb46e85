//! `io`: the operator's command line for hooks.
//!
//! Every command prints its result on stdout and its errors on stderr as one
//! readable paragraph; the exit codes are in `io --help`.

mod cli;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::{Parser, Subcommand};
use io_harness::OsMessage;
use io_harness::schema::{events_schema, hook_schema};

const AFTER_HELP: &str = "\
Hooks go in ROOT/io.local.toml (yours: gitignored, and refused if git tracks
it) or in the user-scope file ($IO_CONFIG_HOME/io.toml, else
$XDG_CONFIG_HOME/io/io.toml, else ~/.config/io/io.toml). A project's io.toml
arrives with a clone and may not declare any.

Logging (-q, -v) covers io run and io replay; what they print as they go
(each event, each hook's result, the problems found with a hook) is their
output, not logging, and every level shows it.

Exit status: 0 success; 1 a config error, bad input, a failed run, or (io
check) a hook that cannot work as written; 2 a usage error; 3 (io replay,
io run) a hook cancelled the run.";

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
    /// Log errors only.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Log more. The default (warn) logs what io reports nowhere else, such
    /// as a journal's torn last record it dropped; `-v` (info) adds the
    /// files read and whose hooks are in force, and the engine's own warning
    /// for each hook that failed or has a problem, numbered as in the table;
    /// `-vv` (debug) adds each hook in force. Without -q or -v, `RUST_LOG`
    /// may name the level.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
}

#[derive(Subcommand)]
enum Command {
    /// Load the config as a run would and say what its hooks do.
    ///
    /// Reads the user-scope file ($IO_CONFIG_HOME/io.toml, else
    /// $XDG_CONFIG_HOME/io/io.toml, else ~/.config/io/io.toml), then
    /// ROOT/io.toml, then ROOT/io.local.toml.
    #[command(
        after_help = "Exits 1 when a hook cannot work as written.\n\nExample:\n  io check --root . --profile ci\n  io check --event finished\n  io check --json | jq '.hooks[] | select(.problems != [])'"
    )]
    Check {
        /// The discovery root [default: the nearest directory at or above
        /// the working directory holding io.local.toml, io.toml or .git,
        /// else the working directory].
        #[arg(long)]
        root: Option<PathBuf>,
        /// A `[profile.<name>]` to apply.
        #[arg(long)]
        profile: Option<String>,
        /// Also list the hooks that would fire for this event tag, and those
        /// whose `where` filter lets only some of its events through.
        #[arg(long, value_name = "TAG")]
        event: Option<String>,
        /// One JSON object: the root and why, the files read, every hook
        /// with its problems and notes, and the verdict.
        #[arg(long)]
        json: bool,
    },
    /// List the events a hook may name, with when each fires and its cost;
    /// with TAG, what a hook receives for that event.
    ///
    /// With TAG: the event's doc, its cost class, its fields (name, JSON
    /// type, meaning), the envelope every line carries, and a real line from
    /// examples/events.jsonl. An unknown TAG is an error (exit 1), as an
    /// unknown name in a hook's `on` list is.
    #[command(after_help = "\
Example:
  io events
  io events step
  io events --json
  io events --markdown > docs/events.md")]
    Events {
        /// One event's tag (`step`, `tool_call`, …).
        tag: Option<String>,
        /// JSON: an array of {event, when, frequency, fields, example}
        /// objects, or one such object with TAG.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// The operator's reference to every event, as docs/events.md holds it.
        #[arg(long, conflicts_with = "tag")]
        markdown: bool,
    },
    /// Print a JSON Schema (draft 2020-12) for `[[hook]]` tables, for editors;
    /// with --events, the schema of one event line a hook receives.
    #[command(after_help = "\
Example:
  io schema > io-hooks.schema.json
then, as the first line of io.local.toml (taplo / Even Better TOML):
  #:schema ./io-hooks.schema.json
The schema of the JSON line a hook receives:
  io schema --events > io-event.schema.json")]
    Schema {
        /// The schema of one event line (what an `append` hook writes and a
        /// `run` hook reads on stdin) instead of the `[[hook]]` one.
        #[arg(long)]
        events: bool,
    },
    /// Replay a recorded run (JSON lines, as an `append` hook writes them)
    /// through the configured hooks, cancelling at the next step boundary as
    /// a run would.
    #[command(
        after_help = "Example:\n  io replay audit.jsonl\n  io replay - --json < events.jsonl\n  io replay audit.jsonl --dry-run --hook 2\n  io replay audit.jsonl --hook 3 --stderr"
    )]
    Replay {
        /// The events file, or `-` for stdin.
        file: String,
        /// The discovery root [default: the nearest directory at or above
        /// the working directory holding io.local.toml, io.toml or .git,
        /// else the working directory].
        #[arg(long)]
        root: Option<PathBuf>,
        /// A `[profile.<name>]` to apply.
        #[arg(long)]
        profile: Option<String>,
        /// One JSON object per event, then a summary object.
        #[arg(long)]
        json: bool,
        /// Read and check the whole file and print, per event, which hooks
        /// would fire: nothing is run and no file is written.
        #[arg(long)]
        dry_run: bool,
        /// Replay through the N-th hook only, from 1 (`hook[N]`, or
        /// `profile.<name>.hook[N]` under a profile, as `io check` names
        /// them); repeatable.
        #[arg(long = "hook", value_name = "N")]
        hooks: Vec<usize>,
        /// Show the last lines (up to 4 KiB) a failing `run` hook wrote to
        /// its stderr, under its failure.
        #[arg(long)]
        stderr: bool,
        /// The longest line to read, in bytes (newline excluded): a longer
        /// one stops the replay, naming it.
        #[arg(long, value_name = "BYTES", default_value_t = cli::replay::DEFAULT_MAX_LINE,
              value_parser = clap::value_parser!(u64).range(1..=cli::replay::MAX_LINE))]
        max_line: u64,
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
        /// The workspace and discovery root [default: the nearest directory
        /// at or above the working directory holding io.local.toml, io.toml
        /// or .git, else the working directory].
        #[arg(long)]
        root: Option<PathBuf>,
        /// A `[profile.<name>]` to apply.
        #[arg(long)]
        profile: Option<String>,
        /// Show the last lines (up to 4 KiB) a failing `run` hook wrote to
        /// its stderr, under its failure.
        #[arg(long)]
        stderr: bool,
    },
    /// List the root's runs, newest first: how each last ended, and the
    /// command that resumes it.
    #[command(after_help = "Example:\n  io runs\n  io runs --root /tmp/ws")]
    Runs {
        /// The discovery root [default: the nearest directory at or above
        /// the working directory holding io.local.toml, io.toml or .git,
        /// else the working directory].
        #[arg(long)]
        root: Option<PathBuf>,
    },
    /// Print a completion script for SHELL, to be sourced by it.
    #[command(after_help = "\
Example:
  io completions bash > ~/.local/share/bash-completion/completions/io
  io completions zsh > ~/.zfunc/_io        # with fpath+=(~/.zfunc) before compinit
  io completions fish > ~/.config/fish/completions/io.fish")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// The spec's four hooks on a real run, in a fresh temporary workspace:
    /// an audit log, a notification, a formatter and a policy check that
    /// stops the run, which is then resumed.
    #[command(after_help = "Example:\n  io demo")]
    Demo {
        /// Lay the demo out here, and keep it, instead of in a new temporary
        /// directory removed at the end. Refused if DIR is a symbolic link
        /// or already holds `workspace` or `script.toml`: nothing is
        /// overwritten.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let signalled = start_process();
    let code = run(Cli::parse());
    // A signal that ended the work before `main` got here: its exit code,
    // once its thread has reaped the children (it exits the process).
    if signalled.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    code
}

/// What `io` sets up before anything else, for itself and what it spawns:
///
/// - Every descriptor above 2 it inherited is made close-on-exec, so only
///   stdin, stdout and stderr reach a hook.
/// - `SIGCHLD` and `SIGXFSZ` are caught, not ignored, whatever the parent
///   left: an ignored `SIGCHLD` has the kernel reap children unasked, so no
///   exit status could be read (a git check would read "untracked", and
///   every hook would fail); `SIGXFSZ` would kill `io` at a file size
///   limit, mid-line, where caught it makes the write fail (`EFBIG`). A
///   caught signal is back at its default in every child `io` spawns.
///   (Setting a disposition outright needs `unsafe`; signal-hook's handler,
///   which only sets a flag, is the safe way to end an inherited `SIG_IGN`.)
/// - `SIGINT`, `SIGTERM`, `SIGHUP` and `SIGQUIT` (those not ignored when
///   `io` started) are received on a thread, which kills the process group of
///   every child in flight, waits (boundedly) for them to be reaped, says
///   which run it interrupted and how to resume it (`io run`), and exits
///   with 128 + the signal's number.
///
/// Returns the flag the signal thread sets before it starts ending things.
fn start_process() -> &'static AtomicBool {
    use signal_hook::consts::{SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGXFSZ};
    static SIGNALLED: AtomicBool = AtomicBool::new(false);
    static CAUGHT: AtomicBool = AtomicBool::new(false);

    close_fds::set_fds_cloexec(3, &[]);
    for signal in [SIGCHLD, SIGXFSZ] {
        if let Err(e) = signal_hook::flag::register(signal, &CAUGHT) {
            cli::err(&format!(
                "io: could not catch signal {signal}: {}\n",
                OsMessage(&e)
            ));
        }
    }
    // A signal the parent left ignored (`nohup` ignores SIGHUP, a shell's
    // `&` SIGINT) is the parent's choice, and stays ignored.
    let ignored = ignored_signals();
    // SIGQUIT too: Ctrl-\ is an operator's "stop now" as much as Ctrl-C,
    // and by default it would end `io` (with a core) and leave its hooks
    // running.
    let ending = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
        .into_iter()
        .filter(|&signal| ignored & (1 << (signal - 1)) == 0);
    match signal_hook::iterator::Signals::new(ending) {
        Ok(mut signals) => {
            let started = std::thread::Builder::new()
                .name("signals".to_owned())
                .spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        SIGNALLED.store(true, Ordering::SeqCst);
                        let supervisor = io_harness::process_supervisor();
                        supervisor.interrupt();
                        supervisor.wait_reaped(REAP_WITHIN);
                        if let Some(line) = cli::signal_line() {
                            cli::err(&line);
                        }
                        std::process::exit(128 + signal);
                    }
                });
            // Without this thread a caught Ctrl-C would end nothing: `io`
            // stops here, before any work, rather than run unstoppable.
            if let Err(e) = started {
                cli::err(&no_thread(&e));
                std::process::exit(1);
            }
        }
        Err(e) => cli::err(&format!(
            "io: could not receive SIGINT/SIGTERM/SIGHUP/SIGQUIT: {}\n",
            OsMessage(&e)
        )),
    }
    &SIGNALLED
}

/// The error for a thread the system would not start: at a process limit
/// (`ulimit -u`, `RLIMIT_NPROC`, which counts threads) `EAGAIN`.
fn no_thread(e: &std::io::Error) -> String {
    format!(
        "io: cannot start a thread: {}; is the process limit (`ulimit -u`, RLIMIT_NPROC) too low for this user?\n",
        OsMessage(e)
    )
}

/// The signals this process ignores, as the kernel's mask (bit `n - 1` is
/// signal `n`) from `/proc/self/status`: the one way to read a disposition
/// without `unsafe`. None when it cannot be read.
fn ignored_signals() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let hex = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
            u64::from_str_radix(hex.trim(), 16).ok()
        })
        .unwrap_or(0)
}

/// How long `io`, interrupted, waits for its killed children to be reaped
/// before it exits anyway.
const REAP_WITHIN: Duration = Duration::from_secs(5);

fn run(cli: Cli) -> ExitCode {
    let verbosity = cli::Verbosity {
        quiet: cli.quiet,
        verbose: cli.verbose,
    };
    let result = match cli.command {
        Command::Check {
            root,
            profile,
            event,
            json,
        } => cli::check::check(root.as_deref(), profile.as_deref(), event.as_deref(), json),
        Command::Events {
            tag,
            json,
            markdown,
        } => cli::events::events(tag.as_deref(), json, markdown),
        Command::Schema { events: false } => cli::print_json(&hook_schema()),
        Command::Schema { events: true } => cli::print_json(&events_schema()),
        Command::Replay {
            file,
            root,
            profile,
            json,
            dry_run,
            hooks,
            stderr,
            max_line,
        } => cli::replay::replay_file(&cli::replay::Args {
            file: &file,
            root: root.as_deref(),
            profile: profile.as_deref(),
            json,
            dry_run,
            hooks: &hooks,
            stderr,
            max_line,
            verbosity,
        }),
        Command::Run {
            script,
            resume,
            root,
            profile,
            stderr,
        } => {
            let start = match (&script, &resume) {
                (_, Some(run_id)) => cli::run::Start::Resume(run_id),
                (Some(script), None) => cli::run::Start::Script(script),
                // clap requires one of the two.
                (None, None) => return ExitCode::from(2),
            };
            cli::run::run(
                start,
                root.as_deref(),
                profile.as_deref(),
                stderr,
                verbosity,
            )
        }
        Command::Demo { dir } => cli::demo::demo(dir.as_deref()),
        Command::Runs { root } => cli::runs::runs(root.as_deref()),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(
                shell,
                &mut <Cli as clap::CommandFactory>::command(),
                "io",
                &mut script,
            );
            cli::out(&String::from_utf8_lossy(&script)).map(|()| ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            // A message can quote outside input (a profile name from a cloned
            // `io.toml`, a path): escaped, as everything io prints is.
            cli::err(&format!("io: {}\n", cli::safe(&message)));
            ExitCode::from(1)
        }
    }
}
