//! io-hooks on Windows (issue 47), through the engine: a `run` hook gets
//! the event line on stdin then EOF, and is killed with its job at its
//! timeout; the end of its stderr is kept; appends from threads and from
//! other processes never tear a line (a lock on the sidecar `<log>.lock`);
//! a partial last line is ended before the first append; a reparse point
//! as the log's last name is refused; `check` judges a program by its
//! extension (`PATHEXT`) and its kind, and a hint's command is
//! PowerShell's.
//!
//! The child is this test binary run again on the one test `helper`, with
//! `IO_HOOKS_HELPER` naming what it does, so nothing here needs a program
//! wine may lack. Wine 8.0 makes no symbolic link: the test that needs one
//! skips under `IO_UNDER_WINE=1`, saying so.
#![cfg(windows)]

mod common;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Ev, append, run, started};
use io_hooks::{Action, Flow, HookFilter, HookSpec, Hooks};

const HELPER: &str = "IO_HOOKS_HELPER";

/// Lines appended by each writer, threads and processes alike.
const LINES: usize = 150;

/// A goal long enough that a line spans pages: a torn write would show.
fn long_goal(writer: usize) -> String {
    format!("w{writer}-").repeat(3000)
}

/// The helper's argv: this binary on its one test `helper`, as UTF-8.
fn helper_argv() -> Vec<String> {
    let exe = std::env::current_exe().expect("the test binary's path");
    let exe = exe.to_str().expect("a UTF-8 path").to_owned();
    vec![
        exe,
        "helper".into(),
        "--exact".into(),
        "--nocapture".into(),
        "--test-threads=1".into(),
    ]
}

/// A `run` hook on every event running the helper as `role`, through
/// `cmd.exe`'s environment-free way: the role is set in the hooks' env.
fn helper_hooks(dir: &Path, role: &'static str, timeout_ms: u64) -> Hooks<Ev> {
    let argv = helper_argv();
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let spec = run(&argv, timeout_ms, &[], Flow::Continue);
    Hooks::new(vec![spec], dir).with_env(io_hooks::HookEnv::new().set(HELPER, role))
}

/// What the child does, when this binary is run as one (and nothing in a
/// run of the suite).
#[test]
fn helper() {
    let Ok(role) = std::env::var(HELPER) else {
        return;
    };
    match role.as_str() {
        "stdin" => {
            let mut input = Vec::new();
            std::io::stdin().read_to_end(&mut input).unwrap();
            fs::write("stdin.out", input).unwrap();
        }
        "stderr" => {
            eprintln!("refused: no tests");
            std::process::exit(7);
        }
        "sleep" => std::thread::sleep(Duration::from_secs(60)),
        "append" => {
            let writer: usize = std::env::var("IO_HOOKS_WRITER").unwrap().parse().unwrap();
            let here = std::env::current_dir().unwrap();
            let spec = append(Path::new("audit.jsonl"), &[], Flow::Continue);
            let hooks = Hooks::new(vec![spec], &here);
            assert!(hooks.problems().is_empty(), "{:?}", hooks.problems());
            for _ in 0..LINES {
                let _ = hooks.fire_with(&started(""), &started(&long_goal(writer)), |run| {
                    run.result.unwrap();
                });
            }
        }
        other => panic!("no helper role {other}"),
    }
}

#[test]
fn a_run_hook_gets_the_event_line_on_stdin_then_eof() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = helper_hooks(dir.path(), "stdin", 30_000);
    let mut line = Vec::new();
    let _ = hooks.fire_with(&started("ship"), &started("ship"), |run| {
        run.result.unwrap();
        line = run.line.to_vec();
    });
    let got = fs::read(dir.path().join("stdin.out")).unwrap();
    assert_eq!(got, line);
    assert!(got.ends_with(b"}\n"), "{}", String::from_utf8_lossy(&got));
}

#[test]
fn a_run_hook_past_its_timeout_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = helper_hooks(dir.path(), "sleep", 500);
    let start = Instant::now();
    let mut failure = None;
    let _ = hooks.fire_with(&started("x"), &started("x"), |run| {
        failure = run.result.err().map(ToString::to_string);
    });
    let failure = failure.expect("the hook failed");
    assert!(failure.contains("timed out"), "{failure}");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn the_end_of_a_hooks_stderr_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = helper_hooks(dir.path(), "stderr", 30_000).capture_stderr(4096);
    let mut seen = None;
    let _ = hooks.fire_with(&started("x"), &started("x"), |run| {
        let tail = run.stderr.map(|t| String::from_utf8_lossy(t).into_owned());
        seen = Some((run.result.err().map(ToString::to_string), tail));
    });
    let (failure, tail) = seen.expect("the hook ran");
    assert!(failure.unwrap().contains("exited with status 7"));
    assert!(tail.unwrap().contains("refused: no tests"));
}

