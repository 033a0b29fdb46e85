//! The `append` action: created at build, mode 0600, one whole line per
//! event under concurrency, and its failures.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::collections::HashSet;
use std::fs;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::sync::Arc;

use common::{
    Ev, ReleaseFifo, append, assert_child_passed, is_reexec, reexec, started, step, within,
};
use io_hooks::{Flow, HookFailure, Hooks};

fn mode(path: &std::path::Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_file_exists_empty_after_build_even_if_nothing_matches() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    assert!(!log.exists());
    let hooks = Hooks::new(
        vec![append(&log, &["finished"], Flow::Continue)],
        dir.path(),
    );
    assert_eq!(fs::read(&log).unwrap(), b"");
    assert_eq!(hooks.fire_event(&started("g")), Flow::Continue);
    assert_eq!(hooks.fire_event(&step(1)), Flow::Continue);
    assert_eq!(fs::read(&log).unwrap(), b"", "the filter matched nothing");
}

#[test]
fn a_created_file_has_mode_0600() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let _hooks = Hooks::new(vec![append(&log, &[], Flow::Continue)], dir.path());
    assert_eq!(mode(&log), 0o600);
}

#[test]
fn an_existing_file_is_neither_truncated_nor_rechmodded() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    fs::write(&log, "earlier\n").unwrap();
    fs::set_permissions(&log, fs::Permissions::from_mode(0o640)).unwrap();
    let hooks = Hooks::new(vec![append(&log, &[], Flow::Continue)], dir.path());
    assert_eq!(fs::read_to_string(&log).unwrap(), "earlier\n");
    assert_eq!(
        hooks.fire_event(&Ev::Finished { run_id: 2 }),
        Flow::Continue
    );
    assert_eq!(
        fs::read_to_string(&log).unwrap(),
        "earlier\n{\"event\":\"finished\",\"run_id\":2}\n"
    );
    assert_eq!(mode(&log), 0o640);
}

#[test]
fn a_file_that_could_not_be_created_fails_each_append_until_it_can() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("logs");
    let log = sub.join("audit.jsonl");
    let hooks = Hooks::new(vec![append(&log, &[], Flow::Cancel)], dir.path());
    assert!(!log.exists());

    let mut failure = None;
    let flow = hooks.fire_with(&step(1), &step(1), |r| {
        failure = r.result.err().map(HookFailure::to_string);
    });
    assert_eq!(flow, Flow::Cancel, "a failed append is a hook failure");
    assert_eq!(
        failure.unwrap(),
        format!(
            "could not append to `{}`: No such file or directory",
            log.display()
        )
    );

    // The per-event open creates it, 0600, once it can.
    fs::create_dir(&sub).unwrap();
    assert_eq!(hooks.fire_event(&step(2)), Flow::Continue);
    assert_eq!(fs::read_to_string(&log).unwrap().lines().count(), 1);
    assert_eq!(mode(&log), 0o600);
}

