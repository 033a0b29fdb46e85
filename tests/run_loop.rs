//! The reference run loop, observed by a recording observer.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::sync::Mutex;
use std::thread::ThreadId;

use io_harness::{
    ApproveAll, EventKind, Flow, Observer, Outcome, RunEvent, resume_observed,
    run::{Contract, DenyAll, FileStore, Policy, Rule, RunError, RunOutcome, ScriptedProvider},
    run_with_observed,
};

/// Records every event with the thread it arrived on; cancels on the events
/// `cancel_on` accepts.
struct Recorder<F: Fn(&RunEvent) -> bool + Send + Sync> {
    events: Mutex<Vec<(RunEvent, ThreadId)>>,
    cancel_on: F,
}

impl<F: Fn(&RunEvent) -> bool + Send + Sync> Recorder<F> {
    fn new(cancel_on: F) -> Self {
        Recorder {
            events: Mutex::new(Vec::new()),
            cancel_on,
        }
    }

    fn events(&self) -> Vec<RunEvent> {
        self.events
            .lock()
            .expect("lock")
            .iter()
            .map(|(e, _)| e.clone())
            .collect()
    }

    fn tags(&self) -> Vec<&'static str> {
        self.events().iter().map(RunEvent::tag).collect()
    }
}

impl<F: Fn(&RunEvent) -> bool + Send + Sync> Observer for Recorder<F> {
    fn event(&self, event: &RunEvent) -> Flow {
        self.events
            .lock()
            .expect("lock")
            .push((event.clone(), std::thread::current().id()));
        if (self.cancel_on)(event) {
            Flow::Cancel
        } else {
            Flow::Continue
        }
    }
}

fn never(_: &RunEvent) -> bool {
    false
}

struct Fixture {
    _dir: tempfile::TempDir,
    workspace: std::path::PathBuf,
    store: FileStore,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let workspace = dir.path().join("ws");
    std::fs::create_dir(&workspace).expect("workspace");
    // The operator's checkout, in which `io.local.toml` is untracked.
    common::work_tree(&workspace);
    let store = FileStore::new(dir.path().join("store")).expect("store");
    Fixture {
        _dir: dir,
        workspace,
        store,
    }
}

fn script(text: &str) -> ScriptedProvider {
    ScriptedProvider::from_toml("test.toml", text).expect("script parses")
}

fn run(
    fx: &Fixture,
    provider: &ScriptedProvider,
    policy: &Policy,
    approver: &dyn io_harness::run::Approver,
    observer: &dyn Observer,
) -> io_harness::run::RunResult {
    let contract = Contract {
        run_id: Some("r-test".into()),
        ..Contract::new(provider.goal(), &fx.workspace)
    };
    run_contract(fx, &contract, provider, policy, approver, observer)
}

/// Runs `contract` to its end on `fx`'s store, which must succeed.
fn run_contract(
    fx: &Fixture,
    contract: &Contract,
    provider: &ScriptedProvider,
    policy: &Policy,
    approver: &dyn io_harness::run::Approver,
    observer: &dyn Observer,
) -> io_harness::run::RunResult {
    pollster::block_on(run_with_observed(
        contract, provider, &fx.store, policy, approver, observer,
    ))
    .expect("run")
}

/// What the model was shown of the run's first step, from its journal.
fn first_observation(fx: &Fixture, run_id: &str) -> String {
    use io_harness::run::{Record, Store};
    let records = fx.store.load(run_id).expect("load").expect("a journal");
    records
        .into_iter()
        .find_map(|r| match r {
            Record::Step { observation, .. } => Some(observation),
            _ => None,
        })
        .expect("a step record")
}

fn resume(
    fx: &Fixture,
    run_id: &str,
    provider: &ScriptedProvider,
    observer: &dyn Observer,
) -> Result<io_harness::run::RunResult, RunError> {
    pollster::block_on(resume_observed(
        run_id,
        provider,
        &fx.store,
        &Policy::default(),
        &ApproveAll,
        observer,
    ))
}

const WRITE_THEN_ANSWER: &str = r#"
goal = "greet"
[[turn]]
say = "I will write it."
calls = [{ tool = "write_file", args = { path = "src/greet.txt", content = "hi\n" } }]
[[turn]]
say = "Done."
answer = "wrote src/greet.txt"
"#;

#[test]
fn a_run_writes_the_workspace_and_reports_each_event_in_order() {
    let fx = fixture();
    let rec = Recorder::new(never);
    let result = run(
        &fx,
        &script(WRITE_THEN_ANSWER),
        &Policy::default(),
        &ApproveAll,
        &rec,
    );
    assert_eq!(
        result.outcome,
        RunOutcome::Completed {
            steps: 2,
            answer: "wrote src/greet.txt".into()
        }
    );
    assert_eq!(
        std::fs::read_to_string(fx.workspace.join("src/greet.txt")).expect("written"),
        "hi\n"
    );
    assert_eq!(
        rec.tags(),
        [
            "started",
            "token",
            "token",
            "token",
            "token",
            "spend_draw",
            "tool_call",
            "step",
            "token",
            "spend_draw",
            "step",
            "finished"
        ]
    );
    let events = rec.events();
    let seqs: Vec<u64> = events.iter().map(|e| e.seq.expect("seq")).collect();
    assert_eq!(seqs, (0..events.len() as u64).collect::<Vec<_>>());
    assert!(events.iter().all(|e| e.run_id == "r-test" && e.depth == 0));
    assert_eq!(
        events[7].kind,
        EventKind::Step {
            step: 1,
            moved_the_workspace: true
        }
    );
    assert_eq!(
        events[10].kind,
        EventKind::Step {
            step: 2,
            moved_the_workspace: false
        }
    );
    assert_eq!(
        events[11].kind,
        EventKind::Finished {
            outcome: Outcome::Completed,
            steps: 2,
            resumed: false
        }
    );
}

