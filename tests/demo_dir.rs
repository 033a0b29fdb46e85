//! `io demo --dir DIR` never overwrites what DIR holds and never writes
//! through a symbolic link; `io demo` without `--dir` leaves no directory
//! behind in the temporary directory (issue 21, item 4).
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::path::Path;

use common::io_env::{code, stderr};
use common::run_io;

/// Every path beneath `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(next) = todo.pop() {
        for entry in fs::read_dir(&next).expect("read_dir") {
            let path = entry.expect("entry").path();
            if fs::symlink_metadata(&path).expect("lstat").is_dir() {
                todo.push(path.clone());
            }
            let rel = path.strip_prefix(dir).expect("beneath");
            paths.push(rel.display().to_string());
        }
    }
    paths.sort();
    paths
}

/// A DIR holding a file the demo lays out, for each such file: refused,
/// exit 1, naming what is there; the file keeps the operator's bytes and
/// nothing is added. Before, all three were overwritten without a word.
#[test]
fn demo_dir_refuses_a_directory_that_holds_what_it_would_write() {
    for (rel, named) in [
        ("workspace/io.local.toml", "`workspace`"),
        ("workspace/src/lib.rs", "`workspace`"),
        ("script.toml", "`script.toml`"),
    ] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("d");
        let mine = dir.join(rel);
        fs::create_dir_all(mine.parent().expect("a parent")).expect("mkdir");
        fs::write(&mine, "the operator's own\n").expect("write");
        let before = tree(&dir);

        let out = run_io(tmp.path(), tmp.path(), &["demo", "--dir", "d"], &[]);
        assert_eq!(code(&out), 1, "{rel}: {}", stderr(&out));
        let message = stderr(&out);
        assert!(
            message.starts_with("io: --dir d: already holds ")
                && message.contains(named)
                && message.contains("io demo never overwrites"),
            "{rel}: {message}"
        );
        assert!(out.stdout.is_empty(), "{rel}: the demo did not start");
        assert_eq!(
            fs::read_to_string(&mine).expect("still there"),
            "the operator's own\n"
        );
        assert_eq!(tree(&dir), before, "{rel}: nothing added");
    }
}

/// A DIR that is a symbolic link, and a DIR whose `workspace` is one, are
/// refused, and the directory the link leads to gets nothing. Before, the
/// demo was laid out (and run) through the link.
#[test]
fn demo_dir_never_writes_through_a_symbolic_link() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).expect("mkdir");
    std::os::unix::fs::symlink(&elsewhere, tmp.path().join("link")).expect("symlink");
    let out = run_io(tmp.path(), tmp.path(), &["demo", "--dir", "link"], &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with(
            "io: --dir link: is a symbolic link, and io demo never writes through one"
        ),
        "{}",
        stderr(&out)
    );
    assert!(tree(&elsewhere).is_empty(), "{:?}", tree(&elsewhere));

    let dir = tmp.path().join("d");
    fs::create_dir(&dir).expect("mkdir");
    std::os::unix::fs::symlink(&elsewhere, dir.join("workspace")).expect("symlink");
    let out = run_io(tmp.path(), tmp.path(), &["demo", "--dir", "d"], &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("already holds `workspace`"),
        "{}",
        stderr(&out)
    );
    assert!(tree(&elsewhere).is_empty(), "{:?}", tree(&elsewhere));
    assert_eq!(tree(&dir), ["workspace"]);
}

/// `io demo` runs in a new `io-demo-*` directory under `TMPDIR` and removes
/// it at the end, saying so. Before, every demo left one behind.
#[test]
fn a_demo_without_dir_leaves_nothing_in_the_temporary_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let scratch = tmp.path().join("tmp");
    fs::create_dir(&scratch).expect("mkdir");
    let out = run_io(
        tmp.path(),
        tmp.path(),
        &["demo"],
        &[("TMPDIR", scratch.as_os_str())],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let prefix = format!("== io demo in {}/io-demo-", scratch.display());
    assert!(text.starts_with(&prefix), "{text}");
    assert!(
        text.ends_with("; `io demo --dir DIR` keeps the files\n"),
        "{text}"
    );
    assert!(
        tree(&scratch).is_empty(),
        "left behind: {:?}",
        tree(&scratch)
    );
}

/// A `--dir` that is a regular file, or whose path runs through one, is
/// refused as a `--dir` problem, naming why, and the file is unchanged.
#[test]
fn demo_dir_names_a_dir_that_is_a_file_or_lies_beneath_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join("file"), "the operator's own\n").expect("write");
    let out = run_io(tmp.path(), tmp.path(), &["demo", "--dir", "file"], &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "io: --dir file: is not a directory; give a directory, or a new path\n"
    );
    let out = run_io(tmp.path(), tmp.path(), &["demo", "--dir", "file/d"], &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(stderr(&out), "io: --dir file/d: Not a directory\n");
    assert_eq!(
        fs::read_to_string(tmp.path().join("file")).expect("the file"),
        "the operator's own\n"
    );
    assert_eq!(tree(tmp.path()), ["file"]);
}
