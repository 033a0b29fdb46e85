//! The `run` action: spawn an argv (never a shell) with the event on stdin,
//! and wait for it against a deadline.
//!
//! Three decisions live here.
//!
//! **Which program runs is decided per event.** A program containing `/` is
//! the hooks' root joined with it (an absolute one stays absolute); a bare
//! name is looked up in the *absolute* entries of `PATH` as it is when the
//! event fires. Looking it up per event costs a few `stat` calls beside a
//! `fork` and an `exec`, which is noise, and in exchange a program installed,
//! upgraded or moved while a long-lived host runs is found the way a shell
//! would find it, without rebuilding the hooks. (`Hooks::new` also looks once,
//! only to warn early about a program that is missing.) The result is always
//! an absolute path, so std's own `PATH` search, which honours relative
//! entries, never runs.
//!
//! **The host cannot be killed by `SIGPIPE`, and no signal state is touched.**
//! We create the stdin pipe ourselves and keep a descriptor of its read end
//! open until the child is finished with. A pipe with a reader never raises
//! `SIGPIPE` or `EPIPE`, whatever the host's disposition and whatever the
//! child does with its stdin; a write to a child that stopped reading just
//! finds the pipe full, and the writer waits on the child's exit instead.
//! The alternatives were worse: blocking `SIGPIPE` per thread and draining it
//! with `sigtimedwait` needs `unsafe` FFI and can swallow a signal meant for
//! someone else, and a socket for stdin breaks a hook that opens
//! `/dev/stdin`. The write end is non-blocking, so a child that never reads
//! an event larger than the pipe buffer cannot hold us past the deadline.
//!
//! **Waiting is a pidfd polled against the deadline.** No `SIGCHLD` handler,
//! and nothing reaps any pid but our child's. Where there is no pidfd (every
//! Unix but Linux, where this is compiled out) or `pidfd_open` is refused
//! (a kernel before 5.3, a seccomp filter), we fall back to polling
//! `waitid(P_PID, WEXITED | WNOHANG | WNOWAIT)` at intervals growing from
//! 1 ms to 20 ms, bounded by the deadline. Both leave the child unreaped
//! until we choose to reap it, so on timeout its process group (it leads its
//! own: `process_group(0)`) is killed while its id cannot yet have been
//! reused; then the leader is reaped.

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
use rustix::io::{Errno, write};
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions, kill_process_group, waitid};
#[cfg(target_os = "linux")]
use rustix::process::{PidfdFlags, pidfd_open};

mod interrupt;

pub use interrupt::{Interrupt, Tracked};

use crate::failure::HookFailure;

/// The search path when `PATH` is unset: glibc's own default, whose
/// entries are both absolute.
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// The longest sleep between two `waitid` checks when there is no pidfd.
const MAX_POLL_SLICE: Duration = Duration::from_millis(20);

/// How to wait for the child; [`WaitMode::Poll`] forces the fallback so
/// tests can exercise it on a kernel with pidfds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WaitMode {
    /// A pidfd when the kernel gives one, else polling.
    Auto,
    /// `waitid(WNOHANG)` polling only.
    #[cfg_attr(not(test), allow(dead_code))]
    Poll,
}

/// Runs `argv` with `line` on its stdin, in `root`, within `timeout`, in
/// flight on `interrupt`; with `capture`, the last bytes of its stderr are
/// kept there.
pub(crate) fn run(
    argv: &[String],
    timeout: Duration,
    root: &Path,
    line: &[u8],
    interrupt: &Interrupt,
    capture: Option<&mut Capture>,
) -> Result<(), HookFailure> {
    let watch = Watch {
        mode: WaitMode::Auto,
        interrupt,
        capture,
    };
    spawn_and_wait(argv, timeout, root, line, Stdio::null(), watch)
}

