use std::fmt::Debug;

use io_hooks::{HookEvents, HookFilter};
use serde::Serialize;

#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Event<'a, T: Debug, const N: usize>
where
    T: Clone,
{
    #[serde(rename = "payload")]
    Payload { value: T },
    #[serde(rename = "borrowed")]
    Borrowed {
        text: &'a str,
        width: std::marker::PhantomData<[u8; N]>,
    },
}

fn main() {
    type E = Event<'static, String, 2>;
    assert_eq!(E::TAGS, ["payload", "borrowed"]);
    let e: E = Event::Payload {
        value: "x".to_owned(),
    };
    assert_eq!(e.tag(), "payload");
    assert!(
        HookFilter::<E>::from_names(["borrowed"])
            .unwrap()
            .contains(&Event::Borrowed {
                text: "t",
                width: std::marker::PhantomData
            })
    );
}
