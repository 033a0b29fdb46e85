use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize, HookEvents)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Event {
    #[serde(rename = "started")]
    Started,
    ToolCall,
}

fn main() {}
