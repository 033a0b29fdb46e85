//! `io replay` never reads what its own hooks write during the replay
//! (issue 45, deliverable 3): a regular file, named or on stdin, is read
//! only to the end it had when the replay began, and a hook whose `append`
//! file is the input itself is left out (refused when `--hook` chose it),
//! so the recording is never written into while it is replayed.
//!
//! Before the fix, the first example of `io replay --help` (`io replay
//! audit.jsonl`, where `audit.jsonl` is the file a catch-all `append` hook
//! writes) never ended: each event read was appended again and read back.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{IoEnv, output_within};

/// A recorded run of ten events: `started`, four steps of a tool call and
/// its `step`, and `finished`.
fn recording() -> String {
    let mut lines = vec![
        r#"{"event":"started","goal":"g","resumed":false,"run_id":"r","depth":0,"seq":0}"#
            .to_owned(),
    ];
    for step in 1..=4 {
        let seq = 2 * step - 1;
        lines.push(format!(
            r#"{{"event":"tool_call","step":{step},"tool":"exec","args":{{}},"run_id":"r","depth":0,"seq":{seq}}}"#
        ));
        lines.push(format!(
            r#"{{"event":"step","step":{step},"moved_the_workspace":true,"run_id":"r","depth":0,"seq":{}}}"#,
            seq + 1
        ));
    }
    lines.push(r#"{"event":"finished","outcome":"completed","steps":4,"resumed":false,"run_id":"r","depth":0,"seq":9}"#.to_owned());
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// `io args…` in `env`'s root, with every directory it could write to in
/// the temp dir, its stdin `stdin` (empty when `None`).
fn io(env: &IoEnv, args: &[&str], stdin: Option<&Path>) -> Output {
    // The user scope and the data directory are the test's ([`IoEnv::command`]).
    let mut command: Command = env.command(args);
    if let Some(path) = stdin {
        command.stdin(std::fs::File::open(path).expect("stdin file"));
    } else {
        command.stdin(Stdio::null());
    }
    let child = command.spawn().expect("io runs");
    // Ten events take milliseconds: a replay that reads back what it
    // writes never ends, and fails here instead of hanging the suite.
    output_within(child, Duration::from_secs(60), &format!("io {args:?}"))
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The events `--json` printed (its summary line left out).
fn events_printed(out: &Output) -> usize {
    stdout(out)
        .lines()
        .filter(|line| {
            serde_json::from_str::<serde_json::Value>(line)
                .expect("a JSON line")
                .get("event")
                .is_some()
        })
        .count()
}

fn left_out_line(key: &str, path: &Path, input: &str) -> String {
    format!(
        "io: {key} is left out of this replay: it appends to {}, which is the input ({input}), \
         so it would write every replayed event into the recording a second time\n",
        path.display()
    )
}

#[test]
fn the_helps_first_example_replays_the_recording_once_and_leaves_it_as_it_was() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\nname = \"audit\"\nappend = \"audit.jsonl\"\n\n[[hook]]\nappend = \"copy.jsonl\"\n",
    );
    let audit = env.write("audit.jsonl", &recording());
    // `io replay audit.jsonl`, as the help's first example says; the hook
    // left out is named by its key path and its name.
    let out = io(&env, &["replay", "audit.jsonl"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("completed after 4 steps\n"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).ends_with(&left_out_line("hook[1] \"audit\"", &audit, "audit.jsonl")),
        "{}",
        stderr(&out)
    );
    // The recording is as it was; the other hook got each event once.
    assert_eq!(std::fs::read_to_string(&audit).expect("audit"), recording());
    let copy = std::fs::read_to_string(env.root().join("copy.jsonl")).expect("copy");
    assert_eq!(copy.lines().count(), 10, "{copy}");

    // The same with --json: ten events printed, then the summary.
    let out = io(&env, &["replay", "audit.jsonl", "--json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(events_printed(&out), 10, "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(&audit).expect("audit"), recording());
}

#[test]
fn a_hook_that_writes_into_the_input_another_way_is_not_read_back() {
    // A `run` hook appending each event to the input: no `append` to
    // leave out, and the input is still read only to its end at the start,
    // named or on stdin.
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\nrun = [\"tee\", \"-a\", \"events.jsonl\"]\n",
    );
    let events = env.write("events.jsonl", &recording());
    let out = io(&env, &["replay", "events.jsonl", "--json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(events_printed(&out), 10, "{}", stdout(&out));
    // Each event written once more (as the hook's stdin gives it).
    let grown = std::fs::read_to_string(&events).expect("events");
    assert_eq!(grown.lines().count(), 20, "{grown}");

    let out = io(&env, &["replay", "-", "--json"], Some(&events));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(events_printed(&out), 20, "{}", stdout(&out));
    let grown = std::fs::read_to_string(&events).expect("events");
    assert_eq!(grown.lines().count(), 40, "{grown}");
}

#[test]
fn the_input_on_stdin_or_through_a_link_is_known_as_an_appends_own_file() {
    let env = IoEnv::new();
    env.write("io.local.toml", "[[hook]]\nappend = \"audit.jsonl\"\n");
    let audit = env.write("audit.jsonl", &recording());
    let out = io(&env, &["replay", "-", "--json"], Some(&audit));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(events_printed(&out), 10, "{}", stdout(&out));
    assert!(
        stderr(&out).ends_with(&left_out_line("hook[1]", &audit, "stdin")),
        "{}",
        stderr(&out)
    );
    // A hard link is another name for the same file.
    let link = env.root().join("linked.jsonl");
    std::fs::hard_link(&audit, &link).expect("link");
    let out = io(&env, &["replay", "linked.jsonl", "--json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(events_printed(&out), 10, "{}", stdout(&out));
    assert!(
        stderr(&out).ends_with(&left_out_line("hook[1]", &audit, "linked.jsonl")),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&audit).expect("audit"), recording());
}

#[test]
fn choosing_the_hook_that_appends_to_the_input_is_refused_saying_what_to_do() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\nrun = [\"true\"]\n\n[[hook]]\nappend = \"audit.jsonl\"\n",
    );
    let audit = env.write("audit.jsonl", &recording());
    for args in [
        &["--hook", "2"][..],
        &["--hook", "1", "--hook", "2", "--dry-run"],
    ] {
        let out = io(&env, &[&["replay", "audit.jsonl"][..], args].concat(), None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let path = audit.display();
        assert_eq!(
            stderr(&out),
            format!(
                "io: --hook 2: hook[2] cannot replay its own file: it appends to {path}, which is \
                 the input (audit.jsonl), so it would write every replayed event into the \
                 recording a second time. Replay a copy instead: `cp {path} copy.jsonl`, then \
                 `io replay copy.jsonl --hook 2`\n"
            )
        );
        assert!(out.stdout.is_empty(), "{}", stdout(&out));
    }
    // The hook it did not choose replays it.
    let out = io(
        &env,
        &["replay", "audit.jsonl", "--hook", "1", "--json"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(events_printed(&out), 10, "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(&audit).expect("audit"), recording());
}
