//! `io replay`: drive a recorded run through the configured hooks, or, with
//! `--dry-run`, say which hooks each event would fire.

mod input;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use io_harness::OsMessage;
use io_harness::{
    EventKind, Flow, Hooks, Observer, OnFailure, Outcome, RunEvent,
    replay::{ReplayOutcome, replay},
    run::now_rfc3339,
};
use serde::Serialize;
use serde_json::json;

use input::Parsed;
pub(crate) use input::{DEFAULT_MAX_LINE, MAX_LINE};

use super::{
    CmdResult, EXIT_CANCELLED, EXIT_USAGE, Selection, Verbosity, load, out, report, safe,
    stderr_tail, write_safe_json, write_safe_line,
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
    /// `--max-line`: the longest line read, newline excluded.
    pub(crate) max_line: u64,
    pub(crate) verbosity: Verbosity,
}

pub(crate) fn replay_file(args: &Args<'_>) -> CmdResult {
    let config = load(args.root, args.profile)?;
    let selection = match Selection::new(config.hook_specs(), args.hooks) {
        Ok(selection) => selection,
        Err(message) => {
            super::err(&safe(&format!("io: {message}\n")));
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let (name, source) = open(args.file)?;
    super::log_to_stderr(args.verbosity, &config, &selection);
    super::say_hooks_in_force(&config, args.verbosity);
    // A background hook's failures, told on its worker's thread: printed
    // once the replay's last event has reached every hook.
    let late = Arc::new(Mutex::new(Vec::new()));
    let hooks = (!args.dry_run).then(|| {
        let hooks = config.hooks_from(selection.specs.clone());
        super::print_problems(&hooks);
        let hooks = if args.stderr {
            hooks.capture_stderr(super::STDERR_TAIL)
        } else {
            hooks
        };
        hooks.on_background(told_late(Arc::clone(&late), &selection, args.json))
    });
    let printer = Printer::new(hooks.as_ref(), &selection, args.json);
    let mut events = Events::new(name, source, args.max_line);
    let outcome = replay(&mut events, &printer);
    if let Some(hooks) = &hooks {
        hooks.wait_background();
    }
    let late = late
        .lock()
        .map(|mut l| std::mem::take(&mut *l))
        .unwrap_or_default();
    out(&late.concat())?;
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
        let fires = printer.would_fire.lock().map_or(0, |n| *n);
        let summary = if args.json {
            json!({ "outcome": "dry_run", "would_fire": fires }).to_string()
        } else {
            format!(
                "dry run: {fires} hook run(s) would fire; no hook was run and no file was written"
            )
        };
        out(&format!("{summary}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let cancelled_by: Vec<(usize, String)> = printer
        .cancelled_by
        .lock()
        .map(|set| set.iter().map(|(n, key)| (*n, key.clone())).collect())
        .unwrap_or_default();
    print_outcome(outcome, &cancelled_by, args.json)
}

/// What a background hook's failure is told as, pushed on `late`: a text
/// line (`hook[2] FAILED in the background on …`, the hook named by its key
/// path) or, with `--json`, an
/// object `{"background": {…}}` on a line of its own.
fn told_late(
    late: Arc<Mutex<Vec<String>>>,
    selection: &Selection,
    json: bool,
) -> impl Fn(io_hooks::BackgroundRun<'_>) + Send + Sync + 'static {
    let numbers = selection.numbers.clone();
    move |run| {
        let number = numbers.get(run.index).copied().unwrap_or(run.number());
        let report = if json {
            run.result.err().map(|failure| {
                let value = json!({ "background": {
                    "hook": number,
                    "key": run.origin.key(),
                    "event": run.event,
                    "seq": run.seq,
                    "ok": false,
                    "error": failure.to_string(),
                    "ms": run.elapsed.as_secs_f64() * 1000.0,
                } });
                let mut line = Vec::new();
                let _ = write_safe_json(&mut line, &value);
                String::from_utf8_lossy(&line).into_owned() + "\n"
            })
        } else {
            super::background_report(&run, "").map(|text| safe(&text))
        };
        if let (Some(report), Ok(mut late)) = (report, late.lock()) {
            late.push(report);
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
                    super::err(&safe(&format!(
                        "io: {name}: line {number}: skipped a torn line: it ends before its JSON \
                         does ({CUT_SHORT})\n"
                    )));
                    continue;
                }
                Parsed::Glued { fragment, event } => {
                    super::err(&safe(&format!(
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

/// The events file by the name messages give it, or stdin for `-`.
fn open(file: &str) -> Result<(String, Box<dyn Read>), String> {
    if file == "-" {
        return Ok(("stdin".to_owned(), Box::new(std::io::stdin().lock())));
    }
    #[allow(
        clippy::disallowed_methods,
        reason = "the operator's own path from the command line, opened as their shell would \
                  (a FIFO such as `<(…)` included); it names no file beneath a root"
    )]
    let opened = File::open(file).map_err(|e| format!("{file}: {}", OsMessage(&e)))?;
    if opened.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(format!(
            "{file}: is a directory; `io replay` reads a file of event lines (or `-` for stdin)"
        ));
    }
    Ok((file.to_owned(), Box::new(opened)))
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
    let numbers: Vec<usize> = cancelled_by.iter().map(|(n, _)| *n).collect();
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
        match outcome {
            ReplayOutcome::Completed { steps } => json!({ "outcome": "completed", "steps": steps }),
            ReplayOutcome::Cancelled { steps } => {
                json!({ "outcome": "cancelled", "steps": steps, "cancelled_by": numbers })
            }
        }
        .to_string()
    } else {
        summary
    };
    out(&format!("{line}\n"))?;
    Ok(code)
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
    /// The hooks that failed with `on_failure = "cancel"`: each one's place
    /// in the array in force, from 1, and its key path.
    cancelled_by: Mutex<BTreeMap<usize, String>>,
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

impl<'h> Printer<'h> {
    fn new(hooks: Option<&'h Hooks>, selection: &'h Selection, json: bool) -> Self {
        Printer {
            hooks,
            selection,
            json,
            out_error: Mutex::new(None),
            root_run: Mutex::new(None),
            cancelled_by: Mutex::new(BTreeMap::new()),
            would_fire: Mutex::new(0),
        }
    }

    /// A run delivers `finished` at the boundary it stops at; so does the
    /// replay that ends `cancelled` after `steps`, marked as made up here
    /// rather than read.
    fn finish(&self, steps: u32) {
        let root_run = self.root_run.lock().ok().and_then(|mut r| r.take());
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
        let _ = self.print(&finished, true);
    }

    /// Fires `event` (unless this is a dry run) and prints its line, then
    /// any failed hook's stderr under it. `synthesized`: the event was not
    /// in the file.
    fn print(&self, event: &RunEvent, synthesized: bool) -> Flow {
        let (flow, fired) = match self.hooks {
            Some(hooks) => self.fire(hooks, event),
            None => (Flow::Continue, self.would(event)),
        };
        let mut error = self
            .out_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if error.is_none() {
            let mut stdout = std::io::stdout().lock();
            let written = if self.json {
                write_json(&mut stdout, event, &fired.json, flow, synthesized)
            } else {
                write_text(&mut stdout, event, &fired, flow, synthesized)
            };
            match written {
                // A closed pipe (`io replay … | head`) is not an error.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    *error = Some(format!("could not write to stdout: {}", OsMessage(&e)));
                }
                _ => {}
            }
        }
        flow
    }

    /// Fires `event` at `hooks`, noting each hook that failed with
    /// `on_failure = "cancel"`, and says what each did.
    fn fire(&self, hooks: &Hooks, event: &RunEvent) -> (Flow, Fired) {
        let mut fired = Fired::default();
        let flow = hooks.fire_with(&event.kind, event, |run| {
            let number = self.selection.number(run.index);
            fired.text.push(report(&run));
            if run.result.is_err()
                && hooks.specs()[run.index].on_failure == OnFailure::Cancel
                && let Ok(mut set) = self.cancelled_by.lock()
            {
                set.insert(number, run.origin.key().to_owned());
            }
            if let Some(tail) = run.stderr {
                fired
                    .tails
                    .push_str(&stderr_tail(run.origin.key(), tail, "       "));
            }
            let mut report = json!({
                "hook": number,
                "key": run.origin.key(),
                "ok": run.result.is_ok(),
                "error": run.result.err().map(ToString::to_string),
                "ms": run.elapsed.as_secs_f64() * 1000.0,
            });
            if run.background {
                report["queued"] = json!(true);
            }
            // Only with --stderr: the objects are otherwise unchanged.
            if let Some(tail) = run.stderr {
                report["stderr"] = json!(String::from_utf8_lossy(tail));
            }
            fired.json.push(report);
        });
        (flow, fired)
    }

    /// A dry run: the hooks that would fire on `event`, counted.
    fn would(&self, event: &RunEvent) -> Fired {
        let mut fired = Fired::default();
        for (index, background) in self.selection.would_fire(&event.kind) {
            let (number, key) = (self.selection.number(index), self.selection.key(index));
            if background {
                fired
                    .text
                    .push(format!("{key} would fire in the background"));
                fired
                    .json
                    .push(json!({ "hook": number, "key": key, "background": true }));
            } else {
                fired.text.push(format!("{key} would fire"));
                fired.json.push(json!({ "hook": number, "key": key }));
            }
        }
        if let Ok(mut n) = self.would_fire.lock() {
            *n += fired.json.len();
        }
        for (index, field) in self.selection.turned_away(&event.kind) {
            let (number, key) = (self.selection.number(index), self.selection.key(index));
            fired
                .text
                .push(format!("{key} turned away by `where.{field}`"));
            fired.json.push(
                json!({ "hook": number, "key": key, "turned_away": format!("where.{field}") }),
            );
        }
        fired
    }
}

/// What the hooks did with one event, as its text line and its `--json`
/// line say it.
#[derive(Default)]
struct Fired {
    /// Per hook, what its text line says (`hook[2] ok 3ms`).
    text: Vec<String>,
    /// Per hook, its object in the `--json` line.
    json: Vec<serde_json::Value>,
    /// The failed hooks' stderr, under the text line (`--stderr`).
    tails: String,
}

/// One event's line of `--json`, written as it is serialised: the event's
/// strings are borrowed, never copied.
#[derive(Serialize)]
struct JsonLine<'a> {
    seq: Option<u64>,
    event: &'static str,
    run_id: &'a str,
    depth: u32,
    hooks: &'a [serde_json::Value],
    flow: &'static str,
    /// Only on the `finished` a replay makes up.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    synthesized: bool,
}

/// Writes `event`'s `--json` line; `fired` reports its hooks.
fn write_json(
    out: &mut impl Write,
    event: &RunEvent,
    fired: &[serde_json::Value],
    flow: Flow,
    synthesized: bool,
) -> std::io::Result<()> {
    let line = JsonLine {
        seq: event.seq,
        event: event.tag(),
        run_id: &event.run_id,
        depth: event.depth,
        hooks: fired,
        flow: if flow == Flow::Cancel {
            "cancel"
        } else {
            "continue"
        },
        synthesized,
    };
    write_safe_json(&mut *out, &line)?;
    out.write_all(b"\n")
}

/// Writes `event`'s text line, escaped while it is written (a run id of a
/// hostile recording can be as long as `--max-line`, and its escaped text
/// four times that), then the failed hooks' stderr; `fired` reports its
/// hooks.
fn write_text(
    out: &mut impl Write,
    event: &RunEvent,
    fired: &Fired,
    flow: Flow,
    synthesized: bool,
) -> std::io::Result<()> {
    let seq = event.seq.map_or_else(|| "-".to_owned(), |s| s.to_string());
    let hooks = if fired.text.is_empty() {
        "-".to_owned()
    } else {
        fired.text.join(", ")
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
    write!(out, "{seq:>5}  {:18} {}", event.tag(), indent(event.depth))?;
    write_safe_line(out, &event.run_id)?;
    writeln!(out, "  {}{cancel}{made_up}", safe(&hooks))?;
    out.write_all(fired.tails.as_bytes())
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
}
