//! A process supervisor: spawn an argv (never a shell) in a process group
//! of its own, write its input to its stdin, wait for it against a deadline,
//! keep the end of its stderr when asked, and end it, with everything it
//! started, at its deadline or on the host's word ([`Supervisor::interrupt`]).
//! Why a run failed is the supervisor's own error, [`ProcessError`].
//!
//! io-hooks' `run` action runs its program here, and so can an embedder's
//! own commands (a tool that runs an argv an operator configured), with the
//! same guarantees.
//!
//! ```
//! # #[cfg(unix)] fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::process::Stdio;
//! use std::time::Duration;
//! use io_supervisor::{ProcessError, Supervisor};
//!
//! let dir = tempfile::tempdir()?;
//! let supervisor = Supervisor::new();
//! // One argument, no shell: a directory named `made; rm -rf /`.
//! let argv = ["mkdir".to_owned(), "made; rm -rf /".to_owned()];
//! supervisor.run_argv(&argv, dir.path(), b"", Stdio::null(), Duration::from_secs(5))?;
//! assert!(dir.path().join("made; rm -rf /").is_dir());
//!
//! // Still running at its deadline: its process group is killed, it is reaped.
//! let sleepy = ["sleep".to_owned(), "5".to_owned()];
//! let err = supervisor
//!     .run_argv(&sleepy, dir.path(), b"", Stdio::null(), Duration::from_millis(50))
//!     .unwrap_err();
//! assert!(matches!(err, ProcessError::TimedOut { .. }));
//! assert_eq!(err.to_string(), "timed out after 50 ms and was killed");
//!
//! // The host's Ctrl-C: every child in flight is killed, and nothing more spawns.
//! supervisor.interrupt();
//! let late = supervisor.run_argv(&argv, dir.path(), b"", Stdio::null(), Duration::from_secs(5));
//! assert!(matches!(late, Err(ProcessError::Interrupted)));
//! # Ok(())
//! # }
//! # #[cfg(not(unix))] fn main() {}
//! ```
//!
//! A mechanism per file: which program an argv names (`resolve.rs`), one
//! child from spawn to reaping (`run.rs`), waiting without reaping and
//! feeding stdin (`wait.rs`), draining stderr (`stderr.rs`), the children
//! in flight and ending them all (`supervisor.rs`), and why a run failed
//! (`error.rs`).
//!
//! # Errors
//!
//! [`ProcessError`]'s `Display` is one whole message an operator can act
//! on, and says its cause: `source()` returns nothing, so a chain printer
//! shows each cause once; an OS error is kept in a field named `cause`.
//!
//! # Decisions
//!
//! **Which program runs is decided per run, and a found name remembered.**
//! A program containing `/` is the root joined with it (an absolute one
//! stays absolute); a bare name is looked up in the *absolute* entries of
//! `PATH`. A [`Supervisor`] remembers what a bare name was found as, as a
//! shell's `hash` does, and looks again when `PATH` has changed or the file
//! found is no longer an executable file: one `stat` where a search made
//! one per directory before it (nine here, 2% of a hook on `true`). So a
//! program upgraded or moved while a long-lived host runs is found the way a
//! shell would find it; one installed later in an earlier directory of the
//! same `PATH` is not, while the one found still runs. The result is always
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

//!
//! # Platforms
//!
//! Linux waits on a pidfd; every other Unix with `waitid` (macOS, the BSDs
//! but OpenBSD, illumos) polls `waitid(WNOHANG)` instead, a path Linux's
//! tests also force. OpenBSD is refused at compile time, naming what is
//! missing.
//!
//! Windows (issue 47; built for `x86_64-pc-windows-gnu` and tested under
//! wine, type-checked for `x86_64-pc-windows-msvc`) keeps the same API and
//! promises, the Windows way (`src/windows/`):
//!
//! - **A job object where Unix has a process group.** Each child is spawned
//!   suspended with `CREATE_NO_WINDOW | CREATE_NEW_PROCESS_GROUP` (no
//!   console window; Ctrl-C and Ctrl-Break in the host's console reach the
//!   host, not the child), put in a job object of its own and resumed
//!   (process-wrap's `JobObject` and `CreationFlags`), so every process it
//!   starts is in the job too. The timeout, [`Supervisor::interrupt`] and
//!   [`Supervisor::end_in_flight`] terminate the job. Closing it after a
//!   clean exit does not (no `KILL_ON_JOB_CLOSE`): a process the child left
//!   running lives on, as it does on Unix.
//! - **Waiting is polled.** The child's `try_wait` is checked at intervals
//!   growing from 1 ms to 20 ms against the deadline (as Unix's `waitid`
//!   fallback is), with the child behind a lock held only for a check or
//!   the job's termination: a blocking wait would hold the child an
//!   interrupt on another thread must reach, and a second waitable handle
//!   would need `unsafe`. No status is read as the child's but its own: a
//!   job's termination exits with code 1, and the timeout or the interrupt,
//!   not that code, is the error.
//! - **stdin is written on a thread**, then closed (EOF): an anonymous pipe
//!   cannot be written without blocking. The thread ends when the write is
//!   done or fails, which it does once no process holds the pipe's other
//!   end. **stderr is drained on a thread**, and its tail taken at its end
//!   of file or 100 ms after the child ended: a process the child left
//!   running that keeps the pipe holds only that thread.
//! - **The program**: a name containing `/`, `\` or `:` is the root's; a
//!   bare name is looked up in the absolute entries of `PATH` with the
//!   extensions `PATHEXT` lists among `.com`, `.exe`, `.bat`, `.cmd` (what
//!   Windows starts without a shell's file associations), so a bare `fmt`
//!   finds `fmt.exe` or `fmt.cmd`; [`is_executable`] judges a file by that
//!   extension, there being no execute bit. A `.bat` or `.cmd` is run as
//!   std runs one: through `cmd.exe`, each argument quoted so that `cmd.exe`
//!   reads it as text, or the spawn refused ([`ProcessError::Spawn`], an
//!   `InvalidInput` cause) when it cannot be (a `"` with a line break).
//!   The child's `PATH` keeps its absolute entries, and
//!   `NoDefaultCurrentDirectoryInExePath=1` stops `cmd.exe` searching the
//!   working directory before it.
//! - **Exit statuses**: an exit code; a crash's NTSTATUS reads as Microsoft
//!   writes it (`exited with status 0xC0000005`). There are no signals, so
//!   never [`ProcessError::Signal`].
//! - A background child is spawned by `Supervisor::spawn_tracked` (Windows
//!   only) in a job object of its own, where Unix hands `Supervisor::track`
//!   a child it spawned in a process group (Unix only): a `Child` spawned
//!   elsewhere has no job object to end. [`Tracked`] is the same on both.

