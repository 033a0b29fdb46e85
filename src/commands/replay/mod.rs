//! `io replay`: drive a recorded run through the configured hooks, or, with
//! `--dry-run`, say which hooks each event would fire. The lines are read
//! and parsed in `input.rs`; what each event prints is `printer.rs`'s.

mod expect;
mod input;
mod printer;
mod source;

use std::io::{BufReader, Read};
use std::path::PathBuf;
use std::process::ExitCode;

use io_harness::{
    RunEvent,
    replay::{ReplayOutcome, replay},
};
use serde_json::json;

use input::Parsed;
use input::{DEFAULT_MAX_LINE, MAX_LINE};
use printer::Printer;

use crate::cli::exit::{CmdResult, EXIT_CANCELLED, EXIT_USAGE};
use crate::cli::hook_report::{
    STDERR_TAIL, interrupted, print_background, print_problems, say_hooks_in_force,
};
use crate::cli::load::load_at;
use crate::cli::log::{Verbosity, log_to_stderr};
use crate::cli::output::{err, out, safe, safe_line, write_safe_json};
use crate::cli::selection::Selection;
use crate::cli::signals::{Backlog, on_signal_backlog};

/// Replay a recorded run (JSON lines, as an `append` hook writes them)
/// through the configured hooks, cancelling at the next step boundary as
/// a run would.
#[derive(clap::Args)]
#[command(
    after_help = "Example:\n  io replay audit.jsonl\n  io replay - --json < events.jsonl\n  io replay audit.jsonl --dry-run --hook 2\n  io replay audit.jsonl --hook 3 --stderr"
)]
pub(crate) struct Args {
    /// The events file, or `-` for stdin. A file (named, or redirected to
    /// stdin) is read to the end it has when the replay begins, so what
    /// the hooks append to it meanwhile is not replayed; a hook whose
    /// `append` file is the input is left out, and refused if `--hook`
    /// names it.
    file: PathBuf,
    /// The discovery root [default: the nearest directory at or above
    /// the working directory holding io.local.toml, io.toml or .git,
    /// else the working directory].
    #[arg(long)]
    root: Option<PathBuf>,
    /// A `[profile.<name>]` to apply.
    #[arg(long, add = clap_complete::ArgValueCompleter::new(crate::commands::completions::profiles))]
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
    /// them), or the hook with `name = "NAME"`; repeatable.
    #[arg(long = "hook", value_name = "N|NAME", add = clap_complete::ArgValueCompleter::new(crate::commands::completions::hooks))]
    hooks: Vec<String>,
    /// Show the last lines (up to 4 KiB) a failing `run` hook wrote to
    /// its stderr, under its failure.
    #[arg(long)]
    stderr: bool,
    /// Compare what the hooks answered with GOLDEN, what `io replay
    /// EVENTS --json` printed before: each event's hook verdicts and flow,
    /// and the outcome (never timings or error text). Exits 0 when all
    /// match, 1 naming the first event and hook that differ, 2 when GOLDEN
    /// is not `--json`'s output.
    #[arg(long, value_name = "GOLDEN", conflicts_with_all = ["json", "dry_run"])]
    expect: Option<PathBuf>,
    /// The longest line to read, in bytes (newline excluded): a longer
    /// one stops the replay, naming it.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_LINE,
          value_parser = clap::value_parser!(u64).range(1..=MAX_LINE))]
    max_line: u64,
}

