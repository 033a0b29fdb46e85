//! No table of hooks hides: a `hook` anywhere but the top level and a
//! `[profile.<name>]` body, or a near miss of it, is an error; and the
//! schema `io schema` prints gives the same verdict as `io check` on every
//! file here.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

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
    files.extend(where_files());
    files.extend(outside_a_table_and_cancels());
    files.extend(envelope_files());
    files.extend(name_files());
    files.extend(args_files());
    files
}

/// `name` and `enabled` on a hook (issue 46, deliverable 4). A name
/// repeated in an array is refused by `io check` alone (a JSON Schema
/// cannot say "unique by this property"), as is an invisible character
/// (U+202E) in one: neither is here.
fn name_files() -> Vec<String> {
    let long = "x".repeat(64);
    let longer = "x".repeat(65);
    let mut files: Vec<String> = [
        "name = \"audit\"".to_owned(),
        "name = \"no rm: exec\"".to_owned(),
        "name = \"3rd\"".to_owned(),
        "name = \"é\"".to_owned(),
        format!("name = \"{long}\""),
        format!("name = \"{longer}\""),
        "name = \"\"".to_owned(),
        "name = \"12\"".to_owned(),
        "name = \"a\\\"b\"".to_owned(),
        "name = \"a\\\\b\"".to_owned(),
        "name = \"a\\u001bb\"".to_owned(),
        "name = \"a\\tb\"".to_owned(),
        "name = 3".to_owned(),
        "enabled = false".to_owned(),
        "enabled = true".to_owned(),
        "enabled = \"no\"".to_owned(),
        "enabled = 0".to_owned(),
    ]
    .iter()
    .map(|key| format!("[[hook]]\n{key}\nappend = \"a\"\n"))
    .collect();
    files.push(
        "[[hook]]\nname = \"a\"\nappend = \"a\"\n\n[[hook]]\nname = \"b\"\nenabled = false\nappend = \"b\"\n"
            .to_owned(),
    );
    // At the top level, `name` and `enabled` are the document's own words,
    // not a `[[hook]]` header left out.
    files.push("name = \"proj\"\nenabled = true\n\n[[hook]]\nappend = \"a\"\n".to_owned());
    files
}

/// `where.args.<name>` (issue 46): the arguments of the tool `where.tool`
/// names, of their types; none without `where.tool`, nor on an event
/// without arguments, nor on an MCP server's tools. A list or a glob in
/// `where.tool` is the loader's alone to check against the arguments, and
/// is not here.
fn args_files() -> Vec<String> {
    [
        "on = [\"tool_call\"]\nwhere.tool = \"write_file\"\nwhere.args.path = \"a\"",
        "on = [\"tool_call\"]\nwhere.tool = \"write_file\"\nwhere.args.path = { glob = \"*.env\" }",
        "on = [\"tool_call\"]\nwhere.tool = \"write_file\"\nwhere.args.path = [\"a\", { glob = \"b*\" }]",
        "on = [\"tool_call\"]\nwhere.tool = \"write_file\"\nwhere.args.pth = \"a\"",
        "on = [\"tool_call\"]\nwhere.tool = \"write_file\"\nwhere.args.path = 3",
        "on = [\"tool_call\"]\nwhere.tool = \"write_file\"\nwhere.args.path = { min = 1 }",
        "on = [\"tool_call\"]\nwhere.tool = \"exec\"\nwhere.args.argv = { glob = \"rm *\" }",
        "on = [\"tool_call\"]\nwhere.tool = \"exec\"\nwhere.args.path = \"a\"",
        "on = [\"tool_call\"]\nwhere.tool = \"exec\"\nwhere.args.argv = true",
        "on = [\"tool_call\"]\nwhere.tool = \"exec\"\nwhere.args = {}",
        "on = [\"tool_call\"]\nwhere.args.path = \"a\"",
        "on = [\"tool_call\"]\nwhere.args.argv = \"a\"",
        "on = [\"tool_call\", \"step\"]\nwhere.tool = \"exec\"\nwhere.args.argv = \"a\"",
        "on = [\"tool_call\", \"approval_requested\"]\nwhere.tool = \"exec\"\nwhere.args.argv = \"a\"",
        "on = [\"step\"]\nwhere.args.argv = \"a\"",
        "on = [\"tool_call\"]\nwhere.tool = \"mcp\"\nwhere.args.server = \"docs\"",
        "on = [\"tool_call\"]\nwhere.tool = \"mcp\"\nwhere.args.params = \"x\"",
        "on = [\"tool_call\"]\nwhere.tool = \"mcp__fs__write\"\nwhere.args.path = \"x\"",
        "where.args.path = \"a\"",
        "on = [\"tool_call\"]\nwhere.tool = \"spawn\"\nwhere.args.goal = { glob = \"*deploy*\" }",
        "on = [\"tool_call\"]\nwhere.tool = \"write_file\"\nwhere.args.path = \"a\"\nwhere.args.content = \"b\"",
    ]
    .iter()
    .map(|filter| format!("[[hook]]\n{filter}\nappend = \"a\"\n"))
    .collect()
}

