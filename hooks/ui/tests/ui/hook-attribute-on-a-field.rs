use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Event {
    #[hook(tag = "step")]
    Step {
        #[hook(tag = "number")]
        number: u32,
    },
}

fn main() {}
