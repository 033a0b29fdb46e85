//! The `io` program, run as an operator runs it: every command and exit code,
//! in temporary directories, with an empty user scope.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::output_within;

use io_harness::{EventKind, HookEvents};

/// A temp dir holding an empty user scope and a discovery root.
struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("user")).expect("user scope");
        std::fs::create_dir(dir.path().join("root")).expect("root");
        // The operator's checkout, in which `io.local.toml` is untracked.
        common::work_tree(&dir.path().join("root"));
        Env { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.root().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("parent");
        }
        std::fs::write(&path, text).expect("write");
        path
    }

    fn io(&self, args: &[&str]) -> Output {
        self.io_with_stdin(args, None)
    }

    /// `io` with `args`, in the root, with the empty user scope.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
        command
            .args(args)
            .current_dir(self.root())
            .env("IO_CONFIG_HOME", self.dir.path().join("user"))
            .env("IO_DATA_HOME", self.dir.path().join("data"));
        command
    }

    /// `io replay - --json` on `examples/events.jsonl`, which must exit 0.
    fn replay_examples_json(&self) -> Output {
        let out = self.io_with_stdin(
            &["replay", "-", "--json"],
            Some(example_events().as_bytes()),
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        out
    }

    fn io_with_stdin(&self, args: &[&str], stdin: Option<&[u8]>) -> Output {
        let mut child = self
            .command(args)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("io runs");
        // Written from a thread, so that io's output can never fill its pipe
        // while we are still writing; io may stop reading early (a bad line),
        // which is not the test's failure.
        let writer = match (stdin, child.stdin.take()) {
            (Some(input), Some(mut pipe)) => {
                let input = input.to_vec();
                Some(std::thread::spawn(
                    move || match std::io::Write::write_all(&mut pipe, &input) {
                        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                            panic!("stdin: {e}")
                        }
                        _ => {}
                    },
                ))
            }
            _ => None,
        };
        let out = output_within(child, Duration::from_secs(120), &format!("io {args:?}"));
        if let Some(writer) = writer {
            writer.join().expect("the stdin writer");
        }
        out
    }
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exited, not signalled")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The `event` tag of each line of a JSON-lines file.
fn tags_in(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("the file exists")
        .lines()
        .map(|l| {
            let value: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            value["event"].as_str().expect("a tag").to_owned()
        })
        .collect()
}

fn example_events() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/events.jsonl"))
        .expect("examples/events.jsonl")
}

#[test]
fn io_events_lists_every_tag_in_order_as_text_and_json() {
    let env = Env::new();
    let out = env.io(&["events"]);
    assert_eq!(code(&out), 0);
    let tags: Vec<String> = stdout(&out)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or("").to_owned())
        .collect();
    assert_eq!(tags, EventKind::TAGS);
    assert!(
        stdout(&out).contains("token               per token"),
        "{}",
        stdout(&out)
    );

    let out = env.io(&["events", "--json"]);
    assert_eq!(code(&out), 0);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let tags: Vec<&str> = list
        .as_array()
        .expect("array")
        .iter()
        .map(|e| e["event"].as_str().expect("event"))
        .collect();
    assert_eq!(tags, EventKind::TAGS);
    assert_eq!(list[0]["frequency"], "per_run");
}

#[test]
fn io_schema_offers_exactly_the_registry_as_on_values() {
    let env = Env::new();
    let out = env.io(&["schema"]);
    assert_eq!(code(&out), 0);
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let hook = &schema["$defs"]["hook"];
    assert_eq!(hook["additionalProperties"], false);
    let on: Vec<&str> = hook["properties"]["on"]["items"]["enum"]
        .as_array()
        .expect("enum")
        .iter()
        .map(|v| v.as_str().expect("str"))
        .collect();
    assert_eq!(on, EventKind::TAGS);
    assert_eq!(hook["properties"]["timeout_ms"]["default"], 5000);
}

#[test]
fn io_check_says_which_file_won_and_what_each_hook_does() {
    let env = Env::new();
    env.write(
        "io.local.toml",
        "[[hook]]\nappend = \"audit.jsonl\"\n\n[[hook]]\non = [\"stalled\", \"finished\"]\nrun = [\"/usr/local/bin/notify\", \"--channel\", \"ops\"]\ntimeout_ms = 2000\non_failure = \"cancel\"\n",
    );
    env.write("io.toml", "[mcp]\nkept = true\n");
    let out = env.io(&["check"]);
    // No such notify on this machine: the description stands, and the
    // problem is named under it.
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("on failure: cancel the run\n    problem: `/usr/local/bin/notify`: there is no `/usr/local/bin/notify`\n"),
        "{text}"
    );
    let root = env.root().canonicalize().expect("root");
    assert!(
        text.contains(&format!("  project  {}/io.toml\n", root.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "  local    {}/io.local.toml  <- hooks in force\n",
            root.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("  hook[1]  on every event: append to audit.jsonl; on failure: continue\n"),
        "{text}"
    );
    assert!(
        text.contains("  hook[2]  on stalled, finished: run [\"/usr/local/bin/notify\",\"--channel\",\"ops\"] (timeout 2000 ms); on failure: cancel the run\n"),
        "{text}"
    );
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn io_check_exits_1_with_one_paragraph_on_a_config_error_and_2_on_usage() {
    let env = Env::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"stepp\"]\nappend = \"a.jsonl\"\n",
    );
    let out = env.io(&["check"]);
    assert_eq!(code(&out), 1);
    assert!(stdout(&out).is_empty());
    let err = stderr(&out);
    assert!(err.starts_with("io: "), "{err}");
    assert!(
        err.contains(
            "io.local.toml: key `hook[1].on`: unknown event `stepp` (did you mean `step`?)"
        ),
        "{err}"
    );
    assert!(err.contains("(line 2, column 7)"), "{err}");
    // One paragraph, then the line it points into with a caret under the
    // column, as toml's own errors show it.
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 4, "{err}");
    assert!(lines[0].ends_with("(line 2, column 7)"), "{err}");
    assert_eq!(
        lines[1..],
        ["   |", " 2 | on = [\"stepp\"]", "   |       ^"],
        "{err}"
    );
    assert!(
        !err.contains("Error {") && !err.contains("panicked"),
        "{err}"
    );

    let out = env.io(&["check", "--no-such-flag"]);
    assert_eq!(code(&out), 2);

    let out = env.io(&["check", "--profile", "cii"]);
    assert_eq!(code(&out), 1);
}

#[test]
fn io_check_refuses_hooks_in_the_project_file_with_the_spec_message() {
    let env = Env::new();
    env.write("io.toml", "[[hook]]\nappend = \"audit.jsonl\"\n");
    let out = env.io(&["check"]);
    assert_eq!(code(&out), 1);
    let root = env.root().canonicalize().expect("root");
    assert_eq!(
        stderr(&out),
        format!(
            "io: {}/io.toml: key `hook`: a project-scoped file may not declare hooks, because a hook runs or writes on this machine and `io.toml` arrives with a `git clone`. Write it in `io.local.toml` or the user-scope file instead.\n",
            root.display()
        )
    );
    assert!(
        !env.root().join("audit.jsonl").exists(),
        "no hook was built"
    );
}

