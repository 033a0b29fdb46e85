//! The process runner: spawn an argv (never a shell) in a process group of
//! its own, write its input to its stdin, wait for it against a deadline,
//! keep the end of its stderr when asked, and end it on the host's
//! [`Interrupt`]. A `run` hook runs its program here, and so can an
//! embedder's own commands (a tool that runs an argv an operator
//! configured), with the same guarantees and the runner's own error,
//! [`ProcessError`].
//!
//! A mechanism per file: which program an argv names (`resolve.rs`), one
//! child from spawn to reaping (`run.rs`), waiting without reaping and
//! feeding stdin (`wait.rs`), draining stderr (`stderr.rs`), ending every
//! child in flight (`interrupt.rs`), and why a run failed (`error.rs`).
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

mod error;
mod interrupt;
mod resolve;
mod run;
mod stderr;
mod wait;

pub use error::ProcessError;
pub use interrupt::{Interrupt, Tracked};
pub(crate) use resolve::{is_executable, resolve};
pub(crate) use run::run;
pub(crate) use stderr::Capture;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

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
) -> Result<(), ProcessError> {
    Interrupt::new().run_argv(argv, root, input, stdout, timeout)
}

/// The program `program` names, as a `run` hook would run it: one containing
/// `/` is relative to `root` (an absolute one stays as it is); a bare name is
/// looked up only in the absolute entries of `PATH` as it is now, so an
/// empty, `.` or relative entry can never run a file planted in the
/// repository.
///
/// # Errors
/// [`ProcessError::NotFound`] when a bare name is in no absolute `PATH`
/// entry, or `program` is empty.
pub fn resolve_program(program: &str, root: &Path) -> Result<PathBuf, ProcessError> {
    resolve(program, root, std::env::var_os("PATH").as_deref())
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
pub fn run_command(command: Command, input: &[u8], timeout: Duration) -> Result<(), ProcessError> {
    Interrupt::new().run_command(command, input, timeout)
}

/// The integration tests' deadlines and bounded waits, one copy.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../tests/common/watchdog.rs"]
pub(crate) mod test_watchdog;
