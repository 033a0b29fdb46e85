//! `#[hook(unit_enum)]`: a field holding an enum of unit variants, which
//! serde writes as the variant's name, is a string a `where` filter may
//! name, read from the value without serialising the event; when its type
//! also derives `Deserialize`, a value none of its variants has is refused
//! at load.

use std::fs;

use io_hooks::{FieldKind, FieldValue, Flow, HookEvents, Hooks, Kind, TomlFile};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    Completed,
    Cancelled,
    #[serde(rename = "gave_up")]
    Failed,
}

/// Not a unit-variant enum in every value: a filter reads no value from
/// `Code(3)`. Without `Deserialize`, so its names are not known.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
enum Verdict {
    Allowed,
    Code(u32),
}

/// A newtype around one: serde writes it as the inner value.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Wrapped(Outcome);

#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Ev {
    #[serde(rename = "finished")]
    Finished {
        #[hook(unit_enum)]
        outcome: Outcome,
        #[hook(unit_enum)]
        before: Option<Outcome>,
        #[hook(unit_enum)]
        verdict: Verdict,
        #[hook(unit_enum)]
        #[serde(rename = "wrapped_outcome")]
        wrapped: Wrapped,
        steps: u32,
    },
}

fn finished(outcome: Outcome, before: Option<Outcome>, verdict: Verdict) -> Ev {
    Ev::Finished {
        outcome,
        before,
        verdict,
        wrapped: Wrapped(outcome),
        steps: 2,
    }
}

#[test]
fn a_unit_enum_field_is_listed_as_a_string_an_option_of_one_as_optional() {
    let fields = Kind::<Ev>::named("finished").fields();
    let shown: Vec<_> = fields
        .iter()
        .map(|f| (f.name, f.kind, f.optional))
        .collect();
    assert_eq!(
        shown,
        [
            ("outcome", FieldKind::Str, false),
            ("before", FieldKind::Str, true),
            ("verdict", FieldKind::Str, false),
            ("wrapped_outcome", FieldKind::Str, false),
            ("steps", FieldKind::Integer, false),
        ]
    );
}

#[test]
fn the_accessor_reads_the_name_serde_writes() {
    let ev = finished(Outcome::Failed, Some(Outcome::Cancelled), Verdict::Allowed);
    assert_eq!(ev.field(0), Some(FieldValue::Str("gave_up")));
    assert_eq!(ev.field(1), Some(FieldValue::Str("cancelled")));
    assert_eq!(ev.field(2), Some(FieldValue::Str("allowed")));
    assert_eq!(ev.field(3), Some(FieldValue::Str("gave_up")));
    assert_eq!(ev.field(4), Some(FieldValue::UInt(2)));
    // The same names as serde's own line.
    let line = serde_json::to_value(&ev).unwrap();
    assert_eq!(line["outcome"], "gave_up");
    assert_eq!(line["before"], "cancelled");
    assert_eq!(line["wrapped_outcome"], "gave_up");

    // `None`, and a value that is not a unit variant, read as no value.
    let ev = finished(Outcome::Completed, None, Verdict::Code(3));
    assert_eq!(ev.field(1), None);
    assert_eq!(ev.field(2), None);
    assert_eq!(ev.field(0), Some(FieldValue::Str("completed")));
}

fn hooks(dir: &std::path::Path, filter: &str) -> Hooks<Ev> {
    let text = format!("[[hook]]\non = [\"finished\"]\n{filter}\nappend = \"log.jsonl\"\n");
    let specs = TomlFile::new("app.toml", &text).hooks::<Ev>(dir).unwrap();
    Hooks::new(specs, dir)
}

fn logged(dir: &std::path::Path) -> Vec<String> {
    let text = fs::read_to_string(dir.join("log.jsonl")).unwrap_or_default();
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["outcome"].as_str().unwrap_or_default().to_owned()
        })
        .collect()
}

