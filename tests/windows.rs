//! `io` on Windows (issue 47), through the real `io.exe`: a `run` hook
//! through `cmd /c` gets the event line on stdin then EOF; a hook past its
//! timeout is killed with the grandchild it started (its job object);
//! `io check` judges a program by its extension (`PATHEXT`); a replay
//! leaves out the hook that appends to its input; the
//! user-scope file `%APPDATA%\io\io.toml` is loaded and the trust store
//! kept beside it; a `io.local.toml` the git index lists is refused and an
//! unpacked one is loaded once trusted; a run's journal is locked on its
//! sidecar, listed, summed up and adopted; Ctrl-C stops a run in flight
//! (`interrupted`, exit 130), ends `io` and every child at once when no
//! run is in flight, and Ctrl-Break ends `io` with 149.
//!
//! A child that must do something of the test's is this test binary run
//! again on its one test `helper`, with `IO_WIN_HELPER` naming what it
//! does (`io` passes its environment to its hooks). Under wine
//! (`IO_UNDER_WINE=1`) what wine 8.0 cannot show is skipped, saying so:
//! Ctrl-Break (its `GenerateConsoleCtrlEvent` refuses `CTRL_BREAK_EVENT`)
//! and a key file read back (wine keeps no DACL, so the key `io` made is
//! readable by Everyone and refused at its next load).
#![cfg(windows)]

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use io_harness::Outcome;
use io_harness::run::{FileStore, Key, Record, Store, StoreError};

const HELPER: &str = "IO_WIN_HELPER";

/// Far above anything here takes, far below "forever".
const LIMIT: Duration = Duration::from_secs(60);

/// Whether the tests run under wine (`.ci/windows` sets `IO_UNDER_WINE=1`).
fn under_wine() -> bool {
    std::env::var_os("IO_UNDER_WINE").is_some()
}

/// A temp dir holding a user scope (`user`), a data directory (`data`) and
/// a discovery root (`root`) that is a git work tree, made by hand: git is
/// not run under wine.
struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().expect("tempdir");
        for sub in ["user", "data", "root"] {
            fs::create_dir(dir.path().join(sub)).expect("made");
        }
        work_tree(&dir.path().join("root"));
        Env { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn root(&self) -> PathBuf {
        self.path("root")
    }

    /// Writes `text` at `rel` beneath the root; its path.
    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.root().join(rel);
        fs::write(&path, text).expect("written");
        path
    }

    /// `io args…` in the root, with the test's user scope and data
    /// directory, stdin empty, its output piped.
    fn io(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
        command
            .args(args)
            .current_dir(self.root())
            .env("IO_CONFIG_HOME", self.path("user"))
            .env("IO_DATA_HOME", self.path("data"))
            .env_remove(HELPER)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }
}

/// What `git init` makes, by hand.
fn work_tree(dir: &Path) {
    for sub in [".git/objects", ".git/refs/heads"] {
        fs::create_dir_all(dir.join(sub)).expect("made");
    }
    fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n").expect("written");
}

/// A version 2 git index listing `names` (sorted), with its SHA-1.
fn index(names: &[&str]) -> Vec<u8> {
    use sha1::Digest;
    let mut body = b"DIRC".to_vec();
    body.extend(2u32.to_be_bytes());
    body.extend((names.len() as u32).to_be_bytes());
    for name in names {
        let start = body.len();
        let mut stat = [0u8; 40];
        stat[24..28].copy_from_slice(&0o100644u32.to_be_bytes());
        body.extend(stat);
        body.extend([0u8; 20]);
        body.extend((name.len() as u16).to_be_bytes());
        body.extend(name.as_bytes());
        let size = (62 + name.len() + 8) & !7;
        body.resize(start + size, 0);
    }
    let sum = sha1::Sha1::digest(&body);
    body.extend_from_slice(&sum);
    body
}

