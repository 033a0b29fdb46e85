use io_hooks::HookEvents;

enum Outcome {
    Completed,
}

#[derive(HookEvents)]
enum Event {
    #[hook(tag = "finished")]
    Finished {
        // A filter already reads a string.
        #[hook(unit_enum)]
        name: String,
        // So does it a number or a bool, through an `Option`.
        #[hook(unit_enum)]
        steps: u32,
        #[hook(unit_enum)]
        ratio: f64,
        #[hook(unit_enum)]
        ok: Option<bool>,
        // The key takes no value.
        #[hook(unit_enum = true)]
        outcome: Outcome,
        // Once is enough.
        #[hook(unit_enum, unit_enum)]
        again: Outcome,
    },
    // A filter names a field by its name.
    #[hook(tag = "step")]
    Step(#[hook(unit_enum)] Outcome),
}

fn main() {}
