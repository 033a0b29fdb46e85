use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Light {
    #[hook(tag = "on")]
    On,
    #[hook(tag = "off")]
    Off,
}

fn main() {
    assert_eq!(Light::TAGS, ["on", "off"]);
    assert_eq!(io_hooks::Kind::all().position(|k| k == Light::Off.kind()), Some(1));
    assert_eq!(Light::On.tag(), "on");
}
