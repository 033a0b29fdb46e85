//! The runner's entry points on a [`Supervisor`], written once: each
//! platform's runner (`run.rs` on Unix, `windows/run.rs`) spawns and waits.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

#[cfg(unix)]
use crate::run::{Watch, null, spawn_and_wait, wait_for};
#[cfg(windows)]
use crate::windows::run::{Watch, null, spawn_and_wait, wait_for};
use crate::{ProcessError, StderrTail, Supervisor};

/// The runner's entry points on a [`Supervisor`], the same on every
/// platform: Unix's process group is Windows' job object.
impl Supervisor {
    /// Runs an argv as [`run_argv`](crate::run_argv) does, with the child in
    /// flight on this handle: an interrupt kills its process group (on
    /// Windows, terminates its job) and it fails with
    /// [`ProcessError::Interrupted`]; after an interrupt it is not spawned.
    ///
    /// # Errors
    /// As [`run_argv`](crate::run_argv), and [`ProcessError::Interrupted`].
    pub fn run_argv(
        &self,
        argv: &[String],
        root: &Path,
        input: &[u8],
        stdout: Stdio,
        timeout: Duration,
    ) -> Result<(), ProcessError> {
        let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
        let watch = Watch::auto(self, None);
        spawn_and_wait(argv, timeout, &root, input, stdout, watch, &[])
    }

    /// Runs an argv as [`run_argv`](Self::run_argv) does with stdout to
    /// null, keeping the end of its stderr in `stderr` when given.
    ///
    /// With a tail, the child's stderr is drained on a thread of its own
    /// while it runs, so a child writing megabytes never blocks, and its
    /// last bytes are kept; without, its stderr is null. io-hooks' `run`
    /// hook runs each event with it.
    ///
    /// `root` should be absolute, as a hook's root is: a relative one is
    /// the child's working directory, and the program a relative path from
    /// ours.
    ///
    /// ```
    /// # #[cfg(unix)] fn main() {
    /// use std::time::Duration;
    /// use io_supervisor::{StderrTail, Supervisor};
    ///
    /// let argv: Vec<String> = ["/bin/sh", "-c", "echo no such thing >&2; exit 3"]
    ///     .map(String::from)
    ///     .to_vec();
    /// let mut tail = StderrTail::new(8);
    /// let err = Supervisor::new()
    ///     .run_argv_keeping_stderr(&argv, "/".as_ref(), b"", Duration::from_secs(5), Some(&mut tail))
    ///     .unwrap_err();
    /// assert_eq!(err.to_string(), "exited with status 3");
    /// assert_eq!(tail.bytes(), b"h thing\n");
    /// # }
    /// # #[cfg(not(unix))] fn main() {}
    /// ```
    ///
    /// # Errors
    /// As [`run_argv`](Self::run_argv).
    #[inline]
    pub fn run_argv_keeping_stderr(
        &self,
        argv: &[String],
        root: &Path,
        input: &[u8],
        timeout: Duration,
        stderr: Option<&mut StderrTail>,
    ) -> Result<(), ProcessError> {
        self.run_argv_with_env(argv, root, input, timeout, stderr, &[])
    }

    /// Runs an argv as [`run_argv_keeping_stderr`](Self::run_argv_keeping_stderr)
    /// does, with `env`'s changes to the environment the child inherits, in
    /// order: `(name, Some(value))` sets `name`, `(name, None)` removes it
    /// (a later pair of the same name wins). io-hooks' `run` hook runs each
    /// event with it when its host names the variables a hook is given.
    ///
    /// A `PATH` among them is given as its absolute entries, as the host's
    /// own is; the program is still looked up in the host's `PATH`. Each
    /// name should hold neither `=` nor NUL, and no value a NUL: std refuses
    /// to spawn with one ([`ProcessError::Spawn`]).
    ///
    /// With `env` empty the child inherits the host's environment as it
    /// is; with any pair, std builds the child's environment whole, a copy
    /// of the host's, at each spawn.
    ///
    /// ```
    /// # #[cfg(unix)] fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::ffi::OsStr;
    /// use std::time::Duration;
    /// use io_supervisor::Supervisor;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let argv: Vec<String> = ["/bin/sh", "-c", "printf %s \"$STAGE:${HOME-unset}\" > env.txt"]
    ///     .map(String::from)
    ///     .to_vec();
    /// let env = [(OsStr::new("STAGE"), Some(OsStr::new("deploy"))), (OsStr::new("HOME"), None)];
    /// Supervisor::new().run_argv_with_env(&argv, dir.path(), b"", Duration::from_secs(5), None, &env)?;
    /// assert_eq!(std::fs::read_to_string(dir.path().join("env.txt"))?, "deploy:unset");
    /// # Ok(())
    /// # }
    /// # #[cfg(not(unix))] fn main() {}
    /// ```
    ///
    /// # Errors
    /// As [`run_argv`](Self::run_argv).
    #[inline]
    pub fn run_argv_with_env(
        &self,
        argv: &[String],
        root: &Path,
        input: &[u8],
        timeout: Duration,
        stderr: Option<&mut StderrTail>,
        env: &[(&OsStr, Option<&OsStr>)],
    ) -> Result<(), ProcessError> {
        let watch = Watch::auto(self, stderr);
        spawn_and_wait(argv, timeout, root, input, null(), watch, env)
    }

    /// Runs a `Command` as [`run_command`](crate::run_command) does, with
    /// the child in flight on this handle, as [`run_argv`](Self::run_argv)
    /// has it. On Windows the command's creation flags are replaced by the
    /// supervisor's (no console window, a process group of its own).
    ///
    /// # Errors
    /// As [`run_command`](crate::run_command), and
    /// [`ProcessError::Interrupted`].
    pub fn run_command(
        &self,
        command: Command,
        input: &[u8],
        timeout: Duration,
    ) -> Result<(), ProcessError> {
        let program = command.get_program().to_string_lossy().into_owned();
        wait_for(command, &program, input, timeout, Watch::auto(self, None))
    }
}
