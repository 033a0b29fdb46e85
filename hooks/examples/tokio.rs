//! An async host: tokio tasks fire events through `spawn_blocking`, and
//! Ctrl-C ends the hooks in flight through their [`Supervisor`].
//!
//! [`Hooks::fire_event`] blocks: it returns when every matching hook has
//! finished, and a `run` hook is a process waited for, up to its timeout.
//! On a runtime's worker thread that would stall every task scheduled there,
//! so each event goes to `spawn_blocking`, and the task only awaits it.
//! Ctrl-C (or SIGTERM) reaches a thread of signal-hook's, which calls
//! [`Supervisor::interrupt`]: each `run` hook in flight is killed with its
//! process group, and fails as interrupted, which its `on_failure = "cancel"`
//! turns into [`Flow::Cancel`], so the job stops.
//!
//! `cargo run -p io-hooks --example tokio`, then Ctrl-C before the jobs'
//! 3-second hooks end. `hooks/tests/tokio_example.rs` runs this file's
//! functions, Ctrl-C included.

use std::error::Error;
use std::path::Path;
use std::sync::Arc;

use io_hooks::{Flow, HookEvents, Hooks, TomlFile};
#[cfg(unix)]
use io_supervisor::Supervisor;

/// The jobs' events.
#[derive(HookEvents, serde::Serialize)]
#[serde(tag = "event")]
pub(crate) enum Job {
    /// A job started.
    #[serde(rename = "job_started")]
    Started { id: u32 },
    /// A job finished its work.
    #[serde(rename = "job_finished")]
    Finished { id: u32 },
}

/// Every event to a log; a hook that takes 3 seconds when a job starts, and
/// cancels the job if it fails (as it does when interrupted).
pub(crate) const HOOKS: &str = r#"
[[hook]]
append = "jobs.jsonl"

[[hook]]
on = ["job_started"]
run = ["sleep", "3"]
on_failure = "cancel"
"#;

/// The hooks of `text` (a file named `jobs.toml`), rooted at `root`.
///
/// # Errors
/// The table's error, naming the file, the key and what it accepts.
pub(crate) fn load(root: &Path, text: &str) -> Result<Hooks<Job>, Box<dyn Error + Send + Sync>> {
    let specs = TomlFile::new("jobs.toml", text).hooks::<Job>(root)?;
    Ok(Hooks::new(specs, root))
}

/// Fires `event` on a blocking thread and waits for its hooks there, not on
/// the runtime's worker. A hook thread that panicked cancels.
async fn fire(hooks: &Arc<Hooks<Job>>, event: Job) -> Flow {
    let hooks = Arc::clone(hooks);
    tokio::task::spawn_blocking(move || hooks.fire_event(&event))
        .await
        .unwrap_or(Flow::Cancel)
}

/// Runs `jobs` jobs as tasks: each fires `job_started`, does its (async)
/// work, and fires `job_finished` unless a hook cancelled it. Each job's
/// last flow, in job order.
pub(crate) async fn run_jobs(hooks: Arc<Hooks<Job>>, jobs: u32) -> Vec<Flow> {
    let tasks: Vec<_> = (0..jobs)
        .map(|id| {
            let hooks = Arc::clone(&hooks);
            tokio::spawn(async move {
                if fire(&hooks, Job::Started { id }).await == Flow::Cancel {
                    return Flow::Cancel;
                }
                tokio::task::yield_now().await; // the job's own work
                fire(&hooks, Job::Finished { id }).await
            })
        })
        .collect();
    let mut flows = Vec::with_capacity(tasks.len());
    for task in tasks {
        flows.push(task.await.unwrap_or(Flow::Cancel));
    }
    flows
}

#[cfg(unix)]
/// On the first SIGINT or SIGTERM, interrupts `supervisor`'s children in
/// flight, from a thread of its own. The returned handle closes it.
///
/// # Errors
/// If the signal handlers cannot be registered.
pub(crate) fn interrupt_on_signals(
    supervisor: Supervisor,
) -> std::io::Result<signal_hook::iterator::Handle> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    let handle = signals.handle();
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            supervisor.interrupt();
        }
    });
    Ok(handle)
}

/// Not on Windows (issue 47): its hooks are Unix programs, and its Ctrl-C
/// a Unix signal's.
#[cfg(not(unix))]
fn main() {
    let _ = (load, run_jobs, HOOKS);
    eprintln!("this example runs on Unix: its hooks are Unix programs, its Ctrl-C a signal");
}

#[cfg(unix)]
#[tokio::main]
async fn main() -> Result<(), Box<dyn Error + Send + Sync>> {
    let dir = tempfile::tempdir()?;
    let hooks = Arc::new(load(dir.path(), HOOKS)?);
    let signals = interrupt_on_signals(hooks.supervisor())?;
    println!("3 jobs, each with a 3-second hook: Ctrl-C ends the hooks in flight");
    let flows = run_jobs(Arc::clone(&hooks), 3).await;
    signals.close();
    println!("flows: {flows:?}");
    print!(
        "{}",
        std::fs::read_to_string(dir.path().join("jobs.jsonl"))?
    );
    Ok(())
}