/// The output of `child`, which must end within `limit` (else it is
/// killed and the test fails naming `what`).
fn output_within(mut child: Child, limit: Duration, what: &str) -> Output {
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    });
    let err = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr.read_to_end(&mut bytes);
        bytes
    });
    let ended = wait_until(limit, || matches!(child.try_wait(), Ok(Some(_))));
    if !ended {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{what} did not end within {limit:?}");
    }
    let status = child.wait().expect("its status");
    Output {
        status,
        stdout: out.join().expect("stdout read"),
        stderr: err.join().expect("stderr read"),
    }
}

/// `command` run to its end within [`LIMIT`].
fn run(mut command: Command, what: &str) -> Output {
    output_within(command.spawn().expect("io starts"), LIMIT, what)
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

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Both of `out`'s streams, for a failing assertion.
fn said(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// The helper's argv as a TOML array: this binary on its one test
/// `helper`.
fn helper_toml() -> String {
    let exe = std::env::current_exe().expect("the test binary's path");
    let exe = exe.to_str().expect("a UTF-8 path").to_owned();
    let argv = [
        exe.as_str(),
        "helper",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ];
    let quoted: Vec<String> = argv
        .iter()
        .map(|w| toml::Value::String((*w).to_owned()).to_string())
        .collect();
    format!("[{}]", quoted.join(", "))
}

/// One `started` event, as `io replay` reads it.
const STARTED: &str = "{\"event\":\"started\",\"goal\":\"g\",\"resumed\":false,\"run_id\":\"r\",\"depth\":0,\"seq\":0}\n";

/// A workspace whose `io.local.toml` runs the helper on the event `on`,
/// with a timeout of `timeout_ms`.
fn helper_hook(on: &str, timeout_ms: u32) -> Env {
    let env = Env::new();
    env.write(
        "io.local.toml",
        &format!(
            "[[hook]]\non = [\"{on}\"]\nrun = {}\ntimeout_ms = {timeout_ms}\n",
            helper_toml()
        ),
    );
    env
}

/// A workspace to `io replay events.jsonl` in: one `started` event, whose
/// hook runs the helper with a minute's timeout (more than any test waits).
fn started_replay() -> Env {
    let env = helper_hook("started", 60_000);
    env.write("events.jsonl", STARTED);
    env
}

/// What the child does, when this binary is run as one (and nothing in a
/// run of the suite).
#[test]
fn helper() {
    let Ok(role) = std::env::var(HELPER) else {
        return;
    };
    let long = Duration::from_secs(60);
    match role.as_str() {
        // Starts a grandchild that holds `held` open with no sharing (so no
        // one can remove it while it lives), says so, and sleeps.
        "parent" => {
            let exe = std::env::current_exe().unwrap();
            let mut grandchild = Command::new(exe)
                .args(["helper", "--exact", "--nocapture", "--test-threads=1"])
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
        // A hook that says it started, then outlives any event.
        "sleep" => {
            fs::write("hook.ready", "").unwrap();
            std::thread::sleep(long);
        }
        "ctrl-c" => console::send_ctrl_c(),
        "close-console" => console::close_console(),
        other => panic!("no helper role {other}"),
    }
}

#[test]
fn a_run_hook_through_cmd_gets_the_event_line_on_stdin_then_eof() {
    let env = Env::new();
    // `more` reads to the end of its input: without EOF it would wait
    // until the hook's timeout, and the hook would fail.
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"started\"]\nrun = [\"cmd\", \"/c\", \"more\", \">\", \"seen.txt\"]\ntimeout_ms = 30000\n",
    );
    env.write("events.jsonl", STARTED);
    let out = run(env.io(&["replay", "events.jsonl"]), "io replay");
    assert!(out.status.success(), "{}", said(&out));
    assert!(text(&out.stdout).contains("hook[1] ok"), "{}", said(&out));
    let seen = fs::read_to_string(env.root().join("seen.txt")).expect("the hook wrote");
    let seen = seen.replace("\r\n", "\n");
    assert!(
        seen.starts_with("{\"event\":\"started\"") && seen.ends_with("}\n"),
        "{seen:?}"
    );
    assert_eq!(seen.lines().count(), 1, "{seen:?}");
    assert!(seen.contains("\"run_id\":\"r\""), "{seen:?}");
}

#[test]
fn a_hook_past_its_timeout_is_killed_with_the_grandchild_it_started() {
    let env = helper_hook("started", 8000);
    env.write("events.jsonl", STARTED);
    let mut io = env.io(&["replay", "events.jsonl"]);
    io.env(HELPER, "parent");
    let start = Instant::now();
    let out = run(io, "io replay");
    assert!(
        start.elapsed() < Duration::from_secs(40),
        "{:?}",
        start.elapsed()
    );
    let all = said(&out);
    assert!(all.contains("timed out"), "{all}");
    // The grandchild was running when the timeout came (else this proves
    // nothing)...
    assert!(env.root().join("ready").exists(), "{all}");
    // ...and died with the job: the file it held with no sharing can be
    // removed.
    let held = env.root().join("held");
    assert!(
        wait_until(Duration::from_secs(20), || fs::remove_file(&held).is_ok()),
        "the grandchild outlived its hook's timeout"
    );
}

/// `io replay` of the file a hook appends to, named or on stdin: the hook
/// is left out, by the file's identity (volume serial number and file
/// index), and the recording is not written into.
#[test]
fn a_replay_leaves_out_the_hook_that_appends_to_its_input() {
    let env = Env::new();
    env.write("io.local.toml", "[[hook]]\nappend = \"audit.jsonl\"\n");
    let audit = env.write("audit.jsonl", STARTED);
    let out = run(env.io(&["replay", "audit.jsonl"]), "io replay");
    let all = said(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("is left out of this replay"), "{all}");
    let mut io = env.io(&["replay", "-"]);
    io.stdin(fs::File::open(&audit).expect("the recording"));
    let out = run(io, "io replay -");
    let all = said(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("is left out of this replay"), "{all}");
    assert_eq!(fs::read_to_string(&audit).expect("read"), STARTED);
}

#[test]
fn check_judges_a_program_by_its_extension() {
    let env = Env::new();
    env.write("notes.txt", "not a program\n");
    env.write("tool.cmd", "@echo off\r\n");
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"started\"]\nrun = [\"./notes.txt\"]\n\n\
         [[hook]]\non = [\"started\"]\nrun = [\"./tool.cmd\"]\n\n\
         [[hook]]\non = [\"started\"]\nrun = [\"cmd\", \"/c\", \"exit\", \"0\"]\n",
    );
    let out = run(env.io(&["check"]), "io check");
    let all = said(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("is not executable"), "{all}");
    assert!(stdout.contains("PATHEXT"), "{all}");
    assert!(stdout.contains("1 hook(s) cannot work as written"), "{all}");
    // Only the text file is a problem: `tool.cmd` and `cmd` start.
    let problems: Vec<&str> = stdout.lines().filter(|l| l.contains("problem:")).collect();
    assert_eq!(problems.len(), 1, "{all}");
    assert!(problems[0].contains("notes.txt"), "{all}");
}

#[test]
fn the_user_scope_file_and_the_trust_store_are_under_appdata() {
    let env = Env::new();
    let appdata = env.path("AppData");
    let mine = appdata.join("io");
    fs::create_dir_all(&mine).expect("made");
    fs::write(
        mine.join("io.toml"),
        "[[hook]]\non = [\"started\"]\nappend = \"audit.jsonl\"\n",
    )
    .expect("written");
    // No git here: an unpacked archive, whose `io.local.toml` needs trust.
    fs::remove_dir_all(env.root().join(".git")).expect("removed");
    let io = |args: &[&str]| {
        let mut io = env.io(args);
        io.env_remove("IO_CONFIG_HOME")
            .env_remove("IO_DATA_HOME")
            .env("APPDATA", &appdata);
        run(io, "io")
    };
    let out = io(&["check"]);
    let all = said(&out);
    assert!(out.status.success(), "{all}");
    let user = mine.join("io.toml").display().to_string();
    assert!(
        text(&out.stdout).contains(&format!("{user}  <- hooks in force")),
        "{all}"
    );
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"started\"]\nrun = [\"cmd\", \"/c\", \"exit\", \"0\"]\n",
    );
    let out = io(&["check"]);
    let all = said(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("is not known to be yours"), "{all}");
    let out = io(&["trust"]);
    assert!(out.status.success(), "{}", said(&out));
    assert!(
        mine.join("trusted-files").exists(),
        "the trust store is in %APPDATA%\\io: {}",
        said(&out)
    );
    let out = io(&["check"]);
    let all = said(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("trusted with `io trust`"), "{all}");
    // The local file's hooks replace the user scope's, as on Unix.
    assert!(
        all.contains("user scope: 1 hook(s), replaced by io.local.toml"),
        "{all}"
    );
}

