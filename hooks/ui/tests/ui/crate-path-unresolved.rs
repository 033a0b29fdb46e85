use io_hooks::HookEvents;

#[derive(HookEvents)]
#[hook(crate = "hooks_reexport")]
enum Event {
    #[hook(tag = "started")]
    Started,
}

fn main() {}
