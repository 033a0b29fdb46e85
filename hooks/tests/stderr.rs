//! `Hooks::capture_stderr`: a failed `run` hook's stderr tail, bounded and
//! drained, and nothing at all when it is off.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::time::{Duration, Instant};

use common::{Ev, run, within};
use io_hooks::{Flow, HookFailure, Hooks};

const LIMIT: usize = 4096;

/// Fires one `step` at `hooks`; each hook's failure text and stderr tail.
fn fire(hooks: &Hooks<Ev>) -> Vec<(Option<String>, Option<Vec<u8>>)> {
    let mut runs = Vec::new();
    let _ = hooks.fire_with(&common::step(1), &common::step(1), |run| {
        runs.push((
            run.result.err().map(HookFailure::to_string),
            run.stderr.map(<[u8]>::to_vec),
        ));
    });
    runs
}

#[test]
fn a_hook_writing_megabytes_to_stderr_never_blocks_and_only_the_tail_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    // 8 MiB, far past any pipe buffer, then a last line and a failure.
    let body = "head -c 8388608 /dev/zero >&2; echo 'the last line' >&2; exit 7";
    let root = dir.path().to_path_buf();
    let (runs, took) = within(Duration::from_secs(60), "a noisy hook", move || {
        let hooks = Hooks::new(
            vec![run(&["/bin/sh", "-c", body], 30_000, &[], Flow::Continue)],
            &root,
        )
        .capture_stderr(LIMIT);
        let start = Instant::now();
        (fire(&hooks), start.elapsed())
    });
    assert!(
        took < Duration::from_secs(20),
        "it was not blocked: {took:?}"
    );
    let (failure, tail) = &runs[0];
    assert_eq!(failure.as_deref(), Some("exited with status 7"));
    let tail = tail.as_ref().expect("captured");
    assert_eq!(tail.len(), LIMIT, "bounded to the limit");
    assert!(tail.ends_with(b"\0\0the last line\n"), "the last bytes");
}

#[test]
fn without_capture_there_is_no_tail_and_a_success_has_none_either() {
    let dir = tempfile::tempdir().unwrap();
    let fails = run(
        &["/bin/sh", "-c", "echo why >&2; exit 1"],
        5000,
        &[],
        Flow::Continue,
    );
    let works = run(
        &["/bin/sh", "-c", "echo fine >&2"],
        5000,
        &[],
        Flow::Continue,
    );
    let plain = Hooks::new(vec![fails.clone()], dir.path());
    assert_eq!(fire(&plain), [(Some("exited with status 1".into()), None)]);
    let captured = Hooks::new(vec![fails, works], dir.path()).capture_stderr(LIMIT);
    assert_eq!(
        fire(&captured),
        [
            (Some("exited with status 1".into()), Some(b"why\n".to_vec())),
            (None, None)
        ]
    );
}

/// A captured hook is still in flight on the hooks' interrupt: the
/// interrupt kills it, and what it wrote to stderr before is still given
/// with its `Interrupted` failure (the capture and the interrupt share one
/// spawn-and-wait path).
#[test]
fn an_interrupted_hook_keeps_the_stderr_it_wrote_before() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let body = "echo 'before the interrupt' >&2; echo $$ > pid; exec sleep 30";
    let hooks = Hooks::new(
        vec![run(&["/bin/sh", "-c", body], 60_000, &[], Flow::Continue)],
        &root,
    )
    .capture_stderr(LIMIT);
    let interrupt = hooks.supervisor();
    let firing = std::thread::spawn(move || fire(&hooks));
    let leader = common::read_pid(&root.join("pid")).expect("the hook's pid");
    let _cleanup = common::KillOnDrop(vec![leader]);
    assert_eq!(interrupt.in_flight(), 1, "the captured hook is tracked");

    let start = Instant::now();
    interrupt.interrupt();
    let runs = within(Duration::from_secs(10), "the interrupted fire", move || {
        firing.join().unwrap()
    });
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(
        runs,
        [(
            Some("was interrupted, and its process group killed".into()),
            Some(b"before the interrupt\n".to_vec())
        )]
    );
}
