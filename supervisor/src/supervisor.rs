//! The children in flight, and ending every one of them at once: what a
//! host does on Ctrl-C.
//!
//! The supervisor installs no signal handler and keeps no global of its
//! own: a [`Supervisor`] is a plain shared value. The host decides when to
//! call [`Supervisor::interrupt`], typically from a thread that receives
//! `SIGINT`, `SIGTERM` and `SIGHUP`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::process::Child;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

#[cfg(unix)]
use rustix::process::{Pid, Signal, kill_process_group};

use super::error::ProcessError;
use super::resolve::{Found, names_a_path, resolve_program_in};
// Windows: a child's job object is what an interrupt ends (issue 47).
#[cfg(windows)]
pub(super) use super::windows::run::{Group, kill_group};

/// What an interrupt kills for one child: the process group it leads,
/// named by its unreaped leader.
#[cfg(unix)]
pub(super) type Group = Pid;

/// Kills `group`'s every process with `SIGKILL`. An error means the group
/// has already gone.
#[cfg(unix)]
pub(super) fn kill_group(group: &Group) {
    let _ = kill_process_group(*group, Signal::KILL);
}

/// A cloneable handle on the children spawned through it and not yet
/// reaped.
///
/// Those are what is run with [`run_argv`](Self::run_argv),
/// [`run_argv_keeping_stderr`](Self::run_argv_keeping_stderr) (io-hooks'
/// `run` hooks) or [`run_command`](Self::run_command), and what is
/// registered with `track` (Unix only).
///
/// [`interrupt`](Self::interrupt) kills the process group of each (every
/// child leads its own) and makes every later spawn through the handle
/// refuse with [`ProcessError::Interrupted`]. It sends signals and nothing
/// else: no handler is installed, no `SIGCHLD` disposition is touched, and a
/// group is killed only while its leader is unreaped, so its id cannot have
/// been reused by a stranger. On Windows it terminates each child's job
/// object, which holds the child and every process it started.
///
/// ```
/// # #[cfg(unix)] fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::{Duration, Instant};
///
/// let dir = tempfile::tempdir()?;
/// let supervisor = io_supervisor::Supervisor::new();
/// let sleeper = {
///     let supervisor = supervisor.clone();
///     let root = dir.path().to_path_buf();
///     std::thread::spawn(move || {
///         let argv = ["sleep".to_owned(), "30".to_owned()];
///         supervisor.run_argv(&argv, &root, b"", std::process::Stdio::null(), Duration::from_secs(60))
///     })
/// };
/// // The host's Ctrl-C, once the child is in flight.
/// let start = Instant::now();
/// while supervisor.in_flight() == 0 && start.elapsed() < Duration::from_secs(10) {
///     std::thread::yield_now();
/// }
/// supervisor.interrupt();
/// assert!(supervisor.wait_reaped(Duration::from_secs(10)));
/// let ended = sleeper.join().unwrap();
/// assert_eq!(ended.unwrap_err().to_string(), "was interrupted, and its process group killed");
/// assert!(start.elapsed() < Duration::from_secs(10));
/// # Ok(())
/// # }
/// # #[cfg(not(unix))] fn main() {}
/// ```
#[derive(Clone, Debug, Default)]
pub struct Supervisor {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    /// Notified each time a child in flight is reaped.
    reaped: Condvar,
    /// The programs found on `PATH` for the children spawned here.
    found: Mutex<Found>,
}

#[derive(Debug, Default)]
struct State {
    interrupted: bool,
    /// How many times [`Supervisor::end_in_flight`] was called: a child
    /// whose slot was entered under an older count was in flight at one,
    /// and is killed.
    ended: u64,
    /// Children spawned and not yet reaped (tracked ones excluded).
    in_flight: usize,
    /// The groups that may be killed now: each leader is spawned and
    /// unreaped. Keyed by a number of our own, never by pid.
    groups: Vec<(u64, Group)>,
    next: u64,
    /// Threads in [`Supervisor::wait_reaped`]: a reaping wakes them only
    /// when there are some (a wake is a system call on every hook's spawn).
    waiting: usize,
}

impl Supervisor {
    /// Returns a supervisor with nothing in flight, not interrupted.
    pub fn new() -> Self {
        Self::default()
    }

    /// Kills the process group of every child in flight with `SIGKILL` (on
    /// Windows, terminates its job object), and makes every later spawn
    /// through this handle refuse. Calling it again
    /// changes nothing. The children are reaped by whoever waits for them
    /// (the `run_argv` or `run_command` that spawned them): see
    /// [`wait_reaped`](Self::wait_reaped).
    pub fn interrupt(&self) {
        let mut state = self.lock();
        state.interrupted = true;
        for (_, group) in &state.groups {
            kill_group(group);
        }
    }

