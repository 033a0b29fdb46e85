//! A small, real run loop, so hooks have a run to react to.
//!
//! A run asks its [`Provider`] for a turn per step, streams the turn's text as
//! `token` events, puts each tool call through the [`Policy`] (and the
//! [`Approver`] when the policy asks), acts on a real workspace directory,
//! decides whether the step moved the workspace, commits the step to the
//! [`Store`] and emits `step`. An observer's [`Flow::Cancel`](crate::Flow::Cancel), from any
//! event, is honoured at the next step boundary: the step finishes, the run
//! records `cancelled` and returns [`RunOutcome::Cancelled`], resumable with
//! [`resume_observed`].
//!
//! The entry points are `async` because an embedder's loop awaits its model;
//! this reference loop does its work synchronously inside the future, so any
//! executor, `pollster::block_on` included, drives it.
//!
//! The files of this module, by job: what a run is asked ([`Contract`],
//! `contract.rs`) and how it ends ([`RunOutcome`], [`RunError`],
//! `outcome.rs`); the four entry points (`entry.rs`); one run driven step
//! by step (`driver.rs`) from where its journal leaves it (`state.rs`);
//! the tools (`call.rs`, `tools.rs`, `tool_error.rs`), the policy
//! (`policy.rs`), the provider (`provider.rs`) and the `io run` script it
//! reads (`script.rs`), the store (`store.rs`) and its records' MACs
//! (`seal.rs`), and
//! what a reader of a journal takes for its end (`boundary.rs`).

pub(crate) mod boundary;
pub(crate) mod call;
mod contract;
mod driver;
mod entry;
mod outcome;
mod policy;
mod provider;
mod script;
mod seal;
mod state;
mod store;
mod tool_error;
mod tools;

pub use crate::event::now_rfc3339;

pub use contract::Contract;
pub use entry::{new_run_id, resume_in_observed, resume_observed, run_observed, run_with_observed};
pub use outcome::{RunError, RunOutcome, RunResult, steps};
pub use policy::{ApprovalRequest, ApproveAll, Approver, DenyAll, Policy, Question, Rule};
pub use provider::{
    Provider, ProviderError, ScriptedOperator, ScriptedProvider, ToolCall, Turn, TurnRequest,
};
pub use seal::SealFault;
pub use store::{FileStore, Record, RunSummary, Store, StoreError, StoreLock};

/// The key a [`FileStore::sealed`] store seals its journals with
/// (`io_trust::Key`), named through `io_harness`.
pub use io_trust::Key;
