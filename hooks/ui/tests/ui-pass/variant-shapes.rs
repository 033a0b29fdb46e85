use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Shape {
    #[hook(tag = "unit")]
    Unit,
    #[hook(tag = "tuple")]
    Tuple(u32, String),
    #[hook(tag = "named")]
    Named { x: i64, y: i64 },
    #[hook(tag = "empty_tuple")]
    EmptyTuple(),
    #[hook(tag = "empty_named")]
    EmptyNamed {},
}

fn main() {
    assert_eq!(io_hooks::Kind::all().position(|k| k == Shape::Unit.kind()), Some(0));
    assert_eq!(io_hooks::Kind::all().position(|k| k == Shape::Tuple(1, String::new()).kind()), Some(1));
    assert_eq!(io_hooks::Kind::all().position(|k| k == Shape::Named { x: 1, y: 2 }.kind()), Some(2));
    assert_eq!(io_hooks::Kind::all().position(|k| k == Shape::EmptyTuple().kind()), Some(3));
    assert_eq!(io_hooks::Kind::all().position(|k| k == Shape::EmptyNamed {}.kind()), Some(4));
}
