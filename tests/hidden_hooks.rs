//! No table of hooks hides: a `hook` anywhere but the top level and a
//! `[profile.<name>]` body, or a near miss of it, is an error; and the
//! schema `io schema` prints gives the same verdict as `io check` on every
//! file here.

mod common;

use std::process::Output;

use common::io_env::{IoEnv, stderr};

/// `io ARGS` in a fresh root holding `local` as `io.local.toml`, with an
/// empty user scope.
fn io(args: &[&str], local: Option<&str>) -> Output {
    let env = IoEnv::new();
    if let Some(text) = local {
        env.file("io.local.toml", text.as_bytes(), 0o644);
    }
    env.io(args)
}

const APPEND: &str = "append = \"audit.jsonl\"\n";

#[test]
fn a_hook_table_outside_the_top_level_and_profiles_is_an_error_naming_where_hooks_go() {
    for (text, key, at) in [
        (
            format!("[[profiles.ci.hook]]\n{APPEND}"),
            "profiles.ci.hook",
            "(line 1, column 15)",
        ),
        (
            format!("[[ci.hook]]\n{APPEND}"),
            "ci.hook",
            "(line 1, column 6)",
        ),
        (
            format!("[agent]\nname = \"a\"\n\n[[agent.hook]]\n{APPEND}"),
            "agent.hook",
            "(line 4, column 9)",
        ),
    ] {
        let out = io(&["check"], Some(&text));
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{text}\n{message}");
        assert!(
            message.contains(&format!(
                "/io.local.toml: key `{key}`: hooks are declared only at the top level \
                 (`[[hook]]`) or in a profile (`[[profile.<name>.hook]]`), so `hook` here would \
                 load as no hooks at all {at}"
            )),
            "{text}\n{message}"
        );
        assert!(out.stdout.is_empty(), "nothing said to be ok");
    }
    let out = io(&["check"], Some(&format!("[[ci.Hooks]]\n{APPEND}")));
    assert!(
        stderr(&out).contains(
            "key `ci.Hooks`: did you mean `hook`? Hooks are declared only at the top level"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_repeated_event_in_on_is_an_error_naming_it() {
    let out = io(
        &["check"],
        Some(&format!(
            "[[hook]]\non = [\"step\", \"finished\", \"step\"]\n{APPEND}"
        )),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "/io.local.toml: key `hook[1].on`: `step` is named twice; name each event once \
             (line 2, column 27)"
        ),
        "{}",
        stderr(&out)
    );
}

/// Every file both judges: the near misses of `hook` at each place, `hook`
/// in places where none are read, other keys left to their owners,
/// repeats in `on`, and the fields a `where` names.
fn files() -> Vec<String> {
    let mut files = Vec::new();
    let names = [
        "hook",
        "hooks",
        "Hook",
        "HOOK",
        "hOoK",
        "hok",
        "hoo",
        "hoook",
        "hool",
        "hoko",
        "hookss",
        "hoooks",
        "h_ook",
        "hooksss",
        "book",
        "look",
        "Book",
        "ook",
        "ohok",
        "hooks_dir",
        "notebook",
        "h",
        "ho",
        "hk",
        "xhook",
        "mcp",
        "profiles",
    ];
    for name in names {
        let key = io_hooks::text::toml_key(name);
        files.push(format!("[[{key}]]\n{APPEND}"));
        files.push(format!("{key} = 1\n"));
        files.push(format!("[profile.ci]\n[[profile.ci.{key}]]\n{APPEND}"));
        files.push(format!("[[ci.{key}]]\n{APPEND}"));
        files.push(format!("[ci]\n{key} = \"a string is another part's\"\n"));
        files.push(format!("[ci.x]\n{key} = {{ on = [\"step\"] }}\n"));
        files.push(format!("[profile.{key}]\nmodel = \"m\"\n"));
    }
    for text in [
        "hook = []\n",
        "\"ho\\nk\" = []\n",
        "\"ho\\u0000k\" = 1\n",
        "\"hoo\\u00e9k\" = 1\n",
        "\"Ho\\u212Ak\" = 1\n",
        "[[agent]]\nname = \"a\"\n[[agent.hook]]\nappend = \"a\"\n",
        "x = [[{ hook = { append = \"a\" } }]]\n",
        "profile = { ci = 1 }\n",
        "profile = 1\n",
        "[mcp]\nservers = [\"hook\"]\n",
        "[[hook]]\non = [\"step\", \"step\"]\nappend = \"a\"\n",
        "[[hook]]\non = [\"step\", \"finished\"]\nappend = \"a\"\n",
        "[[hook]]\non = []\nappend = \"a\"\n",
        "[[hook]]\nappend = \"a\"\ntimout_ms = 1\n",
        "[profile.ci]\n[[profile.ci.hook]]\non = [\"token\", \"token\"]\nappend = \"a\"\n",
        // `where`: needs `on`, and names a field every event of `on` has.
        "[[hook]]\non = [\"tool_call\"]\nwhere.tool = \"exec\"\nappend = \"a\"\n",
        "[[hook]]\nwhere.tool = \"exec\"\nappend = \"a\"\n",
        "[[hook]]\non = [\"tool_call\"]\nwhere.toool = \"exec\"\nappend = \"a\"\n",
        "[[hook]]\non = [\"tool_call\", \"step\"]\nwhere.tool = \"exec\"\nappend = \"a\"\n",
        "[[hook]]\non = [\"tool_call\", \"refused\"]\nwhere.tool = \"exec\"\nappend = \"a\"\n",
        "[[hook]]\non = [\"finished\"]\nwhere.outcome = \"cancelled\"\nappend = \"a\"\n",
        "[[hook]]\non = [\"tool_call\"]\nwhere.args = \"x\"\nappend = \"a\"\n",
        "[[hook]]\non = [\"tool_call\"]\nwhere = {}\nappend = \"a\"\n",
    ] {
        files.push(text.to_owned());
    }
    files
}

#[test]
fn the_schema_and_io_check_give_the_same_verdict_on_every_file() {
    let out = io(&["schema"], None);
    assert_eq!(out.status.code(), Some(0));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let mut verdicts = (0, 0);
    for text in files() {
        let table: toml::Table = toml::from_str(&text).expect("the file is TOML");
        let json = serde_json::to_value(&table).expect("TOML as JSON");
        let schema_ok = validator.is_valid(&json);
        let out = io(&["check"], Some(&text));
        let check_ok = match out.status.code() {
            Some(0) => true,
            Some(1) => false,
            other => panic!("io check exited {other:?} on\n{text}\n{}", stderr(&out)),
        };
        assert_eq!(
            schema_ok,
            check_ok,
            "the schema says {}, io check says {} on\n{text}\nio check: {}\nschema: {:?}",
            if schema_ok { "valid" } else { "invalid" },
            if check_ok { "ok" } else { "error" },
            stderr(&out),
            validator
                .iter_errors(&json)
                .map(|e| e.to_string())
                .collect::<Vec<_>>(),
        );
        if check_ok {
            verdicts.0 += 1;
        } else {
            verdicts.1 += 1;
        }
    }
    // Both verdicts are exercised, many times each.
    assert!(verdicts.0 > 40 && verdicts.1 > 40, "{verdicts:?}");
}
