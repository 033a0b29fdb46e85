//! The runner's entry points on a [`Supervisor`], and the child's
//! `Command` built from an argv, written once: each platform's runner
//! (`run.rs` on Unix, `windows/run.rs`) spawns and waits.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::resolve::{absolute_entries, only_absolute_entries};
#[cfg(unix)]
use crate::run::{Watch, null, wait_for};
#[cfg(windows)]
use crate::windows::run::{Watch, null, wait_for};
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

/// Runs `argv` from `root` as the entry points above say: the program
/// resolved as [`Supervisor::resolve`] finds it (an absolute path, so that
/// no search of the platform's own runs), `stdout` given, stderr null unless
/// `watch` keeps it, the child's `PATH` its absolute entries, and `env`
/// applied; then the platform's runner spawns it and waits.
pub(crate) fn spawn_and_wait(
    argv: &[String],
    timeout: Duration,
    root: &Path,
    line: &[u8],
    stdout: Stdio,
    watch: Watch<'_>,
    env: &[(&OsStr, Option<&OsStr>)],
) -> Result<(), ProcessError> {
    let (program, args) = match argv.split_first() {
        Some((program, args)) => (program.as_str(), args),
        None => ("", &[][..]),
    };
    let path_var = std::env::var_os("PATH");
    let exe = watch
        .supervisor
        .resolve(program, root, path_var.as_deref())?;
    // On Windows, a `.bat` or `.cmd` is run by std through `cmd.exe`, each
    // argument quoted, or refused.
    let mut command = Command::new(&exe);
    command
        .args(args)
        .current_dir(root)
        .stdout(stdout)
        .stderr(null());
    // The child searches `PATH` as we do: a script's bare `ls` must not run
    // a `./ls` planted in the repository either. Set only when some entry
    // is not absolute: setting any variable makes std copy the whole
    // environment for the child, which was most of a `run` hook's own cost.
    if let Some(path_var) = path_var.as_deref().filter(|p| !only_absolute_entries(p)) {
        command.env("PATH", absolute_entries(path_var));
    }
    // `cmd.exe` (a `.cmd` hook, or one a hook runs) looks in the working
    // directory before `PATH` unless this is set: a script's bare `git` must
    // not run a `git.exe` planted in the repository.
    #[cfg(windows)]
    command.env("NoDefaultCurrentDirectoryInExePath", "1");
    for &(name, value) in env {
        match value {
            Some(value) if is_path_name(name) => command.env(name, absolute_entries(value)),
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    wait_for(command, program, line, timeout, watch)
}

/// Whether the variable `name` is the search path: `PATH`, in any case on
/// Windows, whose variables' names are.
fn is_path_name(name: &OsStr) -> bool {
    match cfg!(windows) {
        true => name.eq_ignore_ascii_case("PATH"),
        false => name == "PATH",
    }
}
