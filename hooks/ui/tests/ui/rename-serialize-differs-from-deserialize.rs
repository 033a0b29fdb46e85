use io_hooks::HookEvents;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, HookEvents)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename(serialize = "a", deserialize = "b"))]
    Step,
}

fn main() {}
