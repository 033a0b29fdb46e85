use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "started")]
    Started,
    #[serde(rename = "internal", skip)]
    Internal,
}

fn main() {}