    /// Kills the process group of every child in flight now with
    /// `SIGKILL`, as [`interrupt`](Self::interrupt) does, but refuses no
    /// later spawn: for a host that stops its work at a boundary of its own
    /// and still has children to start after it (hooks told how the work
    /// ended). A child being spawned at this moment is killed as soon as it
    /// is. The children so ended fail with
    /// [`ProcessError::Interrupted`]; those spawned afterwards run as usual.
    ///
    /// ```
    /// # #[cfg(unix)] fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::{Duration, Instant};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let supervisor = io_supervisor::Supervisor::new();
    /// let root = dir.path().to_path_buf();
    /// let run = |argv: &[&str]| {
    ///     let (supervisor, root) = (supervisor.clone(), root.clone());
    ///     let argv: Vec<String> = argv.iter().map(|a| a.to_string()).collect();
    ///     std::thread::spawn(move || {
    ///         supervisor.run_argv(&argv, &root, b"", std::process::Stdio::null(), Duration::from_secs(60))
    ///     })
    /// };
    /// let sleeper = run(&["sleep", "30"]);
    /// let start = Instant::now();
    /// while supervisor.in_flight() == 0 && start.elapsed() < Duration::from_secs(10) {
    ///     std::thread::yield_now();
    /// }
    /// supervisor.end_in_flight();
    /// let ended = sleeper.join().unwrap();
    /// assert_eq!(ended.unwrap_err().to_string(), "was interrupted, and its process group killed");
    /// // Not refused: the next child runs.
    /// assert!(run(&["true"]).join().unwrap().is_ok());
    /// assert!(!supervisor.is_interrupted());
    /// # Ok(())
    /// # }
    /// # #[cfg(not(unix))] fn main() {}
    /// ```
    pub fn end_in_flight(&self) {
        let mut state = self.lock();
        state.ended += 1;
        for (_, group) in &state.groups {
            kill_group(group);
        }
    }

    /// Returns whether [`interrupt`](Self::interrupt) has been called.
    pub fn is_interrupted(&self) -> bool {
        self.lock().interrupted
    }

    /// Returns how many children spawned through this handle (tracked ones
    /// aside) are not yet reaped.
    pub fn in_flight(&self) -> usize {
        self.lock().in_flight
    }

    /// Returns whether every child spawned through this handle (tracked
    /// ones aside) is reaped, waiting up to `limit` for it.
    pub fn wait_reaped(&self, limit: Duration) -> bool {
        let deadline = Instant::now().checked_add(limit);
        let mut state = self.lock();
        state.waiting += 1;
        let reaped = loop {
            if state.in_flight == 0 {
                break true;
            }
            let left = match deadline {
                Some(deadline) => deadline.saturating_duration_since(Instant::now()),
                None => Duration::MAX,
            };
            if left.is_zero() {
                break false;
            }
            state = self
                .shared
                .reaped
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        };
        state.waiting -= 1;
        reaped
    }

    /// Returns a [`Tracked`] holding `child`, which the caller spawned
    /// itself leading a process group of its own (`process_group(0)`), as
    /// a background process is.
    ///
    /// An interrupt kills its group for as long as the [`Tracked`] holds it
    /// unreaped. The caller still decides when it is polled and reaped,
    /// through [`Tracked`]; [`wait_reaped`](Self::wait_reaped) does not
    /// wait for it.
    ///
    /// Unix only: on Windows a child is ended with its job object, which a
    /// `Child` spawned elsewhere does not have; `Supervisor::spawn_tracked`
    /// spawns one in a job there.
    ///
    /// # Errors
    /// [`ProcessError::Interrupted`] when the handle was already interrupted:
    /// the child's group has been killed and the child reaped.
    #[cfg(unix)]
    pub fn track(&self, mut child: Child) -> Result<Tracked, ProcessError> {
        let pid = Pid::from_child(&child);
        let mut state = self.lock();
        if state.interrupted {
            drop(state);
            let _ = kill_process_group(pid, Signal::KILL);
            let _ = child.wait();
            return Err(ProcessError::Interrupted);
        }
        let id = state.next;
        state.next += 1;
        state.groups.push((id, pid));
        Ok(Tracked {
            supervisor: self.clone(),
            id,
            child,
        })
    }

