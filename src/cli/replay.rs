//! `io replay`: drive a recorded run through the configured hooks, or, with
//! `--dry-run`, say which hooks each event would fire.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;

use io_harness::{
    EventKind, Flow, Hooks, Observer, OnFailure, Outcome, RunEvent,
    replay::{ReplayOutcome, replay},
    run::now_rfc3339,
};
use io_hooks::text::OsMessage;
use serde_json::json;

use super::{
    CmdResult, EXIT_CANCELLED, EXIT_USAGE, Selection, Verbosity, load, out, report, safe,
    stderr_tail,
};

/// What `io replay` was asked to do.
pub(crate) struct Args<'a> {
    pub(crate) file: &'a str,
    pub(crate) root: Option<&'a Path>,
    pub(crate) profile: Option<&'a str>,
    pub(crate) json: bool,
    pub(crate) dry_run: bool,
    /// `--hook N`, numbered as `hook[N]`; empty for every hook.
    pub(crate) hooks: &'a [usize],
    pub(crate) stderr: bool,
    pub(crate) verbosity: Verbosity,
}

pub(crate) fn replay_file(args: &Args<'_>) -> CmdResult {
    let config = load(args.root, args.profile)?;
    let selection = match Selection::new(config.hook_specs(), args.hooks) {
        Ok(selection) => selection,
        Err(message) => {
            super::err(&format!("io: {message}\n"));
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let (name, input) = open(args.file)?;
    super::log_to_stderr(args.verbosity, &config, &selection);
    let hooks = if args.dry_run {
        None
    } else {
        let hooks = config.hooks_from(selection.specs.clone());
        super::print_problems(&hooks, &selection);
        Some(if args.stderr {
            hooks.capture_stderr(super::STDERR_TAIL)
        } else {
            hooks
        })
    };
    let printer = Printer {
        hooks: hooks.as_ref(),
        selection: &selection,
        json: args.json,
        out_error: Mutex::new(None),
        root_run: Mutex::new(None),
        cancelled_by: Mutex::new(BTreeSet::new()),
        would_fire: Mutex::new(0),
    };
    // Lines are read as the replay asks for them, so a bad line stops the
    // replay where it stands: no hook fires for it or after it.
    let bad_line = RefCell::new(None);
    let mut reader = BufReader::new(input);
    let events = std::iter::from_fn(|| read_line(&mut reader, MAX_LINE))
        .enumerate()
        .map_while(|(n, line)| match parse_line(line) {
            Ok(event) => Some(event),
            Err((column, e)) => {
                let at = column.map_or(String::new(), |c| format!(", column {c}"));
                *bad_line.borrow_mut() = Some(format!(
                    "{name}: line {}{at}: {e}; no hook fired for it or after it",
                    n + 1
                ));
                None
            }
        })
        .flatten();
    let outcome = replay(events, &printer);
    if let ReplayOutcome::Cancelled { steps } = outcome {
        // A run delivers `finished` at the boundary it stops at; so does
        // the replay, marked as made up here rather than read.
        let root_run = printer.root_run.lock().ok().and_then(|mut r| r.take());
        let finished = RunEvent {
            kind: EventKind::Finished {
                outcome: Outcome::Cancelled,
                steps,
                resumed: false,
            },
            run_id: root_run.unwrap_or_else(|| "replay".to_owned()),
            depth: 0,
            seq: None,
            at: Some(now_rfc3339()),
        };
        // The run is ending already: what its hooks answer changes nothing.
        let _ = printer.print(&finished, true);
    }
    if let Some(e) = printer.out_error.lock().ok().and_then(|mut e| e.take()) {
        return Err(e);
    }
    if let Some(message) = bad_line.into_inner() {
        return Err(message);
    }
    if args.dry_run {
        let fires = printer.would_fire.lock().map_or(0, |n| *n);
        out(&format!(
            "dry run: {fires} hook run(s) would fire; no hook was run and no file was written\n"
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let cancelled_by: Vec<usize> = printer
        .cancelled_by
        .lock()
        .map(|set| set.iter().copied().collect())
        .unwrap_or_default();
    print_outcome(outcome, &cancelled_by, args.json)
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
/// exit code. `cancelled_by` names the hooks that asked to cancel.
fn print_outcome(outcome: ReplayOutcome, cancelled_by: &[usize], json: bool) -> CmdResult {
    let names: Vec<String> = cancelled_by.iter().map(|n| format!("hook[{n}]")).collect();
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
    if json {
        let summary = match outcome {
            ReplayOutcome::Completed { steps } => json!({ "outcome": "completed", "steps": steps }),
            ReplayOutcome::Cancelled { steps } => {
                json!({ "outcome": "cancelled", "steps": steps, "cancelled_by": cancelled_by })
            }
        };
        out(&format!("{summary}\n"))?;
    } else {
        out(&format!("{summary}\n"))?;
    }
    Ok(code)
}

/// One line of the file: `None` for a blank line, or the column and reason
/// it is not a `RunEvent`.
///
/// The reason never quotes the line: serde's messages can hold a value from
/// it (`invalid type: string "…"`), and a recording can hold secrets.
fn parse_line(line: std::io::Result<Line>) -> Result<Option<RunEvent>, (Option<usize>, String)> {
    let line = line.map_err(|e| (None, format!("not a RunEvent: {}", OsMessage(&e))))?;
    if line.text.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(&line.text).map(Some).map_err(|e| {
        // A final line without its newline, or one whose JSON stops short,
        // is a write that was cut off, not a malformed event.
        if !line.complete || e.is_eof() {
            return (
                Some(e.column()),
                "torn: the line ends before its JSON does (a write cut short, as by a full \
                 disk or a crash)"
                    .to_owned(),
            );
        }
        // serde_json ends its message with its own position; ours is the
        // file's line, with its column.
        let message = e.to_string();
        let reason = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(reason, _)| reason);
        let reason = if e.is_data() {
            without_values(reason)
        } else {
            reason.to_owned()
        };
        (Some(e.column()), format!("not a RunEvent: {reason}"))
    })
}

/// serde's description of a value of the wrong shape, without the value:
/// `invalid type: string "s3cret", expected u64` becomes `invalid type:
/// string, expected u64`; `unknown variant `x`, expected one of …` becomes
/// `unknown variant, expected one of …`. What follows the last `, expected `
/// is the event type's own description, so it is kept; a field serde says
/// is missing or repeated is one of the type's own names, so it is kept too.
fn without_values(reason: &str) -> String {
    if reason.starts_with("missing field `") || reason.starts_with("duplicate field `") {
        return reason.to_owned();
    }
    let Some(quote) = reason.find(['`', '"', '\'']) else {
        return reason.to_owned();
    };
    let head = reason[..quote].trim_end();
    // serde's shapes end either `, expected WHAT` or (for a type with no
    // fields or variants) `, there are no …`, which is all the tail can be.
    if reason.ends_with(", there are no fields") || reason.ends_with(", there are no variants") {
        return head.to_owned();
    }
    match reason.rfind(", expected ") {
        Some(expected) if expected > quote => format!("{head}{}", &reason[expected..]),
        _ => head.to_owned(),
    }
}

/// The longest line `io replay` reads, newline excluded: the most one
/// `write(2)` puts down on Linux (2 GiB less 4 KiB, newline included), which
/// is the longest line an `append` hook can write whole (it writes each
/// line with one `write`, and a shorter write is a failed append). So every
/// line an `append` hook wrote replays, and one line of a hostile file can
/// make `io replay` hold no more than this.
const MAX_LINE: usize = 0x7fff_f000 - 1;

/// One line of the input, without its newline.
struct Line {
    text: String,
    /// Whether it ended with a newline (only the last line may not).
    complete: bool,
}

/// The next line, `None` at the end of the input, or an error for a line
/// that is longer than `max` bytes (its newline not counted) or not UTF-8.
/// At most `max + 1` bytes of a line are held.
fn read_line(reader: &mut impl BufRead, max: usize) -> Option<std::io::Result<Line>> {
    let mut bytes = Vec::new();
    let read = reader
        .by_ref()
        .take(max as u64 + 1)
        .read_until(b'\n', &mut bytes);
    match read {
        Ok(0) => None,
        Err(e) => Some(Err(e)),
        Ok(_) => {
            let complete = bytes.ends_with(b"\n");
            if complete {
                bytes.pop();
            }
            if bytes.len() > max {
                return Some(Err(std::io::Error::other(format!(
                    "the line is longer than {max} bytes, the most `io replay` reads (the longest \
                     line an `append` hook can write)"
                ))));
            }
            Some(
                String::from_utf8(bytes)
                    .map(|text| Line { text, complete })
                    .map_err(|_| {
                        std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            "the line is not UTF-8",
                        )
                    }),
            )
        }
    }
}

/// Fires each event at the hooks and prints what they did; with no hooks
/// (a dry run), prints which would fire.
struct Printer<'h> {
    hooks: Option<&'h Hooks>,
    selection: &'h Selection,
    json: bool,
    /// The first failure to write stdout; printing stops there.
    out_error: Mutex<Option<String>>,
    /// The top-level run's id, from its first event.
    root_run: Mutex<Option<String>>,
    /// The hooks (as `hook[N]` numbers them) that failed with
    /// `on_failure = "cancel"`.
    cancelled_by: Mutex<BTreeSet<usize>>,
    /// Dry run: how many hook runs would have happened.
    would_fire: Mutex<usize>,
}

impl Observer for Printer<'_> {
    fn event(&self, event: &RunEvent) -> Flow {
        if event.depth == 0
            && let Ok(mut root) = self.root_run.lock()
            && root.is_none()
        {
            *root = Some(event.run_id.clone());
        }
        self.print(event, false)
    }
}

impl Printer<'_> {
    /// Fires `event` (unless this is a dry run) and prints its line, then
    /// any failed hook's stderr under it. `synthesized`: the event was not
    /// in the file.
    fn print(&self, event: &RunEvent, synthesized: bool) -> Flow {
        let mut fired = Vec::new();
        let mut text = Vec::new();
        let mut tails = String::new();
        let flow = match self.hooks {
            Some(hooks) => hooks.fire_with(&event.kind, event, |run| {
                let number = self.selection.number(run.index);
                text.push(report(&run, number));
                if run.result.is_err()
                    && hooks.specs()[run.index].on_failure == OnFailure::Cancel
                    && let Ok(mut set) = self.cancelled_by.lock()
                {
                    set.insert(number);
                }
                if let Some(tail) = run.stderr {
                    tails.push_str(&stderr_tail(number, tail, "       "));
                }
                let mut report = json!({
                    "hook": number,
                    "ok": run.result.is_ok(),
                    "error": run.result.err().map(ToString::to_string),
                    "ms": run.elapsed.as_secs_f64() * 1000.0,
                });
                // Only with --stderr: the objects are otherwise unchanged.
                if let Some(tail) = run.stderr {
                    report["stderr"] = json!(String::from_utf8_lossy(tail));
                }
                fired.push(report);
            }),
            None => {
                for number in self.selection.would_fire(&event.kind) {
                    text.push(format!("hook[{number}] would fire"));
                    fired.push(json!({ "hook": number }));
                }
                if let Ok(mut n) = self.would_fire.lock() {
                    *n += fired.len();
                }
                Flow::Continue
            }
        };
        let seq = event.seq.map_or_else(|| "-".to_owned(), |s| s.to_string());
        let line = if self.json {
            let mut line = json!({
                "seq": event.seq,
                "event": event.tag(),
                "run_id": event.run_id,
                "depth": event.depth,
                "hooks": fired,
                "flow": if flow == Flow::Cancel { "cancel" } else { "continue" },
            });
            if synthesized {
                line["synthesized"] = json!(true);
            }
            super::safe_json(&line.to_string())
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
            let made_up = if synthesized {
                "  (synthesized: the replay stopped here, as a run does)"
            } else {
                ""
            };
            safe(&format!(
                "{seq:>5}  {:18} {}{}  {hooks}{cancel}{made_up}",
                event.tag(),
                indent(event.depth),
                event.run_id
            ))
        };
        let mut error = self
            .out_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let tails = if self.json { String::new() } else { tails };
        if error.is_none()
            && let Err(e) = out(&format!("{line}\n{tails}"))
        {
            *error = Some(e);
        }
        flow
    }
}

/// The deepest nesting the text output shows as indentation.
const MAX_INDENT: u32 = 16;

/// Two spaces per level of `depth`, up to [`MAX_INDENT`] levels, then `…+N `
/// for the levels not shown: a recording's `depth` is whatever the file says
/// (`4294967295` was 8 GiB of spaces per line).
fn indent(depth: u32) -> String {
    let shown = "  ".repeat(depth.min(MAX_INDENT) as usize);
    match depth.checked_sub(MAX_INDENT) {
        Some(more) if more > 0 => format!("{shown}…+{more} "),
        _ => shown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Result<(String, bool), String>> {
        let mut reader = input;
        std::iter::from_fn(|| read_line(&mut reader, max))
            .map(|l| l.map(|l| (l.text, l.complete)).map_err(|e| e.to_string()))
            .collect()
    }

    #[test]
    fn a_line_of_exactly_the_cap_is_read_and_one_byte_more_is_refused() {
        let ok = |s: &str, complete| Ok((s.to_owned(), complete));
        assert_eq!(lines(b"abcd\nxy\n", 4), [ok("abcd", true), ok("xy", true)]);
        assert_eq!(lines(b"abcd", 4), [ok("abcd", false)]);
        let too_long = lines(b"abcde\n", 4);
        assert!(
            matches!(&too_long[0], Err(e) if e.starts_with("the line is longer than 4 bytes")),
            "{too_long:?}"
        );
        assert!(lines(b"abcde", 4)[0].is_err());
    }

    #[test]
    fn the_line_cap_is_the_longest_line_one_write_can_append() {
        // Linux's MAX_RW_COUNT: INT_MAX rounded down to a page.
        assert_eq!(MAX_LINE + 1, (i32::MAX as usize) & !4095);
    }

    #[test]
    fn indentation_stops_at_16_levels_and_counts_the_rest() {
        assert_eq!(indent(0), "");
        assert_eq!(indent(2), "    ");
        assert_eq!(indent(16), "  ".repeat(16));
        assert_eq!(indent(17), format!("{}…+1 ", "  ".repeat(16)));
        assert_eq!(
            indent(u32::MAX),
            format!("{}…+4294967279 ", "  ".repeat(16))
        );
    }

    #[test]
    fn type_errors_lose_the_value_but_keep_what_was_expected() {
        for (serde, ours) in [
            (
                "invalid type: string \"s3cret, expected x\", expected u64",
                "invalid type: string, expected u64",
            ),
            (
                "unknown variant `s3cret`, expected one of `started`, `step`",
                "unknown variant, expected one of `started`, `step`",
            ),
            (
                "invalid value: integer `7`, expected a u8",
                "invalid value: integer, expected a u8",
            ),
            (
                "unknown field `s3cret`, there are no fields",
                "unknown field",
            ),
            ("missing field `run_id`", "missing field `run_id`"),
            ("expected value", "expected value"),
        ] {
            assert_eq!(without_values(serde), ours);
        }
    }
}
