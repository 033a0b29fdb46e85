use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Event {
    #[hook(tag = "started", rename = "begun")]
    Started,
}

fn main() {}