#[test]
fn writing_the_bytes_already_there_does_not_move_the_workspace() {
    let fx = fixture();
    std::fs::create_dir_all(fx.workspace.join("src")).expect("dir");
    std::fs::write(fx.workspace.join("src/greet.txt"), "hi\n").expect("seed");
    let rec = Recorder::new(never);
    run(
        &fx,
        &script(WRITE_THEN_ANSWER),
        &Policy::default(),
        &ApproveAll,
        &rec,
    );
    let steps: Vec<EventKind> = rec
        .events()
        .into_iter()
        .filter(|e| e.tag() == "step")
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        steps[0],
        EventKind::Step {
            step: 1,
            moved_the_workspace: false
        }
    );
}

const THREE_STEPS: &str = r#"
goal = "three"
[[turn]]
calls = [{ tool = "write_file", args = { path = "a.txt", content = "a" } }]
[[turn]]
calls = [{ tool = "write_file", args = { path = "b.txt", content = "b" } }]
[[turn]]
calls = [{ tool = "write_file", args = { path = "c.txt", content = "c" } }]
answer = "done"
"#;

#[test]
fn a_cancel_is_honoured_at_the_next_step_boundary_and_the_run_resumes() {
    let fx = fixture();
    let provider = script(THREE_STEPS);
    // Cancel on the second step's tool call: the tool still runs, the step
    // still commits, and the run ends after it.
    let rec = Recorder::new(|e: &RunEvent| matches!(&e.kind, EventKind::ToolCall { step: 2, .. }));
    let result = run(&fx, &provider, &Policy::default(), &ApproveAll, &rec);
    assert_eq!(result.outcome, RunOutcome::Cancelled { steps: 2 });
    assert!(
        fx.workspace.join("b.txt").exists(),
        "a cancel does not un-call the tool"
    );
    assert!(!fx.workspace.join("c.txt").exists());
    let tags = rec.tags();
    assert_eq!(&tags[tags.len() - 3..], ["tool_call", "step", "finished"]);
    assert_eq!(
        rec.events().last().expect("finished").kind,
        EventKind::Finished {
            outcome: Outcome::Cancelled,
            steps: 2,
            resumed: false
        }
    );
    let last_seq = rec.events().last().and_then(|e| e.seq).expect("seq");

    let resumed = Recorder::new(never);
    let result = resume(&fx, "r-test", &provider, &resumed).expect("resume");
    assert_eq!(
        result.outcome,
        RunOutcome::Completed {
            steps: 3,
            answer: "done".into()
        }
    );
    assert!(fx.workspace.join("c.txt").exists());
    let events = resumed.events();
    assert_eq!(events[0].tag(), "started");
    assert_eq!(
        events[0].seq,
        Some(last_seq + 1),
        "seq continues across a resume"
    );
    assert!(events.iter().any(|e| e.kind
        == EventKind::Step {
            step: 3,
            moved_the_workspace: true
        }));

    let again = resume(&fx, "r-test", &provider, &resumed);
    assert!(
        matches!(again, Err(RunError::AlreadyCompleted(_))),
        "{again:?}"
    );
    let unknown = resume(&fx, "r-nope", &provider, &resumed);
    assert!(
        matches!(unknown, Err(RunError::UnknownRun(_))),
        "{unknown:?}"
    );
}

#[test]
fn a_cancel_on_the_step_event_itself_stops_right_after_it() {
    let fx = fixture();
    let rec = Recorder::new(|e: &RunEvent| e.tag() == "step");
    let result = run(
        &fx,
        &script(THREE_STEPS),
        &Policy::default(),
        &ApproveAll,
        &rec,
    );
    assert_eq!(result.outcome, RunOutcome::Cancelled { steps: 1 });
}

#[test]
fn steps_that_move_nothing_raise_stalled_once_at_the_threshold() {
    let fx = fixture();
    std::fs::write(fx.workspace.join("notes.txt"), "n").expect("seed");
    let read = r#"calls = [{ tool = "read_file", args = { path = "notes.txt" } }]"#;
    let text = format!(
        "goal = \"idle\"\n{}[[turn]]\nanswer = \"gave up\"\n",
        format!("[[turn]]\n{read}\n").repeat(4)
    );
    let rec = Recorder::new(never);
    run(&fx, &script(&text), &Policy::default(), &ApproveAll, &rec);
    let stalled: Vec<EventKind> = rec
        .events()
        .into_iter()
        .filter(|e| e.tag() == "stalled")
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        stalled,
        [EventKind::Stalled {
            step: 3,
            steps_without_progress: 3
        }]
    );
}

