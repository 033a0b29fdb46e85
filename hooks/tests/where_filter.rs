//! `where`: a hook's filter on named, typed fields of its events. Every
//! mistake is refused when the table is loaded, with the file, the key
//! `hook[N].where.<field>`, what is accepted and the position; a filter
//! that passes lets the event through, one that turns it away keeps it from
//! the hook, and an event every filter turns away is never serialised.

mod common;

use std::cell::Cell;
use std::path::Path;
use std::time::Duration;

use io_hooks::{Flow, HookEvents, HookSpec, Hooks, TableErrorKind, TomlFile};
use serde::{Serialize, Serializer};

#[derive(HookEvents, Serialize, Debug, Clone)]
#[serde(tag = "event")]
enum Ev {
    #[serde(rename = "tool_call")]
    ToolCall {
        step: u32,
        tool: String,
        args: serde_json::Value,
    },
    #[serde(rename = "refused")]
    Refused { step: u32, tool: String },
    #[serde(rename = "exited")]
    Exited {
        code: Option<i32>,
        ratio: f64,
        ok: bool,
    },
    #[serde(rename = "finished")]
    Finished,
}

fn call(tool: &str, step: u32) -> Ev {
    Ev::ToolCall {
        step,
        tool: tool.to_owned(),
        args: serde_json::json!({}),
    }
}

fn load(text: &str) -> Result<Vec<HookSpec<Ev>>, io_hooks::TableError> {
    TomlFile::new("app.toml", text).hooks::<Ev>(Path::new("/p"))
}

