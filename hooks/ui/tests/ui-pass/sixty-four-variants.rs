use io_hooks::{HookEvents, HookFilter};

#[derive(HookEvents)]
enum SixtyFour {
    #[hook(tag = "e0")]
    E0,
    #[hook(tag = "e1")]
    E1,
    #[hook(tag = "e2")]
    E2,
    #[hook(tag = "e3")]
    E3,
    #[hook(tag = "e4")]
    E4,
    #[hook(tag = "e5")]
    E5,
    #[hook(tag = "e6")]
    E6,
    #[hook(tag = "e7")]
    E7,
    #[hook(tag = "e8")]
    E8,
    #[hook(tag = "e9")]
    E9,
    #[hook(tag = "e10")]
    E10,
    #[hook(tag = "e11")]
    E11,
    #[hook(tag = "e12")]
    E12,
    #[hook(tag = "e13")]
    E13,
    #[hook(tag = "e14")]
    E14,
    #[hook(tag = "e15")]
    E15,
    #[hook(tag = "e16")]
    E16,
    #[hook(tag = "e17")]
    E17,
    #[hook(tag = "e18")]
    E18,
    #[hook(tag = "e19")]
    E19,
    #[hook(tag = "e20")]
    E20,
    #[hook(tag = "e21")]
    E21,
    #[hook(tag = "e22")]
    E22,
    #[hook(tag = "e23")]
    E23,
    #[hook(tag = "e24")]
    E24,
    #[hook(tag = "e25")]
    E25,
    #[hook(tag = "e26")]
    E26,
    #[hook(tag = "e27")]
    E27,
    #[hook(tag = "e28")]
    E28,
    #[hook(tag = "e29")]
    E29,
    #[hook(tag = "e30")]
    E30,
    #[hook(tag = "e31")]
    E31,
    #[hook(tag = "e32")]
    E32,
    #[hook(tag = "e33")]
    E33,
    #[hook(tag = "e34")]
    E34,
    #[hook(tag = "e35")]
    E35,
    #[hook(tag = "e36")]
    E36,
    #[hook(tag = "e37")]
    E37,
    #[hook(tag = "e38")]
    E38,
    #[hook(tag = "e39")]
    E39,
    #[hook(tag = "e40")]
    E40,
    #[hook(tag = "e41")]
    E41,
    #[hook(tag = "e42")]
    E42,
    #[hook(tag = "e43")]
    E43,
    #[hook(tag = "e44")]
    E44,
    #[hook(tag = "e45")]
    E45,
    #[hook(tag = "e46")]
    E46,
    #[hook(tag = "e47")]
    E47,
    #[hook(tag = "e48")]
    E48,
    #[hook(tag = "e49")]
    E49,
    #[hook(tag = "e50")]
    E50,
    #[hook(tag = "e51")]
    E51,
    #[hook(tag = "e52")]
    E52,
    #[hook(tag = "e53")]
    E53,
    #[hook(tag = "e54")]
    E54,
    #[hook(tag = "e55")]
    E55,
    #[hook(tag = "e56")]
    E56,
    #[hook(tag = "e57")]
    E57,
    #[hook(tag = "e58")]
    E58,
    #[hook(tag = "e59")]
    E59,
    #[hook(tag = "e60")]
    E60,
    #[hook(tag = "e61")]
    E61,
    #[hook(tag = "e62")]
    E62,
    #[hook(tag = "e63")]
    E63,
}

fn main() {
    assert_eq!(SixtyFour::TAGS.len(), 64);
    assert_eq!(io_hooks::Kind::all().position(|k| k == SixtyFour::E63.kind()), Some(63));
    assert!(HookFilter::<SixtyFour>::ALL.contains(&SixtyFour::E63));
}
