// A crate that reaches io_hooks through a re-export names that path with
// `#[hook(crate = "…")]`, as with serde's `#[serde(crate = "…")]`.
mod reexport {
    pub mod hooks {
        pub use io_hooks::*;
    }
}

use reexport::hooks::{HookEvents, HookFilter};

#[derive(HookEvents)]
#[hook(crate = "reexport::hooks")]
enum Event {
    #[hook(tag = "started")]
    Started,
    #[hook(tag = "finished")]
    Finished,
}

fn main() {
    assert_eq!(Event::TAGS, ["started", "finished"]);
    assert_eq!(Event::Finished.tag(), "finished");
    assert!(HookFilter::<Event>::ALL.contains(&Event::Started));
}
