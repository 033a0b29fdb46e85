//! `#[hook(unit_enum)]`: a field holding an enum of unit variants, which
//! serde writes as the variant's name, is a string a `where` filter may
//! name, read from the value without serialising the event.

use std::fs;

use io_hooks::{FieldKind, FieldValue, Flow, HookEvents, Hooks, Kind, TomlFile};
use serde::Serialize;

#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    Completed,
    Cancelled,
    #[serde(rename = "gave_up")]
    Failed,
}

/// Not a unit-variant enum in every value: a filter reads no value from
/// `Code(3)`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
enum Verdict {
    Allowed,
    Code(u32),
}

/// A newtype around one: serde writes it as the inner value.
#[derive(Debug, Clone, Copy, Serialize)]
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
    let specs = TomlFile::new("app.toml", &text)
        .hooks::<Ev>(dir)
        .unwrap()
        .unwrap();
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
        // The Rust name is not the wire name: it matches nothing.
        ("where.outcome = \"Failed\"", vec![]),
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