/// The error a table whose hook is `body` (with `append` added) gets.
fn refused(body: &str) -> String {
    let text = format!("[[hook]]\n{body}\nappend = \"a.jsonl\"\n");
    match load(&text) {
        Ok(specs) => panic!("loaded {specs:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn where_without_on_is_refused() {
    assert_eq!(
        refused("where.tool = \"exec\""),
        "app.toml: key `hook[1].where`: `where` filters on fields of the events in `on`, and \
         this hook has no `on`; add `on`, naming the events whose fields it filters \
         (line 2, column 1)"
    );
}

#[test]
fn a_field_an_event_of_on_lacks_is_refused_naming_the_event_its_fields_and_the_nearest() {
    assert_eq!(
        refused("on = [\"tool_call\"]\nwhere.tol = \"exec\""),
        "app.toml: key `hook[1].where.tol`: event `tool_call` has no field `tol` (did you mean \
         `tool`?); a filter on it may name `step`, `tool` (line 3, column 7)"
    );
    // One event of two lacks it: that one is named.
    assert_eq!(
        refused("on = [\"tool_call\", \"exited\"]\nwhere.tool = \"exec\""),
        "app.toml: key `hook[1].where.tool`: event `exited` has no field `tool`; a filter on it \
         may name `code`, `ratio`, `ok` (line 3, column 7)"
    );
    assert_eq!(
        refused("on = [\"finished\"]\nwhere.tool = \"exec\""),
        "app.toml: key `hook[1].where.tool`: event `finished` has no field `tool`; it has no \
         field a filter may name (line 3, column 7)"
    );
}

#[test]
fn a_free_form_field_is_refused_with_the_fields_a_filter_may_name() {
    assert_eq!(
        refused("on = [\"tool_call\"]\nwhere.args = \"x\""),
        "app.toml: key `hook[1].where.args`: field `args` of `tool_call` is free-form or nested, \
         and a filter names only a field holding a string, a number or a bool; a filter on it \
         may name `step`, `tool` (line 3, column 7)"
    );
}

#[test]
fn a_value_of_the_wrong_type_is_refused_saying_what_the_field_takes() {
    let cases = [
        (
            "where.step = \"3\"",
            "field `step` of `tool_call` is an integer, and this is a string; write an integer, \
             a list of them, or `{ min = …, max = … }` (line 3, column 14)",
        ),
        (
            "where.tool = 3",
            "field `tool` of `tool_call` is a string, and this is an integer; write a string, a \
             list of them, or `{ glob = \"…\" }` (line 3, column 14)",
        ),
        (
            "where.step = 1.5",
            "field `step` of `tool_call` is an integer, and this is a float; write an integer, a \
             list of them, or `{ min = …, max = … }` (line 3, column 14)",
        ),
        (
            "where.step = { glob = \"1*\" }",
            "field `step` of `tool_call` is an integer, and this is a glob; write an integer, a \
             list of them, or `{ min = …, max = … }` (line 3, column 14)",
        ),
        (
            "where.tool = { min = 1 }",
            "field `tool` of `tool_call` is a string, and this is a range of integers; write a \
             string, a list of them, or `{ glob = \"…\" }` (line 3, column 14)",
        ),
        (
            "where.tool = [\"exec\", 2]",
            "field `tool` of `tool_call` is a string, and this is an integer; write a string, a \
             list of them, or `{ glob = \"…\" }` (line 3, column 23)",
        ),
    ];
    for (line, reason) in cases {
        let err = refused(&format!("on = [\"tool_call\"]\n{line}"));
        let key = line.split(" =").next().unwrap_or_default();
        assert_eq!(
            err,
            format!("app.toml: key `hook[1].{key}`: {reason}"),
            "{line}"
        );
    }
    assert_eq!(
        refused("on = [\"exited\"]\nwhere.ok = \"true\""),
        "app.toml: key `hook[1].where.ok`: field `ok` of `exited` is a bool, and this is a \
         string; write `true` or `false` (line 3, column 12)"
    );
}

#[test]
fn an_empty_list_a_nested_list_and_an_empty_where_are_refused() {
    assert_eq!(
        refused("on = [\"tool_call\"]\nwhere.tool = []"),
        "app.toml: key `hook[1].where.tool`: an empty list matches no value, so the hook could \
         never fire; write a value, or a list of one or more (line 3, column 14)"
    );
    assert_eq!(
        refused("on = [\"tool_call\"]\nwhere.tool = [[\"a\"]]"),
        "app.toml: key `hook[1].where.tool`: a list of values holds no list; write one flat list \
         (line 3, column 15)"
    );
    assert_eq!(
        refused("on = [\"tool_call\"]\nwhere = {}"),
        "app.toml: key `hook[1].where`: `where = {}` names no field; name one or more, as in \
         `where.<field> = \"value\"`, or leave `where` out (line 3, column 9)"
    );
}

#[test]
fn a_glob_that_does_not_compile_is_refused_with_the_reason() {
    let err = refused("on = [\"tool_call\"]\nwhere.tool = { glob = \"[ab\" }");
    assert_eq!(
        err,
        "app.toml: key `hook[1].where.tool`: `[ab` is not a glob: invalid range pattern; `*` \
         matches any characters, `?` one, `[abc]` one of those, and the glob matches the whole \
         value (line 3, column 14)"
    );
}

#[test]
fn a_table_that_is_neither_a_glob_nor_a_range_is_refused() {
    for table in ["{ globe = \"x\" }", "{ glob = \"x\", min = 1 }", "{}"] {
        let err = refused(&format!("on = [\"tool_call\"]\nwhere.step = {table}"));
        assert_eq!(
            err,
            "app.toml: key `hook[1].where.step`: a field's table is `{ glob = \"…\" }` for a \
             string, or `{ min = …, max = … }` (either or both) for a number (line 3, column 14)",
            "{table}"
        );
    }
    // A bound that is not a number is named, not the whole shape again.
    for (table, bound) in [
        ("{ min = \"3\" }", "min"),
        ("{ min = 1, max = true }", "max"),
    ] {
        assert_eq!(
            refused(&format!("on = [\"tool_call\"]\nwhere.step = {table}")),
            format!(
                "app.toml: key `hook[1].where.step`: `{bound}` must be a number, as `{{ {bound} \
                 = 3 }}`, not in quotes (line 3, column 14)"
            ),
            "{table}"
        );
    }
    assert_eq!(
        refused("on = [\"tool_call\"]\nwhere.step = { min = 5, max = 3 }"),
        "app.toml: key `hook[1].where.step`: `min` is above `max`, so no value matches; swap \
         them (line 3, column 14)"
    );
}

#[test]
fn where_of_the_wrong_shape_is_a_type_error_at_its_key() {
    let err = refused("on = [\"tool_call\"]\nwhere = \"tool\"");
    assert!(err.starts_with("app.toml: key `hook[1].where`: invalid type: string \"tool\", expected a table of field names"), "{err}");
}

#[test]
fn the_error_kind_is_where_with_its_reason() {
    let err = load("[[hook]]\nwhere.tool = \"x\"\nappend = \"a\"\n").expect_err("no on");
    assert_eq!(err.kind(), &TableErrorKind::NoOn);
    assert_eq!(err.key(), Some("hook[1].where"));
}

/// What a checker shows of a filter: the fields it names, in the order
/// written, and whether there is one at all (a hook without `where` has an
/// empty filter, which lets every event through).
#[test]
fn a_filter_names_its_fields_in_order_and_an_absent_one_is_empty() {
    let text = "[[hook]]\non = [\"tool_call\"]\nwhere.tool = \"exec\"\n\
                where.step = 1\nappend = \"a\"\n\
                [[hook]]\non = [\"tool_call\"]\nappend = \"b\"\n";
    let specs = load(text).expect("loads");
    let (with, without) = (&specs[0].r#where, &specs[1].r#where);
    assert!(!with.is_empty());
    assert_eq!(with.fields().collect::<Vec<_>>(), ["tool", "step"]);
    assert!(without.is_empty());
    assert_eq!(without.fields().count(), 0);
    assert!(without.passes(&call("read_file", 9)));
}

/// A float field against float bounds, as floats compare; an integer
/// field refuses a float bound when loaded, so the two never meet.
#[test]
fn float_bounds_compare_with_a_float_field_and_an_integer_field_refuses_them() {
    let exited = |ratio: f64| Ev::Exited {
        code: Some(0),
        ratio,
        ok: true,
    };
    let text = "[[hook]]\non = [\"exited\"]\n\
                where.ratio = { min = 0.25, max = 0.75 }\nappend = \"a\"\n";
    let filter = &load(text).expect("loads")[0].r#where;
    assert_eq!(filter.turned_away(&exited(0.5)), None);
    assert_eq!(filter.turned_away(&exited(0.9)), Some("ratio"));
    assert_eq!(filter.turned_away(&exited(0.1)), Some("ratio"));
    assert!(
        refused("on = [\"exited\"]\nwhere.code = { min = 0.5 }")
            .contains("field `code` of `exited` is an integer, and this is a range of floats"),
    );
}

#[test]
fn values_lists_globs_and_ranges_pass_or_turn_away_by_the_field() {
    let text = "[[hook]]\non = [\"tool_call\", \"refused\"]\n\
                where.tool = [\"exec\", { glob = \"write_*\" }]\n\
                where.step = { min = 2, max = 4 }\nappend = \"a\"\n";
    let specs = load(text).expect("loads");
    let filter = &specs[0].r#where;
    assert_eq!(
        filter.to_string(),
        "tool = [\"exec\", { glob = \"write_*\" }], step = { min = 2, max = 4 }"
    );
    assert_eq!(filter.turned_away(&call("exec", 2)), None);
    assert_eq!(filter.turned_away(&call("write_file", 4)), None);
    let refused = Ev::Refused {
        step: 3,
        tool: "write_x".into(),
    };
    assert_eq!(
        filter.turned_away(&refused),
        None,
        "the field of another event of `on`"
    );
    assert_eq!(filter.turned_away(&call("read_file", 3)), Some("tool"));
    assert_eq!(filter.turned_away(&call("exec", 5)), Some("step"), "AND");
    assert_eq!(
        filter.turned_away(&call("xwrite_file", 3)),
        Some("tool"),
        "anchored"
    );
    assert_eq!(
        filter.turned_away(&call("Exec", 3)),
        Some("tool"),
        "case matters"
    );
    assert_eq!(
        filter.turned_away(&Ev::Finished),
        None,
        "not in `on`: `on` turns it away"
    );
}

#[test]
fn none_matches_no_value_and_numbers_compare_across_types() {
    let text = "[[hook]]\non = [\"exited\"]\nwhere.code = [0, 1]\nwhere.ratio = { max = 1 }\n\
                where.ok = true\nappend = \"a\"\n";
    let specs = load(text).expect("loads");
    let filter = &specs[0].r#where;
    let exited = |code, ratio, ok| Ev::Exited { code, ratio, ok };
    assert_eq!(filter.turned_away(&exited(Some(1), 0.5, true)), None);
    assert_eq!(filter.turned_away(&exited(None, 0.5, true)), Some("code"));
    assert_eq!(
        filter.turned_away(&exited(Some(2), 0.5, true)),
        Some("code")
    );
    assert_eq!(
        filter.turned_away(&exited(Some(0), 1.5, true)),
        Some("ratio")
    );
    assert_eq!(
        filter.turned_away(&exited(Some(0), f64::NAN, true)),
        Some("ratio")
    );
    assert_eq!(filter.turned_away(&exited(Some(0), 1.0, false)), Some("ok"));
}

thread_local! {
    static SERIALISED: Cell<usize> = const { Cell::new(0) };
}

/// A payload that counts its serialisations.
struct Counted<'a>(&'a Ev);

impl Serialize for Counted<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SERIALISED.with(|n| n.set(n.get() + 1));
        self.0.serialize(s)
    }
}

