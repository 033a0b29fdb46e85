//! A `where` that could never match is refused when the table is loaded,
//! at its line and column: an integer, or a range, outside what its field's
//! type holds, and a string, or a glob, that none of a string field's
//! declared values (`#[hook(values = …)]`, `#[hook(prefix = "…")]`)
//! matches. A field that declares nothing keeps taking any string.

use std::path::Path;

use io_hooks::{FieldKind, HookEvents, HookSpec, Kind, TableErrorKind, TomlFile};
use serde::Serialize;

/// The tools of a program that keeps their names in a `const`.
const TOOLS: &[&str] = &["read_file", "write_file", "exec"];

#[derive(HookEvents, Serialize)]
#[serde(tag = "event")]
enum Ev {
    #[serde(rename = "call")]
    Call {
        step: u32,
        #[hook(values = TOOLS, prefix = "mcp__")]
        tool: String,
        #[hook(values = ["low", "high"])]
        level: String,
        #[hook(prefix = "ci/", prefix = "cd/")]
        job: String,
        free: String,
    },
    #[allow(dead_code)] // only its field table is read
    #[serde(rename = "sizes")]
    Sizes {
        tiny: u8,
        signed: i8,
        big: u64,
        maybe: Option<u16>,
        wide: usize,
        ratio: f64,
    },
}

fn load(text: &str) -> Result<Vec<HookSpec<Ev>>, io_hooks::TableError> {
    TomlFile::new("app.toml", text).hooks::<Ev>(Path::new("/p"))
}

/// The refusal of a hook on `on` filtered by `filter`, or `None` when it
/// loads.
fn verdict(on: &str, filter: &str) -> Option<String> {
    let text = format!("[[hook]]\non = [\"{on}\"]\n{filter}\nappend = \"a.jsonl\"\n");
    load(&text).err().map(|e| e.to_string())
}

