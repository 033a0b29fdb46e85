//! `where.<args>.<name>` through the engine (issue 46), with an embedder's
//! own tools: the engine names none, learns them from the embedder's
//! [`ToolTable`] through [`Layout::tools`], checks a filter on a call's
//! arguments at load against the tools `where.<tool>` names, reads the
//! argument at fire time through [`Enveloped::free_form`], and says which
//! tools a filter on the tool's name lets through.

use std::path::Path;

use io_hooks::{
    Enveloped, Field, FieldKind, HookEvents, HookSpec, Layout, TableError, TableErrorKind,
    TomlFile, ToolClass, ToolSpec, ToolTable,
};
use serde::Serialize;

/// A miniature agent's events: a job invokes a command with options, a
/// map: a free-form field for the derive, whose JSON text the line holds.
#[derive(HookEvents, Serialize, Debug, Clone)]
#[serde(tag = "event")]
enum Ev2 {
    #[serde(rename = "invoke")]
    Invoke {
        command: String,
        options: std::collections::BTreeMap<String, String>,
    },
    /// Another free-form field comes before the arguments.
    #[serde(rename = "queued")]
    Queued {
        tags: Vec<String>,
        command: String,
        options: std::collections::BTreeMap<String, String>,
    },
    #[serde(rename = "done")]
    Done { ok: bool },
}

/// An event in a line that also holds its options' JSON text.
struct Line {
    event: Ev2,
    json: String,
}

impl Enveloped<Ev2> for Line {
    fn event(&self) -> &Ev2 {
        &self.event
    }
    fn free_form(&self, index: usize) -> Option<&str> {
        let fields = self.event.kind().fields();
        let named = fields.get(index).is_some_and(|f| f.name == "options");
        named.then_some(self.json.as_str())
    }
}

static COMMANDS: ToolTable = ToolTable {
    tool_field: "command",
    args_field: "options",
    tools: &[
        ToolSpec {
            name: "copy",
            class: ToolClass::WritesFiles,
            args: &[
                Field::new("from", FieldKind::Str, false),
                Field::new("to", FieldKind::Str, false),
                Field::new("force", FieldKind::Bool, false),
            ],
        },
        ToolSpec {
            name: "shell",
            class: ToolClass::RunsCommands,
            args: &[
                Field::new("argv", FieldKind::Strings, false),
                Field::new("retries", FieldKind::Integer, false),
            ],
        },
        ToolSpec {
            name: "look",
            class: ToolClass::Contained,
            args: &[
                Field::new("to", FieldKind::Str, false),
                Field::new("meta", FieldKind::Other, false),
            ],
        },
    ],
    open: &[("plugin:", ToolClass::Opaque, "a plugin declares its own")],
};

fn load(text: &str) -> Result<Vec<HookSpec<Ev2>>, TableError> {
    let layout = Layout::new().tools(&COMMANDS);
    TomlFile::new("agent.toml", text)
        .layout(&layout)
        .hooks::<Ev2>(Path::new("/p"))
}

fn hook(filter: &str) -> String {
    format!("[[hook]]\non = [\"invoke\"]\n{filter}\nappend = \"a.jsonl\"\n")
}

fn line(command: &str, json: &str) -> Line {
    Line {
        event: Ev2::Invoke {
            command: command.into(),
            options: Default::default(),
        },
        json: json.into(),
    }
}

