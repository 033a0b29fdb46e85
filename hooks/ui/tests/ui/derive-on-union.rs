use io_hooks::HookEvents;

#[derive(HookEvents)]
union Bits {
    small: u32,
    large: u64,
}

fn main() {}
