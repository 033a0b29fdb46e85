use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Event {
    #[hook(tag = started)]
    Started,
}

fn main() {}