#[test]
fn io_replay_of_the_shipped_events_writes_the_audit_log_and_completes() {
    let env = Env::new();
    env.write("io.local.toml", "[[hook]]\nappend = \"audit.jsonl\"\n");
    let events = example_events();
    let file = env.write("events.jsonl", &events);
    let out = env.io(&["replay", file.to_str().expect("utf-8")]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let audit = std::fs::read_to_string(env.root().join("audit.jsonl")).expect("audit log");
    assert_eq!(
        audit, events,
        "an append hook with no `on` writes back exactly what it was given"
    );
    let steps = events
        .lines()
        .filter(|l| l.starts_with("{\"event\":\"step\""))
        .count();
    assert!(
        stdout(&out).ends_with(&format!("completed after {steps} steps\n")),
        "{}",
        stdout(&out)
    );
    // One line per event, then the summary.
    assert_eq!(stdout(&out).lines().count(), events.lines().count() + 1);
}

#[test]
fn io_replay_cancels_at_the_next_step_boundary_and_exits_3() {
    let env = Env::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\nrun = [\"false\"]\non_failure = \"cancel\"\n\n[[hook]]\nappend = \"seen.jsonl\"\n",
    );
    let events = example_events();
    let out = env.io_with_stdin(&["replay", "-"], Some(events.as_bytes()));
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let seen = std::fs::read_to_string(env.root().join("seen.jsonl")).expect("seen");
    let first_call = events
        .lines()
        .position(|l| l.contains("\"event\":\"tool_call\""))
        .expect("a tool_call");
    let boundary = events
        .lines()
        .enumerate()
        .skip(first_call)
        .find(|(_, l)| l.starts_with("{\"event\":\"step\""))
        .map(|(i, _)| i)
        .expect("a step after it");
    assert_eq!(
        seen.lines().count(),
        boundary + 2,
        "delivered up to and including the boundary, then `finished`"
    );
    assert!(stdout(&out).contains("cancelled after"), "{}", stdout(&out));
    // Each failure is reported once, on its event's line; the engine's
    // warn line no longer repeats it before the event.
    let text = stdout(&out);
    let failed = "hook[1] FAILED: exited with status 1";
    let call = text
        .lines()
        .find(|l| l.contains(" tool_call "))
        .expect("a tool_call line");
    assert!(
        call.contains(failed) && call.ends_with("-> cancel at the next step boundary"),
        "{text}"
    );
    let log = stderr(&out);
    assert!(!log.contains("failed on"), "no second report: {log}");
    assert!(
        !log.contains("\"goal\"") && !log.contains("args"),
        "the log never holds the event: {log}"
    );
    // The boundary's `finished`, as a run would deliver it, marked as made
    // up by the replay; the summary names the hook that cancelled.
    let finished = text.lines().rev().nth(1).expect("the finished line");
    assert!(
        finished.starts_with("    -  finished ")
            && finished.ends_with("(synthesized: the replay stopped here, as a run does)"),
        "{text}"
    );
    assert!(text.ends_with("failed (hook[1])\n"), "{text}");
    let last_seen: serde_json::Value =
        serde_json::from_str(seen.lines().last().expect("a line")).expect("json");
    assert_eq!(last_seen["event"], "finished");
    assert_eq!(last_seen["outcome"], "cancelled");
    let steps_seen = seen
        .lines()
        .filter(|l| l.starts_with("{\"event\":\"step\""))
        .count();
    assert_eq!(
        last_seen["steps"], steps_seen,
        "the step count at the boundary"
    );
}

#[test]
fn io_replay_stops_at_a_line_that_is_not_an_event_and_names_it() {
    let env = Env::new();
    env.write("io.local.toml", "[[hook]]\nappend = \"seen.jsonl\"\n");
    let events: Vec<String> = example_events()
        .lines()
        .take(3)
        .map(str::to_owned)
        .collect();
    let text = format!(
        "{}\n{}\n{{\"event\":\"nope\",\"run_id\":\"r\",\"depth\":0}}\n{}\n",
        events[0], events[1], events[2]
    );
    let file = env.write("bad.jsonl", &text);
    let out = env.io(&["replay", file.to_str().expect("utf-8")]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.contains("bad.jsonl: line 3: not an event: field `event` is an unknown event name (`io events` lists them)"),
        "{err}"
    );
    assert!(err.contains("no hook fired for it or after it"), "{err}");
    let seen = std::fs::read_to_string(env.root().join("seen.jsonl")).expect("seen");
    assert_eq!(seen.lines().count(), 2);
}

#[test]
fn io_replay_json_reports_each_hook_and_the_outcome() {
    let env = Env::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"finished\"]\nappend = \"f.jsonl\"\n",
    );
    let out = env.replay_examples_json();
    let lines = json_lines(&out);
    let last = lines.last().expect("summary");
    assert_eq!(last["outcome"], "completed");
    let finished: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["event"] == "finished").collect();
    assert!(!finished.is_empty());
    for f in finished {
        assert_eq!(f["hooks"][0]["hook"], 1);
        assert_eq!(f["hooks"][0]["ok"], true);
    }
    let started = lines
        .iter()
        .find(|l| l["event"] == "started")
        .expect("started");
    assert_eq!(started["hooks"], serde_json::json!([]));
}

/// Parses every line of `io replay --json`'s stdout, failing on one that is
/// not JSON.
fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l:?}")))
        .collect()
}

#[test]
fn io_replay_json_names_each_of_several_hooks_by_its_own_number() {
    // Three hooks, each matching a different set of events, the second one
    // failing: every report must carry the number of the hook that made it.
    let env = Env::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"started\"]\nappend = \"one.jsonl\"\n\n\
         [[hook]]\non = [\"finished\"]\nrun = [\"false\"]\n\n\
         [[hook]]\non = [\"started\", \"finished\"]\nappend = \"three.jsonl\"\n",
    );
    let out = env.replay_examples_json();
    let lines = json_lines(&out);
    let fired = |tag: &str| -> Vec<(u64, bool)> {
        let line = lines
            .iter()
            .find(|l| l["event"] == tag && l["depth"] == 0)
            .unwrap_or_else(|| panic!("a top-level `{tag}`"));
        line["hooks"]
            .as_array()
            .expect("a hooks array")
            .iter()
            .map(|h| (h["hook"].as_u64().expect("a number"), h["ok"] == true))
            .collect()
    };
    assert_eq!(fired("started"), [(1, true), (3, true)]);
    assert_eq!(fired("finished"), [(2, false), (3, true)]);
    let failed = lines
        .iter()
        .find(|l| l["event"] == "finished" && l["depth"] == 0)
        .expect("finished");
    assert_eq!(failed["hooks"][0]["error"], "exited with status 1");
    // Stderr holds the hooks in force, said before the first event, and
    // nothing of the failure: it is reported once, in the JSON.
    let log = stderr(&out);
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(
        log.starts_with("io: 3 hook(s) in force, from ") && !log.contains("exited"),
        "{log}"
    );
}

