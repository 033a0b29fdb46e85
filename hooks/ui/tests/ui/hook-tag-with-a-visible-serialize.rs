use io_hooks::HookEvents;

// serde writes `{"JobStarted":{…}}`, so no hook on `job_started` would ever
// match a line's tag. The derive sees `Serialize` in a `#[derive]` written
// after the one naming `HookEvents`, and refuses it there.
#[derive(HookEvents)]
#[derive(serde::Serialize)]
enum Ci {
    #[hook(tag = "job_started")]
    JobStarted { id: u32 },
}

// By any path, among other derives; a variant with no tag at all is offered
// only what serde reads.
#[derive(HookEvents)]
#[derive(Clone, ::serde::Serialize)]
enum Untagged {
    Quiet,
}

fn main() {}
