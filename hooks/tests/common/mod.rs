//! Shared by the test binaries: a small event enum, spec builders, scripts
//! written atomically, bounded waits and re-executing one test in a child.
#![allow(dead_code)] // each test binary uses its own subset

use std::fs;
#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
#[cfg(unix)]
use std::path::PathBuf;
#[cfg(unix)]
use std::process::Command;
use std::process::Output;
use std::time::Duration;

use io_hooks::{Action, Flow, HookEvents, HookFilter, HookSpec, Problem};
use serde::Serialize;

pub(crate) mod capture;
mod watchdog;
#[cfg(unix)]
#[allow(unused_imports)] // each test binary uses its own subset
pub(crate) use watchdog::{KillOnDrop, ReleaseFifo, mkfifo, output_within};
#[allow(unused_imports)] // each test binary uses its own subset
pub(crate) use watchdog::{alive, proc_state, read_pid, wait_until, within};

/// The events of these tests: a miniature of a harness's, never its own.
#[derive(HookEvents, Serialize, Debug, Clone)]
#[serde(tag = "event")]
pub(crate) enum Ev {
    #[serde(rename = "started")]
    Started {
        run_id: u64,
        depth: u32,
        goal: String,
    },
    #[serde(rename = "step")]
    Step { run_id: u64, depth: u32, n: u64 },
    #[serde(rename = "tool_call")]
    ToolCall { run_id: u64, tool: String },
    #[serde(rename = "finished")]
    Finished { run_id: u64 },
}

pub(crate) fn started(goal: &str) -> Ev {
    Ev::Started {
        run_id: 1,
        depth: 0,
        goal: goal.to_owned(),
    }
}

pub(crate) fn step(n: u64) -> Ev {
    Ev::Step {
        run_id: 1,
        depth: 0,
        n,
    }
}

pub(crate) fn filter(on: &[&str]) -> HookFilter<Ev> {
    if on.is_empty() {
        HookFilter::ALL
    } else {
        HookFilter::from_names(on).expect("test filters name real events")
    }
}

pub(crate) fn append(path: &Path, on: &[&str], on_failure: Flow) -> HookSpec<Ev> {
    HookSpec::new(filter(on), Action::append(path)).with_on_failure(on_failure)
}

pub(crate) fn run(argv: &[&str], timeout_ms: u64, on: &[&str], on_failure: Flow) -> HookSpec<Ev> {
    let action = Action::run_with_timeout(argv.iter().copied(), Duration::from_millis(timeout_ms));
    HookSpec::new(filter(on), action).with_on_failure(on_failure)
}

#[cfg(unix)]
/// Writes an executable `/bin/sh` script to a temporary name, then renames
/// it into place: a file still open for writing cannot be executed ("text
/// file busy"), and a rename never leaves it open. Tests that do not test
/// which program runs invoke it as `/bin/sh name` instead, which never
/// executes the file itself: a thread forking at the moment another wrote
/// a script can briefly hold a writable descriptor of it in its child.
pub(crate) fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    fs::write(&tmp, format!("#!/bin/sh\n{body}\n")).expect("write script");
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o755)).expect("chmod script");
    fs::rename(&tmp, &path).expect("rename script");
    path
}

/// A process's parent, from `/proc/<pid>/stat`.
pub(crate) fn proc_ppid(pid: i32) -> Option<i32> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(unix)]
/// Limits every file this process writes to `limit` bytes (`ulimit -f`),
/// with `SIGXFSZ` ignored so that a write past it fails with EFBIG instead
/// of killing the process. Both are process-wide: only in a re-executed
/// child.
pub(crate) fn limit_file_size(limit: u64) {
    // SAFETY: `SIG_IGN` installs no handler, and the re-executed child's
    // one test thread is the only one touching dispositions. (`io` catches
    // `SIGXFSZ` for the same reason.)
    let previous = unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    assert_ne!(previous, libc::SIG_ERR);
    let limit = rustix::process::Rlimit {
        current: Some(limit),
        maximum: Some(limit),
    };
    rustix::process::setrlimit(rustix::process::Resource::Fsize, limit).unwrap();
}

/// The name of the environment variable telling a re-executed test binary
/// which test body to run.
pub(crate) const REEXEC: &str = "IO_HOOKS_TEST_REEXEC";

/// Whether this process is the re-executed child running `test`.
pub(crate) fn is_reexec(test: &str) -> bool {
    std::env::var_os(REEXEC).is_some_and(|v| v == test)
}

