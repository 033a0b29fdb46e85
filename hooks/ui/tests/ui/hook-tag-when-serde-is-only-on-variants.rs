use io_hooks::HookEvents;
use serde::Serialize;

// No `#[serde]` on the enum, but one on a variant: serde still derives, and
// writes `Step` as "Step", so a hook on "step" would never fire.
#[derive(Serialize, HookEvents)]
enum Event {
    #[serde(rename = "started")]
    Started,
    #[hook(tag = "step")]
    Step,
}

// A serde attribute that names nothing (`alias`, `bound`) is still serde's.
#[derive(Serialize, HookEvents)]
enum Aliased {
    #[hook(tag = "started")]
    #[serde(alias = "started")]
    Started,
}

fn main() {}