/// A write the kernel refuses (here a file at the process's size limit:
/// `EFBIG`, its `SIGXFSZ` caught) is a failure naming the file and the
/// cause. Run in a child: the limit is process-wide.
#[test]
fn a_write_error_is_a_failure_naming_the_file_and_cause() {
    const NAME: &str = "a_write_error_is_a_failure_naming_the_file_and_cause";
    if is_reexec(NAME) {
        let dir = std::env::current_dir().unwrap();
        let log = dir.join("log");
        fs::write(&log, [b'{', b'}', b'\n']).unwrap();
        let hooks = Hooks::new(vec![append(&log, &[], Flow::Continue)], &dir);
        // Caught, so the write fails instead of the process ending.
        let caught = Arc::new(std::sync::atomic::AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGXFSZ, Arc::clone(&caught)).unwrap();
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let hard = getrlimit(Resource::Fsize).maximum;
        let at_the_limit = Rlimit {
            current: Some(3),
            maximum: hard,
        };
        setrlimit(Resource::Fsize, at_the_limit).unwrap();
        let mut failure = None;
        let flow = hooks.fire_with(&step(1), &step(1), |r| {
            failure = r.result.err().map(HookFailure::to_string);
        });
        assert_eq!(flow, Flow::Continue, "on_failure = continue");
        assert_eq!(
            failure.unwrap(),
            format!("could not append to `{}`: File too large", log.display())
        );
        assert_eq!(fs::read(&log).unwrap(), b"{}\n", "nothing written");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = reexec(NAME, &[], dir.path());
    assert_child_passed(&out);
}

/// A repository can commit `audit.jsonl -> ~/.bashrc`; an append hook whose
/// path lands on it must not write through it.
#[test]
fn a_symbolic_link_is_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("victim");
    fs::write(&target, "precious\n").unwrap();
    let log = dir.path().join("audit.jsonl");
    std::os::unix::fs::symlink(&target, &log).unwrap();
    let hooks = Hooks::new(vec![append(&log, &[], Flow::Cancel)], dir.path());
    let mut failure = None;
    let flow = hooks.fire_with(&step(1), &step(1), |r| {
        failure = r.result.err().map(HookFailure::to_string);
    });
    assert_eq!(flow, Flow::Cancel);
    assert_eq!(
        failure.unwrap(),
        format!(
            "could not append to `{}`: it is a symbolic link, which an append hook never follows; name the file itself",
            log.display()
        )
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "precious\n");
}

/// A FIFO where the log should be: opening it for writing would wait for a
/// reader forever; the hook fails at once instead.
#[test]
fn a_fifo_fails_at_once_instead_of_blocking_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    common::mkfifo(&log);
    // Should the hook block opening it for writing, the watchdog fails the
    // test and this gives it a reader, so its thread goes on.
    let _release = ReleaseFifo {
        path: log.clone(),
        for_writing: false,
    };
    let fifo = log.clone();
    let root = dir.path().to_path_buf();
    let failure = within(
        std::time::Duration::from_secs(5),
        "an append hook on a FIFO",
        move || {
            let hooks = Hooks::new(vec![append(&fifo, &[], Flow::Continue)], &root);
            let mut failure = None;
            let _ = hooks.fire_with(&step(1), &step(1), |r| {
                failure = r.result.err().map(HookFailure::to_string);
            });
            failure
        },
    )
    .expect("the hook failed");
    assert!(failure.starts_with("could not append to `"), "{failure}");
}

/// A FIFO at the log's path, with a reader at its other end: the problems
/// flag it when the hooks are built, and no event reaches the reader,
/// however many fire (the open of a FIFO that has a reader succeeds, so the
/// kind is judged on what was opened).
#[test]
fn a_fifo_with_a_reader_gets_no_event_and_each_fire_fails() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    common::mkfifo(&log);
    // The reader, open without waiting for a writer: the hook's open then
    // finds one, as a `cat` at the other end would be.
    let mut reader = fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(&log)
        .unwrap();
    let hooks = Hooks::new(vec![append(&log, &[], Flow::Continue)], dir.path());
    assert_eq!(hooks.problems().len(), 1, "{:?}", hooks.problems());
    for n in 1..=3 {
        let mut failures = Vec::new();
        let _ = hooks.fire_with(&step(n), &step(n), |r| {
            failures.extend(r.result.err().map(HookFailure::to_string));
        });
        assert_eq!(failures.len(), 1, "event {n}: {failures:?}");
        assert!(
            failures[0].ends_with(
                "it is not a regular file (a FIFO, a socket or a device), and an append hook \
                 writes only to a file"
            ),
            "{}",
            failures[0]
        );
    }
    let mut got = Vec::new();
    // Non-blocking: no writer holds it now, so this reads to the end at once.
    let _ = reader.read_to_end(&mut got);
    assert_eq!(
        got,
        b"",
        "the FIFO's reader got {}",
        String::from_utf8_lossy(&got)
    );
}

