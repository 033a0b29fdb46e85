//! The generated code trips no lint a careful crate turns on, so it needs no
//! `#[allow]` of its own (which a `forbid` here would reject).
#![forbid(
    warnings,
    forbidden_lint_groups,
    unsafe_code,
    unused_qualifications,
    unused_results,
    unreachable_pub,
    single_use_lifetimes,
    trivial_casts,
    trivial_numeric_casts,
    missing_docs
)]

// No serde here: its derive emits an `#[allow]` that `forbid` rejects.
use io_hooks::HookEvents;

#[derive(HookEvents)]
enum Event<'a, T> {
    #[hook(tag = "started")]
    Started,
    #[hook(tag = "step")]
    Step(T),
    #[hook(tag = "note")]
    Note { text: &'a str },
}

#[derive(HookEvents)]
enum Nothing {}

/// An envelope every event travels in, and an event nothing follows that a
/// cancel could stop.
#[derive(HookEvents)]
#[hook(envelope(job: String, attempt: u32, seq: Option<u64>))]
enum Enveloped {
    #[hook(tag = "started")]
    Started,
    #[hook(tag = "finished", last)]
    Finished,
}

/// Every variant has a field a filter reads, so the field accessor's match
/// has an arm for each and no rest.
#[derive(HookEvents)]
enum Full {
    #[hook(tag = "a")]
    A { n: u32 },
    #[hook(tag = "b")]
    B { text: &'static str },
}

/// An outcome, written as serde writes a unit variant, by hand (serde's
/// derive is not used here, above).
enum Outcome {
    Done,
}

impl serde::Serialize for Outcome {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Done => serializer.serialize_unit_variant("Outcome", 0, "done"),
        }
    }
}

/// A `#[hook(unit_enum)]` field: its names are probed for, which needs two
/// traits in scope, one of them unused.
#[derive(HookEvents)]
enum WithOutcome {
    #[hook(tag = "finished")]
    Finished {
        #[hook(unit_enum)]
        outcome: Outcome,
    },
}

/// The names a field holds, and the names of a form, for a filter's values
/// to be checked against.
const LEVELS: &[&str] = &["low", "high"];

/// Fields with declared values, and integers whose bounds the derive writes.
#[derive(HookEvents)]
enum Declared {
    #[hook(tag = "call")]
    Call {
        #[hook(values = LEVELS)]
        level: String,
        #[hook(values = ["a", "b"], prefix = "x_")]
        name: &'static str,
        #[hook(prefix = "ci/")]
        job: String,
        small: u8,
        wide: Option<usize>,
        signed: i64,
    },
}

fn main() {
    assert_eq!(Declared::field_choices(0, 0), Some(LEVELS));
    assert_eq!(Declared::field_prefixes(0, 1), ["x_"]);
    assert_eq!(Declared::FIELDS[0][5].bounds, Some((i64::MIN.into(), i64::MAX.into())));
    let call = Declared::Call { level: String::new(), name: "a", job: String::new(), small: 0, wide: None, signed: 0 };
    assert_eq!(call.tag(), "call");
    let event: Event<'_, u32> = Event::Note { text: "n" };
    assert_eq!(event.tag(), "note");
    assert_eq!(io_hooks::Kind::all().position(|k| k == Event::<'static, u32>::Started.kind()), Some(0));
    assert_eq!(io_hooks::Kind::all().position(|k| k == Event::<'static, u32>::Step(1).kind()), Some(1));
    assert!(Nothing::TAGS.is_empty());
    assert_eq!(Enveloped::LAST, [false, true]);
    assert_eq!(Enveloped::Started.tag(), "started");
    assert_eq!(Enveloped::ENVELOPE[1].bounds, Some((0, u32::MAX.into())));
    assert!(Enveloped::ENVELOPE[2].optional);
    assert!(io_hooks::Kind::<Enveloped>::named("finished").is_last());
    assert_eq!(Nothing::from_tag("x"), None);
    assert_eq!(Full::A { n: 1 }.tag(), "a");
    assert_eq!(Full::B { text: "t" }.tag(), "b");
    let finished = WithOutcome::Finished { outcome: Outcome::Done };
    assert_eq!(finished.tag(), "finished");
    assert_eq!(finished.field(0), Some(io_hooks::FieldValue::Str("done")));
    assert_eq!(WithOutcome::field_choices(0, 0), None);
}