#[cfg(test)]
pub(super) fn run_with(
    argv: &[String],
    timeout: Duration,
    root: &Path,
    line: &[u8],
    mode: WaitMode,
) -> Result<(), HookFailure> {
    let interrupt = Interrupt::new();
    let watch = Watch {
        mode,
        interrupt: &interrupt,
        capture: None,
    };
    spawn_and_wait(argv, timeout, root, line, Stdio::null(), watch)
}

/// How a child is watched while it runs, beside its deadline: how its exit
/// is waited for, the [`Interrupt`] it is in flight on, and where the end of
/// its stderr is kept, when anywhere.
pub(super) struct Watch<'a> {
    pub(super) mode: WaitMode,
    pub(super) interrupt: &'a Interrupt,
    pub(super) capture: Option<&'a mut Capture>,
}

impl<'a> Watch<'a> {
    /// An embedder's own child on `interrupt`: a pidfd where there is one,
    /// stderr not kept.
    pub(super) fn auto(interrupt: &'a Interrupt) -> Self {
        Watch {
            mode: WaitMode::Auto,
            interrupt,
            capture: None,
        }
    }
}

/// The end of what a `run` hook wrote to its stderr: at most `limit` bytes,
/// the last ones. Opt-in ([`Hooks::capture_stderr`](crate::Hooks::capture_stderr)):
/// by default a hook's stderr is null.
#[derive(Debug)]
pub(crate) struct Capture {
    limit: usize,
    pub(crate) tail: Vec<u8>,
}

impl Capture {
    pub(crate) fn new(limit: usize) -> Self {
        Capture {
            limit,
            tail: Vec::new(),
        }
    }
}

/// At most this much is read from a hook's stderr once the hook has ended
/// (what it left in the pipe; a grandchild may still be writing to it):
/// more than a pipe holds by default, and a bound on a writer that never
/// stops.
const FINAL_READ: usize = 1 << 20;

/// Reads a child's stderr on a thread of its own while the child runs, so
/// that a child writing megabytes never blocks on a full pipe, keeping only
/// the last `limit` bytes. The drain ends with the hook: [`finish`]
/// (called once the child is reaped) tells the thread to read what is left
/// in the pipe and stop, and joins it. A grandchild that keeps the pipe open
/// then holds nothing of ours: before, the thread waited for its end of
/// file, and each such event left a thread and a pipe behind until hooks
/// failed with "Too many open files".
///
/// [`finish`]: Drainer::finish
struct Drainer {
    tail: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    /// Dropped to tell the thread that the hook has ended.
    stop: OwnedFd,
    thread: std::thread::JoinHandle<()>,
}

/// Where the drainer copies to: keeps the last `limit` bytes written.
struct Tail {
    shared: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    limit: usize,
}

impl Tail {
    fn keep(&mut self, bytes: &[u8]) {
        let mut tail = self
            .shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        tail.extend_from_slice(bytes);
        let excess = tail.len().saturating_sub(self.limit);
        tail.drain(..excess);
    }
}

impl Drainer {
    /// `None` when no thread could be started; the pipe is then closed, and
    /// the child's writes to stderr fail rather than block.
    fn start(pipe: std::process::ChildStderr, limit: usize) -> Option<Drainer> {
        let tail = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        // std's pipe is close-on-exec on every Unix (rustix's `pipe_with`
        // is missing on macOS), so no hook inherits the stop pipe.
        let (stopped, stop) = std::io::pipe().ok()?;
        let (stopped, stop) = (OwnedFd::from(stopped), OwnedFd::from(stop));
        let mut sink = Tail {
            shared: std::sync::Arc::clone(&tail),
            limit,
        };
        let thread = std::thread::Builder::new()
            .name("hook-stderr".to_owned())
            .spawn(move || drain(&OwnedFd::from(pipe), &stopped, &mut sink))
            .ok()?;
        Some(Drainer { tail, stop, thread })
    }

    /// The tail: the thread is told the hook has ended, reads what is left
    /// in the pipe, and is joined.
    fn finish(self) -> Vec<u8> {
        drop(self.stop);
        // A panic on the thread would only have cut the tail short.
        let _ = self.thread.join();
        let tail = self
            .tail
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        tail.clone()
    }
}