#[test]
fn the_policy_refuses_and_the_approver_decides() {
    let fx = fixture();
    let text = r#"
goal = "risky"
[[turn]]
calls = [
  { tool = "exec", args = { argv = ["true"] } },
  { tool = "exec", args = { argv = ["rm", "-rf", "x"] } },
  { tool = "format_disk" },
]
answer = "tried"
"#;
    let policy = Policy::default().program("rm", Rule::Deny);
    let rec = Recorder::new(never);
    run(&fx, &script(text), &policy, &DenyAll, &rec);
    let interesting: Vec<EventKind> = rec
        .events()
        .into_iter()
        .map(|e| e.kind)
        .filter(|k| {
            matches!(
                k,
                EventKind::Refused { .. }
                    | EventKind::ApprovalRequested { .. }
                    | EventKind::ApprovalDecided { .. }
                    | EventKind::Sandbox { .. }
            )
        })
        .collect();
    let refused = |tool: &str, reason: &str| EventKind::Refused {
        step: 1,
        tool: tool.into(),
        reason: reason.into(),
    };
    assert_eq!(
        interesting,
        [
            EventKind::ApprovalRequested {
                step: 1,
                tool: "exec".into(),
                args: serde_json::json!({"argv": ["true"]}).into()
            },
            EventKind::ApprovalDecided {
                step: 1,
                tool: "exec".into(),
                approved: false
            },
            refused("exec", "not approved"),
            refused("exec", "denied by policy"),
            refused("format_disk", "denied by policy"),
        ]
    );
}

#[test]
fn an_approved_command_runs_as_an_argv_in_the_workspace() {
    let fx = fixture();
    let text = r#"
goal = "mkdir"
[[turn]]
calls = [{ tool = "exec", args = { argv = ["mkdir", "made; touch pwned"] } }]
answer = "ok"
"#;
    let rec = Recorder::new(never);
    run(&fx, &script(text), &Policy::default(), &ApproveAll, &rec);
    assert!(
        fx.workspace.join("made; touch pwned").is_dir(),
        "one argument, not a shell line"
    );
    assert!(!fx.workspace.join("pwned").exists());
    let sandbox: Vec<EventKind> = rec
        .events()
        .into_iter()
        .filter(|e| e.tag() == "sandbox")
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        sandbox,
        [EventKind::Sandbox {
            step: 1,
            program: "mkdir".into(),
            outcome: "exited 0".into()
        }]
    );
}

#[test]
fn a_path_outside_the_workspace_is_refused_as_a_tool_error() {
    let fx = fixture();
    let text = r#"
goal = "escape"
[[turn]]
calls = [
  { tool = "write_file", args = { path = "../escaped.txt", content = "x" } },
  { tool = "write_file", args = { path = "/tmp/io-harness-escaped.txt", content = "x" } },
]
answer = "tried"
"#;
    let rec = Recorder::new(never);
    let result = run(&fx, &script(text), &Policy::default(), &ApproveAll, &rec);
    assert_eq!(result.outcome.steps(), 1);
    assert!(
        !fx.workspace
            .parent()
            .expect("parent")
            .join("escaped.txt")
            .exists()
    );
    assert!(!std::path::Path::new("/tmp/io-harness-escaped.txt").exists());
    assert!(rec.events().iter().any(|e| e.kind
        == EventKind::Step {
            step: 1,
            moved_the_workspace: false
        }));
}

const TREE: &str = r#"
goal = "parent"
[[turn]]
calls = [
  { tool = "spawn", args = { goal = "left" } },
  { tool = "spawn", args = { goal = "right" } },
]
[[turn]]
answer = "both done"

[[child]]
goal = "left"
[[child.turn]]
calls = [{ tool = "write_file", args = { path = "left.txt", content = "l" } }]
answer = "left done"

[[child]]
goal = "right"
[[child.turn]]
calls = [{ tool = "spawn", args = { goal = "too deep" } }]
answer = "right done"

[[child]]
goal = "too deep"
[[child.turn]]
answer = "unreachable"
"#;

/// Runs [`TREE`] as `run_id`, children allowed one level deep.
fn run_tree(fx: &Fixture, run_id: &str, observer: &dyn Observer) -> io_harness::run::RunResult {
    let contract = Contract {
        run_id: Some(run_id.into()),
        max_depth: 1,
        ..Contract::new("parent", &fx.workspace)
    };
    run_contract(
        fx,
        &contract,
        &script(TREE),
        &Policy::default(),
        &ApproveAll,
        observer,
    )
}

