use io_hooks::HookEvents;

#[derive(HookEvents)]
#[hook(cost = "rare")]
enum Event {
    #[hook(tag = "token")]
    Token,
}

fn main() {}
