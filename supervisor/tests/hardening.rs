//! Issue 14, round two, the supervisor's side: a host that ignores
//! `SIGCHLD`, and the host's interrupt of a child it spawned itself. The
//! engine's side is io-hooks' `tests/hardening.rs`.
#![cfg(unix)] // Windows: tests/windows.rs

mod common;

use std::fs;
use std::time::Duration;

use io_supervisor::{ProcessError, Supervisor};

use common::{KillOnDrop, alive, assert_child_passed, is_reexec, read_pid, reexec, wait_until};

/// A host that ignores `SIGCHLD` (the setting survives `exec`) has every
/// child reaped by the kernel unasked: no exit status can be read. The
/// supervisor says so, as its own kind of failure; it never reads it as a
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
        let argv = ["true".to_owned()];
        let direct = io_supervisor::run_argv(
            &argv,
            &dir,
            b"",
            std::process::Stdio::null(),
            Duration::from_secs(5),
        );
        assert!(
            matches!(direct, Err(ProcessError::Wait { .. })),
            "{direct:?}"
        );
        assert_eq!(
            direct.unwrap_err().to_string(),
            "could not collect its exit status: No child processes"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert_child_passed(&reexec(NAME, dir.path()));
}

/// A background child the host spawned itself, tracked on the interrupt:
/// the interrupt kills its group; once interrupted, a new one is killed and
/// reaped as it is handed over.
#[test]
fn an_interrupt_kills_a_tracked_background_group() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let spawn = || {
        std::process::Command::new("/bin/sh")
            .args(["-c", "sleep 30 & echo $! > gc.pid; wait"])
            .current_dir(dir.path())
            .process_group(0)
            .spawn()
            .unwrap()
    };
    let interrupt = Supervisor::new();
    let mut tracked = interrupt.track(spawn()).unwrap();
    let grandchild = read_pid(&dir.path().join("gc.pid")).expect("the grandchild's pid");
    let _cleanup = KillOnDrop(vec![tracked.id() as i32, grandchild]);
    assert!(tracked.try_wait().unwrap().is_none(), "still running");
    assert_eq!(
        interrupt.in_flight(),
        0,
        "tracked children are the host's to reap"
    );

    interrupt.interrupt();
    assert!(
        wait_until(Duration::from_secs(10), || !alive(grandchild)),
        "the tracked group survived the interrupt"
    );
    let mut status = None;
    assert!(wait_until(Duration::from_secs(10), || {
        status = tracked.try_wait().unwrap();
        status.is_some()
    }));
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status.unwrap()),
        Some(9)
    );
    fs::remove_file(dir.path().join("gc.pid")).unwrap();
    let late = interrupt.track(spawn());
    assert!(matches!(late, Err(ProcessError::Interrupted)), "{late:?}");
}
