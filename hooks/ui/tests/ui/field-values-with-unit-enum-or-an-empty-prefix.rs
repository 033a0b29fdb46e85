use io_hooks::HookEvents;

#[derive(serde::Serialize, serde::Deserialize)]
enum Outcome {
    Passed,
    Failed,
}

#[derive(HookEvents, serde::Serialize)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "finished")]
    Finished {
        #[hook(unit_enum, values = ["Passed"])]
        outcome: Outcome,
        #[hook(prefix = "", values = ["a"], values = ["b"])]
        name: String,
    },
}

fn main() {}
