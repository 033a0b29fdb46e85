//! Issue 14, round two, the engine's side: a host that ignores `SIGCHLD`, a
//! host's interrupt, and appends cut short by a file size limit or by a
//! host killed mid-line. The supervisor's own side of the first two is
//! `supervisor/tests/hardening.rs`.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::time::{Duration, Instant};

use io_hooks::{Flow, HookFailure, Hooks};
use io_supervisor::ProcessError;

use common::{
    Ev, KillOnDrop, alive, append, assert_child_passed, is_reexec, limit_file_size, read_pid,
    reexec, run, started, step, wait_until, within,
};

/// What each matching hook did with `event`: its failure's text, or `ok`.
fn outcomes(hooks: &Hooks<Ev>, event: &Ev) -> Vec<String> {
    let mut seen = Vec::new();
    let _ = hooks.fire_with(event, event, |run| {
        seen.push(match run.result {
            Ok(()) => "ok".to_owned(),
            Err(failure) => failure.to_string(),
        });
    });
    seen
}

/// A host that ignores `SIGCHLD` (the setting survives `exec`) has every
/// child reaped by the kernel unasked: no exit status can be read. The
/// engine says so, as its own kind of failure; it never reads it as a
/// success, nor as an exit status.
#[test]
fn an_exit_status_that_cannot_be_collected_is_a_wait_failure() {
    const NAME: &str = "an_exit_status_that_cannot_be_collected_is_a_wait_failure";
    if is_reexec(NAME) {
        // SAFETY: `SIG_IGN` installs no handler, and this child's one test
        // thread is the only one touching dispositions.
        let previous = unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) };
        assert_ne!(previous, libc::SIG_ERR);
        let dir = std::env::current_dir().unwrap();
        let hooks = Hooks::new(
            vec![run(&["/bin/sh", "-c", "exit 0"], 5000, &[], Flow::Cancel)],
            &dir,
        );
        let mut failures = Vec::new();
        let flow = hooks.fire_with(&step(1), &step(1), |run| {
            failures.push(matches!(
                run.result,
                Err(HookFailure::Process(ProcessError::Wait { .. }))
            ));
        });
        assert_eq!(failures, [true], "{:?}", outcomes(&hooks, &step(1)));
        assert_eq!(flow, Flow::Cancel);
        assert_eq!(
            outcomes(&hooks, &step(2)),
            ["could not collect its exit status: No child processes"]
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert_child_passed(&reexec(NAME, &[], dir.path()));
}

/// The host's interrupt kills the process group of a `run` hook in flight
/// (a grandchild included), the hook fails as interrupted well before its
/// timeout, and a hook fired afterwards is not spawned at all.
#[test]
fn an_interrupt_kills_the_run_hooks_in_flight_and_refuses_later_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let body = "sleep 30 & echo $! > gc.pid; echo $$ > pid; wait; echo late > marker";
    let hooks = Hooks::new(
        vec![run(
            &["/bin/sh", "-c", body],
            60_000,
            &["step"],
            Flow::Continue,
        )],
        &root,
    );
    let interrupt = hooks.supervisor();
    let hooks = std::sync::Arc::new(hooks);
    let firing = {
        let hooks = hooks.clone();
        std::thread::spawn(move || outcomes(&hooks, &step(1)))
    };
    let leader = read_pid(&root.join("pid")).expect("the hook's pid");
    let grandchild = read_pid(&root.join("gc.pid")).expect("the grandchild's pid");
    let _cleanup = KillOnDrop(vec![leader, grandchild]);
    assert_eq!(interrupt.in_flight(), 1);

    let start = Instant::now();
    interrupt.interrupt();
    assert!(interrupt.wait_reaped(Duration::from_secs(10)), "reaped");
    let seen = within(Duration::from_secs(10), "the interrupted fire", move || {
        firing.join().unwrap()
    });
    assert_eq!(seen, ["was interrupted, and its process group killed"]);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert!(
        wait_until(Duration::from_secs(5), || !alive(grandchild)),
        "the grandchild in the hook's group survived"
    );
    assert!(!alive(leader));
    assert!(!root.join("marker").exists());

    // Later hooks refuse without spawning: no new pid file appears.
    fs::remove_file(root.join("pid")).unwrap();
    assert_eq!(
        outcomes(&hooks, &step(2)),
        ["was interrupted, and its process group killed"]
    );
    assert!(!root.join("pid").exists());
    assert!(interrupt.is_interrupted());
}

/// Every line of `text` is one whole JSON object, and `text` ends with a
/// newline.
fn assert_whole_lines(text: &str) {
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "torn end: {text:?}"
    );
    for line in text.lines() {
        assert!(
            serde_json::from_str::<serde_json::Value>(line).is_ok(),
            "not one whole event: {line:?}"
        );
    }
}