/// Hook keys with no `[[hook]]` header, and a cancel that can never stop
/// anything (issue 45).
fn outside_a_table_and_cancels() -> Vec<String> {
    [
        // A hook table's keys with no `[[hook]]` header (issue 45).
        "on = [\"step\"]\nappend = \"a\"\n",
        "append = \"a\"\n[[hook]]\nappend = \"b\"\n",
        "timeout_ms = 5\n",
        "background = true\n",
        "where = 1\n",
        "on_failure = \"cancel\"\n",
        "[profile.ci]\nappend = \"a\"\n",
        "[profile.ci]\non = [\"step\"]\n[[profile.ci.hook]]\nappend = \"a\"\n",
        "[ci]\non = [\"step\"]\nappend = \"a\"\n",
        // A cancel that can never stop anything (issue 45).
        "[[hook]]\non = [\"finished\"]\nappend = \"a\"\non_failure = \"cancel\"\n",
        "[[hook]]\non = [\"handle_orphaned\", \"finished\"]\nappend = \"a\"\non_failure = \"cancel\"\n",
        "[[hook]]\non = [\"step\", \"finished\"]\nappend = \"a\"\non_failure = \"cancel\"\n",
        "[[hook]]\nappend = \"a\"\non_failure = \"cancel\"\n",
        "[[hook]]\non = [\"finished\"]\nappend = \"a\"\non_failure = \"continue\"\n",
        "[profile.ci]\n[[profile.ci.hook]]\non = [\"finished\"]\nappend = \"a\"\non_failure = \"cancel\"\n",
    ]
    .iter()
    .map(|text| (*text).to_owned())
    .collect()
}

