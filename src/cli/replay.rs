//! `io replay`: drive a recorded run through the configured hooks.

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;

use io_harness::{
    Flow, Hooks, Observer, RunEvent,
    replay::{ReplayOutcome, replay},
};
use io_hooks::text::OsMessage;
use serde_json::json;

use super::{CmdResult, EXIT_CANCELLED, load, out, report};

pub(crate) fn replay_file(
    file: &str,
    root: Option<&Path>,
    profile: Option<&str>,
    json: bool,
) -> CmdResult {
    let config = load(root, profile)?;
    let (name, input) = open(file)?;
    super::log_to_stderr();
    let hooks = config.hooks();
    let printer = Printer {
        hooks: &hooks,
        json,
        out_error: Mutex::new(None),
    };
    // Lines are read as the replay asks for them, so a bad line stops the
    // replay where it stands: no hook fires for it or after it.
    let bad_line = RefCell::new(None);
    let mut reader = BufReader::new(input);
    let events = std::iter::from_fn(|| read_line(&mut reader))
        .enumerate()
        .map_while(|(n, line)| match parse_line(line) {
            Ok(event) => Some(event),
            Err((column, e)) => {
                let at = column.map_or(String::new(), |c| format!(", column {c}"));
                *bad_line.borrow_mut() = Some(format!(
                    "{name}: line {}{at}: not a RunEvent: {e}; no hook fired for it or after it",
                    n + 1
                ));
                None
            }
        })
        .flatten();
    let outcome = replay(events, &printer);
    if let Some(e) = printer.out_error.into_inner().ok().flatten() {
        return Err(e);
    }
    if let Some(message) = bad_line.into_inner() {
        return Err(message);
    }
    print_outcome(outcome, json)
}

/// The events file by the name messages give it, or stdin for `-`.
fn open(file: &str) -> Result<(String, Box<dyn Read>), String> {
    if file == "-" {
        return Ok(("stdin".to_owned(), Box::new(std::io::stdin().lock())));
    }
    let opened = File::open(file).map_err(|e| format!("{file}: {}", OsMessage(&e)))?;
    Ok((file.to_owned(), Box::new(opened)))
}

/// Prints the replay's outcome, as a line or a JSON object, and returns its
/// exit code.
fn print_outcome(outcome: ReplayOutcome, json: bool) -> CmdResult {
    let (summary, code) = match outcome {
        ReplayOutcome::Completed { steps } => (
            format!("completed after {}", io_harness::run::steps(steps)),
            ExitCode::SUCCESS,
        ),
        ReplayOutcome::Cancelled { steps } => (
            format!(
                "cancelled after {}: a hook with on_failure = \"cancel\" failed",
                io_harness::run::steps(steps)
            ),
            ExitCode::from(EXIT_CANCELLED),
        ),
    };
    if json {
        let (outcome, steps) = match outcome {
            ReplayOutcome::Completed { steps } => ("completed", steps),
            ReplayOutcome::Cancelled { steps } => ("cancelled", steps),
        };
        out(&format!(
            "{}\n",
            json!({ "outcome": outcome, "steps": steps })
        ))?;
    } else {
        out(&format!("{summary}\n"))?;
    }
    Ok(code)
}

/// One line of the file: `None` for a blank line, or the column and reason
/// it is not a `RunEvent`.
fn parse_line(line: std::io::Result<String>) -> Result<Option<RunEvent>, (Option<usize>, String)> {
    let line = line.map_err(|e| (None, OsMessage(&e).to_string()))?;
    if line.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(&line).map(Some).map_err(|e| {
        // serde_json ends its message with its own position; ours is the
        // file's line, with its column.
        let message = e.to_string();
        let reason = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(reason, _)| reason)
            .to_owned();
        (Some(e.column()), reason)
    })
}

/// The longest line `io replay` reads: far above any event the harness
/// writes, and a bound on what one line of a hostile file can make it hold.
const MAX_LINE: usize = 16 * 1024 * 1024;

/// The next line without its newline, `None` at the end of the input, or an
/// error for a line that is longer than [`MAX_LINE`] or not UTF-8.
fn read_line(reader: &mut impl BufRead) -> Option<std::io::Result<String>> {
    let mut bytes = Vec::new();
    let read = reader
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut bytes);
    match read {
        Ok(0) => None,
        Err(e) => Some(Err(e)),
        Ok(_) if bytes.len() > MAX_LINE => Some(Err(std::io::Error::other(format!(
            "the line is longer than {} MiB",
            MAX_LINE / (1024 * 1024)
        )))),
        Ok(_) => {
            if bytes.ends_with(b"\n") {
                bytes.pop();
            }
            Some(String::from_utf8(bytes).map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::InvalidData, "the line is not UTF-8")
            }))
        }
    }
}

/// Fires each event at the hooks and prints what they did.
struct Printer<'h> {
    hooks: &'h Hooks,
    json: bool,
    /// The first failure to write stdout; printing stops there.
    out_error: Mutex<Option<String>>,
}

impl Observer for Printer<'_> {
    fn event(&self, event: &RunEvent) -> Flow {
        let mut fired = Vec::new();
        let mut text = Vec::new();
        let flow = self.hooks.fire_with(&event.kind, event, |run| {
            text.push(report(&run));
            fired.push(json!({
                "hook": run.number(),
                "ok": run.result.is_ok(),
                "error": run.result.err().map(ToString::to_string),
                "ms": run.elapsed.as_secs_f64() * 1000.0,
            }));
        });
        let seq = event.seq.map_or_else(|| "-".to_owned(), |s| s.to_string());
        let line = if self.json {
            json!({
                "seq": event.seq,
                "event": event.tag(),
                "run_id": event.run_id,
                "depth": event.depth,
                "hooks": fired,
                "flow": if flow == Flow::Cancel { "cancel" } else { "continue" },
            })
            .to_string()
        } else {
            let hooks = if text.is_empty() {
                "-".to_owned()
            } else {
                text.join(", ")
            };
            let cancel = if flow == Flow::Cancel {
                "  -> cancel at the next step boundary"
            } else {
                ""
            };
            format!(
                "{seq:>5}  {:18} {}{}  {hooks}{cancel}",
                event.tag(),
                "  ".repeat(event.depth as usize),
                event.run_id
            )
        };
        let mut error = self
            .out_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if error.is_none()
            && let Err(e) = out(&format!("{line}\n"))
        {
            *error = Some(e);
        }
        flow
    }
}