/// Runs `io replay` at `verbosity`.
///
/// Returns 0 when every event was delivered, 3 when a hook cancelled the
/// replay, 2 when `--hook` names no hook, 1 for a failed hook's event as
/// the run would end; an error when the config or the file cannot be read.
pub(crate) fn exec(args: &Args, verbosity: Verbosity) -> CmdResult {
    let (config, root) = load_at(args.root.as_deref(), args.profile.as_deref())?;
    let selection = match Selection::new(config.hook_specs(), &args.hooks) {
        Ok(selection) => selection,
        Err(message) => return Ok(usage(&message)),
    };
    let golden = match args.expect.as_deref().map(expect::read_golden).transpose() {
        Ok(golden) => golden,
        Err(message) => return Ok(usage(&message)),
    };
    let source = source::open(&args.file)?;
    let chosen = !args.hooks.is_empty();
    let (selection, left_out) = match source::without_own_appends(selection, &source, chosen) {
        Ok(kept) => kept,
        Err(message) => return Ok(usage(&message)),
    };
    log_to_stderr(verbosity, &config, &selection);
    say_hooks_in_force(&config, &root, verbosity.quiet);
    if !verbosity.quiet {
        err(&safe(&left_out.concat()));
    }
    let hooks = (!args.dry_run).then(|| {
        let hooks = config.hooks_from(selection.specs.clone());
        print_problems(hooks.problems());
        let hooks = if args.stderr {
            hooks.capture_stderr(STDERR_TAIL)
        } else {
            hooks
        };
        hooks.on_background(told_late(&selection, args.json && golden.is_none()))
    });
    on_signal_backlog(
        hooks
            .as_ref()
            .map(|hooks| -> Backlog { std::sync::Arc::new(hooks.backlog()) }),
    );
    let printer = Printer::new(hooks.as_ref(), &selection, args.json).capturing(golden.is_some());
    let mut events = Events::new(source.name, source.reader, args.max_line);
    let outcome = replay(&mut events, &printer);
    if let Some(hooks) = &hooks {
        hooks.wait_background();
    }
    on_signal_backlog(None);
    if let ReplayOutcome::Cancelled { steps } = outcome {
        printer.finish(steps);
    }
    if let Some(e) = printer.out_error.lock().ok().and_then(|mut e| e.take()) {
        return Err(e);
    }
    if let Some(message) = events.bad_line {
        return Err(message);
    }
    if events.delivered == 0 {
        // An empty recording is not a run that completed: most often the
        // wrong file, or an `append` hook whose filter matched nothing.
        return Err(format!(
            "{}: no events: the input holds no event line, so there is nothing to replay",
            events.name
        ));
    }
    if args.dry_run {
        return dry_run_summary(&printer, args.json);
    }
    let cancelled_by: Vec<(usize, String)> = printer
        .cancelled_by
        .lock()
        .map(|set| set.iter().map(|(n, key)| (*n, key.clone())).collect())
        .unwrap_or_default();
    if let (Some(golden), Some(path)) = (&golden, &args.expect) {
        let lines = printer.take_captured();
        return compare(golden, path, &lines, &outcome_json(outcome, &cancelled_by));
    }
    print_outcome(outcome, &cancelled_by, args.json)
}

