//! Every string from outside input that `io` prints on a terminal is
//! escaped: control characters and the bidirectional overrides, isolates
//! and marks that would show text in another order than its bytes (issue
//! 22, "Escaping"; docs/threat-model.md, "Text printed to a terminal").
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::process::Output;

use common::run_io;

/// What may never reach a terminal raw: ESC, BEL, CR, a C1 control, and the
/// bidirectional characters (U+202A–U+202E, U+2066–U+2069, the marks).
const NEVER_RAW: &[char] = &[
    '\u{1b}', '\u{7}', '\r', '\u{9b}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}',
    '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{200e}', '\u{200f}', '\u{61c}',
];

/// A string carrying one of each, as a TOML basic string's escapes.
const HOSTILE_TOML: &str = "x\\u001b]0;pwned\\u0007\\r\\u009b\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061cy";

/// How each of [`NEVER_RAW`] reads once escaped, in order.
const ESCAPED: &str = "x\\x1b]0;pwned\\x07\\r\\x9b\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{202e}\\u{2066}\\u{2067}\\u{2068}\\u{2069}\\u{200e}\\u{200f}\\u{61c}y";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[track_caller]
fn assert_nothing_raw(what: &str, out: &Output) {
    for stream in [text(&out.stdout), text(&out.stderr)] {
        if let Some(c) = stream.chars().find(|c| NEVER_RAW.contains(c)) {
            panic!("{what}: U+{:04X} printed raw in:\n{stream}", u32::from(c));
        }
    }
}

/// `io run script.toml --root .` in `dir`, the script's text `script`; it
/// must complete.
fn run_script(dir: &std::path::Path, script: &str) -> Output {
    fs::write(dir.join("script.toml"), script).expect("script");
    let out = run_io(dir, dir, &["run", "script.toml", "--root", "."], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    out
}

/// The model's final answer is outside input (a prompt can make it say
/// anything): `io run`'s last line shows it escaped, as its progress lines
/// show what it streams and the arguments of its calls. Before, the answer
/// was printed as the model wrote it, ESC and U+202E included, and the
/// progress lines kept the bidirectional characters.
#[test]
fn io_run_escapes_the_models_final_answer() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = run_script(
        tmp.path(),
        &format!(
            "goal = \"g\"\n\n[[turn]]\nsay = \"{HOSTILE_TOML}\"\ncalls = [{{ tool = \"read_file\", args = {{ path = \"{HOSTILE_TOML}\" }} }}]\n\n[[turn]]\nanswer = \"{HOSTILE_TOML}\"\n"
        ),
    );
    assert_nothing_raw("io run", &out);
    let stdout = text(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("run r-")
            && last.ends_with(&format!("completed after 2 steps: {ESCAPED}")),
        "{stdout}"
    );
}

