use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Event {
    /// A run began.
    #[serde(rename = "started")]
    Started { goal: String },
    /// A step was committed; added without a tag.
    StepCommitted { step: u32 },
}

fn main() {}
