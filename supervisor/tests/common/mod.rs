//! Shared by the test binaries: scripts written atomically, bounded waits
//! and re-executing one test in a child.
#![allow(dead_code)] // each test binary uses its own subset

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

mod watchdog;
#[allow(unused_imports)] // each test binary uses its own subset
pub(crate) use watchdog::{
    KillOnDrop, ReleaseFifo, alive, mkfifo, output_within, proc_state, read_pid, wait_until, within,
};

/// Writes an executable `/bin/sh` script to a temporary name, then renames
/// it into place: a file still open for writing cannot be executed ("text
/// file busy"), and a rename never leaves it open.
pub(crate) fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    fs::write(&tmp, format!("#!/bin/sh\n{body}\n")).expect("write script");
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o755)).expect("chmod script");
    fs::rename(&tmp, &path).expect("rename script");
    path
}

/// The name of the environment variable telling a re-executed test binary
/// which test body to run.
pub(crate) const REEXEC: &str = "IO_SUPERVISOR_TEST_REEXEC";

/// Whether this process is the re-executed child running `test`.
pub(crate) fn is_reexec(test: &str) -> bool {
    std::env::var_os(REEXEC).is_some_and(|v| v == test)
}

/// Re-runs this test binary on the one test named `test`, with `REEXEC`
/// set and `cwd` as its working directory. A child still running after a
/// minute fails the test and is killed.
pub(crate) fn reexec(test: &str, cwd: &Path) -> Output {
    reexec_with(test, cwd, &[])
}

/// [`reexec`] with `env` set for the child too.
pub(crate) fn reexec_with(test: &str, cwd: &Path, env: &[(&str, &OsStr)]) -> Output {
    let exe = std::env::current_exe().expect("the test binary's path");
    let child = Command::new(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .envs(env.iter().copied())
        .env(REEXEC, test)
        .current_dir(cwd)
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
