//! `where` on the envelope's fields (issue 45): fields every event's line
//! carries beside its own, declared once on the enum with
//! `#[hook(envelope(...))]`, named by a hook's `where` on every event, with
//! `on` or without, checked at load with their types and bounds, read at
//! fire time through `Enveloped`, and in the JSON Schema.

use std::path::Path;

use io_hooks::{
    Action, Enveloped, FieldValue, Flow, HookEvents, HookSpec, Hooks, TableError, TomlFile,
};
use serde::Serialize;

/// A miniature harness's events: a child's have their own run and a depth.
#[derive(HookEvents, Serialize, Debug, Clone)]
#[serde(tag = "event")]
#[hook(envelope(run_id: String, depth: u32, seq: Option<u64>))]
enum Ev {
    #[serde(rename = "step")]
    Step { step: u32 },
    #[serde(rename = "finished")]
    #[hook(last)]
    Finished { ok: bool },
}

/// One line as the harness writes it: the event, then its envelope.
#[derive(Serialize)]
struct Line {
    #[serde(flatten)]
    event: Ev,
    run_id: String,
    depth: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    seq: Option<u64>,
}

impl Enveloped<Ev> for Line {
    fn event(&self) -> &Ev {
        &self.event
    }
    fn envelope_field(&self, index: usize) -> Option<FieldValue<'_>> {
        match index {
            0 => Some(FieldValue::Str(&self.run_id)),
            1 => Some(FieldValue::UInt(self.depth.into())),
            2 => self.seq.map(FieldValue::UInt),
            _ => None,
        }
    }
}

fn line(event: Ev, run_id: &str, depth: u32, seq: Option<u64>) -> Line {
    Line {
        event,
        run_id: run_id.to_owned(),
        depth,
        seq,
    }
}

fn read(table: &str) -> Result<Vec<HookSpec<Ev>>, TableError> {
    let text = format!("[[hook]]\n{table}\nappend = \"a.jsonl\"\n");
    TomlFile::new("app.toml", &text).hooks::<Ev>(Path::new("/p"))
}

fn refusal(table: &str) -> String {
    read(table).expect_err(table).to_string()
}

#[test]
fn the_derive_declares_the_envelope_once_with_each_fields_type() {
    let fields: Vec<_> = Ev::ENVELOPE
        .iter()
        .map(|f| (f.name, f.kind.as_str(), f.optional, f.bounds))
        .collect();
    assert_eq!(
        fields,
        [
            ("run_id", "a string", false, None),
            ("depth", "an integer", false, Some((0, u32::MAX.into()))),
            ("seq", "an integer", true, Some((0, u64::MAX.into()))),
        ]
    );
}

#[test]
fn where_on_depth_holds_for_the_top_level_run_on_every_event() {
    let specs = read("on = [\"finished\"]\nwhere.depth = 0").expect("loads");
    let w = &specs[0].r#where;
    let done = || Ev::Finished { ok: true };
    assert!(w.passes(&line(done(), "r-1", 0, Some(9))));
    assert_eq!(
        w.turned_away(&line(done(), "r-1.1.1", 1, Some(3))),
        Some("depth")
    );
    // The event alone carries no envelope: nothing to match.
    assert_eq!(w.turned_away(&done()), Some("depth"));
}

#[test]
fn an_envelope_field_needs_no_on_and_an_events_own_field_still_does() {
    let specs =
        read("where.run_id = { glob = \"r-1.*\" }\nwhere.seq = { min = 2 }").expect("loads");
    let w = &specs[0].r#where;
    assert!(specs[0].on.is_all());
    assert!(w.passes(&line(Ev::Step { step: 1 }, "r-1.2.1", 1, Some(2))));
    assert_eq!(
        w.turned_away(&line(Ev::Step { step: 1 }, "r-2", 0, Some(2))),
        Some("run_id")
    );
    // No `seq` on the line: an optional field that holds nothing matches nothing.
    assert_eq!(
        w.turned_away(&line(Ev::Step { step: 1 }, "r-1.2.1", 1, None)),
        Some("seq")
    );
    assert_eq!(
        refusal("where.step = 1"),
        "app.toml: key `hook[1].where.step`: `step` is not a field every event has, and this \
         hook has no `on`; add `on`, naming the events whose field it is (without `on`, `where` \
         names only `run_id`, `depth`, `seq`, which every event has) (line 2, column 7)"
    );
}

