use io_hooks::HookEvents;

#[derive(HookEvents)]
#[hook(crate = "io hooks")]
enum Event {
    #[hook(tag = "started")]
    Started,
}

#[derive(HookEvents)]
#[hook(crate = io_hooks)]
enum Other {
    #[hook(tag = "started")]
    Started,
}

fn main() {}
