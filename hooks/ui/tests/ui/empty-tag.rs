use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Event {
    #[hook(tag = "")]
    Started,
}

fn main() {}
