//! What the runner's tests share: a checkout in a temporary directory.

#![allow(dead_code, unreachable_pub)]

use std::path::Path;

use ci_runner::{Ci, OPERATOR_FILE, PROJECT_FILE};

/// A checkout holding `project` as `ci.toml` and, when given, `operator` as
/// `ci.local.toml`; and the runner loaded from it.
pub fn checkout(project: &str, operator: Option<&str>) -> (tempfile::TempDir, Ci) {
    checkout_with(project, operator, |_| {})
}

/// [`checkout`], with `prepare` called on the directory before loading.
pub fn checkout_with(
    project: &str,
    operator: Option<&str>,
    prepare: impl FnOnce(&Path),
) -> (tempfile::TempDir, Ci) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join(PROJECT_FILE), project).expect("ci.toml written");
    if let Some(text) = operator {
        std::fs::write(dir.path().join(OPERATOR_FILE), text).expect("ci.local.toml written");
    }
    prepare(dir.path());
    let ci = Ci::load(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    (dir, ci)
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
