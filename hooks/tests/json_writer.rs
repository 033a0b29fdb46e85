//! `HookEvents::write_json`, as `#[derive(HookEvents)]` writes it: the
//! bytes serde's derive and serde_json write, for every shape it writes
//! itself and every one it leaves to serde, with values that need escaping.

use std::collections::BTreeMap;

use io_hooks::{Action, Flow, HookEvents, HookFilter, HookSpec, Hooks};
use proptest::prelude::*;
use serde::{Deserialize, Serialize, Serializer};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Inner {
    a: u8,
    b: Vec<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn shout<S: Serializer>(s: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&s.to_uppercase())
}

/// Every shape the writer writes itself, and one variant of each kind it
/// leaves to serde.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, HookEvents)]
#[hook(write_json)]
#[serde(tag = "event", rename_all = "snake_case", deny_unknown_fields)]
enum Ev {
    #[serde(rename = "unit")]
    Unit,
    #[serde(rename = "empty")]
    Empty {},
    #[serde(rename = "scalars")]
    Scalars {
        text: String,
        yes: bool,
        n: u32,
        signed: i64,
        float: f64,
        maybe: Option<i32>,
        r#type: String,
    },
    #[serde(rename = "nested", alias = "nest")]
    Nested {
        inner: Inner,
        list: Vec<String>,
        map: BTreeMap<String, u32>,
        #[serde(default, alias = "t")]
        tail: Option<String>,
    },
    #[serde(rename = "skipping")]
    Skipping {
        #[serde(default, skip_serializing_if = "is_zero")]
        first: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        middle: Option<String>,
        #[serde(default, skip_serializing_if = "is_zero")]
        last: u32,
        // The key alone, no `default` beside it.
        #[serde(skip_serializing_if = "is_zero")]
        bare: u32,
    },
    #[serde(rename = "a \"quoted\" \\ tag\u{1}é\u{2028}")]
    OddTag { x: u32 },
    // Left to serde: a field renamed, a field written by a function, a
    // field flattened, a newtype, a variant renaming its fields.
    #[serde(rename = "field_renamed")]
    FieldRenamed {
        #[serde(rename = "other")]
        text: String,
    },
    #[serde(rename = "written_with")]
    WrittenWith {
        #[serde(serialize_with = "shout")]
        text: String,
    },
    #[serde(rename = "flattened")]
    Flattened {
        n: u32,
        #[serde(flatten)]
        inner: Inner,
    },
    #[serde(rename = "newtype")]
    Newtype(Inner),
    #[serde(rename = "renaming", rename_all = "camelCase")]
    Renaming { some_field: String },
}

/// `write_json`'s bytes and serde's, as text for a readable failure.
fn both(event: &Ev) -> (String, String) {
    let mut fast = Vec::new();
    event.write_json(&mut fast).expect("writes");
    let serde = serde_json::to_vec(event).expect("serialises");
    (
        String::from_utf8(fast).expect("UTF-8"),
        String::from_utf8(serde).expect("UTF-8"),
    )
}

fn every_variant(text: &str, n: u32, float: f64) -> Vec<Ev> {
    let inner = Inner {
        a: 7,
        b: vec![text.to_owned(), String::new()],
    };
    vec![
        Ev::Unit,
        Ev::Empty {},
        Ev::Scalars {
            text: text.to_owned(),
            yes: n.is_multiple_of(2),
            n,
            signed: -i64::from(n),
            float,
            maybe: (!n.is_multiple_of(3)).then_some(-3),
            r#type: text.to_owned(),
        },
        Ev::Nested {
            inner: inner.clone(),
            list: vec![text.to_owned()],
            map: BTreeMap::from([(text.to_owned(), n)]),
            tail: Some(text.to_owned()),
        },
        Ev::Skipping {
            first: n,
            middle: (n % 2 == 1).then(|| text.to_owned()),
            last: n / 2,
            bare: n % 3,
        },
        Ev::OddTag { x: n },
        Ev::FieldRenamed {
            text: text.to_owned(),
        },
        Ev::WrittenWith {
            text: text.to_owned(),
        },
        Ev::Flattened {
            n,
            inner: inner.clone(),
        },
        Ev::Newtype(inner),
        Ev::Renaming {
            some_field: text.to_owned(),
        },
    ]
}