#[test]
fn a_filter_on_an_argument_matches_the_calls_json_by_type() {
    let specs = load(&hook(
        "where.command = [\"copy\", \"look\"]\nwhere.options.to = { glob = \"/etc/*\" }",
    ))
    .expect("loads");
    let filter = &specs[0].r#where;
    assert_eq!(
        filter.to_string(),
        "command = [\"copy\", \"look\"], options.to = { glob = \"/etc/*\" }"
    );
    assert!(filter.passes(&line("copy", r#"{"from":"a","to":"/etc/passwd"}"#)));
    assert!(!filter.passes(&line("copy", r#"{"from":"a","to":"/tmp/x"}"#)));
    assert_eq!(
        filter.turned_away(&line("copy", r#"{"from":"/etc/x"}"#)),
        Some("options.to")
    );
    // Fired without the JSON, the event has no argument to match.
    let bare = Ev2::Invoke {
        command: "copy".into(),
        options: Default::default(),
    };
    assert!(!filter.passes(&bare));
    let specs = load(&hook(
        "where.command = \"shell\"\nwhere.options.argv = { glob = \"rm -rf *\" }\nwhere.options.retries = { min = 2 }",
    ))
    .expect("loads");
    let filter = &specs[0].r#where;
    assert!(filter.passes(&line("shell", r#"{"argv":["rm","-rf","/"],"retries":3}"#)));
    assert!(!filter.passes(&line("shell", r#"{"argv":["rm","-rf","/"],"retries":1}"#)));
    assert!(!filter.passes(&line("shell", r#"{"argv":["rm","-r","/"],"retries":3}"#)));
    assert!(!filter.passes(&line("shell", "not json")));
}

#[test]
fn an_argument_is_checked_at_load_against_the_tools_named() {
    let err = |filter: &str| {
        load(&hook(filter))
            .map(|_| ())
            .expect_err(filter)
            .to_string()
    };
    let e = err("where.command = \"copy\"\nwhere.options.too = \"x\"");
    assert!(
        e.contains("key `hook[1].where.options.too`: tool `copy` takes no argument `too` (did you mean `to`?); its arguments are `from`, `to`, `force`"),
        "{e}"
    );
    // `to` is taken by `copy` and `look`, not `shell`.
    let e = err("where.command = { glob = \"*\" }\nwhere.options.to = \"x\"");
    assert!(e.contains("tool `shell` takes no argument `to`"), "{e}");
    assert!(
        e.contains("name the tools that take it in `where.command`: `copy`, `look`"),
        "{e}"
    );
    let e = err("where.options.to = \"x\"");
    assert!(
        e.contains("without `where.command`, `where.options` names only"),
        "{e}"
    );
    let e = err("where.command = \"copy\"\nwhere.options.force = \"yes\"");
    assert!(e.contains("is a bool, and this is a string"), "{e}");
    let e = err("where.command = \"plugin:zip\"\nwhere.options.level = 3");
    assert!(
        e.contains("the arguments of `plugin:…` are free-form (a plugin declares its own)"),
        "{e}"
    );
    // A glob, or a list, that may name a prefixed tool names its
    // free-form arguments; one that cannot, does not.
    for tools in [
        "{ glob = \"plug*\" }",
        "[\"copy\", \"plugin:zip\"]",
        "[\"copy\", { glob = \"plugin:*\" }]",
    ] {
        let e = err(&format!(
            "where.command = {tools}\nwhere.options.to = \"x\""
        ));
        assert!(
            e.contains("the arguments of `plugin:…` are free-form"),
            "{tools}: {e}"
        );
    }
    load(&hook(
        "where.command = [\"copy\", { glob = \"lo*\" }]\nwhere.options.to = \"x\"",
    ))
    .expect("copy and look take `to`");
    // The arguments are found by name, past another free-form field.
    let specs = load(
        "[[hook]]\non = [\"invoke\", \"queued\"]\nwhere.command = \"copy\"\n\
         where.options.to = \"/etc\"\nappend = \"a\"\n",
    )
    .expect("both carry options");
    let queued = Line {
        event: Ev2::Queued {
            tags: Vec::new(),
            command: "copy".into(),
            options: Default::default(),
        },
        json: r#"{"to":"/etc"}"#.into(),
    };
    assert!(specs[0].r#where.passes(&queued));
    assert!(specs[0].r#where.passes(&line("copy", r#"{"to":"/etc"}"#)));
    // Every event of `on` carries the arguments.
    let e =
        load("[[hook]]\non = [\"invoke\", \"done\"]\nwhere.options.to = \"x\"\nappend = \"a\"\n")
            .map(|_| ())
            .expect_err("done has no options")
            .to_string();
    assert!(e.contains("event `done` has no field `options`"), "{e}");
    let _ = Ev2::Done { ok: true };
    // Without the table, the field is free-form, as it always was.
    let plain = TomlFile::new(
        "agent.toml",
        &hook("where.command = \"copy\"\nwhere.options.to = \"x\""),
    )
    .hooks::<Ev2>(Path::new("/p"));
    let e = plain.map(|_| ()).expect_err("no table").to_string();
    assert!(e.contains("is free-form or nested"), "{e}");
}

#[test]
fn lets_through_names_the_reaching_tools_a_filter_on_the_name_misses() {
    let specs = load(&hook("where.command = \"copy\"")).expect("loads");
    let unseen = specs[0].r#where.lets_through(&COMMANDS).expect("filtered");
    assert_eq!(
        unseen,
        [
            ("shell".to_owned(), ToolClass::RunsCommands),
            ("plugin:…".to_owned(), ToolClass::Opaque)
        ]
    );
    let specs = load(&hook(
        "where.command = [\"copy\", \"shell\", { glob = \"plugin:*\" }]",
    ))
    .expect("loads");
    assert_eq!(specs[0].r#where.lets_through(&COMMANDS), Some(Vec::new()));
    let specs = load(&hook("where.options.to = \"x\"\nwhere.command = \"look\"")).expect("loads");
    assert_eq!(
        specs[0].r#where.lets_through(&COMMANDS).map(|u| u.len()),
        Some(3)
    );
}

/// Tools that all take `to`, and none known by a prefix.
static CLOSED: ToolTable = ToolTable {
    tool_field: "command",
    args_field: "options",
    tools: &[
        ToolSpec {
            name: "copy",
            class: ToolClass::WritesFiles,
            args: &[
                Field::new("to", FieldKind::Str, false),
                Field::new("meta", FieldKind::Other, false),
            ],
        },
        ToolSpec {
            name: "look",
            class: ToolClass::Contained,
            args: &[Field::new("to", FieldKind::Str, false)],
        },
    ],
    open: &[],
};

#[test]
fn without_where_tool_an_argument_every_tool_takes_loads() {
    let layout = Layout::new().tools(&CLOSED);
    let text = hook("where.options.to = \"/etc\"");
    let specs = TomlFile::new("agent.toml", &text)
        .layout(&layout)
        .hooks::<Ev2>(Path::new("/p"))
        .expect("every tool takes `to`");
    assert!(specs[0].r#where.passes(&line("look", r#"{"to":"/etc"}"#)));
    let text = hook("where.options.meta = \"x\"");
    let e = TomlFile::new("agent.toml", &text)
        .layout(&layout)
        .hooks::<Ev2>(Path::new("/p"))
        .map(|_| ())
        .expect_err("`meta` is free-form")
        .to_string();
    assert!(e.contains("argument `meta` of `copy` is free-form"), "{e}");
}

/// The rule of `allOf` whose `if` is on event `tag`.
fn event_rule<'s>(table: &'s serde_json::Value, tag: &str) -> &'s serde_json::Value {
    table["allOf"]
        .as_array()
        .and_then(|rules| {
            rules
                .iter()
                .find(|r| r.pointer("/if/properties/on/contains/const") == Some(&tag.into()))
        })
        .unwrap_or_else(|| panic!("a rule for {tag}"))
}

/// The `not` rules on `where`: each `where` schema they refuse.
fn refusals(table: &serde_json::Value) -> Vec<&serde_json::Value> {
    table["allOf"]
        .as_array()
        .map(|rules| {
            rules
                .iter()
                .filter_map(|r| r.pointer("/not/properties/where"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_file_schema_takes_the_arguments_where_json_schema_can_say_them() {
    use serde_json::json;
    let schema = |tools: &'static ToolTable| {
        let layout = Layout::new().tools(tools);
        io_hooks::hook_file_schema::<Ev2>(|_| String::new(), "hooks", &layout)
    };
    let file = schema(&COMMANDS);
    let table = &file["$defs"]["hook"];
    let args = &table["properties"]["where"]["properties"]["options"];
    let names: Vec<&String> = args["properties"]
        .as_object()
        .expect("args")
        .keys()
        .collect();
    assert_eq!(names.len(), 5, "{names:?}: `meta` is free-form");
    assert_eq!(
        args["properties"]["force"]["oneOf"][0],
        json!({ "type": "boolean" })
    );
    assert_eq!(
        args["properties"]["retries"]["oneOf"][0],
        json!({ "type": "integer" })
    );
    assert_eq!(
        args["properties"]["argv"]["oneOf"][0],
        json!({ "type": "string" })
    );
    // On `invoke` and `queued`, which carry the arguments; not on `done`.
    for (tag, carries) in [("invoke", true), ("queued", true), ("done", false)] {
        let rule = &event_rule(table, tag)["then"]["properties"]["where"];
        let named = rule["propertyNames"]["enum"]
            .as_array()
            .is_some_and(|names| names.contains(&json!("options")));
        assert_eq!(named, carries, "{tag}: {rule}");
        assert_eq!(
            rule["properties"].get("options").is_some(),
            carries,
            "{tag}"
        );
    }
    let refused = refusals(table);
    let narrowed = |tool: &str| {
        refused
            .iter()
            .find(|r| r.pointer("/properties/command/const") == Some(&json!(tool)))
            .and_then(|r| r.pointer("/properties/options/not/propertyNames/enum"))
            .cloned()
    };
    assert_eq!(narrowed("copy"), Some(json!(["from", "to", "force"])));
    assert_eq!(narrowed("look"), Some(json!(["to"])));
    assert_eq!(narrowed("shell"), Some(json!(["argv", "retries"])));
    let prefixed = refused
        .iter()
        .filter_map(|r| r.pointer("/properties/command/pattern"))
        .collect::<Vec<_>>();
    assert_eq!(prefixed, [&json!("^plugin:")]);
    let without = |file: &serde_json::Value| {
        refusals(&file["$defs"]["hook"])
            .into_iter()
            .find(|r| r.pointer("/not/required/0") == Some(&json!("command")))
            .and_then(|r| r.pointer("/properties/options/not/propertyNames/enum"))
            .cloned()
    };
    // Without `where.command`: none here, `to` where every tool takes it.
    assert_eq!(without(&file), Some(json!([])));
    assert_eq!(without(&schema(&CLOSED)), Some(json!(["to"])));
    // Without tools, `where` is as it was.
    let plain = io_hooks::hook_file_schema::<Ev2>(|_| String::new(), "hooks", &Layout::new());
    assert!(
        plain["$defs"]["hook"]["properties"]["where"]
            .get("properties")
            .is_none()
    );
    assert!(refusals(&plain["$defs"]["hook"]).is_empty());
}

#[test]
fn a_table_finds_its_tools_and_says_its_classes_and_kinds_in_words() {
    assert_eq!(COMMANDS.tool("shell").map(|t| t.name), Some("shell"));
    assert_eq!(COMMANDS.tool("plugin:zip"), None);
    assert_eq!(
        COMMANDS.open_tool("plugin:zip").map(|(prefix, ..)| *prefix),
        Some("plugin:")
    );
    assert_eq!(COMMANDS.open_tool("copy"), None);
    let words: Vec<String> = [
        ToolClass::Contained,
        ToolClass::WritesFiles,
        ToolClass::RunsCommands,
        ToolClass::StartsRuns,
        ToolClass::Opaque,
    ]
    .iter()
    .map(|c| format!("{c}: {}", c.reaches()))
    .collect();
    assert_eq!(
        words,
        [
            "stays within the run: false",
            "writes files: true",
            "runs commands: true",
            "starts runs with tools of their own: true",
            "does what another program decides: true"
        ]
    );
    assert_eq!(FieldKind::Str.as_str(), "a string");
    assert_eq!(
        FieldKind::Strings.as_str(),
        "a list of strings (matched as one command line)"
    );
    assert_eq!(FieldKind::Other.as_str(), "free-form or nested");
}

/// A tool's argument is a `Field`, as an event's is: an integer one's
/// bounds are checked at load, and a `Float` one is matched as a number.
#[test]
fn an_argument_is_a_field_bounds_and_numbers_included() {
    static TUNED: ToolTable = ToolTable {
        tool_field: "command",
        args_field: "options",
        tools: &[ToolSpec {
            name: "tune",
            class: ToolClass::Contained,
            args: &[
                Field::new("level", FieldKind::Integer, false).bounded(0, 9),
                Field::new("ratio", FieldKind::Float, false),
            ],
        }],
        open: &[],
    };
    let layout = Layout::new().tools(&TUNED);
    let read = |filter: &str| {
        TomlFile::new("agent.toml", &hook(filter))
            .layout(&layout)
            .hooks::<Ev2>(Path::new("/p"))
    };
    let err = read("where.command = \"tune\"\nwhere.options.level = 12").unwrap_err();
    assert!(
        matches!(
            err.kind(),
            TableErrorKind::OutOfBounds {
                field: "level",
                min: 0,
                max: 9,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "agent.toml: key `hook[1].where.options.level`: field `level` of `tune` holds an \
         integer from 0 to 9, and `12` is outside that range, so the hook could never fire \
         (line 4, column 23)"
    );
    let specs =
        read("where.command = \"tune\"\nwhere.options.ratio = { min = 0.5 }").expect("loads");
    let filter = &specs[0].r#where;
    assert!(filter.passes(&line("tune", r#"{"ratio":0.75}"#)));
    assert!(!filter.passes(&line("tune", r#"{"ratio":0.25}"#)));
    let err = read("where.command = \"tune\"\nwhere.options.ratio = \"x\"").unwrap_err();
    assert!(
        matches!(
            err.kind(),
            TableErrorKind::WrongType {
                kind: FieldKind::Float,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_filter_on_the_arguments_that_names_none_is_refused() {
    let err = load(&hook("where.command = \"copy\"\nwhere.options = {}")).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            TableErrorKind::NoArg {
                args_field: "options"
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "agent.toml: key `hook[1].where.options`: `{}` names no argument; name one or more, \
         as in `where.options.<name> = \"…\"`, or leave it out (line 4, column 17)"
    );
}
