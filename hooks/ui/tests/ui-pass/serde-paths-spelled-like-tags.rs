use io_hooks::HookEvents;
use serde::Serialize;

// A serde key-value attribute other than `rename` and `alias` names no tag,
// even when its value is spelled like one: `deserialize_with = "done"` is a
// function's path (never called here: nothing derives `Deserialize`), not a
// second name for the variant, so it does not clash with `done`.
#[allow(dead_code)]
#[derive(Serialize, HookEvents)]
enum Paths {
    #[serde(rename = "done")]
    Done,
    #[serde(rename = "later", deserialize_with = "done")]
    Later(u32),
}

fn main() {
    assert_eq!(Paths::TAGS, ["done", "later"]);
    assert_eq!(Paths::from_tag("later").map(io_hooks::Kind::tag), Some("later"));
}
