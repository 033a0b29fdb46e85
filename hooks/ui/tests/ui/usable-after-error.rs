// A derive that fails reports its own error and nothing else: the stub impl
// keeps every use of the trait compiling, so there is no cascade.
use io_hooks::{HookEvents, HookFilter};

#[derive(HookEvents)]
enum Event {
    Started,
}

fn main() {
    let _ = Event::TAGS;
    let _ = Event::Started.tag();
    let _ = HookFilter::<Event>::ALL.contains(&Event::Started);
}