/// The drainer's thread: copies `pipe` into `sink` until its end of file,
/// an error, or `stopped` becoming readable (its write end dropped), after
/// which it reads at most [`FINAL_READ`] more without waiting, and returns,
/// closing the pipe.
fn drain(pipe: &OwnedFd, stopped: &OwnedFd, sink: &mut Tail) {
    let mut buf = [0u8; 8192];
    loop {
        let mut fds = [
            PollFd::new(pipe, PollFlags::IN),
            PollFd::new(stopped, PollFlags::IN),
        ];
        match poll(&mut fds, None) {
            Ok(_) => {}
            Err(Errno::INTR) => continue,
            Err(_) => return,
        }
        if !fds[1].revents().is_empty() {
            break;
        }
        match rustix::io::read(pipe, &mut buf) {
            Ok(0) => return,
            Ok(n) => sink.keep(&buf[..n]),
            Err(Errno::INTR | Errno::AGAIN) => {}
            Err(_) => return,
        }
    }
    if set_nonblocking(pipe).is_err() {
        return;
    }
    let mut left = FINAL_READ;
    while left > 0 {
        match rustix::io::read(pipe, &mut buf) {
            Ok(0) => return,
            Ok(n) => {
                sink.keep(&buf[..n]);
                left = left.saturating_sub(n);
            }
            Err(Errno::INTR) => {}
            Err(_) => return,
        }
    }
}

/// Runs an argv exactly as a `run` hook runs: never through a shell, the
/// program found as [`resolve_program`] finds it, in `root`, with `input` on
/// stdin then EOF, stderr to null, in a process group of its own that is
/// killed, and reaped, if it is still running at `timeout`. Only stdout is
/// the caller's choice.
///
/// This is for an embedder's own commands (a tool that runs an argv an
/// operator configured), so that they and its hooks share one way of
/// spawning and one way of waiting.
/// [`Interrupt::run_argv`] is the same with the child in flight on an
/// [`Interrupt`], for a host that ends its children on Ctrl-C.
///
/// ```
/// use std::process::Stdio;
/// use std::time::Duration;
///
/// let dir = tempfile::tempdir()?;
/// let argv = ["mkdir".to_owned(), "made; rm -rf /".to_owned()];
/// io_hooks::process::run_argv(&argv, dir.path(), b"", Stdio::null(), Duration::from_secs(5))?;
/// assert!(dir.path().join("made; rm -rf /").is_dir()); // one argument, no shell
///
/// let sleepy = ["sleep".to_owned(), "5".to_owned()];
/// let err = io_hooks::process::run_argv(&sleepy, dir.path(), b"", Stdio::null(), Duration::from_millis(50));
/// assert_eq!(err.unwrap_err().to_string(), "timed out after 50 ms and was killed");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As a `run` hook fails: not found, not spawned, a non-zero exit, a signal,
/// or the timeout.
pub fn run_argv(
    argv: &[String],
    root: &Path,
    input: &[u8],
    stdout: Stdio,
    timeout: Duration,
) -> Result<(), HookFailure> {
    Interrupt::new().run_argv(argv, root, input, stdout, timeout)
}

/// The program `program` names, as a `run` hook would run it: one containing
/// `/` is relative to `root` (an absolute one stays as it is); a bare name is
/// looked up only in the absolute entries of `PATH` as it is now, so an
/// empty, `.` or relative entry can never run a file planted in the
/// repository.
///
/// # Errors
/// [`HookFailure::NotFound`] when a bare name is in no absolute `PATH`
/// entry, or `program` is empty.
pub fn resolve_program(program: &str, root: &Path) -> Result<PathBuf, HookFailure> {
    resolve(program, root, std::env::var_os("PATH").as_deref())
}

