use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Event {
    #[hook(tag = "token", cost = "per_item", cost = "rare")]
    Token,
    #[hook(tag = "step", cost = "per_unit")]
    #[hook(cost = "per_unit")]
    Step,
}

fn main() {}
