//! What a hostile repository can put in the way of loading its config: files
//! that are not files, and the git index `io` reads to tell whether
//! `io.local.toml` is tracked. Reading it must never run anything the
//! repository chose, must not hang, and must answer for the repository at
//! the root, whatever this process's environment says.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{git, output_within, prerequisite, within};
use io_harness::{Config, ConfigError};

const HOOKED: &str = "[[hook]]\nappend = \"audit.jsonl\"\n";

/// Runs `Config::discover_with(root, None)`, failing the test if it has
/// not returned within `limit`.
fn discover_within(root: &Path, limit: Duration) -> Result<Config, ConfigError> {
    let root = root.to_path_buf();
    within(limit, "Config::discover_with", move || {
        Config::discover_with(&root, None)
    })
}

// ---- files that are not files ----

#[test]
fn a_fifo_config_file_is_refused_rather_than_waited_on() {
    let root = tempfile::tempdir().unwrap();
    let fifo = root.path().join("io.toml");
    // Should discover wait for a writer, the watchdog fails the test and
    // this releases the stuck reader.
    let _release = common::fifo(&fifo, true);
    let e = discover_within(root.path(), Duration::from_secs(5)).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: cannot be read: not a regular file (a FIFO, a socket or a device), so it is \
             not read",
            fifo.display()
        )
    );
}

#[test]
fn a_symlink_to_a_device_is_refused_rather_than_read_forever() {
    // A repository can commit `io.toml -> /dev/zero` (git tracks symbolic
    // links); reading it would never end and never stop allocating. The
    // harmless `/dev/null` goes first, so that without the refusal the test
    // fails there and never reads `/dev/zero`.
    for device in ["/dev/null", "/dev/zero"] {
        let root = tempfile::tempdir().unwrap();
        let link = root.path().join("io.local.toml");
        std::os::unix::fs::symlink(device, &link).unwrap();
        let e = discover_within(root.path(), Duration::from_secs(5)).unwrap_err();
        assert!(matches!(e, ConfigError::Read { .. }), "{e}");
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
}

#[test]
fn a_config_file_over_1_mib_is_refused_and_one_at_it_loads() {
    let root = common::checkout();
    let path = root.path().join("io.local.toml");
    // Exactly 1 MiB: a hook table padded with a comment.
    let mut text = String::from(HOOKED);
    text.push('#');
    text.push_str(&"x".repeat(1024 * 1024 - text.len() - 1));
    text.push('\n');
    assert_eq!(text.len(), 1024 * 1024);
    fs::write(&path, &text).unwrap();
    let config = discover_within(root.path(), Duration::from_secs(20)).unwrap();
    assert_eq!(config.hook_specs().len(), 1);
    // One byte more.
    text.push('\n');
    fs::write(&path, &text).unwrap();
    let e = discover_within(root.path(), Duration::from_secs(20)).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: larger than 1 MiB, the most a config file may hold, so it is not read",
            path.display()
        )
    );
}

