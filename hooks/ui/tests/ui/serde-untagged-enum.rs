use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize, HookEvents)]
#[serde(untagged)]
enum Events {
    #[serde(rename = "started")]
    Started { goal: String },
    #[serde(rename = "finished")]
    Finished,
}

fn main() {}