#[test]
fn an_event_the_filter_turns_away_is_never_serialised_and_one_it_passes_is_appended() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "[[hook]]\non = [\"tool_call\"]\nwhere.tool = \"exec\"\nappend = \"exec.jsonl\"\n";
    let specs = TomlFile::new("app.toml", text)
        .hooks::<Ev>(dir.path())
        .expect("loads");
    let hooks = Hooks::new(specs, dir.path());
    let read = call("read_file", 1);
    assert_eq!(hooks.fire(&read, &Counted(&read)), Flow::Continue);
    assert_eq!(
        SERIALISED.with(Cell::get),
        0,
        "turned away before serialising"
    );
    let exec = call("exec", 2);
    assert_eq!(hooks.fire(&exec, &Counted(&exec)), Flow::Continue);
    assert_eq!(SERIALISED.with(Cell::get), 1);
    let log = std::fs::read_to_string(dir.path().join("exec.jsonl")).expect("log");
    assert_eq!(
        log,
        "{\"event\":\"tool_call\",\"step\":2,\"tool\":\"exec\",\"args\":{}}\n"
    );
}

#[test]
fn a_hook_without_where_still_gets_what_another_hooks_filter_turns_away() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "[[hook]]\non = [\"tool_call\"]\nwhere.tool = \"exec\"\nappend = \"exec.jsonl\"\n\
                [[hook]]\non = [\"tool_call\"]\nappend = \"all.jsonl\"\n";
    let specs = TomlFile::new("app.toml", text)
        .hooks::<Ev>(dir.path())
        .expect("loads");
    let hooks = Hooks::new(specs, dir.path());
    let mut ran = Vec::new();
    let flow = hooks.fire_with(&call("read", 1), &call("read", 1), |run| {
        ran.push(run.number());
    });
    assert_eq!((flow, ran), (Flow::Continue, vec![2]));
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).expect("log");
    assert_eq!(read("exec.jsonl"), "");
    assert_eq!(read("all.jsonl").lines().count(), 1);
}

