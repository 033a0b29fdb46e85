//! The supervisor's free functions, each on a supervisor of its own:
//! `run_argv`, `resolve_program` and `run_command`.
#![cfg(unix)] // Windows: tests/windows.rs

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_child_passed, is_reexec, reexec_with, script, within};
use io_supervisor::{ProcessError, resolve_program, run_argv, run_command};

/// Far above every timeout here, far below "forever".
const HUNG: Duration = Duration::from_secs(20);
const LONG: Duration = Duration::from_secs(10);

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| (*s).to_owned()).collect()
}

/// `run_argv` under the watchdog, its stdout into `out` in `root`.
fn run_in(
    root: &Path,
    words: &[&str],
    input: &[u8],
    timeout: Duration,
) -> Result<(), ProcessError> {
    let (root, words, input) = (root.to_path_buf(), argv(words), input.to_vec());
    within(HUNG, "run_argv", move || {
        let out = fs::File::create(root.join("out")).expect("create out");
        run_argv(&words, &root, &input, Stdio::from(out), timeout)
    })
}

#[test]
fn run_argv_feeds_stdin_in_the_root_and_keeps_stdout() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "hook", "cat\npwd > cwd.out");
    run_in(dir.path(), &["./hook"], b"line one\n", LONG).expect("the hook succeeds");
    assert_eq!(
        fs::read_to_string(dir.path().join("out")).unwrap(),
        "line one\n"
    );
    let cwd = fs::read_to_string(dir.path().join("cwd.out")).unwrap();
    assert_eq!(
        fs::canonicalize(cwd.trim_end()).unwrap(),
        fs::canonicalize(dir.path()).unwrap()
    );
}

#[test]
fn run_argv_reports_exit_statuses_signals_and_absent_programs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = run_in(d, &["/bin/sh", "-c", "exit 3"], b"", LONG);
    assert!(matches!(r, Err(ProcessError::Exit { code: 3 })), "{r:?}");
    let r = run_in(d, &["/bin/sh", "-c", "kill -TERM $$"], b"", LONG);
    assert!(
        matches!(r, Err(ProcessError::Signal { signal: 15 })),
        "{r:?}"
    );
    let r = run_in(d, &["no-such-program-io-hooks"], b"", LONG);
    assert!(matches!(r, Err(ProcessError::NotFound { .. })), "{r:?}");
    let r = run_in(d, &[], b"", LONG);
    assert!(matches!(r, Err(ProcessError::NotFound { .. })), "{r:?}");
    // Containing `/`, missing: a spawn failure naming the program.
    let r = run_in(d, &["./absent"], b"", LONG);
    match r {
        Err(e @ ProcessError::Spawn { .. }) => assert_eq!(
            e.to_string(),
            "could not spawn `./absent`: No such file or directory"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn run_argv_kills_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let r = run_in(
        dir.path(),
        &["sleep", "30"],
        b"",
        Duration::from_millis(100),
    );
    assert!(matches!(r, Err(ProcessError::TimedOut { .. })), "{r:?}");
    // `sleep 30` is what a regression would wait for: half of that leaves
    // room for a loaded machine (issue 31).
    assert!(start.elapsed() < Duration::from_secs(15));
}

#[test]
fn resolve_program_finds_bare_names_on_path_and_joins_the_rest_to_root() {
    let root = Path::new("/some/root");
    let sh = resolve_program("sh", root).expect("sh is on PATH");
    assert!(sh.is_absolute(), "{}", sh.display());
    assert!(sh.ends_with("sh"));
    assert!(sh.is_file());
    assert_eq!(
        resolve_program("./bin/x", root).unwrap(),
        root.join("./bin/x")
    );
    assert_eq!(
        resolve_program("/usr/bin/env", root).unwrap(),
        Path::new("/usr/bin/env")
    );
    for absent in ["", "no-such-program-io-hooks"] {
        let r = resolve_program(absent, root);
        assert!(
            matches!(r, Err(ProcessError::NotFound { .. })),
            "{absent:?}: {r:?}"
        );
    }
}

#[test]
fn run_command_runs_the_callers_command_with_its_environment() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    let r = within(HUNG, "run_command", move || {
        let sh = resolve_program("sh", &d).expect("sh is on PATH");
        let mut ok = Command::new(&sh);
        ok.args([
            "-c",
            "read line; [ \"$line\" = hello ] && [ \"$IO_HOOKS_T\" = set ]",
        ])
        .env("IO_HOOKS_T", "set")
        .current_dir(&d);
        let ok = run_command(ok, b"hello\n", LONG);
        let mut bad = Command::new(&sh);
        bad.args(["-c", "exit 4"]);
        let bad = run_command(bad, b"", LONG);
        let mut slow = Command::new(&sh);
        slow.args(["-c", "sleep 30"]);
        let slow = run_command(slow, b"", Duration::from_millis(100));
        (ok, bad, slow)
    });
    assert!(r.0.is_ok(), "{:?}", r.0);
    assert!(
        matches!(r.1, Err(ProcessError::Exit { code: 4 })),
        "{:?}",
        r.1
    );
    assert!(
        matches!(r.2, Err(ProcessError::TimedOut { .. })),
        "{:?}",
        r.2
    );
}