#[test]
fn a_symlink_to_a_proc_file_is_not_read() {
    // `stat` calls `/proc/self/pagemap` an empty regular file; reading it
    // goes on for the whole address space (hundreds of GiB), so a load
    // that trusted the size or read to the end ran out of memory. It was
    // then read up to the 1 MiB cap; no file of `/proc` is read now
    // (tests/config_special_files.rs).
    let pagemap = Path::new("/proc/self/pagemap");
    if !prerequisite("/proc/self/pagemap", fs::File::open(pagemap).is_ok()) {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let link = root.path().join("io.local.toml");
    std::os::unix::fs::symlink(pagemap, &link).unwrap();
    let e = discover_within(root.path(), Duration::from_secs(20)).unwrap_err();
    assert!(
        matches!(&e, ConfigError::Read { path, .. } if *path == link),
        "{e}"
    );
    assert!(
        e.to_string().contains("the kernel's proc file system"),
        "{e}"
    );
}

// ---- reading the index: is `io.local.toml` tracked? ----

/// A repository at a fresh temp dir with a hooked `io.local.toml` in its
/// index; `None` when there is no usable git.
fn tracked_repo() -> Option<tempfile::TempDir> {
    let dir = tempfile::tempdir().unwrap();
    if !prerequisite("a usable git", git(dir.path(), &["init", "-q"])) {
        return None;
    }
    fs::write(dir.path().join("io.local.toml"), HOOKED).unwrap();
    assert!(git(dir.path(), &["add", "io.local.toml"]));
    Some(dir)
}

fn is_tracked_refusal(got: &Result<Config, ConfigError>) -> bool {
    matches!(got, Err(ConfigError::TrackedLocal { .. }))
}

/// Writes a `.git/config` that would run `marker`-writing scripts from
/// every place a git command might look for one, and returns the marker.
fn make_hostile(repo: &Path, scratch: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let marker = scratch.join("RAN");
    let script = scratch.join("evil.sh");
    fs::write(
        &script,
        format!("#!/bin/sh\necho \"$0 $*\" >> '{}'\n", marker.display()),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let hooks = scratch.join("hooks");
    fs::create_dir_all(&hooks).unwrap();
    for hook in [
        "post-index-change",
        "pre-commit",
        "post-checkout",
        "reference-transaction",
        "pre-auto-gc",
        "fsmonitor-watchman",
    ] {
        fs::copy(&script, hooks.join(hook)).unwrap();
    }
    let s = script.display();
    let mut config = fs::read_to_string(repo.join(".git/config")).unwrap();
    config.push_str(&format!(
        "[core]\n\tfsmonitor = {s}\n\thooksPath = {h}\n\tpager = {s}\n\tsshCommand = {s}\n\
         \tuntrackedCache = true\n\tsplitIndex = true\n\talternateRefsCommand = {s}\n\
         [pager]\n\tls-files = {s}\n[alias]\n\tls-files = !{s}\n\
         [remote \"origin\"]\n\turl = file://{r}\n\tpromisor = true\n\tuploadpack = {s}\n\
         [extensions]\n\tpartialClone = origin\n[gc]\n\tauto = 1\n",
        h = hooks.display(),
        r = scratch.display(),
    ));
    fs::write(repo.join(".git/config"), config).unwrap();
    marker
}

#[test]
fn a_hostile_git_config_runs_nothing_and_the_file_is_still_refused() {
    let Some(repo) = tracked_repo() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let marker = make_hostile(repo.path(), scratch.path());
    let got = Config::discover_with(repo.path(), None);
    assert!(is_tracked_refusal(&got), "{got:?}");
    assert!(
        !marker.exists(),
        "asking git ran a command the repository chose: {}",
        fs::read_to_string(&marker).unwrap_or_default()
    );
}

#[test]
fn a_repository_owned_by_another_user_is_still_asked_and_runs_nothing() {
    // git refuses a repository another user owns ("dubious ownership"),
    // which read as "not tracked": a checkout made by another uid (a CI
    // container's, say) had its cloned hooks loaded.
    if !prerequisite(
        "root (to change a directory's owner)",
        rustix::process::geteuid().is_root(),
    ) {
        return;
    }
    let Some(repo) = tracked_repo() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let marker = make_hostile(repo.path(), scratch.path());
    let chown = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(repo.path())
        .status();
    assert!(chown.is_ok_and(|s| s.success()));
    let got = Config::discover_with(repo.path(), None);
    assert!(is_tracked_refusal(&got), "{got:?}");
    assert!(
        !marker.exists(),
        "asking git ran a command the repository chose"
    );
}

#[test]
fn a_git_file_a_symlinked_root_and_a_subdirectory_root_are_all_asked() {
    let Some(repo) = tracked_repo() else { return };
    // `.git` as a file naming the git directory, as a linked worktree or
    // a submodule has it.
    let elsewhere = tempfile::tempdir().unwrap();
    let gitdir = elsewhere.path().join("real.git");
    fs::rename(repo.path().join(".git"), &gitdir).unwrap();
    fs::write(
        repo.path().join(".git"),
        format!("gitdir: {}\n", gitdir.display()),
    )
    .unwrap();
    assert!(is_tracked_refusal(&Config::discover_with(
        repo.path(),
        None
    )));

    // The root reached through a symbolic link.
    let links = tempfile::tempdir().unwrap();
    let link = links.path().join("project");
    std::os::unix::fs::symlink(repo.path(), &link).unwrap();
    assert!(is_tracked_refusal(&Config::discover_with(&link, None)));

    // A subdirectory of the repository as the root.
    let sub = repo.path().join("crates/app");
    fs::create_dir_all(&sub).unwrap();
    fs::write(sub.join("io.local.toml"), HOOKED).unwrap();
    assert!(git(repo.path(), &["add", "crates/app/io.local.toml"]));
    assert!(is_tracked_refusal(&Config::discover_with(&sub, None)));
}

#[test]
fn untracked_and_ignored_files_still_load() {
    let dir = tempfile::tempdir().unwrap();
    if !prerequisite("a usable git", git(dir.path(), &["init", "-q"])) {
        return;
    }
    fs::write(dir.path().join("io.local.toml"), HOOKED).unwrap();
    let untracked = Config::discover_with(dir.path(), None).unwrap();
    assert_eq!(untracked.hook_specs().len(), 1);
    fs::write(dir.path().join(".gitignore"), "io.local.toml\n").unwrap();
    assert!(git(dir.path(), &["add", ".gitignore"]));
    let ignored = Config::discover_with(dir.path(), None).unwrap();
    assert_eq!(ignored.hook_specs().len(), 1);
    // A bare repository has no work tree, so nothing says whose a file in
    // it is: refused until the operator trusts it.
    let bare = tempfile::tempdir().unwrap();
    assert!(git(bare.path(), &["init", "-q", "--bare"]));
    fs::write(bare.path().join("io.local.toml"), HOOKED).unwrap();
    let got = Config::discover_with(bare.path(), None);
    assert!(
        matches!(&got, Err(ConfigError::Untrusted { reason, .. }) if reason.starts_with("no git work tree holds it")),
        "{got:?}"
    );
}

const REEXEC: &str = "IO_CLONE_HAZARD_REEXEC_ROOT";

#[test]
fn the_callers_git_environment_does_not_change_the_answer() {
    // Run from inside a git hook, or a CI step, this process may carry
    // GIT_DIR, GIT_INDEX_FILE (a pre-commit hook's temporary index),
    // GIT_CEILING_DIRECTORIES and the like. The question is about the
    // repository at the root, so none of them may redirect it.
    if let Some(root) = std::env::var_os(REEXEC) {
        let sub = Path::new(&root).join("crates/app");
        let got = Config::discover_with(&sub, None);
        assert!(is_tracked_refusal(&got), "{got:?}");
        return;
    }
    let Some(repo) = tracked_repo() else { return };
    let sub = repo.path().join("crates/app");
    fs::create_dir_all(&sub).unwrap();
    fs::write(sub.join("io.local.toml"), HOOKED).unwrap();
    assert!(git(repo.path(), &["add", "crates/app/io.local.toml"]));
    let other = tempfile::tempdir().unwrap();
    assert!(git(other.path(), &["init", "-q"]));
    let other_git = other.path().join(".git");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "the_callers_git_environment_does_not_change_the_answer",
            "--exact",
            "--nocapture",
        ])
        .env(REEXEC, repo.path())
        .env("GIT_DIR", &other_git)
        .env("GIT_WORK_TREE", other.path())
        .env("GIT_INDEX_FILE", other_git.join("index"))
        .env("GIT_COMMON_DIR", &other_git)
        .env("GIT_CEILING_DIRECTORIES", repo.path().join("crates"))
        .env("GIT_LITERAL_PATHSPECS", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = output_within(out, Duration::from_secs(60), "the re-executed test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // An `--exact` filter that matched nothing would pass having run nothing.
    assert!(
        stdout.contains("1 passed"),
        "the child ran no test body:\n{stdout}"
    );
}

#[test]
fn an_index_that_is_a_fifo_is_refused_without_waiting_on_it() {
    // A repository whose `.git/index` is a FIFO (a tarball can hold one)
    // blocked git's read of it for ever, until git was given a deadline.
    // `io` reads the index itself now, judged before it is opened: a FIFO
    // is never opened, and an index that cannot be read is no answer, so
    // the hooks are refused (this loaded them, as "untracked", until issue
    // 14).
    let Some(repo) = tracked_repo() else { return };
    let index = repo.path().join(".git/index");
    fs::remove_file(&index).unwrap();
    // Should discover wait on it, the watchdog fails the test and this
    // releases the reader, so nothing outlives the test.
    let _release = common::fifo(&index, true);
    let e = discover_within(repo.path(), Duration::from_secs(20)).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: key `hook`: this `io.local.toml` is not known to be yours (whether git tracks \
             it cannot be told: the git index `{}` cannot be read: not a regular file (a FIFO, \
             a socket or a device), so it is not read, and there is no data directory to \
             record your trust in), so its hooks are not loaded. Set IO_DATA_HOME (or HOME) \
             to a directory of yours, so that `io trust` can record your trust, or move the \
             hooks to the user-scope file.",
            repo.path().join("io.local.toml").display(),
            index.display()
        )
    );
}

