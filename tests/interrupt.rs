//! Issue 45, deliverable 2, through the `io` program: an interrupt
//! (Ctrl-C, `SIGTERM`) ends a run before any further tool call. What was
//! committed is journaled; every event of a committed step reaches the
//! hooks that want it, or the resume delivers it, exactly once; a hook
//! on `finished` gets it with `outcome = "interrupted"`; the last line says
//! where to resume, with the run's profile, as `io runs` does.
//!
//! Before, a signal while a blocking hook ran killed the hook and let the
//! run go on while `io` got round to exiting: in 12 of 19 tries the next
//! step's tool still ran, was journaled, and its `step` event reached no
//! hook. Each test here has the hook signal `io` itself, and holds what
//! `io` writes on stderr (a pipe already full when it starts), where the
//! signal thread used to print its line before it exited: the run that
//! went on then always went on, so the race is lost the same way every
//! time rather than 12 times in 19.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

use common::{IoEnv, KillOnDrop, output_within, read_pid, wait_until, within};
use serde_json::Value;

/// Far above anything here takes, far below a hang.
const LIMIT: Duration = Duration::from_secs(60);

/// Two steps that each write a file (the first through `exec`, which
/// appends a line to `ran.txt`, so that a test can count the times it
/// ran), then the answer.
const SCRIPT: &str = "goal = \"write two files\"\n\
    [[turn]]\ncalls = [{ tool = \"exec\", args = { argv = [\"/bin/sh\", \"-c\", \"echo ran >> ran.txt\"] } }]\n\
    [[turn]]\ncalls = [{ tool = \"write_file\", args = { path = \"two.txt\", content = \"2\" } }]\n\
    [[turn]]\nanswer = \"done\"\n";

/// Profile `ci`'s hooks: an audit of every event; on `on`, a blocking
/// hook that, the first time only, notes its parent's pid, sends it
/// `signal` and sleeps; and one that keeps each `finished` it is given
/// (its pid in `finished.pid`, and then `finished_body`).
fn config(on: &str, signal: &str, finished_body: &str) -> String {
    format!(
        "[[profile.ci.hook]]\nappend = \"audit.jsonl\"\n\n\
         [[profile.ci.hook]]\non = [\"{on}\"]\n\
         run = [\"/bin/sh\", \"-c\", \"[ -e ppid ] && exit 0; echo $PPID > ppid; \
         kill -{signal} $PPID; exec sleep 60\"]\ntimeout_ms = 120000\n\n\
         [[profile.ci.hook]]\non = [\"finished\"]\n\
         run = [\"/bin/sh\", \"-c\", \"echo $$ > finished.pid; cat >> finished.jsonl; \
         {finished_body}\"]\ntimeout_ms = 120000\n"
    )
}

/// The workspace: the config with `hooks`, and the script.
fn env(hooks: &str) -> IoEnv {
    let env = IoEnv::new();
    env.write("io.local.toml", hooks);
    env.write("script.toml", SCRIPT);
    env
}

/// `io args` in `env`'s root, every signal that ends `io` at its
/// default, `HOME` in the temp dir.
fn command(env: &IoEnv, args: &[&str]) -> std::process::Command {
    let mut command = env.command(args);
    common::with_ending_signals_at_default(&mut command).env("HOME", env.dir());
    command
}

/// `io args` started with stderr a pipe that is full already: nothing it
/// writes there gets through until [`Held::finish`] reads it.
struct Held {
    child: Child,
    _kill: KillOnDrop,
    stderr: std::io::PipeReader,
    /// How many bytes the pipe held before `io` started.
    filled: usize,
}

fn start_held(env: &IoEnv, args: &[&str]) -> Held {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    let filled = fill(&writer);
    let child = command(env, args)
        .stderr(Stdio::from(writer))
        .spawn()
        .expect("io runs");
    let kill = KillOnDrop(vec![child.id() as i32]);
    Held {
        child,
        _kill: kill,
        stderr: reader,
        filled,
    }
}