/// Profile names come from files a clone may carry (`io.toml`); the
/// unknown-profile error lists them escaped. Before, they went to stderr
/// raw.
#[test]
fn the_unknown_profile_error_escapes_the_names_a_clone_declared() {
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(
        tmp.path().join("io.toml"),
        format!("[profile.\"{HOSTILE_TOML}\"]\nmodel = \"m\"\n"),
    )
    .expect("io.toml");
    let out = run_io(tmp.path(), tmp.path(), &["check", "--profile", "nope"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_nothing_raw("io check --profile", &out);
    assert_eq!(
        text(&out.stderr),
        format!("io: unknown profile `nope`; the profiles declared are `{ESCAPED}`\n")
    );
}

/// A recorded event's `run_id` with bidirectional overrides: the text
/// output escapes them as it does control characters, and `--json` writes
/// each as its `\uXXXX` escape, which reads back as the same `run_id`.
/// Before, both printed them raw (a `run_id` could show as another).
#[test]
fn io_replay_escapes_bidirectional_overrides_in_text_and_json() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let run_id: String = format!("r{}", NEVER_RAW.iter().collect::<String>());
    let line = serde_json::json!({"event": "started", "goal": "g", "run_id": run_id, "depth": 0});
    fs::write(tmp.path().join("events.jsonl"), format!("{line}\n")).expect("events");

    let out = run_io(tmp.path(), tmp.path(), &["replay", "events.jsonl"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_nothing_raw("io replay", &out);
    assert!(
        text(&out.stdout).contains("  r\\x1b\\x07\\r\\x9b\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{202e}\\u{2066}\\u{2067}\\u{2068}\\u{2069}\\u{200e}\\u{200f}\\u{61c}  -\n"),
        "{}",
        text(&out.stdout)
    );

    let out = run_io(
        tmp.path(),
        tmp.path(),
        &["replay", "events.jsonl", "--json"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_nothing_raw("io replay --json", &out);
    let first = text(&out.stdout);
    let first = first.lines().next().expect("a line");
    assert!(first.contains("\\u202e"), "{first}");
    let value: serde_json::Value = serde_json::from_str(first).expect("still JSON");
    assert_eq!(value["run_id"], run_id.as_str());
}

/// `io check` prints what the operator's hooks name (argv, paths) and the
/// problems found with them: escaped, so a name copied from a clone's
/// README cannot rewrite the screen. Before, the bidirectional characters
/// went through.
#[test]
fn io_check_escapes_what_a_hook_names() {
    let tmp = common::checkout();
    fs::write(
        tmp.path().join("io.local.toml"),
        format!("[[hook]]\nrun = [\"./{HOSTILE_TOML}\"]\n"),
    )
    .expect("io.local.toml");
    let out = run_io(tmp.path(), tmp.path(), &["check"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_nothing_raw("io check", &out);
    assert!(
        text(&out.stdout).contains(&format!("    problem: `./{ESCAPED}`")),
        "{}",
        text(&out.stdout)
    );
    // `--json` too: the same text, escaped as JSON strings (`\u001b`,
    // `\u202e`), and it reads back as what the file said.
    let out = run_io(tmp.path(), tmp.path(), &["check", "--json"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_nothing_raw("io check --json", &out);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let does = report["hooks"][0]["does"].as_str().expect("does");
    let problem = report["hooks"][0]["problems"][0]["problem"]
        .as_str()
        .expect("problem");
    let hostile = "x\u{1b}]0;pwned\u{7}\r\u{9b}\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}\u{200e}\u{200f}\u{61c}y";
    assert!(
        problem.starts_with(&format!("`./{hostile}`")),
        "{problem:?}"
    );
    assert!(does.starts_with("on every event: run ["), "{does:?}");
}

/// A line break in outside text that `io` prints within a line of its own
/// (a recorded run id, the model's answer on the closing line) would end
/// that line and start one the outside text wrote, reading as `io`'s: a
/// `finished` event that never happened, a run that was "cancelled".
/// Newline and tab are escaped there; before, both were printed as they
/// were.
#[test]
fn outside_text_cannot_write_a_line_that_reads_as_ios_own() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let forged_event = "r-1  -\n    9  finished           r-FORGED\tx";
    let line =
        serde_json::json!({"event": "started", "goal": "g", "run_id": forged_event, "depth": 0});
    fs::write(tmp.path().join("events.jsonl"), format!("{line}\n")).expect("events");
    let out = run_io(tmp.path(), tmp.path(), &["replay", "events.jsonl"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "one event line and the summary:\n{stdout}");
    assert!(
        lines[0].ends_with("r-1  -\\n    9  finished           r-FORGED\\tx  -"),
        "{stdout}"
    );

    let out = run_script(
        tmp.path(),
        "goal = \"g\\nr-0 finished: cancelled\"\n\n[[turn]]\nanswer = \"ok\\nrun r-000000000000 cancelled after 1 step\\tx\"\n",
    );
    let stdout = text(&out.stdout);
    assert!(
        !stdout
            .lines()
            .any(|l| l.starts_with("run r-000000000000") || l.starts_with("r-0 finished")),
        "a forged line:\n{stdout}"
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("run r-")
            && last.ends_with(
                "completed after 1 step: ok\\nrun r-000000000000 cancelled after 1 step\\tx"
            ),
        "{stdout}"
    );
    assert!(
        stdout.contains("started: g\\nr-0 finished: cancelled"),
        "{stdout}"
    );
}

/// Issue 32, notes: U+FEFF, U+2028, U+2029 (a line break to a terminal
/// that honours it), U+200B and the tag characters U+E0000 to U+E007F
/// (which can spell text no one sees) passed raw into `io replay`'s text
/// and JSON lines, and `io run`'s last line. Every invisible or
/// line-breaking character is escaped now.
#[test]
fn invisible_and_line_breaking_characters_are_escaped_too() {
    const INVISIBLE: [char; 7] = [
        '\u{feff}',
        '\u{2028}',
        '\u{2029}',
        '\u{200b}',
        '\u{e0001}',
        '\u{e0041}',
        '\u{e007f}',
    ];
    let raw = |out: &Output| {
        let both = format!("{}{}", text(&out.stdout), text(&out.stderr));
        INVISIBLE.iter().find(|c| both.contains(**c)).copied()
    };
    let hidden: String = INVISIBLE.iter().collect();
    let tmp = tempfile::tempdir().expect("tempdir");
    let run_id = format!("r{hidden}");
    let line = serde_json::json!({"event": "started", "goal": "g", "run_id": run_id, "depth": 0});
    fs::write(tmp.path().join("events.jsonl"), format!("{line}\n")).expect("events");
    let out = run_io(tmp.path(), tmp.path(), &["replay", "events.jsonl"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(raw(&out), None, "io replay: {}", text(&out.stdout));
    assert!(
        text(&out.stdout)
            .contains("  r\\u{feff}\\u{2028}\\u{2029}\\u{200b}\\u{e0001}\\u{e0041}\\u{e007f}  -\n"),
        "{}",
        text(&out.stdout)
    );
    let out = run_io(
        tmp.path(),
        tmp.path(),
        &["replay", "events.jsonl", "--json"],
        &[],
    );
    assert_eq!(raw(&out), None, "io replay --json: {}", text(&out.stdout));
    let first = text(&out.stdout);
    let value: serde_json::Value =
        serde_json::from_str(first.lines().next().expect("a line")).expect("still JSON");
    assert_eq!(value["run_id"], run_id.as_str());
    let out = run_script(
        tmp.path(),
        &format!("goal = \"g\"\n[[turn]]\nanswer = \"done{hidden}\"\n"),
    );
    assert_eq!(raw(&out), None, "io run: {}", text(&out.stdout));
}
