use io_hooks::HookEvents;
use serde::{Deserialize, Serialize};

#[derive(Serialize)]
struct Payload {
    goal: String,
}

// Attributes serde reads without changing the tag it writes, each beside a
// tag that is accepted as written.
#[derive(Serialize, Deserialize, HookEvents)]
#[serde(tag = "event", deny_unknown_fields, bound(serialize = "T: Serialize"))]
enum Event<T: 'static> {
    // A newtype of a struct is written as the struct's map beside the tag.
    #[serde(rename = "started")]
    #[serde(skip_deserializing)]
    Started(Payload),
    // An alias naming no other variant's tag, and a list that is no rename.
    #[serde(rename = "step", alias = "turn", bound(serialize = "T: Serialize"))]
    Step { n: T },
    // `()` is written as nothing beside the tag.
    #[serde(rename = "tick", skip_deserializing)]
    Tick(()),
    // Deserialise-only, so the variant is still written as "other".
    #[serde(rename = "other")]
    #[serde(other)]
    Other,
}

// A qualified path ending in `Vec` is not `Vec`: left to serde, which
// writes this one as a map.
trait Carries {
    type Vec;
}

impl Carries for Payload {
    type Vec = Payload;
}

#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Qualified {
    #[serde(rename = "started")]
    Started(<Payload as Carries>::Vec),
}

// Adjacently and externally tagged enums write any newtype.
#[derive(Serialize, HookEvents)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    #[serde(rename = "started")]
    Started(String),
}

#[derive(Serialize, HookEvents)]
enum External {
    #[serde(rename = "started")]
    Started(String),
}

fn main() {
    assert_eq!(Event::<u32>::TAGS, ["started", "step", "tick", "other"]);
    assert_eq!(Adjacent::TAGS, ["started"]);
    assert_eq!(External::TAGS, ["started"]);
    assert_eq!(Qualified::TAGS, ["started"]);
}
