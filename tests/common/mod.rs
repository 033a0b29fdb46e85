//! Shared by the `io-harness` test binaries: a watchdog for steps that could
//! block, and one rule for a test whose prerequisite is missing.
#![allow(dead_code)] // each test binary uses its own subset

#[path = "../../hooks/tests/common/watchdog.rs"]
mod watchdog;
#[allow(unused_imports)] // each test binary uses its own subset
pub(crate) use io_env::IoEnv;
#[allow(unused_imports)] // each test binary uses its own subset
pub(crate) use watchdog::{
    KillOnDrop, ReleaseFifo, alive, mkfifo, output_within, read_pid, wait_until, within,
};

pub(crate) mod console;
pub(crate) mod io_env;

/// Whether CI is running these tests: CI sets `CI=true`.
pub(crate) fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| v == "true")
}

/// Whether a test may go on: `true` when its prerequisite `what` (git,
/// `mkfifo`, root) is `here`. When it is not, the test must not pass having
/// run nothing: under `CI=true`, where every prerequisite is installed, this
/// panics; elsewhere it says loudly that the test ran nothing and returns
/// `false`, for the test to return.
pub(crate) fn prerequisite(what: &str, here: bool) -> bool {
    use std::io::Write;
    if here {
        return true;
    }
    assert!(
        !in_ci(),
        "{what} is missing, and under CI=true a test may not skip: install it"
    );
    // Written to stderr itself, not with `eprintln!`, which libtest
    // captures and shows only for a failing test: a skip is said out loud.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED, this test ran nothing: {what} is missing (under CI=true it fails)"
    );
    false
}

/// Makes `dir` the top of an empty git work tree, as `git init` leaves
/// one: a `.git` holding `HEAD`, `objects/` and `refs/`, and no index yet.
/// `io` reads such a work tree's index as listing nothing, so an
/// `io.local.toml` this user writes there (0644 or tighter, in directories
/// no one else may write) is the operator's by evidence, with no `io
/// trust`: the operator's own checkout, where `io.local.toml` is
/// gitignored. Written by hand, so the tests that use it need no git;
/// `tests/trust.rs` and io-trust's own tests build real repositories.
pub(crate) fn work_tree(dir: &std::path::Path) {
    let git = dir.join(".git");
    for sub in ["objects", "refs/heads"] {
        std::fs::create_dir_all(git.join(sub)).expect("a .git directory");
    }
    std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").expect(".git/HEAD");
}

/// A fresh temp dir made [`work_tree`]: an operator's checkout.
pub(crate) fn checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    work_tree(dir.path());
    dir
}

/// Runs `git -C dir args…` quietly, with nothing of the host's git setup
/// (system config, `GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`) leaking in;
/// whether it succeeded.
pub(crate) fn git(dir: &std::path::Path, args: &[&str]) -> bool {
    std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `io args…`, run in `cwd` with `user` as its user scope (`IO_CONFIG_HOME`),
/// `user/.io-data` as its data directory (`IO_DATA_HOME`, where the key that
/// seals journals is made) and stdin closed; its output, collected under a
/// watchdog that fails the test after 120 s. `env` adds variables
/// (`TMPDIR`, `RUST_LOG`).
pub(crate) fn run_io(
    cwd: &std::path::Path,
    user: &std::path::Path,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_io"));
    command
        .args(args)
        .current_dir(cwd)
        .env("IO_CONFIG_HOME", user)
        .env("IO_DATA_HOME", user.join(".io-data"))
        .env_remove("RUST_LOG")
        .envs(env.iter().copied());
    io_output(
        &mut command,
        std::time::Duration::from_secs(120),
        &format!("io {args:?}"),
    )
}

/// Runs `command` (an `io`) to its end, stdin empty and stdout and stderr
/// collected, under a watchdog of `limit` that fails the test naming `what`
/// and kills it.
pub(crate) fn io_output(
    command: &mut std::process::Command,
    limit: std::time::Duration,
    what: &str,
) -> std::process::Output {
    use std::process::Stdio;
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("io runs");
    output_within(child, limit, what)
}

/// Makes a FIFO at `path` and returns what releases a reader (or,
/// `for_writing`, a writer) left blocked on it when dropped.
pub(crate) fn fifo(path: &std::path::Path, for_writing: bool) -> ReleaseFifo {
    mkfifo(path);
    ReleaseFifo {
        path: path.to_path_buf(),
        for_writing,
    }
}

/// What `io` prints refusing `root`'s hooked `io.local.toml` because the
/// git index that could list it cannot be read (`reason`), with no data
/// directory to record trust in (`HOME` and `IO_DATA_HOME` unset or
/// pointing nowhere) — or, with `trust`, a store that does not hold it.
pub(crate) fn index_unreadable(root: &std::path::Path, reason: &str, others: &str) -> String {
    format!(
        "io: {}: key `hook`: this `io.local.toml` is not known to be yours (whether git \
         tracks it cannot be told: {reason}{others}, and you have not trusted it), so its hooks \
         are not loaded. Read it, then run `io trust --root {}` to trust it as it is now, \
         or move the hooks to the user-scope file.\n",
        root.join("io.local.toml").display(),
        root.display()
    )
}

/// Makes `command` start with the four signals that end `io` (`SIGINT`,
/// `SIGTERM`, `SIGHUP`, `SIGQUIT`) at their default disposition and
/// unblocked, whatever this test binary inherited.
///
/// `io` keeps a signal its parent left ignored ignored (`nohup io run` is
/// the operator's choice), and an ignored disposition survives `exec`. A
/// test that sends `io` one of these signals and expects it to end must
/// therefore not inherit the disposition of whoever started the test run:
/// under `nohup cargo test`, or a load script's background job, `SIGHUP`
/// (or `SIGINT`) arrives ignored, `io` rightly goes on, and the test read
/// that as a race under load (issue 31).
pub(crate) fn with_ending_signals_at_default(
    command: &mut std::process::Command,
) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between `fork` and `exec`, where
    // only async-signal-safe functions may be called: `signal`,
    // `sigemptyset`, `sigaddset` and `sigprocmask` are all on POSIX's list
    // of async-signal-safe functions. It allocates nothing, takes no lock,
    // and touches only the child's own signal state and a set on its stack.
    unsafe {
        command.pre_exec(|| {
            let mut set = std::mem::MaybeUninit::<libc::sigset_t>::uninit();
            libc::sigemptyset(set.as_mut_ptr());
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
                if libc::signal(signal, libc::SIG_DFL) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
                libc::sigaddset(set.as_mut_ptr(), signal);
            }
            if libc::sigprocmask(libc::SIG_UNBLOCK, set.as_ptr(), std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}