/// Under a file size limit (`ulimit -f`), the append that crosses it is cut
/// short: it fails, and the part it wrote is ended where it stopped (its
/// last byte becomes a newline), so whatever comes next starts on a line of
/// its own and nothing before it is removed. Run in a child: the limit is
/// process-wide.
#[test]
fn an_append_cut_short_by_a_file_size_limit_is_ended_where_it_stopped() {
    const NAME: &str = "an_append_cut_short_by_a_file_size_limit_is_ended_where_it_stopped";
    const LIMIT: u64 = 1000;
    if is_reexec(NAME) {
        limit_file_size(LIMIT);

        let dir = std::env::current_dir().unwrap();
        let log = dir.join("audit.jsonl");
        let hooks = Hooks::new(vec![append(&log, &[], Flow::Continue)], &dir);
        let big = started(&"g".repeat(250));
        let mut results = Vec::new();
        for _ in 0..4 {
            results.push(outcomes(&hooks, &big).remove(0));
        }
        let text = fs::read_to_string(&log).unwrap();
        let line_len = text.lines().next().unwrap().len() as u64 + 1;
        assert!(line_len * 3 < LIMIT && line_len * 4 > LIMIT, "{line_len}");
        assert_eq!(&results[..3], ["ok", "ok", "ok"]);
        let written = LIMIT - 3 * line_len;
        assert!(
            results[3].ends_with(&format!("wrote {written} of {line_len} bytes")),
            "{}",
            results[3]
        );
        assert_eq!(text.len() as u64, LIMIT, "nothing is cut off");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_whole_lines(&format!("{}\n", lines[..3].join("\n")));
        let whole = serde_json::to_string(&big).unwrap();
        assert_eq!(
            lines[3],
            &whole[..written as usize - 1],
            "the fragment, ended"
        );
        assert!(text.ends_with('\n'));
        // The log is at the limit: the next event is refused whole.
        assert_eq!(
            outcomes(&hooks, &step(9)),
            [
                "could not append to `".to_owned()
                    + &log.display().to_string()
                    + "`: File too large"
            ]
        );
        assert_eq!(fs::read_to_string(&log).unwrap(), text);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert_child_passed(&reexec(NAME, &[], dir.path()));
}

/// A log whose last line was cut (a host killed mid-write, a full disk
/// before this run) is left as it is when the hooks are built, and gets its
/// newline from the first append, in the same write as the event, so the
/// event is not glued onto the fragment; a log that ends whole gets no
/// extra newline.
#[test]
fn the_first_append_ends_a_torn_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let torn = dir.path().join("torn.jsonl");
    let whole = dir.path().join("whole.jsonl");
    fs::write(&torn, "{\"event\":\"step\"}\n{\"event\":\"sta").unwrap();
    fs::write(&whole, "{\"event\":\"step\"}\n").unwrap();
    let hooks = Hooks::new(
        vec![
            append(&torn, &[], Flow::Continue),
            append(&whole, &[], Flow::Continue),
        ],
        dir.path(),
    );
    assert_eq!(
        fs::read_to_string(&torn).unwrap(),
        "{\"event\":\"step\"}\n{\"event\":\"sta",
        "building changes no file"
    );
    let _ = hooks.fire_event(&step(2));
    let _ = hooks.fire_event(&step(3));
    let event = |n| serde_json::to_string(&step(n)).unwrap();
    assert_eq!(
        fs::read_to_string(&torn).unwrap(),
        format!(
            "{{\"event\":\"step\"}}\n{{\"event\":\"sta\n{}\n{}\n",
            event(2),
            event(3)
        )
    );
    assert_eq!(
        fs::read_to_string(&whole).unwrap(),
        format!("{{\"event\":\"step\"}}\n{}\n{}\n", event(2), event(3))
    );
}

/// A torn last line at the file size limit: building the hooks changes
/// nothing and warns of nothing; the first append, which would end it, is
/// refused whole (`EFBIG`) and removes nothing, and the next one looks
/// again. Run in a child: the limit is process-wide.
#[test]
fn a_torn_line_at_the_file_size_limit_is_left_as_it_was() {
    const NAME: &str = "a_torn_line_at_the_file_size_limit_is_left_as_it_was";
    const LIMIT: usize = 4096;
    if is_reexec(NAME) {
        let dir = std::env::current_dir().unwrap();
        let torn = dir.join("torn.jsonl");
        fs::write(&torn, "x".repeat(LIMIT)).unwrap();
        let warnings = dir.join("warnings.txt");
        let subscriber = tracing_subscriber::fmt()
            .with_writer(std::sync::Mutex::new(fs::File::create(&warnings).unwrap()))
            .with_ansi(false)
            .finish();
        limit_file_size(LIMIT as u64);

        let hooks = tracing::subscriber::with_default(subscriber, || {
            Hooks::new(vec![append(&torn, &[], Flow::Continue)], &dir)
        });
        assert!(hooks.problems().is_empty(), "{:?}", hooks.problems());
        assert_eq!(fs::read_to_string(&warnings).unwrap(), "");
        let refused = format!("could not append to `{}`: File too large", torn.display());
        assert_eq!(outcomes(&hooks, &step(1)), std::slice::from_ref(&refused));
        assert_eq!(outcomes(&hooks, &step(2)), [refused]);
        assert_eq!(fs::read(&torn).unwrap(), "x".repeat(LIMIT).as_bytes());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert_child_passed(&reexec(NAME, &[], dir.path()));
}
