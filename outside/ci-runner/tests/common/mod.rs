//! What the runner's tests share: a checkout in a temporary directory, an
//! operator's git work tree, and the words the runner never says.

#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use ci_runner::{Ci, OPERATOR_FILE, PROJECT_FILE};

/// A checkout holding `project` as `ci.toml` and, when given, `operator` as
/// `ci.local.toml`; and the runner loaded from it.
pub fn checkout(project: &str, operator: Option<&str>) -> (tempfile::TempDir, Ci) {
    checkout_with(project, operator, |_| {})
}

/// [`checkout`], with `prepare` called on the directory before loading.
///
/// The checkout is an empty git work tree ([`work_tree`]), so the
/// `ci.local.toml` written there is the operator's by evidence, as in an
/// operator's own clone where it is untracked: no trust is asked.
pub fn checkout_with(
    project: &str,
    operator: Option<&str>,
    prepare: impl FnOnce(&Path),
) -> (tempfile::TempDir, Ci) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    work_tree(dir.path());
    std::fs::write(dir.path().join(PROJECT_FILE), project).expect("ci.toml written");
    if let Some(text) = operator {
        std::fs::write(dir.path().join(OPERATOR_FILE), text).expect("ci.local.toml written");
    }
    prepare(dir.path());
    let ci = Ci::load(dir.path(), &data_dir(dir.path())).unwrap_or_else(|e| panic!("{e}"));
    (dir, ci)
}

/// The runner's data directory for the checkout `dir`: inside it, so that
/// the test leaves nothing behind; made only when something is trusted.
pub fn data_dir(dir: &Path) -> PathBuf {
    dir.join(".ci-data")
}

/// Makes `dir` the top of an empty git work tree, as `git init` leaves one:
/// a `.git` holding `HEAD`, `objects/` and `refs/`, and no index yet, which
/// io-trust reads as listing nothing. Written by hand, so the tests that
/// use it need no git.
pub fn work_tree(dir: &Path) {
    let git = dir.join(".git");
    for sub in ["objects", "refs/heads"] {
        std::fs::create_dir_all(git.join(sub)).expect("a .git directory");
    }
    std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").expect(".git/HEAD");
}

/// `git -C dir args…`, quietly, with nothing of the host's git setup
/// leaking in; whether it succeeded.
pub fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(["-c", "init.defaultBranch=main"])
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

/// Whether a test may go on: `true` when `what` is `here`. Under `CI=true`
/// a missing prerequisite fails the test; elsewhere the test says loudly
/// that it ran nothing.
pub fn prerequisite(what: &str, here: bool) -> bool {
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

/// io-harness's files, command, events and config words, which no operator
/// of this runner should meet. Matched case-insensitively, anywhere in a
/// message (the temporary root's path taken out first).
pub const FOREIGN: &[&str] = &[
    "io.toml",
    "io.local.toml",
    "io check",
    "io ",
    "step",
    "tool_call",
    "profile",
    "spec",
    // io's name for its root, which an engine message once said.
    "discovery",
    // io's variable for its data directory, where its trust store is.
    "io_data_home",
];

/// `text` with `root` taken out, checked for every foreign word.
pub fn assert_own_words(text: &str, root: &Path) {
    let text = text.replace(&root.display().to_string(), "<root>");
    let lower = text.to_lowercase();
    for word in FOREIGN {
        assert!(!lower.contains(word), "`{word}` in: {text}");
    }
}

/// The lines of `file` in `dir`, each parsed as JSON.
pub fn events(dir: &Path, file: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join(file))
        .expect("the log exists")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// The `event` tags of `file`'s lines.
pub fn tags(dir: &Path, file: &str) -> Vec<String> {
    events(dir, file)
        .iter()
        .map(|e| e["event"].as_str().expect("a tag").to_owned())
        .collect()
}

/// An executable script `name` in `dir` with `body` after its `#!` line.
pub fn script(dir: &Path, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("script written");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}
