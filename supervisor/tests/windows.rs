//! io-supervisor on Windows (issue 47): a child and everything it starts
//! in a job object that a timeout or an interrupt terminates, the event
//! line on stdin then EOF, stdout as given, the end of stderr kept, an
//! exit code, `PATHEXT`, and a `.cmd` program's arguments quoted by std or
//! the spawn refused.
//!
//! The child is this test binary run again on the one test `helper`, with
//! `IO_SUPERVISOR_HELPER` naming what it does: nothing here needs a program
//! wine may lack, but for `cmd.exe`, which wine has.
#![cfg(windows)]

use std::ffi::OsStr;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use io_supervisor::{ProcessError, StderrTail, Supervisor, resolve_program_in};

/// Far above every timeout here, far below "forever".
const HUNG: Duration = Duration::from_secs(30);
const HELPER: &str = "IO_SUPERVISOR_HELPER";

/// The helper's argv: this binary on its one test `helper`.
fn helper_argv() -> Vec<String> {
    let exe = std::env::current_exe().expect("the test binary's path");
    let exe = exe.to_str().expect("a UTF-8 path").to_owned();
    [
        exe.as_str(),
        "helper",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ]
    .map(String::from)
    .to_vec()
}

/// Runs the helper doing `role` in `dir` on `supervisor`, keeping its
/// stderr in `tail` when given.
fn run_helper(
    supervisor: &Supervisor,
    dir: &Path,
    role: &str,
    input: &[u8],
    timeout: Duration,
    tail: Option<&mut StderrTail>,
) -> Result<(), ProcessError> {
    let env = [(OsStr::new(HELPER), Some(OsStr::new(role)))];
    supervisor.run_argv_with_env(&helper_argv(), dir, input, timeout, tail, &env)
}

/// Returns whether `cond` came true within `limit`, checked every 10 ms.
fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if cond() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What the child does, when this binary is run as one (and nothing in a
/// run of the suite).
#[test]
fn helper() {
    let Some(role) = std::env::var_os(HELPER) else {
        return;
    };
    let role = role.to_str().expect("a UTF-8 role").to_owned();
    let long = Duration::from_secs(60);
    match role.as_str() {
        "stdin" => {
            let mut input = Vec::new();
            std::io::stdin().read_to_end(&mut input).unwrap();
            fs::write("stdin.out", input).unwrap();
        }
        "stdout" => println!("the hook's output"),
        "stderr" => {
            eprintln!("no such thing");
            std::process::exit(3);
        }
        "env" => {
            let var = |name| std::env::var(name).unwrap_or_else(|_| "unset".to_owned());
            let text = format!(
                "{}|{}",
                var("PATH"),
                var("NoDefaultCurrentDirectoryInExePath")
            );
            fs::write("env.out", text).unwrap();
        }
        "sleep" => std::thread::sleep(long),
        // A host whose own PATH has relative entries, running a child.
        "nested" => {
            let env = [(OsStr::new(HELPER), Some(OsStr::new("env")))];
            let here = std::env::current_dir().unwrap();
            Supervisor::new()
                .run_argv_with_env(&helper_argv(), &here, b"", HUNG, None, &env)
                .unwrap();
        }
        // Starts a grandchild that holds `held` open with no sharing (so
        // no one can delete it while it lives), says so, and sleeps.
        "parent" => {
            let mut argv = helper_argv().into_iter();
            let exe = argv.next().unwrap();
            let mut grandchild = std::process::Command::new(exe)
                .args(argv)
                .env(HELPER, "hold")
                .spawn()
                .expect("spawn the grandchild");
            assert!(wait_until(Duration::from_secs(20), || Path::new(
                "held.ready"
            )
            .exists()));
            fs::write("ready", "").unwrap();
            std::thread::sleep(long);
            let _ = grandchild.kill();
            let _ = grandchild.wait();
        }
        "hold" => {
            use std::os::windows::fs::OpenOptionsExt;
            let _held = fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .share_mode(0)
                .open("held")
                .unwrap();
            fs::write("held.ready", "").unwrap();
            std::thread::sleep(long);
        }
        code => std::process::exit(code.parse().expect("a role or an exit code")),
    }
}

#[test]
fn the_event_line_is_the_childs_stdin_then_eof() {
    let dir = tempfile::tempdir().unwrap();
    let line = b"{\"event\":\"tool.before\"}\n";
    run_helper(&Supervisor::new(), dir.path(), "stdin", line, HUNG, None).unwrap();
    assert_eq!(fs::read(dir.path().join("stdin.out")).unwrap(), line);
}

/// An event far larger than a pipe, to a child that never reads it: the
/// run ends with the child, not at its deadline.
#[test]
fn a_child_that_never_reads_its_stdin_does_not_hold_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let big = vec![b'x'; 4 << 20];
    let start = Instant::now();
    run_helper(&Supervisor::new(), dir.path(), "0", &big, HUNG, None).unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn stdout_goes_where_it_is_given_and_stderr_is_kept_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let out = fs::File::create(dir.path().join("out")).unwrap();
    let env = [(OsStr::new(HELPER), Some(OsStr::new("stdout")))];
    let supervisor = Supervisor::new();
    // run_argv has no environment of its own: the variable is ours, via a
    // Command on run_command.
    let mut argv = helper_argv().into_iter();
    let mut command = std::process::Command::new(argv.next().unwrap());
    command
        .args(argv)
        .envs(env.iter().map(|(k, v)| (k, v.unwrap())));
    command.current_dir(dir.path()).stdout(Stdio::from(out));
    supervisor.run_command(command, b"", HUNG).unwrap();
    let printed = fs::read_to_string(dir.path().join("out")).unwrap();
    assert!(printed.contains("the hook's output"), "{printed}");

    let mut tail = StderrTail::new(8);
    let err = run_helper(
        &supervisor,
        dir.path(),
        "stderr",
        b"",
        HUNG,
        Some(&mut tail),
    );
    assert!(
        matches!(err, Err(ProcessError::Exit { code: 3 })),
        "{err:?}"
    );
    assert_eq!(tail.bytes(), b"h thing\n");
    // Not asked: null.
    let err = run_helper(&supervisor, dir.path(), "stderr", b"", HUNG, None);
    assert_eq!(err.unwrap_err().to_string(), "exited with status 3");
}

