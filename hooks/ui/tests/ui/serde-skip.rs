use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "started")]
    Started,
    #[serde(rename = "internal", skip)]
    Internal,
    // Never written, so it needs no tag: one error, not two.
    #[serde(skip)]
    Scratch,
}

fn main() {}