#![forbid(unsafe_code)]

#[cfg(not(any(unix, windows)))]
compile_error!(
    "io-supervisor needs Unix or Windows: process groups or job objects (a timed-out child is \
     killed with its children) and a way to wait on a child without reaping anyone else's; \
     this target has neither"
);

#[cfg(target_os = "openbsd")]
compile_error!(
    "io-supervisor needs waitid(2) to wait on a child without reaping it, and OpenBSD has none"
);

mod entry;
mod error;
mod resolve;
#[cfg(unix)]
mod run;
mod stderr;
mod supervisor;
#[cfg(unix)]
mod wait;
#[cfg(windows)]
mod windows;

pub use error::ProcessError;
pub use resolve::{is_executable, resolve_program_in};
pub use stderr::StderrTail;
pub use supervisor::{Supervisor, Tracked};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Runs an argv on a [`Supervisor`] of its own, and returns once the child
/// has exited and been reaped.
///
/// Never through a shell: the program is found as [`resolve_program`] finds
/// it and runs in `root`, with `input` on stdin then EOF and stderr to null,
/// in a process group of its own that is killed, and reaped, if it is still
/// running at `timeout` (on Windows, a job object of its own that is
/// terminated: see the crate's "Platforms"). Only stdout is the caller's
/// choice.
///
/// [`Supervisor::run_argv`] is the same with the child in flight on a
/// shared [`Supervisor`], for a host that ends its children on Ctrl-C.
///
/// ```
/// # #[cfg(unix)] fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::process::Stdio;
/// use std::time::Duration;
///
/// let dir = tempfile::tempdir()?;
/// let argv = ["mkdir".to_owned(), "made; rm -rf /".to_owned()];
/// io_supervisor::run_argv(&argv, dir.path(), b"", Stdio::null(), Duration::from_secs(5))?;
/// assert!(dir.path().join("made; rm -rf /").is_dir()); // one argument, no shell
///
/// let sleepy = ["sleep".to_owned(), "5".to_owned()];
/// let err = io_supervisor::run_argv(&sleepy, dir.path(), b"", Stdio::null(), Duration::from_millis(50));
/// assert_eq!(err.unwrap_err().to_string(), "timed out after 50 ms and was killed");
/// # Ok(())
/// # }
/// # #[cfg(not(unix))] fn main() {}
/// ```
///
/// # Errors
/// [`ProcessError`]: not found, not spawned, a non-zero exit, a signal, the
/// timeout, or an exit status that could not be collected.
pub fn run_argv(
    argv: &[String],
    root: &Path,
    input: &[u8],
    stdout: Stdio,
    timeout: Duration,
) -> Result<(), ProcessError> {
    Supervisor::new().run_argv(argv, root, input, stdout, timeout)
}

/// Returns the program `program` names, as [`run_argv`] would run it: one
/// containing `/` is relative to `root` (an absolute one stays as it is); a
/// bare name is looked up only in the absolute entries of `PATH` as it is
/// now, so an empty, `.` or relative entry can never run a file planted in
/// the working directory.
///
/// # Errors
/// [`ProcessError::NotFound`] when a bare name is in no absolute `PATH`
/// entry, or `program` is empty.
pub fn resolve_program(program: &str, root: &Path) -> Result<PathBuf, ProcessError> {
    resolve_program_in(program, root, std::env::var_os("PATH").as_deref())
}

/// Runs a `Command` the caller has set up on a [`Supervisor`] of its own,
/// as [`run_argv`] runs an argv.
///
/// The caller sets the program, the arguments, the working directory, the
/// environment, stdout and stderr; the child gets `input` on stdin then EOF,
/// leads a process group of its own that is killed and reaped if it is
/// still running at `timeout`, and is waited on with a pidfd and no
/// `SIGCHLD` handler (on Windows, in a job object of its own, with the
/// supervisor's creation flags in place of the command's). Only exit status
/// 0 is success.
///
/// For a caller that must shape the child's environment (say, a `git` run
/// with the repository's `GIT_*` variables removed). The program should be an
/// absolute path from [`resolve_program`]: `Command` itself searches `PATH`
/// including its relative entries.
///
/// # Errors
/// [`ProcessError`]: not spawned, a non-zero exit, a signal, the timeout, or
/// an exit status that could not be collected.
pub fn run_command(command: Command, input: &[u8], timeout: Duration) -> Result<(), ProcessError> {
    Supervisor::new().run_command(command, input, timeout)
}

/// The integration tests' deadlines and bounded waits, one copy.
#[cfg(all(test, unix))]
#[allow(dead_code)]
#[path = "../tests/common/watchdog.rs"]
pub(crate) mod test_watchdog;