#[test]
fn a_hooks_own_output_never_reaches_io_replay_json() {
    // `io replay --json` writes one JSON object per line to stdout; a hook
    // printing to stdout or stderr must not land in it, nor in io's stderr.
    let env = Env::new();
    env.write(
        "io.local.toml",
        "[[hook]]\nrun = [\"/bin/sh\", \"-c\", \"echo HOOK-WROTE-TO-STDOUT && echo HOOK-WROTE-TO-STDERR >&2\"]\n",
    );
    let out = env.replay_examples_json();
    for (name, text) in [("stdout", stdout(&out)), ("stderr", stderr(&out))] {
        assert!(
            !text.contains("HOOK-WROTE"),
            "a hook wrote to io's {name}:\n{text}"
        );
    }
    let lines = json_lines(&out);
    assert_eq!(lines.last().expect("a summary")["outcome"], "completed");
    // The hook did run, and its writes succeeded, on every event.
    let events = example_events().lines().count();
    let ran: Vec<&serde_json::Value> = lines.iter().filter(|l| l["event"].is_string()).collect();
    assert_eq!(ran.len(), events);
    for line in ran {
        assert_eq!(line["hooks"][0]["ok"], true, "{line}");
    }
}

#[test]
fn two_io_processes_appending_to_one_log_never_tear_a_line() {
    // Two `io replay` processes, each appending 2,000 lines of 4 KiB to one
    // log at once. In-process appends are serialised by a lock; across
    // processes only each line being one `write` to an `O_APPEND` file
    // keeps it whole.
    const EVENTS: usize = 2_000;
    let env = Env::new();
    env.write("io.local.toml", "[[hook]]\nappend = \"shared.jsonl\"\n");
    let mut children = Vec::new();
    for who in ["a", "b"] {
        let text = who.repeat(4096);
        let recording: String = (0..EVENTS)
            .map(|seq| {
                format!(
                    "{{\"event\":\"token\",\"step\":1,\"text\":\"{text}\",\"run_id\":\"{who}\",\"depth\":0,\"seq\":{seq}}}\n"
                )
            })
            .collect();
        let file = env.write(&format!("{who}.jsonl"), &recording);
        let child = env
            .command(&["replay", file.to_str().expect("utf-8")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("io runs");
        children.push(child);
    }
    for child in children {
        let out = output_within(child, Duration::from_secs(120), "io replay");
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let log = std::fs::read_to_string(env.root().join("shared.jsonl")).expect("the log");
    let mut seen = std::collections::HashSet::new();
    for (n, line) in log.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {} is torn ({e}): {:.120}…", n + 1, line));
        let who = v["run_id"].as_str().expect("a run_id").to_owned();
        assert_eq!(v["text"], who.repeat(4096), "line {}", n + 1);
        assert!(seen.insert((who, v["seq"].as_u64().expect("a seq"))));
    }
    assert_eq!(seen.len(), 2 * EVENTS);
    assert_eq!(log.lines().count(), 2 * EVENTS);
}

const SCRIPT: &str = r#"
goal = "two files"
[[turn]]
calls = [{ tool = "write_file", args = { path = "a.txt", content = "a" } }]
[[turn]]
calls = [{ tool = "write_file", args = { path = "secret.txt", content = "s" } }]
[[turn]]
calls = [{ tool = "write_file", args = { path = "c.txt", content = "c" } }]
answer = "done"
"#;

#[test]
fn io_run_is_cancelled_by_a_policy_hook_and_resumed_to_completion() {
    let env = Env::new();
    // A policy check: refuses any tool call that mentions secret.txt.
    // Run as `/bin/sh check.sh`: no freshly written file is executed.
    env.write(
        "check.sh",
        "read -r line\ncase \"$line\" in *secret.txt*) exit 1 ;; esac\n",
    );
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\nrun = [\"/bin/sh\", \"./check.sh\"]\non_failure = \"cancel\"\n\n[[hook]]\non = [\"step\", \"finished\"]\nappend = \"audit.jsonl\"\n",
    );
    let script = env.write("script.toml", SCRIPT);
    let out = env.io(&["run", script.to_str().expect("utf-8")]);
    assert_eq!(code(&out), 3, "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    let run_id = run_id_in(&text);
    assert!(
        text.contains(&format!("run {run_id} cancelled after 2 steps")),
        "{text}"
    );
    assert!(
        text.contains(&format!("io run --resume {run_id}")),
        "{text}"
    );
    assert!(
        env.root().join("secret.txt").exists(),
        "a cancel does not un-call the tool"
    );
    assert!(!env.root().join("c.txt").exists());

    let out = env.io(&["run", "--resume", &run_id]);
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains(&format!("run {run_id} completed after 3 steps: done")),
        "{}",
        stdout(&out)
    );
    assert!(env.root().join("c.txt").exists());
    assert_eq!(
        tags_in(&env.root().join("audit.jsonl")),
        ["step", "step", "finished", "step", "finished"]
    );

    let out = env.io(&["run", "--resume", "r-nope"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("no run `r-nope`"), "{}", stderr(&out));
    let out = env.io(&["run"]);
    assert_eq!(code(&out), 2, "a script or --resume is required");
}

#[test]
fn io_demo_runs_the_four_hooks_cancels_and_resumes() {
    let env = Env::new();
    let dir = env.dir.path().join("demo");
    let out = env.io(&["demo", "--dir", dir.to_str().expect("utf-8")]);
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("cancelled after 5 steps"), "{text}");
    assert!(text.contains("completed after 7 steps"), "{text}");
    let ws = dir.join("workspace");
    let greet = std::fs::read_to_string(ws.join("src/greet.rs")).expect("greet.rs");
    assert_eq!(
        greet, "pub fn greet(name: &str) -> String {\n    format!(\"hello, {name}\")\n}\n",
        "cargo fmt ran as a hook"
    );
    assert_eq!(
        tags_in(&ws.join("notifications.log")),
        ["stalled", "finished", "finished", "finished"]
    );
    assert!(
        text.lines()
            .any(|l| l.contains("hook[4] FAILED: exited with status 1 (")
                && l.ends_with("-> the run ends at the next step boundary")),
        "{text}"
    );
}

#[test]
fn the_example_events_file_holds_every_kind_a_child_run_and_a_resume() {
    let events: Vec<io_harness::RunEvent> = example_events()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is a RunEvent"))
        .collect();
    for tag in EventKind::TAGS {
        assert!(
            events.iter().any(|e| e.tag() == *tag),
            "no `{tag}` in examples/events.jsonl"
        );
    }
    let top = &events[0].run_id;
    let child = events
        .iter()
        .find(|e| e.depth == 1)
        .expect("a child run's event");
    assert_ne!(&child.run_id, top);
    assert!(child.run_id.starts_with(top.as_str()));

    // The top-level run was cancelled, then resumed to the end: its
    // `started` and `finished` come twice, the resume's with
    // `"resumed":true`, and the first start's without the key.
    let text = example_events();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(&format!("\"run_id\":\"{top}\"")))
        .filter(|l| {
            l.starts_with("{\"event\":\"started\"") || l.starts_with("{\"event\":\"finished\"")
        })
        .map(|l| l.split(",\"run_id\"").next().unwrap_or_default())
        .collect();
    assert_eq!(
        lines,
        [
            "{\"event\":\"started\",\"goal\":\"tour every event\"",
            "{\"event\":\"finished\",\"outcome\":\"cancelled\",\"steps\":5",
            "{\"event\":\"started\",\"goal\":\"tour every event\",\"resumed\":true",
            "{\"event\":\"finished\",\"outcome\":\"completed\",\"steps\":6,\"resumed\":true",
        ]
    );

    // The budget is the run's, across the resume: each `spend_draw` of the
    // top-level run leaves less than the one before (a resume that started
    // a fresh budget would show more).
    let remaining: Vec<u64> = text
        .lines()
        .filter(|l| l.contains(&format!("\"run_id\":\"{top}\"")))
        .filter(|l| l.starts_with("{\"event\":\"spend_draw\""))
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            v["remaining"].as_u64().expect("remaining is a count")
        })
        .collect();
    assert!(remaining.len() >= 6, "{remaining:?}");
    assert!(
        remaining.windows(2).all(|w| w[1] < w[0]),
        "the resume's draws continue the run's count: {remaining:?}"
    );
}