#[test]
fn exit_codes_are_reported_and_a_bare_name_is_found_with_pathext() {
    let dir = tempfile::tempdir().unwrap();
    let supervisor = Supervisor::new();
    let err = run_helper(&supervisor, dir.path(), "7", b"", HUNG, None);
    assert!(
        matches!(err, Err(ProcessError::Exit { code: 7 })),
        "{err:?}"
    );
    // An access violation's NTSTATUS, as a crashed program exits.
    let err = run_helper(&supervisor, dir.path(), "-1073741819", b"", HUNG, None);
    assert!(
        matches!(err, Err(ProcessError::Exit { code: -1073741819 })),
        "{err:?}"
    );
    assert_eq!(
        err.unwrap_err().to_string(),
        "exited with status 0xC0000005"
    );
    // `cmd`, found on PATH as cmd.exe.
    let argv = ["cmd", "/c", "exit 3"].map(String::from);
    let err = supervisor.run_argv(&argv, dir.path(), b"", Stdio::null(), HUNG);
    assert!(
        matches!(err, Err(ProcessError::Exit { code: 3 })),
        "{err:?}"
    );
    let argv = ["no-such-program-anywhere".to_owned()];
    let err = supervisor.run_argv(&argv, dir.path(), b"", Stdio::null(), HUNG);
    assert!(matches!(err, Err(ProcessError::NotFound { .. })), "{err:?}");
}

/// The child's `PATH` holds only absolute entries, and `cmd.exe` is told
/// not to search the working directory first.
#[test]
fn the_child_searches_no_relative_directory() {
    let dir = tempfile::tempdir().unwrap();
    let env = [
        (OsStr::new(HELPER), Some(OsStr::new("env"))),
        (
            OsStr::new("Path"),
            Some(OsStr::new(".;C:\\windows\\system32;bin")),
        ),
    ];
    Supervisor::new()
        .run_argv_with_env(&helper_argv(), dir.path(), b"", HUNG, None, &env)
        .unwrap();
    let seen = fs::read_to_string(dir.path().join("env.out")).unwrap();
    assert_eq!(seen, "C:\\windows\\system32|1");
}

