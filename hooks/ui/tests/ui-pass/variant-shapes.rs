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
    assert_eq!(Shape::Unit.index(), 0);
    assert_eq!(Shape::Tuple(1, String::new()).index(), 1);
    assert_eq!(Shape::Named { x: 1, y: 2 }.index(), 2);
    assert_eq!(Shape::EmptyTuple().index(), 3);
    assert_eq!(Shape::EmptyNamed {}.index(), 4);
}
