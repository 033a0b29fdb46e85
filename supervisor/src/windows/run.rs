//! One child on Windows, from its spawn to its end (its `Command` built
//! from the argv in `entry.rs`, the program found with `PATHEXT`): a job
//! object of its own with no console window and a process group of its
//! own, the event line written on a thread, the child
//! polled against its deadline, the job terminated at the deadline or the
//! interrupt, and the exit code read as a [`ProcessError`].

use std::io::Write;
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use process_wrap::std::{ChildWrapper, CommandWrap, CreationFlags, JobObject};
use windows::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW, PROCESS_CREATION_FLAGS,
};

use super::stderr::Drainer;
use crate::error::{ProcessError, outcome};
use crate::stderr::StderrTail;
use crate::supervisor::Supervisor;

/// What an interrupt ends for one child: its job object, which holds the
/// child and every process it starts (process-wrap's `JobObjectChild`).
/// Locked only for a moment at a time: a `try_wait`, or the job's
/// termination.
pub(crate) type Group = Arc<Mutex<Box<dyn ChildWrapper>>>;

/// The longest sleep between two checks of a running child.
const MAX_POLL_SLICE: Duration = Duration::from_millis(20);

/// Terminates `group`'s job object: the child and every process in the job
/// end (with exit code 1). An error means there is nothing left to end.
pub(crate) fn kill_group(group: &Group) {
    let _ = lock(group).start_kill();
}

fn lock(group: &Group) -> MutexGuard<'_, Box<dyn ChildWrapper>> {
    // A `try_wait` or a termination leaves the child whole either way.
    group.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How a child is watched while it runs, beside its deadline: the
/// [`Supervisor`] it is in flight on, and where the end of its stderr is
/// kept, when anywhere.
pub(crate) struct Watch<'a> {
    pub(crate) supervisor: &'a Supervisor,
    capture: Option<&'a mut StderrTail>,
}

impl<'a> Watch<'a> {
    /// A child on `supervisor`, the end of its stderr kept in `capture`
    /// when given.
    pub(crate) fn auto(supervisor: &'a Supervisor, capture: Option<&'a mut StderrTail>) -> Self {
        Watch {
            supervisor,
            capture,
        }
    }
}

/// The null device for a child's stdout.
pub(crate) fn null() -> Stdio {
    Stdio::null()
}

/// Spawns `command` suspended in a job object of its own, with no console
/// window and a process group of its own (Ctrl-C and Ctrl-Break in the
/// host's console reach the host, never the hook), then resumes it.
pub(crate) fn spawn_in_job(command: Command) -> std::io::Result<Box<dyn ChildWrapper>> {
    let mut wrapped = CommandWrap::from(command);
    wrapped
        .wrap(CreationFlags(creation_flags()))
        .wrap(JobObject);
    wrapped.spawn()
}

/// A child's creation flags: no console window (nothing opens on the
/// operator's desktop, and no console event reaches it), and a process group
/// of its own (Ctrl-C and Ctrl-Break go to the host's group). process-wrap
/// adds `CREATE_SUSPENDED` until the child is in its job.
fn creation_flags() -> PROCESS_CREATION_FLAGS {
    CREATE_NO_WINDOW | CREATE_NEW_PROCESS_GROUP
}

pub(crate) fn wait_for(
    mut command: Command,
    program: &str,
    line: &[u8],
    timeout: Duration,
    watch: Watch<'_>,
) -> Result<(), ProcessError> {
    let Watch {
        supervisor,
        capture,
    } = watch;
    let spawn_failed = |cause: std::io::Error| ProcessError::Spawn {
        program: program.to_owned(),
        cause,
    };
    command.stdin(Stdio::piped());
    if capture.is_some() {
        command.stderr(Stdio::piped());
    }
    let slot = supervisor.enter()?;
    let spawned = Instant::now();
    let mut child = spawn_in_job(command).map_err(spawn_failed)?;
    let (stdin, stderr) = (child.stdin().take(), child.stderr().take());
    let group: Group = Arc::new(Mutex::new(child));
    slot.spawned(Arc::clone(&group));
    let drainer = match (&capture, stderr) {
        (Some(c), Some(pipe)) => Drainer::start(pipe, c.limit),
        _ => None,
    };
    feed(stdin, line);
    let deadline = spawned.checked_add(timeout);

    let waited = poll_exit(&group, deadline);
    let exited = !matches!(waited, Ok(None));
    // Still running at the deadline, or a check that failed (the child
    // may be running): the job is ended either way.
    if !matches!(waited, Ok(Some(_))) {
        kill_group(&group);
    }
    let interrupted = slot.reaping();
    // Once the job is terminated, the child ends at once: no deadline.
    let status = match waited {
        Ok(None) => poll_exit(&group, None).and_then(|s| s.ok_or_else(still_running)),
        other => other.and_then(|s| s.ok_or_else(still_running)),
    }
    .map_err(|cause| ProcessError::Wait { cause });
    drop(slot);
    if let (Some(capture), Some(drainer)) = (capture, drainer) {
        capture.tail = drainer.finish();
    }
    outcome(status, exited, interrupted, timeout)
}