#[test]
fn a_local_file_the_git_index_lists_is_refused() {
    let env = Env::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"started\"]\nrun = [\"cmd\", \"/c\", \"exit\", \"0\"]\n",
    );
    let ok = run(env.io(&["check"]), "io check");
    assert!(ok.status.success(), "{}", said(&ok));
    fs::write(env.root().join(".git/index"), index(&["io.local.toml"])).expect("index");
    let out = run(env.io(&["check"]), "io check");
    let all = said(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("this `io.local.toml` is tracked by the repository's git index"),
        "{all}"
    );
}

/// A run's store beneath a workspace, as `io run` keeps it: a record
/// appended and read back, the run's lock on its sidecar (a second claim
/// is refused while the first is held), the journals listed without the
/// sidecar, a summary with its time, and a journal adopted by a sealed
/// store (written anew beside it, then renamed over it).
#[test]
fn a_journal_is_locked_on_its_sidecar_listed_summed_up_and_adopted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = FileStore::beneath(dir.path(), ".io/runs");
    let begin = Record::Begin {
        goal: "g".into(),
        workspace: dir.path().to_path_buf(),
        depth: 0,
        max_steps: 3,
        origin: None,
        script: None,
        mcp_servers: Default::default(),
        profile: None,
    };
    store.append("r-1", &begin).expect("appended");
    journal_is_private(&dir.path().join(".io/runs/r-1.jsonl"));
    let held = store.lock("r-1").expect("claimed");
    assert!(dir.path().join(".io/runs/r-1.jsonl.lock").exists());
    let again = store.lock("r-1");
    assert!(matches!(again, Err(StoreError::Busy { .. })), "{again:?}");
    // Appends go on while the lock is held: it is on the sidecar.
    let end = Record::End {
        outcome: Outcome::Completed,
        steps: 0,
        detail: None,
        next_seq: 1,
    };
    store.append("r-1", &end).expect("appended while locked");
    drop(held);
    drop(store.lock("r-1").expect("claimed again once released"));
    assert_eq!(store.runs().expect("listed"), ["r-1"]);
    let summary = store.summary("r-1").expect("read").expect("a run");
    assert_eq!(summary.outcome, Some(Outcome::Completed));
    assert!(summary.written.starts_with("20"), "{}", summary.written);
    let sealed = FileStore::beneath(dir.path(), ".io/runs").sealed(Key::from_bytes([7; 32]));
    let adopted = sealed.adopt("r-1").expect("adopted").expect("records");
    assert_eq!(adopted, [begin, end]);
    assert_eq!(
        sealed.load("r-1").expect("verified").map(|r| r.len()),
        Some(2)
    );
    assert!(!dir.path().join(".io/runs/r-1.jsonl.adopting").exists());
    journal_is_private(&dir.path().join(".io/runs/r-1.jsonl"));
}