pub(super) fn spawn_and_wait(
    argv: &[String],
    timeout: Duration,
    root: &Path,
    line: &[u8],
    stdout: Stdio,
    watch: Watch<'_>,
) -> Result<(), HookFailure> {
    let (program, args) = match argv.split_first() {
        Some((program, args)) => (program.as_str(), args),
        None => ("", &[][..]),
    };
    let path_var = std::env::var_os("PATH");
    let exe = resolve(program, root, path_var.as_deref())?;
    let mut command = Command::new(&exe);
    command
        .args(args)
        .current_dir(root)
        .stdout(stdout)
        .stderr(Stdio::null());
    // The child searches `PATH` as we do: a script's bare `ls` must not
    // run a `./ls` planted in the repository either.
    if let Some(path_var) = &path_var {
        command.env("PATH", absolute_entries(path_var));
    }
    wait_for(command, program, line, timeout, watch)
}

/// `path_var` with only its absolute entries, in order: what a child gets
/// as its `PATH`.
fn absolute_entries(path_var: &OsStr) -> std::ffi::OsString {
    let mut kept = std::ffi::OsString::with_capacity(path_var.len());
    for entry in path_var
        .as_encoded_bytes()
        .split(|&b| b == b':')
        .filter(|entry| entry.first() == Some(&b'/'))
    {
        if !kept.is_empty() {
            kept.push(":");
        }
        // Split at an ASCII byte, so each entry is a whole `OsStr`.
        kept.push(OsStr::from_bytes(entry));
    }
    kept
}

/// Runs a `Command` the caller has set up (program, arguments, working
/// directory, environment, stdout, stderr) the way a `run` hook runs: `input`
/// on stdin then EOF, in a process group of its own that is killed and reaped
/// if it is still running at `timeout`, waited on with a pidfd and no
/// `SIGCHLD` handler. Only exit status 0 is success.
///
/// For a caller that must shape the child's environment (say, a `git` run
/// with the repository's `GIT_*` variables removed). The program should be an
/// absolute path from [`resolve_program`]: `Command` itself searches `PATH`
/// including its relative entries.
///
/// # Errors
/// As a `run` hook fails: not spawned, a non-zero exit, a signal, or the
/// timeout.
pub fn run_command(command: Command, input: &[u8], timeout: Duration) -> Result<(), HookFailure> {
    Interrupt::new().run_command(command, input, timeout)
}