#[test]
fn a_child_still_running_at_its_timeout_is_ended() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let err = run_helper(
        &Supervisor::new(),
        dir.path(),
        "sleep",
        b"",
        Duration::from_millis(300),
        None,
    );
    assert_eq!(
        err.unwrap_err().to_string(),
        "timed out after 300 ms and was killed"
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

/// Whether the grandchild is gone: it held `held` open without sharing,
/// so the file can be deleted only once it has ended.
fn grandchild_gone(dir: &Path) -> bool {
    wait_until(Duration::from_secs(10), || {
        fs::remove_file(dir.join("held")).is_ok()
    })
}

/// The job holds what the child started: at the timeout the grandchild
/// ends with it.
#[test]
fn the_timeout_ends_the_grandchild_with_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let timeout = Duration::from_secs(5);
    let err = run_helper(&Supervisor::new(), dir.path(), "parent", b"", timeout, None);
    assert!(matches!(err, Err(ProcessError::TimedOut { .. })), "{err:?}");
    assert!(
        dir.path().join("ready").exists(),
        "the grandchild did not start within {timeout:?}"
    );
    assert!(
        grandchild_gone(dir.path()),
        "the grandchild outlived the timeout"
    );
}

/// The host's interrupt ends every job in flight, grandchildren included,
/// and refuses every later spawn.
#[test]
fn the_interrupt_ends_the_grandchild_with_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let supervisor = Supervisor::new();
    let running = {
        let (supervisor, root) = (supervisor.clone(), dir.path().to_path_buf());
        std::thread::spawn(move || run_helper(&supervisor, &root, "parent", b"", HUNG, None))
    };
    let ready = dir.path().join("ready");
    assert!(
        wait_until(HUNG, || ready.exists()),
        "the helper did not start"
    );
    assert!(
        fs::remove_file(dir.path().join("held")).is_err(),
        "the grandchild holds its file while it runs"
    );
    supervisor.interrupt();
    let err = running.join().unwrap();
    assert!(matches!(err, Err(ProcessError::Interrupted)), "{err:?}");
    assert!(
        grandchild_gone(dir.path()),
        "the grandchild outlived the interrupt"
    );
    assert!(supervisor.wait_reaped(Duration::ZERO));
    let late = run_helper(&supervisor, dir.path(), "0", b"", HUNG, None);
    assert!(matches!(late, Err(ProcessError::Interrupted)), "{late:?}");
}

/// A `.cmd` program, named bare (found with `PATHEXT`), that writes its
/// first argument as `cmd.exe` sees it.
fn batch_tool(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    fs::create_dir(&bin).unwrap();
    fs::write(bin.join("tool.cmd"), "@echo off\r\necho %1> arg.out\r\n").unwrap();
    let path_var = std::env::join_paths([&bin]).unwrap();
    let exe = resolve_program_in("tool", dir, Some(&path_var)).unwrap();
    assert_eq!(exe, bin.join("tool.cmd"));
    exe
}

/// std quotes each argument of a `.bat` or `.cmd` for `cmd.exe`: `&` is
/// text, not a second command.
#[test]
fn a_batch_program_gets_each_argument_quoted() {
    let dir = tempfile::tempdir().unwrap();
    let exe = batch_tool(dir.path());
    let argv = [exe.to_str().unwrap(), "a & echo injected> injected.out"].map(String::from);
    Supervisor::new()
        .run_argv(&argv, dir.path(), b"", Stdio::null(), HUNG)
        .unwrap();
    let arg = fs::read_to_string(dir.path().join("arg.out")).unwrap();
    assert_eq!(arg.trim_end(), "\"a & echo injected> injected.out\"");
    assert!(!dir.path().join("injected.out").exists());
}

/// An argument std cannot quote for `cmd.exe` (a quote, a line break) is
/// refused before anything runs.
#[test]
fn a_batch_argument_cmd_cannot_take_literally_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let exe = batch_tool(dir.path());
    let argv = [
        exe.to_str().unwrap(),
        "a\"b\r\n& echo injected> injected.out",
    ]
    .map(String::from);
    let err = Supervisor::new().run_argv(&argv, dir.path(), b"", Stdio::null(), HUNG);
    match err {
        Err(ProcessError::Spawn { cause, .. }) => {
            assert_eq!(cause.kind(), std::io::ErrorKind::InvalidInput, "{cause}");
        }
        other => panic!("spawned: {other:?}"),
    }
    assert!(!dir.path().join("arg.out").exists());
    assert!(!dir.path().join("injected.out").exists());
}

/// `end_in_flight` terminates the jobs in flight and refuses nothing after.
#[test]
fn ending_what_is_in_flight_ends_its_job_and_refuses_nothing_later() {
    let dir = tempfile::tempdir().unwrap();
    let supervisor = Supervisor::new();
    let running = {
        let (supervisor, root) = (supervisor.clone(), dir.path().to_path_buf());
        std::thread::spawn(move || run_helper(&supervisor, &root, "sleep", b"", HUNG, None))
    };
    assert!(wait_until(HUNG, || supervisor.in_flight() == 1));
    let start = Instant::now();
    supervisor.end_in_flight();
    let err = running.join().unwrap();
    assert!(matches!(err, Err(ProcessError::Interrupted)), "{err:?}");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    assert!(!supervisor.is_interrupted());
    run_helper(&supervisor, dir.path(), "0", b"", HUNG, None).unwrap();
}

