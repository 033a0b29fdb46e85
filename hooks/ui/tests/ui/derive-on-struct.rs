use io_hooks::HookEvents;

#[derive(HookEvents)]
struct Started {
    goal: String,
}

fn main() {}