/// Two other processes and four threads of this one append long lines to
/// one log at once: every line arrives whole, none is lost, and the lock
/// was taken on the sidecar, never the log (which a reader opens freely).
#[test]
fn appends_from_threads_and_processes_never_tear() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let mut children = Vec::new();
    for writer in 0..2 {
        let mut argv = helper_argv().into_iter();
        let child = std::process::Command::new(argv.next().unwrap())
            .args(argv)
            .env(HELPER, "append")
            .env("IO_HOOKS_WRITER", writer.to_string())
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        children.push(child);
    }
    let spec = append(&log, &[], Flow::Continue);
    let hooks = Arc::new(Hooks::new(vec![spec], dir.path()));
    let threads: Vec<_> = (2..6)
        .map(|writer| {
            let hooks = Arc::clone(&hooks);
            std::thread::spawn(move || {
                for _ in 0..LINES {
                    let goal = long_goal(writer);
                    let _ =
                        hooks.fire_with(&started(""), &started(&goal), |run| run.result.unwrap());
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let text = fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6 * LINES);
    for line in lines {
        let value: serde_json::Value = serde_json::from_str(line).expect("a whole line");
        let goal = value["goal"].as_str().unwrap();
        let writer = &goal[..goal.find('-').unwrap() + 1];
        assert_eq!(goal, writer.repeat(3000), "one writer's line, whole");
    }
    assert!(dir.path().join("audit.jsonl.lock").is_file());
}

/// A log whose last line is partial (a host killed mid-write) is ended
/// first: the next event's line starts a line of its own.
#[test]
fn a_partial_last_line_is_ended_before_the_first_append() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    fs::write(&log, "{\"event\":\"started\",\"go").unwrap();
    let hooks = Hooks::new(vec![append(&log, &[], Flow::Continue)], dir.path());
    let _ = hooks.fire_event(&started("a"));
    let _ = hooks.fire_event(&started("b"));
    let text = fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], "{\"event\":\"started\",\"go");
    assert!(lines[1].contains("\"goal\":\"a\""), "{text}");
    assert!(lines[2].contains("\"goal\":\"b\""), "{text}");
}

/// A symbolic link as the log's last name is refused, beneath the root and
/// outside it, as `O_NOFOLLOW` refuses one on Unix, and nothing is written
/// through it. Wine makes no link: skipped there.
#[test]
fn a_reparse_point_as_the_logs_last_name_is_refused() {
    if std::env::var_os("IO_UNDER_WINE").is_some() {
        eprintln!("skipped under wine: wine 8.0 makes no symbolic link");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("profile.ps1");
    fs::write(&target, "").unwrap();
    for link in [
        dir.path().join("audit.jsonl"),
        outside.path().join("link.jsonl"),
    ] {
        std::os::windows::fs::symlink_file(&target, &link).unwrap();
        let hooks = Hooks::new(vec![append(&link, &[], Flow::Continue)], dir.path());
        assert!(!hooks.problems().is_empty(), "{link:?}");
        let mut failure = None;
        let _ = hooks.fire_with(&started("x"), &started("x"), |run| {
            failure = run.result.err().map(ToString::to_string);
        });
        assert!(failure.unwrap().contains("symbolic link"), "{link:?}");
        assert_eq!(fs::read_to_string(&target).unwrap(), "");
    }
}

/// A sidecar `<log>.lock` that is in the way (a clone's committed
/// directory of that name) would fail every append: building the hooks
/// says so, naming it, under the root and outside it alike.
#[test]
fn a_sidecar_lock_in_the_way_is_a_problem_when_the_hooks_are_built() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    for log in [
        dir.path().join("audit.jsonl"),
        outside.path().join("audit.jsonl"),
    ] {
        let lock = lock_of(&log);
        fs::create_dir(&lock).unwrap();
        let hooks = Hooks::new(vec![append(&log, &[], Flow::Continue)], dir.path());
        let said: Vec<String> = hooks.problems().iter().map(ToString::to_string).collect();
        assert!(
            said.iter().any(|p| p.contains(&*lock.to_string_lossy())
                && p.contains("is a directory, so every append would fail")),
            "{log:?}: {said:?}"
        );
        let mut failure = None;
        let _ = hooks.fire_with(&started("x"), &started("x"), |run| {
            failure = run.result.err().map(ToString::to_string);
        });
        assert!(failure.is_some(), "{log:?}: the append fails, as said");
        fs::remove_dir(&lock).unwrap();
        let hooks = Hooks::new(vec![append(&log, &[], Flow::Continue)], dir.path());
        assert!(
            hooks.problems().is_empty(),
            "{log:?}: {:?}",
            hooks.problems()
        );
    }
}

