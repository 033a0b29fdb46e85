use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "started")]
    Started,
    #[serde(rename = "other", untagged)]
    Other { note: String },
    // Written without a tag, so it needs none: one error, not two.
    #[serde(untagged)]
    Loose { text: String },
}

fn main() {}
