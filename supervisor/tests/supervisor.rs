//! The [`Supervisor`]'s own bookkeeping: which children it counts and
//! waits for, which groups an interrupt kills once others have ended or been
//! let go, and what a [`Tracked`](io_supervisor::Tracked) child does when it is
//! killed and reaped. Real children, each blocked on a FIFO of its own until
//! the test lets it go, so nothing here waits on a guess.
#![cfg(unix)] // Windows: tests/windows.rs

mod common;

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

use io_supervisor::{ProcessError, Supervisor};
use rustix::io::Errno;
use rustix::process::{Pid, WaitOptions, waitpid};

use common::{KillOnDrop, ReleaseFifo, alive, read_pid, wait_until, within};

/// Far above anything here takes, far below a hang.
const LIMIT: Duration = Duration::from_secs(10);

/// A FIFO at `dir/name`, for a child to block on until the test lets it go.
fn fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    common::mkfifo(&path);
    path
}

/// Lets the child reading `fifo` go on: opens it for writing (which waits
/// for the child to open it too) and writes it a line.
fn release(fifo: &Path) {
    let fifo = fifo.to_path_buf();
    within(LIMIT, "a child opening its FIFO", move || {
        fs::OpenOptions::new()
            .write(true)
            .open(&fifo)
            .and_then(|mut f| f.write_all(b"go\n"))
    })
    .expect("the FIFO takes a line");
}

/// On a thread, a child run through `interrupt` (so in flight on it) that
/// waits for a line on the FIFO `dir/name`, then exits 0.
fn run_waiting(
    interrupt: &Supervisor,
    dir: &Path,
    name: &str,
) -> JoinHandle<Result<(), ProcessError>> {
    let interrupt = interrupt.clone();
    let root = dir.to_path_buf();
    let argv = ["/bin/sh", "-c", &format!("read line < {name}")].map(str::to_owned);
    let timeout = Duration::from_secs(60);
    std::thread::spawn(move || interrupt.run_argv(&argv, &root, b"", Stdio::null(), timeout))
}

fn joined(what: &str, child: JoinHandle<Result<(), ProcessError>>) -> Result<(), ProcessError> {
    within(LIMIT, what, move || child.join().expect("no panic"))
}

/// A background child leading a group of its own, as `track` wants.
fn background(dir: &Path, body: &str) -> Child {
    Command::new("/bin/sh")
        .args(["-c", body])
        .current_dir(dir)
        .process_group(0)
        .spawn()
        .unwrap()
}

#[test]
fn wait_reaped_waits_for_the_children_in_flight() {
    let interrupt = Supervisor::new();
    assert!(!interrupt.is_interrupted());
    assert_eq!(interrupt.in_flight(), 0);
    assert!(
        interrupt.wait_reaped(Duration::ZERO),
        "nothing is in flight"
    );

    let dir = tempfile::tempdir().unwrap();
    let go = fifo(dir.path(), "go");
    // Should the test fail with the child blocked, this lets it go.
    let _release = ReleaseFifo {
        path: go.clone(),
        for_writing: true,
    };
    let child = run_waiting(&interrupt, dir.path(), "go");
    assert!(wait_until(LIMIT, || interrupt.in_flight() == 1));
    assert!(
        !interrupt.wait_reaped(Duration::from_millis(100)),
        "a child is still in flight"
    );
    release(&go);
    assert!(interrupt.wait_reaped(LIMIT));
    assert_eq!(interrupt.in_flight(), 0);
    assert!(joined("the released child", child).is_ok());
    assert!(!interrupt.is_interrupted(), "nothing interrupted it");
}

/// Two children in flight; the first ends on its own; an interrupt still
/// kills the second (each child is forgotten on its own, by an id of its
/// own).
#[test]
fn an_interrupt_kills_the_child_left_in_flight_after_another_ended() {
    let interrupt = Supervisor::new();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (fifo(dir.path(), "a"), fifo(dir.path(), "b"));
    let _release = ReleaseFifo {
        path: b,
        for_writing: true,
    };
    let first = run_waiting(&interrupt, dir.path(), "a");
    let second = run_waiting(&interrupt, dir.path(), "b");
    assert!(wait_until(LIMIT, || interrupt.in_flight() == 2));
    release(&a);
    assert!(joined("the released child", first).is_ok());
    assert_eq!(interrupt.in_flight(), 1);

    interrupt.interrupt();
    assert!(interrupt.is_interrupted());
    let second = joined("the child left in flight, interrupted", second);
    assert!(
        matches!(second, Err(ProcessError::Interrupted)),
        "{second:?}"
    );
    assert!(interrupt.wait_reaped(LIMIT));
}

