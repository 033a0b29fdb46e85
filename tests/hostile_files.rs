//! Round two of the hardening (issue 14), through the `io` program: what a
//! hostile environment or file can do to loading the config, asking git and
//! reading a recording, and what an unwritable stdout or stderr does to `io`.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::io_env::no_hooks_line;
use common::{io_output, output_within};

/// A run hook that leaves a mark in the working directory when it runs.
const MARKING: &str = "[[hook]]\nrun = [\"/bin/sh\", \"-c\", \"echo ran >> ran.txt\"]\n";

const ONE_EVENT: &str = "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r\",\"depth\":0}\n";

/// Runs `command` to the end under a 60 s watchdog, stdin empty.
fn run(mut command: Command) -> Output {
    io_output(&mut command, Duration::from_secs(60), "io")
}

/// `io args` in `dir`, with `IO_CONFIG_HOME` set to `home`.
fn io_in(dir: &Path, home: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
    command
        .args(args)
        .current_dir(dir)
        .env("IO_CONFIG_HOME", home);
    command
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

// ---- a relative IO_CONFIG_HOME or HOME ----

#[test]
fn a_relative_io_config_home_or_home_does_not_make_a_cloned_io_toml_the_users() {
    // A clone: `io.toml` declares a hook, which the project scope refuses.
    // `IO_CONFIG_HOME=.` made that same file the user-scope file, so the
    // refusal was skipped and its hook ran on `io replay`.
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().join("clone");
    fs::create_dir(&clone).unwrap();
    fs::write(clone.join("io.toml"), MARKING).unwrap();
    let events = dir.path().join("events.jsonl");
    fs::write(&events, ONE_EVENT).unwrap();
    let events = events.to_str().unwrap();
    let refused = |out: &Output, what: &str| {
        assert_eq!(out.status.code(), Some(1), "{what}: {out:?}");
        assert!(
            stderr(out).contains("a project-scoped file may not declare hooks"),
            "{what}: {}",
            stderr(out)
        );
    };
    for home in [".", "./", "clone/.."] {
        let cwd = if home == "clone/.." {
            dir.path()
        } else {
            &clone
        };
        let mut check = io_in(cwd, home, &["check", "--root"]);
        check.arg(&clone);
        refused(&run(check), &format!("io check, IO_CONFIG_HOME={home}"));
        let mut replay = io_in(cwd, home, &["replay", events, "--root"]);
        replay.arg(&clone);
        refused(&run(replay), &format!("io replay, IO_CONFIG_HOME={home}"));
    }
    // HOME=.. with a `.config/io/io.toml` in the clone's parent is the same
    // trick one level up; a relative HOME is ignored too.
    fs::create_dir_all(clone.join(".config/io")).unwrap();
    fs::write(clone.join(".config/io/io.toml"), MARKING).unwrap();
    fs::remove_file(clone.join("io.toml")).unwrap();
    let mut replay = io_in(&clone, "", &["replay", events]);
    replay.env("HOME", ".").env_remove("XDG_CONFIG_HOME");
    let out = run(replay);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        !clone.join("ran.txt").exists(),
        "a relative HOME's hook ran"
    );
}

// ---- an unwritable stdout or stderr ----

/// `io` run through `sh -c 'exec io ARGS 2>&-'` (or `>&-`), so that it
/// starts with that descriptor closed.
fn with_closed(dir: &Path, redirect: &str, args: &[&str]) -> Output {
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(format!("exec \"$0\" \"$@\" {redirect}"))
        .arg(env!("CARGO_BIN_EXE_io"))
        .args(args)
        .current_dir(dir)
        .env("IO_CONFIG_HOME", dir.join("user"));
    run(command)
}

fn no_panic(out: &Output, code: i32, what: &str) {
    assert_eq!(out.status.code(), Some(code), "{what}: {out:?}");
    assert!(!stderr(out).contains("panicked"), "{what}: {}", stderr(out));
}