#[test]
fn children_run_on_their_own_threads_with_their_own_run_id_and_depth() {
    let fx = fixture();
    let rec = Recorder::new(never);
    let result = run_tree(&fx, "r-tree", &rec);
    assert_eq!(
        result.outcome,
        RunOutcome::Completed {
            steps: 2,
            answer: "both done".into()
        }
    );
    assert!(fx.workspace.join("left.txt").exists());
    let all = rec.events.lock().expect("lock").clone();
    let parent_thread = all[0].1;
    let child_ids: std::collections::BTreeSet<String> = all
        .iter()
        .filter(|(e, _)| e.depth == 1)
        .map(|(e, _)| e.run_id.clone())
        .collect();
    assert_eq!(
        child_ids.into_iter().collect::<Vec<_>>(),
        ["r-tree.1.1", "r-tree.1.2"]
    );
    assert!(
        all.iter()
            .filter(|(e, _)| e.depth == 1)
            .all(|(_, t)| *t != parent_thread)
    );
    let spawned = all
        .iter()
        .filter(|(e, _)| e.tag() == "spawned" && e.run_id == "r-tree")
        .count();
    assert_eq!(spawned, 2);
    let refused: Vec<&RunEvent> = all
        .iter()
        .map(|(e, _)| e)
        .filter(|e| e.tag() == "spawn_refused")
        .collect();
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].run_id, "r-tree.1.2");
    assert_eq!(refused[0].depth, 1);
    for id in ["r-tree.1.1", "r-tree.1.2"] {
        let finished = all.iter().any(|(e, _)| {
            e.run_id == id
                && matches!(
                    e.kind,
                    EventKind::Finished {
                        outcome: Outcome::Completed,
                        steps: 1,
                        resumed: false
                    }
                )
        });
        assert!(finished, "{id} finished");
    }
}

/// The tags, `run_id`s and depths in a JSON-lines audit log.
fn audit_lines(path: &std::path::Path) -> Vec<(String, String, u64)> {
    std::fs::read_to_string(path)
        .expect("the audit log")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            (
                v["event"].as_str().expect("a tag").to_owned(),
                v["run_id"].as_str().expect("a run_id").to_owned(),
                v["depth"].as_u64().expect("a depth"),
            )
        })
        .collect()
}

#[test]
fn one_hooks_receives_a_live_trees_child_events_with_their_own_run_id_and_depth() {
    // The spec's installation, once, for a run that spawns two children:
    // the one `Hooks` appends every event of the tree, each child's under
    // its own `run_id` at depth 1.
    let fx = fixture();
    std::fs::write(
        fx.workspace.join("io.local.toml"),
        "[[hook]]\nappend = \"audit.jsonl\"\n",
    )
    .expect("io.local.toml");
    let config = io_harness::Config::discover_with(&fx.workspace, None).expect("config");
    let hooks = config.hooks();
    let result = run_tree(&fx, "r-tree", &hooks);
    assert!(matches!(result.outcome, RunOutcome::Completed { .. }));
    let lines = audit_lines(&fx.workspace.join("audit.jsonl"));
    let runs: std::collections::BTreeSet<(String, u64)> = lines
        .iter()
        .map(|(_, id, depth)| (id.clone(), *depth))
        .collect();
    assert_eq!(
        runs.into_iter().collect::<Vec<_>>(),
        [
            ("r-tree".to_owned(), 0),
            ("r-tree.1.1".to_owned(), 1),
            ("r-tree.1.2".to_owned(), 1)
        ]
    );
    for child in ["r-tree.1.1", "r-tree.1.2"] {
        let tags: Vec<&str> = lines
            .iter()
            .filter(|(_, id, _)| id == child)
            .map(|(tag, _, _)| tag.as_str())
            .collect();
        assert_eq!(tags.first(), Some(&"started"), "{child}: {tags:?}");
        assert_eq!(tags.last(), Some(&"finished"), "{child}: {tags:?}");
    }
    assert!(
        lines
            .iter()
            .any(|(tag, id, _)| tag == "spawn_refused" && id == "r-tree.1.2")
    );
}

#[test]
fn nothing_installs_a_hook_on_its_own() {
    // An `io.local.toml` declaring an append hook and a run hook, which
    // discovery loads; a run in that directory with an observer of its own,
    // not `config.hooks()`: neither hook acts, and the append hook's file,
    // which building the hooks creates, is never even created.
    let fx = fixture();
    std::fs::write(
        fx.workspace.join("io.local.toml"),
        "[[hook]]\nappend = \"audit.jsonl\"\n\n\
         [[hook]]\nrun = [\"/bin/sh\", \"-c\", \": > hook-ran\"]\n",
    )
    .expect("io.local.toml");
    let config = io_harness::Config::discover_with(&fx.workspace, None).expect("config");
    assert_eq!(config.hook_specs().len(), 2, "both hooks were loaded");
    let rec = Recorder::new(never);
    let result = run_tree(&fx, "r-uninstalled", &rec);
    assert!(matches!(result.outcome, RunOutcome::Completed { .. }));
    assert!(rec.tags().len() > 10, "the run emitted its events");
    let audit = fx.workspace.join("audit.jsonl");
    assert!(!audit.exists(), "an append hook acted uninstalled");
    assert!(
        !fx.workspace.join("hook-ran").exists(),
        "a run hook acted uninstalled"
    );
    // The control: building the hooks is what creates the file.
    drop(config.hooks());
    assert!(audit.exists());
}

