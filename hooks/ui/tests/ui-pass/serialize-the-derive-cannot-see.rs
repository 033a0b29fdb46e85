// `Serialize` in the `#[derive]` that names `HookEvents` (before or after
// it), or in one before it, is not handed to the derive: it cannot refuse
// these enums, whose tags serde never writes. `io_hooks::check_tags` is the
// test that catches them (hooks/tests/tag_check.rs).
use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize, HookEvents)]
enum Ci {
    #[hook(tag = "job_started")]
    JobStarted,
}

#[derive(HookEvents, Serialize)]
enum After {
    #[hook(tag = "tock")]
    Tock,
}

#[derive(Serialize)]
#[derive(HookEvents)]
enum Before {
    #[hook(tag = "tick")]
    Tick,
}

fn main() {
    assert_eq!(Ci::JobStarted.tag(), "job_started");
    assert_eq!(After::Tock.tag(), "tock");
    assert_eq!(Before::Tick.tag(), "tick");
}
