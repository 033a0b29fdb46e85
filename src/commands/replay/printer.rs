//! What `io replay` prints for each event: the event's line, then what
//! each hook did with it, or, in a dry run, which hooks would fire; as text
//! or as one JSON object a line.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Mutex;

use io_harness::{EventKind, Flow, Hooks, Observer, Outcome, RunEvent, run::now_rfc3339};
use io_hooks::text::os_error;
use serde::Serialize;
use serde_json::json;

use crate::cli::hook_report::{report, stderr_tail};
use crate::cli::output::{safe, write_safe_json, write_safe_line};
use crate::cli::selection::Selection;

/// Fires each event at the hooks and prints what they did; with no hooks
/// (a dry run), prints which would fire.
pub(super) struct Printer<'h> {
    hooks: Option<&'h Hooks>,
    selection: &'h Selection,
    json: bool,
    /// The first failure to write stdout; printing stops there.
    pub(super) out_error: Mutex<Option<String>>,
    /// The top-level run's id, from its first event.
    root_run: Mutex<Option<String>>,
    /// The hooks that failed with `on_failure = "cancel"`: each one's place
    /// in the array in force, from 1, and its key path.
    pub(super) cancelled_by: Mutex<BTreeMap<usize, String>>,
    /// Dry run: how many hook runs would have happened.
    pub(super) would_fire: Mutex<usize>,
    /// With `--expect`: each event's `--json` line, kept rather than
    /// printed, for the comparison.
    pub(super) captured: Option<Mutex<Vec<serde_json::Value>>>,
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
    /// Returns a printer that fires each event at `hooks` (none: a dry
    /// run), names them as `selection` does, and prints text or, with
    /// `json`, JSON lines.
    pub(super) fn new(hooks: Option<&'h Hooks>, selection: &'h Selection, json: bool) -> Self {
        Printer {
            hooks,
            selection,
            json,
            out_error: Mutex::new(None),
            root_run: Mutex::new(None),
            cancelled_by: Mutex::new(BTreeMap::new()),
            would_fire: Mutex::new(0),
            captured: None,
        }
    }

    /// Returns this printer keeping, when `capture` (`--expect`), each
    /// event's `--json` line instead of printing it.
    pub(super) fn capturing(mut self, capture: bool) -> Self {
        if capture {
            self.json = true;
            self.captured = Some(Mutex::new(Vec::new()));
        }
        self
    }

    /// Returns the `--json` lines kept for `--expect`, leaving none.
    pub(super) fn take_captured(&self) -> Vec<serde_json::Value> {
        self.captured
            .as_ref()
            .and_then(|c| c.lock().ok().map(|mut l| std::mem::take(&mut *l)))
            .unwrap_or_default()
    }

    /// A run delivers `finished` at the boundary it stops at; so does the
    /// replay that ends `cancelled` after `steps`, marked as made up here
    /// rather than read.
    pub(super) fn finish(&self, steps: u32) {
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
        if let Some(captured) = &self.captured {
            let line = json_line(event, &fired.json, flow, synthesized);
            if let (Ok(value), Ok(mut lines)) = (serde_json::to_value(&line), captured.lock()) {
                lines.push(value);
            }
            return flow;
        }
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
                    *error = Some(format!("could not write to stdout: {}", os_error(&e)));
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
        let flow = hooks.fire_with(event, event, |run| {
            let number = self.selection.number(run.index);
            if run.result.is_err()
                && hooks
                    .spec(run.index)
                    .is_some_and(|spec| spec.on_failure == Flow::Cancel)
                && let Ok(mut set) = self.cancelled_by.lock()
            {
                set.insert(number, run.origin.label());
            }
            if !self.json {
                fired.text.push(report(&run));
                if let Some(tail) = run.stderr {
                    fired
                        .tails
                        .push_str(&stderr_tail(&run.origin.label(), tail, "       "));
                }
                return;
            }
            let mut report = json!({
                "hook": number,
                "key": run.origin.key(),
                "ok": run.result.is_ok(),
                "error": run.result.err().map(ToString::to_string),
                "ms": run.elapsed.as_secs_f64() * 1000.0,
            });
            if let Some(name) = run.origin.name() {
                report["name"] = json!(name);
            }
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
        let would = self.selection.would_fire(event);
        if let Ok(mut n) = self.would_fire.lock() {
            *n += would.len();
        }
        for (index, background) in would {
            let (number, key) = (self.selection.number(index), self.selection.key(index));
            let label = self.selection.label(index);
            match (self.json, background) {
                (false, true) => fired
                    .text
                    .push(format!("{label} would fire in the background")),
                (false, false) => fired.text.push(format!("{label} would fire")),
                (true, true) => fired
                    .json
                    .push(json!({ "hook": number, "key": key, "background": true })),
                (true, false) => fired.json.push(json!({ "hook": number, "key": key })),
            }
        }
        for (index, field) in self.selection.turned_away(event) {
            let (number, key) = (self.selection.number(index), self.selection.key(index));
            let label = self.selection.label(index);
            if self.json {
                fired.json.push(
                    json!({ "hook": number, "key": key, "turned_away": format!("where.{field}") }),
                );
            } else {
                fired
                    .text
                    .push(format!("{label} turned away by `where.{field}`"));
            }
        }
        fired
    }
}

/// What the hooks did with one event, as its text line or, with `--json`,
/// its JSON line says it: only the form the replay prints is made.
#[derive(Default)]
struct Fired {
    /// Per hook, what its text line says (`hook[2] ok 3ms`); empty with
    /// `--json`.
    text: Vec<String>,
    /// Per hook, its object in the `--json` line; empty without it.
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
    write_safe_json(&mut *out, &json_line(event, fired, flow, synthesized))?;
    out.write_all(b"\n")
}

/// `event`'s `--json` line; `fired` reports its hooks.
fn json_line<'a>(
    event: &'a RunEvent,
    fired: &'a [serde_json::Value],
    flow: Flow,
    synthesized: bool,
) -> JsonLine<'a> {
    JsonLine {
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
    }
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
