//! Every mistake in an envelope, reported together: a field no `where`
//! filter reads, a field declared twice, a field named as serde's tag or as
//! a field of an event (the line would hold the key twice).
use io_hooks::HookEvents;

#[derive(serde::Serialize, HookEvents)]
#[serde(tag = "event")]
#[hook(envelope(run_id: String, args: Vec<String>, run_id: u32, event: String, depth: u32))]
enum Event {
    #[serde(rename = "started")]
    Started { depth: u32 },
}

fn main() {}