/// `end_in_flight` kills the children in flight then, a tracked one
/// too, and refuses nothing after: a child started afterwards runs to its
/// end, and a later `end_in_flight` kills only what is in flight at it.
#[test]
fn end_in_flight_kills_what_is_in_flight_and_lets_later_children_run() {
    let supervisor = Supervisor::new();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (fifo(dir.path(), "a"), fifo(dir.path(), "b"));
    let _release = ReleaseFifo {
        path: a,
        for_writing: true,
    };
    let tracked = supervisor
        .track(background(dir.path(), "echo $$ > tracked.pid; sleep 60"))
        .unwrap();
    let tracked_pid = read_pid(&dir.path().join("tracked.pid")).expect("the tracked child's pid");
    let _kill = KillOnDrop(vec![tracked_pid]);
    let first = run_waiting(&supervisor, dir.path(), "a");
    assert!(wait_until(LIMIT, || supervisor.in_flight() == 1));

    supervisor.end_in_flight();
    let first = joined("the child in flight, ended", first);
    assert!(matches!(first, Err(ProcessError::Interrupted)), "{first:?}");
    assert!(
        wait_until(LIMIT, || !alive(tracked_pid)),
        "the tracked child lived on"
    );
    tracked.kill_and_reap();
    assert!(!supervisor.is_interrupted());

    let second = run_waiting(&supervisor, dir.path(), "b");
    assert!(wait_until(LIMIT, || supervisor.in_flight() == 1));
    release(&b);
    assert!(joined("a child started after it", second).is_ok());
    supervisor.end_in_flight();
    assert_eq!(supervisor.in_flight(), 0);
}

/// A `Tracked` dropped unreaped is let go: an interrupt no longer kills
/// it, and still kills every other tracked child. The child let go proves
/// it lived: released after the interrupt, it runs its script to the end.
#[test]
fn a_dropped_tracked_child_is_let_go_and_only_it() {
    let dir = tempfile::tempdir().unwrap();
    let go = fifo(dir.path(), "go");
    // Should the test fail with the child let go still blocked, this lets
    // it go.
    let _release = ReleaseFifo {
        path: go.clone(),
        for_writing: true,
    };
    let interrupt = Supervisor::new();
    let (a, b) = (
        background(dir.path(), "read line < go"),
        background(dir.path(), "exec sleep 30"),
    );
    let (a_pid, b_pid) = (a.id(), b.id());
    let _cleanup = KillOnDrop(vec![a_pid as i32, b_pid as i32]);
    let a = interrupt.track(a).unwrap();
    let mut b = interrupt.track(b).unwrap();
    assert_eq!(
        (a.id(), b.id()),
        (a_pid, b_pid),
        "a tracked child's id is its pid"
    );

    drop(a);
    interrupt.interrupt();
    let mut status = None;
    assert!(
        wait_until(LIMIT, || {
            status = b.try_wait().unwrap();
            status.is_some()
        }),
        "the tracked child survived the interrupt"
    );
    assert_eq!(status.unwrap().signal(), Some(9));

    // Killed, it could not take the line (`release` would hang) or would
    // end by SIGKILL; let go, it reads the line and exits 0.
    release(&go);
    let a_pid = Pid::from_raw(a_pid as i32).unwrap();
    let a_status = within(LIMIT, "the child let go, ending", move || {
        waitpid(Some(a_pid), WaitOptions::empty())
    })
    .unwrap()
    .map(|(_, status)| status);
    assert!(
        a_status.is_some_and(|s| s.exit_status() == Some(0)),
        "the child let go was killed too: {a_status:?}"
    );
}

#[test]
fn kill_and_reap_ends_the_whole_group_and_reaps_its_leader() {
    let dir = tempfile::tempdir().unwrap();
    let leader = background(dir.path(), "sleep 30 & echo $! > gc.pid; wait");
    let pid = leader.id() as i32;
    let tracked = Supervisor::new().track(leader).unwrap();
    let grandchild = read_pid(&dir.path().join("gc.pid")).expect("the grandchild's pid");
    let _cleanup = KillOnDrop(vec![pid, grandchild]);

    tracked.kill_and_reap();
    assert_eq!(
        waitpid(Pid::from_raw(pid), WaitOptions::NOHANG).err(),
        Some(Errno::CHILD),
        "the leader is reaped"
    );
    assert!(
        wait_until(LIMIT, || !alive(grandchild)),
        "the grandchild in the leader's group survived"
    );
}

/// An executable script `name` in `dir` that exits with `code`.
fn exits(dir: &Path, name: &str, code: i32) {
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\nexit {code}\n")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_handle_runs_each_roots_own_program_for_a_name_with_a_slash() {
    // Bare names found on PATH are remembered per handle; a name with a
    // `/` is the root's file, so the same name in two roots is two
    // programs, never the first one remembered.
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    exits(one.path(), "tool", 3);
    exits(two.path(), "tool", 4);
    let supervisor = Supervisor::new();
    let argv = ["./tool".to_owned()];
    let run = |root: &Path| {
        // A script just written can be busy for a moment: its descriptor,
        // open for writing, is inherited by a child another test thread
        // forks, until that child execs, and executing the script meanwhile
        // fails with ETXTBSY. A busy spawn is tried again, up to a bound.
        let mut said = String::new();
        for _ in 0..100 {
            said = supervisor
                .run_argv(&argv, root, b"", Stdio::null(), Duration::from_secs(20))
                .unwrap_err()
                .to_string();
            if !said.ends_with("Text file busy") {
                break;
            }
            std::thread::yield_now();
        }
        said
    };
    assert_eq!(run(one.path()), "exited with status 3");
    assert_eq!(run(two.path()), "exited with status 4");
}
