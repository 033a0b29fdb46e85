use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Event {
    #[hook(tag = "token", cost = "per_token", cost = "rare")]
    Token,
    #[hook(tag = "step", cost = "per_step")]
    #[hook(cost = "per_step")]
    Step,
}

fn main() {}
