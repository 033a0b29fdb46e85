//! Round three (issue 22), and issue 44, through the `io` program: whether
//! the git index lists `io.local.toml` is read by `io` itself, and a
//! `.git` or an index it cannot read refuses the hooks (until the operator
//! trusts the file), never reads as "untracked". (No `git` is run at all:
//! `tests/hostile_files.rs` and `tests/trust.rs` hold that.)
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{git, index_unreadable, io_output, prerequisite};

const HOOKED: &str = "[[hook]]\nappend = \"audit.jsonl\"\n";

/// A temp dir holding the discovery root `root` with a hooked
/// `io.local.toml`, and a `bin` directory for a stand-in git.
fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (root, bin) = (dir.path().join("root"), dir.path().join("bin"));
    fs::create_dir(&root).unwrap();
    fs::create_dir(&bin).unwrap();
    fs::write(root.join("io.local.toml"), HOOKED).unwrap();
    (dir, root, bin)
}

/// `io check` in `root`, with the user scope absent and the data directory
/// empty, under a watchdog; `wrap` may put a command in front of `io`.
fn check(root: &Path, wrap: &[&str]) -> Output {
    let io = env!("CARGO_BIN_EXE_io");
    let mut command = match wrap.split_first() {
        Some((program, args)) => {
            let mut command = Command::new(program);
            command.args(args).arg(io);
            command
        }
        None => Command::new(io),
    };
    command
        .arg("check")
        .current_dir(root)
        .env("IO_CONFIG_HOME", root.join("no-user-scope"))
        .env("IO_DATA_HOME", root.join("no-data"))
        .env("HOME", root);
    io_output(&mut command, Duration::from_secs(30), "io check")
}

#[test]
fn a_git_directory_this_user_cannot_read_refuses_the_hooks() {
    // A checkout owned by another user, its `.git` at 0700: git, run by
    // this user, could not read it, looked past it and answered "not a git
    // repository", and the committed `io.local.toml` loaded as untracked.
    // Tests run as root, who reads everything, so `io` is run as `nobody`
    // (setpriv), on a checkout root owns.
    let is_root = rustix::process::geteuid().is_root();
    let setpriv = Command::new("setpriv")
        .arg("--help")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !prerequisite("root, and setpriv to run io as nobody", is_root && setpriv) {
        return;
    }
    let (dir, root, _bin) = dirs();
    if !prerequisite("a usable git", git(&root, &["init", "-q"])) {
        return;
    }
    assert!(git(&root, &["add", "io.local.toml"]));
    for path in [dir.path(), &root] {
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }
    fs::set_permissions(root.join(".git"), fs::Permissions::from_mode(0o700)).unwrap();
    let nobody = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--",
    ];
    let out = check(&root, &nobody);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let reason = format!(
        "`{}` exists but cannot be read (Permission denied): run the program as the user who \
         owns the checkout, or make its `.git` readable",
        root.join(".git").display()
    );
    // And the file is root's, not nobody's: a second doubt.
    let others = "; another user (uid 0) owns it, not you (uid 65534)";
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        index_unreadable(&root, &reason, others)
    );
    assert!(
        !root.join("audit.jsonl").exists(),
        "refused hooks were built"
    );

    // Readable again, the same user is told it is tracked.
    fs::set_permissions(root.join(".git"), fs::Permissions::from_mode(0o755)).unwrap();
    let out = check(&root, &nobody);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is tracked by the repository's git index"),
        "{out:?}"
    );
}

#[test]
fn a_git_that_git_does_not_take_for_a_repository_refuses_the_hooks() {
    // A `.git` file pointing nowhere (a deleted worktree's), and an empty
    // `.git` directory: git said "not a git repository", which was taken
    // for "no repository, so untracked", and the hooks loaded.
    let (_dir, root, _bin) = dirs();
    let nowhere = root.join("gone");
    fs::write(
        root.join(".git"),
        format!("gitdir: {}\n", nowhere.display()),
    )
    .unwrap();
    let out = check(&root, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let reason = format!(
        "`{}` names `{}`, which is not a git directory: it has no `HEAD`",
        root.join(".git").display(),
        nowhere.display()
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        index_unreadable(&root, &reason, "")
    );

    fs::remove_file(root.join(".git")).unwrap();
    fs::create_dir(root.join(".git")).unwrap();
    let out = check(&root, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let reason = format!(
        "`{}` is not a git directory: it has no `HEAD`",
        root.join(".git").display()
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        index_unreadable(&root, &reason, "")
    );
    assert!(
        !root.join("audit.jsonl").exists(),
        "refused hooks were built"
    );
}

#[test]
fn a_git_that_is_a_fifo_refuses_the_hooks_without_waiting_on_it() {
    // A clone can commit a FIFO as `.git`: a plain `open` of it waits for a
    // writer that never comes. If `io` still waits, the watchdog fails the
    // test and `_release` opens the other end, so nothing outlives it.
    let (_dir, root, _bin) = dirs();
    let _release = common::fifo(&root.join(".git"), true);
    let out = check(&root, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        index_unreadable(
            &root,
            &format!(
                "`{}` is neither a directory nor a file (a FIFO, a socket or a device), which \
                 no repository has: remove it",
                root.join(".git").display()
            ),
            ""
        )
    );
    assert!(
        !root.join("audit.jsonl").exists(),
        "refused hooks were built"
    );
}

#[test]
fn a_git_inside_a_repository_is_asked_of_its_own_git_directory() {
    // A root whose own `.git` is unusable, inside a repository that does
    // not track the file: git, left to find a repository, looked past the
    // root's `.git` to the outer one, which said "not tracked".
    let (dir, root, _bin) = dirs();
    common::work_tree(dir.path());
    fs::create_dir(root.join(".git")).unwrap();
    let out = check(&root, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("whether git tracks it cannot be told"),
        "{out:?}"
    );
}
