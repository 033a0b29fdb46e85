//! `last` is a variant's, and takes no value; `envelope` is the enum's.
use io_hooks::HookEvents;

#[derive(HookEvents)]
#[hook(last)]
enum Event {
    #[hook(tag = "started", last = true)]
    Started,
    #[hook(tag = "finished", envelope(run_id: String))]
    Finished,
    #[hook(tag = "aborted", last, last)]
    Aborted,
}

fn main() {}
