//! The field table the derive generates: each variant's fields by wire name
//! and JSON type (serde's `rename` and `skip` honoured), and the accessor
//! that reads one without serialising the event.

use std::borrow::Cow;
use std::path::PathBuf;

use io_hooks::{FieldKind, FieldValue, HookEvents, Kind};
use serde::Serialize;

#[allow(clippy::large_enum_variant)] // one value per test
#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
enum Ev<'a> {
    #[serde(rename = "call")]
    Call {
        #[serde(rename = "tool")]
        name: String,
        step: u32,
        delta: i64,
        ratio: f64,
        ok: bool,
        exit: Option<i32>,
        args: serde_json::Value,
        argv: Vec<String>,
        #[serde(skip)]
        secret: String,
        #[serde(skip_serializing)]
        hidden: u8,
        #[serde(rename(serialize = "cwd", deserialize = "dir"))]
        path: PathBuf,
        label: &'a str,
        note: Cow<'a, str>,
        boxed: Box<str>,
        r#type: Option<Option<String>>,
    },
    #[serde(rename = "renamed_by_rule")]
    #[serde(rename_all = "camelCase")]
    RenamedByRule { tool_name: String },
    #[serde(rename = "unit")]
    Unit,
}

fn call() -> Ev<'static> {
    Ev::Call {
        name: "exec".into(),
        step: 3,
        delta: -4,
        ratio: 0.5,
        ok: true,
        exit: None,
        args: serde_json::json!({"cmd": "ls"}),
        argv: vec![],
        secret: "s".into(),
        hidden: 9,
        path: PathBuf::from("/w"),
        label: "l",
        note: Cow::Borrowed("n"),
        boxed: "b".into(),
        r#type: None,
    }
}

#[test]
fn each_field_is_listed_by_its_wire_name_with_its_json_type() {
    let fields: Vec<_> = Kind::<Ev>::named("call")
        .fields()
        .iter()
        .map(|f| (f.name, f.kind, f.optional))
        .collect();
    use FieldKind::*;
    assert_eq!(
        fields,
        [
            ("tool", Str, false),
            ("step", Integer, false),
            ("delta", Integer, false),
            ("ratio", Float, false),
            ("ok", Bool, false),
            ("exit", Integer, true),
            ("args", Other, false),
            ("argv", Other, false),
            ("cwd", Str, false),
            ("label", Str, false),
            ("note", Str, false),
            ("boxed", Str, false),
            ("type", Other, false),
        ]
    );
    // The names are what serde writes, skipped fields aside.
    let line = serde_json::to_value(call()).expect("serialises");
    let mut written: Vec<&str> = line
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "event")
        .collect();
    let mut listed: Vec<&str> = Kind::<Ev>::named("call")
        .fields()
        .iter()
        .map(|f| f.name)
        .collect();
    written.sort_unstable();
    listed.sort_unstable();
    assert_eq!(written, listed);
}

#[test]
fn the_accessor_reads_each_filterable_field_without_serialising() {
    let kind = Kind::<Ev>::named("call");
    let ev = call();
    let read = |name: &str| ev.field(kind.field_index(name).expect("listed"));
    assert_eq!(read("tool"), Some(FieldValue::Str("exec")));
    assert_eq!(read("step"), Some(FieldValue::UInt(3)));
    assert_eq!(read("delta"), Some(FieldValue::Int(-4)));
    assert_eq!(read("ratio"), Some(FieldValue::Float(0.5)));
    assert_eq!(read("ok"), Some(FieldValue::Bool(true)));
    assert_eq!(read("exit"), None, "a None matches no value");
    assert_eq!(read("args"), None, "free-form: no value to filter on");
    assert_eq!(read("cwd"), Some(FieldValue::Str("/w")));
    assert_eq!(read("label"), Some(FieldValue::Str("l")));
    assert_eq!(read("note"), Some(FieldValue::Str("n")));
    assert_eq!(read("boxed"), Some(FieldValue::Str("b")));
    assert_eq!(ev.field(99), None);
    assert_eq!(Ev::Unit.field(0), None);
}

#[test]
fn a_variant_whose_field_names_serde_changes_by_a_rule_lists_none() {
    // serde writes `toolName`; the derive does not apply case rules, so it
    // lists no field rather than one under a name serde never writes.
    assert!(Kind::<Ev>::named("renamed_by_rule").fields().is_empty());
    assert!(Kind::<Ev>::named("unit").fields().is_empty());
    assert_eq!(
        Ev::RenamedByRule {
            tool_name: "x".into()
        }
        .field(0),
        None
    );
}

/// `rename_all_fields` on the enum renames every variant's fields by a
/// rule: as with a variant's own `rename_all`, the derive lists none of
/// them rather than names serde never writes; the same enum without it
/// lists its field.
#[test]
fn an_enum_whose_fields_serde_renames_by_a_rule_lists_none() {
    #[derive(Serialize, HookEvents)]
    #[serde(tag = "event", rename_all_fields = "camelCase")]
    enum Ruled {
        #[serde(rename = "called")]
        Called { tool_name: String },
    }
    #[derive(Serialize, HookEvents)]
    #[serde(tag = "event")]
    enum Plain {
        #[serde(rename = "called")]
        Called { tool_name: String },
    }
    assert!(Kind::<Ruled>::named("called").fields().is_empty());
    let ruled = Ruled::Called {
        tool_name: "x".into(),
    };
    assert_eq!(ruled.field(0), None);
    let plain = Kind::<Plain>::named("called").fields();
    assert_eq!(plain.len(), 1);
    assert_eq!(plain[0].name, "tool_name");
    let plain = Plain::Called {
        tool_name: "x".into(),
    };
    assert_eq!(plain.field(0), Some(FieldValue::Str("x")));
}
