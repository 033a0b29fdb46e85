//! The spec's four worked hooks ("Four hooks, worked"), loaded from a real
//! `io.local.toml` with `Config::discover` and installed in a real run.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use io_harness::{
    ApproveAll, Config, EventKind, RunEvent, resume_observed,
    run::{Contract, FileStore, Policy, RunOutcome, ScriptedProvider},
    run_with_observed,
};

struct Project {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    store: FileStore,
}

/// A project root with `io.local.toml` and helper scripts, and an empty user
/// scope (so the machine's own config cannot leak in).
fn project(local_toml: &str, scripts: &[(&str, &str)]) -> (Project, Config) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("root");
    let user = dir.path().join("user");
    std::fs::create_dir_all(&root).expect("root");
    // The operator's checkout, in which `io.local.toml` is untracked.
    common::work_tree(&root);
    std::fs::create_dir_all(&user).expect("user");
    std::fs::write(root.join("io.local.toml"), local_toml).expect("config");
    for (name, body) in scripts {
        std::fs::write(root.join(name), body).expect("script");
    }
    let config = Config::discover_with(&root, Some(&user)).expect("the config loads");
    let store = FileStore::new(dir.path().join("runs")).expect("store");
    (
        Project {
            _dir: dir,
            root,
            store,
        },
        config,
    )
}

fn lines(path: &std::path::Path) -> Vec<RunEvent> {
    std::fs::read_to_string(path)
        .expect("the file exists")
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is a RunEvent"))
        .collect()
}

fn run(p: &Project, config: &Config, script: &str) -> io_harness::run::RunResult {
    let provider = ScriptedProvider::from_toml("script.toml", script).expect("script");
    let contract = Contract {
        run_id: Some("r-four".into()),
        ..Contract::new(provider.goal(), &p.root)
    };
    let hooks = config.hooks();
    pollster::block_on(run_with_observed(
        &contract,
        &provider,
        &p.store,
        &Policy::default(),
        &ApproveAll,
        &hooks,
    ))
    .expect("run")
}

const SCRIPT: &str = r#"
goal = "four hooks"
[[turn]]
calls = [
  { tool = "write_file", args = { path = "out.txt", content = "raw" } },
  { tool = "exec", args = { argv = ["false"] } },
]
[[turn]]
calls = [{ tool = "read_file", args = { path = "out.txt" } }]
[[turn]]
calls = [{ tool = "write_file", args = { path = "out.txt", content = "FORMATTED\n" } }]
[[turn]]
calls = [{ tool = "read_file", args = { path = "out.txt" } }]
answer = "done"
"#;

#[test]
fn the_audit_log_holds_exactly_the_filtered_events_in_run_event_shape() {
    let (p, config) = project(
        "[[hook]]\non = [\"refused\", \"approval_requested\", \"approval_decided\", \"spawned\"]\nappend = \"audit.jsonl\"\n",
        &[],
    );
    assert!(
        !p.root.join("audit.jsonl").exists(),
        "not before the hooks are built"
    );
    let hooks = config.hooks();
    assert_eq!(
        std::fs::read_to_string(p.root.join("audit.jsonl")).expect("created"),
        "",
        "created empty at build"
    );
    drop(hooks);
    run(&p, &config, SCRIPT);
    let audit = lines(&p.root.join("audit.jsonl"));
    let kinds: Vec<EventKind> = audit.iter().map(|e| e.kind.clone()).collect();
    assert_eq!(
        kinds,
        [
            EventKind::ApprovalRequested {
                step: 1,
                tool: "exec".into(),
                args: serde_json::json!({"argv": ["false"]}).into()
            },
            EventKind::ApprovalDecided {
                step: 1,
                tool: "exec".into(),
                approved: true
            },
        ]
    );
    assert!(
        audit
            .iter()
            .all(|e| e.run_id == "r-four" && e.depth == 0 && e.seq.is_some() && e.at.is_some())
    );
}