/// A file size limit makes the kernel write only part of a line; that is a
/// failure, reported with the count. Run in a child: the limit is
/// process-wide.
#[test]
fn a_short_write_is_a_failure() {
    const NAME: &str = "a_short_write_is_a_failure";
    // The child works in the parent's temporary directory, so that even a
    // child killed by a signal leaves nothing behind.
    if is_reexec(NAME) {
        let dir = std::env::current_dir().unwrap();
        let log = dir.join("log");
        // 90 bytes ending in a newline: a torn last line would be ended
        // when the hooks are built.
        let whole = [[b'x'; 89].as_slice(), b"\n"].concat();
        fs::write(&log, &whole).unwrap();
        let hooks = Hooks::new(vec![append(&log, &[], Flow::Cancel)], &dir);
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let hard = getrlimit(Resource::Fsize).maximum;
        setrlimit(
            Resource::Fsize,
            Rlimit {
                current: Some(100),
                maximum: hard,
            },
        )
        .unwrap();
        let ev = Ev::Finished { run_id: 1 };
        let len = serde_json::to_string(&ev).unwrap().len() + 1;
        let mut failure = None;
        let flow = hooks.fire_with(&ev, &ev, |r| {
            failure = r.result.err().map(HookFailure::to_string);
        });
        assert_eq!(flow, Flow::Cancel);
        assert_eq!(
            failure.unwrap(),
            format!(
                "could not append to `{}`: wrote 10 of {len} bytes",
                log.display()
            )
        );
        // Nothing is cut off (another writer's line may follow the 10
        // bytes): the last of them is a newline now, so the next line
        // starts on its own.
        let ended = [
            whole.as_slice(),
            &serde_json::to_vec(&ev).unwrap()[..9],
            b"\n",
        ]
        .concat();
        assert_eq!(fs::read(&log).unwrap(), ended, "the 10 bytes are ended");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = reexec(NAME, &[], dir.path());
    assert_child_passed(&out);
}

/// 16 threads x 2,000 events into one file: every line whole, every event
/// there exactly once. The threads stand for the runs of a tree, each with
/// its own `run_id` and depth.
#[test]
fn concurrent_appends_keep_every_line_whole() {
    const THREADS: u64 = 16;
    const EVENTS: u64 = 2_000;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let hooks = Arc::new(Hooks::new(
        vec![append(&log, &["step"], Flow::Cancel)],
        dir.path(),
    ));
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let hooks = Arc::clone(&hooks);
            std::thread::spawn(move || {
                for n in 0..EVENTS {
                    let ev = Ev::Step {
                        run_id: t,
                        depth: (t % 3) as u32,
                        n,
                    };
                    assert_eq!(hooks.fire_event(&ev), Flow::Continue);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let text = fs::read_to_string(&log).unwrap();
    let mut seen = HashSet::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a whole JSON line");
        assert_eq!(v["event"], "step");
        let run_id = v["run_id"].as_u64().unwrap();
        assert_eq!(v["depth"].as_u64().unwrap(), run_id % 3);
        assert!(seen.insert((run_id, v["n"].as_u64().unwrap())), "{line}");
    }
    assert_eq!(seen.len() as u64, THREADS * EVENTS);
    assert_eq!(text.lines().count() as u64, THREADS * EVENTS);
    assert!(text.ends_with('\n'));
}

#[test]
fn a_line_of_the_embedders_own_that_holds_a_newline_is_refused_and_nothing_is_appended() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let hooks = Hooks::new(vec![append(&log, &[], Flow::Cancel)], dir.path());
    let torn = || Ok(b"{\"event\":\"started\"}\n{\"event\":\"finished\"}".to_vec());
    assert_eq!(hooks.fire_line(&started("g"), torn), Flow::Cancel);
    assert_eq!(
        fs::read(&log).unwrap(),
        b"",
        "no part of the line is written"
    );
    let whole = || Ok(b"{\"event\":\"started\"}".to_vec());
    assert_eq!(hooks.fire_line(&started("g"), whole), Flow::Continue);
    assert_eq!(fs::read(&log).unwrap(), b"{\"event\":\"started\"}\n");
}