pub(super) fn wait_for(
    mut command: Command,
    program: &str,
    line: &[u8],
    timeout: Duration,
    watch: Watch<'_>,
) -> Result<(), HookFailure> {
    let Watch {
        mode,
        interrupt,
        capture,
    } = watch;
    let spawn_failed = |cause: std::io::Error| HookFailure::Spawn {
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
    // file description, so the child still reads a blocking stdin.
    set_nonblocking(&writer).map_err(|e| spawn_failed(e.into()))?;
    let child_stdin = reader.try_clone().map_err(spawn_failed)?;

    command.stdin(Stdio::from(child_stdin)).process_group(0);
    if capture.is_some() {
        command.stderr(Stdio::piped());
    }
    let slot = interrupt.enter()?;
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
    let status = child.wait().map_err(|cause| HookFailure::Wait { cause });
    drop(slot);
    drop(reader);
    if let (Some(capture), Some(drainer)) = (capture, drainer) {
        capture.tail = drainer.finish();
    }
    // Killed by the interrupt, or still running at it (a clean exit that
    // beat the interrupt to it is a success still).
    if interrupted && !matches!(&status, Ok(s) if s.success()) {
        return Err(HookFailure::Interrupted);
    }
    if !exited {
        return Err(HookFailure::TimedOut { timeout });
    }
    let status = status?;
    match (status.code(), status.signal()) {
        (Some(0), _) => Ok(()),
        (Some(code), _) => Err(HookFailure::Exit { code }),
        (None, Some(signal)) => Err(HookFailure::Signal { signal }),
        (None, None) => Err(HookFailure::Exit { code: -1 }),
    }
}

/// The program `argv[0]` names, as an absolute path when `root` is one.
///
/// A name containing `/` is `root` joined with it (an absolute path stays
/// as it is). A bare name is searched for in the absolute entries of
/// `path_var` only: an empty, `.` or other relative entry would resolve
/// against the working directory, which is the repository, and a file
/// planted there must never run.
pub(super) fn resolve(
    program: &str,
    root: &Path,
    path_var: Option<&OsStr>,
) -> Result<PathBuf, HookFailure> {
    let not_found = || HookFailure::NotFound {
        program: program.to_owned(),
    };
    if program.is_empty() {
        return Err(not_found());
    }
    if program.contains('/') {
        return Ok(root.join(program));
    }
    let path_var = path_var.unwrap_or(OsStr::new(DEFAULT_PATH));
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(not_found)
}

pub(super) fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn set_nonblocking(fd: &OwnedFd) -> rustix::io::Result<()> {
    let flags = fcntl_getfl(fd)?;
    fcntl_setfl(fd, flags | OFlags::NONBLOCK)
}

/// Writes `line` to the child's stdin then closes it, while waiting for the
/// child to exit. Returns whether it exited before `deadline`.
///
/// Once the child has exited, whatever is left unwritten is dropped: only
/// the exit status counts, and a grandchild that inherited stdin must not
/// keep us waiting.
fn feed_and_wait(
    waiter: &mut Waiter,
    writer: OwnedFd,
    line: &[u8],
    deadline: Option<Instant>,
) -> bool {
    let mut stdin = Some(writer);
    let mut rest = line;
    loop {
        if let Some(fd) = &stdin {
            loop {
                if rest.is_empty() {
                    // Closing our end is the child's EOF.
                    stdin = None;
                    break;
                }
                match write(fd, rest) {
                    Ok(n) => rest = &rest[n..],
                    Err(Errno::INTR) => {}
                    Err(Errno::AGAIN) => break,
                    // EPIPE cannot happen while we hold a reader; any error
                    // means the hook will not read the rest, which is its
                    // business: stop writing and wait for its status.
                    Err(_) => {
                        stdin = None;
                        break;
                    }
                }
            }
        }
        let remaining = match deadline {
            Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => return waiter.exited_now(),
            },
            None => None,
        };
        if waiter.wait(stdin.as_ref(), remaining) {
            return true;
        }
    }
}

/// Watches one child for its exit without reaping it.
struct Waiter {
    pid: Pid,
    /// Readable once the child has exited; `None` where the kernel refused
    /// one, and we poll `waitid` instead.
    pidfd: Option<OwnedFd>,
    /// The next sleep between two `waitid` checks.
    slice: Duration,
}

impl Waiter {
    fn new(pid: Pid, mode: WaitMode) -> Self {
        let pidfd = match mode {
            #[cfg(target_os = "linux")]
            WaitMode::Auto => pidfd_open(pid, PidfdFlags::empty()).ok(),
            // No pidfds outside Linux (rustix offers them only there).
            #[cfg(not(target_os = "linux"))]
            WaitMode::Auto => None,
            WaitMode::Poll => None,
        };
        Waiter {
            pid,
            pidfd,
            slice: Duration::from_millis(1),
        }
    }

    /// Waits up to `timeout` (forever when `None`) for the child to exit or,
    /// when `stdin` is given, for room in the pipe. Returns whether the child
    /// has exited.
    fn wait(&mut self, stdin: Option<&OwnedFd>, timeout: Option<Duration>) -> bool {
        if let Some(pidfd) = &self.pidfd {
            let mut fds = [
                PollFd::new(pidfd, PollFlags::IN),
                // Polled only while there is something left to write.
                match stdin {
                    Some(fd) => PollFd::new(fd, PollFlags::OUT),
                    None => PollFd::new(pidfd, PollFlags::empty()),
                },
            ];
            let timeout = timeout.and_then(|t| Timespec::try_from(t).ok());
            match poll(&mut fds, timeout.as_ref()) {
                // Readable (or an error on the pidfd): the process is no
                // longer running.
                Ok(_) => return !fds[0].revents().is_empty(),
                // The caller recomputes the time left.
                Err(Errno::INTR) => return false,
                // Anything else would repeat: poll `waitid` from now on.
                Err(_) => self.pidfd = None,
            }
        }
        if self.exited_now() {
            return true;
        }
        let nap = timeout.map_or(self.slice, |t| t.min(self.slice));
        self.slice = (self.slice * 2).min(MAX_POLL_SLICE);
        match stdin {
            // Wakes early when the pipe has room.
            Some(fd) => {
                let nap = Timespec::try_from(nap).ok();
                let _ = poll(&mut [PollFd::new(fd, PollFlags::OUT)], nap.as_ref());
            }
            None => std::thread::sleep(nap),
        }
        self.exited_now()
    }