#[test]
fn a_value_of_the_wrong_type_or_out_of_bounds_is_refused_with_what_is_accepted() {
    assert_eq!(
        refusal("on = [\"finished\"]\nwhere.depth = \"0\""),
        "app.toml: key `hook[1].where.depth`: envelope field `depth` is an integer, and this is \
         a string; write an integer, a list of them, or `{ min = …, max = … }` (line 3, column 15)"
    );
    assert_eq!(
        refusal("where.run_id = 7"),
        "app.toml: key `hook[1].where.run_id`: envelope field `run_id` is a string, and this is \
         an integer; write a string, a list of them, or `{ glob = \"…\" }` (line 2, column 16)"
    );
    assert_eq!(
        refusal("where.depth = { max = -1 }"),
        "app.toml: key `hook[1].where.depth`: envelope field `depth` holds an integer from 0 to \
         4294967295, and `{ max = -1 }` is outside that range, so the hook could never fire \
         (line 2, column 15)"
    );
    // A field of neither: the envelope's are listed with the event's own.
    assert_eq!(
        refusal("on = [\"step\"]\nwhere.dept = 0"),
        "app.toml: key `hook[1].where.dept`: event `step` has no field `dept` (did you mean \
         `depth`?); a filter on it may name `step`, `run_id`, `depth`, `seq` (line 3, column 7)"
    );
}

#[test]
fn hooks_fired_in_the_envelope_match_it_and_fired_bare_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[[hook]]\nwhere.depth = 0\nappend = \"top.jsonl\"\n";
    let specs = TomlFile::new("app.toml", text)
        .hooks::<Ev>(dir.path())
        .unwrap();
    let hooks = Hooks::new(specs, dir.path());
    for (depth, step) in [(0, 1), (1, 2), (0, 3)] {
        let ev = line(Ev::Step { step }, "r", depth, None);
        assert_eq!(hooks.fire(&ev, &ev), Flow::Continue);
    }
    assert_eq!(hooks.fire_event(&Ev::Step { step: 4 }), Flow::Continue);
    let written = std::fs::read_to_string(dir.path().join("top.jsonl")).unwrap();
    assert_eq!(
        written,
        "{\"event\":\"step\",\"step\":1,\"run_id\":\"r\",\"depth\":0}\n\
         {\"event\":\"step\",\"step\":3,\"run_id\":\"r\",\"depth\":0}\n"
    );
    // A spec built in code fires as before.
    let built = Hooks::new(
        vec![HookSpec::new(
            io_hooks::HookFilter::<Ev>::ALL,
            Action::append(dir.path().join("all")),
        )],
        dir.path(),
    );
    assert_eq!(built.fire_event(&Ev::Step { step: 1 }), Flow::Continue);
}

#[test]
fn the_schema_takes_the_envelopes_fields_on_every_event_and_without_on() {
    let schema = io_hooks::hook_table_schema::<Ev>(|_| String::new());
    let rules = schema["allOf"].as_array().expect("rules");
    // Without `on`, only the envelope's names; with it, theirs beside the
    // event's. (Compared as values: the key order is serde_json's
    // `preserve_order`'s, which another crate of the build may turn on.)
    let needs_on = serde_json::json!({
        "if": {
            "required": ["where"],
            "properties": { "where": { "not": { "propertyNames": { "enum": ["run_id", "depth", "seq"] } } } }
        },
        "then": { "required": ["on"] }
    });
    assert!(rules.contains(&needs_on), "{rules:#?}");
    let on_step = rules
        .iter()
        .find(|r| r["if"]["properties"]["on"]["contains"]["const"] == "step")
        .expect("a rule for `step`");
    let names = &on_step["then"]["properties"]["where"]["propertyNames"]["enum"];
    assert_eq!(
        names,
        &serde_json::json!(["run_id", "depth", "seq", "step"])
    );
    let everywhere = rules
        .iter()
        .find(|r| r.get("if").is_none() && r["properties"]["where"]["properties"].is_object())
        .expect("a rule for the envelope's values");
    let depth = &everywhere["properties"]["where"]["properties"]["depth"]["anyOf"][0];
    assert_eq!(
        depth,
        &serde_json::json!({ "type": "integer", "minimum": 0, "maximum": 4294967295u64 })
    );
}