#[test]
fn the_notification_gets_stalled_and_finished_on_stdin() {
    let (p, config) = project(
        "[[hook]]\non = [\"stalled\", \"finished\"]\nrun = [\"/bin/sh\", \"./notify.sh\"]\ntimeout_ms = 2000\n",
        &[("notify.sh", "cat >> notifications.log\n")],
    );
    // Three idle steps in a row: stalled at the third.
    let idle = "[[turn]]\ncalls = [{ tool = \"read_file\", args = { path = \"notify.sh\" } }]\n";
    let script = format!(
        "goal = \"idle\"\n{}[[turn]]\nanswer = \"gave up\"\n",
        idle.repeat(3)
    );
    run(&p, &config, &script);
    let got: Vec<&'static str> = lines(&p.root.join("notifications.log"))
        .iter()
        .map(RunEvent::tag)
        .collect();
    assert_eq!(got, ["stalled", "finished"]);
}

#[test]
fn the_formatter_runs_once_per_step_after_the_write_and_its_rewrite_is_never_progress() {
    // The "formatter" upper-cases out.txt, as a formatter rewrites a file,
    // and counts its runs.
    let (p, config) = project(
        "[[hook]]\non = [\"step\"]\nrun = [\"/bin/sh\", \"./fmt.sh\"]\n",
        &[(
            "fmt.sh",
            "echo run >> fmt-runs\n[ -f out.txt ] && printf 'FORMATTED\\n' > out.txt\nexit 0\n",
        )],
    );
    let result = run(&p, &config, SCRIPT);
    assert_eq!(
        result.outcome,
        RunOutcome::Completed {
            steps: 4,
            answer: "done".into()
        }
    );
    let runs = std::fs::read_to_string(p.root.join("fmt-runs")).expect("the formatter ran");
    assert_eq!(runs.lines().count(), 4, "once per step");
    // Read the journal: step 2 saw the formatter's bytes, so the formatter
    // ran after step 1's write and before step 2.
    use io_harness::run::{Record, Store};
    let records = p.store.load("r-four").expect("load").expect("journal");
    let steps: Vec<(String, bool)> = records
        .into_iter()
        .filter_map(|r| match r {
            Record::Step {
                observation,
                moved_the_workspace,
                ..
            } => Some((observation, moved_the_workspace)),
            _ => None,
        })
        .collect();
    assert!(steps[1].0.contains("FORMATTED"), "{}", steps[1].0);
    let moved: Vec<bool> = steps.iter().map(|(_, m)| *m).collect();
    // Step 1 wrote new bytes; step 2 only read (the file changed under it,
    // by the formatter, which is not progress); step 3 wrote the bytes the
    // formatter had already left there; step 4 read.
    assert_eq!(moved, [true, false, false, false]);
}

#[test]
fn the_policy_check_cancels_at_the_next_step_boundary_and_resume_completes() {
    // Refuses the second step's tool call, and only while `blocked` exists.
    let (p, config) = project(
        "[[hook]]\non = [\"tool_call\"]\nrun = [\"/bin/sh\", \"./check.sh\"]\non_failure = \"cancel\"\n",
        &[
            (
                "check.sh",
                "read -r event\ncase \"$event\" in *'\"step\":2'*) [ -f blocked ] && exit 1 ;; esac\nexit 0\n",
            ),
            ("blocked", ""),
        ],
    );
    let result = run(&p, &config, SCRIPT);
    assert_eq!(result.outcome, RunOutcome::Cancelled { steps: 2 });
    std::fs::remove_file(p.root.join("blocked")).expect("unblock");
    let provider = ScriptedProvider::from_toml("script.toml", SCRIPT).expect("script");
    let hooks = config.hooks();
    let resumed = pollster::block_on(resume_observed(
        "r-four",
        &provider,
        &p.store,
        &Policy::default(),
        &ApproveAll,
        &hooks,
    ))
    .expect("resume");
    assert_eq!(
        resumed.outcome,
        RunOutcome::Completed {
            steps: 4,
            answer: "done".into()
        }
    );
}
