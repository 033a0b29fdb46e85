use io_hooks::HookEvents;

const LEVELS: &[u32] = &[1, 2];

#[derive(HookEvents, serde::Serialize)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "step")]
    Step {
        #[hook(values = LEVELS)]
        level: String,
    },
}

fn main() {}