/// The helper doing `role` in `dir`, as a background command.
fn background(dir: &Path, role: &str) -> std::process::Command {
    let mut argv = helper_argv().into_iter();
    let mut command = std::process::Command::new(argv.next().unwrap());
    command
        .args(argv)
        .env(HELPER, role)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// A background child spawned in a job: the interrupt ends it with its
/// grandchild; once interrupted, nothing more is spawned.
#[test]
fn an_interrupt_ends_a_tracked_background_job() {
    let dir = tempfile::tempdir().unwrap();
    let supervisor = Supervisor::new();
    let mut tracked = supervisor
        .spawn_tracked(background(dir.path(), "parent"))
        .unwrap();
    assert_eq!(supervisor.in_flight(), 0, "tracked children are the host's");
    let ready = dir.path().join("ready");
    assert!(
        wait_until(HUNG, || ready.exists()),
        "the helper did not start"
    );
    assert!(tracked.try_wait().unwrap().is_none(), "still running");
    assert!(fs::remove_file(dir.path().join("held")).is_err());

    supervisor.interrupt();
    assert!(
        grandchild_gone(dir.path()),
        "the grandchild outlived the interrupt"
    );
    assert!(wait_until(HUNG, || tracked.try_wait().unwrap().is_some()));
    fs::remove_file(&ready).unwrap();
    let late = supervisor.spawn_tracked(background(dir.path(), "parent"));
    assert!(matches!(late, Err(ProcessError::Interrupted)), "{late:?}");
    assert!(
        !ready.exists() && !dir.path().join("held").exists(),
        "nothing ran"
    );
}

#[test]
fn kill_and_reap_ends_a_tracked_job_and_returns() {
    let dir = tempfile::tempdir().unwrap();
    let supervisor = Supervisor::new();
    let tracked = supervisor
        .spawn_tracked(background(dir.path(), "parent"))
        .unwrap();
    let ready = dir.path().join("ready");
    assert!(
        wait_until(HUNG, || ready.exists()),
        "the helper did not start"
    );
    let start = Instant::now();
    tracked.kill_and_reap();
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    assert!(
        grandchild_gone(dir.path()),
        "the grandchild outlived kill_and_reap"
    );
    assert!(!supervisor.is_interrupted());
    // Not interrupted: the next one runs, and is seen to end by itself.
    let mut quick = supervisor
        .spawn_tracked(background(dir.path(), "0"))
        .expect("spawned");
    assert!(wait_until(HUNG, || quick.try_wait().unwrap().is_some()));
}

/// `run_argv_keeping_stderr`, the engine's call: stdout null, the end of
/// stderr kept.
#[test]
fn the_engines_call_keeps_the_end_of_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let argv = ["cmd", "/c", "echo no such thing 1>&2 & exit 3"].map(String::from);
    let mut tail = StderrTail::new(64);
    let err =
        Supervisor::new().run_argv_keeping_stderr(&argv, dir.path(), b"", HUNG, Some(&mut tail));
    assert!(
        matches!(err, Err(ProcessError::Exit { code: 3 })),
        "{err:?}"
    );
    let text = String::from_utf8_lossy(tail.bytes());
    assert!(text.contains("no such thing"), "{text:?}");
}

/// A host whose `PATH` has relative entries (`.`, `bin`) gives its child
/// the absolute ones alone.
#[test]
fn a_hosts_relative_path_entries_never_reach_the_child() {
    let dir = tempfile::tempdir().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut relative = std::ffi::OsString::from(".;");
    relative.push(&path);
    relative.push(";bin");
    let mut nested = background(dir.path(), "nested");
    nested.env("PATH", &relative);
    let mut child = nested.spawn().unwrap();
    let mut status = None;
    assert!(wait_until(HUNG, || {
        status = child.try_wait().unwrap();
        status.is_some()
    }));
    assert!(status.unwrap().success(), "{status:?}");
    let seen = fs::read_to_string(dir.path().join("env.out")).unwrap();
    let (child_path, no_cwd) = seen.split_once('|').unwrap();
    assert_eq!(no_cwd, "1");
    assert!(!child_path.is_empty());
    for entry in std::env::split_paths(child_path) {
        assert!(entry.is_absolute(), "{entry:?} in {child_path:?}");
    }
}
