//! Shared by io-trust's tests: git run as a test's fixture maker, and the
//! rule for a test whose prerequisite is missing.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::Path;
use std::process::{Command, Stdio};

/// Whether a test may go on: `true` when `what` is `here`. Under
/// `CI=true` a missing prerequisite fails the test; elsewhere the test
/// says loudly that it ran nothing.
pub(crate) fn prerequisite(what: &str, here: bool) -> bool {
    use std::io::Write;
    if here {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none_or(|v| v != "true"),
        "{what} is missing, and under CI=true a test may not skip: install it"
    );
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED, this test ran nothing: {what} is missing (under CI=true it fails)"
    );
    false
}

/// `git -C dir args…`, with nothing of the host's git setup leaking in;
/// whether it succeeded.
pub(crate) fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "advice.detachedHead=false",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A fresh repository in a temp dir; `None` (having said so) when there is
/// no usable git.
pub(crate) fn repo() -> Option<tempfile::TempDir> {
    let dir = tempfile::tempdir().unwrap();
    prerequisite("a usable git", git(dir.path(), &["init", "-q"])).then_some(dir)
}

/// Writes `files` (path, content) under `dir`, making their directories.
pub(crate) fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, content) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
}

/// `git add` then commit `paths` in `repo`.
pub(crate) fn commit(repo: &Path, paths: &[&str]) {
    let mut args = vec!["add", "--"];
    args.extend(paths);
    assert!(git(repo, &args), "git add {paths:?}");
    assert!(git(repo, &["commit", "-q", "-m", "c"]), "git commit");
}

/// Whether this process runs as root (who may chown).
pub(crate) fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}
