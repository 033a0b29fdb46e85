//! Issue 22: `capture_stderr` leaks nothing. A hook whose background child
//! keeps its stderr open used to leave a thread and a pipe behind per
//! event, until hooks failed with "Too many open files". Alone in its test
//! binary: it counts this process's descriptors and threads.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::time::{Duration, Instant};

use io_hooks::{Flow, Hooks};

use common::{mkfifo, run, step, within};

fn count(dir: &str) -> usize {
    fs::read_dir(dir).unwrap().count()
}

/// 1,000 events to a hook that starts a background child holding its
/// stderr, writes a line there and fails: each failure still has its line,
/// and the descriptors and threads of this process are as many after as
/// before. The children all wait on one FIFO, and end when the test lets
/// go of it.
#[test]
fn a_thousand_events_with_stderr_held_open_leave_the_fd_count_flat() {
    const EVENTS: usize = 1000;
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
    let body = "cat gate >&2 & echo why >&2; exit 3";
    let root = dir.path().to_path_buf();
    let (before, after, threads, took) =
        within(Duration::from_secs(300), "1,000 events", move || {
            let hooks = Hooks::new(
                vec![run(&["/bin/sh", "-c", body], 10_000, &[], Flow::Continue)],
                &root,
            )
            .capture_stderr(4096);
            let fire = || {
                let mut tails = Vec::new();
                let _ = hooks.fire_with(&step(1), &step(1), |run| {
                    tails.push(run.stderr.map(<[u8]>::to_vec));
                });
                tails
            };
            // One event first: whatever is opened once and kept is not a leak.
            assert_eq!(fire(), [Some(b"why\n".to_vec())]);
            let before = (count("/proc/self/fd"), count("/proc/self/task"));
            let start = Instant::now();
            for _ in 0..EVENTS {
                assert_eq!(fire(), [Some(b"why\n".to_vec())]);
            }
            let took = start.elapsed();
            let after = (count("/proc/self/fd"), count("/proc/self/task"));
            (before.0, after.0, (before.1, after.1), took)
        });
    drop(holder);
    assert_eq!(after, before, "descriptors: {before} before, {after} after");
    assert_eq!(threads.1, threads.0, "threads before and after");
    eprintln!("{EVENTS} events in {took:?}");
}
