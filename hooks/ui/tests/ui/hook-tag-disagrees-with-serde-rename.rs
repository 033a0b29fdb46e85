use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "b")]
    #[hook(tag = "a")]
    Step,
}

fn main() {}