/// Asserts that the journal at `path` has the DACL `io` gives it: one
/// entry, the running user's. Skipped under wine, which keeps no DACL set.
fn journal_is_private(path: &Path) {
    use std::os::windows::fs::OpenOptionsExt;
    if under_wine() {
        eprintln!("skipped under wine: a journal's DACL (wine 8.0 keeps no DACL set on a file)");
        return;
    }
    let file = fs::OpenOptions::new()
        .access_mode(0x0002_0000) // READ_CONTROL
        .open(path)
        .expect("opened for its DACL");
    let security = io_winsec::Security::of_file(&file).expect("its security");
    let me = io_winsec::current_user().expect("the running user");
    let dacl = security.dacl.expect("a DACL");
    assert_eq!(dacl.len(), 1, "{dacl:?}");
    assert_eq!(dacl[0].sid, me, "{dacl:?}");
}

/// The script of a run whose one tool call a `tool_call` hook holds up.
const SCRIPT: &str = "goal = \"a run Ctrl-C stops\"\n\n[[turn]]\nsay = \"writing\"\ncalls = [{ tool = \"write_file\", args = { path = \"a.txt\", content = \"hi\" } }]\n\n[[turn]]\nsay = \"again\"\ncalls = [{ tool = \"write_file\", args = { path = \"b.txt\", content = \"hi\" } }]\n\n[[turn]]\nsay = \"Done.\"\nanswer = \"ok\"\n";