#[test]
fn where_in_a_project_file_is_refused_with_the_rest_of_hook() {
    let text = "[[hook]]\non = [\"tool_call\"]\nwhere.tool = \"exec\"\nappend = \"a\"\n";
    let err = TomlFile::project("io.toml", text)
        .hooks::<Ev>(Path::new("/p"))
        .expect_err("a project file declares no hook");
    assert!(
        matches!(err.kind(), TableErrorKind::ProjectHooks { .. }),
        "{err}"
    );
}

#[test]
fn the_schema_knows_where() {
    let schema = io_hooks::hook_table_schema::<Ev>(|k| k.doc().to_owned());
    let filter = &schema["properties"]["where"];
    assert_eq!(filter["type"], "object");
    assert_eq!(filter["minProperties"], 1);
    assert!(io_hooks::HOOK_KEYS.contains(&"where"));
    // With `where`, `on` is required, and each event of `on` narrows the
    // names `where` may use to its fields a filter reads (`args` is
    // free-form; `finished` has none).
    // In draft 7's `if`/`then`, which every editor's validator applies.
    let rules = schema["allOf"].as_array().expect("the rules");
    let first = rules
        .iter()
        .position(|rule| rule["if"] == serde_json::json!({ "required": ["where"] }))
        .expect("where needs on");
    assert_eq!(
        rules[first]["then"],
        serde_json::json!({ "required": ["on"] })
    );
    let per_event: Vec<(String, serde_json::Value)> = rules[first + 1..]
        .iter()
        .map(|rule| {
            let tag = rule["if"]["properties"]["on"]["contains"]["const"].to_string();
            let names = rule["then"]["properties"]["where"]["propertyNames"]["enum"].clone();
            (tag, names)
        })
        .collect();
    assert_eq!(
        per_event,
        [
            ("\"tool_call\"", serde_json::json!(["step", "tool"])),
            ("\"refused\"", serde_json::json!(["step", "tool"])),
            ("\"exited\"", serde_json::json!(["code", "ratio", "ok"])),
            ("\"finished\"", serde_json::json!([])),
        ]
        .map(|(tag, names)| (tag.to_owned(), names))
    );
}

