use io_hooks::HookEvents;
use serde::Serialize;

// serde writes `Step` as "Step", so a hook tag "step" alone would never match
// what an `append` hook records.
#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Event {
    #[serde(rename = "started")]
    Started,
    #[hook(tag = "step")]
    Step,
}

// A `#[serde]` on a field is enough to know serde names the variants.
#[derive(Serialize, HookEvents)]
enum FieldOnly {
    #[hook(tag = "note")]
    Note {
        #[serde(rename = "text")]
        body: String,
    },
}

// No `#[serde]` on the enum, only on a variant: serde still names `Step`.
#[derive(Serialize, HookEvents)]
enum VariantOnly {
    #[serde(rename = "started")]
    Started,
    #[hook(tag = "step")]
    Step,
    // serde writes "Again", so this repeats no tag on the wire: one error.
    #[hook(tag = "started")]
    Again,
}

// A variant `#[serde]` that names nothing (`alias`) is still serde's.
#[derive(Serialize, HookEvents)]
enum Aliased {
    #[hook(tag = "started")]
    #[serde(alias = "started")]
    Started,
}

fn main() {}
