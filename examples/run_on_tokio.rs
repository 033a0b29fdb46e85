//! A run driven from a tokio runtime, the way an embedder with an async
//! host should drive one.
//!
//! `run_with_observed` is an `async fn` whose future does the whole run in
//! its first poll: provider calls, tools, journal writes and every hook
//! (a `run` hook waits for its process) happen on the thread that polls it.
//! Awaited on a runtime's worker thread, it would hold that thread for the
//! whole run. So the run goes to `spawn_blocking`, where `pollster` drives
//! it, and the runtime's own threads stay free; the async side only awaits
//! the join handle.
//!
//! `cargo run --example run_on_tokio` (built, not run, by `cargo test`).

use io_harness::{
    ApproveAll, Config,
    run::{Contract, FileStore, Policy, RunOutcome, ScriptedProvider},
    run_with_observed,
};

const SCRIPT: &str = r#"
goal = "greet"
[[turn]]
calls = [{ tool = "write_file", args = { path = "hi.txt", content = "hi" } }]
answer = "done"
"#;

const HOOKS: &str = r#"
[[hook]]
on = ["step", "finished"]
append = "audit.jsonl"

[[hook]]
on = ["finished"]
run = ["true"]
"#;

// One worker thread is enough: nothing on it blocks.
#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().to_path_buf();
    std::fs::write(root.join("io.local.toml"), HOOKS)?;

    // Everything the run borrows is moved into the blocking task.
    let config = Config::discover(&root)?;
    let provider = ScriptedProvider::from_toml("script.toml", SCRIPT)?;
    let contract = Contract::new(provider.goal(), &root);
    let store = FileStore::new(root.join(".io/runs"))?;
    let run = tokio::task::spawn_blocking(move || {
        let hooks = config.hooks();
        let policy = Policy::default();
        pollster::block_on(run_with_observed(
            &contract,
            &provider,
            &store,
            &policy,
            &ApproveAll,
            &hooks,
        ))
    });

    // Meanwhile the runtime runs other tasks; this one only waits.
    let result = run.await??;
    assert_eq!(
        result.outcome,
        RunOutcome::Completed {
            steps: 1,
            answer: "done".into()
        }
    );
    let audit = std::fs::read_to_string(root.join("audit.jsonl"))?;
    assert_eq!(audit.lines().count(), 2, "step and finished");
    println!("run completed off the runtime's thread; audit.jsonl:\n{audit}");
    Ok(())
}