/// Fills the pipe `writer` writes to, and leaves it blocking, as `io`
/// will find it; how many bytes it took.
fn fill(writer: &std::io::PipeWriter) -> usize {
    use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
    let flags = fcntl_getfl(writer).expect("F_GETFL");
    fcntl_setfl(writer, flags | OFlags::NONBLOCK).expect("O_NONBLOCK");
    let chunk = [b'.'; 4096];
    let mut filled = 0;
    let mut writer = writer;
    loop {
        match writer.write(&chunk) {
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(e) => panic!("filling the pipe: {e}"),
        }
    }
    fcntl_setfl(writer, flags).expect("blocking again");
    filled
}

impl Held {
    /// Once the audit in `root` has a `finished`, reads stderr and waits
    /// for `io`: its exit code, stdout, and stderr after the filler.
    fn finish(self, root: &Path) -> (Option<i32>, String, String) {
        let finished = wait_until(LIMIT, || {
            audit(root)
                .iter()
                .any(|e| e["event"] == "finished" && e["depth"] == 0)
        });
        assert!(finished, "no `finished` reached the audit hook");
        let Held {
            child,
            _kill,
            mut stderr,
            filled,
        } = self;
        let reading: JoinHandle<Vec<u8>> = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            stderr.read_to_end(&mut bytes).expect("io's stderr");
            bytes
        });
        let out = output_within(child, LIMIT, "io, signalled");
        let bytes = within(LIMIT, "io's stderr", move || reading.join().expect("read"));
        let stderr = String::from_utf8_lossy(&bytes[filled..]).into_owned();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr,
        )
    }
}

