use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize)]
struct Payload {
    note: String,
}

// Under `tag`, serde writes a newtype's field as a map with the tag added,
// which none of these is: serialising each would fail at run time.
#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Event<'a> {
    #[serde(rename = "started")]
    Started(String),
    #[serde(rename = "named")]
    Named(&'a str),
    #[serde(rename = "step")]
    Step(u32),
    #[serde(rename = "flag")]
    Flag(bool),
    #[serde(rename = "lines")]
    Lines(Vec<String>),
    #[serde(rename = "pair")]
    Pair((u32, u32)),
    #[serde(rename = "bytes")]
    Bytes([u8; 4]),
    #[serde(rename = "maybe")]
    Maybe(Option<String>),
    // `None` is no map, whatever `Some` holds.
    #[serde(rename = "missing")]
    Missing(Option<Payload>),
    #[serde(rename = "path")]
    Path(std::string::String),
    #[serde(rename = "wrapped")]
    Wrapped((u64)),
}

// A type passed through `macro_rules!` arrives in an invisible group.
macro_rules! newtype_event {
    ($ty:ty) => {
        #[derive(Serialize, HookEvents)]
        #[serde(tag = "event")]
        enum FromMacro {
            #[serde(rename = "started")]
            Started($ty),
        }
    };
}

newtype_event!(String);

fn main() {}
