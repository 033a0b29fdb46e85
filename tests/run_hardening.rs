//! The run loop's own writes, met through `io run` as a user meets them: a
//! hostile clone's symbolic links cannot carry a tool's write, `.io`'s notes
//! or the journal out of the workspace; `.io` is private; and a resume after
//! a SIGKILL or a torn journal record neither reuses a `(run_id, seq)` nor
//! refuses to go on.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;
mod run_support;

use std::collections::BTreeMap;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::time::Duration;

use common::{alive, read_pid, wait_until};
use run_support::{run_id_in, text};

/// [`run_support::Env`] (an empty user scope, a workspace root and a
/// directory outside it, `io` run in the root) with a secret outside.
struct Env(run_support::Env);

impl std::ops::Deref for Env {
    type Target = run_support::Env;
    fn deref(&self) -> &run_support::Env {
        &self.0
    }
}

impl Env {
    fn new() -> Self {
        let env = run_support::Env::new();
        std::fs::write(env.outside().join("secret"), "the user's key").expect("secret");
        Env(env)
    }

    /// What is in the outside directory, by name.
    fn outside_now(&self) -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(self.outside())
            .expect("outside")
            .map(|e| {
                let e = e.expect("entry");
                let bytes = std::fs::read(e.path()).unwrap_or_default();
                (e.file_name().to_string_lossy().into_owned(), bytes)
            })
            .collect()
    }

    /// The records of run `run_id`'s journal, as JSON.
    fn journal(&self, run_id: &str) -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(self.journal_path(run_id)).expect("the journal");
        text.lines()
            .map(|l| serde_json::from_str(l).expect("every journal line is a whole record"))
            .collect()
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

// ---- the run loop's own writes stay under the root ----

#[test]
fn a_clones_links_out_of_the_workspace_are_refused_as_tool_errors_and_the_run_goes_on() {
    let env = Env::new();
    let outside = env.outside();
    // What a hostile clone commits: links to a directory and a file outside.
    symlink(&outside, env.root().join("src")).expect("src ->");
    symlink(outside.join("secret"), env.root().join("notes")).expect("notes ->");
    std::fs::create_dir(env.root().join(".io")).expect(".io");
    symlink(&outside, env.root().join(".io/memory")).expect(".io/memory ->");
    symlink(outside.join("todo.md"), env.root().join(".io/todo.md")).expect(".io/todo.md ->");
    let before = env.outside_now();
    let script = env.write(
        "script.toml",
        r#"
goal = "escape"
[[turn]]
calls = [
  { tool = "write_file", args = { path = "src/authorized_keys", content = "pwned" } },
  { tool = "edit_file", args = { path = "src/secret", old = "key", new = "pwned" } },
  { tool = "read_file", args = { path = "notes" } },
  { tool = "write_file", args = { path = "src/../../outside/dotdot", content = "pwned" } },
  { tool = "memory_write", args = { key = "k", value = "pwned" } },
  { tool = "todo_write", args = { items = ["pwned"] } },
  { tool = "write_file", args = { path = "inside.txt", content = "fine" } },
]
answer = "done"
"#,
    );
    let out = env.io(&["run", script.to_str().expect("utf-8")]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the run goes on: {}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_eq!(env.outside_now(), before, "nothing outside was written");
    assert_eq!(
        std::fs::read_to_string(env.root().join("inside.txt")).expect("inside"),
        "fine"
    );
    let run_id = run_id_in(&out);
    let journal = env.journal(&run_id);
    let step = journal
        .iter()
        .find_map(|r| r.get("step"))
        .expect("a step record");
    let seen = step["observation"].as_str().expect("observation");
    for (op, rel) in [
        ("write", "src/authorized_keys"),
        ("edit", "src/secret"),
        ("read", "notes"),
        ("memory_write", ".io/memory/k.md"),
        ("todo_write", ".io/todo.md"),
    ] {
        let refusal = format!("{op} {rel}: refused: `{rel}` leads outside the workspace");
        assert!(seen.contains(&refusal), "`{refusal}` in:\n{seen}");
    }
    assert!(
        seen.contains(
            "`src/../../outside/dotdot` is not a path inside the workspace (relative, without `..`)"
        ),
        "{seen}"
    );
    assert!(!seen.contains("the user's key"), "{seen}");
    assert!(seen.contains("[wrote inside.txt]"), "{seen}");
}

#[test]
fn a_dot_io_link_out_of_the_workspace_stops_the_run_before_it_writes_its_journal_there() {
    let env = Env::new();
    symlink(env.outside(), env.root().join(".io")).expect(".io ->");
    let before = env.outside_now();
    let script = env.write(
        "script.toml",
        "goal = \"g\"\n[[turn]]\nsay = \"hi\"\nanswer = \"done\"\n",
    );
    let out = env.io(&["run", script.to_str().expect("utf-8")]);
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}\n{stderr}",
        text(&out.stdout)
    );
    assert!(
        stderr.contains("the journal's path leads outside the workspace through a symbolic link"),
        "{stderr}"
    );
    assert!(
        stderr.contains(".io/runs/r-"),
        "names the journal: {stderr}"
    );
    assert_eq!(env.outside_now(), before, "no journal landed outside");
}

