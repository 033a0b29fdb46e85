//! One child, from its spawn to its reaping (its `Command` built from the
//! argv in `entry.rs`): a process group of its own, the stdin pipe, the
//! supervisor's slot, the deadline, the kill, and the exit status read as a
//! [`ProcessError`].

use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};

use super::error::{ProcessError, outcome};
use super::stderr::{Drainer, StderrTail};
use super::supervisor::Supervisor;
use super::wait::{WaitMode, Waiter, feed_and_wait, set_fresh_pipe_nonblocking};

#[cfg(test)]
pub(super) fn run_with(
    argv: &[String],
    timeout: Duration,
    root: &std::path::Path,
    line: &[u8],
    mode: WaitMode,
) -> Result<(), ProcessError> {
    let supervisor = Supervisor::new();
    let watch = Watch {
        mode,
        supervisor: &supervisor,
        capture: None,
    };
    super::entry::spawn_and_wait(argv, timeout, root, line, Stdio::null(), watch, &[])
}

/// How a child is watched while it runs, beside its deadline: how its exit
/// is waited for, the [`Supervisor`] it is in flight on, and where the end of
/// its stderr is kept, when anywhere.
pub(crate) struct Watch<'a> {
    pub(super) mode: WaitMode,
    pub(super) supervisor: &'a Supervisor,
    pub(super) capture: Option<&'a mut StderrTail>,
}

impl<'a> Watch<'a> {
    /// A child on `supervisor`: a pidfd where there is one, the end of its
    /// stderr kept in `capture` when given.
    pub(crate) fn auto(supervisor: &'a Supervisor, capture: Option<&'a mut StderrTail>) -> Self {
        Watch {
            mode: WaitMode::Auto,
            supervisor,
            capture,
        }
    }
}

/// `/dev/null` for a child's stdout or stderr: one descriptor, opened the
/// first time, duplicated for each child, where `Stdio::null` opens the
/// device again each time (two opens a `run` hook, about 1% of one on
/// `true`). `Stdio::null` still, should that open or the duplicate fail.
pub(crate) fn null() -> Stdio {
    static NULL: OnceLock<Option<OwnedFd>> = OnceLock::new();
    NULL.get_or_init(open_null)
        .as_ref()
        .and_then(|fd| fd.try_clone().ok())
        .map_or_else(Stdio::null, Stdio::from)
}

#[allow(
    clippy::disallowed_methods,
    reason = "/dev/null, a fixed device path no clone or model shapes, opened as `Stdio::null` opens it"
)]
fn open_null() -> Option<OwnedFd> {
    use rustix::fs::{Mode, OFlags, open};
    open("/dev/null", OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty()).ok()
}

