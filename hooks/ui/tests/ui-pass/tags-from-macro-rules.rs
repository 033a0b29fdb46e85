// Tags passed into `macro_rules!` arrive wrapped in invisible groups; the
// derive reads them as the literals they are, in both attributes.
use io_hooks::HookEvents;
use serde::Serialize;

macro_rules! serde_events {
    ($($variant:ident = $tag:literal),*) => {
        #[derive(Serialize, HookEvents)]
        #[serde(tag = "event")]
        enum SerdeEvent {
            $(#[serde(rename = $tag)] $variant,)*
        }
    };
}

macro_rules! hook_events {
    ($($variant:ident = $tag:expr),*) => {
        #[derive(HookEvents)]
        enum HookEvent {
            $(#[hook(tag = $tag)] $variant,)*
        }
    };
}

serde_events!(Started = "started", Finished = "finished");
hook_events!(On = "on", Off = "off");

fn main() {
    assert_eq!(SerdeEvent::TAGS, ["started", "finished"]);
    assert_eq!(SerdeEvent::Finished.tag(), "finished");
    assert_eq!(HookEvent::TAGS, ["on", "off"]);
}