#[test]
fn a_provider_that_cannot_answer_is_retried_then_the_run_fails_resumably() {
    let fx = fixture();
    let provider = script("goal = \"short\"\n[[turn]]\nsay = \"hm\"\n");
    let rec = Recorder::new(never);
    let result = run(&fx, &provider, &Policy::default(), &ApproveAll, &rec);
    assert!(
        matches!(&result.outcome, RunOutcome::Failed { steps: 1, reason } if reason.contains("has 1 turns")),
        "{:?}",
        result.outcome
    );
    let retries: Vec<u32> = rec
        .events()
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::Retry { attempt, .. } => Some(attempt),
            _ => None,
        })
        .collect();
    assert_eq!(retries, [2, 3]);
}

fn kinds_tagged(rec: &Recorder<fn(&RunEvent) -> bool>, tags: &[&str]) -> Vec<EventKind> {
    rec.events()
        .into_iter()
        .filter(|e| tags.contains(&e.tag()))
        .map(|e| e.kind)
        .collect()
}

#[test]
fn three_failed_attempts_fall_back_to_the_scripts_fallback_model() {
    let fx = fixture();
    let provider = script(
        r#"
goal = "flaky"
fallback = "backup-model"
[[turn]]
fail = 3
server_tools = ["web_search"]
answer = "got there"
"#,
    );
    let rec: Recorder<fn(&RunEvent) -> bool> = Recorder::new(never);
    let result = run(&fx, &provider, &Policy::default(), &ApproveAll, &rec);
    assert_eq!(
        result.outcome,
        RunOutcome::Completed {
            steps: 1,
            answer: "got there".into()
        }
    );
    let reason = |n: u32| format!("scripted failure {n} of 3 (model overloaded)");
    assert_eq!(
        kinds_tagged(&rec, &["retry", "fell_back_to", "server_tool_used"]),
        [
            EventKind::Retry {
                step: 1,
                attempt: 2,
                reason: reason(1)
            },
            EventKind::Retry {
                step: 1,
                attempt: 3,
                reason: reason(2)
            },
            EventKind::FellBackTo {
                step: 1,
                provider: "backup-model".into(),
                reason: reason(3)
            },
            EventKind::ServerToolUsed {
                step: 1,
                tool: "web_search".into()
            },
        ]
    );
}

#[test]
fn memory_todo_and_questions_are_real_tools_with_their_events() {
    let fx = fixture();
    let provider = script(
        r#"
goal = "plan"
[[turn]]
calls = [
  { tool = "memory_write", args = { key = "style", value = "tabs" } },
  { tool = "todo_write", args = { items = ["write", "test"] } },
  { tool = "ask", args = { question = "which file?" } },
  { tool = "ask", args = { question = "unscripted?" } },
]
answer = "planned"

[operator]
answers = { "which file?" = "src/x.rs" }
"#,
    );
    let rec: Recorder<fn(&RunEvent) -> bool> = Recorder::new(never);
    run(
        &fx,
        &provider,
        &Policy::default(),
        provider.operator(),
        &rec,
    );
    assert_eq!(
        std::fs::read_to_string(fx.workspace.join(".io/memory/style.md")).expect("memory"),
        "tabs"
    );
    assert_eq!(
        std::fs::read_to_string(fx.workspace.join(".io/todo.md")).expect("todo"),
        "- [ ] write\n- [ ] test\n"
    );
    assert_eq!(
        kinds_tagged(
            &rec,
            &[
                "memory_wrote",
                "todo_wrote",
                "question_asked",
                "question_answered",
                "step"
            ]
        ),
        [
            EventKind::MemoryWrote {
                step: 1,
                key: "style".into()
            },
            EventKind::TodoWrote { step: 1, items: 2 },
            EventKind::QuestionAsked {
                step: 1,
                question: "which file?".into()
            },
            EventKind::QuestionAnswered {
                step: 1,
                answer: "src/x.rs".into()
            },
            EventKind::QuestionAsked {
                step: 1,
                question: "unscripted?".into()
            },
            // The run's own notes are not progress.
            EventKind::Step {
                step: 1,
                moved_the_workspace: false
            },
        ]
    );
}

/// Whether any live process has exactly this argv.
fn process_with_argv_exists(argv: &[&str]) -> bool {
    let wanted: Vec<u8> = argv.iter().flat_map(|a| a.bytes().chain([0])).collect();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .any(|cmdline| cmdline == wanted)
}

