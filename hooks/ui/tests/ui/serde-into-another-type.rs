use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize)]
struct Wire {
    kind: &'static str,
}

impl From<Event> for Wire {
    fn from(_: Event) -> Wire {
        Wire { kind: "anything" }
    }
}

// serde writes a `Wire`, not these variants: their renames are never seen.
#[derive(Clone, Serialize, HookEvents)]
#[serde(into = "Wire")]
enum Event {
    #[serde(rename = "started")]
    Started,
}

fn main() {}
