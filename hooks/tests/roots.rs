//! The hooks' root: a relative `append` path and `run` program resolve
//! against it, never against the working directory, and an empty or
//! relative root is made absolute when the hooks are built.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::path::Path;

use common::{Ev, append, assert_child_passed, is_reexec, reexec, run, step};
use io_hooks::{Action, Flow, HookFailure, HookFilter, HookSpec, Hooks};

/// Fires `ev` and returns every hook's failure, as an operator reads it.
fn failures(hooks: &Hooks<Ev>, ev: &Ev) -> Vec<String> {
    let mut failures = Vec::new();
    let _ = hooks.fire_with(ev, ev, |r| {
        failures.extend(r.result.err().map(HookFailure::to_string));
    });
    failures
}

/// `Action::append("rel.jsonl")` appends under the root, as a table's
/// `append = "rel.jsonl"` does, whatever the working directory is.
#[test]
fn a_relative_append_path_is_under_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let name = "roots-a-relative-append-path.jsonl";
    let hooks = Hooks::new(
        vec![HookSpec::new(HookFilter::<Ev>::ALL, Action::append(name))],
        dir.path(),
    );
    assert_eq!(hooks.problems(), []);
    assert_eq!(failures(&hooks, &step(1)), Vec::<String>::new());
    let line = fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(
        line,
        "{\"event\":\"step\",\"run_id\":1,\"depth\":0,\"n\":1}\n"
    );
    assert!(
        !Path::new(name).exists(),
        "written to the working directory"
    );
}

/// A root of `""` (the parent of a bare file name) or `.` is the working
/// directory when the hooks are built: `run = ["true"]` runs, a relative
/// `append` lands there, and both still do after the host has moved to
/// another directory. Run in a child: the working directory is
/// process-wide.
#[test]
fn an_empty_or_relative_root_is_made_absolute_when_built() {
    const NAME: &str = "an_empty_or_relative_root_is_made_absolute_when_built";
    if is_reexec(NAME) {
        let here = std::env::current_dir().unwrap();
        let elsewhere = here.join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        let empty = Path::new("app.toml").parent().unwrap();
        assert_eq!(empty, Path::new(""));
        for (root, log) in [(empty, "empty.jsonl"), (Path::new("."), "dot.jsonl")] {
            let specs = vec![
                run(&["true"], 5_000, &[], Flow::Cancel),
                run(&["sh", "-c", "pwd > pwd.txt"], 5_000, &[], Flow::Cancel),
                append(Path::new(log), &[], Flow::Cancel),
            ];
            std::env::set_current_dir(&here).unwrap();
            let hooks = Hooks::new(specs, root);
            assert_eq!(hooks.problems(), [], "root {root:?}");
            assert_eq!(hooks.root(), root, "as given");
            std::env::set_current_dir(&elsewhere).unwrap();
            assert_eq!(failures(&hooks, &step(1)), Vec::<String>::new());
            assert_eq!(hooks.fire_event(&step(2)), Flow::Continue);
            assert_eq!(
                fs::read_to_string(here.join(log)).unwrap().lines().count(),
                2
            );
            let pwd = fs::read_to_string(here.join("pwd.txt")).unwrap();
            assert_eq!(Path::new(pwd.trim_end()), here, "root {root:?}");
            assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The child's working directory, as the operator's shell would have it.
    let cwd = fs::canonicalize(dir.path()).unwrap();
    assert_child_passed(&reexec(NAME, &[], &cwd));
}