#[test]
fn the_derive_writes_each_integer_fields_bounds_from_its_type() {
    type Row = (&'static str, FieldKind, Option<(i128, i128)>);
    let bounds = |tag: &str| -> Vec<Row> {
        Kind::<Ev>::named(tag)
            .fields()
            .iter()
            .map(|f| (f.name, f.kind, f.bounds))
            .collect()
    };
    assert_eq!(
        bounds("sizes"),
        [
            ("tiny", FieldKind::Integer, Some((0, 255))),
            ("signed", FieldKind::Integer, Some((-128, 127))),
            ("big", FieldKind::Integer, Some((0, u64::MAX.into()))),
            ("maybe", FieldKind::Integer, Some((0, 65_535))),
            (
                "wide",
                FieldKind::Integer,
                Some((0, usize::MAX.try_into().expect("fits")))
            ),
            ("ratio", FieldKind::Float, None),
        ]
    );
    assert_eq!(bounds("call")[0].2, Some((0, u32::MAX.into())));
    assert_eq!(bounds("call")[1].2, None);
}

#[test]
fn the_derive_declares_each_string_fields_values_and_prefixes() {
    let call = Kind::<Ev>::named("call");
    assert_eq!(call.field_choices(1), Some(TOOLS));
    assert_eq!(call.field_prefixes(1), ["mcp__"]);
    assert_eq!(call.field_choices(2), Some(&["low", "high"][..]));
    assert_eq!(call.field_prefixes(2), [] as [&str; 0]);
    assert_eq!(call.field_choices(3), None);
    assert_eq!(call.field_prefixes(3), ["ci/", "cd/"]);
    assert_eq!(call.field_choices(4), None);
    assert_eq!(call.field_prefixes(4), [] as [&str; 0]);
}

#[test]
fn an_integer_outside_its_fields_type_is_refused_at_its_position() {
    let range = "holds an integer from 0 to 4294967295";
    for (filter, written, column) in [
        ("where.step = -1", "-1", 14),
        ("where.step = 4294967296", "4294967296", 14),
        ("where.step = { max = -1 }", "{ max = -1 }", 14),
        (
            "where.step = { min = 4294967296 }",
            "{ min = 4294967296 }",
            14,
        ),
        ("where.step = [3, -2]", "-2", 18),
        (
            "where.step = [{ min = -9, max = -1 }]",
            "{ min = -9, max = -1 }",
            15,
        ),
    ] {
        assert_eq!(
            verdict("call", filter).as_deref(),
            Some(
                format!(
                    "app.toml: key `hook[1].where.step`: field `step` of `call` {range}, and \
                     `{written}` is outside that range, so the hook could never fire (line 3, \
                     column {column})"
                )
                .as_str()
            ),
            "{filter}"
        );
    }
    // Each type's own bounds.
    for (filter, refused) in [
        ("where.tiny = 255", false),
        ("where.tiny = 256", true),
        ("where.signed = -128", false),
        ("where.signed = -129", true),
        ("where.signed = { max = -129 }", true),
        ("where.big = 9223372036854775807", false),
        ("where.big = -1", true),
        ("where.maybe = 65535", false),
        ("where.maybe = 65536", true),
        ("where.wide = -1", true),
        // A float field has no integer bounds.
        ("where.ratio = -1", false),
    ] {
        let got = verdict("sizes", filter);
        assert_eq!(got.is_some(), refused, "{filter}: {got:?}");
        if let Some(message) = got {
            assert!(message.contains("is outside that range"), "{message}");
        }
    }
}

#[test]
fn a_range_that_reaches_into_the_type_loads_and_matches_what_it_takes_in() {
    // Partly outside is not never: it takes in some values.
    for filter in [
        "where.step = { min = -5, max = 3 }",
        "where.step = { min = 5, max = 99999999999 }",
        "where.step = { max = 0 }",
        "where.step = 0",
        "where.step = 4294967295",
    ] {
        assert_eq!(verdict("call", filter), None, "{filter}");
    }
    let specs =
        load("[[hook]]\non = [\"call\"]\nwhere.step = { min = -5, max = 3 }\nappend = \"a\"\n")
            .expect("loads");
    let at = |step| Ev::Call {
        step,
        tool: "exec".into(),
        level: "low".into(),
        job: "ci/x".into(),
        free: String::new(),
    };
    assert!(specs[0].r#where.passes(&at(0)));
    assert!(specs[0].r#where.passes(&at(3)));
    assert!(!specs[0].r#where.passes(&at(4)));
}

#[test]
fn a_string_none_of_the_declared_values_matches_is_refused_with_the_nearest() {
    let holds = "field `tool` of `call` holds one of `read_file`, `write_file`, `exec`, or a \
                 string starting with `mcp__`";
    for (value, suggestion) in [
        ("exce", " (did you mean `exec`?)"),
        ("Exec", " (did you mean `exec`?)"),
        ("write", ""),
    ] {
        assert_eq!(
            verdict("call", &format!("where.tool = \"{value}\"")).as_deref(),
            Some(
                format!(
                    "app.toml: key `hook[1].where.tool`: {holds}; `{value}` is none of \
                     them{suggestion} (line 3, column 14)"
                )
                .as_str()
            )
        );
    }
    // In a list, the item that can never match is the one named.
    let message = verdict("call", "where.tool = [\"exec\", \"raed_file\"]").expect("refused");
    assert!(
        message.ends_with(
            "`raed_file` is none of them (did you mean `read_file`?) (line 3, column 23)"
        ),
        "{message}"
    );
    // An array literal and no prefix.
    assert_eq!(
        verdict("call", "where.level = \"medium\"").as_deref(),
        Some(
            "app.toml: key `hook[1].where.level`: field `level` of `call` holds one of `low`, \
             `high`; `medium` is none of them (line 3, column 15)"
        )
    );
    // Prefixes alone.
    assert_eq!(
        verdict("call", "where.job = \"build\"").as_deref(),
        Some(
            "app.toml: key `hook[1].where.job`: field `job` of `call` holds a string starting \
             with `ci/` or a string starting with `cd/`; `build` is none of them (line 3, \
             column 13)"
        )
    );
}

#[test]
fn a_declared_value_or_a_name_of_the_declared_form_loads() {
    for filter in [
        "where.tool = \"exec\"",
        "where.tool = [\"read_file\", \"write_file\"]",
        "where.tool = \"mcp__github__create_issue\"",
        "where.level = \"high\"",
        "where.job = \"cd/deploy\"",
        // A field that declares nothing takes any string.
        "where.free = \"anything at all\"",
    ] {
        assert_eq!(verdict("call", filter), None, "{filter}");
    }
}

#[test]
fn a_glob_is_refused_only_when_it_can_match_no_declared_value_or_form() {
    for (filter, loads) in [
        ("where.tool = { glob = \"*_file\" }", true),
        ("where.tool = { glob = \"mcp__github__*\" }", true),
        // Shorter than the prefix, and agreeing with it.
        ("where.tool = { glob = \"mc*\" }", true),
        ("where.tool = { glob = \"m?p__x\" }", true),
        ("where.tool = { glob = \"x*\" }", false),
        ("where.tool = { glob = \"mcq*\" }", false),
        ("where.job = { glob = \"ci/*\" }", true),
        ("where.job = { glob = \"c*\" }", true),
        ("where.job = { glob = \"build/*\" }", false),
        ("where.level = { glob = \"h*\" }", true),
        ("where.level = { glob = \"m*\" }", false),
        ("where.free = { glob = \"x*\" }", true),
    ] {
        let got = verdict("call", filter);
        assert_eq!(got.is_none(), loads, "{filter}: {got:?}");
        if let Some(message) = got {
            assert!(
                message.contains("matches none of them, so the hook could never fire"),
                "{message}"
            );
        }
    }
}

#[test]
fn the_refusals_are_where_errors_an_embedder_can_match() {
    let err =
        load("[[hook]]\non = [\"call\"]\nwhere.step = -1\nappend = \"a\"\n").expect_err("refused");
    assert!(matches!(
        err.kind(),
        TableErrorKind::OutOfBounds {
            field: "step",
            min: 0,
            max: 4_294_967_295,
            ..
        }
    ));
    let err = load("[[hook]]\non = [\"call\"]\nwhere.tool = \"exce\"\nappend = \"a\"\n")
        .expect_err("refused");
    assert!(matches!(
        err.kind(),
        TableErrorKind::NoSuchValue {
            suggestion: Some("exec"),
            prefixes: ["mcp__"],
            ..
        }
    ));
}
