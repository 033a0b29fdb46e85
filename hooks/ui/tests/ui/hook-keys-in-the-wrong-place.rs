use io_hooks::HookEvents;

#[derive(HookEvents)]
#[hook(tag = "event")]
enum Event {
    #[hook(tag = "started", crate = "io_hooks")]
    Started,
}

fn main() {}
