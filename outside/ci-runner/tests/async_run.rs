//! The runner on tokio: pipelines run as tasks, every event and command on
//! a blocking thread through `spawn_blocking`, so a hook that takes its time
//! never holds a worker; a cancel stops a pipeline as it does on a thread,
//! and a Ctrl-C (the supervisor's interrupt) ends the hooks in flight.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use ci_runner::Outcome;
use common::{checkout, events};

const TWO_PIPELINES: &str = r#"
[[pipeline.check.job]]
name = "build"
commands = [["touch", "built"]]

[[pipeline.release.job]]
name = "tag"
commands = [["touch", "tagged"]]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelines_run_side_by_side_and_a_cancel_stops_only_its_own() {
    let operator = r#"
[[hook]]
on = ["job_finished"]
run = ["tee", "-a", "finished.jsonl"]

[[pipeline.check.hook]]
on = ["job_started"]
run = ["false"]
on_failure = "cancel"
"#;
    let (dir, ci) = checkout(TWO_PIPELINES, Some(operator));
    let ci = Arc::new(ci);
    let check = tokio::spawn(Arc::clone(&ci).run_async("check".to_owned()));
    let release = tokio::spawn(Arc::clone(&ci).run_async("release".to_owned()));
    let check = check.await.unwrap().unwrap();
    let release = release.await.unwrap().unwrap();
    assert_eq!(check.outcome, Outcome::Cancelled);
    assert_eq!(
        check.hook_failures,
        [
            "ci.local.toml: `pipeline.check.hook[1]` failed on `job_started`: exited with status 1, \
          so the pipeline stops"
        ]
    );
    assert!(!dir.path().join("built").exists());
    assert_eq!(release.outcome, Outcome::Passed);
    assert!(dir.path().join("tagged").is_file());
    let mut finished: Vec<_> = events(dir.path(), "finished.jsonl")
        .iter()
        .map(|e| (e["job"]["name"].clone(), e["outcome"].clone()))
        .collect();
    finished.sort_by_key(|(name, _)| name.to_string());
    assert_eq!(
        finished,
        [
            ("build".into(), "cancelled".into()),
            ("tag".into(), "passed".into())
        ]
    );
    let unknown = Arc::clone(&ci)
        .run_async("relase".to_owned())
        .await
        .unwrap_err();
    assert_eq!(unknown.suggestion.as_deref(), Some("release"));
}

/// On a runtime of one thread, a task still runs while a pipeline's hook
/// does: the hook waits on a blocking thread, not on the worker. Then the
/// interrupt a Ctrl-C would call kills it, and its `cancel` stops the job.
#[tokio::test(flavor = "current_thread")]
async fn a_slow_hook_holds_no_worker_and_an_interrupt_ends_it() {
    let operator = r#"
[[pipeline.check.hook]]
on = ["job_started"]
run = ["sleep", "30"]
timeout_ms = 60000
on_failure = "cancel"
"#;
    let (dir, ci) = checkout(TWO_PIPELINES, Some(operator));
    let ci = Arc::new(ci);
    let supervisor = ci.supervisor();
    let start = Instant::now();
    let check = tokio::spawn(Arc::clone(&ci).run_async("check".to_owned()));
    // This loop is a task on the only worker: it runs only if the hook
    // does not hold that worker.
    while supervisor.in_flight() == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the hook never started"
        );
        tokio::task::yield_now().await;
    }
    supervisor.interrupt();
    let report = check.await.unwrap().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "the hook ran its 30 s"
    );
    assert!(supervisor.wait_reaped(Duration::from_secs(10)));
    assert_eq!(report.outcome, Outcome::Cancelled);
    assert_eq!(
        report.hook_failures,
        [
            "ci.local.toml: `pipeline.check.hook[1]` failed on `job_started`: was interrupted, and \
          its process group killed, so the pipeline stops"
        ]
    );
    assert!(!dir.path().join("built").exists());
}
