//! The run loop's four ways in, the spec's shapes: a run, a run under a
//! policy, a resume, and a resume acting where the caller says. Each builds
//! the one [`Env`] a run and its children share, and the driver does the
//! rest.

use std::sync::atomic::{AtomicU64, Ordering};

use super::contract::Contract;
use super::driver::Env;
use super::outcome::{RunError, RunResult};
use super::policy::{ApproveAll, Approver, Policy};
use super::provider::Provider;
use super::store::Store;
use crate::observer::Observer;

/// The `# Blocking` section of every entry point's documentation, written
/// once.
macro_rules! blocking {
    () => {
        "# Blocking\n\
         The future does the whole run in its first `poll` and never yields: \
         every provider call, store write, tool and hook runs on the polling \
         thread until the run ends. Under an async runtime, drive it from a \
         blocking thread (`tokio::task::spawn_blocking(move || pollster::block_on(…))`, \
         as `examples/run_on_tokio.rs` does), never with `.await` on a worker thread.\n"
    };
}

/// Runs `contract` with the default [`Policy`] and [`ApproveAll`], reporting
/// every event to `observer`.
///
#[doc = blocking!()]
///
/// # Errors
/// Only when the store fails; every other ending is a [`RunOutcome`](super::RunOutcome).
pub async fn run_observed(
    contract: &Contract,
    provider: &dyn Provider,
    store: &dyn Store,
    observer: &dyn Observer,
) -> Result<RunResult, RunError> {
    run_with_observed(
        contract,
        provider,
        store,
        &Policy::default(),
        &ApproveAll,
        observer,
    )
    .await
}

/// Runs `contract` under `policy`, asking `approver` when the policy says
/// ask, reporting every event (a child run's too) to `observer`.
///
#[doc = blocking!()]
///
/// # Errors
/// Only when the store fails; every other ending is a [`RunOutcome`](super::RunOutcome).
pub async fn run_with_observed(
    contract: &Contract,
    provider: &dyn Provider,
    store: &dyn Store,
    policy: &Policy,
    approver: &dyn Approver,
    observer: &dyn Observer,
) -> Result<RunResult, RunError> {
    let env = Env::new(provider, store, policy, approver, observer);
    let run_id = contract.run_id.clone().unwrap_or_else(new_run_id);
    env.start(contract, run_id, 0)
}

/// Continues run `run_id` from its last committed step: a cancelled, failed
/// or interrupted run picks up where its journal ends, with its own id, in
/// the workspace and with the MCP servers its journal names.
///
/// That trusts the journal with what the run acts on: right for a store
/// only the caller writes. Where the journal lives in the workspace (a
/// [`FileStore::beneath`](super::FileStore::beneath) it), a clone or the model could have written it:
/// use [`resume_in_observed`], which takes both from the caller.
///
#[doc = blocking!()]
///
/// # Errors
/// An unknown or completed run, an unreadable journal, or a store failure.
pub async fn resume_observed(
    run_id: &str,
    provider: &dyn Provider,
    store: &dyn Store,
    policy: &Policy,
    approver: &dyn Approver,
    observer: &dyn Observer,
) -> Result<RunResult, RunError> {
    let env = Env::new(provider, store, policy, approver, observer);
    env.resume(run_id, None)
}

/// Continues run `run_id` as [`resume_observed`] does, but acting where
/// `place` says: its `workspace`, `mcp_servers`, `max_depth`,
/// `stall_after`, `exec_timeout` and `token_budget` are the caller's; only
/// the goal, depth, step limit, origin, script and progress come from the
/// journal. A journal can then name no directory to write in and no program
/// to run. `place`'s `goal`, `max_steps`, `run_id`, `origin` and `script`
/// are not used.
///
#[doc = blocking!()]
///
/// # Errors
/// An unknown or completed run, an unreadable, untrusted or busy journal,
/// or a store failure.
pub async fn resume_in_observed(
    run_id: &str,
    place: &Contract,
    provider: &dyn Provider,
    store: &dyn Store,
    policy: &Policy,
    approver: &dyn Approver,
    observer: &dyn Observer,
) -> Result<RunResult, RunError> {
    let env = Env::new(provider, store, policy, approver, observer);
    env.resume(run_id, Some(place))
}

/// Returns a fresh run id: `r-` and 12 hex digits from the clock, the
/// process and a counter, unique within a store in practice. What a run
/// whose [`Contract::run_id`] is `None` is given; a host that must name the
/// run before it starts (to its hooks, say) makes one with it.
pub fn new_run_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mixed = nanos
        ^ (u64::from(std::process::id()) << 32)
        ^ COUNTER
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
    format!("r-{:012x}", mixed & 0xffff_ffff_ffff)
}