    /// Before a spawn: refuses after an interrupt, else counts a child in
    /// flight until the slot is dropped.
    pub(super) fn enter(&self) -> Result<Slot<'_>, ProcessError> {
        let mut state = self.lock();
        if state.interrupted {
            return Err(ProcessError::Interrupted);
        }
        let id = state.next;
        state.next += 1;
        state.in_flight += 1;
        Ok(Slot {
            supervisor: self,
            id,
            ended: state.ended,
        })
    }

    /// Returns the program `program` names, as
    /// [`resolve_program_in`] finds it, a bare
    /// name found on `PATH` once for this handle and its clones (see
    /// [`Found`]).
    pub(super) fn resolve(
        &self,
        program: &str,
        root: &Path,
        path_var: Option<&OsStr>,
    ) -> Result<PathBuf, ProcessError> {
        if names_a_path(program) {
            return resolve_program_in(program, root, path_var);
        }
        let found = || {
            self.shared
                .found
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        };
        if let Some(exe) = found().get(program, path_var) {
            return Ok(exe);
        }
        // Searched without the lock: another hook's spawn need not wait.
        let exe = resolve_program_in(program, root, path_var)?;
        found().put(program, path_var, &exe);
        Ok(exe)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update leaves the state whole, so a poisoned lock is as
        // good as a clean one.
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn forget(state: &mut State, id: u64) {
        state.groups.retain(|(other, _)| *other != id);
    }
}

/// A child leading its own process group, held for [`Supervisor::track`].
///
/// Its group is killed by an interrupt until it is reaped, and it is only
/// ever reaped here, after its group is no longer a target, so an interrupt
/// never signals an id that may have been reused.
///
/// Dropped unreaped, it is no longer registered, and the child is left
/// running.
///
/// This is Unix's; Windows has its own, held for
/// `Supervisor::spawn_tracked`, with the same methods.
#[cfg(unix)]
#[derive(Debug)]
pub struct Tracked {
    supervisor: Supervisor,
    id: u64,
    child: Child,
}

#[cfg(unix)]
impl Tracked {
    /// Returns the child's process id, which is its process group's.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Returns, as [`Child::try_wait`] does, the child's exit status if it
    /// has exited (and it is reaped then), `None` if it is still running.
    ///
    /// # Errors
    /// As [`Child::try_wait`].
    pub fn try_wait(&mut self) -> std::io::Result<Option<std::process::ExitStatus>> {
        use rustix::process::{WaitId, WaitIdOptions, waitid};
        // Asked without reaping first: while it runs, it stays a target.
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        let pid = Pid::from_child(&self.child);
        if let Ok(None) | Err(rustix::io::Errno::INTR) = waitid(WaitId::Pid(pid), options) {
            return Ok(None);
        }
        Supervisor::forget(&mut self.supervisor.lock(), self.id);
        self.child.try_wait()
    }

    /// Kills the child's whole process group with `SIGKILL`, then reaps it.
    pub fn kill_and_reap(mut self) {
        let pid = Pid::from_child(&self.child);
        {
            let mut state = self.supervisor.lock();
            // The leader is unreaped, so its id still names its group.
            // Failing to kill means the group is already gone.
            let _ = kill_process_group(pid, Signal::KILL);
            Supervisor::forget(&mut state, self.id);
        }
        let _ = self.child.wait();
    }
}

#[cfg(unix)]
impl Drop for Tracked {
    fn drop(&mut self) {
        Supervisor::forget(&mut self.supervisor.lock(), self.id);
    }
}

/// Windows' counterpart of `Supervisor::track` (Unix): a background child spawned
/// in a job object of its own, which an interrupt terminates.
#[cfg(windows)]
impl Supervisor {
    /// Spawns `command` as a background child in a job object of its own
    /// (no console window, a process group of its own, as a `run` child
    /// is), and returns a [`Tracked`] holding it: an interrupt terminates
    /// its job, with every process it started, for as long as the
    /// [`Tracked`] holds it. Its stdin, stdout and stderr are the
    /// command's; its creation flags are the supervisor's.
    ///
    /// Windows only: on Unix the caller spawns the child in a process group
    /// of its own and hands it to `track`. A `Child` spawned
    /// elsewhere is in no job, and putting a running process in one
    /// afterwards would race the processes it starts first.
    ///
    /// # Errors
    /// [`ProcessError::Spawn`] when it cannot be spawned;
    /// [`ProcessError::Interrupted`] when the handle was already
    /// interrupted: nothing is spawned then, or, interrupted while it was
    /// being spawned, its job has been terminated and the child waited for.
    pub fn spawn_tracked(&self, command: std::process::Command) -> Result<Tracked, ProcessError> {
        if self.is_interrupted() {
            return Err(ProcessError::Interrupted);
        }
        let program = command.get_program().to_string_lossy().into_owned();
        let child = super::windows::run::spawn_in_job(command)
            .map_err(|cause| ProcessError::Spawn { program, cause })?;
        let pid = child.id();
        let group: Group = Arc::new(Mutex::new(child));
        let mut state = self.lock();
        if state.interrupted {
            drop(state);
            kill_group(&group);
            let _ = super::windows::run::poll_exit(&group, None);
            return Err(ProcessError::Interrupted);
        }
        let id = state.next;
        state.next += 1;
        state.groups.push((id, Arc::clone(&group)));
        Ok(Tracked {
            supervisor: self.clone(),
            id,
            pid,
            child: group,
        })
    }
}

