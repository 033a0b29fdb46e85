//! Issue 44, through the `io` program: an `io.local.toml` runs its hooks
//! only when `io` can show it is the operator's (untracked in a git work
//! tree whose index `io` reads itself, owned by them, writable by no one
//! else), or once they trusted its very content with `io trust`. One test
//! per attack: a committed file with no `git` on `PATH`, an archive with no
//! `.git`, another user's file, a directory above it others may write
//! through an ACL or a group; and the command `io` prints to trust a file,
//! pasted into a shell, does what it says and nothing else.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::IoEnv;
use common::io_env::{code, stderr, stdout};
use common::{git, prerequisite};

/// A `run` hook that leaves a mark in the root each time it runs, and an
/// `append` hook.
const MARKING: &str = "[[hook]]\nrun = [\"/bin/sh\", \"-c\", \"echo ran >> ran.txt\"]\n\
                       [[hook]]\nappend = \"audit.jsonl\"\n";

const EVENTS: &str = "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r\",\"depth\":0}\n";

const SCRIPT: &str = "goal = \"g\"\n\n[[turn]]\nanswer = \"done\"\n";

/// An archive's root: the fixture's checkout without its `.git`, holding
/// the hooked `io.local.toml`, a recording to replay and a script to run.
fn archive(env: &IoEnv) -> PathBuf {
    fs::remove_dir_all(env.root().join(".git")).expect("no .git");
    env.write("events.jsonl", EVENTS);
    env.write("script.toml", SCRIPT);
    env.write("io.local.toml", MARKING)
}