#[test]
fn dot_io_its_notes_and_the_journal_are_private_to_their_owner() {
    let env = Env::new();
    let script = env.write(
        "script.toml",
        r#"
goal = "the goal is private"
[[turn]]
calls = [
  { tool = "memory_write", args = { key = "k", value = "v" } },
  { tool = "todo_write", args = { items = ["a"] } },
]
answer = "done"
"#,
    );
    let out = env.io(&["run", script.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let run_id = run_id_in(&out);
    let root = env.root();
    let modes = [
        mode(&root.join(".io")),
        mode(&root.join(".io/runs")),
        mode(&env.journal_path(&run_id)),
        mode(&root.join(".io/memory")),
        mode(&root.join(".io/memory/k.md")),
        mode(&root.join(".io/todo.md")),
    ];
    assert_eq!(modes, [0o700, 0o700, 0o600, 0o700, 0o600, 0o600]);
}

// ---- resume ----

/// Three steps: a file each, then the answer.
const THREE_STEPS: &str = r#"
goal = "three files"
[[turn]]
say = "writing the first file now"
calls = [{ tool = "write_file", args = { path = "a.txt", content = "a" } }]
[[turn]]
say = "and the second one after it"
calls = [{ tool = "write_file", args = { path = "b.txt", content = "b" } }]
[[turn]]
say = "last"
calls = [{ tool = "write_file", args = { path = "c.txt", content = "c" } }]
answer = "done"
"#;

/// Every line of a JSON-lines audit log, keyed by `(run_id, seq)`; panics
/// when two different lines share a key.
fn lines_by_run_and_seq(path: &Path) -> BTreeMap<(String, u64), String> {
    let mut seen: BTreeMap<(String, u64), String> = BTreeMap::new();
    for line in std::fs::read_to_string(path)
        .expect("the audit log")
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let key = (
            v["run_id"].as_str().expect("run_id").to_owned(),
            v["seq"].as_u64().expect("seq"),
        );
        if let Some(earlier) = seen.get(&key) {
            assert_eq!(earlier, line, "two different events share {key:?}");
        }
        seen.insert(key, line.to_owned());
    }
    seen
}

#[test]
fn a_resume_after_a_sigkill_between_a_steps_events_and_its_commit_reuses_no_seq() {
    let env = Env::new();
    let root = env.root();
    let release = common::fifo(&root.join("gate.fifo"), true);
    // Holds the first run at step 2's tool_call, after its events were
    // appended and before the step is committed: says so by writing its
    // pid, then blocks on the FIFO. Run as `/bin/sh gate.sh`.
    env.write(
        "gate.sh",
        "read -r line\n\
         case \"$line\" in *'\"step\":2'*) ;; *) exit 0 ;; esac\n\
         [ -e gate.pid ] && exit 0\n\
         echo $$ > gate.pid\n\
         read -r _ < gate.fifo\n",
    );
    env.write(
        "io.local.toml",
        "[[hook]]\nappend = \"audit.jsonl\"\n\n\
         [[hook]]\non = [\"tool_call\"]\nrun = [\"/bin/sh\", \"./gate.sh\"]\ntimeout_ms = 120000\n",
    );
    let script = env.write("script.toml", THREE_STEPS);
    let mut io = env
        .command(&["run", script.to_str().expect("utf-8")])
        .process_group(0)
        .spawn()
        .expect("io runs");
    let gate = read_pid(&root.join("gate.pid"));
    let killed = rustix::process::kill_process(
        rustix::process::Pid::from_child(&io),
        rustix::process::Signal::KILL,
    );
    let status = io.wait().expect("wait for io");
    let gate = gate.expect("the gate hook held step 2");
    killed.expect("SIGKILL io");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "io was killed, not finished"
    );
    drop(release);
    // The gate is released: it exits, and nothing is left running.
    assert!(
        wait_until(Duration::from_secs(10), || !alive(gate)),
        "the gate hook ended"
    );

    let audit = root.join("audit.jsonl");
    let first = lines_by_run_and_seq(&audit);
    let (run_id, _) = first.keys().next().cloned().expect("events were appended");
    let step_2_seen = first
        .values()
        .any(|l| l.contains("\"tool_call\"") && l.contains("\"step\":2"));
    assert!(step_2_seen, "step 2's events were appended before the kill");
    let committed = env
        .journal(&run_id)
        .iter()
        .filter(|r| r.get("step").is_some())
        .count();
    assert_eq!(committed, 1, "step 2 was not committed");

    resumes_to_completion(&env, &run_id);
    let after = lines_by_run_and_seq(&audit);
    assert!(
        after.len() > first.len(),
        "the resume appended events of its own"
    );
}

