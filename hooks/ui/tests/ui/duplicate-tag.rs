use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "step")]
    Step,
    #[serde(rename = "finished")]
    Finished,
    #[serde(rename = "step")]
    StepAgain,
}

fn main() {}