// ---- the same, through the `io` program ----

/// Runs `io` in `root` with an empty user scope.
fn io(root: &Path, user: &Path, args: &[&str]) -> std::process::Output {
    let child = Command::new(env!("CARGO_BIN_EXE_io"))
        .args(args)
        .current_dir(root)
        .env("IO_CONFIG_HOME", user)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("io runs");
    output_within(child, Duration::from_secs(60), &format!("io {args:?}"))
}

#[test]
fn io_check_refuses_a_committed_io_local_toml_and_io_replay_runs_no_hook() {
    let dir = tempfile::tempdir().unwrap();
    let (root, user) = (dir.path().join("repo"), dir.path().join("user"));
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(&user).unwrap();
    if !prerequisite("a usable git", git(&root, &["init", "-q"])) {
        return;
    }
    // Both actions: a `run` hook that leaves a mark, and an `append` hook,
    // whose file building the hooks would create.
    fs::write(
        root.join("io.local.toml"),
        "[[hook]]\nrun = [\"/bin/sh\", \"-c\", \"echo ran >> ran.txt\"]\n\
         [[hook]]\nappend = \"audit.jsonl\"\n",
    )
    .unwrap();
    let events = dir.path().join("events.jsonl");
    fs::write(
        &events,
        "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r\",\"depth\":0}\n\
         {\"event\":\"step\",\"step\":1,\"moved_the_workspace\":true,\"run_id\":\"r\",\"depth\":0}\n",
    )
    .unwrap();
    let events = events.to_str().unwrap();
    commit(&root, &["io.local.toml"]);

    let refusal = format!(
        "io: {}: key `hook`: this `io.local.toml` is tracked by the repository's git index, so \
         it arrives with a `git clone` just as `io.toml` does, and may not declare hooks. \
         Untrack it with `git rm --cached io.local.toml` (and list it in `.gitignore`), or move \
         the hooks to the user-scope file.\n",
        root.join("io.local.toml").display()
    );
    let check = io(&root, &user, &["check"]);
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&check.stderr), refusal);
    assert!(check.stdout.is_empty());

    let replay = io(&root, &user, &["replay", events]);
    assert_eq!(replay.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&replay.stderr), refusal);
    assert!(!root.join("ran.txt").exists(), "a refused hook ran");
    assert!(
        !root.join("audit.jsonl").exists(),
        "refused hooks were built"
    );

    // Untracked (the message's own fix), the same file works.
    assert!(git(&root, &["rm", "-q", "--cached", "io.local.toml"]));
    let check = io(&root, &user, &["check"]);
    assert_eq!(check.status.code(), Some(0), "{check:?}");
    let replay = io(&root, &user, &["replay", events]);
    assert_eq!(replay.status.code(), Some(0), "{replay:?}");
    assert_eq!(
        fs::read_to_string(root.join("ran.txt")).unwrap(),
        "ran\nran\n"
    );
    assert_eq!(
        fs::read_to_string(root.join("audit.jsonl"))
            .unwrap()
            .lines()
            .count(),
        2
    );

    // And git-ignored, as the message advises.
    fs::write(root.join(".gitignore"), "io.local.toml\n").unwrap();
    assert!(git(&root, &["add", ".gitignore"]));
    let replay = io(&root, &user, &["replay", events]);
    assert_eq!(replay.status.code(), Some(0), "{replay:?}");
    assert_eq!(
        fs::read_to_string(root.join("ran.txt")).unwrap(),
        "ran\n".repeat(4)
    );
}

