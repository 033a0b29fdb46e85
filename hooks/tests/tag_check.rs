//! `io_hooks::check_tags`: the one-line test that serde writes each event
//! with the tag hooks are matched on, for the enums the derive cannot judge.

use io_hooks::{Action, Flow, HookEvents, HookFilter, HookSpec, Hooks, TagCheckError, check_tags};
use serde::{Serialize, Serializer};

/// The silent case: `Serialize` in the same `#[derive]` as `HookEvents`,
/// no `#[serde]` anywhere, so serde writes `{"JobStarted":…}`.
#[derive(Serialize, HookEvents)]
enum Ci {
    #[hook(tag = "job_started")]
    JobStarted { id: u32 },
    #[hook(tag = "job_finished")]
    JobFinished,
}

#[test]
fn a_hook_tag_serde_never_writes_is_named_with_what_serde_writes() {
    let err = check_tags(&[Ci::JobFinished, Ci::JobStarted { id: 1 }]).unwrap_err();
    assert_eq!(
        err,
        TagCheckError::Differs {
            enum_name: "tag_check::Ci",
            event: "job_finished",
            written: "JobFinished".to_owned(),
        }
    );
    assert_eq!(
        err.to_string(),
        "serde writes the event `job_finished` of `tag_check::Ci` with the tag `JobFinished`, so \
         a hook on `job_finished` would never match its lines; write \
         `#[serde(rename = \"job_finished\")]` on its variant"
    );
    let err = check_tags(&[Ci::JobStarted { id: 1 }]).unwrap_err();
    assert!(
        matches!(err, TagCheckError::Differs { event: "job_started", ref written, .. } if written == "JobStarted")
    );
}

/// Why it matters: the line a hook on `job_started` receives says
/// `JobStarted`, which is not the tag the operator wrote.
#[test]
fn the_silent_case_writes_lines_whose_tag_no_hook_names() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let log = dir.path().join("ci.jsonl");
    let hooks = Hooks::new(
        vec![HookSpec::new(
            HookFilter::<Ci>::from_names(["job_started"]).expect("a known event"),
            Action::append(&log),
        )],
        dir.path(),
    );
    assert_eq!(hooks.fire_event(&Ci::JobStarted { id: 7 }), Flow::Continue);
    let line = std::fs::read_to_string(&log).expect("the log");
    assert_eq!(line, "{\"JobStarted\":{\"id\":7}}\n");
    assert!(!line.contains("job_started"));
}

#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Internal {
    #[serde(rename = "started")]
    Started { goal: String },
    #[serde(rename = "unit")]
    Unit,
    #[serde(rename = "wrapped")]
    Wrapped(Payload),
}

#[derive(Serialize)]
struct Payload {
    n: u32,
}

#[derive(Serialize, HookEvents)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    #[serde(rename = "one")]
    One(u32),
    #[serde(rename = "two")]
    Two,
}

#[derive(Serialize, HookEvents)]
enum External {
    #[serde(rename = "unit")]
    Unit,
    #[serde(rename = "newtype")]
    Newtype(String),
    #[serde(rename = "tuple")]
    Tuple(u8, u8),
    #[serde(rename = "named")]
    Named { x: i32 },
}

#[test]
fn every_way_serde_writes_a_tag_passes_when_it_agrees() {
    let internal = [
        Internal::Started { goal: "g".into() },
        Internal::Unit,
        Internal::Wrapped(Payload { n: 1 }),
    ];
    assert_eq!(check_tags(&internal), Ok(()));
    assert_eq!(check_tags(&[Adjacent::Two, Adjacent::One(1)]), Ok(()));
    let external = [
        External::Unit,
        External::Newtype("job_started".into()),
        External::Tuple(1, 2),
        External::Named { x: 3 },
    ];
    assert_eq!(check_tags(&external), Ok(()));
}

#[test]
fn a_variant_without_an_example_is_named() {
    let err = check_tags(&[External::Unit, External::Tuple(1, 2)]).unwrap_err();
    assert_eq!(
        err,
        TagCheckError::NoExample {
            enum_name: "tag_check::External",
            event: "newtype",
        }
    );
    assert_eq!(
        err.to_string(),
        "no example of the event `newtype` of `tag_check::External` was given, so its tag was \
         not checked; give one value of every variant"
    );
    assert!(check_tags::<Internal>(&[]).is_err());
}

/// A hand-written `Serialize` the derive cannot read: ones that write no
/// tag, one that writes another, and one that wraps a tagged value.
#[derive(HookEvents)]
enum Manual {
    #[hook(tag = "count")]
    Count(u32),
    #[hook(tag = "named")]
    Named,
    #[hook(tag = "listed")]
    Listed,
    #[hook(tag = "empty")]
    Empty,
    #[hook(tag = "empty_map")]
    EmptyMap,
    #[hook(tag = "two")]
    Wrapped,
}

impl Serialize for Manual {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        match self {
            Manual::Count(n) => s.serialize_u32(*n),
            Manual::Named => s.serialize_unit_variant("Manual", 1, "Named"),
            Manual::Listed => s.collect_seq([1, 2]),
            Manual::Empty => s.serialize_struct("Manual", 0)?.end(),
            Manual::EmptyMap => s.collect_map::<&str, u8, _>([]),
            Manual::Wrapped => s.serialize_newtype_struct("Manual", &Adjacent::Two),
        }
    }
}

#[test]
fn a_hand_written_serialize_is_judged_by_what_it_writes() {
    let untagged = [
        Manual::Count(1),
        Manual::Listed,
        Manual::Empty,
        Manual::EmptyMap,
    ];
    for value in untagged {
        let err = check_tags(std::slice::from_ref(&value)).unwrap_err();
        assert_eq!(
            err,
            TagCheckError::NoTag {
                enum_name: "tag_check::Manual",
                event: value.tag(),
            }
        );
    }
    assert_eq!(
        check_tags(&[Manual::Count(1)]).unwrap_err().to_string(),
        "serde writes the event `count` of `tag_check::Manual` without a tag, so no hook \
         reading its lines could tell it apart; write it tagged, as \
         `#[serde(tag = \"event\")]` on the enum"
    );
    let err = check_tags(&[Manual::Named]).unwrap_err();
    assert!(
        matches!(err, TagCheckError::Differs { event: "named", ref written, .. } if written == "Named")
    );
    // Through a newtype struct, the tag of what it wraps.
    assert!(matches!(
        check_tags(&[Manual::Wrapped]),
        Err(TagCheckError::NoExample { event: "count", .. })
    ));
}

/// A map whose first value is not a string carries no tag.
#[derive(HookEvents)]
enum AsMap {
    #[hook(tag = "m")]
    M,
}

impl Serialize for AsMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map([("event", 1)])
    }
}

#[derive(HookEvents)]
enum AsTaggedMap {
    #[hook(tag = "m")]
    M,
}

impl Serialize for AsTaggedMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map([("event", "m"), ("other", "x")])
    }
}

#[test]
fn a_map_is_tagged_by_its_first_string_value() {
    assert!(matches!(
        check_tags(&[AsMap::M]),
        Err(TagCheckError::NoTag { .. })
    ));
    assert_eq!(check_tags(&[AsTaggedMap::M]), Ok(()));
}
