//! Round three (issue 22), through the `io` program: the check of whether
//! git tracks `io.local.toml` fails closed when the `.git` it finds cannot
//! be used, and the `git` it starts dies with `io`.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{
    KillOnDrop, alive, git, git_unanswered, io_output, output_within, prerequisite, read_pid,
    wait_until,
};

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

/// `io check` in `root`, with the user scope absent, under a watchdog;
/// `wrap` may put a command in front of `io`.
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
        .env("HOME", root);
    io_output(&mut command, Duration::from_secs(30), "io check")
}

#[test]
fn a_git_directory_this_user_cannot_read_refuses_the_hooks() {
    // A checkout owned by another user, its `.git` at 0700: git, run by
    // this user, cannot read it, looks past it and answers "not a git
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
        "`{}` exists but cannot be read (Permission denied): run `io` as the user who owns \
         the checkout, or make its `.git` readable",
        root.join(".git").display()
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        git_unanswered(&root, &reason)
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
    if !prerequisite("a usable git", git(&root, &["--version"])) {
        return;
    }
    let nowhere = root.join("gone");
    fs::write(
        root.join(".git"),
        format!("gitdir: {}\n", nowhere.display()),
    )
    .unwrap();
    let out = check(&root, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lead = format!(
        "io: {}: key `hook`: could not tell whether the repository's git index tracks this \
         `io.local.toml` (git exited with status 128: fatal: not a git repository",
        root.join("io.local.toml").display()
    );
    assert!(stderr.starts_with(&lead), "{stderr}");

    fs::remove_file(root.join(".git")).unwrap();
    fs::create_dir(root.join(".git")).unwrap();
    let out = check(&root, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("git exited with status 128"),
        "{out:?}"
    );
    assert!(
        !root.join("audit.jsonl").exists(),
        "refused hooks were built"
    );
}

#[test]
fn a_git_that_is_a_fifo_refuses_the_hooks_without_waiting_on_it() {
    // A clone can commit a FIFO as `.git`: the readability check opened it
    // with a plain `open`, which waits for a writer that never comes, so
    // `io` hung before git was started (and before its deadline). If it
    // still waits, the watchdog fails the test and `_release` opens the
    // other end, so nothing outlives it.
    let (_dir, root, _bin) = dirs();
    if !prerequisite("a usable git", git(&root, &["--version"])) {
        return;
    }
    let _release = common::fifo(&root.join(".git"), true);
    let out = check(&root, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        git_unanswered(
            &root,
            &format!(
                "`{}` is neither a directory nor a file (a FIFO, a socket or a device), which \
                 no repository has: remove it",
                root.join(".git").display()
            )
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
    if !prerequisite("a usable git", git(dir.path(), &["init", "-q"])) {
        return;
    }
    fs::create_dir(root.join(".git")).unwrap();
    let out = check(&root, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("could not tell whether"),
        "{out:?}"
    );
}

#[test]
fn a_signal_that_ends_io_ends_the_git_it_asked() {
    use rustix::process::Signal;
    for (signal, code) in [
        (Signal::INT, 130),
        (Signal::TERM, 143),
        (Signal::HUP, 129),
        (Signal::QUIT, 131),
    ] {
        let (dir, root, bin) = dirs();
        fs::create_dir(root.join(".git")).unwrap();
        // A git that never answers, as one reading a FIFO or a hung mount
        // would not: found first on PATH, as the check resolves `git`.
        let pid_file = dir.path().join("git.pid");
        let fake = bin.join("git");
        fs::write(
            &fake,
            format!(
                "#!/bin/sh\necho $$ > {}\nexec sleep 30\n",
                pid_file.display()
            ),
        )
        .unwrap();
        fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
        let child =
            common::with_ending_signals_at_default(&mut Command::new(env!("CARGO_BIN_EXE_io")))
                .arg("check")
                .current_dir(&root)
                .env("IO_CONFIG_HOME", root.join("no-user-scope"))
                .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
        let io_pid = rustix::process::Pid::from_child(&child);
        let git_pid = read_pid(&pid_file).expect("the fake git started");
        // Left running by a regression, it would sleep on: ended here
        // whatever the asserts below find.
        let _end = KillOnDrop(vec![git_pid]);
        let sent = Instant::now();
        rustix::process::kill_process(io_pid, signal).unwrap();
        let out = output_within(child, Duration::from_secs(20), "io, signalled");
        assert_eq!(out.status.code(), Some(code), "{signal:?}: {out:?}");
        assert!(
            wait_until(Duration::from_secs(5), || !alive(git_pid)),
            "{signal:?}: the git io started outlived it"
        );
        assert!(
            sent.elapsed() < Duration::from_secs(5),
            "{signal:?}: io waited for git"
        );
    }
}
