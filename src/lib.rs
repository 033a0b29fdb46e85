//! io-harness: an agent harness's run events, and the hooks an operator
//! declares for them in `io.toml`.

mod config;
mod event;
mod observer;

pub use config::{
    Config, ConfigError, Hooks, HooksInForce, LOCAL_FILE, PROJECT_FILE, Scope, Source,
};
pub use event::{EventKind, Outcome, RunEvent, now_rfc3339};
pub use io_hooks::{Flow, HookEvents, HookFilter};
pub use observer::Observer;