    /// Whether the child has exited, without waiting and without reaping.
    fn exited_now(&self) -> bool {
        match &self.pidfd {
            Some(pidfd) => {
                let zero = Timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                matches!(poll(&mut [PollFd::new(pidfd, PollFlags::IN)], Some(&zero)), Ok(n) if n > 0)
            }
            None => {
                let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
                match waitid(WaitId::Pid(self.pid), options) {
                    Ok(status) => status.is_some(),
                    Err(Errno::INTR) => false,
                    // ECHILD: something else reaped it (a host ignoring
                    // SIGCHLD); it has exited either way.
                    Err(_) => true,
                }
            }
        }
    }
}

/// The integration tests' deadlines and bounded waits, one copy.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../tests/common/watchdog.rs"]
pub(crate) mod test_watchdog;

#[cfg(test)]
mod tests {
    use super::*;

    use super::test_watchdog::{alive, read_pid, wait_until, within};

    /// Far above every timeout here, far below "forever".
    const HUNG: Duration = Duration::from_secs(20);

    /// `run_with` under the watchdog, with the `WaitMode::Poll` fallback.
    fn poll_run(
        argv: Vec<String>,
        timeout: Duration,
        root: &Path,
        line: Vec<u8>,
    ) -> Result<(), HookFailure> {
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
        assert!(matches!(go("exit 7"), Err(HookFailure::Exit { code: 7 })));
        assert!(matches!(
            go("kill -9 $$"),
            Err(HookFailure::Signal { signal: 9 })
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
        assert!(matches!(r, Err(HookFailure::TimedOut { .. })), "{r:?}");
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

    #[test]
    #[cfg(target_os = "linux")]
    fn auto_uses_a_pidfd_where_the_kernel_has_them() {
        let mut child = Command::new("/bin/sh")
            .args(["-c", "exit 0"])
            .spawn()
            .unwrap();
        let waiter = Waiter::new(Pid::from_child(&child), WaitMode::Auto);
        let forced = Waiter::new(Pid::from_child(&child), WaitMode::Poll);
        child.wait().unwrap();
        assert!(waiter.pidfd.is_some(), "pidfd_open refused on this kernel");
        assert!(forced.pidfd.is_none());
    }

    #[test]
    fn resolution_uses_only_absolute_path_entries() {
        let root = tempfile::tempdir().unwrap();
        let bin = tempfile::tempdir().unwrap();
        for dir in [root.path(), bin.path()] {
            let tool = dir.join("tool");
            std::fs::write(&tool, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let plain = bin.path().join("plain");
        std::fs::write(&plain, "").unwrap(); // not executable: skipped
        let path = |s: String| Some(std::ffi::OsString::from(s));
        let abs = bin.path().display().to_string();
        let r = root.path();

        let found = resolve("tool", r, path(format!(".::bin:{abs}")).as_deref());
        assert_eq!(found.unwrap(), bin.path().join("tool"));
        for only_relative in [".", "", ":", "bin:.", "./"] {
            let got = resolve("tool", r, path(only_relative.to_owned()).as_deref());
            assert!(
                matches!(got, Err(HookFailure::NotFound { .. })),
                "PATH={only_relative:?}: {got:?}"
            );
        }
        assert!(resolve("plain", r, path(abs.clone()).as_deref()).is_err());
        assert!(resolve("", r, path(abs.clone()).as_deref()).is_err());
        // Containing `/`: the root's, never PATH's; absolute stays absolute.
        assert_eq!(
            resolve("./scripts/x", r, None).unwrap(),
            r.join("./scripts/x")
        );
        assert_eq!(
            resolve("/usr/bin/env", r, None).unwrap(),
            Path::new("/usr/bin/env")
        );
        // Unset PATH: the absolute default.
        assert!(resolve("sh", r, None).unwrap().is_absolute());
    }

    /// A sink for [`drain`], and what it kept.
    fn sink() -> (Tail, std::sync::Arc<std::sync::Mutex<Vec<u8>>>) {
        let shared = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let tail = Tail {
            shared: std::sync::Arc::clone(&shared),
            limit: 1 << 30,
        };
        (tail, shared)
    }

    fn kept(shared: &std::sync::Mutex<Vec<u8>>) -> Vec<u8> {
        shared.lock().unwrap().clone()
    }

    /// Told to stop with bytes still in the pipe (the hook wrote them just
    /// before it exited), the drain reads them before it returns; told
    /// while a writer never stops, it still returns, after a bounded read.
    #[test]
    fn a_stopped_drain_reads_what_is_left_and_no_more_than_its_bound() {
        let (stopped, stop) = rustix::pipe::pipe().unwrap();
        drop(stop);
        let (pipe, writer) = rustix::pipe::pipe().unwrap();
        write(&writer, b"the last words").unwrap();
        let (mut tail, shared) = sink();
        drain(&pipe, &stopped, &mut tail);
        assert_eq!(kept(&shared), b"the last words");

        // Endless: a writer thread that stops only when the pipe is closed.
        let endless = std::thread::spawn(move || {
            let chunk = [b'x'; 4096];
            while write(&writer, &chunk).is_ok() {}
        });
        let (mut tail, shared) = sink();
        let read = within(HUNG, "a drain beside an endless writer", move || {
            drain(&pipe, &stopped, &mut tail);
            kept(&shared).len()
        });
        assert!(read <= FINAL_READ + 8192, "{read}");
        endless.join().unwrap();
    }

    /// Told to stop with more left to read than its bound (here a file of
    /// twice [`FINAL_READ`], which is never empty and never waits), the
    /// drain reads exactly its bound and returns. A pipe holds far less
    /// than the bound, so the test above cannot tell a drain that reads on
    /// past it while bytes are there at once.
    #[test]
    fn a_stopped_drain_reads_exactly_its_bound_of_what_is_there() {
        let (stopped, stop) = rustix::pipe::pipe().unwrap();
        drop(stop);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stderr");
        std::fs::write(&path, vec![b'x'; 2 * FINAL_READ]).unwrap();
        let source = OwnedFd::from(std::fs::File::open(&path).unwrap());
        let (mut tail, shared) = sink();
        let read = within(HUNG, "a drain of a large file", move || {
            drain(&source, &stopped, &mut tail);
            kept(&shared).len()
        });
        assert_eq!(read, FINAL_READ);
    }

    /// Until it is told to stop, the drain reads everything, however it
    /// arrives, to the pipe's end of file.
    #[test]
    fn an_unstopped_drain_reads_to_the_end_of_file() {
        let (stopped, _stop) = rustix::pipe::pipe().unwrap();
        let (pipe, writer) = rustix::pipe::pipe().unwrap();
        let (mut tail, shared) = sink();
        let watched = std::sync::Arc::clone(&shared);
        let draining = std::thread::spawn(move || drain(&pipe, &stopped, &mut tail));
        write(&writer, b"first ").unwrap();
        assert!(wait_until(HUNG, || kept(&watched) == b"first "));
        write(&writer, b"second").unwrap();
        drop(writer);
        within(HUNG, "the drain to end", move || draining.join().unwrap());
        assert_eq!(kept(&shared), b"first second");
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