#[test]
fn handles_start_poll_exit_and_are_killed_when_the_run_ends() {
    let fx = fixture();
    // A unique argument, so the test can look for this very process.
    let nap = format!("30.{}", std::process::id());
    // `true` exits at once; it is polled (with a command between polls to
    // let it finish) until it is seen to exit, at most 40 times.
    let poll_turn = "[[turn]]\ncalls = [{ tool = \"exec\", args = { argv = [\"true\"] } }, { tool = \"poll\", args = { handle = \"h-1\" } }]\n";
    let text = format!(
        "goal = \"handles\"\n\
         [[turn]]\ncalls = [{{ tool = \"exec_background\", args = {{ argv = [\"true\"] }} }}, \
         {{ tool = \"exec_background\", args = {{ argv = [\"sleep\", \"{nap}\"] }} }}, \
         {{ tool = \"exec_background\", args = {{ argv = [\"sleep\", \"{nap}\"] }} }}]\n\
         [[turn]]\ncalls = [{{ tool = \"kill\", args = {{ handle = \"h-2\" }} }}, {{ tool = \"poll\", args = {{ handle = \"h-3\" }} }}]\n\
         {}[[turn]]\nanswer = \"left one running\"\n",
        poll_turn.repeat(40)
    );
    let rec: Recorder<fn(&RunEvent) -> bool> = Recorder::new(never);
    run(&fx, &script(&text), &Policy::default(), &ApproveAll, &rec);
    let handles = kinds_tagged(
        &rec,
        &[
            "handle_started",
            "handle_killed",
            "handle_exited",
            "handle_orphaned",
        ],
    );
    let argv = |a: &[&str]| a.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(
        handles,
        [
            EventKind::HandleStarted {
                step: 1,
                handle: "h-1".into(),
                argv: argv(&["true"])
            },
            EventKind::HandleStarted {
                step: 1,
                handle: "h-2".into(),
                argv: argv(&["sleep", &nap])
            },
            EventKind::HandleStarted {
                step: 1,
                handle: "h-3".into(),
                argv: argv(&["sleep", &nap])
            },
            EventKind::HandleKilled {
                step: 2,
                handle: "h-2".into()
            },
            handles
                .iter()
                .find(|k| matches!(k, EventKind::HandleExited { .. }))
                .cloned()
                .expect("h-1 exited"),
            EventKind::HandleOrphaned {
                handle: "h-3".into()
            },
        ]
    );
    assert!(
        matches!(&handles[4], EventKind::HandleExited { handle, code: Some(0), .. } if handle == "h-1")
    );
    let polled = kinds_tagged(&rec, &["handle_polled"]);
    assert_eq!(
        polled[0],
        EventKind::HandlePolled {
            step: 2,
            handle: "h-3".into(),
            running: true
        }
    );
    assert!(
        !process_with_argv_exists(&["sleep", &nap]),
        "no handle outlives its run"
    );
}

#[test]
fn exec_output_reaches_the_observation_and_a_slow_command_is_killed_at_its_timeout() {
    let fx = fixture();
    // Two runs, so that the short timeout applies to `sleep` alone: on a
    // loaded machine even `echo` can take longer than 150 ms to start.
    let outcomes = |rec: &Recorder<fn(&RunEvent) -> bool>| -> Vec<String> {
        kinds_tagged(rec, &["sandbox"])
            .into_iter()
            .map(|k| match k {
                EventKind::Sandbox { outcome, .. } => outcome,
                other => panic!("{other:?}"),
            })
            .collect()
    };
    let quick = script(
        r#"
goal = "commands"
[[turn]]
calls = [
  { tool = "exec", args = { argv = ["echo", "hello from exec"] } },
  { tool = "exec", args = { argv = ["no-such-program-here"] } },
]
answer = "ran"
"#,
    );
    let rec: Recorder<fn(&RunEvent) -> bool> = Recorder::new(never);
    let contract = Contract {
        run_id: Some("r-exec".into()),
        ..Contract::new("commands", &fx.workspace)
    };
    run_contract(
        &fx,
        &contract,
        &quick,
        &Policy::default(),
        &ApproveAll,
        &rec,
    );
    assert_eq!(
        outcomes(&rec),
        [
            "exited 0",
            "could not spawn `no-such-program-here`: not found in any absolute `PATH` entry",
        ]
    );
    let observation = first_observation(&fx, "r-exec");
    assert!(
        observation.contains("[exec echo] exited 0\nhello from exec\n"),
        "{observation}"
    );

    let slow = script(
        r#"
goal = "a slow command"
[[turn]]
calls = [{ tool = "exec", args = { argv = ["sleep", "60"] } }]
answer = "ran"
"#,
    );
    let rec: Recorder<fn(&RunEvent) -> bool> = Recorder::new(never);
    let contract = Contract {
        run_id: Some("r-exec-slow".into()),
        exec_timeout: std::time::Duration::from_millis(150),
        ..Contract::new("a slow command", &fx.workspace)
    };
    let started = std::time::Instant::now();
    run_contract(&fx, &contract, &slow, &Policy::default(), &ApproveAll, &rec);
    // `sleep 60` is what a regression would wait for; half of it leaves
    // room for a loaded machine, where 4 s against `sleep 5` left one
    // second (issue 31).
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "sleep 60 was not killed"
    );
    assert_eq!(outcomes(&rec), ["timed out after 150 ms and was killed"]);
}