/// `where`'s values: a type, an integer's bounds, a string field's declared
/// values and prefixes, a range, a list.
fn where_files() -> Vec<String> {
    let mut files: Vec<String> = [
        "on = [\"tool_call\"]\nwhere.tool = \"exce\"",
        "on = [\"tool_call\"]\nwhere.tool = \"Exec\"",
        "on = [\"tool_call\"]\nwhere.tool = \"mcp__github__create_issue\"",
        "on = [\"tool_call\"]\nwhere.tool = [\"exec\", \"write_file\"]",
        "on = [\"tool_call\"]\nwhere.tool = [\"exec\", \"exce\"]",
        "on = [\"tool_call\"]\nwhere.tool = { glob = \"write_*\" }",
        "on = [\"tool_call\"]\nwhere.tool = 3",
        "on = [\"tool_call\"]\nwhere.step = -1",
        "on = [\"tool_call\"]\nwhere.step = 4294967295",
        "on = [\"tool_call\"]\nwhere.step = 4294967296",
        "on = [\"tool_call\"]\nwhere.step = { max = -1 }",
        "on = [\"tool_call\"]\nwhere.step = { min = 4294967296 }",
        "on = [\"tool_call\"]\nwhere.step = { min = 2, max = 9 }",
        "on = [\"tool_call\"]\nwhere.step = [1, { min = 3 }]",
        "on = [\"tool_call\"]\nwhere.step = [1, -1]",
        "on = [\"tool_call\"]\nwhere.step = \"1\"",
        "on = [\"tool_call\"]\nwhere.step = []",
        "on = [\"finished\"]\nwhere.outcome = \"canceled\"",
        "on = [\"finished\"]\nwhere.outcome = [\"failed\", \"cancelled\"]",
        "on = [\"finished\"]\nwhere.resumed = true",
        "on = [\"finished\"]\nwhere.resumed = \"yes\"",
        "on = [\"spend_draw\"]\nwhere.tokens = { min = 1000 }",
        "on = [\"spend_draw\"]\nwhere.tokens = -5",
        "on = [\"tool_call\", \"refused\"]\nwhere.tool = \"exec\"\nwhere.step = 1",
        // Ranges (issue 45, deliverable 8): in order or not, integer bounds
        // on an integer field, and no other form.
        "on = [\"tool_call\"]\nwhere.step = { min = 10, max = 2 }",
        "on = [\"tool_call\"]\nwhere.step = { min = 3, max = 2 }",
        "on = [\"tool_call\"]\nwhere.step = { min = 2, max = 2 }",
        "on = [\"tool_call\"]\nwhere.step = { min = 128, max = -128 }",
        "on = [\"tool_call\"]\nwhere.step = [{ min = 5, max = 1 }]",
        "on = [\"tool_call\"]\nwhere.step = [1, { min = 9, max = 8 }]",
        "on = [\"spend_draw\"]\nwhere.tokens = { min = 5000, max = 1000 }",
        "on = [\"spend_draw\"]\nwhere.tokens = { min = 1000, max = 5000 }",
        "on = [\"spend_draw\"]\nwhere.tokens = { min = 9223372036854775807, max = 0 }",
        "on = [\"tool_call\"]\nwhere.step = { min = 1.5 }",
        "on = [\"tool_call\"]\nwhere.step = { min = 1, max = 9.5 }",
        "on = [\"tool_call\"]\nwhere.step = [{ max = 2.5 }]",
        "on = [\"tool_call\"]\nwhere.step = 1.5",
        "on = [\"tool_call\"]\nwhere.step = { min = \"3\" }",
        "on = [\"tool_call\"]\nwhere.step = { min = true }",
        "on = [\"tool_call\"]\nwhere.step = { mim = 3 }",
        "on = [\"tool_call\"]\nwhere.step = { min = 1, glob = \"1*\" }",
        "on = [\"tool_call\"]\nwhere.step = {}",
        "on = [\"tool_call\"]\nwhere.step = { glob = \"1*\" }",
        "on = [\"tool_call\"]\nwhere.step = true",
        "on = [\"tool_call\"]\nwhere.step = [[1]]",
        "on = [\"tool_call\"]\nwhere.tool = { min = 1 }",
        "on = [\"tool_call\"]\nwhere.tool = { glob = 3 }",
        "on = [\"finished\"]\nwhere.resumed = { min = 0 }",
        "on = [\"finished\"]\nwhere.resumed = [true, false]",
        "on = [\"handle_exited\"]\nwhere.code = { min = -1, max = 255 }",
        "on = [\"handle_exited\"]\nwhere.code = { min = 0, max = -1 }",
        "on = [\"handle_exited\"]\nwhere.code = -2147483649",
        "on = [\"retry\"]\nwhere.attempt = { max = 0 }",
    ]
    .iter()
    .map(|filter| format!("[[hook]]\n{filter}\nappend = \"a\"\n"))
    .collect();
    files.push(
        "[[profile.ci.hook]]\non = [\"tool_call\"]\nwhere.tool = \"exce\"\nappend = \"a\"\n"
            .to_owned(),
    );
    files
}

