//! io-harness: an agent harness's run events, and the hooks an operator
//! declares for them in `io.toml`.

mod config;
mod event;
mod observer;
mod replay;
mod run;
mod schema;

pub use config::{
    Config, ConfigError, Hooks, HooksInForce, LOCAL_FILE, PROJECT_FILE, Scope, Source,
};
pub use event::{EventKind, Frequency, Outcome, RunEvent, now_rfc3339};
pub use io_hooks::{
    Action, Flow, HookEvents, HookFailure, HookFilter, HookRun, HookSpec, OnFailure, TableError,
};
pub use observer::Observer;
pub use replay::{ReplayOutcome, replay};
pub use run::{
    ApprovalRequest, ApproveAll, Approver, Contract, DenyAll, FileStore, Policy, Provider,
    ProviderError, Question, Record, Rule, RunError, RunOutcome, RunResult, ScriptedOperator,
    ScriptedProvider, Store, StoreError, ToolCall, Turn, TurnRequest, resume_observed,
    run_observed, run_with_observed, steps,
};
pub use schema::hook_schema;
