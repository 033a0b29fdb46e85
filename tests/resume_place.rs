//! What a resume takes from its journal, through the library: the goal,
//! step limit and origin always; the workspace and MCP servers only through
//! `resume_observed` (for a store only its caller writes), never through
//! `resume_in_observed`, which takes them from the caller.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use io_harness::run::{
    ApproveAll, Contract, FileStore, Policy, Record, RunOutcome, RunResult, ScriptedProvider,
    Store, resume_in_observed,
};
use io_harness::{EventKind, Flow, Observer, RunEvent, resume_observed};

/// Keeps the goal of every `started`.
#[derive(Default)]
struct Goals(Mutex<Vec<String>>);

impl Observer for Goals {
    fn event(&self, event: &RunEvent) -> Flow {
        if let EventKind::Started { goal, .. } = &event.kind {
            self.0.lock().expect("goals").push(goal.clone());
        }
        Flow::Continue
    }
}

/// One step that writes a file, calls the MCP server `docs` and spawns a
/// child, and no answer: a step limit of 1 ends it there.
const SCRIPT: &str = r#"
goal = "the journal's goal"
[[turn]]
calls = [
  { tool = "write_file", args = { path = "here.txt", content = "x" } },
  { tool = "mcp", args = { server = "docs", method = "tools/list" } },
  { tool = "spawn", args = { goal = "child" } },
]

[[child]]
goal = "child"
[[child.turn]]
answer = "ok"
"#;

/// A store holding run `r-p`, begun in `<dir>/journal-ws` with a step limit
/// of 1, origin `the-origin` and an MCP server `docs` that touches
/// `<dir>/marker`; and the caller's own workspace, `<dir>/caller-ws`.
struct Planted {
    dir: tempfile::TempDir,
    store: FileStore,
}

impl Planted {
    fn new() -> Self {
        /// An argv that makes `marker` (on Windows, a directory: cmd's
        /// `mkdir` makes it with no redirection).
        fn marker_argv(marker: String) -> Vec<String> {
            if cfg!(windows) {
                vec!["cmd".into(), "/c".into(), "mkdir".into(), marker]
            } else {
                vec!["/usr/bin/touch".to_owned(), marker]
            }
        }
        let dir = tempfile::tempdir().expect("tempdir");
        for d in ["journal-ws", "caller-ws"] {
            std::fs::create_dir(dir.path().join(d)).expect("dir");
        }
        let store = FileStore::new(dir.path().join("store")).expect("store");
        let marker = dir.path().join("marker").display().to_string();
        store
            .append(
                "r-p",
                &Record::Begin {
                    goal: "the journal's goal".into(),
                    workspace: dir.path().join("journal-ws"),
                    depth: 0,
                    max_steps: 1,
                    origin: Some("the-origin".into()),
                    script: None,
                    mcp_servers: BTreeMap::from([("docs".to_owned(), marker_argv(marker))]),
                    profile: None,
                },
            )
            .expect("begin");
        Planted { dir, store }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// The child run's `begin` record.
    fn child_begin(&self) -> (String, PathBuf, Option<String>) {
        let records = self.store.load("r-p.1.1").expect("load").expect("a child");
        match records.first() {
            Some(Record::Begin {
                goal,
                workspace,
                origin,
                ..
            }) => (goal.clone(), workspace.clone(), origin.clone()),
            other => panic!("the child's journal begins with {other:?}"),
        }
    }
}

fn provider() -> ScriptedProvider {
    ScriptedProvider::from_toml("script.toml", SCRIPT).expect("script")
}

/// The run ended at the journal's step limit, with the journal's goal.
fn ended_at_the_journals_limit(result: &RunResult, goals: &Goals) {
    assert_eq!(
        result.outcome,
        RunOutcome::Failed {
            steps: 1,
            reason: "reached the step limit (1)".into()
        }
    );
    assert_eq!(
        goals.0.lock().expect("goals")[..],
        ["the journal's goal", "child"]
    );
}

#[test]
fn resume_in_observed_acts_where_the_caller_says_with_the_journals_limit_and_origin() {
    let p = Planted::new();
    let goals = Goals::default();
    let place = Contract::new("unused", p.path("caller-ws"));
    let result = pollster::block_on(resume_in_observed(
        "r-p",
        &place,
        &provider(),
        &p.store,
        &Policy::default(),
        &ApproveAll,
        &goals,
    ))
    .expect("resume");
    ended_at_the_journals_limit(&result, &goals);
    assert!(p.path("caller-ws/here.txt").exists());
    assert!(!p.path("journal-ws/here.txt").exists());
    assert!(
        !p.path("marker").exists(),
        "the journal's MCP argv never runs"
    );
    assert_eq!(
        p.child_begin(),
        (
            "child".into(),
            p.path("caller-ws"),
            Some("the-origin".into())
        )
    );
}

#[test]
fn resume_observed_trusts_its_store_with_the_workspace_and_the_mcp_servers() {
    let p = Planted::new();
    let goals = Goals::default();
    let result = pollster::block_on(resume_observed(
        "r-p",
        &provider(),
        &p.store,
        &Policy::default(),
        &ApproveAll,
        &goals,
    ))
    .expect("resume");
    ended_at_the_journals_limit(&result, &goals);
    assert!(p.path("journal-ws/here.txt").exists());
    assert!(p.path("marker").exists(), "the journal's MCP argv ran");
    assert_eq!(
        p.child_begin(),
        (
            "child".into(),
            p.path("journal-ws"),
            Some("the-origin".into())
        )
    );
}
