//! `Supervisor::run_argv_keeping_stderr`: a child's stderr tail, bounded and
//! drained while it runs, kept through a timeout or an interrupt.
#![cfg(unix)] // Windows: tests/windows.rs

mod common;

use std::time::{Duration, Instant};

use io_supervisor::{ProcessError, StderrTail, Supervisor};

use common::{KillOnDrop, read_pid, within};

const LIMIT: usize = 4096;

fn sh(body: &str) -> Vec<String> {
    ["/bin/sh", "-c", body].map(String::from).to_vec()
}

/// Runs `body` on `supervisor` in `root`, under the watchdog, keeping its
/// stderr's tail; the result and the tail.
fn run_kept(
    supervisor: &Supervisor,
    root: &std::path::Path,
    body: &str,
    timeout: Duration,
) -> (Result<(), ProcessError>, Vec<u8>) {
    let (supervisor, root, argv) = (supervisor.clone(), root.to_path_buf(), sh(body));
    within(Duration::from_secs(60), "a run keeping stderr", move || {
        let mut tail = StderrTail::new(LIMIT);
        let result =
            supervisor.run_argv_keeping_stderr(&argv, &root, b"", timeout, Some(&mut tail));
        (result, tail.bytes().to_vec())
    })
}

#[test]
fn a_child_writing_megabytes_to_stderr_never_blocks_and_only_the_tail_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    // 8 MiB, far past any pipe buffer, then a last line and a failure.
    let body = "head -c 8388608 /dev/zero >&2; echo 'the last line' >&2; exit 7";
    let start = Instant::now();
    let (result, tail) = run_kept(
        &Supervisor::new(),
        dir.path(),
        body,
        Duration::from_secs(30),
    );
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(20),
        "it was not blocked: {took:?}"
    );
    assert!(
        matches!(result, Err(ProcessError::Exit { code: 7 })),
        "{result:?}"
    );
    assert_eq!(tail.len(), LIMIT, "bounded to the limit");
    assert!(tail.ends_with(b"\0\0the last line\n"), "the last bytes");
}

#[test]
fn a_tail_is_kept_whatever_the_outcome_and_a_new_tail_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(StderrTail::new(LIMIT).bytes(), b"");
    let supervisor = Supervisor::new();
    let long = Duration::from_secs(10);
    let (ok, tail) = run_kept(&supervisor, dir.path(), "echo fine >&2", long);
    assert!(ok.is_ok(), "{ok:?}");
    assert_eq!(tail, b"fine\n");
    let (failed, tail) = run_kept(&supervisor, dir.path(), "echo why >&2; exit 1", long);
    assert_eq!(failed.unwrap_err().to_string(), "exited with status 1");
    assert_eq!(tail, b"why\n");
    let (quiet, tail) = run_kept(&supervisor, dir.path(), "exit 0", long);
    assert!(quiet.is_ok(), "{quiet:?}");
    assert_eq!(tail, b"");
    // At the deadline: what it wrote before it was killed.
    let slow = "echo 'before the deadline' >&2; exec sleep 30";
    let (late, tail) = run_kept(&supervisor, dir.path(), slow, Duration::from_millis(300));
    assert!(
        matches!(late, Err(ProcessError::TimedOut { .. })),
        "{late:?}"
    );
    assert_eq!(tail, b"before the deadline\n");
}

/// Without a tail, the child's stderr is null: a child that fails when it
/// cannot write there still runs to its own end.
#[test]
fn without_a_tail_stderr_is_null() {
    let dir = tempfile::tempdir().unwrap();
    let argv = sh("[ \"$(readlink /proc/self/fd/2)\" = /dev/null ]");
    let (root, supervisor) = (dir.path().to_path_buf(), Supervisor::new());
    let result = within(Duration::from_secs(20), "a run without a tail", move || {
        supervisor.run_argv_keeping_stderr(&argv, &root, b"", Duration::from_secs(10), None)
    });
    assert!(result.is_ok(), "{result:?}");
}

/// A child whose stderr is kept is in flight on its supervisor all the
/// same: the interrupt kills it, and what it wrote to stderr before is
/// still kept (the tail and the interrupt share one spawn-and-wait path).
#[test]
fn an_interrupted_child_keeps_the_stderr_it_wrote_before() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let body = "echo 'before the interrupt' >&2; echo $$ > pid; exec sleep 30";
    let supervisor = Supervisor::new();
    let running = {
        let (supervisor, root) = (supervisor.clone(), root.clone());
        std::thread::spawn(move || run_kept(&supervisor, &root, body, Duration::from_secs(60)))
    };
    let leader = read_pid(&root.join("pid")).expect("the child's pid");
    let _cleanup = KillOnDrop(vec![leader]);
    assert_eq!(supervisor.in_flight(), 1, "the child is in flight");

    let start = Instant::now();
    supervisor.interrupt();
    let (result, tail) = within(Duration::from_secs(10), "the interrupted run", move || {
        running.join().unwrap()
    });
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(
        result.unwrap_err().to_string(),
        "was interrupted, and its process group killed"
    );
    assert_eq!(tail, b"before the interrupt\n");
}