#[test]
fn every_variant_is_written_as_serde_writes_it() {
    let events = every_variant("plain", 4, 1.5);
    assert_eq!(events.len(), Ev::TAGS.len(), "one of each variant");
    for event in &events {
        let (fast, serde) = both(event);
        assert_eq!(fast, serde);
    }
    let (fast, _) = both(&Ev::Skipping {
        first: 0,
        middle: None,
        last: 0,
        bare: 0,
    });
    assert_eq!(fast, r#"{"event":"skipping"}"#);
    let (fast, _) = both(&Ev::Skipping {
        first: 0,
        middle: None,
        last: 2,
        bare: 1,
    });
    assert_eq!(fast, r#"{"event":"skipping","last":2,"bare":1}"#);
    let (fast, _) = both(&Ev::OddTag { x: 1 });
    assert_eq!(
        fast,
        "{\"event\":\"a \\\"quoted\\\" \\\\ tag\\u0001é\u{2028}\",\"x\":1}"
    );
}

/// Text that needs escaping: quotes, backslashes, every control character,
/// non-ASCII, the line separators JavaScript would not take raw, and
/// lengths either side of the writer's blocks of sixteen bytes.
fn text() -> impl Strategy<Value = String> {
    let odd = prop_oneof![
        Just('"'),
        Just('\\'),
        (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap_or('\0')),
        Just('\u{7f}'),
        Just('é'),
        Just('\u{2028}'),
        Just('\u{2029}'),
        Just('😀'),
        Just('a'),
        Just(' '),
    ];
    prop::collection::vec(odd, 0..40).prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn values_that_need_escaping_are_written_as_serde_writes_them(
        text in text(),
        n in any::<u32>(),
        float in any::<f64>(),
    ) {
        for event in every_variant(&text, n, float) {
            let (fast, serde) = both(&event);
            prop_assert_eq!(fast, serde);
        }
    }
}

/// A `Serialize` that fails, with `#[serde]` read by `Deserialize` alone:
/// the derive's writer never calls it.
#[derive(Debug, Deserialize, HookEvents)]
#[hook(write_json)]
#[serde(tag = "event")]
enum NeverSerde {
    #[serde(rename = "step")]
    Step {
        step: u32,
        note: String,
        #[serde(default, skip_serializing_if = "is_zero")]
        extra: u32,
    },
    #[serde(rename = "pair")]
    #[expect(dead_code, reason = "a newtype to leave to serde, never read")]
    Pair(Inner),
}

impl Serialize for NeverSerde {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("serde was called"))
    }
}

#[test]
fn a_modelled_variant_is_written_without_serde_and_another_by_it() {
    let mut line = Vec::new();
    let step = NeverSerde::Step {
        step: 2,
        note: "n".to_owned(),
        extra: 0,
    };
    step.write_json(&mut line).expect("written here");
    assert_eq!(line, br#"{"event":"step","step":2,"note":"n"}"#);
    let pair = NeverSerde::Pair(Inner {
        a: 1,
        b: Vec::new(),
    });
    let err = pair
        .write_json(&mut Vec::new())
        .expect_err("a newtype variant is serde's");
    assert_eq!(err.to_string(), "serde was called");
}

/// An enum not marked `#[hook(write_json)]`, whose `Serialize` is written
/// by hand: its `#[serde]` is `Deserialize`'s, and `write_json` is serde's.
#[derive(Debug, Deserialize, HookEvents)]
#[serde(tag = "event")]
enum ByHand {
    #[serde(rename = "step")]
    Step { step: u32 },
}

impl Serialize for ByHand {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let ByHand::Step { step } = self;
        serializer.serialize_str(&format!("step {step}"))
    }
}

/// Marked `#[hook(write_json)]` by mistake: a `Serialize` by hand that
/// writes the tag serde's derive would, and a field under another name.
#[derive(Debug, Deserialize, HookEvents)]
#[hook(write_json)]
#[serde(tag = "event")]
enum OwnNames {
    #[serde(rename = "step")]
    Step { step: u32 },
}

impl Serialize for OwnNames {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let OwnNames::Step { step } = self;
        let mut out = serializer.serialize_struct("OwnNames", 2)?;
        out.serialize_field("event", "step")?;
        out.serialize_field("number", step)?;
        out.end()
    }
}

#[test]
fn check_tags_finds_a_writer_that_is_not_serdes() {
    let err = io_hooks::check_tags(&[OwnNames::Step { step: 1 }]).expect_err("other bytes");
    assert_eq!(
        err,
        io_hooks::TagCheckError::OtherBytes {
            enum_name: std::any::type_name::<OwnNames>(),
            event: "step",
            written: r#"{"event":"step","step":1}"#.to_owned(),
            serde: r#"{"event":"step","number":1}"#.to_owned(),
        }
    );
    assert!(
        err.to_string()
            .ends_with("take `#[hook(write_json)]` off the enum"),
        "{err}"
    );
    io_hooks::check_tags(&every_variant("x", 1, 0.5)).expect("the derive's bytes are serde's");
}

#[test]
fn an_unmarked_enum_is_written_by_its_serialize() {
    let mut line = Vec::new();
    ByHand::Step { step: 4 }
        .write_json(&mut line)
        .expect("serde writes it");
    assert_eq!(line, br#""step 4""#);
}

#[test]
fn fire_event_appends_the_writers_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log.jsonl");
    let hooks = Hooks::new(
        vec![HookSpec::new(HookFilter::<Ev>::ALL, Action::append(&log))],
        dir.path(),
    );
    let events = every_variant("a\n\"b\"", 3, -0.0);
    for event in &events {
        assert_eq!(hooks.fire_event(event), Flow::Continue);
    }
    let written = std::fs::read_to_string(&log).expect("the log");
    let expected: String = events
        .iter()
        .map(|event| format!("{}\n", both(event).1))
        .collect();
    assert_eq!(written, expected);
}