/// Prints a dry run's summary line (text, or JSON with `json`): how many
/// hook runs would have happened.
fn dry_run_summary(printer: &Printer<'_>, json: bool) -> CmdResult {
    let fires = printer.would_fire.lock().map_or(0, |n| *n);
    let summary = if json {
        json!({ "outcome": "dry_run", "would_fire": fires }).to_string()
    } else {
        format!("dry run: {fires} hook run(s) would fire; no hook was run and no file was written")
    };
    out(&format!("{summary}\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// `--expect`: compares the replay's `--json` lines and summary with
/// `golden`'s (read from `path`), and says whether they match on stdout.
///
/// Returns 0 when they match, 1 when they differ.
fn compare(
    golden: &expect::Compared,
    path: &std::path::Path,
    lines: &[serde_json::Value],
    summary: &serde_json::Value,
) -> CmdResult {
    let got = expect::compared(lines, summary)?;
    let name = path.display();
    match expect::first_difference(golden, &got) {
        None => {
            out(&format!(
                "matches {}: {} event(s), the same verdicts and flow\n",
                safe_line(&name.to_string()),
                lines.len()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(difference) => {
            // One line each: a key or a tag from GOLDEN cannot start a line
            // that reads as io's own.
            out(&format!(
                "differs from {} at {}:\n  expected: {}\n  got:      {}\n",
                safe_line(&name.to_string()),
                safe_line(&difference.at),
                safe_line(&difference.expected),
                safe_line(&difference.got)
            ))?;
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The replay's summary as `--json` prints it last.
fn outcome_json(outcome: ReplayOutcome, cancelled_by: &[(usize, String)]) -> serde_json::Value {
    let numbers: Vec<usize> = cancelled_by.iter().map(|(n, _)| *n).collect();
    match outcome {
        ReplayOutcome::Completed { steps } => json!({ "outcome": "completed", "steps": steps }),
        ReplayOutcome::Cancelled { steps } => {
            json!({ "outcome": "cancelled", "steps": steps, "cancelled_by": numbers })
        }
    }
}

/// Says `message` on stderr; the exit code of a command line that asks for
/// what cannot be done.
fn usage(message: &str) -> ExitCode {
    err(&safe(&format!("io: {message}\n")));
    ExitCode::from(EXIT_USAGE)
}

/// What a background hook's failure is told as, by its worker, as it
/// happens (nothing is held): a text line on stderr (`hook[2] FAILED in
/// the background on …`, the hook named by its key path) or, with
/// `--json`, an object `{"background": {…}}` on a line of its own on
/// stdout, written whole.
fn told_late(
    selection: &Selection,
    json: bool,
) -> impl Fn(io_hooks::HookRun<'_>) + Send + Sync + 'static {
    let numbers = selection.numbers().to_vec();
    move |run| {
        if !json {
            print_background(&run, "");
            return;
        }
        let number = numbers.get(run.index).copied().unwrap_or(run.number());
        let report = if interrupted(&run) {
            None
        } else {
            run.result.err().map(|failure| {
                let mut value = json!({ "background": {
                    "hook": number,
                    "key": run.origin.key(),
                    "event": run.event,
                    "seq": run.seq,
                    "ok": false,
                    "error": failure.to_string(),
                    "ms": run.elapsed.as_secs_f64() * 1000.0,
                } });
                if let Some(name) = run.origin.name() {
                    value["background"]["name"] = json!(name);
                }
                let mut line = Vec::new();
                let _ = write_safe_json(&mut line, &value);
                String::from_utf8_lossy(&line).into_owned() + "\n"
            })
        };
        if let Some(report) = report {
            // A write that fails is the printer's to report, on its own
            // line's write.
            let _ = out(&report);
        }
    }
}

/// The events of the input, read as the replay asks for them, so a bad line
/// stops the replay where it stands: no hook fires for it or after it. A
/// torn line is no one's event: it is named on stderr and skipped.
struct Events {
    /// The input's name in messages: its path, or `stdin`.
    name: String,
    reader: BufReader<Box<dyn Read>>,
    max_line: u64,
    /// The number of the last line read, from 1.
    number: u64,
    /// The line that stopped the replay, and why.
    bad_line: Option<String>,
    /// How many events were handed to the replay.
    delivered: u64,
}

impl Events {
    fn new(name: String, source: Box<dyn Read>, max_line: u64) -> Self {
        Events {
            name,
            reader: BufReader::new(source),
            max_line,
            number: 0,
            bad_line: None,
            delivered: 0,
        }
    }
}

impl Iterator for Events {
    type Item = RunEvent;

    fn next(&mut self) -> Option<RunEvent> {
        let name = &self.name;
        loop {
            self.number += 1;
            let number = self.number;
            let parsed = match input::read_line(&mut self.reader, self.max_line)? {
                Ok(line) => input::parse(line),
                Err(reason) => Parsed::Bad(None, reason),
            };
            let event = match parsed {
                Parsed::Blank => continue,
                Parsed::Event(event) => event,
                Parsed::Torn => {
                    err(&safe(&format!(
                        "io: {name}: line {number}: skipped a torn line: it ends before its JSON \
                         does ({CUT_SHORT})\n"
                    )));
                    continue;
                }
                Parsed::Glued { fragment, event } => {
                    err(&safe(&format!(
                        "io: {name}: line {number}: skipped a torn fragment ({fragment} bytes) \
                         glued before the event on this line ({CUT_SHORT})\n"
                    )));
                    event
                }
                Parsed::Bad(column, reason) => {
                    let at = column.map_or(String::new(), |c| format!(", column {c}"));
                    self.bad_line = Some(format!(
                        "{name}: line {number}{at}: {reason}; no hook fired for it or after it"
                    ));
                    return None;
                }
            };
            self.delivered += 1;
            return Some(event);
        }
    }
}

/// What a torn line most likely is, in the warning that skips it.
const CUT_SHORT: &str = "a write cut short, as by a full disk or a crash";

/// Prints the replay's outcome, as a line or a JSON object, and returns its
/// exit code. `cancelled_by` names the hooks that asked to cancel: each
/// one's place in the array in force, from 1 (for `--json`), and its key
/// path (for the line).
fn print_outcome(
    outcome: ReplayOutcome,
    cancelled_by: &[(usize, String)],
    json: bool,
) -> CmdResult {
    let names: Vec<&str> = cancelled_by.iter().map(|(_, key)| key.as_str()).collect();
    let (summary, code) = match outcome {
        ReplayOutcome::Completed { steps } => (
            format!("completed after {}", io_harness::run::steps(steps)),
            ExitCode::SUCCESS,
        ),
        ReplayOutcome::Cancelled { steps } => (
            format!(
                "cancelled after {}: a hook with on_failure = \"cancel\" failed ({})",
                io_harness::run::steps(steps),
                names.join(", ")
            ),
            ExitCode::from(EXIT_CANCELLED),
        ),
    };
    let line = if json {
        outcome_json(outcome, cancelled_by).to_string()
    } else {
        summary
    };
    out(&format!("{line}\n"))?;
    Ok(code)
}
