//! `envelope` is a list of fields, with one at least.
use io_hooks::HookEvents;

#[derive(HookEvents)]
#[hook(envelope = "run_id")]
enum Event {
    #[hook(tag = "started")]
    Started,
}

#[derive(HookEvents)]
#[hook(envelope())]
enum Other {
    #[hook(tag = "started")]
    Started,
}

fn main() {}