#[cfg(unix)]
/// Re-runs this test binary on the one test named `test` (its full path,
/// e.g. `module::name`), with `REEXEC` set, `envs` added and `cwd` as its
/// working directory. A child still running after a minute fails the test
/// and is killed.
pub(crate) fn reexec(test: &str, envs: &[(&str, &std::ffi::OsStr)], cwd: &Path) -> Output {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut cmd = Command::new(exe);
    cmd.args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(REEXEC, test)
        .current_dir(cwd);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("re-execute the test binary");
    output_within(
        child,
        Duration::from_secs(60),
        &format!("re-executed test `{test}`"),
    )
}

/// Panics with the child's output unless it exited 0 by itself having run
/// exactly the one test it was given.
pub(crate) fn assert_child_passed(out: &Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "re-executed test failed: {:?}\n--- stdout\n{stdout}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // A filter that matched no test would "pass" having run nothing.
    assert!(
        stdout.contains("1 passed"),
        "the child ran no test body:\n{stdout}"
    );
}

/// A problem as the operator reads it, under its action's key: what a
/// test compares (`Problem::action` and `Problem::message`). The built-in
/// actions' problem types are the crate's own; their words are the
/// interface, and each constructor below is one of them, as printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Typed {
    /// An `append` hook's.
    Append(String),
    /// A `run` hook's.
    Run(String),
    /// Another action's, as it reads.
    Other(String),
}

/// `problem`'s message under its action.
pub(crate) fn typed(problem: &Problem) -> Typed {
    match problem.action() {
        "append" => Typed::Append(problem.message()),
        "run" => Typed::Run(problem.message()),
        _ => Typed::Other(problem.message()),
    }
}

/// The built-in actions' problems, in their words.
pub(crate) mod said {
    use std::path::Path;

    use super::Typed;

    /// `append`: the path is a directory.
    pub(crate) fn is_directory(path: &Path) -> Typed {
        Typed::Append(format!("append: `{}` is a directory", path.display()))
    }

    /// `append`: the path is a symbolic link.
    pub(crate) fn is_symlink(path: &Path) -> Typed {
        Typed::Append(format!(
            "append: `{}` is a symbolic link, which an append hook never follows",
            path.display()
        ))
    }

    /// `append`: the path is not a regular file.
    pub(crate) fn not_regular(path: &Path) -> Typed {
        Typed::Append(format!(
            "append: `{}` is not a regular file",
            path.display()
        ))
    }

    /// `append`: the file's directory does not exist.
    pub(crate) fn no_parent(path: &Path, parent: &Path) -> Typed {
        Typed::Append(format!(
            "append: `{}` cannot be created: there is no directory `{}`",
            path.display(),
            parent.display()
        ))
    }

    /// `append`: the path leads out of the root, through a named link or not.
    pub(crate) fn leaves_root(path: &Path, through: Option<&str>) -> Typed {
        let how = match through {
            Some(link) => format!(" through the symbolic link `{link}`"),
            None => " (through `..` or a symbolic link)".to_owned(),
        };
        Typed::Append(format!(
            "append: `{}` leads out of the hooks' root{how}",
            path.display()
        ))
    }

    /// `append`: a `~` or `$` no shell expands.
    pub(crate) fn append_not_expanded(text: &str) -> Typed {
        Typed::Append(format!(
            "`append` = `{text}`: the `~` or `$` is taken literally, because there is no shell"
        ))
    }

    /// `append`: read with one root, built with another.
    pub(crate) fn other_root(path: &Path, read_with: &Path, root: &Path) -> Typed {
        Typed::Append(format!(
            "append: `{}` was resolved against `{}` when its file was read, and the hooks' \
             root is `{}`",
            path.display(),
            read_with.display(),
            root.display()
        ))
    }

    /// `run`: a bare name in no `PATH` entry.
    pub(crate) fn not_in_path(program: &str) -> Typed {
        Typed::Run(format!(
            "`{program}` is not an executable file in any absolute `PATH` entry (a bare name \
             is looked up in `PATH` only, never in the hooks' root, and relative entries such \
             as `.` are skipped)"
        ))
    }

    /// `run`: a `~` or `$` no shell expands.
    pub(crate) fn run_not_expanded(text: &str) -> Typed {
        Typed::Run(format!(
            "`run[1]` = `{text}`: the `~` or `$` is taken literally, because there is no shell"
        ))
    }
}
