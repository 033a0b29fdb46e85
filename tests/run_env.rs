//! A `run` hook's environment through `io` (issue 46, deliverable 5):
//! `IO_ROOT` (the discovery root, absolute even from a relative `--root`),
//! `IO_EVENT` (the tag), `IO_RUN_ID` (the run `io run` started or resumes,
//! as its journal and `io runs` name it; removed under `io replay`) and
//! `IO_HOOK` (the hook's name, else its key path as written), each
//! replacing whatever io itself was given.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;
mod run_support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use common::io_env::{code, stderr, stdout};
use common::{IoEnv, output_within};
use run_support::run_id_in;

/// A `/bin/sh` script that appends one line per event to `out`: the four
/// variables, `unset` for one the hook was not given; then fails when its
/// first argument is `fail`.
fn recorder(dir: &Path, out: &Path) -> PathBuf {
    let path = dir.join("record-env");
    let body = format!(
        "printf '%s|%s|%s|%s\\n' \"${{IO_ROOT-unset}}\" \"${{IO_EVENT-unset}}\" \
         \"${{IO_RUN_ID-unset}}\" \"${{IO_HOOK-unset}}\" >> '{}'\n[ \"$1\" != fail ]\n",
        out.display()
    );
    std::fs::write(&path, body).expect("write the recorder");
    path
}

/// Two hooks running the recorder: `policy`, named, on `tool_call`
/// (refusing it when `refuse`), and an unnamed one on `finished`. The
/// recorder is run as `/bin/sh FILE`, so the file itself is never executed.
fn hooks(recorder: &Path, refuse: bool) -> String {
    let script = recorder.display();
    let verdict = if refuse { "fail" } else { "pass" };
    format!(
        "[[hook]]\nname = \"policy\"\non = [\"tool_call\"]\n\
         run = [\"/bin/sh\", \"{script}\", \"{verdict}\"]\non_failure = \"cancel\"\n\n\
         [[hook]]\non = [\"finished\"]\nrun = [\"/bin/sh\", \"{script}\"]\n"
    )
}

/// `io args…` from the temp dir (so `--root root` is relative), with an
/// `IO_ROOT`, `IO_RUN_ID` and `IO_HOOK` of its own, as a hook of an outer
/// run would have given it.
fn io_from_outside(env: &IoEnv, args: &[&str]) -> Output {
    let mut command = env.command(args);
    command
        .current_dir(env.dir())
        .env("IO_ROOT", "/an/outer/root")
        .env("IO_RUN_ID", "r-000000outer")
        .env("IO_HOOK", "outer");
    let child = command.spawn().expect("io runs");
    output_within(child, Duration::from_secs(120), &format!("io {args:?}"))
}

fn lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("the recorder wrote");
    text.lines().map(str::to_owned).collect()
}

#[test]
fn a_run_hook_is_told_the_root_the_event_the_run_and_its_own_name() {
    let env = IoEnv::new();
    let out_file = env.dir().join("env.txt");
    let recorder = recorder(env.dir(), &out_file);
    env.write("io.local.toml", &hooks(&recorder, true));
    env.write(
        "script.toml",
        "goal = \"write a file\"\n[[turn]]\ncalls = [{ tool = \"write_file\", args = { path = \"a.txt\", content = \"a\" } }]\n[[turn]]\nanswer = \"done\"\n",
    );
    let out = io_from_outside(&env, &["run", "root/script.toml", "--root", "root"]);
    assert_eq!(code(&out), 3, "{}{}", stdout(&out), stderr(&out));
    let run_id = run_id_in(&out);
    let root = env.root();
    assert!(root.is_absolute());
    let root = root.display();
    assert_eq!(
        lines(&out_file),
        [
            format!("{root}|tool_call|{run_id}|policy"),
            format!("{root}|finished|{run_id}|hook[2]"),
        ]
    );
    // The id is the run's own: its journal's, and the one `io runs` lists.
    assert!(
        env.root()
            .join(format!(".io/runs/{run_id}.jsonl"))
            .is_file()
    );
    let runs = env.io(&["runs"]);
    assert!(
        stdout(&runs).contains(&format!("  {run_id}  ")),
        "{}",
        stdout(&runs)
    );

    // A resume is the same run, with the same id.
    std::fs::remove_file(&out_file).expect("remove");
    env.write("io.local.toml", &hooks(&recorder, false));
    let out = io_from_outside(&env, &["run", "--resume", &run_id, "--root", "root"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(
        lines(&out_file),
        [format!("{root}|finished|{run_id}|hook[2]")]
    );
}

/// `io replay` is no run: its hooks get no `IO_RUN_ID`, not even the one
/// io itself was given (each event's own `run_id` is in its line on
/// stdin); the other three are as in a run.
#[test]
fn a_replay_gives_no_run_id_and_removes_the_one_io_was_given() {
    let env = IoEnv::new();
    let out_file = env.dir().join("env.txt");
    let recorder = recorder(env.dir(), &out_file);
    env.write("io.local.toml", &hooks(&recorder, false));
    env.write(
        "events.jsonl",
        concat!(
            "{\"event\":\"tool_call\",\"step\":1,\"tool\":\"exec\",\"args\":{},\"run_id\":\"r-0000000000aa\",\"depth\":0,\"seq\":1}\n",
            "{\"event\":\"finished\",\"outcome\":\"completed\",\"steps\":1,\"run_id\":\"r-0000000000aa\",\"depth\":0,\"seq\":2}\n",
        ),
    );
    let out = io_from_outside(&env, &["replay", "root/events.jsonl", "--root", "root"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let root = env.root();
    let root = root.display();
    assert_eq!(
        lines(&out_file),
        [
            format!("{root}|tool_call|unset|policy"),
            format!("{root}|finished|unset|hook[2]"),
        ]
    );
}