/// A child's `PATH` keeps only the absolute entries of ours, in order: as
/// given when every entry is absolute (it is then inherited, not rebuilt),
/// without `.`, an empty entry or a relative one otherwise. Run in a child
/// with each `PATH`.
#[test]
fn a_childs_path_keeps_only_the_absolute_entries() {
    const NAME: &str = "a_childs_path_keeps_only_the_absolute_entries";
    if is_reexec(NAME) {
        let dir = std::env::current_dir().unwrap();
        let echo = argv(&["/bin/sh", "-c", "printf %s \"$PATH\" > path.txt"]);
        run_argv(&echo, &dir, b"", Stdio::null(), Duration::from_secs(20)).unwrap();
        return;
    }
    for (ours, theirs) in [
        ("/usr/bin:/bin", "/usr/bin:/bin"),
        (".::bin:/usr/bin:/bin:", "/usr/bin:/bin"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = reexec_with(NAME, dir.path(), &[("PATH", ours.as_ref())]);
        assert_child_passed(&out);
        let got = fs::read_to_string(dir.path().join("path.txt")).unwrap();
        assert_eq!(got, theirs, "PATH={ours:?}");
    }
}

/// `run_argv_with_env`: a variable set, a later pair of the same name
/// winning, one the host has removed, and a `PATH` given that keeps only
/// its absolute entries, as the host's own does.
#[test]
fn run_argv_with_env_sets_removes_and_keeps_a_given_path_absolute() {
    use std::ffi::OsStr;
    // Set by cargo for the test binary: a variable the child inherits.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let body = "printf '%s|%s|%s' \"$STAGE\" \"${CARGO_MANIFEST_DIR-unset}\" \"$PATH\" > env.txt";
    let words = argv(&["/bin/sh", "-c", body]);
    within(HUNG, "run_argv_with_env", move || {
        let env = [
            (OsStr::new("STAGE"), Some(OsStr::new("build"))),
            (OsStr::new("STAGE"), Some(OsStr::new("deploy"))),
            (OsStr::new("CARGO_MANIFEST_DIR"), None),
            (OsStr::new("PATH"), Some(OsStr::new(".:/usr/bin::bin:/bin"))),
        ];
        io_supervisor::Supervisor::new().run_argv_with_env(&words, &root, b"", LONG, None, &env)
    })
    .expect("the child succeeds");
    let got = fs::read_to_string(dir.path().join("env.txt")).unwrap();
    assert_eq!(got, "deploy|unset|/usr/bin:/bin");
}