/// How many times the marking hook ran.
fn marks(env: &IoEnv) -> usize {
    fs::read_to_string(env.root().join("ran.txt"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// What `io` says refusing the root's `io.local.toml` for `reason`, the
/// fix for a file never trusted.
fn refusal(root: &Path, reason: &str) -> String {
    format!(
        "io: {}/io.local.toml: key `hook`: this `io.local.toml` is not known to be yours \
         ({reason}, and you have not trusted it), so its hooks are not loaded. Read it, then \
         run `io trust --root {}` to trust it as it is now, or move the hooks to the \
         user-scope file.\n",
        root.display(),
        root.display()
    )
}

/// That `out` is a refusal (exit 1, nothing on stdout) saying `said`, and
/// that no hook ran or was built.
#[track_caller]
fn refused(env: &IoEnv, out: &Output, said: &str) {
    assert_eq!(code(out), 1, "{}", stderr(out));
    assert!(stdout(out).is_empty(), "it ran: {}", stdout(out));
    assert!(stderr(out).contains(said), "{}", stderr(out));
    assert_eq!(marks(env), 0, "a refused hook ran");
    assert!(
        !env.root().join("audit.jsonl").exists(),
        "refused hooks were built"
    );
}

#[test]
fn an_archive_is_refused_by_check_run_and_replay_naming_io_trust() {
    // A ZIP download, a `git archive`, a package tarball: no `.git`, so no
    // index says the file came with the project, and nothing says it did
    // not. `io check`, `io run` and `io replay` refuse, naming the command.
    let env = IoEnv::new();
    archive(&env);
    let root = env.root();
    let said = refusal(&root, "no git work tree holds it");
    for args in [
        &["check"][..],
        &["run", "script.toml"],
        &["replay", "events.jsonl"],
    ] {
        let out = env.io(args);
        refused(&env, &out, &said);
        assert_eq!(stderr(&out), said, "{args:?}");
    }
    // From a subdirectory too: root discovery finds the file, and the same
    // refusal.
    fs::create_dir(root.join("src")).expect("src");
    let mut from_src = env.command(&["check"]);
    from_src.current_dir(root.join("src"));
    let out = common::io_output(
        &mut from_src,
        std::time::Duration::from_secs(60),
        "io check",
    );
    refused(&env, &out, &said);
}

#[test]
fn an_archive_runs_its_hooks_only_once_trusted_and_not_after_an_edit() {
    let env = IoEnv::new();
    archive(&env);
    let root = env.root();
    // `io trust`, as the refusal says: recorded, and the hooks run.
    let out = env.io(&["trust"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with(&format!(
            "trusted {}/io.local.toml\n  sha256 ",
            root.display()
        )),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).ends_with(&format!(
            "Its hooks run until it changes. To take it back: io untrust --root {}\n",
            root.display()
        )),
        "{}",
        stdout(&out)
    );
    let out = env.io(&["check"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!(
            "  local    {}/io.local.toml  <- hooks in force (trusted with `io trust`)\n",
            root.display()
        )),
        "{}",
        stdout(&out)
    );
    let out = env.io(&["replay", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(marks(&env), 1);
    let out = env.io(&["run", "script.toml"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(marks(&env) > 1);

    // An edit (by anyone) and it is refused again, saying it changed.
    let before = marks(&env);
    fs::remove_file(root.join("audit.jsonl")).expect("audit.jsonl");
    env.write("io.local.toml", &format!("{MARKING}# changed\n"));
    let out = env.io(&["replay", "events.jsonl"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!(
            "io: {}/io.local.toml: key `hook`: this `io.local.toml` is not known to be yours \
             (no git work tree holds it, and it changed since you trusted it), so its hooks \
             are not loaded. Read what changed, then run `io trust --root {}` again to \
             trust it as it is now.\n",
            root.display(),
            root.display()
        )
    );
    assert_eq!(marks(&env), before, "a changed file's hook ran");
    assert!(!root.join("audit.jsonl").exists());

    // `io trust --list` says so; `io untrust` takes it back.
    let out = env.io(&["trust", "--list"]);
    assert!(stdout(&out).contains("changed since"), "{}", stdout(&out));
    let out = env.io(&["untrust"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).starts_with("untrusted "), "{}", stdout(&out));
    let out = env.io(&["trust", "--list"]);
    assert!(
        stdout(&out).starts_with("no file is trusted"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_committed_io_local_toml_never_runs_without_git_on_path_nor_once_trusted() {
    // The high finding: `.git` in the root and no `git` on `PATH`. The
    // repository is built with git; `io` reads its index itself.
    let env = IoEnv::new();
    fs::remove_dir_all(env.root().join(".git")).expect("a real repository instead");
    if !prerequisite("a usable git", git(&env.root(), &["init", "-q"])) {
        return;
    }
    env.write("io.local.toml", MARKING);
    env.write("events.jsonl", EVENTS);
    assert!(git(&env.root(), &["add", "io.local.toml"]));
    let tracked = "this `io.local.toml` is tracked by the repository's git index";
    for path in ["/nonexistent", "/usr/bin:/bin"] {
        let mut command = env.command(&["replay", "events.jsonl"]);
        command.env("PATH", path);
        let out = common::io_output(&mut command, std::time::Duration::from_secs(60), "io");
        refused(&env, &out, tracked);
    }
    // Trust cannot make a file the clone delivered the operator's.
    let out = env.io(&["trust"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("not trusted: the git index of the work tree"),
        "{}",
        stderr(&out)
    );
    refused(&env, &env.io(&["check"]), tracked);
}

#[test]
fn another_users_io_local_toml_in_the_root_is_not_run() {
    // `/tmp`, a shared drop directory, their home: ownership was judged for
    // the directories above only, so another user's file in the root ran as
    // the caller, root included.
    if !prerequisite(
        "root (to give a file to another user)",
        rustix::process::geteuid().is_root(),
    ) {
        return;
    }
    let env = IoEnv::new();
    env.write("events.jsonl", EVENTS);
    let file = env.write("io.local.toml", MARKING);
    rustix::fs::chown(&file, Some(rustix::fs::Uid::from_raw(65534)), None).expect("chown");
    // In the operator's own checkout, untracked: still not theirs.
    let out = env.io(&["replay", "events.jsonl"]);
    refused(
        &env,
        &out,
        &refusal(
            &env.root(),
            "another user (uid 65534) owns it, not you (uid 0)",
        ),
    );
    // Nor in a directory with no work tree.
    fs::remove_dir_all(env.root().join(".git")).expect("no .git");
    let out = env.io(&["replay", "events.jsonl"]);
    refused(
        &env,
        &out,
        "(no git work tree holds it; another user (uid 65534) owns it, not you (uid 0), and \
         you have not trusted it)",
    );
}

/// Sets `dir`'s access ACL to let user 65534 write it; whether the file
/// system took it.
fn acl_lets_nobody_write(dir: &Path) -> bool {
    let mut acl = 2u32.to_le_bytes().to_vec();
    // (tag, permissions, id): the owner, user 65534, the owning group, the
    // mask, others.
    for (tag, perm, id) in [
        (0x01u16, 7u16, u32::MAX),
        (0x02, 7, 65534),
        (0x04, 5, u32::MAX),
        (0x10, 7, u32::MAX),
        (0x20, 5, u32::MAX),
    ] {
        acl.extend(tag.to_le_bytes());
        acl.extend(perm.to_le_bytes());
        acl.extend(id.to_le_bytes());
    }
    rustix::fs::setxattr(
        dir,
        "system.posix_acl_access",
        &acl,
        rustix::fs::XattrFlags::empty(),
    )
    .is_ok()
}

#[test]
fn a_directory_above_writable_through_an_acl_or_a_group_needs_trust() {
    // Mode bits alone said "safe" of a parent another user may write
    // through a POSIX ACL, or that a shared group may write.
    let env = IoEnv::new();
    env.write("events.jsonl", EVENTS);
    env.write("io.local.toml", MARKING);
    let root = env.root();
    fs::set_permissions(env.dir(), fs::Permissions::from_mode(0o700)).expect("chmod");
    fs::set_permissions(&root, fs::Permissions::from_mode(0o775)).expect("chmod");
    let out = env.io(&["replay", "events.jsonl"]);
    refused(
        &env,
        &out,
        &format!(
            "(the directory {} above it may be written by its group (gid ",
            root.display()
        ),
    );
    fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = env.io(&["check"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    // The root itself (the directory above the file) through an ACL.
    if !prerequisite(
        "a file system with POSIX ACLs",
        acl_lets_nobody_write(&root),
    ) {
        return;
    }
    let out = env.io(&["replay", "events.jsonl"]);
    let why = format!(
        "a POSIX ACL on the directory {} above it lets another user (uid 65534) write it",
        root.display()
    );
    refused(&env, &out, &refusal(&root, &why));
    // The operator's word covers this content.
    assert_eq!(code(&env.io(&["trust"])), 0);
    let out = env.io(&["replay", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(marks(&env), 1);
}

#[test]
fn a_user_scope_file_others_may_write_is_refused_with_the_fix() {
    let env = IoEnv::new();
    env.write("events.jsonl", EVENTS);
    let user = env.user().join("io.toml");
    fs::write(&user, MARKING).expect("io.toml");
    fs::set_permissions(&user, fs::Permissions::from_mode(0o666)).expect("chmod");
    let out = env.io(&["replay", "events.jsonl"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!(
            "io: {}: key `hook`: this user-scope file is not known to be yours (anyone may \
             write it (mode 666), and you have not trusted it), so its hooks are not loaded. \
             Make it and the directories above it yours alone: owned by you, with no group or \
             other write bit and no ACL that lets anyone else write them.\n",
            user.display()
        )
    );
    assert_eq!(marks(&env), 0);
    fs::set_permissions(&user, fs::Permissions::from_mode(0o644)).expect("chmod");
    let out = env.io(&["replay", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(marks(&env), 1);
}

#[test]
fn the_printed_trust_command_pasted_into_a_shell_trusts_that_root_and_runs_nothing_else() {
    // A clone's directory name becomes a command when a printed hint is
    // pasted unquoted: the hint is quoted for a POSIX shell.
    let env = IoEnv::new();
    let odd = env.dir().join("w$(touch PWNED)'q` `;x");
    fs::create_dir(&odd).expect("odd root");
    fs::write(odd.join("io.local.toml"), MARKING).expect("io.local.toml");
    let mut command = env.command(&["check", "--root"]);
    command.arg(&odd);
    let out = common::io_output(&mut command, std::time::Duration::from_secs(60), "io");
    assert_eq!(code(&out), 1);
    let said = stderr(&out);
    // Between "run `" and "` to trust": the name holds backquotes too.
    let pasted = said
        .split_once("run `")
        .and_then(|(_, rest)| rest.split_once("` to trust it"))
        .map(|(cmd, _)| cmd.to_owned())
        .expect("a command in backquotes");
    assert!(pasted.starts_with("io trust --root '"), "{pasted}");
    // Pasted into sh, with `io` this test's binary: the root trusted, and
    // nothing its name spells run.
    let script = pasted.replacen("io", "\"$IO\"", 1);
    let mut sh = std::process::Command::new("/bin/sh");
    sh.args(["-c", &script])
        .current_dir(env.dir())
        .env("IO", env!("CARGO_BIN_EXE_io"))
        .env("IO_CONFIG_HOME", env.user())
        .env("IO_DATA_HOME", env.data());
    let out = common::io_output(&mut sh, std::time::Duration::from_secs(60), "sh -c");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        !env.dir().join("PWNED").exists(),
        "the pasted command ran the name"
    );
    let mut command = env.command(&["check", "--root"]);
    command.arg(&odd);
    let out = common::io_output(&mut command, std::time::Duration::from_secs(60), "io");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}
