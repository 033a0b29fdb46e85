use io_hooks::HookEvents;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, HookEvents)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "started")]
    Started { goal: String },
    #[serde(rename = "tool_call")]
    ToolCall { tool: String },
    // Both halves equal, and a `#[hook(tag)]` that agrees, are accepted.
    #[serde(rename(serialize = "finished", deserialize = "finished"))]
    #[hook(tag = "finished")]
    Finished,
}

fn main() {
    assert_eq!(Event::TAGS, ["started", "tool_call", "finished"]);
    let call = Event::ToolCall {
        tool: "exec".into(),
    };
    assert_eq!(call.tag(), "tool_call");
    assert_eq!(Event::from_tag("finished").map(io_hooks::Kind::tag), Some("finished"));
    assert_eq!(io_hooks::Kind::all().position(|k| Some(k) == Event::from_tag("finished")), Some(2));
}