#[test]
fn a_filter_on_it_passes_the_variants_it_names_and_turns_away_the_rest() {
    let every = [Outcome::Completed, Outcome::Cancelled, Outcome::Failed];
    for (filter, wanted) in [
        ("where.outcome = \"cancelled\"", vec!["cancelled"]),
        (
            "where.outcome = [\"completed\", \"gave_up\"]",
            vec!["completed", "gave_up"],
        ),
        (
            "where.outcome = { glob = \"c*\" }",
            vec!["completed", "cancelled"],
        ),
        ("where.before = \"completed\"", vec!["cancelled"]),
        ("where.verdict = \"allowed\"", vec!["completed"]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let hooks = hooks(dir.path(), filter);
        for (i, outcome) in every.into_iter().enumerate() {
            let before = (i == 1).then_some(Outcome::Completed);
            let verdict = if i == 0 {
                Verdict::Allowed
            } else {
                Verdict::Code(1)
            };
            assert_eq!(
                hooks.fire_event(&finished(outcome, before, verdict)),
                Flow::Continue
            );
        }
        assert_eq!(logged(dir.path()), wanted, "{filter}");
    }
}

#[test]
fn its_choices_are_the_names_serde_reads_when_the_type_derives_deserialize() {
    let kind = Kind::<Ev>::named("finished");
    let names: &[&str] = &["completed", "cancelled", "gave_up"];
    assert_eq!(kind.field_choices(0), Some(names));
    assert_eq!(kind.field_choices(1), Some(names), "through an Option");
    assert_eq!(
        kind.field_choices(2),
        None,
        "Verdict derives no Deserialize"
    );
    assert_eq!(kind.field_choices(3), Some(names), "through a newtype");
    assert_eq!(kind.field_choices(4), None, "not a unit_enum field");
    assert_eq!(kind.field_choices(9), None);
}

fn refused(filter: &str) -> String {
    let text = format!("[[hook]]\non = [\"finished\"]\n{filter}\nappend = \"log.jsonl\"\n");
    TomlFile::new("app.toml", &text)
        .hooks::<Ev>(std::path::Path::new("/p"))
        .unwrap_err()
        .to_string()
}

#[test]
fn a_value_none_of_its_variants_has_is_refused_with_the_names_and_the_nearest() {
    assert_eq!(
        refused("where.outcome = \"canceled\""),
        "app.toml: key `hook[1].where.outcome`: field `outcome` of `finished` holds one of \
         `completed`, `cancelled`, `gave_up`; `canceled` is none of them (did you mean \
         `cancelled`?) (line 3, column 17)"
    );
    // The Rust name is not the wire name.
    assert!(
        refused("where.outcome = [\"cancelled\", \"Failed\"]")
            .contains("; `Failed` is none of them (line 3, column 31)"),
        "{}",
        refused("where.outcome = [\"cancelled\", \"Failed\"]")
    );
    assert!(
        refused("where.before = \"done\"").contains("field `before` of `finished` holds one of"),
        "{}",
        refused("where.before = \"done\"")
    );
    assert_eq!(
        refused("where.wrapped_outcome = { glob = \"fail*\" }"),
        "app.toml: key `hook[1].where.wrapped_outcome`: field `wrapped_outcome` of `finished` \
         holds one of `completed`, `cancelled`, `gave_up`; the glob `fail*` matches none of \
         them, so the hook could never fire (line 3, column 25)"
    );
    // A long value is quoted cut, not whole.
    let long = "x".repeat(10_000);
    let message = refused(&format!("where.outcome = \"{long}\""));
    assert!(message.len() < 400, "{message}");
    // Where the names are not known, any string loads.
    let dir = tempfile::tempdir().unwrap();
    hooks(dir.path(), "where.verdict = \"anything\"");
}

#[test]
fn a_filter_on_it_takes_strings_only() {
    let dir = tempfile::tempdir().unwrap();
    let err = TomlFile::new(
        "app.toml",
        "[[hook]]\non = [\"finished\"]\nwhere.outcome = 1\nappend = \"log.jsonl\"\n",
    )
    .hooks::<Ev>(dir.path())
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "app.toml: key `hook[1].where.outcome`: field `outcome` of `finished` is a string, \
         and this is an integer; write a string, a list of them, or `{ glob = \"…\" }` \
         (line 3, column 17)"
    );
}

/// A type named by a qualified path whose last segment is `Option` is not
/// an `Option`.
#[test]
fn a_qualified_path_ending_in_option_is_not_optional() {
    trait Named {
        type Option;
    }
    struct W;
    impl Named for W {
        type Option = Outcome;
    }
    #[derive(Serialize, HookEvents)]
    #[serde(tag = "event")]
    enum Qualified {
        #[serde(rename = "q")]
        Q {
            #[hook(unit_enum)]
            outcome: <W as Named>::Option,
        },
    }
    let fields = Kind::<Qualified>::named("q").fields();
    assert_eq!(
        (fields[0].kind, fields[0].optional),
        (FieldKind::Str, false)
    );
    let ev = Qualified::Q {
        outcome: Outcome::Cancelled,
    };
    assert_eq!(ev.field(0), Some(FieldValue::Str("cancelled")));
}
