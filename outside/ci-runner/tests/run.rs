//! The runner runs pipelines with real processes, and its hooks are real:
//! a `run` hook receives the event on its stdin, and one with
//! `on_failure = "cancel"` that fails stops the job.

mod common;

use ci_runner::{CiEvent, Outcome};
use common::{checkout, events, tags};

/// Two jobs: `build` creates `built` in the checkout, `test` passes.
const TWO_JOBS: &str = r#"
[[pipeline.check.job]]
name = "build"
commands = [["touch", "built"]]

[[pipeline.check.job]]
name = "test"
commands = [["true"], ["true"]]
"#;

/// Every event to `events.jsonl`, at the top level.
const LOG: &str = "[[hook]]\nappend = \"events.jsonl\"\n";

#[test]
fn a_run_hook_runs_a_real_process_with_the_event_on_its_stdin() {
    let operator = format!(
        "{LOG}\n[[pipeline.check.hook]]\non = [\"job_finished\"]\nrun = [\"tee\", \"-a\", \"received.jsonl\"]\n"
    );
    let (dir, ci) = checkout(TWO_JOBS, Some(&operator));
    assert_eq!(ci.problems(), Vec::<String>::new());
    let report = ci.run("check").unwrap();
    assert_eq!(report.outcome, Outcome::Passed);
    assert_eq!(report.hook_failures, Vec::<String>::new());
    // The command ran, in the checkout.
    assert!(dir.path().join("built").is_file());
    assert_eq!(
        tags(dir.path(), "events.jsonl"),
        [
            "pipeline_started",
            "job_queued",
            "job_queued",
            "job_started",
            "command_finished",
            "job_finished",
            "job_started",
            "command_finished",
            "command_finished",
            "job_finished",
            "pipeline_finished",
        ]
    );
    // `tee`, spawned by the hook in the checkout, got each job_finished line.
    let received = events(dir.path(), "received.jsonl");
    let names: Vec<_> = received.iter().map(|e| e["job"]["name"].clone()).collect();
    assert_eq!(names, ["build", "test"]);
    assert!(
        received
            .iter()
            .all(|e| e["event"] == "job_finished" && e["outcome"] == "passed")
    );
}

#[test]
fn a_failing_command_fails_its_job_and_the_jobs_after_it_never_start() {
    let project = r#"
[[pipeline.check.job]]
name = "lint"
commands = [["false"], ["touch", "after-false"]]

[[pipeline.check.job]]
name = "build"
commands = [["touch", "built"]]
"#;
    let (dir, ci) = checkout(project, Some(LOG));
    let report = ci.run("check").unwrap();
    assert_eq!(report.outcome, Outcome::Failed);
    assert!(!dir.path().join("after-false").exists());
    assert!(!dir.path().join("built").exists());
    let logged = events(dir.path(), "events.jsonl");
    let finished = &logged[4];
    assert_eq!(finished["event"], "command_finished");
    assert_eq!(finished["ok"], false);
    assert_eq!(finished["failure"], "exited with status 1");
    let ends: Vec<_> = logged[5..]
        .iter()
        .map(|e| (e["event"].clone(), e["outcome"].clone()))
        .collect();
    assert_eq!(
        ends,
        [
            ("job_finished".into(), "failed".into()),
            ("pipeline_finished".into(), "failed".into())
        ]
    );
}

#[test]
fn a_cancel_hook_that_fails_stops_the_job_before_its_commands() {
    let operator = format!(
        "{LOG}\n[[pipeline.check.hook]]\non = [\"job_started\"]\nrun = [\"false\"]\non_failure = \"cancel\"\n"
    );
    let (dir, ci) = checkout(TWO_JOBS, Some(&operator));
    let report = ci.run("check").unwrap();
    assert_eq!(report.outcome, Outcome::Cancelled);
    assert_eq!(
        report.hook_failures,
        [
            "ci.local.toml: `pipeline.check.hook[1]` failed on `job_started`: exited with status 1, \
          so the pipeline stops"
        ]
    );
    assert!(!dir.path().join("built").exists(), "the command ran");
    let logged = events(dir.path(), "events.jsonl");
    let seen: Vec<_> = logged
        .iter()
        .map(|e| (e["event"].clone(), e["outcome"].clone()))
        .collect();
    let none = serde_json::Value::Null;
    assert_eq!(
        seen,
        [
            ("pipeline_started".into(), none.clone()),
            ("job_queued".into(), none.clone()),
            ("job_queued".into(), none.clone()),
            ("job_started".into(), none),
            ("job_finished".into(), "cancelled".into()),
            ("pipeline_finished".into(), "cancelled".into()),
        ]
    );
}

#[test]
fn the_same_failing_hook_without_cancel_lets_every_job_run() {
    let operator =
        format!("{LOG}\n[[pipeline.check.hook]]\non = [\"job_started\"]\nrun = [\"false\"]\n");
    let (dir, ci) = checkout(TWO_JOBS, Some(&operator));
    let report = ci.run("check").unwrap();
    assert_eq!(report.outcome, Outcome::Passed);
    assert!(dir.path().join("built").is_file());
    assert_eq!(report.hook_failures.len(), 2);
    assert!(report.hook_failures[0].ends_with("exited with status 1, and the pipeline goes on"));
}

#[test]
fn a_pipelines_hooks_hear_only_that_pipeline_and_the_runners_events_only_the_top_level() {
    let project =
        format!("{TWO_JOBS}\n[[pipeline.release.job]]\nname = \"tag\"\ncommands = [[\"true\"]]\n");
    let operator =
        format!("{LOG}\n[[pipeline.check.hook]]\nrun = [\"false\"]\non_failure = \"cancel\"\n");
    let (dir, ci) = checkout(&project, Some(&operator));
    assert_eq!(ci.pipelines().collect::<Vec<_>>(), ["check", "release"]);
    let release = ci.run("release").unwrap();
    assert_eq!(release.outcome, Outcome::Passed);
    assert_eq!(release.hook_failures, Vec::<String>::new());
    // The runner's own events: the top-level hooks, never a pipeline's.
    let ready = ci.fire(None, &CiEvent::RunnerReady);
    assert_eq!(ready.failures, Vec::<String>::new());
    assert_eq!(ci.run("check").unwrap().outcome, Outcome::Cancelled);
    let logged = tags(dir.path(), "events.jsonl");
    assert_eq!(logged.first().map(String::as_str), Some("pipeline_started"));
    assert!(logged.contains(&"runner_ready".to_owned()));
}

/// The runner's own action, `status`, added through io-hooks' plug-in:
/// after each matching event its file holds that event's tag, and a
/// checker describes it in the runner's words.
#[test]
fn the_runners_own_status_action_keeps_the_last_events_tag() {
    let operator = "[[pipeline.check.hook]]\non = [\"job_finished\", \"pipeline_finished\"]\nstatus = \"ci-status.txt\"\n";
    let (dir, ci) = checkout(TWO_JOBS, Some(operator));
    assert_eq!(ci.problems(), Vec::<String>::new());
    assert!(
        !dir.path().join("ci-status.txt").exists(),
        "nothing is written before an event"
    );
    let report = ci.run("check").unwrap();
    assert_eq!(report.outcome, Outcome::Passed);
    assert_eq!(report.hook_failures, Vec::<String>::new());
    let status = std::fs::read_to_string(dir.path().join("ci-status.txt")).unwrap();
    assert_eq!(status, "pipeline_finished\n");
}
