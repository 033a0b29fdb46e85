//! What a run is asked to do, and its limits: [`Contract`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// What a run is asked to do, and its limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contract {
    /// The goal, given to the provider and carried by `started`.
    pub goal: String,
    /// The directory the tools act on.
    pub workspace: PathBuf,
    /// The run fails after this many steps without an answer.
    pub max_steps: u32,
    /// How deep a tree may grow: a child at this depth may not spawn.
    pub max_depth: u32,
    /// `stalled` fires after this many steps in a row move nothing.
    pub stall_after: u32,
    /// The wall-clock ceiling on each `exec` tool call.
    pub exec_timeout: Duration,
    /// The token budget `spend_draw` draws on.
    pub token_budget: u64,
    /// The run id to use; one is generated when absent.
    pub run_id: Option<String>,
    /// The MCP servers the `mcp` tool may call, by name: each an argv spoken
    /// to over stdio, one JSON-RPC request per call.
    pub mcp_servers: BTreeMap<String, Vec<String>>,
    /// Where the run's instructions came from, in the embedder's terms (for
    /// `io run`, the script's path): a name for messages. Kept in the
    /// journal; a child inherits it.
    pub origin: Option<String>,
    /// The instructions themselves (for `io run`, the script's text), pinned
    /// in the journal's `begin` record: a resume runs what the run began
    /// with, and reads no file the journal names (a journal's `origin`
    /// could name `~/.netrc`). A child inherits it.
    pub script: Option<String>,
    /// The name of the configuration profile the run was started with (for
    /// `io run`, `--profile`), kept in the journal's `begin` record: what a
    /// command that resumes the run must name again, since the profile's
    /// hooks (a policy check) are part of what the run was. A child
    /// inherits it.
    pub profile: Option<String>,
}

impl Contract {
    /// A contract for `goal` in `workspace`, with the default limits: 50
    /// steps, depth 2, stalled after 3 idle steps, 30 s per command, a
    /// budget of 10 million tokens.
    pub fn new(goal: impl Into<String>, workspace: impl Into<PathBuf>) -> Self {
        Contract {
            goal: goal.into(),
            workspace: workspace.into(),
            max_steps: 50,
            max_depth: 2,
            stall_after: 3,
            exec_timeout: Duration::from_secs(30),
            token_budget: 10_000_000,
            run_id: None,
            mcp_servers: BTreeMap::new(),
            origin: None,
            script: None,
            profile: None,
        }
    }
}
