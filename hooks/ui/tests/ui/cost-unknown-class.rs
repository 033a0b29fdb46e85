use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Event {
    // Not a class: the error lists the four there are.
    #[hook(tag = "token", cost = "per_items")]
    Token,
    // The Rust name of a class is not how it is written.
    #[hook(tag = "step", cost = "PerUnit")]
    Step,
    #[hook(tag = "started", cost = 1)]
    Started,
}

fn main() {}
