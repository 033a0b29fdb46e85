//! `examples/tokio.rs`, run: its jobs fire through `spawn_blocking` on a
//! multi-thread runtime, and a SIGINT raised while their `run` hooks are in
//! flight ends those hooks through their `Supervisor`, cancelling every job. The
//! example's own functions are compiled in here, so the test runs the code
//! the example shows.
#![cfg(unix)] // The example ends its hooks at SIGINT (signal-hook): Unix-only (issue 47)

mod common;
#[path = "../examples/tokio.rs"]
#[allow(dead_code)] // its `main` is the example's, not the test's
mod example;

use std::sync::Arc;
use std::time::Duration;

use io_hooks::Flow;

use common::{wait_until, within};

/// Far above anything here takes, far below the hook's own minute.
const LIMIT: Duration = Duration::from_secs(20);

/// The example's hooks, with a `run` hook that outlasts the test unless it
/// is interrupted.
const HOOKS: &str = r#"
[[hook]]
append = "jobs.jsonl"

[[hook]]
on = ["job_started"]
run = ["sleep", "60"]
timeout_ms = 120000
on_failure = "cancel"
"#;

#[test]
fn ctrl_c_ends_the_hooks_in_flight_and_cancels_every_job() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let hooks = Arc::new(example::load(dir.path(), HOOKS).expect("the table is valid"));
    assert!(hooks.problems().is_empty(), "{:?}", hooks.problems());
    let interrupt = hooks.supervisor();
    let signals = example::interrupt_on_signals(interrupt.clone()).expect("handlers register");

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .expect("a runtime");
    // One worker thread, three jobs blocked in hooks: they are on blocking
    // threads, or the worker could not have started the third.
    let jobs = runtime.spawn(example::run_jobs(Arc::clone(&hooks), 3));
    assert!(
        wait_until(LIMIT, || interrupt.in_flight() == 3),
        "three hooks in flight, found {}",
        interrupt.in_flight()
    );
    // The runtime's worker is free while they block: a task spawned now
    // runs there (`block_on` runs only its own future on this thread).
    let handle = runtime.handle().clone();
    let task = handle.spawn(async { 1 + 1 });
    let sum = within(LIMIT, "a task on the worker", move || handle.block_on(task));
    assert_eq!(sum.expect("the task"), 2);

    signal_hook::low_level::raise(signal_hook::consts::SIGINT).expect("SIGINT raised");
    let flows = within(LIMIT, "the jobs ending after Ctrl-C", move || {
        runtime.block_on(jobs).expect("the jobs' task")
    });
    signals.close();

    assert_eq!(flows, [Flow::Cancel, Flow::Cancel, Flow::Cancel]);
    assert!(interrupt.is_interrupted());
    assert!(interrupt.wait_reaped(LIMIT), "every hook reaped");
    let log = std::fs::read_to_string(dir.path().join("jobs.jsonl")).expect("the log");
    let mut lines: Vec<&str> = log.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "{\"event\":\"job_started\",\"id\":0}",
            "{\"event\":\"job_started\",\"id\":1}",
            "{\"event\":\"job_started\",\"id\":2}",
        ],
        "no job went on to finish"
    );
}

#[test]
fn without_ctrl_c_every_job_finishes() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let text = example::HOOKS.replace("[\"sleep\", \"3\"]", "[\"true\"]");
    let hooks = Arc::new(example::load(dir.path(), &text).expect("the table is valid"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let flows = within(LIMIT, "two jobs", move || {
        runtime.block_on(example::run_jobs(hooks, 2))
    });
    assert_eq!(flows, [Flow::Continue, Flow::Continue]);
    let log = std::fs::read_to_string(dir.path().join("jobs.jsonl")).expect("the log");
    assert_eq!(log.lines().count(), 4, "{log}");
    assert!(
        log.contains("{\"event\":\"job_finished\",\"id\":1}"),
        "{log}"
    );
}