#[test]
fn the_mcp_tool_sends_one_json_rpc_request_and_is_asked_about_first() {
    let fx = fixture();
    // The server reads one request and answers with the method it was asked.
    std::fs::write(
        fx.workspace.join("server.sh"),
        "read -r req\ncase \"$req\" in *'\"method\":\"tools/list\"'*) printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[\"search\"]}}' ;; *) printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601}}' ;; esac\n",
    )
    .expect("server");
    let text = r#"
goal = "mcp"
[[turn]]
calls = [
  { tool = "mcp", args = { server = "docs", method = "tools/list" } },
  { tool = "mcp", args = { server = "docs", method = "nope" } },
  { tool = "mcp", args = { server = "missing", method = "tools/list" } },
]
answer = "asked"
"#;
    let provider = script(text);
    let rec: Recorder<fn(&RunEvent) -> bool> = Recorder::new(never);
    let contract = Contract {
        run_id: Some("r-mcp".into()),
        mcp_servers: [(
            "docs".to_owned(),
            vec!["/bin/sh".to_owned(), "./server.sh".to_owned()],
        )]
        .into(),
        ..Contract::new("mcp", &fx.workspace)
    };
    run_contract(
        &fx,
        &contract,
        &provider,
        &Policy::default(),
        &ApproveAll,
        &rec,
    );
    let mcp = kinds_tagged(&rec, &["mcp", "approval_requested"]);
    let asked = |method: &str, server: &str| EventKind::ApprovalRequested {
        step: 1,
        tool: "mcp".into(),
        args: serde_json::json!({"server": server, "method": method}).into(),
    };
    assert_eq!(
        mcp,
        [
            asked("tools/list", "docs"),
            EventKind::Mcp {
                step: 1,
                server: "docs".into(),
                method: "tools/list".into()
            },
            asked("nope", "docs"),
            EventKind::Mcp {
                step: 1,
                server: "docs".into(),
                method: "nope".into()
            },
            asked("tools/list", "missing"),
        ]
    );
    let observation = first_observation(&fx, "r-mcp");
    assert!(
        observation.contains("[mcp docs tools/list] {\"tools\":[\"search\"]}"),
        "{observation}"
    );
    assert!(
        observation.contains("the server answered an error: {\"code\":-32601}"),
        "{observation}"
    );
    assert!(
        observation.contains("no MCP server named `missing`; this run has: docs"),
        "{observation}"
    );
}

/// A first turn that writes and answers, and a second the run is asked for
/// only when a resume continues past the first.
const ANSWER_THEN_SPARE: &str = r#"
goal = "last"
[[turn]]
say = "Writing it."
calls = [{ tool = "write_file", args = { path = "a.txt", content = "a" } }]
answer = "first"
[[turn]]
answer = "second"
"#;

#[test]
fn a_cancel_raised_in_the_last_step_ends_the_run_cancelled_and_resumable() {
    // Every event of the step that answers: each one's cancel must win over
    // the answer.
    for tag in ["token", "spend_draw", "tool_call", "step"] {
        let fx = fixture();
        let provider = script(ANSWER_THEN_SPARE);
        let rec = Recorder::new(move |e: &RunEvent| e.tag() == tag);
        let result = run(&fx, &provider, &Policy::default(), &ApproveAll, &rec);
        assert_eq!(
            result.outcome,
            RunOutcome::Cancelled { steps: 1 },
            "a cancel on `{tag}`"
        );
        assert!(
            fx.workspace.join("a.txt").exists(),
            "the step is finished: {tag}"
        );
        let events = rec.events();
        let tags: Vec<_> = events.iter().map(RunEvent::tag).collect();
        assert_eq!(&tags[tags.len() - 2..], ["step", "finished"], "{tag}");
        assert_eq!(
            events.last().expect("finished").kind,
            EventKind::Finished {
                outcome: Outcome::Cancelled,
                steps: 1,
                resumed: false
            },
            "a cancel on `{tag}`"
        );

        let resumed = Recorder::new(never);
        let result = resume(&fx, "r-test", &provider, &resumed).expect("resume");
        assert_eq!(
            result.outcome,
            RunOutcome::Completed {
                steps: 2,
                answer: "second".into()
            },
            "a resume after a cancel on `{tag}` asks for the next step"
        );
    }
}

#[test]
fn an_unknown_tool_the_policy_lets_through_is_reported_by_name_as_before() {
    let fx = fixture();
    let text = r#"
goal = "unknown"
[[turn]]
calls = [
  { tool = "frobnicate", args = { path = "a.txt" } },
  { tool = "Read_File", args = { path = "a.txt" } },
  { tool = "write_file", args = { path = "a.txt" } },
]
answer = "tried"
"#;
    // The default policy denies a tool it does not know; this one lets the
    // names through, so the loop itself has to say it has no such tool.
    let policy = Policy::default()
        .tool("frobnicate", Rule::Allow)
        .tool("Read_File", Rule::Allow);
    let rec: Recorder<fn(&RunEvent) -> bool> = Recorder::new(never);
    let result = run(&fx, &script(text), &policy, &ApproveAll, &rec);
    assert_eq!(result.outcome.steps(), 1);
    assert_eq!(
        first_observation(&fx, "r-test"),
        "[frobnicate failed] no tool named `frobnicate`\n\
         [Read_File failed] no tool named `Read_File`\n\
         [write_file failed] missing string argument `content`"
    );
    assert!(kinds_tagged(&rec, &["refused"]).is_empty());
}

