//! `HookEvents::write_json` writes serde's bytes whatever serde is told:
//! a variant or an enum with a serde attribute the derive does not model is
//! left to serde, and the code generated for the rest trips no lint a
//! careful crate denies (serde's own derive emits an `#[allow]`, so `deny`
//! here, where `lint-clean.rs` can `forbid`).
#![deny(
    warnings,
    unsafe_code,
    unused_qualifications,
    unused_results,
    unreachable_pub,
    single_use_lifetimes,
    trivial_casts,
    trivial_numeric_casts,
    missing_docs
)]

use io_hooks::HookEvents;
use serde::{Serialize, Serializer};

/// A struct a newtype variant holds.
#[derive(Serialize)]
struct Payload {
    goal: String,
}

fn upper<S: Serializer>(s: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&s.to_uppercase())
}

/// Each variant with an attribute the derive does not model, beside one it
/// writes itself.
#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
#[hook(write_json)]
enum Unmodelled<'a> {
    #[serde(rename = "plain")]
    Plain { text: &'a str, n: u32 },
    #[serde(rename = "skipped_field")]
    SkippedField {
        #[serde(skip)]
        secret: String,
        shown: bool,
    },
    #[serde(rename = "renamed_field")]
    RenamedField {
        #[serde(rename = "other name")]
        text: String,
    },
    #[serde(rename = "with")]
    With {
        #[serde(serialize_with = "upper")]
        text: String,
    },
    #[serde(rename = "flatten")]
    Flatten {
        #[serde(flatten)]
        payload: Payload,
    },
    #[serde(rename = "newtype")]
    Newtype(Payload),
    #[serde(rename = "rename_all", rename_all = "UPPERCASE")]
    RenameAll { loud: u8 },
    #[serde(rename = "skip_if_unmodelled")]
    SkipIfOther {
        #[serde(skip_serializing_if = "Vec::is_empty", rename = "items")]
        list: Vec<u8>,
    },
}

/// An enum serde writes with another tagging, or with a rule for every
/// variant's fields: wholly serde's.
#[derive(Serialize, HookEvents)]
#[serde(tag = "t", content = "c")]
#[hook(write_json)]
enum Adjacent {
    #[serde(rename = "a")]
    A { n: u32 },
}

/// Externally tagged.
#[derive(Serialize, HookEvents)]
enum External {
    #[serde(rename = "a")]
    A { n: u32 },
    #[serde(rename = "b")]
    B,
}

/// A rule for every variant's fields.
#[derive(Serialize, HookEvents)]
#[serde(tag = "event", rename_all_fields = "camelCase")]
#[hook(write_json)]
enum FieldRule {
    #[serde(rename = "a")]
    A { some_field: u32 },
}

/// A type parameter.
#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
#[hook(write_json)]
enum Generic<T> {
    #[serde(rename = "a")]
    A { value: T },
}

/// Both bytes, compared.
fn same<E: HookEvents + Serialize>(event: &E) {
    let mut fast = Vec::new();
    event.write_json(&mut fast).expect("writes");
    let serde = serde_json::to_vec(event).expect("serialises");
    assert_eq!(
        String::from_utf8_lossy(&fast),
        String::from_utf8_lossy(&serde)
    );
}

fn main() {
    let payload = || Payload {
        goal: "g\"o\"al".to_owned(),
    };
    for event in [
        Unmodelled::Plain { text: "t\n", n: 1 },
        Unmodelled::SkippedField {
            secret: "s".to_owned(),
            shown: true,
        },
        Unmodelled::RenamedField {
            text: "x".to_owned(),
        },
        Unmodelled::With {
            text: "x".to_owned(),
        },
        Unmodelled::Flatten { payload: payload() },
        Unmodelled::Newtype(payload()),
        Unmodelled::RenameAll { loud: 2 },
        Unmodelled::SkipIfOther { list: Vec::new() },
        Unmodelled::SkipIfOther { list: vec![1] },
    ] {
        same(&event);
    }
    same(&Adjacent::A { n: 1 });
    same(&External::A { n: 1 });
    same(&External::B);
    same(&FieldRule::A { some_field: 1 });
    same(&Generic::A { value: "v" });
    same(&Generic::A { value: [1, 2] });
}
