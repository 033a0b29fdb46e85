//! Deadlines for test steps that could block: a regression fails the test
//! with a message naming what hung, instead of hanging the suite; bounded
//! waits on a condition, never a bare `sleep`; and what a test needs to
//! tell that a process it started is gone, and to end it if not.
//!
//! Shared by the test binaries of `io-hooks` and of `io-harness` (each
//! crate's `tests/common/mod.rs` includes this file by path). The published
//! crates below keep their own (`docs/decisions.md`, "The tests' watchdog").

use std::path::Path;
use std::time::{Duration, Instant};

/// Runs `body` on a thread of its own and returns its result, or panics
/// naming `what` if it has not finished within `limit`. A panic in `body`
/// is passed on as it was. A body that hung is left blocked on its thread,
/// which ends with the test process.
#[track_caller]
pub(crate) fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    body: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(body());
    });
    match rx.recv_timeout(limit) {
        Ok(value) => {
            let _ = worker.join();
            value
        }
        // The sender was dropped without a value: `body` panicked.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the worker sends before it returns"),
        },
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("hung: {what} did not finish within {limit:?}")
        }
    }
}

#[cfg(unix)]
/// Makes a FIFO (mode 0600) at `path`.
pub(crate) fn mkfifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .expect("mkfifo");
}

#[cfg(unix)]
/// When dropped, opens the FIFO at `path` from one side without blocking,
/// then closes it: whatever is blocked opening the other end (a hook's
/// `open` for writing, a `git` reading its index) goes on, so a test that
/// fails because a FIFO hung leaves nothing stuck behind it.
pub(crate) struct ReleaseFifo {
    /// The FIFO.
    pub(crate) path: std::path::PathBuf,
    /// Open it for writing (releasing a reader) rather than for reading.
    pub(crate) for_writing: bool,
}

#[cfg(unix)]
#[cfg(unix)]
impl Drop for ReleaseFifo {
    fn drop(&mut self) {
        use rustix::fs::{Mode, OFlags};
        let side = if self.for_writing {
            OFlags::WRONLY
        } else {
            OFlags::RDONLY
        };
        // Fails (ENXIO) only when nobody is blocked on the other end.
        let _ = rustix::fs::open(
            &self.path,
            side | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        );
    }
}

/// Polls `cond` until it holds or `limit` passes; returns whether it held.
pub(crate) fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Reads a pid a script wrote to `path` (`echo $$ > path`), once it is
/// there whole: the shell creates the file before it writes to it, so a
/// reader that parsed whatever it found could take `12` of `1234`. The line
/// is complete once it ends in its newline.
pub(crate) fn read_pid(path: &Path) -> Option<i32> {
    let mut pid = None;
    wait_until(Duration::from_secs(10), || {
        pid = std::fs::read_to_string(path)
            .ok()
            .filter(|s| s.ends_with('\n'))
            .and_then(|s| s.trim().parse().ok());
        pid.is_some()
    });
    pid
}

#[cfg(unix)]
/// Waits for `child` and collects its output under the watchdog: a child
/// still running after `limit` fails the test naming `what`, and is
/// SIGKILLed first (it is still unreaped then, so its pid is still its own).
pub(crate) fn output_within(
    child: std::process::Child,
    limit: Duration,
    what: &str,
) -> std::process::Output {
    struct KillUnlessDone(Option<i32>);
    impl Drop for KillUnlessDone {
        fn drop(&mut self) {
            if let Some(pid) = self.0.and_then(rustix::process::Pid::from_raw) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }
    let mut guard = KillUnlessDone(Some(child.id() as i32));
    let out = within(limit, what, move || {
        child.wait_with_output().expect("wait for the child")
    });
    guard.0 = None;
    out
}

/// A process's state letter from `/proc/<pid>/stat` (`R`, `S`, `Z`…), or
/// `None` when there is no such process.
pub(crate) fn proc_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().next()?.chars().next()
}

/// Whether `pid` is alive: present and not a zombie.
pub(crate) fn alive(pid: i32) -> bool {
    matches!(proc_state(pid), Some(s) if s != 'Z' && s != 'X')
}

#[cfg(unix)]
/// SIGKILLs `pids` when dropped, so a failing test leaves nothing running.
pub(crate) struct KillOnDrop(pub(crate) Vec<i32>);

#[cfg(unix)]
#[cfg(unix)]
impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for &pid in &self.0 {
            if let Some(p) = rustix::process::Pid::from_raw(pid)
                && alive(pid)
            {
                let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
            }
        }
    }
}