#[test]
fn a_glob_of_many_stars_against_a_long_value_finishes_promptly() {
    // The pattern is the operator's, the value may be the model's: the glob
    // crate gives up at the first star whose rest runs out of input, so no
    // pattern backtracks exponentially.
    let text = "[[hook]]\non = [\"tool_call\"]\n\
                where.tool = { glob = \"*a*a*a*a*a*a*a*a*b\" }\nappend = \"a\"\n";
    let specs = load(text).expect("loads");
    let verdict = common::within(Duration::from_secs(10), "a glob match", move || {
        let long = call(&"a".repeat(1 << 20), 1);
        specs[0].r#where.turned_away(&long).map(str::to_owned)
    });
    assert_eq!(verdict.as_deref(), Some("tool"));
}

/// Issue 32, H7: the glob crate matches by backtracking, so `*` followed by
/// a 64-character literal against a 16 MiB value that almost matches it at
/// every place took 49.5 s for one event (and a 2 KB glob against a 100 KB
/// value 9.3 s). A glob is matched by the regex crate's automata now: one
/// pass over the value.
///
/// The cases are sized so that the old matcher's work (value × literal) is
/// about 4 × 10^9 steps each, four times the 49.5 s case's 10^9 (so 200 s
/// or more), while each glob is a whole DFA reading 4 MiB once: 18 s for
/// both together in a debug build at load average 20, about 2 s on an idle
/// machine. The 120 s watchdog is a regression's wait, six times the worst
/// pass measured. (A glob far longer than these is matched by the regex
/// crate's slower engines, in time proportional to the value times the
/// glob: the glob is the operator's, the value at most `--max-line`.)
#[test]
fn a_star_and_a_long_literal_against_a_long_value_is_one_pass() {
    let literal = format!("{}b", "a".repeat(1023));
    let short = format!("*{literal}");
    let long = format!("*{}", "ab".repeat(1000));
    for (glob, value) in [
        (short, "a".repeat(4 << 20)),
        (long, "ab".repeat(1 << 20) + "a"),
    ] {
        let text = format!(
            "[[hook]]\non = [\"tool_call\"]\nwhere.tool = {{ glob = {glob:?} }}\nappend = \"a\"\n"
        );
        let specs = load(&text).expect("loads");
        let verdict = common::within(Duration::from_secs(120), "a glob match", move || {
            let event = call(&value, 1);
            specs[0].r#where.turned_away(&event).map(str::to_owned)
        });
        assert_eq!(verdict.as_deref(), Some("tool"));
    }
}

/// Issue 32, notes: a date-time under `where` was refused in toml's private
/// words (`invalid type: string "$__toml_private_datetime", expected a
/// spanned value`). It is called a date-time, at its key and position.
#[test]
fn a_date_time_under_where_is_called_a_date_time() {
    for (written, column) in [
        ("where.tool = 1979-05-27", 14),
        ("where = { tool = 1979-05-27T07:32:00Z }", 18),
        ("where.tool = [1979-05-27]", 15),
    ] {
        let message = refused(written);
        assert_eq!(
            message,
            format!(
                "app.toml: key `hook[1].where.tool`: invalid type: date-time, expected a \
                 string, a number, a bool, a list of them or an inline table (line 2, column \
                 {column})"
            ),
            "{written}"
        );
        assert!(!message.contains("$__toml"), "{message}");
    }
}