#[test]
fn an_unwritable_stdout_or_stderr_never_makes_io_panic() {
    let (dir, root) = bare_root();
    let full = || {
        fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let io = |args: &[&str], stdout: Stdio, stderr: Stdio| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
        command
            .args(args)
            .current_dir(&root)
            .env("IO_CONFIG_HOME", dir.path().join("user"))
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr);
        let child = command.spawn().expect("io runs");
        output_within(child, Duration::from_secs(60), "io")
    };

    // A config error, with stderr full: the message is lost, the exit code
    // is not (this exited 101, a panic in `eprintln!`).
    fs::write(root.join("io.toml"), "bad = \n").unwrap();
    let out = io(&["check"], Stdio::null(), Stdio::from(full()));
    no_panic(&out, 1, "io check 2>/dev/full");
    // stdout full too: the "could not write to stdout" report is lost.
    fs::remove_file(root.join("io.toml")).unwrap();
    let out = io(&["events"], Stdio::from(full()), Stdio::from(full()));
    no_panic(&out, 1, "io events >/dev/full 2>/dev/full");
    // stdout full, stderr readable: said once, exit 1.
    let out = io(&["events"], Stdio::from(full()), Stdio::piped());
    no_panic(&out, 1, "io events >/dev/full");
    assert_eq!(
        stderr(&out),
        "io: could not write to stdout: No space left on device\n"
    );
    // A failing hook's warning, with stderr full.
    fs::write(
        root.join("io.local.toml"),
        "[[hook]]\nrun = [\"/bin/false\"]\n",
    )
    .unwrap();
    fs::write(root.join("events.jsonl"), ONE_EVENT).unwrap();
    let out = io(
        &["replay", "events.jsonl"],
        Stdio::from(full()),
        Stdio::from(full()),
    );
    no_panic(&out, 1, "io replay >/dev/full 2>/dev/full");
    // stdout full and the recording ending in a line that is not an event:
    // the lost output is what is reported, once, not the line after it.
    fs::write(
        root.join("events.jsonl"),
        format!("{ONE_EVENT}not an event\n"),
    )
    .unwrap();
    let out = io(
        &["replay", "events.jsonl"],
        Stdio::from(full()),
        Stdio::piped(),
    );
    no_panic(&out, 1, "io replay >/dev/full");
    assert_eq!(
        stderr(&out),
        format!(
            "io: 1 hook(s) in force, from {}/io.local.toml (local scope)\n\
             io: could not write to stdout: No space left on device\n",
            root.display()
        )
    );

    // Closed rather than full. (The standard library treats a write to a
    // closed descriptor as done, so nothing is reported and `events`
    // succeeds.)
    fs::write(root.join("io.toml"), "bad = \n").unwrap();
    no_panic(&with_closed(&root, "2>&-", &["check"]), 1, "io check 2>&-");
    no_panic(
        &with_closed(&root, ">&- 2>&-", &["events"]),
        0,
        "io events >&- 2>&-",
    );
}

// ---- what `io replay` reads ----

/// An empty user scope and a root with no config, for replays that must
/// fire no hook; returns (dir, root).
fn bare_root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("user")).unwrap();
    let root = dir.path().join("root");
    fs::create_dir(&root).unwrap();
    // The operator's checkout, in which `io.local.toml` is untracked.
    common::work_tree(&root);
    (dir, root)
}

fn replay(dir: &Path, root: &Path, file: &Path) -> Output {
    let user = dir.join("user");
    let mut command = io_in(root, user.to_str().unwrap(), &["replay"]);
    command.arg(file);
    run(command)
}

#[test]
fn a_huge_depth_is_shown_as_sixteen_levels_and_a_count() {
    // `depth` is whatever the file says; the text output indented by it,
    // so 4294967295 was 8 GiB of spaces on one line, and a minute.
    let (dir, root) = bare_root();
    let file = root.join("deep.jsonl");
    fs::write(
        &file,
        "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"deep\",\"depth\":4294967295}\n\
         {\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"d17\",\"depth\":17}\n",
    )
    .unwrap();
    let out = replay(dir.path(), &root, &file);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let sixteen = "  ".repeat(16);
    assert_eq!(
        lines[0],
        format!("    -  started            {sixteen}…+4294967279 deep  -")
    );
    assert_eq!(
        lines[1],
        format!("    -  started            {sixteen}…+1 d17  -")
    );
}

