use io_hooks::HookEvents;

#[derive(HookEvents)]
#[hook(rename_all = "snake_case")]
enum Event {
    #[hook(tag = "started")]
    Started,
}

fn main() {}