/// A run cancelled after its first step by a hook that fails once: its
/// journal ends `Begin`, `Reserve`, `Step`, `End`, and a resume completes it.
fn cancelled_after_one_step(env: &Env) -> String {
    let run_id = run_support::cancelled_run_of(env, "", THREE_STEPS);
    let records = env.journal(&run_id);
    assert!(records.last().is_some_and(|r| r.get("end").is_some()));
    run_id
}

/// `io run --resume run_id` completes the three steps, and the journal's
/// every line is a whole record.
fn resumes_to_completion(env: &Env, run_id: &str) {
    let out = env.io(&["run", "--resume", run_id]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains(&format!("run {run_id} completed after 3 steps: done")),
        "{}",
        text(&out.stdout)
    );
    // A torn tail was cut off: every line of the journal is whole.
    let records = env.journal(run_id);
    assert_eq!(
        records.iter().filter(|r| r.get("step").is_some()).count(),
        3
    );
}

#[test]
fn a_journal_cut_off_mid_record_resumes_from_its_last_whole_record() {
    let env = Env::new();
    let run_id = cancelled_after_one_step(&env);
    let path = env.journal_path(&run_id);
    let bytes = std::fs::read(&path).expect("journal");
    // Cut the `End` record in half, newline and all.
    let end_starts = bytes[..bytes.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .expect("more than one record")
        + 1;
    let cut = end_starts + (bytes.len() - end_starts) / 2;
    std::fs::write(&path, &bytes[..cut]).expect("truncate");
    resumes_to_completion(&env, &run_id);
}

#[test]
fn garbage_after_the_last_record_without_a_newline_is_dropped_on_resume() {
    let env = Env::new();
    let run_id = cancelled_after_one_step(&env);
    let path = env.journal_path(&run_id);
    let mut bytes = std::fs::read(&path).expect("journal");
    bytes.extend_from_slice(b"{\"step\":{\"step\":2,\"observ\xff\x00garbage");
    std::fs::write(&path, &bytes).expect("append garbage");
    resumes_to_completion(&env, &run_id);
}

/// A bad line before the last is not a crash's doing: refused, naming its
/// line. Its bytes are not what `io` sealed there, so the MAC check
/// (issue 44) names it before any parse ("is not a whole record" is said
/// of a line a store without a key reads, `error_chains.rs`).
#[test]
fn a_bad_record_before_the_last_is_corruption_and_refused_with_its_line() {
    let env = Env::new();
    let run_id = cancelled_after_one_step(&env);
    let path = env.journal_path(&run_id);
    let text_before = std::fs::read_to_string(&path).expect("journal");
    let mut lines: Vec<&str> = text_before.lines().collect();
    lines[1] = "{\"reserve\":{\"next_se";
    std::fs::write(&path, lines.join("\n") + "\n").expect("corrupt");
    let out = env.io(&["run", "--resume", &run_id]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: refused: line 2 carries no MAC, though the lines before it verify",
            path.display()
        )),
        "{stderr}"
    );
}