/// `where` on the envelope, on every event (issue 45, deliverable 6).
fn envelope_files() -> Vec<String> {
    [
        "where.depth = 0",
        "where.depth = \"0\"",
        "where.depth = -1",
        "where.depth = 4294967296",
        "where.depth = { min = 0, max = 1 }",
        "where.depth = { min = 1, max = 0 }",
        "where.depth = [0, 1]",
        "on = [\"finished\"]\nwhere.depth = 0",
        "on = [\"finished\"]\nwhere.depth = 0\nwhere.outcome = \"completed\"",
        "where.depth = 0\nwhere.outcome = \"completed\"",
        "where.run_id = { glob = \"r-*\" }",
        "where.run_id = 3",
        "on = [\"tool_call\"]\nwhere.run_id = \"r-1\"\nwhere.tool = \"exec\"",
        "where.seq = { min = 3 }",
        "where.seq = 1.5",
        "where.seq = -1",
        "where.at = \"x\"",
        "on = [\"step\"]\nwhere.dept = 0",
    ]
    .iter()
    .map(|filter| format!("[[hook]]\n{filter}\nappend = \"a\"\n"))
    .collect()
}

/// Whether `judge` (a schema validator) gives `io check`'s verdict on
/// every file here, each verdict being many times exercised; `judge` says
/// whether a file is valid, and why when it is not.
fn agrees_with_io_check(validator: &str, mut judge: impl FnMut(&str) -> (bool, String)) {
    let mut verdicts = (0, 0);
    for text in files() {
        let (valid, why) = judge(&text);
        let out = io(&["check"], Some(&text));
        let check_ok = match out.status.code() {
            Some(0) => true,
            Some(1) => false,
            other => panic!("io check exited {other:?} on\n{text}\n{}", stderr(&out)),
        };
        assert_eq!(
            valid,
            check_ok,
            "{validator} says {}, io check says {} on\n{text}\nio check: {}\n{validator}: {why}",
            if valid { "valid" } else { "invalid" },
            if check_ok { "ok" } else { "error" },
            stderr(&out),
        );
        if check_ok {
            verdicts.0 += 1;
        } else {
            verdicts.1 += 1;
        }
    }
    assert!(verdicts.0 > 40 && verdicts.1 > 40, "{verdicts:?}");
}

/// The editor the help names (`io schema --help`: taplo, the engine of
/// Even Better TOML) applies the schema as `io check` judges the file, on
/// every file here: so its rules are written in keywords taplo applies
/// (draft 7's `if`/`then`; it skips 2019-09's `dependentSchemas`, which
/// once let `where` without `on` and a field `on`'s events lack pass in the
/// editor). `.ci/run` installs taplo; elsewhere the test says it ran
/// nothing when taplo is not on `PATH`.
#[test]
fn taplo_gives_the_same_verdict_as_io_check_on_every_file() {
    let taplo = std::process::Command::new("taplo")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !common::prerequisite(
        "taplo (cargo install taplo-cli --version 0.10.0 --locked --no-default-features --features lint,rustls-tls)",
        taplo,
    ) {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let schema = dir.path().join("io-hooks.schema.json");
    std::fs::write(&schema, io(&["schema"], None).stdout).expect("schema");
    let schema = format!("file://{}", schema.display());
    let file = dir.path().join("io.local.toml");
    agrees_with_io_check("taplo", |text| {
        std::fs::write(&file, text).expect("file");
        let out = std::process::Command::new("taplo")
            .args(["check", "--no-auto-config", "--colors", "never", "--schema"])
            .arg(&schema)
            .arg(&file)
            .current_dir(dir.path())
            .output()
            .expect("taplo runs");
        match out.status.code() {
            Some(0) => (true, String::new()),
            Some(1) => (false, stderr(&out)),
            other => panic!("taplo exited {other:?}: {}", stderr(&out)),
        }
    });
}

#[test]
fn the_schema_and_io_check_give_the_same_verdict_on_every_file() {
    let out = io(&["schema"], None);
    assert_eq!(out.status.code(), Some(0));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    agrees_with_io_check("the schema", |text| {
        let table: toml::Table = toml::from_str(text).expect("the file is TOML");
        let json = serde_json::to_value(&table).expect("TOML as JSON");
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| e.to_string())
            .collect();
        (errors.is_empty(), format!("{errors:?}"))
    });
}
