use io_hooks::HookEvents;
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    Completed,
}

#[derive(HookEvents, Serialize)]
#[serde(tag = "event")]
enum Event {
    // serde does not write it, so no filter can name it.
    #[serde(rename = "skipped")]
    Skipped {
        #[serde(skip)]
        #[hook(unit_enum)]
        outcome: Outcome,
    },
    // A rule renames the fields, so the field table lists none.
    #[serde(rename = "renamed", rename_all = "camelCase")]
    Renamed {
        #[hook(unit_enum)]
        final_outcome: Outcome,
    },
}

fn main() {}