// ---- round two: the cases `ls-files io.local.toml` missed ----

/// The number of hooks `Config::discover_with(root, None)` loads; panics
/// on an error.
fn hooks_loaded(root: &Path) -> usize {
    Config::discover_with(root, None)
        .unwrap()
        .hook_specs()
        .len()
}

/// `git add PATHS` then commit, in `repo`.
fn commit(repo: &Path, paths: &[&str]) {
    let mut args = vec!["add", "--"];
    args.extend(paths);
    assert!(git(repo, &args));
    assert!(git(
        repo,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "commit",
            "-q",
            "-m",
            "c"
        ]
    ));
}

/// A fresh repository in a temp dir; `None` when there is no usable git.
fn new_repo() -> Option<tempfile::TempDir> {
    let dir = tempfile::tempdir().unwrap();
    prerequisite("a usable git", git(dir.path(), &["init", "-q"])).then_some(dir)
}

#[test]
fn a_tracked_case_variant_counts_when_it_is_the_file_io_reads() {
    // Where the file system folds case (macOS, Windows, a casefold ext4
    // directory), a clone's tracked `IO.LOCAL.TOML` is the file io opens as
    // `io.local.toml`. A hard link is that situation on any file system:
    // two names, one file.
    let Some(repo) = new_repo() else { return };
    fs::write(repo.path().join("IO.LOCAL.TOML"), HOOKED).unwrap();
    commit(repo.path(), &["IO.LOCAL.TOML"]);
    fs::hard_link(
        repo.path().join("IO.LOCAL.TOML"),
        repo.path().join("io.local.toml"),
    )
    .unwrap();
    let got = Config::discover_with(repo.path(), None);
    assert!(is_tracked_refusal(&got), "{got:?}");
    // Where case is not folded, `io.local.toml` beside a tracked
    // `IO.LOCAL.TOML` is a different file, the operator's own: it loads.
    fs::remove_file(repo.path().join("io.local.toml")).unwrap();
    fs::write(repo.path().join("io.local.toml"), HOOKED).unwrap();
    assert_eq!(hooks_loaded(repo.path()), 1);
}

