use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
#[hook(krate = "io_hooks")]
enum Event {
    #[serde(rename = "started")]
    Started,
    Step,
    #[serde(rename = "started")]
    Restarted,
    #[serde(rename = "hidden", skip)]
    Hidden,
    #[serde(rename = "")]
    Blank,
}

fn main() {}