#[test]
fn a_torn_last_line_and_a_line_that_stops_inside_its_json_are_skipped_as_torn() {
    // A torn line is no one's event: it is named, skipped, and the replay
    // goes on (issue 22: one torn line stopped every event after it).
    let (dir, root) = bare_root();
    let good = "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r\",\"depth\":0}\n";
    let trailing = format!("{}x", good.trim_end());
    for (rest, line, events) in [
        // The last line, cut off mid-event (no newline).
        ("{\"event\":\"step\",\"st", 2, 1),
        // Cut off, then a later write began on a fresh line.
        (
            "{\"event\":\"step\",\"step\":1,\n{\"event\":\"started\",\"goal\":\"h\",\"run_id\":\"r\",\"depth\":0}\n",
            2,
            2,
        ),
        // A last line that is not valid JSON and has no newline: what is
        // left of a torn write after a crash.
        (trailing.as_str(), 2, 1),
    ] {
        let file = root.join("torn.jsonl");
        fs::write(&file, format!("{good}{rest}")).unwrap();
        let out = replay(dir.path(), &root, &file);
        assert_eq!(out.status.code(), Some(0), "{rest:?}: {out:?}");
        assert_eq!(
            stderr(&out),
            format!(
                "{}io: {}: line {line}: skipped a torn line: it ends before its JSON does \
                 (a write cut short, as by a full disk or a crash)\n",
                no_hooks_line(&root),
                file.display()
            ),
            "{rest:?}"
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.matches(" started ").count(), events, "{text}");
    }
    // A complete line that is bad JSON is still bad JSON, not torn.
    let file = root.join("bad.jsonl");
    fs::write(&file, format!("{good}{trailing}\n")).unwrap();
    let out = replay(dir.path(), &root, &file);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "line 2, column {}: not JSON: trailing characters;",
            good.len()
        )),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_bad_line_is_described_without_echoing_its_values() {
    let (dir, root) = bare_root();
    let secret = "sk-live-0123456789abcdef";
    for (line, reason) in [
        (
            format!(
                "{{\"event\":\"step\",\"step\":\"{secret}\",\"moved_the_workspace\":true,\
                 \"run_id\":\"r\",\"depth\":0}}"
            ),
            "not an event: field `step` is a string (accepted: integer)",
        ),
        (
            format!("{{\"event\":\"{secret}\",\"run_id\":\"r\",\"depth\":0}}"),
            "not an event: field `event` is an unknown event name (`io events` lists them)",
        ),
        (
            format!(
                "{{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r\",\"depth\":\"{secret}\"}}"
            ),
            "not an event: field `depth` is a string (accepted: integer)",
        ),
    ] {
        let file = root.join("secret.jsonl");
        fs::write(&file, format!("{line}\n")).unwrap();
        let out = replay(dir.path(), &root, &file);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let err = stderr(&out);
        assert!(!err.contains("sk-live"), "the secret was printed: {err}");
        assert!(err.contains(reason), "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn an_event_over_16_mib_that_an_append_hook_wrote_replays_with_max_line() {
    // The append side writes any event in one `write`; replay refuses a
    // line over 16 MiB by default (a bound on a hostile file's line), and
    // `--max-line` lets such a recording replay.
    use io_harness::{Config, EventKind, Observer, RunEvent};
    let (dir, root) = bare_root();
    let logs = dir.path().join("logs");
    fs::create_dir(&logs).unwrap();
    common::work_tree(&logs);
    fs::write(
        logs.join("io.local.toml"),
        "[[hook]]\nappend = \"audit.jsonl\"\n",
    )
    .unwrap();
    let hooks = Config::discover_with(&logs, None).unwrap().hooks();
    let goal = "g".repeat(17 * 1024 * 1024);
    for kind in [
        EventKind::Started {
            goal,
            resumed: false,
        },
        EventKind::Step {
            step: 1,
            moved_the_workspace: true,
        },
    ] {
        let event = RunEvent {
            kind,
            run_id: "big".into(),
            depth: 0,
            seq: None,
            at: None,
        };
        assert_eq!(hooks.event(&event), io_harness::Flow::Continue);
    }
    let audit = logs.join("audit.jsonl");
    let written = fs::read(&audit).unwrap();
    assert!(written.len() > 17 * 1024 * 1024);
    assert_eq!(written.iter().filter(|&&b| b == b'\n').count(), 2);
    // Over the default cap, it is refused, naming the line and the flag
    // that raises the cap; with the flag, it replays.
    let out = replay(dir.path(), &root, &audit);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(": line 1: longer than 16777216 bytes, the most `io replay` reads; `--max-line BYTES` raises it"),
        "{}",
        stderr(&out)
    );
    let mut command = io_in(
        &root,
        dir.path().join("user").to_str().unwrap(),
        &["replay"],
    );
    command.arg(&audit).args(["--max-line", "20000000"]);
    let out = run(command);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).ends_with("completed after 1 step\n"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

// ---- the git check fails closed ----

const APPEND_HOOK: &str = "[[hook]]\nappend = \"audit.jsonl\"\n";

/// A repository whose index lists its hooked `io.local.toml`, and a `bin`
/// directory for a stand-in git; returns (dir, root, bin), or `None`
/// without a usable git to build it.
fn committed_repo() -> Option<(tempfile::TempDir, PathBuf, PathBuf)> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir(&root).unwrap();
    if !common::prerequisite("a usable git", common::git(&root, &["init", "-q"])) {
        return None;
    }
    fs::write(root.join("io.local.toml"), APPEND_HOOK).unwrap();
    assert!(common::git(&root, &["add", "io.local.toml"]));
    let bin = dir.path().join("bin");
    fs::create_dir(&bin).unwrap();
    fs::create_dir(dir.path().join("user")).unwrap();
    Some((dir, root, bin))
}

/// Puts an executable `git` in `bin` that runs `script` (sh).
fn fake_git(bin: &Path, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    let git = bin.join("git");
    fs::write(&git, format!("#!/bin/sh\n{script}\n")).unwrap();
    fs::set_permissions(&git, fs::Permissions::from_mode(0o755)).unwrap();
}

/// `io check` in `root` with only `bin` (then /bin) on `PATH`.
fn check_with_path(dir: &Path, root: &Path, bin: &Path) -> Output {
    let user = dir.join("user");
    let mut command = io_in(root, user.to_str().unwrap(), &["check"]);
    command.env("PATH", format!("{}:/bin", bin.display()));
    run(command)
}

#[test]
fn no_git_is_run_whatever_git_is_on_path_and_the_index_decides() {
    // Until issue 44 `io` asked `git ls-files`: a git that failed, hung, was
    // killed or answered nonsense had to be refused one way at a time, and
    // none on PATH meant "untracked". The index is read by `io` itself now:
    // a stand-in git that would say "untracked" (and leave a mark) is never
    // started, and the committed file is refused however PATH is set.
    let Some((dir, root, bin)) = committed_repo() else {
        return;
    };
    let mark = dir.path().join("git-ran");
    for script in [
        format!("touch '{}'; exit 0", mark.display()),
        format!("touch '{}'; kill -9 $$", mark.display()),
        format!("touch '{}'; exec sleep 30", mark.display()),
    ] {
        fake_git(&bin, &script);
        let out = check_with_path(dir.path(), &root, &bin);
        assert_eq!(out.status.code(), Some(1), "{script}: {out:?}");
        assert!(
            stderr(&out).contains("this `io.local.toml` is tracked by the repository's git index"),
            "{script}: {out:?}"
        );
        assert!(!mark.exists(), "{script}: io ran the git on PATH");
    }
    fs::remove_file(bin.join("git")).unwrap();
    let user = dir.path().join("user");
    let mut command = io_in(&root, user.to_str().unwrap(), &["check"]);
    command.env("PATH", &bin);
    let out = run(command);
    assert_eq!(out.status.code(), Some(1), "no git: {out:?}");
    assert!(
        !root.join("audit.jsonl").exists(),
        "refused hooks were built"
    );
}

/// Set in the re-executed child of the test below: the discovery root.
const DISCOVER_IGNORING_SIGCHLD: &str = "IO_HOSTILE_TEST_DISCOVER_IGNORING_SIGCHLD";

#[test]
fn a_tracked_file_is_refused_with_sigchld_ignored() {
    // With SIGCHLD ignored (inherited across exec), the kernel reaped the
    // git `io` asked and its status was lost: this loaded the hooks as
    // "untracked". No child is asked now; the library, driven in a
    // re-executed child that ignores SIGCHLD, still refuses the file.
    let Some((dir, root, _bin)) = committed_repo() else {
        return;
    };
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["discover_ignoring_sigchld", "--exact", "--nocapture"])
        .env(DISCOVER_IGNORING_SIGCHLD, &root)
        .env("IO_CONFIG_HOME", dir.path().join("user"))
        .env("IO_DATA_HOME", dir.path().join("data"));
    let out = run(command);
    assert!(out.status.success(), "{out:?}");
    let expected = format!(
        "{}: key `hook`: this `io.local.toml` is tracked by the repository's git index",
        root.join("io.local.toml").display()
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().any(|line| line.starts_with(&expected)),
        "{stdout}"
    );
}

/// Not a test of its own: the body of the re-executed child above.
#[test]
fn discover_ignoring_sigchld() {
    let Some(root) = std::env::var_os(DISCOVER_IGNORING_SIGCHLD) else {
        return;
    };
    // SAFETY: `SIG_IGN` installs no handler; this process runs only this
    // test (`--exact`), so no other thread waits on a child meanwhile.
    let previous = unsafe { libc::signal(libc::SIGCHLD, libc::SIG_IGN) };
    assert_ne!(previous, libc::SIG_ERR);
    let err = io_harness::Config::discover(PathBuf::from(root)).unwrap_err();
    println!("{err}");
}
