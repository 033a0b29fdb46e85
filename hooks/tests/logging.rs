//! What a failing hook logs: its index, the event's tag and the cause, at
//! warn level, and never the event's contents. Every test here installs its
//! own subscriber, capturing into a buffer.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use common::capture::capture;
use common::{append, run, started};
use io_hooks::{Flow, Hooks};

const SECRET: &str = "sk-live-TOP-SECRET-GOAL-4242";

#[test]
fn a_failed_hook_logs_index_tag_and_cause_never_the_event() {
    let dir = tempfile::tempdir().unwrap();
    let bad_log = dir.path().join("missing-dir/audit.jsonl");
    let good_log = dir.path().join("audit.jsonl");
    let ev = started(SECRET);
    let (flow, log) = capture(|| {
        let hooks = Hooks::new(
            vec![
                append(&good_log, &[], Flow::Continue),
                run(
                    &["/bin/sh", "-c", "exit 3"],
                    5000,
                    &["started"],
                    Flow::Continue,
                ),
                append(&bad_log, &["started"], Flow::Cancel),
            ],
            dir.path(),
        );
        hooks.fire_event(&ev)
    });
    assert_eq!(flow, Flow::Cancel);

    assert!(
        !log.contains(SECRET),
        "the event leaked into the log:\n{log}"
    );
    assert!(
        !log.contains("goal"),
        "a field name of the event leaked:\n{log}"
    );
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 3, "one at build, one per failed hook:\n{log}");
    assert!(lines[0].contains("hook[3]: append: `"), "{log}");
    let lines = &lines[1..];
    assert!(lines.iter().all(|l| l.contains("WARN")), "{log}");

    assert!(
        lines[0].contains("hook[2] failed on `started`: exited with status 3"),
        "{log}"
    );
    assert!(lines[0].contains("hook=\"hook[2]\""), "{log}");
    assert!(
        !log.contains("file="),
        "a hook built in code has no file: {log}"
    );
    assert!(lines[0].contains("event=\"started\""), "{log}");
    assert!(lines[0].contains("on_failure=\"continue\""), "{log}");

    assert!(
        lines[1].contains(&format!(
            "hook[3] failed on `started`: could not append to `{}`: No such file or directory; cancelling the run",
            bad_log.display()
        )),
        "{log}"
    );
    assert!(lines[1].contains("hook=\"hook[3]\""), "{log}");

    // The successful hook did receive the secret: the log is what must not.
    assert!(std::fs::read_to_string(&good_log).unwrap().contains(SECRET));
}

#[test]
fn a_file_that_cannot_be_created_is_warned_about_when_the_hooks_are_built() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("no/such/dir/audit.jsonl");
    let (hooks, log) = capture(|| {
        Hooks::new(
            vec![
                append(&dir.path().join("fine.jsonl"), &[], Flow::Continue),
                append(&bad, &[], Flow::Continue),
            ],
            dir.path(),
        )
    });
    assert_eq!(hooks.specs().len(), 2, "the hook is kept");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 1, "{log}");
    assert!(lines[0].contains("WARN"), "{log}");
    assert!(
        lines[0].contains(&format!(
            "hook[2]: append: `{}` cannot be created: there is no directory `{}`",
            bad.display(),
            dir.path().join("no/such/dir").display()
        )),
        "{log}"
    );
    // The same, as data: one problem, logged once.
    assert_eq!(hooks.problems().len(), 1);
    assert!(lines[0].contains(&hooks.problems()[0].to_string()), "{log}");
    assert_eq!(
        hooks.problems()[0].hint().as_deref(),
        Some(
            format!(
                "create it: mkdir -p {}",
                dir.path().join("no/such/dir").display()
            )
            .as_str()
        )
    );
}

#[test]
fn a_log_that_is_a_symlink_or_not_a_regular_file_is_warned_about_when_the_hooks_are_built() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("audit.jsonl");
    std::os::unix::fs::symlink(dir.path().join("elsewhere"), &link).unwrap();
    let (_hooks, log) = capture(|| {
        Hooks::new(
            vec![
                append(&link, &[], Flow::Continue),
                append(std::path::Path::new("/dev/null"), &[], Flow::Continue),
            ],
            dir.path(),
        )
    });
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(
        lines[0].contains(&format!(
            "hook[1]: append: `{}` is a symbolic link, which an append hook never follows",
            link.display()
        )),
        "{log}"
    );
    assert!(
        !dir.path().join("elsewhere").exists(),
        "the link was not followed"
    );
    assert!(
        lines[1].contains("hook[2]: append: `/dev/null` is not a regular file"),
        "{log}"
    );
}

#[test]
fn a_program_that_cannot_be_found_is_warned_about_when_the_hooks_are_built() {
    let dir = tempfile::tempdir().unwrap();
    let (_hooks, log) = capture(|| {
        Hooks::new(
            vec![
                run(&["./scripts/check"], 5000, &[], Flow::Continue),
                run(&["sh"], 5000, &[], Flow::Continue),
                run(&["no-such-program-anywhere"], 5000, &[], Flow::Continue),
            ],
            dir.path(),
        )
    });
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(
        lines[0].contains(&format!(
            "hook[1]: `./scripts/check`: there is no `{}`",
            dir.path().join("scripts/check").display()
        )),
        "{log}"
    );
    assert!(
        lines[1].contains("hook[3]: `no-such-program-anywhere` is not an executable file in any absolute `PATH` entry"),
        "{log}"
    );
}

#[test]
fn a_successful_or_unwanted_event_logs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (flow, log) = capture(|| {
        let hooks = Hooks::new(
            vec![append(&dir.path().join("a"), &["finished"], Flow::Cancel)],
            dir.path(),
        );
        let a = hooks.fire_event(&started(SECRET));
        let b = hooks.fire_event(&common::Ev::Finished { run_id: 1 });
        (a, b)
    });
    assert_eq!(flow, (Flow::Continue, Flow::Continue));
    assert_eq!(log, "");
}