pub(crate) fn wait_for(
    mut command: Command,
    program: &str,
    line: &[u8],
    timeout: Duration,
    watch: Watch<'_>,
) -> Result<(), ProcessError> {
    let Watch {
        mode,
        supervisor,
        capture,
    } = watch;
    let spawn_failed = |cause: std::io::Error| ProcessError::Spawn {
        program: program.to_owned(),
        cause,
    };

    // Our own pipe, close-on-exec both ends, so a hook spawned at the same
    // moment on another thread inherits neither (std uses `pipe2` where
    // there is one; macOS has none). `reader` stays open here until the
    // child is done: see the module docs on SIGPIPE.
    let (reader, writer) = std::io::pipe().map_err(spawn_failed)?;
    let (reader, writer) = (OwnedFd::from(reader), OwnedFd::from(writer));
    // Non-blocking on the write end only: the read end is a separate open
    // file description, so the child still reads a blocking stdin. Fresh:
    // one `fcntl`, no `F_GETFL` first.
    set_fresh_pipe_nonblocking(&writer).map_err(|e| spawn_failed(e.into()))?;
    let child_stdin = reader.try_clone().map_err(spawn_failed)?;

    command.stdin(Stdio::from(child_stdin)).process_group(0);
    if capture.is_some() {
        command.stderr(Stdio::piped());
    }
    let slot = supervisor.enter()?;
    let spawned = Instant::now();
    let mut child = command.spawn().map_err(spawn_failed)?;
    let pid = Pid::from_child(&child);
    slot.spawned(pid);
    let drainer = match (&capture, child.stderr.take()) {
        (Some(c), Some(pipe)) => Drainer::start(pipe, c.limit),
        _ => None,
    };
    // Drops the command's copy of the child's stdin; `reader` remains.
    drop(command);
    let deadline = spawned.checked_add(timeout);

    let mut waiter = Waiter::new(pid, mode);
    let exited = feed_and_wait(&mut waiter, writer, line, deadline);
    if !exited {
        // The leader is unreaped (only `child.wait` below reaps it), so its
        // id still names its process group: this cannot hit a stranger.
        // An error here means there is nothing left to kill.
        let _ = kill_process_group(pid, Signal::KILL);
    }
    let interrupted = slot.reaping();
    // An ignored `SIGCHLD` makes the kernel reap the child unasked: then
    // this fails (ECHILD), and the status is unknown, never "success".
    let status = child.wait().map_err(|cause| ProcessError::Wait { cause });
    drop(slot);
    drop(reader);
    if let (Some(capture), Some(drainer)) = (capture, drainer) {
        capture.tail = drainer.finish();
    }
    outcome(status, exited, interrupted, timeout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    use super::super::test_watchdog::{alive, read_pid, wait_until, within};

    /// Far above every timeout here, far below "forever".
    const HUNG: Duration = Duration::from_secs(20);

    /// `run_with` under the watchdog, with the `WaitMode::Poll` fallback.
    fn poll_run(
        argv: Vec<String>,
        timeout: Duration,
        root: &Path,
        line: Vec<u8>,
    ) -> Result<(), ProcessError> {
        let root = root.to_path_buf();
        within(HUNG, "a polled run", move || {
            run_with(&argv, timeout, &root, &line, WaitMode::Poll)
        })
    }

    fn sh(body: &str) -> Vec<String> {
        ["/bin/sh", "-c", body].map(String::from).to_vec()
    }

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn the_waitid_fallback_reports_exit_statuses() {
        let dir = tempfile::tempdir().unwrap();
        let go = |body: &str| poll_run(sh(body), MS(5000), dir.path(), b"{}\n".to_vec());
        assert!(go("read line; [ \"$line\" = '{}' ]").is_ok());
        assert!(matches!(go("exit 7"), Err(ProcessError::Exit { code: 7 })));
        assert!(matches!(
            go("kill -9 $$"),
            Err(ProcessError::Signal { signal: 9 })
        ));
    }

    #[test]
    fn the_waitid_fallback_kills_the_group_on_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![b'x'; 4 << 20];
        let start = Instant::now();
        let r = poll_run(
            sh("sleep 30 & echo $! > gc.pid; sleep 30"),
            MS(300),
            dir.path(),
            big,
        );
        assert!(matches!(r, Err(ProcessError::TimedOut { .. })), "{r:?}");
        // The child sleeps 30 s, which is what a regression would wait for:
        // half of that leaves room for a loaded machine (issue 31).
        assert!(start.elapsed() < Duration::from_secs(15));
        // Read once whole: the shell creates the file before writing it.
        let gc = read_pid(&dir.path().join("gc.pid")).expect("the grandchild's pid");
        if !wait_until(Duration::from_secs(5), || !alive(gc)) {
            let _ = rustix::process::kill_process(Pid::from_raw(gc).unwrap(), Signal::KILL);
            panic!("grandchild {gc} survived the timeout");
        }
    }

    #[test]
    fn the_waitid_fallback_does_not_wait_on_an_unread_stdin() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![b'x'; 4 << 20];
        let start = Instant::now();
        let r = poll_run(sh("exit 0"), MS(5000), dir.path(), big);
        assert!(r.is_ok(), "{r:?}");
        // Blocked on the unread stdin, it would have failed at its 5 s
        // timeout above; this bounds the rest, with room for a loaded
        // machine (issue 31).
        assert!(start.elapsed() < Duration::from_secs(15));
    }

    /// This thread's CPU time so far, user and system, from
    /// `/proc/thread-self/stat` (fields 14 and 15, in `USER_HZ` ticks,
    /// which Linux fixes at 100 a second).
    #[cfg(target_os = "linux")]
    fn thread_cpu_time() -> Duration {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("/proc is mounted");
        // After the command name's `)`, the state is field 3.
        let fields: Vec<u64> = stat
            .rsplit(')')
            .next()
            .expect("a stat line")
            .split_whitespace()
            .skip(11)
            .take(2)
            .map(|n| n.parse().expect("a tick count"))
            .collect();
        MS(fields.iter().sum::<u64>() * 10)
    }

    /// Waiting on a hook by polling `waitid` naps between two checks, each
    /// nap twice the last up to `MAX_POLL_SLICE`: a hook that runs for a
    /// second costs some sixty wake-ups, not a core for a second. (A nap
    /// that shrank instead would reach zero and spin.)
    #[test]
    #[cfg(target_os = "linux")]
    fn the_waitid_fallback_backs_off_instead_of_spinning() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let (wall, cpu, r) = within(HUNG, "a polled one-second hook", move || {
            let (start, before) = (Instant::now(), thread_cpu_time());
            let r = run_with(
                &sh("exec sleep 1"),
                MS(10_000),
                &root,
                b"{}\n",
                WaitMode::Poll,
            );
            (start.elapsed(), thread_cpu_time() - before, r)
        });
        assert!(r.is_ok(), "{r:?}");
        assert!(wall >= MS(1000), "{wall:?}");
        assert!(
            cpu < MS(200),
            "waiting {wall:?} for the hook cost {cpu:?} of CPU"
        );
    }
}