#[test]
fn a_symlink_to_a_tracked_file_in_the_repository_counts_as_tracked() {
    let Some(repo) = new_repo() else { return };
    fs::create_dir(repo.path().join("config")).unwrap();
    fs::write(repo.path().join("config/hooks.toml"), HOOKED).unwrap();
    fs::write(repo.path().join("config/mine.toml"), HOOKED).unwrap();
    commit(repo.path(), &["config/hooks.toml"]);
    let link = repo.path().join("io.local.toml");
    std::os::unix::fs::symlink("config/hooks.toml", &link).unwrap();
    let got = Config::discover_with(repo.path(), None);
    assert!(is_tracked_refusal(&got), "{got:?}");
    // Through an absolute link and a subdirectory root too.
    let sub = repo.path().join("crates/app");
    fs::create_dir_all(&sub).unwrap();
    std::os::unix::fs::symlink(
        repo.path().join("config/hooks.toml"),
        sub.join("io.local.toml"),
    )
    .unwrap();
    let got = Config::discover_with(&sub, None);
    assert!(is_tracked_refusal(&got), "{got:?}");
    // A link to an untracked file in the repository, or to a file outside
    // it, is the operator's own.
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("config/mine.toml", &link).unwrap();
    assert_eq!(hooks_loaded(repo.path()), 1);
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("hooks.toml"), HOOKED).unwrap();
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(outside.path().join("hooks.toml"), &link).unwrap();
    assert_eq!(hooks_loaded(repo.path()), 1);
}

#[test]
fn a_file_the_enclosing_repository_tracks_counts_when_the_root_has_its_own_git() {
    // `git init` in a directory of a clone (or a tool that makes a nested
    // repository there) hides the enclosing index from `git -C root`, which
    // answers for the nested repository alone.
    let Some(outer) = new_repo() else { return };
    let sub = outer.path().join("sub");
    fs::create_dir(&sub).unwrap();
    fs::write(sub.join("io.local.toml"), HOOKED).unwrap();
    commit(outer.path(), &["sub/io.local.toml"]);
    assert!(git(&sub, &["init", "-q"]));
    let got = Config::discover_with(&sub, None);
    assert!(is_tracked_refusal(&got), "{got:?}");
    // Tracked by neither: loads.
    assert!(git(
        outer.path(),
        &["rm", "-q", "--cached", "sub/io.local.toml"]
    ));
    assert_eq!(hooks_loaded(&sub), 1);
}

#[test]
fn a_submodule_checkout_is_asked_of_its_own_index_not_the_superprojects() {
    // The superproject tracks the submodule as one entry (a gitlink), not
    // the files in it: an untracked `io.local.toml` there loads.
    let Some(sup) = new_repo() else { return };
    let sm = sup.path().join("sm");
    fs::create_dir(&sm).unwrap();
    assert!(git(&sm, &["init", "-q"]));
    fs::write(sm.join("README"), "x").unwrap();
    commit(&sm, &["README"]);
    commit(sup.path(), &["sm"]);
    fs::write(sm.join("io.local.toml"), HOOKED).unwrap();
    assert_eq!(
        Config::discover_with(&sm, None).unwrap().hook_specs().len(),
        1
    );
    commit(&sm, &["io.local.toml"]);
    let got = Config::discover_with(&sm, None);
    assert!(is_tracked_refusal(&got), "{got:?}");
}
