use io_hooks::HookEvents;

#[derive(HookEvents, serde::Serialize)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "step")]
    Step {
        #[hook(values = ["1", "2"])]
        number: u32,
        #[hook(prefix = "x")]
        args: Vec<String>,
    },
}

fn main() {}
