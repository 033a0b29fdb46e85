use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Event {
    #[hook(rename = "begun", tag = "started")]
    Started,
}

fn main() {}
