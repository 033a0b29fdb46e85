use io_hooks::HookEvents;
use serde::{Deserialize, Serialize};

// serde reads "tool_call" back as `Step`, the first variant that accepts it,
// so a replayed `tool_call` event would never reach a hook on `tool_call`.
#[derive(Serialize, Deserialize, HookEvents)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "step", alias = "tool_call")]
    Step,
    #[serde(rename = "tool_call")]
    ToolCall,
    // An alias after the tag it repeats is no better: one of the two is dead.
    #[serde(rename = "finished")]
    Finished,
    #[serde(rename = "stopped")]
    #[serde(alias = "finished")]
    Stopped,
}

fn main() {}