/// `<log>.lock` beside `log`.
fn lock_of(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// `check` judges a program by its extension and its kind, not a `#!`
/// line, and its hints are for Windows: PowerShell's `New-Item` for a
/// missing directory, a path quoted for PowerShell.
#[test]
fn check_judges_a_program_by_its_extension_and_hints_in_powershell() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("fake.exe"), "#!/bin/sh\n").unwrap();
    fs::write(dir.path().join("hook.cmd"), "@exit /b 0\r\n").unwrap();
    fs::write(dir.path().join("hook.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    let specs = |argv: &str| vec![HookSpec::<Ev>::new(HookFilter::ALL, Action::run([argv]))];
    let problems = Hooks::check(&specs("./fake.exe"), dir.path());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].hint().unwrap().contains("`MZ`"),
        "{:?}",
        problems[0].hint()
    );
    assert!(Hooks::check(&specs("./hook.cmd"), dir.path()).is_empty());
    let problems = Hooks::check(&specs("./hook.sh"), dir.path());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].hint().unwrap().contains("PATHEXT"),
        "{:?}",
        problems[0].hint()
    );

    let missing = dir.path().join("my logs").join("audit.jsonl");
    let problems = Hooks::check(&[append(&missing, &[], Flow::Continue)], dir.path());
    assert_eq!(
        problems[0].hint().unwrap(),
        format!(
            "create it: New-Item -ItemType Directory -Force -Path '{}'",
            dir.path().join("my logs").display()
        )
    );
}

/// An append waits for the sidecar's lock another holder has (here another
/// handle, as another process's would be), writes once it is released, and
/// fails naming the lock file when it is held past the bound (5 s): a
/// process that holds it for ever costs each event that, never the run.
#[test]
fn an_append_waits_for_the_sidecar_lock_and_fails_past_its_bound() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let hooks = Arc::new(Hooks::new(
        vec![append(&log, &[], Flow::Continue)],
        dir.path(),
    ));
    let sidecar = fs::File::create(dir.path().join("audit.jsonl.lock")).unwrap();
    fs4::FileExt::lock(&sidecar).unwrap();
    let writer = {
        let hooks = Arc::clone(&hooks);
        std::thread::spawn(move || {
            let mut result = None;
            let _ = hooks.fire_with(&started("a"), &started("a"), |run| {
                result = Some(run.result.map_err(ToString::to_string));
            });
            result.unwrap()
        })
    };
    assert!(!common::wait_until(Duration::from_millis(300), || {
        fs::metadata(&log).is_ok_and(|m| m.len() > 0)
    }));
    fs4::FileExt::unlock(&sidecar).unwrap();
    assert_eq!(writer.join().unwrap(), Ok(()));
    assert_eq!(fs::read_to_string(&log).unwrap().lines().count(), 1);

    fs4::FileExt::lock(&sidecar).unwrap();
    let start = Instant::now();
    let mut failure = None;
    let _ = hooks.fire_with(&started("b"), &started("b"), |run| {
        failure = run.result.err().map(ToString::to_string);
    });
    let failure = failure.expect("the append failed");
    assert!(failure.contains("audit.jsonl.lock"), "{failure}");
    assert!(failure.contains("held its lock"), "{failure}");
    assert!(start.elapsed() >= Duration::from_secs(5));
    assert_eq!(fs::read_to_string(&log).unwrap().lines().count(), 1);
}

/// A background `run` hook runs on the hooks' worker thread, as on Unix:
/// the event is queued, its line reaches the child's stdin, and
/// `wait_background` returns once it is done.
#[test]
fn a_background_run_hook_gets_its_line_on_the_worker() {
    let dir = tempfile::tempdir().unwrap();
    let argv = helper_argv();
    let action = Action::run_in_background(argv, Duration::from_secs(30));
    let hooks = Hooks::new(
        vec![HookSpec::<Ev>::new(HookFilter::ALL, action)],
        dir.path(),
    )
    .with_env(io_hooks::HookEnv::new().set(HELPER, "stdin"));
    assert!(hooks.problems().is_empty(), "{:?}", hooks.problems());
    let _ = hooks.fire_event(&started("later"));
    hooks.wait_background();
    let got = fs::read_to_string(dir.path().join("stdin.out")).unwrap();
    assert!(
        got.contains("\"goal\":\"later\"") && got.ends_with('\n'),
        "{got}"
    );
}

/// A log outside the root is the operator's, opened as written (with no
/// reparse point followed): appended to as one beneath the root is, its
/// sidecar beside it; an open that fails for another reason than a link
/// (here a directory where the log should be) says its own cause, not a
/// link's.
#[test]
fn a_log_outside_the_root_is_appended_to_as_written() {
    let root = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let log = elsewhere.path().join("audit.jsonl");
    let hooks = Hooks::new(vec![append(&log, &[], Flow::Continue)], root.path());
    assert!(hooks.problems().is_empty(), "{:?}", hooks.problems());
    let _ = hooks.fire_event(&started("a"));
    let _ = hooks.fire_event(&started("b"));
    assert_eq!(fs::read_to_string(&log).unwrap().lines().count(), 2);
    assert!(elsewhere.path().join("audit.jsonl.lock").is_file());

    let not_a_file = elsewhere.path().join("dir.jsonl");
    fs::create_dir(&not_a_file).unwrap();
    let hooks = Hooks::new(vec![append(&not_a_file, &[], Flow::Continue)], root.path());
    let mut failure = None;
    let _ = hooks.fire_with(&started("c"), &started("c"), |run| {
        failure = run.result.err().map(ToString::to_string);
    });
    let failure = failure.expect("an append to a directory fails");
    assert!(!failure.contains("symbolic link"), "{failure}");
}