/// A background child in a job object of its own, held for
/// [`Supervisor::spawn_tracked`] (Windows).
///
/// Its job is terminated by an interrupt until the child has exited.
/// Dropped while the child runs, it is no longer registered, and the child
/// (and its job's processes) are left running.
#[cfg(windows)]
#[derive(Debug)]
pub struct Tracked {
    supervisor: Supervisor,
    id: u64,
    pid: u32,
    child: Group,
}

#[cfg(windows)]
impl Tracked {
    /// Returns the child's process id.
    pub fn id(&self) -> u32 {
        self.pid
    }

    /// Returns, as [`Child::try_wait`](std::process::Child::try_wait) does,
    /// the child's exit status if it has exited, `None` if it is still
    /// running. Once it has exited, an interrupt no longer ends its job.
    ///
    /// # Errors
    /// As [`Child::try_wait`](std::process::Child::try_wait).
    pub fn try_wait(&mut self) -> std::io::Result<Option<std::process::ExitStatus>> {
        let status = self
            .child
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .try_wait()?;
        if status.is_some() {
            Supervisor::forget(&mut self.supervisor.lock(), self.id);
        }
        Ok(status)
    }

    /// Terminates the child's job, with every process in it, then waits
    /// for the child to exit.
    pub fn kill_and_reap(self) {
        {
            let mut state = self.supervisor.lock();
            kill_group(&self.child);
            Supervisor::forget(&mut state, self.id);
        }
        let _ = super::windows::run::poll_exit(&self.child, None);
    }
}

#[cfg(windows)]
impl Drop for Tracked {
    fn drop(&mut self) {
        Supervisor::forget(&mut self.supervisor.lock(), self.id);
    }
}

/// One child in flight, from before its spawn until after its reaping.
pub(super) struct Slot<'a> {
    supervisor: &'a Supervisor,
    id: u64,
    /// [`State::ended`] when the slot was entered.
    ended: u64,
}

impl Slot<'_> {
    /// Whether an interrupt, or an [`end_in_flight`](Supervisor::end_in_flight),
    /// came since the slot was entered.
    fn ended(&self, state: &State) -> bool {
        state.interrupted || state.ended != self.ended
    }

    /// The child is spawned and leads group `pid`: from now on an
    /// interrupt kills it; if one came while it was being spawned, now.
    pub(super) fn spawned(&self, group: Group) {
        let mut state = self.supervisor.lock();
        if self.ended(&state) {
            kill_group(&group);
        }
        state.groups.push((self.id, group));
    }

    /// The child is about to be reaped: its id must not be signalled any
    /// more. Returns whether an interrupt (or an end of what was in
    /// flight) came while it ran.
    pub(super) fn reaping(&self) -> bool {
        let mut state = self.supervisor.lock();
        Supervisor::forget(&mut state, self.id);
        self.ended(&state)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut state = self.supervisor.lock();
        Supervisor::forget(&mut state, self.id);
        state.in_flight -= 1;
        let waiting = state.waiting > 0;
        drop(state);
        if waiting {
            self.supervisor.shared.reaped.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `wait_reaped` leaves no waiter counted behind, whether it found
    /// nothing in flight, waited for a reaping, or gave up: a waiter left
    /// counted would make every later reaping wake nobody with a system
    /// call.
    #[test]
    fn a_wait_leaves_no_waiter_counted() {
        let supervisor = Supervisor::new();
        assert!(supervisor.wait_reaped(Duration::from_millis(1)));
        assert_eq!(supervisor.lock().waiting, 0);

        let slot = supervisor.enter().unwrap();
        assert!(
            !supervisor.wait_reaped(Duration::from_millis(1)),
            "one in flight"
        );
        assert_eq!(supervisor.lock().waiting, 0);

        let waiter = {
            let supervisor = supervisor.clone();
            std::thread::spawn(move || supervisor.wait_reaped(Duration::from_secs(60)))
        };
        let start = Instant::now();
        while supervisor.lock().waiting == 0 && start.elapsed() < Duration::from_secs(20) {
            std::thread::yield_now();
        }
        assert_eq!(supervisor.lock().waiting, 1, "the thread is waiting");
        let reaped = Instant::now();
        drop(slot);
        assert!(waiter.join().unwrap());
        assert!(
            reaped.elapsed() < Duration::from_secs(20),
            "woken by the reaping, not by its own deadline"
        );
        assert_eq!(supervisor.lock().waiting, 0);
    }
}