/// Runs `io args…` in `env`'s root on a console of its own, with its
/// hooks run as the helper `role`, and sends it Ctrl-C once the file
/// `ready` is in the root (see `console::send_ctrl_c`). Returns what `io`
/// printed after `exit <code>`, or `None` when Ctrl-C could not be sent
/// (said on stderr).
fn ctrl_c(env: &Env, args: &str, role: &str, ready: &str) -> Option<String> {
    let mut sender = Command::new(std::env::current_exe().expect("this binary"));
    sender
        .args(["helper", "--exact", "--nocapture", "--test-threads=1"])
        .current_dir(env.root())
        .env(HELPER, "ctrl-c")
        .env("IO_WIN_IO_ARGS", args)
        .env("IO_WIN_HOOK", role)
        .env("IO_WIN_READY", ready)
        .env("IO_CONFIG_HOME", env.path("user"))
        .env("IO_DATA_HOME", env.path("data"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let sent = run(sender, "the Ctrl-C sender");
    let said_by_sender = said(&sent);
    let reported = fs::read_to_string(env.root().join("io.out")).unwrap_or_default();
    if let Some(why) = reported.strip_prefix("skipped: ") {
        eprintln!("skipped: {why}");
        return None;
    }
    assert!(sent.status.success(), "{said_by_sender}\n{reported}");
    Some(reported)
}

#[test]
fn ctrl_c_stops_a_run_in_flight_and_io_exits_130() {
    let env = helper_hook("tool_call", 60000);
    env.write("script.toml", SCRIPT);
    let Some(reported) = ctrl_c(&env, "run script.toml", "sleep", "hook.ready") else {
        return;
    };
    assert!(reported.starts_with("exit 130\n"), "{reported}");
    assert!(
        reported.contains("Ctrl-C: stopping run"),
        "the first Ctrl-C stops the run: {reported}"
    );
    assert!(reported.contains("interrupted"), "{reported}");
    // The second tool call never ran.
    assert!(!env.root().join("b.txt").exists(), "{reported}");
}

/// With no run in flight (a replay), Ctrl-C ends `io` at once, as a
/// second Ctrl-C does during a run: every child's job is terminated (the
/// hook and the grandchild it started), and `io` exits with 130.
#[test]
fn ctrl_c_with_no_run_in_flight_ends_io_and_every_child_at_once() {
    let env = started_replay();
    let Some(reported) = ctrl_c(&env, "replay events.jsonl", "parent", "ready") else {
        return;
    };
    assert!(reported.starts_with("exit 130\n"), "{reported}");
    let held = env.root().join("held");
    assert!(
        wait_until(Duration::from_secs(20), || fs::remove_file(&held).is_ok()),
        "the hook's grandchild outlived io: {reported}"
    );
}

#[test]
fn ctrl_break_ends_io_with_149() {
    if under_wine() {
        eprintln!(
            "skipped under wine: wine 8.0's GenerateConsoleCtrlEvent refuses CTRL_BREAK_EVENT \
             (ERROR_INVALID_HANDLE), so no Ctrl-Break can be sent"
        );
        return;
    }
    let env = started_replay();
    let mut io = env.io(&["replay", "events.jsonl"]);
    io.env(HELPER, "sleep");
    console::new_process_group(&mut io);
    let child = io.spawn().expect("io starts");
    let ready = env.root().join("hook.ready");
    assert!(
        wait_until(LIMIT, || ready.exists()),
        "the hook never started"
    );
    console::ctrl_break(child.id()).expect("Ctrl-Break sent");
    let out = output_within(child, LIMIT, "io after Ctrl-Break");
    assert_eq!(out.status.code(), Some(149), "{}", said(&out));
}

/// A closed console ends every child's job (the hook and the grandchild it
/// started) and `io`, with 129. Runs on a real Windows only: wine 8.0
/// raises no close event, and its consoles have no window to close.
#[test]
fn a_closed_console_ends_io_with_129_and_every_childs_job() {
    if under_wine() {
        eprintln!(
            "skipped under wine: wine 8.0 raises no CTRL_CLOSE_EVENT (its console server \
             answers every event but Ctrl-C as not implemented) and its consoles have no window"
        );
        return;
    }
    let env = started_replay();
    let mut io = env.io(&["replay", "events.jsonl"]);
    io.env(HELPER, "parent");
    console::new_console(&mut io);
    let child = io.spawn().expect("io starts");
    let ready = env.root().join("ready");
    assert!(
        wait_until(LIMIT, || ready.exists()),
        "the hook never started"
    );
    // Closed by a helper of its own: attaching to `io`'s console to find
    // its window leaves the console this process has.
    let mut closer = Command::new(std::env::current_exe().expect("this binary"));
    closer
        .args(["helper", "--exact", "--nocapture", "--test-threads=1"])
        .current_dir(env.root())
        .env(HELPER, "close-console")
        .env("IO_WIN_PID", child.id().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let closed = run(closer, "the console closer");
    assert!(closed.status.success(), "{}", said(&closed));
    let out = output_within(child, LIMIT, "io after its console closed");
    assert_eq!(out.status.code(), Some(129), "{}", said(&out));
    let held = env.root().join("held");
    assert!(
        wait_until(Duration::from_secs(20), || fs::remove_file(&held).is_ok()),
        "the hook's grandchild outlived io"
    );
}

/// The console calls a test needs (unsafe, here only: `io` has none).
mod console {
    use std::fs;
    use std::os::windows::process::CommandExt;
    use std::path::Path;
    use std::process::{Command, Stdio};
    use std::time::Duration;

    use windows_sys::Win32::System::Console::{
        AllocConsole, AttachConsole, CTRL_BREAK_EVENT, CTRL_C_EVENT, FreeConsole,
        GenerateConsoleCtrlEvent, GetConsoleWindow, SetConsoleCtrlHandler,
    };
    use windows_sys::Win32::UI::WindowsAndMessaging::{PostMessageW, WM_CLOSE};

    use super::{HELPER, LIMIT, output_within, wait_until};

    /// `CREATE_NEW_PROCESS_GROUP`.
    const NEW_PROCESS_GROUP: u32 = 0x0000_0200;
    /// `CREATE_NEW_CONSOLE`.
    const NEW_CONSOLE: u32 = 0x0000_0010;

    /// Starts `command` on a console of its own, with a window to close.
    pub(super) fn new_console(command: &mut Command) {
        command.creation_flags(NEW_CONSOLE);
    }

    /// The console closer, run as a helper: attaches to the console of the
    /// process `$IO_WIN_PID`, finds its window, leaves it, and closes the
    /// window as its close button does (`WM_CLOSE`), which sends every
    /// process on it `CTRL_CLOSE_EVENT`. Panics, failing the test, when a
    /// step fails.
    pub(super) fn close_console() {
        let pid: u32 = std::env::var("IO_WIN_PID")
            .expect("IO_WIN_PID")
            .parse()
            .expect("a process id");
        // SAFETY: none of the three calls takes a pointer; the window is a
        // handle compared with null before it is used.
        let window = unsafe {
            FreeConsole();
            let attached = AttachConsole(pid);
            let window = GetConsoleWindow();
            FreeConsole();
            assert!(
                attached != 0,
                "AttachConsole: {}",
                std::io::Error::last_os_error()
            );
            window
        };
        assert!(!window.is_null(), "io's console has no window");
        // SAFETY: `window` is a window handle from GetConsoleWindow;
        // WM_CLOSE's two parameters are zero, no pointer.
        let posted = unsafe { PostMessageW(window, WM_CLOSE, 0, 0) };
        assert!(
            posted != 0,
            "PostMessageW: {}",
            std::io::Error::last_os_error()
        );
    }

    /// Starts `command` in a process group of its own, which a
    /// Ctrl-Break can be sent to.
    pub(super) fn new_process_group(command: &mut Command) {
        command.creation_flags(NEW_PROCESS_GROUP);
    }

    /// Sends Ctrl-Break to the process group `group`.
    pub(super) fn ctrl_break(group: u32) -> std::io::Result<()> {
        // SAFETY: no pointer is passed; the call reads two integers.
        match unsafe { GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, group) } {
            0 => Err(std::io::Error::last_os_error()),
            _ => Ok(()),
        }
    }

    /// The Ctrl-C sender, run as a helper in the run's root: it leaves the
    /// test's console for one of its own (so that no other test's process
    /// gets the event), starts `io $IO_WIN_IO_ARGS` on it with its hooks
    /// run as the helper `$IO_WIN_HOOK`, waits for the file
    /// `$IO_WIN_READY` (the hook has started), ignores Ctrl-C itself and
    /// sends it to every process on its console (a hook, in a process
    /// group of its own, ignores it), and writes `exit <code>` and what
    /// `io` printed to `io.out`.
    pub(super) fn send_ctrl_c() {
        // SAFETY: neither call takes a pointer; a failure is reported.
        let made = unsafe {
            FreeConsole();
            AllocConsole()
        };
        if made == 0 {
            let why = std::io::Error::last_os_error();
            fs::write("io.out", format!("skipped: no console of its own ({why})")).unwrap();
            return;
        }
        let var = |name| std::env::var(name).expect(name);
        let ready = var("IO_WIN_READY");
        let mut child = Command::new(env!("CARGO_BIN_EXE_io"))
            .args(var("IO_WIN_IO_ARGS").split(' '))
            .env(HELPER, var("IO_WIN_HOOK"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("io starts");
        let started = wait_until(LIMIT, || Path::new(&ready).exists());
        // SAFETY: a null handler with TRUE makes this process ignore
        // Ctrl-C (`io`, started before, handles it); the event call takes
        // no pointer.
        let sent = unsafe {
            SetConsoleCtrlHandler(None, 1);
            GenerateConsoleCtrlEvent(CTRL_C_EVENT, 0)
        };
        if !started || sent == 0 {
            let why = std::io::Error::last_os_error();
            let _ = child.kill();
            let _ = child.wait();
            assert!(started, "the hook never started");
            fs::write("io.out", format!("skipped: Ctrl-C not sent ({why})")).unwrap();
            return;
        }
        let out = output_within(child, LIMIT + Duration::from_secs(5), "io after Ctrl-C");
        let text = format!(
            "exit {}\n{}{}",
            out.status
                .code()
                .map_or("none".to_owned(), |c| c.to_string()),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        fs::write("io.out", text).unwrap();
    }
}
