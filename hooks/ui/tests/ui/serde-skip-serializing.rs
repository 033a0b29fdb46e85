use io_hooks::HookEvents;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, HookEvents)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "started")]
    Started,
    #[serde(rename = "legacy")]
    #[serde(skip_serializing)]
    Legacy,
}

fn main() {}
