use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Event {
    #[hook(tag = "started")]
    #[hook(tag = "begun")]
    Started,
}

fn main() {}
