//! What `io replay` makes of its input, through `io`: the end of the input
//! ends the run as `io run` ends one (issue 21 item 3), input errors in the
//! operator's words (issue 21 item 9), a torn line skipped rather than
//! stopping every event after it, and memory bounded by the line (issue 22).
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use common::io_env::no_hooks_line;
use common::{IoEnv, output_within, wait_until};

/// `io replay FILE args…` in `env`, under a watchdog.
fn replay(env: &IoEnv, file: &Path, args: &[&str]) -> Output {
    let file = file.to_str().expect("a UTF-8 path");
    env.io(&[&["replay", file][..], args].concat())
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const TOOL_CALL: &str = "{\"event\":\"tool_call\",\"step\":1,\"tool\":\"exec\",\"args\":{},\"run_id\":\"r\",\"depth\":0}\n";
const STEP: &str =
    "{\"event\":\"step\",\"step\":1,\"moved_the_workspace\":true,\"run_id\":\"r\",\"depth\":0}\n";

/// A policy hook that fails on `tool_call` and cancels, and an audit log of
/// every event it is given.
const CANCEL_ON_TOOL_CALL: &str = "[[hook]]\non = [\"tool_call\"]\nrun = [\"false\"]\non_failure = \"cancel\"\n\n[[hook]]\nappend = \"seen.jsonl\"\n";

#[test]
fn a_cancel_pending_when_the_input_ends_ends_the_replay_cancelled_with_exit_3() {
    // The file io run's last step would leave: a tool_call a policy hook
    // refuses, and no step after it. It printed `completed after 0 steps`,
    // exit 0, where `io run` ends such a run cancelled.
    let env = IoEnv::new();
    env.write("io.local.toml", CANCEL_ON_TOOL_CALL);
    let file = env.write("events.jsonl", TOOL_CALL);
    let out = replay(&env, &file, &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].ends_with("-> cancel at the next step boundary"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("    -  finished           r  ")
            && lines[1].ends_with("(synthesized: the replay stopped here, as a run does)"),
        "{text}"
    );
    assert_eq!(
        lines[2],
        "cancelled after 0 steps: a hook with on_failure = \"cancel\" failed (hook[1])"
    );
    // The hooks were given the `finished` a run would have delivered.
    let seen = std::fs::read_to_string(env.root().join("seen.jsonl")).expect("seen");
    let last: serde_json::Value =
        serde_json::from_str(seen.lines().last().expect("a line")).expect("json");
    assert_eq!(last["event"], "finished");
    assert_eq!(last["outcome"], "cancelled");
    assert_eq!(last["steps"], 0);
    assert_eq!(last["run_id"], "r");

    // With --json, the same verdict, and each line's `flow`: the refused
    // call asks for the cancel, the made-up `finished` does not.
    let out = replay(&env, &file, &["--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 3, "{}", stdout(&out));
    assert_eq!(lines[0]["event"], "tool_call");
    assert_eq!(lines[0]["flow"], "cancel");
    assert_eq!(lines[1]["event"], "finished");
    assert_eq!(lines[1]["synthesized"], true);
    assert_eq!(lines[1]["flow"], "continue");
    assert_eq!(
        lines[2],
        serde_json::json!({"outcome": "cancelled", "steps": 0, "cancelled_by": [1]})
    );

    // A cancel followed by the step that ends it is unchanged: one step.
    let file = env.write("two.jsonl", &format!("{TOOL_CALL}{STEP}"));
    let out = replay(&env, &file, &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with(
            "cancelled after 1 step: a hook with on_failure = \"cancel\" failed (hook[1])\n"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_line_that_is_not_an_event_is_described_in_the_operators_words() {
    let env = IoEnv::new();
    let secret = "sk-live-0123456789abcdef";
    for (line, reason) in [
        // Every missing field at once, not one at a time.
        (
            "{\"event\":\"step\"}".to_owned(),
            "line 2: not an event: missing fields `step`, `moved_the_workspace`, `run_id`, `depth`",
        ),
        (
            "{}".to_owned(),
            "line 2: not an event: missing fields `event`, `run_id`, `depth`",
        ),
        (
            "{\"event\":\"step\",\"step\":1,\"moved_the_workspace\":1,\"depth\":0}".to_owned(),
            "line 2: not an event: missing field `run_id`; field `moved_the_workspace` is a \
             number (accepted: boolean)",
        ),
        // Which field has the wrong type, and what it accepts.
        (
            format!(
                "{{\"event\":\"step\",\"step\":\"{secret}\",\"moved_the_workspace\":true,\"run_id\":\"r\",\"depth\":-1}}"
            ),
            "line 2: not an event: field `step` is a string (accepted: integer); field `depth` is \
             a number out of range or not whole (accepted: integer)",
        ),
        // Which field has an unknown value, and what is accepted.
        (
            format!(
                "{{\"event\":\"finished\",\"outcome\":\"{secret}\",\"steps\":1,\"run_id\":\"r\",\"depth\":0}}"
            ),
            "line 2: not an event: field `outcome` is an unknown string (accepted: \"completed\", \
             \"cancelled\", \"failed\" or \"interrupted\")",
        ),
        (
            format!("{{\"event\":\"{secret}\",\"run_id\":\"r\",\"depth\":0}}"),
            "line 2: not an event: field `event` is an unknown event name (`io events` lists them)",
        ),
        (
            format!("[\"{secret}\"]"),
            "line 2: not an event: the line is an array, where an event is one JSON object",
        ),
        // Bad JSON says so, with the column; so does JSON nested deeper
        // than serde_json reads.
        (
            format!(
                "{{\"event\":\"tool_call\",\"args\":{}{}}}",
                "[".repeat(200),
                "]".repeat(200)
            ),
            "line 2, column 155: not JSON: nested deeper than the 128 levels read",
        ),
        (
            "{\"event\":tru}".to_owned(),
            "line 2, column 13: not JSON: expected `true`, `false` or `null`",
        ),
    ] {
        let file = env.write("bad.jsonl", &format!("{STEP}{line}\n{STEP}"));
        let out = replay(&env, &file, &[]);
        assert_eq!(out.status.code(), Some(1), "{line}: {out:?}");
        let err = stderr(&out);
        assert_eq!(
            err,
            format!(
                "{}io: {}: {reason}; no hook fired for it or after it\n",
                no_hooks_line(&env.root()),
                file.display()
            ),
            "{line}"
        );
        assert!(!err.contains("sk-live"), "the value was printed: {err}");
    }
}

#[test]
fn a_directory_and_an_input_without_events_are_refused() {
    let env = IoEnv::new();
    let out = replay(&env, &env.root(), &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        stderr(&out),
        format!(
            "io: {}: is a directory; `io replay` reads a file of event lines (or `-` for stdin)\n",
            env.root().display()
        )
    );
    // Empty, or blank lines only: no events, not a completed run.
    for text in ["", "\n  \n\n"] {
        let file = env.write("empty.jsonl", text);
        for args in [&[][..], &["--json"], &["--dry-run"]] {
            let out = replay(&env, &file, args);
            assert_eq!(out.status.code(), Some(1), "{text:?} {args:?}: {out:?}");
            assert_eq!(
                stderr(&out),
                format!(
                    "{}io: {}: no events: the input holds no event line, so there is nothing to \
                     replay\n",
                    no_hooks_line(&env.root()),
                    file.display()
                )
            );
            assert!(out.stdout.is_empty(), "{}", stdout(&out));
        }
    }
}

#[test]
fn a_torn_line_pre_seeded_in_an_audit_log_is_named_skipped_and_the_replay_goes_on() {
    // A clone ships `audit.jsonl` ending in a torn line. Building the hooks
    // ends it with a newline and the events follow; replaying that log
    // refused everything after the torn line.
    let env = IoEnv::new();
    env.write("io.local.toml", "[[hook]]\nappend = \"audit.jsonl\"\n");
    env.write("audit.jsonl", "{\"event\":\"tool_call\",\"st");
    let events = env.write("events.jsonl", &format!("{TOOL_CALL}{STEP}"));
    let out = replay(&env, &events, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let audit = env.root().join("audit.jsonl");
    assert_eq!(
        std::fs::read_to_string(&audit).expect("audit"),
        format!("{{\"event\":\"tool_call\",\"st\n{TOOL_CALL}{STEP}")
    );
    // Replayed with no hooks, from another root.
    let other = IoEnv::new();
    let out = replay(&other, &audit, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "{}io: {}: line 1: skipped a torn line: it ends before its JSON does (a write cut \
             short, as by a full disk or a crash)\n",
            no_hooks_line(&other.root()),
            audit.display()
        )
    );
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.ends_with("completed after 1 step\n"), "{text}");

    // A fragment glued to the next record: the fragment is skipped, the
    // record after it replays.
    let glued = other.write(
        "glued.jsonl",
        &format!("{{\"event\":\"step\",\"ste{TOOL_CALL}{STEP}"),
    );
    let out = replay(&other, &glued, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "{}io: {}: line 1: skipped a torn fragment (20 bytes) glued before the event on this \
             line (a write cut short, as by a full disk or a crash)\n",
            no_hooks_line(&other.root()),
            glued.display()
        )
    );
    let text = stdout(&out);
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.contains(" tool_call ")),
        "{text}"
    );
    assert!(text.ends_with("completed after 1 step\n"), "{text}");

    // A whole line that is not an event still stops the replay.
    let bad = other.write("bad.jsonl", &format!("{{\"event\":\"step\"}}\n{STEP}"));
    let out = replay(&other, &bad, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
}

#[test]
fn a_run_id_is_escaped_whole_across_the_pieces_it_is_written_in() {
    // The text line is escaped 4 KiB at a time: a two-byte character
    // across the first piece's end, then an escape sequence, a C1 CSI and
    // a DEL, come out whole and escaped.
    let env = IoEnv::new();
    let (a, b) = ("a".repeat(4095), "b".repeat(5000));
    let run_id = format!("{a}\u{e9}\u{1b}[2J{b}\u{9b}\u{7f}");
    let line = serde_json::json!({"event": "started", "goal": "g", "run_id": run_id, "depth": 0});
    let file = env.write("escape.jsonl", &format!("{line}\n"));
    let out = replay(&env, &file, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(
        text.lines().next(),
        Some(format!("    -  started            {a}\u{e9}\\x1b[2J{b}\\x9b\\x7f  -").as_str())
    );
    assert!(!text.contains(['\u{1b}', '\u{9b}', '\u{7f}']), "{text:?}");
    // --json carries it as JSON does, whole.
    let out = replay(&env, &file, &["--json"]);
    let first: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().expect("a line")).expect("json");
    assert_eq!(first["run_id"], run_id);
}

#[test]
fn a_reader_that_stops_reading_is_not_an_error() {
    // `io replay … | head -1`: the pipe closes under io's line, as under
    // `io events | head`; the replay still ends as it would have.
    let env = IoEnv::new();
    let file = env.write("events.jsonl", &format!("{TOOL_CALL}{STEP}"));
    let mut child = env
        .command(&["replay", file.to_str().expect("a UTF-8 path")])
        .spawn()
        .expect("io runs");
    drop(child.stdout.take());
    let out = output_within(child, Duration::from_secs(60), "io replay");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), no_hooks_line(&env.root()));
}

/// One `started` line whose `run_id` is `n` bytes of `c`.
fn started_with_run_id(c: char, n: usize) -> String {
    let run_id: String = std::iter::repeat_n(c, n / c.len_utf8()).collect();
    format!("{{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"{run_id}\",\"depth\":0}}\n")
}

#[test]
fn a_line_over_the_cap_is_refused_naming_the_line_and_the_flag_that_raises_it() {
    // The cap had gone to 2 GiB; it is 16 MiB unless `--max-line` says more.
    let env = IoEnv::new();
    let long = started_with_run_id('r', (16 << 20) + 1);
    let file = env.write("long.jsonl", &format!("{STEP}{long}"));
    let out = replay(&env, &file, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "{}io: {}: line 2: longer than 16777216 bytes, the most `io replay` reads; \
             `--max-line BYTES` raises it (up to 2147479551); no hook fired for it or after it\n",
            no_hooks_line(&env.root()),
            file.display()
        )
    );
    let out = replay(&env, &file, &["--max-line", "17000000"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // And lowered: the first line is now too long.
    let out = replay(&env, &file, &["--max-line", "10"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(": line 1: longer than 10 bytes"),
        "{}",
        stderr(&out)
    );
    // Zero, or more than one write can append, is a usage error.
    for bad in ["0", "2147479552"] {
        let out = replay(&env, &file, &["--max-line", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
    }
}

/// The peak resident memory of `io replay -` (its `VmHWM`, in bytes) over
/// reading `line`, firing it and printing it with `args`: read while `io`
/// waits for a next line that never comes, once the event's line is out.
fn peak_of_replaying(line: &str, args: &[&str]) -> u64 {
    let env = IoEnv::new();
    let mut command = env.command(&["replay", "-"]);
    command.args(args).stdin(Stdio::piped());
    let mut child = command.spawn().expect("io runs");
    let pid = child.id();
    let mut out = child.stdout.take().expect("stdout");
    let printed = Arc::new(AtomicU64::new(0));
    let line_out = Arc::new(AtomicBool::new(false));
    // Drained as it comes, counted and not kept: the text is four times
    // the line.
    let reader = {
        let (printed, line_out) = (Arc::clone(&printed), Arc::clone(&line_out));
        std::thread::spawn(move || {
            let mut buf = vec![0; 1 << 16];
            while let Ok(n @ 1..) = out.read(&mut buf) {
                printed.fetch_add(n as u64, Ordering::Relaxed);
                if buf[..n].contains(&b'\n') {
                    line_out.store(true, Ordering::Relaxed);
                }
            }
        })
    };
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(line.as_bytes()).expect("io reads the line");
    let out_in_time = wait_until(Duration::from_secs(120), || {
        line_out.load(Ordering::Relaxed)
    });
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    drop(stdin);
    let output = output_within(child, Duration::from_secs(120), "io replay -");
    reader.join().expect("the reader");
    assert!(out_in_time, "the event's line was not printed in time");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(printed.load(Ordering::Relaxed) > 0);
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in {status}"));
    kib * 1024
}

#[test]
fn a_long_line_of_control_characters_is_printed_holding_at_most_three_times_the_line() {
    // A run id of DEL, which a JSON string may hold raw and the terminal
    // text escapes to four bytes each (`\x7f`): the text output was built
    // whole, and copied, peaking at about ten times the line.
    const N: usize = 15 << 20; // under the default cap, so main reads it
    let baseline = peak_of_replaying(&started_with_run_id('r', 16), &[]);
    let line = started_with_run_id('\u{7f}', N);
    for args in [&[][..], &["--json"]] {
        let peak = peak_of_replaying(&line, args);
        let over = peak.saturating_sub(baseline);
        eprintln!(
            "{args:?}: peak {} KiB, baseline {} KiB, line {} KiB",
            peak >> 10,
            baseline >> 10,
            line.len() >> 10
        );
        assert!(
            over < 3 * line.len() as u64,
            "{args:?}: {} MiB over a baseline of {} MiB for a line of {} MiB",
            over >> 20,
            baseline >> 20,
            line.len() >> 20
        );
    }
}

/// A `tool_call` line of about `n` bytes whose `args` is `unit` repeated
/// between `open` and `close`.
fn tool_call_with_args(open: &str, unit: &str, close: &str, n: usize) -> String {
    let args = format!(
        "{open}{}{close}",
        unit.repeat(n.checked_div(unit.len()).unwrap_or(0))
    );
    format!(
        "{{\"event\":\"tool_call\",\"step\":1,\"tool\":\"exec\",\"args\":{args},\"run_id\":\"r\",\"depth\":0}}\n"
    )
}

/// Issue 32, H3: a tool call's `args` is any JSON, and was held as a tree
/// of `serde_json::Value`s (after serde's own buffer of every value, for a
/// flattened, tagged event): a 16 MiB line of `[0,0,…]` peaked at 1,112 MiB
/// (69 times the line), `[{},…]` and `[[],…]` at 768 MiB. It is held now as
/// the bytes it came in, whatever its shape: each line here peaks at less
/// than three times its length over the baseline, as a long run id does.
#[test]
fn free_form_args_of_every_shape_are_held_as_their_bytes() {
    const N: usize = 15 << 20; // under the default cap
    let baseline = peak_of_replaying(&started_with_run_id('r', 16), &[]);
    let shapes = [
        ("numbers", tool_call_with_args("[", "0,", "0]", N)),
        ("empty objects", tool_call_with_args("[", "{},", "{}]", N)),
        ("empty arrays", tool_call_with_args("[", "[],", "[]]", N)),
        // As deep as serde_json reads (128 levels, the event's object one
        // of them; deeper is refused as not JSON), around a long array.
        (
            "deep nesting",
            tool_call_with_args(
                &"[".repeat(125),
                "[0],",
                &format!("0{}", "]".repeat(125)),
                N,
            ),
        ),
        ("a long string", tool_call_with_args("\"", "a", "\"", N)),
    ];
    for (shape, line) in shapes {
        let peak = peak_of_replaying(&line, &[]);
        let over = peak.saturating_sub(baseline);
        eprintln!(
            "{shape}: peak {} KiB, baseline {} KiB, line {} KiB",
            peak >> 10,
            baseline >> 10,
            line.len() >> 10
        );
        assert!(
            over < 3 * line.len() as u64,
            "{shape}: {} MiB over a baseline of {} MiB for a line of {} MiB",
            over >> 20,
            baseline >> 20,
            line.len() >> 20
        );
    }
}

#[test]
fn a_file_whose_name_is_not_utf8_is_replayed_and_named_as_displayed() {
    // clap refused the name before (`invalid UTF-8 was detected`, exit 2):
    // a recording the operator can name cannot be replayed.
    use std::os::unix::ffi::OsStrExt;
    let env = IoEnv::new();
    let name = std::ffi::OsStr::from_bytes(b"events\xff.jsonl");
    std::fs::write(env.root().join(name), STEP).expect("events");
    let run = |name: &std::ffi::OsStr| {
        let mut command = env.command(&["replay"]);
        command.arg(name).arg("--json");
        let child = command.spawn().expect("io runs");
        output_within(
            child,
            Duration::from_secs(120),
            "io replay events\\xff.jsonl",
        )
    };
    let out = run(name);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).lines().last(),
        Some("{\"outcome\":\"completed\",\"steps\":1}")
    );
    let missing = std::ffi::OsStr::from_bytes(b"missing\xff.jsonl");
    let out = run(missing);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).ends_with("io: missing\u{fffd}.jsonl: No such file or directory\n"),
        "{}",
        stderr(&out)
    );
}
