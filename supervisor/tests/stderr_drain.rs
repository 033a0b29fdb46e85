//! Issue 22, the supervisor's side: keeping a child's stderr leaks nothing.
//! A child whose background child keeps its stderr open used to leave a
//! thread and a pipe behind per run, until runs failed with "Too many open
//! files". Alone in its test binary: it counts this process's descriptors
//! and threads.
#![cfg(unix)] // Windows: tests/windows.rs

mod common;

use std::fs;
use std::time::{Duration, Instant};

use io_supervisor::{StderrTail, Supervisor};

use common::{mkfifo, within};

fn count(dir: &str) -> usize {
    fs::read_dir(dir).unwrap().count()
}

/// 500 runs of a child that starts a background child holding its stderr,
/// writes a line there and fails: each run still has its line, and the
/// descriptors and threads of this process are as many after as before.
/// The background children all wait on one FIFO, and end when the test
/// lets go of it.
#[test]
fn runs_with_stderr_held_open_leave_the_fd_count_flat() {
    const RUNS: usize = 500;
    let dir = tempfile::tempdir().unwrap();
    let gate = dir.path().join("gate");
    mkfifo(&gate);
    // Held for reading and writing: the children's reads wait on it (and
    // their opens do not), until it is dropped.
    let holder = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&gate)
        .unwrap();
    let argv = ["/bin/sh", "-c", "cat gate >&2 & echo why >&2; exit 3"].map(String::from);
    let root = dir.path().to_path_buf();
    let (before, after, threads, took) = within(Duration::from_secs(300), "500 runs", move || {
        let supervisor = Supervisor::new();
        let run = || {
            let mut tail = StderrTail::new(4096);
            let timeout = Duration::from_secs(10);
            let result =
                supervisor.run_argv_keeping_stderr(&argv, &root, b"", timeout, Some(&mut tail));
            (result.map_err(|e| e.to_string()), tail.bytes().to_vec())
        };
        let failed = (Err("exited with status 3".to_owned()), b"why\n".to_vec());
        // One run first: whatever is opened once and kept is not a leak.
        assert_eq!(run(), failed);
        let before = (count("/proc/self/fd"), count("/proc/self/task"));
        let start = Instant::now();
        for _ in 0..RUNS {
            assert_eq!(run(), failed);
        }
        let took = start.elapsed();
        let after = (count("/proc/self/fd"), count("/proc/self/task"));
        (before.0, after.0, (before.1, after.1), took)
    });
    drop(holder);
    assert_eq!(after, before, "descriptors: {before} before, {after} after");
    assert_eq!(threads.1, threads.0, "threads before and after");
    eprintln!("{RUNS} runs in {took:?}");
}
