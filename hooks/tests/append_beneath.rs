//! Issue 22: an `append` path under the hooks' root stays beneath it.
//! A clone that commits `logs -> ~/.bashrc.d` must not carry a user-scope
//! `append = "logs/audit.jsonl"` into a directory a shell sources.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::time::Duration;

use common::{Typed, said, typed};
use io_hooks::{Flow, HookFailure, Hooks};

use common::{append, mkfifo, step, within};

/// A root holding `logs -> <outside>`, and that outside directory.
fn clone_with_a_link_out() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let (root, outside) = (tmp.path().join("clone"), tmp.path().join("bashrc.d"));
    fs::create_dir(&root).unwrap();
    fs::create_dir(&outside).unwrap();
    symlink(&outside, root.join("logs")).unwrap();
    (tmp, root, outside)
}

/// What `Hooks::check` finds wrong with `specs`, without the hook numbers.
fn kinds(specs: &[io_hooks::HookSpec<common::Ev>], root: &std::path::Path) -> Vec<Typed> {
    Hooks::check(specs, root)
        .into_iter()
        .map(|p| typed(&p))
        .collect()
}

/// The check names the hook and the link; the hooks built anyway create
/// nothing outside; each event fails (and cancels, as asked) without a byte
/// landing outside. Before, the check said nothing and the event landed in
/// `bashrc.d/audit.jsonl`.
#[test]
fn an_append_through_a_link_out_of_the_root_is_a_problem_and_writes_nothing() {
    let (_tmp, root, outside) = clone_with_a_link_out();
    let log = root.join("logs/audit.jsonl");
    let specs = vec![append(&log, &[], Flow::Cancel)];
    let problems = Hooks::check(&specs, &root);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(typed(&problems[0]), said::leaves_root(&log, Some("logs")));
    assert_eq!(
        problems[0].to_string(),
        format!(
            "hook[1]: append: `{}` leads out of the hooks' root through the symbolic link `logs`",
            log.display()
        )
    );
    assert!(
        problems[0]
            .hint()
            .unwrap()
            .contains("write an absolute path")
    );

    let hooks = Hooks::new(specs, &root);
    assert_eq!(hooks.problems(), problems.as_slice());
    let mut failure = None;
    let flow = hooks.fire_with(&step(1), &step(1), |run| {
        failure = run.result.err().map(HookFailure::to_string);
    });
    assert_eq!(flow, Flow::Cancel);
    let failure = failure.expect("the append failed");
    assert!(
        failure.starts_with(&format!("could not append to `{}`: ", log.display())),
        "{failure}"
    );
    assert_eq!(
        fs::read_dir(&outside).unwrap().count(),
        0,
        "nothing outside"
    );
}

/// `..` out of the root is refused the same way, and a relative path given
/// to the engine as written (not joined with the root) is the root's too.
#[test]
fn dot_dot_and_a_relative_path_are_beneath_the_root() {
    let (tmp, root, outside) = clone_with_a_link_out();
    let up = root.join("../escaped.jsonl");
    let relative = PathBuf::from("logs/audit.jsonl");
    let specs = vec![
        append(&up, &[], Flow::Continue),
        append(&relative, &[], Flow::Continue),
    ];
    assert_eq!(
        kinds(&specs, &root),
        [
            said::leaves_root(&up, None),
            said::leaves_root(&relative, Some("logs")),
        ]
    );
    let hooks = Hooks::new(specs, &root);
    assert_eq!(hooks.fire_event(&step(1)), Flow::Continue);
    assert!(!tmp.path().join("escaped.jsonl").exists());
    assert_eq!(
        fs::read_dir(&outside).unwrap().count(),
        0,
        "nothing through the link"
    );
}

/// An absolute path outside the root is the operator's own: taken as
/// written, links and all. A link inside the root to inside the root is
/// followed where the kernel can say it stays beneath (`openat2`).
#[test]
fn an_absolute_path_outside_the_root_is_taken_as_written() {
    let (tmp, root, outside) = clone_with_a_link_out();
    let mine = tmp.path().join("mine");
    symlink(&outside, &mine).unwrap();
    let log = mine.join("audit.jsonl");
    let hooks = Hooks::new(vec![append(&log, &[], Flow::Cancel)], &root);
    assert!(hooks.problems().is_empty(), "{:?}", hooks.problems());
    assert_eq!(hooks.fire_event(&step(1)), Flow::Continue);
    assert_eq!(
        fs::read_to_string(outside.join("audit.jsonl"))
            .unwrap()
            .lines()
            .count(),
        1
    );

    fs::create_dir(root.join("real")).unwrap();
    symlink("real", root.join("alias")).unwrap();
    let inside = root.join("alias/audit.jsonl");
    let specs = vec![append(&inside, &[], Flow::Cancel)];
    let problems = Hooks::check(&specs, &root);
    assert!(problems.is_empty(), "{problems:?}");
}

/// The check names the link that leads out, past one that stays under the
/// root; a directory on the way that is a file is a missing directory.
#[test]
fn the_check_names_the_link_that_leads_out_and_a_file_is_no_directory() {
    let (_tmp, root, outside) = clone_with_a_link_out();
    fs::create_dir(root.join("real")).unwrap();
    symlink(&outside, root.join("real/out")).unwrap();
    symlink("real", root.join("alias")).unwrap();
    fs::write(root.join("file"), "").unwrap();
    let (deep, under_a_file) = (root.join("alias/out/a.jsonl"), root.join("file/a.jsonl"));
    let specs = vec![
        append(&deep, &[], Flow::Continue),
        append(&under_a_file, &[], Flow::Continue),
    ];
    assert_eq!(
        kinds(&specs, &root),
        [
            said::leaves_root(&deep, Some("alias/out")),
            said::no_parent(&under_a_file, &root.join("file")),
        ]
    );
}

/// A FIFO where the append's directory should be (`pipe/a.jsonl`): the
/// check opens each directory as one (`O_DIRECTORY`), so it says "no
/// directory" at once instead of waiting for a writer on the FIFO; firing
/// fails the same way, at once.
#[test]
fn a_fifo_where_a_directory_should_be_is_no_directory_and_nothing_waits_on_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    mkfifo(&root.join("pipe"));
    let log = root.join("pipe/a.jsonl");
    let specs = vec![append(&log, &["step"], Flow::Continue)];
    let found = {
        let (specs, root) = (specs.clone(), root.clone());
        within(Duration::from_secs(20), "the check", move || {
            kinds(&specs, &root)
        })
    };
    assert_eq!(found, [said::no_parent(&log, &root.join("pipe"))]);
    let failed = within(Duration::from_secs(20), "an event", move || {
        let hooks = Hooks::new(specs, &root);
        let mut failed = 0;
        let flow = hooks.fire_with(&step(1), &step(1), |run| {
            failed += usize::from(run.result.is_err());
        });
        assert_eq!(flow, Flow::Continue, "on_failure = \"continue\"");
        failed
    });
    assert_eq!(failed, 1, "the append failed, and did not wait");
}