#[test]
fn io_run_names_a_malformed_mcp_table_by_file_and_key() {
    let env = Env::new();
    env.write(
        "io.local.toml",
        "[[mcp]]\nname = \"docs\"\ncommand = \"./server\"\n",
    );
    let script = env.write("script.toml", "goal = \"g\"\n[[turn]]\nanswer = \"a\"\n");
    let out = env.io(&["run", script.to_str().expect("utf-8")]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out)
            .contains("io.local.toml: key `mcp[1].command`: expected an argv array, program first"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn io_run_cancelled_in_its_last_step_exits_3_and_resumes_to_completion() {
    let env = Env::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\nrun = [\"false\"]\non_failure = \"cancel\"\n\n[[hook]]\non = [\"finished\"]\nappend = \"finished.jsonl\"\n",
    );
    // A first turn that calls a tool and answers: the hook's cancel comes
    // in what would be the run's last step. The model is asked for the
    // next step on resume, and a resume runs the script its run began with
    // (pinned in the journal, issue 32), so the script has that turn from
    // the start.
    let one_turn = "goal = \"one\"\n[[turn]]\ncalls = [{ tool = \"write_file\", args = { path = \"a.txt\", content = \"a\" } }]\nanswer = \"first\"\n";
    let script = env.write(
        "script.toml",
        &format!("{one_turn}[[turn]]\nanswer = \"second\"\n"),
    );
    let out = env.io(&["run", script.to_str().expect("utf-8")]);
    assert_eq!(code(&out), 3, "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("the run ends at the next step boundary"),
        "{text}"
    );
    let run_id = run_id_in(&text);
    assert!(
        text.contains(&format!("run {run_id} cancelled after 1 step\n")),
        "{text}"
    );
    assert!(env.root().join("a.txt").exists(), "the step was finished");
    let finished = |n: usize| -> serde_json::Value {
        let log = std::fs::read_to_string(env.root().join("finished.jsonl")).expect("the log");
        let line = log.lines().nth(n).expect("a finished line");
        serde_json::from_str(line).expect("a JSON line")
    };
    assert_eq!(finished(0)["outcome"], "cancelled");
    assert_eq!(finished(0)["steps"], 1);

    let out = env.io(&["run", "--resume", &run_id]);
    assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains(&format!("run {run_id} completed after 2 steps: second")),
        "{}",
        stdout(&out)
    );
    assert_eq!(finished(1)["outcome"], "completed");
}

/// The run id `io run` prints on its last line (`run <id> ...`).
fn run_id_in(text: &str) -> String {
    text.lines()
        .find_map(|l| {
            l.strip_prefix("run ")
                .and_then(|r| r.split_whitespace().next())
        })
        .expect("the run id")
        .to_owned()
}

#[test]
fn io_check_names_each_hook_that_cannot_work_with_a_hint_and_exits_1() {
    let env = Env::new();
    env.write("scripts/x.sh", "#!/bin/sh\n");
    env.write("myhook", "#!/bin/sh\n");
    std::fs::create_dir(env.root().join("logs")).expect("logs");
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"finished\"]\nrun = [\"notify-sendx\"]\n\n\
         [[hook]]\non = [\"finished\"]\nrun = [\"./scripts/x.sh\"]\n\n\
         [[hook]]\non = [\"finished\"]\nrun = [\"myhook\"]\n\n\
         [[hook]]\non = [\"finished\"]\nrun = [\"$HOME/bin/notify\"]\n\n\
         [[hook]]\nappend = \"~/audit.jsonl\"\n\n\
         [[hook]]\nappend = \"logs\"\n\n\
         [[hook]]\nappend = \"nope/audit.jsonl\"\n\n\
         [[hook]]\non = [\"step\"]\nappend = \"fine.jsonl\"\n",
    );
    let out = env.io(&["check"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    let under = |n: usize| -> String {
        let start = text
            .find(&format!("  hook[{n}]  "))
            .expect("the hook's line");
        let rest = &text[start..];
        let end = rest[2..].find("\n  hook[").map_or(rest.len(), |e| e + 2);
        rest[..end].to_owned()
    };
    assert!(
        under(1).contains(
            "problem: `notify-sendx` is not an executable file in any absolute `PATH` entry"
        ),
        "{text}"
    );
    assert!(
        under(2).contains("is not executable\n      hint: make it executable: chmod +x "),
        "{text}"
    );
    assert!(
        under(3).contains("hint: to run the file in the hooks' root, write `./myhook`"),
        "{text}"
    );
    assert!(under(4).contains("problem: `run[1]` = `$HOME/bin/notify`: the `~` or `$` is taken literally, because there is no shell"), "{text}");
    assert!(
        under(5).contains("problem: `append` = `~/audit.jsonl`: the `~` or `$` is taken literally"),
        "{text}"
    );
    assert!(under(6).contains("/logs` is a directory"), "{text}");
    assert!(
        under(7).contains("/nope/audit.jsonl` cannot be created: there is no directory `"),
        "{text}"
    );
    assert!(!under(8).contains("problem"), "{text}");
    assert!(
        text.ends_with("FAILED: 7 hook(s) cannot work as written\n"),
        "{text}"
    );
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    assert!(
        !env.root().join("fine.jsonl").exists(),
        "io check builds nothing"
    );
}

#[test]
fn io_check_notes_costs_replaced_scopes_and_what_it_looked_at() {
    let env = Env::new();
    std::fs::write(
        env.dir.path().join("user/io.toml"),
        "[[hook]]\nappend = \"u.jsonl\"\n[[hook]]\nappend = \"v.jsonl\"\n",
    )
    .expect("user file");
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"token\"]\nrun = [\"true\"]\n\n[[hook]]\nrun = [\"true\"]\n\n[[hook]]\non = [\"finished\"]\nappend = \"a.jsonl\"\n",
    );
    let out = env.io(&["check"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "cost notes do not fail: {text}");
    assert!(
        text.contains("user scope: 2 hook(s), replaced by io.local.toml\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "    note: `token` fires once per streamed token: this spawns a process for each\n"
        ),
        "{text}"
    );
    assert!(text.contains("  hook[2]  on every event: run [\"true\"] (timeout 5000 ms); on failure: continue\n    note: no `on`: this spawns a process for every event"), "{text}");
    assert_eq!(text.matches("note:").count(), 2, "{text}");
    assert!(text.ends_with("ok\n"), "{text}");

    let out = env.io(&["check", "--event", "finished"]);
    assert_eq!(code(&out), 0);
    assert!(
        stdout(&out).contains("on `finished`: hook[2], hook[3] fire(s)\n"),
        "{}",
        stdout(&out)
    );
    let out = env.io(&["check", "--event", "step"]);
    assert!(
        stdout(&out).contains("on `step`: hook[2] fire(s)\n"),
        "{}",
        stdout(&out)
    );
    let out = env.io(&["check", "--event", "stepp"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).starts_with(
            "io: --event: unknown event `stepp` (did you mean `step`?); expected one of `started`"
        ),
        "{}",
        stderr(&out)
    );

    let empty = Env::new();
    // No marker at all: not even the checkout's `.git`.
    std::fs::remove_dir_all(empty.root().join(".git")).expect("no .git");
    let out = empty.io(&["check"]);
    assert_eq!(code(&out), 0);
    let root = empty.root().canonicalize().expect("root");
    // The root line says why the working directory is the root; where the
    // search stopped above it depends on the machine's temp directory.
    let text = stdout(&out);
    let (root_line, rest) = text.split_once('\n').expect("a root line");
    // So does the `passed over:` line that repeats it with its fix.
    let rest: String = rest
        .lines()
        .filter(|l| !l.starts_with("passed over: the root search stopped below "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        root_line.starts_with(&format!(
            "root: {} (the working directory; no `io.local.toml`, `io.toml` or `.git` in it or above it",
            root.display()
        )),
        "{root_line}"
    );
    assert_eq!(
        rest,
        format!(
            "no config file found; looked at:\n  {}\n  {}/io.toml\n  {}/io.local.toml\nno hooks declared\nok\n",
            empty.dir.path().join("user/io.toml").display(),
            root.display(),
            root.display()
        )
    );
}

/// A config with a cancelling policy hook that explains itself on stderr
/// with a terminal escape, an audit log, and a `run` hook leaving a marker.
const POLICY: &str = "[[hook]]\non = [\"tool_call\"]\nrun = [\"/bin/sh\", \"-c\", \"printf 'policy: \\\\033[2Jrefused\\\\r\\\\n' >&2; exit 7\"]\non_failure = \"cancel\"\n\n[[hook]]\non = [\"step\", \"finished\"]\nappend = \"audit.jsonl\"\n\n[[hook]]\non = [\"finished\"]\nrun = [\"/bin/sh\", \"-c\", \"touch marker\"]\n";

#[test]
fn io_replay_dry_run_says_which_hooks_would_fire_and_runs_nothing() {
    let env = Env::new();
    env.write("io.local.toml", POLICY);
    let events = env.write("events.jsonl", &example_events());
    let out = env.io(&["replay", events.to_str().expect("utf-8"), "--dry-run"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(
        text.lines().count(),
        example_events().lines().count() + 1,
        "{text}"
    );
    let line = |tag: &str| {
        text.lines()
            .find(|l| l.contains(&format!(" {tag} ")))
            .unwrap_or_else(|| panic!("a `{tag}` line: {text}"))
            .to_owned()
    };
    assert!(
        line("tool_call").ends_with("  hook[1] would fire"),
        "{text}"
    );
    assert!(
        line("finished").ends_with("  hook[2] would fire, hook[3] would fire"),
        "{text}"
    );
    assert!(line("started").ends_with("  -"), "{text}");
    assert!(
        text.ends_with("no hook was run and no file was written\n"),
        "{text}"
    );
    assert!(
        !env.root().join("audit.jsonl").exists(),
        "no append file created"
    );
    assert!(!env.root().join("marker").exists(), "no run hook spawned");

    // A bad line is still found: the whole file is read and checked.
    let bad = env.write("bad.jsonl", &format!("{}not json\n", example_events()));
    let out = env.io(&["replay", bad.to_str().expect("utf-8"), "--dry-run"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains(": not JSON: "), "{}", stderr(&out));
}

#[test]
fn io_replay_hook_n_runs_only_those_hooks_and_refuses_a_number_out_of_range() {
    let env = Env::new();
    env.write("io.local.toml", POLICY);
    let events = env.write("events.jsonl", &example_events());
    let file = events.to_str().expect("utf-8");
    let out = env.io(&["replay", file, "--hook", "3", "--json"]);
    assert_eq!(
        code(&out),
        0,
        "hook[1] did not run, so nothing cancels: {}",
        stderr(&out)
    );
    assert!(env.root().join("marker").exists(), "hook[3] ran");
    assert!(
        !env.root().join("audit.jsonl").exists(),
        "hook[2] was not even built"
    );
    let lines = json_lines(&out);
    let numbers: BTreeSet<u64> = lines
        .iter()
        .flat_map(|l| l["hooks"].as_array().cloned().unwrap_or_default())
        .map(|h| h["hook"].as_u64().expect("a number"))
        .collect();
    assert_eq!(numbers, BTreeSet::from([3]), "numbered as in the config");
    let keys: BTreeSet<&str> = lines
        .iter()
        .flat_map(|l| l["hooks"].as_array().into_iter().flatten())
        .map(|h| h["key"].as_str().expect("a key path"))
        .collect();
    assert_eq!(keys, BTreeSet::from(["hook[3]"]), "named as written");

    for bad in ["4", "0"] {
        let out = env.io(&["replay", file, "--hook", bad]);
        assert_eq!(code(&out), 2, "a usage error");
        assert_eq!(
            stderr(&out),
            format!(
                "io: --hook {bad}: there is no hook[{bad}]; the hooks are hook[1] to hook[3]\n"
            )
        );
    }
}

/// A profile's hooks: one that appends, a policy check that refuses and
/// cancels, and one whose program is missing.
const CI_PROFILE: &str = "\
[[hook]]
on = [\"started\"]
append = \"top.jsonl\"

[profile.ci]

[[profile.ci.hook]]
on = [\"started\"]
append = \"ci.jsonl\"

[[profile.ci.hook]]
on = [\"started\"]
run = [\"/bin/sh\", \"-c\", \"echo ci-refuses >&2; exit 3\"]
on_failure = \"cancel\"

[[profile.ci.hook]]
on = [\"step\"]
run = [\"./no-such-ci-step\"]
";

/// Under a profile, `io check` names each hook by its key path in the file
/// in force, `profile.ci.hook[N]`, where it said `hook[N]`, a name the file
/// does not use for them.
#[test]
fn io_check_names_a_profiles_hooks_by_their_key_path() {
    let env = Env::new();
    env.write("io.local.toml", CI_PROFILE);
    let out = env.io(&["check", "--profile", "ci"]);
    assert_eq!(code(&out), 1, "hook 3 cannot run: {}", stderr(&out));
    let text = stdout(&out);
    for n in 1..=3 {
        assert!(
            text.contains(&format!("\n  profile.ci.hook[{n}]  on ")),
            "{text}"
        );
    }
    assert!(!text.contains("  hook["), "{text}");
    // --json keeps the numbers and gives the key path and the file beside.
    let out = env.io(&["check", "--profile", "ci", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let local = env
        .root()
        .canonicalize()
        .expect("root")
        .join("io.local.toml");
    let named: Vec<(u64, String, String)> = report["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .map(|h| {
            let field = |k: &str| h[k].as_str().expect("a string").to_owned();
            (
                h["hook"].as_u64().expect("a number"),
                field("key"),
                field("file"),
            )
        })
        .collect();
    let file = local.display().to_string();
    let expected: Vec<(u64, String, String)> = (1..=3)
        .map(|n| (n, format!("profile.ci.hook[{n}]"), file.clone()))
        .collect();
    assert_eq!(named, expected);
}

/// Under a profile, `io replay` names each hook by its key path in the file
/// in force, `profile.ci.hook[N]`, in its lines (a failure, its stderr, the
/// cancel, a dry run) and in `--hook`'s error; `--hook 2` still picks the
/// profile's second hook; and the engine's own `-v` lines carry the file
/// and the key as the engine wrote them, with nothing rewritten. Before,
/// each was `hook[N]`.
#[test]
fn a_profiles_hooks_are_named_by_their_key_path_in_every_line() {
    let env = Env::new();
    env.write("io.local.toml", CI_PROFILE);
    let local = env
        .root()
        .canonicalize()
        .expect("root")
        .join("io.local.toml");
    let started = "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r\",\"depth\":0}\n";
    let events = env.write("events.jsonl", started);
    let file = events.to_str().expect("utf-8");

    let out = env.io(&[
        "-v",
        "replay",
        file,
        "--profile",
        "ci",
        "--hook",
        "2",
        "--stderr",
    ]);
    assert_eq!(code(&out), 3, "hook 2 cancels: {}", stderr(&out));
    let (text, err) = (stdout(&out), stderr(&out));
    assert!(
        text.contains("profile.ci.hook[2] FAILED: exited with status 3 ("),
        "{text}"
    );
    assert!(
        text.contains("profile.ci.hook[2] stderr (its last 4 KiB at most):"),
        "{text}"
    );
    assert!(
        text.contains("a hook with on_failure = \"cancel\" failed (profile.ci.hook[2])"),
        "{text}"
    );
    let warned = format!(
        " WARN {}: profile.ci.hook[2] failed on `started`: exited with status 3; cancelling \
         the run hook=\"profile.ci.hook[2]\" file=\"{}\"",
        local.display(),
        local.display()
    );
    assert!(
        err.lines().any(|l| l.starts_with(&warned)),
        "{warned}\n{err}"
    );
    // Only the chosen hook, and never by its place in the selection.
    assert!(
        !text.contains("hook[1]") && !err.contains("hook[1]") && !err.contains("hook[3]"),
        "{text}{err}"
    );
    assert!(
        !env.root().join("ci.jsonl").exists(),
        "profile.ci.hook[1] was not built"
    );

    let out = env.io(&[
        "replay",
        file,
        "--profile",
        "ci",
        "--hook",
        "2",
        "--dry-run",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("profile.ci.hook[2] would fire"),
        "{}",
        stdout(&out)
    );

    let out = env.io(&["replay", file, "--profile", "ci", "--hook", "4"]);
    assert_eq!(code(&out), 2, "a usage error");
    assert_eq!(
        stderr(&out),
        "io: --hook 4: there is no profile.ci.hook[4]; the hooks are profile.ci.hook[1] to \
         profile.ci.hook[3]\n"
    );
}

#[test]
fn io_replay_stderr_shows_a_failed_hooks_stderr_escaped_under_its_line() {
    let env = Env::new();
    env.write("io.local.toml", POLICY);
    let events = env.write("events.jsonl", &example_events());
    let file = events.to_str().expect("utf-8");
    let out = env.io(&["replay", file, "--stderr"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| {
            l.contains(" tool_call ") && l.contains("hook[1] FAILED: exited with status 7")
        })
        .expect("the failed call's line");
    assert_eq!(
        lines[at + 1],
        "       hook[1] stderr (its last 4 KiB at most):"
    );
    assert_eq!(lines[at + 2], "       | policy: \\x1b[2Jrefused\\r");
    assert!(
        !text.contains('\x1b') && !text.contains('\r'),
        "no control character printed"
    );
    assert!(
        !lines[at].contains("--stderr shows"),
        "no hint when it is shown: {}",
        lines[at]
    );

    // Off by default: the failure alone, saying where its stderr is.
    let out = env.io(&["replay", file]);
    assert!(!stdout(&out).contains("policy:"), "{}", stdout(&out));
    let failed = stdout(&out)
        .lines()
        .find(|l| l.contains(" tool_call ") && l.contains("hook[1] FAILED: exited with status 7"))
        .map(str::to_owned)
        .expect("the failed call's line");
    assert!(
        failed.contains(" ms; --stderr shows its stderr)"),
        "{failed}"
    );

    // In JSON: the tail beside the error, the synthesized `finished`, and
    // the hooks that cancelled in the summary.
    let out = env.io(&["replay", file, "--json", "--stderr"]);
    assert_eq!(code(&out), 3);
    let lines = json_lines(&out);
    let call = lines
        .iter()
        .find(|l| l["event"] == "tool_call")
        .expect("a call");
    assert_eq!(call["hooks"][0]["stderr"], "policy: \u{1b}[2Jrefused\r\n");
    let finished = &lines[lines.len() - 2];
    assert_eq!(finished["event"], "finished");
    assert_eq!(finished["synthesized"], true);
    assert_eq!(finished["hooks"][0]["hook"], 2);
    assert_eq!(finished["hooks"][1]["hook"], 3);
    let summary = lines.last().expect("a summary");
    assert_eq!(summary["outcome"], "cancelled");
    assert_eq!(summary["cancelled_by"], serde_json::json!([1]));
    let out = env.io(&["replay", file, "--json"]);
    let lines = json_lines(&out);
    let call = lines
        .iter()
        .find(|l| l["event"] == "tool_call")
        .expect("a call");
    assert!(call["hooks"][0].get("stderr").is_none(), "{call}");
}

#[test]
fn io_run_stderr_shows_the_policy_hooks_reason() {
    let env = Env::new();
    env.write(
        "check.sh",
        "read -r line\ncase \"$line\" in *secret.txt*) echo 'no secrets in the tree' >&2; exit 1 ;; esac\n",
    );
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\nrun = [\"/bin/sh\", \"./check.sh\"]\non_failure = \"cancel\"\n",
    );
    let script = env.write("script.toml", SCRIPT);
    let out = env.io(&["run", script.to_str().expect("utf-8"), "--stderr"]);
    assert_eq!(code(&out), 3, "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("hook[1] stderr (its last 4 KiB at most):\n")
            && text.contains("| no secrets in the tree\n"),
        "{text}"
    );
}

/// A hook that fires on `token` is said under the token it fired on, and
/// the next token starts a `model:` line of its own: no blank line between
/// a token and its hooks.
#[test]
fn io_run_says_a_tokens_hooks_under_it_with_no_blank_line() {
    let env = Env::new();
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"token\"]\nappend = \"t.jsonl\"\n",
    );
    let script = env.write(
        "script.toml",
        "goal = \"g\"\n[[turn]]\nsay = \"one two\"\nanswer = \"done\"\n",
    );
    let out = env.io(&["run", script.to_str().expect("utf-8")]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == "  model: one")
        .unwrap_or_else(|| panic!("a line for the first token: {text}"));
    assert!(
        lines[at + 1].starts_with("    hooks: hook[1] ok ("),
        "{text}"
    );
    assert_eq!(lines[at + 2], "  model: two", "{text}");
    assert!(
        lines[at + 3].starts_with("    hooks: hook[1] ok ("),
        "{text}"
    );
    assert!(!text.contains("\n\n"), "no blank line: {text}");
}

#[test]
fn io_check_shows_a_near_miss_of_hook_with_its_line_and_caret() {
    let env = Env::new();
    env.write(
        "io.local.toml",
        "model = \"m\"\n[[hooks]]\nappend = \"a.jsonl\"\n",
    );
    let out = env.io(&["check"]);
    assert_eq!(code(&out), 1);
    let root = env.root().canonicalize().expect("root");
    assert_eq!(
        stderr(&out),
        format!(
            "io: {}/io.local.toml: key `hooks`: did you mean `hook`? Hooks are declared only as \
             `[[hook]]` tables, so `hooks` would load as no hooks at all (line 2, column 3)\n   |\n 2 | [[hooks]]\n   |   ^\n",
            root.display()
        )
    );
}

#[test]
fn verbose_adds_the_engines_own_warn_lines_and_the_default_has_none() {
    let env = Env::new();
    env.write("io.local.toml", POLICY);
    let events = env.write("events.jsonl", &example_events());
    let file = events.to_str().expect("utf-8");
    let out = env.io(&["replay", file]);
    assert!(
        !stderr(&out).contains("failed on `tool_call`"),
        "{}",
        stderr(&out)
    );
    let out = env.io(&["-v", "replay", file]);
    assert!(
        stderr(&out)
            .contains("hook[1] failed on `tool_call`: exited with status 7; cancelling the run"),
        "{}",
        stderr(&out)
    );
    let out = env
        .command(&["replay", file])
        .env("RUST_LOG", "info")
        .output()
        .expect("io");
    assert!(String::from_utf8_lossy(&out.stderr).contains("failed on `tool_call`"));
    let out = env
        .command(&["-q", "replay", file])
        .env("RUST_LOG", "info")
        .output()
        .expect("io");
    assert!(out.stderr.is_empty(), "-q wins over RUST_LOG");
}

// ---- issue 14, round two: what a hook inherits ----

/// One `started` event, for the hooks below.
const ONE_EVENT: &str = "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r\",\"depth\":0}\n";

/// A hook's script calling a bare `ls`, with `io` started under
/// `PATH=.:/usr/bin:/bin` in a clone holding a planted `./ls`: the script
/// runs the real `ls`, because the `PATH` a hook gets keeps only absolute
/// entries. Before, the script ran `./ls`.
#[test]
fn a_hook_script_never_runs_a_program_planted_in_the_clone() {
    let env = Env::new();
    let planted = env.root().join("PLANTED");
    env.write(
        "ls",
        &format!("#!/bin/sh\necho ran > '{}'\n", planted.display()),
    );
    std::fs::set_permissions(
        env.root().join("ls"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    env.write("hook.sh", "ls > listing.txt\necho \"$PATH\" > path.txt\n");
    env.write(
        "io.local.toml",
        "[[hook]]\nrun = [\"/bin/sh\", \"hook.sh\"]\n",
    );
    env.write("events.jsonl", ONE_EVENT);
    let out = env
        .command(&["replay", "events.jsonl"])
        .env("PATH", ".:/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("io runs");
    let out = output_within(out, Duration::from_secs(60), "io replay");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("hook[1] ok"), "{}", stdout(&out));
    assert!(!planted.exists(), "the planted ./ls ran");
    let listing = std::fs::read_to_string(env.root().join("listing.txt")).expect("listing");
    assert!(listing.lines().any(|l| l == "hook.sh"), "{listing}");
    let path = std::fs::read_to_string(env.root().join("path.txt")).expect("path");
    assert_eq!(path, "/usr/bin:/bin\n");
}

/// A descriptor `io` inherited without close-on-exec (its parent leaked
/// it) does not reach a hook: only 0, 1 and 2 do. Before, the hook found
/// it open at the same number.
#[test]
fn a_hook_gets_only_descriptors_0_to_2() {
    use std::os::fd::AsRawFd;
    let env = Env::new();
    env.write(
        "io.local.toml",
        // Expanded by the shell itself, before any redirection of its own.
        "[[hook]]\nrun = [\"/bin/sh\", \"-c\", \"set -- /proc/$$/fd/*; for f; do echo ${f##*/}; done > fds.txt\"]\n",
    );
    env.write("events.jsonl", ONE_EVENT);
    let file = std::fs::File::open(env.root().join("events.jsonl")).expect("open");
    // At a known number, far from the few the hook's shell opens itself.
    let leaked = rustix::io::fcntl_dupfd_cloexec(&file, 50).expect("dup");
    // std opens everything close-on-exec; a careless parent would not.
    rustix::io::fcntl_setfd(&leaked, rustix::io::FdFlags::empty()).expect("clear CLOEXEC");
    let number = leaked.as_raw_fd();
    let child = env
        .command(&["replay", "events.jsonl"])
        .env("LEAKED_FD", number.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("io runs");
    // Closed here at once: other tests' children need not inherit it long.
    drop((leaked, file));
    let out = output_within(child, Duration::from_secs(60), "io replay");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let fds = std::fs::read_to_string(env.root().join("fds.txt")).expect("fds.txt");
    let mut fds: Vec<i32> = fds.lines().map(|l| l.parse().expect("a number")).collect();
    fds.sort();
    assert!(
        !fds.contains(&number),
        "fd {number} reached the hook: {fds:?}"
    );
    // Beside stdio, only the directory the shell opened to list them.
    let others: Vec<_> = fds.iter().filter(|&&fd| fd > 2).collect();
    assert!(others.len() <= 1, "the hook got more than stdio: {fds:?}");
    assert!(fds.starts_with(&[0, 1, 2]), "{fds:?}");
}

/// `io -v replay` of one event to a failing hook, with stderr on a fresh
/// pseudo-terminal and `NO_COLOR` as given; returns what the terminal got.
fn stderr_on_a_terminal(env: &Env, no_color: Option<&str>) -> String {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    use std::io::Read;

    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("a pseudo-terminal");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().expect("a UTF-8 name"))
        .expect("the terminal's other end");
    let mut command = env.command(&["-v", "replay", "events.jsonl"]);
    command.env_remove("NO_COLOR");
    if let Some(value) = no_color {
        command.env("NO_COLOR", value);
    }
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(slave))
        .spawn()
        .expect("io runs");
    let out = output_within(child, Duration::from_secs(60), "io");
    assert_eq!(code(&out), 0, "{out:?}");
    // The child has exited and `command` held the only other copy of the
    // terminal's end, so the read ends (EIO on Linux) after what io wrote.
    drop(command);
    let mut text = Vec::new();
    let mut master = std::fs::File::from(master);
    let _ = master.read_to_end(&mut text);
    String::from_utf8_lossy(&text).into_owned()
}

#[test]
fn a_terminal_gets_colour_unless_no_color_is_set_and_a_pipe_never_does() {
    let env = Env::new();
    env.write("io.local.toml", "[[hook]]\nrun = [\"/bin/false\"]\n");
    env.write(
        "events.jsonl",
        "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r\",\"depth\":0}\n",
    );
    let warned = |text: &str| text.contains("hook[1] failed on `started`");
    let coloured = stderr_on_a_terminal(&env, None);
    assert!(warned(&coloured), "{coloured:?}");
    assert!(
        coloured.contains("\x1b["),
        "no colour on a terminal: {coloured:?}"
    );
    for value in ["1", "yes"] {
        let plain = stderr_on_a_terminal(&env, Some(value));
        assert!(warned(&plain), "{plain:?}");
        assert!(!plain.contains('\x1b'), "NO_COLOR={value}: {plain:?}");
    }
    // An empty NO_COLOR does not count (no-color.org).
    let empty = stderr_on_a_terminal(&env, Some(""));
    assert!(empty.contains("\x1b["), "NO_COLOR=: {empty:?}");
    let piped = env.io(&["-v", "replay", "events.jsonl"]);
    assert!(warned(&stderr(&piped)), "{}", stderr(&piped));
    assert!(!stderr(&piped).contains('\x1b'), "{}", stderr(&piped));
}

/// Each hook's `lets_through`, taken out of `io check --json`'s report: how
/// many tools it lets through unseen (`where_args.rs` says which), `None`
/// for a hook that is no policy on `tool_call`.
fn take_lets_through(report: &mut serde_json::Value) -> Vec<Option<usize>> {
    (report["hooks"].as_array_mut().into_iter().flatten())
        .map(|h| {
            h.as_object_mut()?
                .remove("lets_through")?
                .as_array()
                .map(Vec::len)
        })
        .collect()
}

#[test]
fn io_check_json_is_one_object_with_the_root_the_files_each_hook_and_its_problems() {
    let env = Env::new();
    let local = env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\nwhere.tool = \"exec\"\nrun = [\"./nope\"]\non_failure = \"cancel\"\n\n[[hook]]\nappend = \"audit.jsonl\"\n",
    );
    let out = env.io(&["check", "--json", "--event", "tool_call"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "one object, one line: {text}");
    let mut report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(take_lets_through(&mut report), [Some(6), None]);
    let root = env.root();
    assert_eq!(
        report,
        serde_json::json!({
            "root": root,
            "root_why": "the working directory, which holds `io.local.toml`",
            "files": [{ "path": local, "scope": "local", "hooks_in_force": true }],
            "looked_at": [],
            "passed_over": [],
            "profile": null,
            "replaced": [],
            "hooks_in_force": format!("hooks from {} (local scope)", local.display()),
            "hooks": [
                {
                    "hook": 1,
                    "key": "hook[1]",
                    "name": null,
                    "enabled": true,
                    "file": local,
                    "on": ["tool_call"],
                    "where": "tool = \"exec\"",
                    "does": "on tool_call: run [\"./nope\"] (timeout 5000 ms); on failure: cancel the run",
                    "on_failure": "cancel",
                    "problems": [{
                        "problem": format!("`./nope`: there is no `{}/nope`", root.display()),
                        "hint": "a program containing `/` is relative to the hooks' root: write its path from there (`./scripts/NAME`) or in full"
                    }],
                    "notes": []
                },
                {
                    "hook": 2,
                    "key": "hook[2]",
                    "name": null,
                    "enabled": true,
                    "file": local,
                    "on": null,
                    "where": null,
                    "does": "on every event: append to audit.jsonl; on failure: continue",
                    "on_failure": "continue",
                    "problems": [],
                    "notes": []
                }
            ],
            "event": {
                "tag": "tool_call",
                "fires": [2],
                "fires_only_where": [{ "hook": 1, "key": "hook[1]", "where": "tool = \"exec\"", "fields": ["tool"] }]
            },
            "broken": 1,
            "ok": false
        })
    );
}

#[test]
fn io_check_json_without_a_file_or_with_a_config_error_is_one_object_still() {
    // No file: where it looked; ok.
    let empty = Env::new();
    let out = empty.io(&["check", "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(report["ok"], true);
    assert_eq!(report["hooks"], serde_json::json!([]));
    assert_eq!(report["looked_at"].as_array().map(Vec::len), Some(3));
    // A config error is the same paragraph on stderr as without --json,
    // and one object on stdout (tests/check_json.rs has each kind).
    empty.write("io.local.toml", "[[hook]]\ntimout_ms = 1\n");
    let out = empty.io(&["check", "--json"]);
    assert_eq!(code(&out), 1);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(report["ok"], false);
    assert_eq!(report["key"], "hook[1].timout_ms");
    assert!(
        stderr(&out).contains("unknown key `timout_ms`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn io_completions_bash_completes_the_commands_and_their_flags() {
    let env = Env::new();
    env.write("io.local.toml", "[profile.ci]\n[profile.strict]\n");
    let out = env.io(&["completions", "bash"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let script = env.write("io.bash", &stdout(&out));
    // Loaded by bash itself, then asked as bash asks it when TAB is hit:
    // the script calls `io` back, in the root, with the operator's scopes.
    let complete = |words: &str, index: usize| {
        let program = format!(
            "source {}\nCOMP_WORDS=({words})\nCOMP_CWORD={index}\nCOMP_TYPE=9\n_clap_complete_io io \"${{COMP_WORDS[$COMP_CWORD]}}\" \"${{COMP_WORDS[$COMP_CWORD-1]}}\"\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let out = Command::new("bash")
            .args(["--norc", "--noprofile", "-c", &program])
            .current_dir(env.root())
            .env("IO_CONFIG_HOME", env.dir.path().join("user"))
            .env("IO_DATA_HOME", env.dir.path().join("data"))
            .output()
            .expect("bash runs");
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stderr(&out), "", "nothing on the operator's line");
        stdout(&out)
    };
    let commands = complete("io ''", 1);
    for name in [
        "check",
        "events",
        "schema",
        "replay",
        "run",
        "demo",
        "completions",
    ] {
        assert!(commands.lines().any(|l| l == name), "{name} in {commands}");
    }
    assert_eq!(complete("io ch", 1).trim(), "check");
    let flags = complete("io check --", 2);
    for flag in ["--root", "--profile", "--event", "--json"] {
        assert!(flags.lines().any(|l| l == flag), "{flag} in {flags}");
    }
    // And the root's own names: its profiles.
    assert_eq!(complete("io run --profile ''", 3), "ci\nstrict\n");
    assert_eq!(complete("io run --profile st", 3), "strict\n");
    // Every shell clap knows gets a script that registers `io`.
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = env.io(&["completions", shell]);
        assert_eq!(code(&out), 0, "{shell}: {}", stderr(&out));
        assert!(stdout(&out).contains("COMPLETE"), "{shell}");
        assert!(
            stdout(&out).contains(env!("CARGO_BIN_EXE_io")),
            "{shell}: calls io back"
        );
    }
    let out = env.io(&["completions", "tcsh"]);
    assert_eq!(code(&out), 2, "an unknown shell is a usage error");
}