/// The events the audit hook wrote in `root`, in order.
fn audit(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join("audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Each event of `events` as `tag` or `tag:step`.
fn tags(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e["step"].as_u64() {
            Some(step) => format!("{}:{step}", e["event"].as_str().unwrap_or("?")),
            None => e["event"].as_str().unwrap_or("?").to_owned(),
        })
        .collect()
}

/// The run id in the last line of stdout that begins `run `.
fn run_id(stdout: &str) -> String {
    let line = stdout
        .lines()
        .rfind(|l| l.starts_with("run "))
        .unwrap_or_else(|| panic!("no run line in:\n{stdout}"));
    line.split(' ').nth(1).expect("an id").to_owned()
}

/// The `finished` events the `finished` hook was given, as `outcome:steps`.
fn finished_given(root: &Path) -> Vec<String> {
    std::fs::read_to_string(root.join("finished.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let e: Value = serde_json::from_str(l).expect("a line");
            format!("{}:{}", e["outcome"].as_str().unwrap_or("?"), e["steps"])
        })
        .collect()
}

/// The journal's records, without their MACs.
fn journal(root: &Path, id: &str) -> Vec<Value> {
    std::fs::read_to_string(root.join(format!(".io/runs/{id}.jsonl")))
        .expect("the journal")
        .lines()
        .map(|l| {
            let mut record: Value = serde_json::from_str(l).expect("a record");
            record.as_object_mut().expect("an object").remove("mac");
            record
        })
        .collect()
}

/// `SIGTERM` while the first step's blocking `step` hook runs (the hook
/// sends it to `io`, its parent): the run ends at that step's boundary,
/// the next step's tool does not run, and `finished` reaches its hook as
/// `interrupted`; the last line resumes with the profile, and so does `io
/// runs`' command; a resume without the profile is refused; the resume
/// runs the second step once, and each `step` event reaches the hooks
/// once across both.
#[test]
fn a_signal_during_a_step_hook_ends_the_run_before_the_next_tool_and_the_resume_runs_it_once() {
    let env = env(&config("step", "TERM", ""));
    let root = env.root();
    let held = start_held(&env, &["-q", "run", "script.toml", "--profile", "ci"]);
    let io_pid = held.child.id() as i32;
    let (code, stdout, stderr) = held.finish(&root);
    assert_eq!(
        read_pid(&root.join("ppid")),
        Some(io_pid),
        "the hook signalled io"
    );
    assert_eq!(code, Some(143), "{stdout}\n{stderr}");
    assert!(!root.join("two.txt").exists(), "the next step's tool ran");
    assert_eq!(
        tags(&audit(&root)),
        [
            "started",
            "spend_draw:1",
            "tool_call:1",
            "approval_requested:1",
            "approval_decided:1",
            "sandbox:1",
            "step:1",
            "finished"
        ]
    );
    assert_eq!(finished_given(&root), ["interrupted:1"]);
    let id = run_id(&stdout);
    let resume = format!(
        "io run --resume {id} --root {} --profile ci",
        root.display()
    );
    assert!(
        stdout.contains(&format!(
            "run {id} interrupted after 1 step\n  resume with: {resume}\n"
        )),
        "{stdout}"
    );
    assert_eq!(
        stderr.lines().last(),
        Some(format!("io: run {id} interrupted; resume it with: {resume}").as_str()),
        "{stderr}"
    );
    let records = journal(&root, &id);
    assert_eq!(records[0]["begin"]["profile"], "ci", "{records:?}");
    assert_eq!(
        records.iter().filter(|r| r.get("step").is_some()).count(),
        1
    );
    let end = &records.last().expect("a record")["end"];
    assert_eq!(
        (&end["outcome"], &end["steps"]),
        (&"interrupted".into(), &1.into())
    );

    listed_refused_then_resumed(&env, &id, &resume);
}

/// After the run of the test above: `io runs` lists it with `resume`, a
/// resume without its profile is refused and runs no hook, and the resume
/// with it runs the second step once, each `step` given once in all.
fn listed_refused_then_resumed(env: &IoEnv, id: &str, resume: &str) {
    let root = env.root();
    // `io runs` says so, with the command that resumes it under `ci`.
    let listed = env.io(&["runs"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("interrupted after 1 step: write two files"),
        "{listed}"
    );
    assert!(listed.contains(&format!("resume: {resume}\n")), "{listed}");

    // Without the profile the run would go on unchecked: refused.
    let refused = env.io(&["run", "--resume", id]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains(&format!(
            "run `{id}` began with `--profile ci`, and this resume gives no `--profile`"
        )),
        "{refused:?}"
    );
    assert_eq!(
        finished_given(&root),
        ["interrupted:1"],
        "the refusal ran hooks"
    );

    let resumed = env.io(&["run", "--resume", id, "--profile", "ci"]);
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert_eq!(std::fs::read_to_string(root.join("two.txt")).unwrap(), "2");
    assert_eq!(
        std::fs::read_to_string(root.join("ran.txt")).unwrap(),
        "ran\n"
    );
    let steps: Vec<String> = tags(&audit(&root))
        .into_iter()
        .filter(|t| t.starts_with("step:") || t.starts_with("tool_call:"))
        .collect();
    assert_eq!(
        steps,
        ["tool_call:1", "step:1", "tool_call:2", "step:2", "step:3"]
    );
    assert_eq!(finished_given(&root), ["interrupted:1", "completed:3"]);
}

/// `SIGINT` (Ctrl-C) while the first call's blocking `tool_call` hook
/// runs: the tool does not run and the step is not committed (no `step`
/// record, `finished` after 0 steps); the resume does the step again,
/// and its command runs once in all.
#[test]
fn a_signal_during_a_tool_call_hook_ends_the_run_before_that_tool() {
    let env = env(&config("tool_call", "INT", ""));
    let root = env.root();
    let held = start_held(&env, &["-q", "run", "script.toml", "--profile", "ci"]);
    let (code, stdout, stderr) = held.finish(&root);
    assert_eq!(code, Some(130), "{stdout}\n{stderr}");
    assert!(!root.join("ran.txt").exists(), "the tool ran");
    assert_eq!(
        tags(&audit(&root)),
        ["started", "spend_draw:1", "tool_call:1", "finished"]
    );
    assert_eq!(finished_given(&root), ["interrupted:0"]);
    let id = run_id(&stdout);
    assert!(
        stderr.ends_with(&format!(
            "io: run {id} interrupted; resume it with: io run --resume {id} --root {} --profile ci\n",
            root.display()
        )),
        "{stderr}"
    );
    let records = journal(&root, &id);
    assert!(
        records.iter().all(|r| r.get("step").is_none()),
        "{records:?}"
    );

    let resumed = env.io(&["run", "--resume", &id, "--profile", "ci"]);
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert_eq!(
        std::fs::read_to_string(root.join("ran.txt")).unwrap(),
        "ran\n"
    );
    assert!(root.join("two.txt").exists());
    assert_eq!(finished_given(&root), ["interrupted:0", "completed:3"]);
}

/// A second signal, while the interrupted run's `finished` hook runs,
/// ends `io` at once: the hook's process group is killed, and the last
/// line still says where to resume.
#[test]
fn a_second_signal_ends_io_at_once() {
    let env = env(&config("step", "TERM", "exec sleep 60"));
    let root = env.root();
    let child = command(&env, &["run", "script.toml", "--profile", "ci"])
        .spawn()
        .expect("io runs");
    let io_pid = rustix::process::Pid::from_child(&child);
    let hook = read_pid(&root.join("finished.pid")).expect("the finished hook started");
    let _kill = KillOnDrop(vec![hook]);
    rustix::process::kill_process(io_pid, rustix::process::Signal::TERM).expect("kill");
    let out = output_within(child, Duration::from_secs(20), "io, signalled twice");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(
        wait_until(Duration::from_secs(10), || !common::alive(hook)),
        "the finished hook outlived io"
    );
    // Said once: by the signal that ends io, not again by the run's end
    // that the kill let go on.
    assert_eq!(
        stderr.matches(" interrupted; resume it with: ").count(),
        1,
        "{stderr}"
    );
    let last = stderr.lines().last().unwrap_or_default();
    let id = last
        .strip_prefix("io: run ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(
        last,
        format!(
            "io: run {id} interrupted; resume it with: io run --resume {id} --root {} --profile ci",
            root.display()
        )
    );
    assert!(!root.join("two.txt").exists());
}

/// A signal while the `finished` hook of a run a hook cancelled runs: the
/// run's end is journaled, so the signal ends `io` at once, and its last
/// line says how the run ended, `cancelled`, not `interrupted`, and how to
/// resume it.
#[test]
fn a_signal_after_a_cancelled_runs_end_says_cancelled_and_how_to_resume() {
    let env = env("[[hook]]\nappend = \"audit.jsonl\"\n\n\
         [[hook]]\non = [\"tool_call\"]\nrun = [\"false\"]\non_failure = \"cancel\"\n\n\
         [[hook]]\non = [\"finished\"]\ntimeout_ms = 120000\n\
         run = [\"/bin/sh\", \"-c\", \"echo $$ > finished.pid; exec sleep 60\"]\n");
    let root = env.root();
    let child = command(&env, &["run", "script.toml"])
        .spawn()
        .expect("io runs");
    let io_pid = rustix::process::Pid::from_child(&child);
    let hook = read_pid(&root.join("finished.pid")).expect("the finished hook started");
    let _kill = KillOnDrop(vec![hook]);
    rustix::process::kill_process(io_pid, rustix::process::Signal::TERM).expect("kill");
    let out = output_within(child, Duration::from_secs(20), "io, signalled");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    let finished: Vec<Value> = audit(&root)
        .into_iter()
        .filter(|e| e["event"] == "finished")
        .collect();
    assert_eq!(finished.len(), 1, "{finished:?}");
    assert_eq!(finished[0]["outcome"], "cancelled");
    let id = finished[0]["run_id"].as_str().expect("an id");
    assert_eq!(
        stderr.lines().last(),
        Some(
            format!(
                "io: run {id} cancelled; resume it with: io run --resume {id} --root {}",
                root.display()
            )
            .as_str()
        ),
        "{stderr}"
    );
}