#[test]
fn each_tool_failure_reaches_the_model_in_its_own_words() {
    let fx = fixture();
    std::fs::write(fx.workspace.join("twice.txt"), "a a").expect("twice");
    std::fs::write(fx.workspace.join("latin1.txt"), b"caf\xe9").expect("latin1");
    let text = r#"
goal = "fail"
[[turn]]
calls = [
  { tool = "edit_file", args = { path = "twice.txt", old = "a", new = "b" } },
  { tool = "edit_file", args = { path = "twice.txt", old = "z", new = "b" } },
  { tool = "edit_file", args = { path = "latin1.txt", old = "caf", new = "tea" } },
  { tool = "memory_write", args = { key = "../escape", value = "x" } },
  { tool = "poll", args = { handle = "h-9" } },
  { tool = "kill", args = { handle = "h-9" } },
  { tool = "exec_background", args = { argv = [] } },
  { tool = "exec_background", args = { argv = ["io-no-such-program-here"] } },
  { tool = "todo_write", args = {} },
  { tool = "mcp", args = { server = "prose", method = "tools/list" } },
  { tool = "mcp", args = { server = "empty", method = "tools/list" } },
]
answer = "failed"
"#;
    let provider = script(text);
    let rec: Recorder<fn(&RunEvent) -> bool> = Recorder::new(never);
    // Two servers that ignore the request: one answers prose, one `{}`.
    let server = |answer: &str| vec!["echo".to_owned(), answer.to_owned()];
    let contract = Contract {
        run_id: Some("r-fail".into()),
        mcp_servers: [
            ("prose".to_owned(), server("hello")),
            ("empty".to_owned(), server("{}")),
        ]
        .into(),
        ..Contract::new("fail", &fx.workspace)
    };
    run_contract(
        &fx,
        &contract,
        &provider,
        &Policy::default().tool("exec_background", Rule::Allow),
        &ApproveAll,
        &rec,
    );
    let observation = first_observation(&fx, "r-fail");
    let lines: Vec<&str> = observation.lines().collect();
    assert_eq!(
        lines,
        [
            "[edit_file failed] edit twice.txt: the text to replace occurs 2 times; it must occur exactly once",
            "[edit_file failed] edit twice.txt: the text to replace occurs 0 times; it must occur exactly once",
            "[edit_file failed] edit latin1.txt: stream did not contain valid UTF-8",
            "[memory_write failed] memory_write: `../escape` is not a key (letters, digits, `-` and `_`)",
            "[poll failed] no running handle `h-9`",
            "[kill failed] no running handle `h-9`",
            "[exec_background failed] exec_background: `argv` names no program",
            "[exec_background failed] exec_background: could not spawn `io-no-such-program-here`: not found in any absolute `PATH` entry",
            "[todo_write failed] missing array argument `items`",
            "[mcp failed] mcp: the server's answer is not JSON: expected value at line 1 column 1",
            "[mcp failed] mcp: the server's answer has neither `result` nor `error`",
        ],
        "{observation}"
    );
    // Nothing was written by the failed edits.
    assert_eq!(
        std::fs::read(fx.workspace.join("twice.txt")).expect("twice"),
        b"a a"
    );
    assert!(!fx.workspace.join(".io/memory").exists());
}

/// Issue 31: a run's journal lock is released when the run returns, even
/// while other threads of the process spawn children. A `flock` lives on
/// the open file description, and a child being spawned holds a copy of
/// every description from its fork to its exec; a lock released by closing
/// the descriptor alone stayed held by such a copy, and the resume that
/// followed was refused with `Busy` (5 of 32 runs of this binary on a loaded
/// machine). Four threads spawn `true` without pause while runs and resumes
/// alternate; every resume must be let in.
#[test]
fn a_resume_right_after_a_run_is_let_in_while_other_threads_spawn_processes() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    const ROUNDS: usize = 200;
    let stop = AtomicBool::new(false);
    let spawned = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let status = std::process::Command::new("true")
                        .stdin(std::process::Stdio::null())
                        .status()
                        .expect("spawn true");
                    assert!(status.success());
                    spawned.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        // However the rounds end, the spawners stop.
        struct Stop<'a>(&'a AtomicBool);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Relaxed);
            }
        }
        let _stop = Stop(&stop);
        // Each round once the spawners are running, so every one overlaps them.
        while spawned.load(Ordering::Relaxed) == 0 {
            std::thread::yield_now();
        }
        for round in 0..ROUNDS {
            let fx = fixture();
            let provider = script(ANSWER_THEN_SPARE);
            let rec = Recorder::new(|e: &RunEvent| e.tag() == "step");
            let result = run(&fx, &provider, &Policy::default(), &ApproveAll, &rec);
            assert_eq!(result.outcome, RunOutcome::Cancelled { steps: 1 });
            let resumed = Recorder::new(never);
            let result = resume(&fx, "r-test", &provider, &resumed)
                .unwrap_or_else(|e| panic!("round {round}: the resume was refused: {e:?}"));
            assert!(
                matches!(result.outcome, RunOutcome::Completed { steps: 2, .. }),
                "round {round}: {:?}",
                result.outcome
            );
        }
    });
    assert!(spawned.into_inner() > 0);
}