/// The error for a child seen running after a wait without a deadline,
/// which cannot happen.
fn still_running() -> std::io::Error {
    std::io::Error::other("the child was still running after its wait")
}

/// Writes `line` to the child's stdin on a thread of its own, then closes
/// it (the child's EOF). Windows' anonymous pipes cannot be written without
/// blocking, and a child that never reads an event larger than the pipe
/// must not hold us past the deadline: the thread ends when the write is
/// done or fails, which it does once no process holds the pipe's other end
/// (the child ended, and nothing it started kept its stdin).
fn feed(stdin: Option<ChildStdin>, line: &[u8]) {
    let Some(mut stdin) = stdin else { return };
    if line.is_empty() {
        return;
    }
    let line = line.to_vec();
    // Should no thread start, the pipe is closed unwritten: the child
    // reads an empty stdin.
    let _ = std::thread::Builder::new()
        .name("hook-stdin".to_owned())
        .spawn(move || {
            let _ = stdin.write_all(&line);
        });
}

/// Waits for the child to exit, checking at intervals growing from 1 ms to
/// [`MAX_POLL_SLICE`], until `deadline` (forever when `None`). Returns its
/// status, or `None` when it was still running at the deadline.
///
/// Polled, not waited on: the job's termination (an interrupt, on another
/// thread) needs the child too, and a blocking wait would hold it.
pub(crate) fn poll_exit(
    group: &Group,
    deadline: Option<Instant>,
) -> std::io::Result<Option<ExitStatus>> {
    let mut slice = Duration::from_millis(1);
    loop {
        if let Some(status) = lock(group).try_wait()? {
            return Ok(Some(status));
        }
        let nap = match deadline {
            Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => left.min(slice),
                _ => return lock(group).try_wait(),
            },
            None => slice,
        };
        std::thread::sleep(nap);
        slice = next_slice(slice);
    }
}

/// The nap after one of `slice`: twice it, up to [`MAX_POLL_SLICE`]. (A
/// nap that shrank would reach zero and spin.)
fn next_slice(slice: Duration) -> Duration {
    (slice * 2).min(MAX_POLL_SLICE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::windows::process::ExitStatusExt;

    /// Neither flag is lost: wine shows no console window nor console
    /// event, so this is where the choice is held.
    #[test]
    fn a_child_gets_no_console_window_and_a_process_group_of_its_own() {
        let flags = creation_flags();
        assert!(flags.contains(CREATE_NO_WINDOW), "{flags:?}");
        assert!(flags.contains(CREATE_NEW_PROCESS_GROUP), "{flags:?}");
    }

    /// Polling backs off: the naps double from 1 ms and stay at 20 ms, so
    /// a hook that runs a second costs some sixty checks, not a core.
    #[test]
    fn the_naps_between_two_checks_double_up_to_their_cap() {
        let ms = Duration::from_millis;
        let mut slice = ms(1);
        let mut naps = Vec::new();
        for _ in 0..7 {
            naps.push(slice);
            slice = next_slice(slice);
        }
        assert_eq!(naps, [ms(1), ms(2), ms(4), ms(8), ms(16), ms(20), ms(20)]);
    }

    /// Who ended the child decides, never the exit code a job's
    /// termination gives (1); a clean exit that beat the interrupt is a
    /// success.
    #[test]
    fn the_outcome_is_read_as_on_unix() {
        let t = Duration::from_millis(300);
        let code = |c: u32| Ok(ExitStatus::from_raw(c));
        assert!(outcome(code(0), true, false, t).is_ok());
        assert!(
            outcome(code(0), true, true, t).is_ok(),
            "beat the interrupt"
        );
        assert!(matches!(
            outcome(code(1), true, true, t),
            Err(ProcessError::Interrupted)
        ));
        assert!(matches!(
            outcome(code(1), false, true, t),
            Err(ProcessError::Interrupted)
        ));
        assert!(matches!(
            outcome(code(1), false, false, t),
            Err(ProcessError::TimedOut { timeout }) if timeout == t
        ));
        assert!(matches!(
            outcome(code(7), true, false, t),
            Err(ProcessError::Exit { code: 7 })
        ));
        assert!(matches!(
            outcome(code(0xC000_0005), true, false, t),
            Err(ProcessError::Exit {
                code: -1_073_741_819
            })
        ));
        let failed = Err(ProcessError::Wait {
            cause: std::io::Error::other("gone"),
        });
        assert!(matches!(
            outcome(failed, true, false, t),
            Err(ProcessError::Wait { .. })
        ));
    }
}
