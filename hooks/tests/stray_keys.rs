//! A hook table's keys written with no `[[hook]]` header above them (issue
//! 45): at the top level, or in a section's body, `on = [...]` and
//! `append = "..."` declare no hook, and the file loaded as "no hooks"; they
//! are refused, naming the key and the header to write, by the embedder's
//! reader (`TomlFile::hooks`, `check_placement`) and by the JSON Schema; a
//! project file is told where hooks go.

use std::path::Path;

use io_hooks::{HookEvents, Layout, TableErrorKind, TomlFile};

#[derive(HookEvents)]
#[allow(dead_code)] // only its tags are read
enum Ev {
    #[hook(tag = "done")]
    Done,
}

#[test]
fn hook_keys_at_the_top_level_are_a_header_left_out() {
    let text = "on = [\"done\"]\nappend = \"audit.jsonl\"\n";
    let err = TomlFile::new("app.toml", text)
        .hooks::<Ev>(Path::new("/p"))
        .unwrap_err();
    assert!(matches!(err.kind(), TableErrorKind::StrayHookKey { .. }));
    assert_eq!(
        err.to_string(),
        "app.toml: key `on`: `on` is a key of a hook table, and it is written outside any, so it \
         declares no hook and the file would load as no hooks at all; write `[[hook]]` on the \
         line above it (line 1, column 1)"
    );
    // Each of the table's keys, alone.
    for key in [
        "append = \"a\"",
        "run = [\"x\"]",
        "where.depth = 0",
        "on_failure = \"cancel\"",
        "timeout_ms = 5",
        "background = true",
    ] {
        let err = TomlFile::new("app.toml", key)
            .check_placement()
            .unwrap_err();
        assert!(
            matches!(err.kind(), TableErrorKind::StrayHookKey { .. }),
            "{key}: {err}"
        );
    }
    // Before a table that has its header.
    let text = "append = \"a\"\n[[hook]]\nrun = [\"x\"]\n";
    let err = TomlFile::new("app.toml", text)
        .check_placement()
        .unwrap_err();
    assert_eq!(err.key(), Some("append"));
    // Other keys are their owners'.
    for fine in [
        "name = \"nightly\"\n[[hook]]\nappend = \"a\"\n",
        "[tool]\non = 1\n",
    ] {
        assert!(
            TomlFile::new("app.toml", fine).check_placement().is_ok(),
            "{fine}"
        );
    }
}

#[test]
fn in_a_sections_body_the_header_named_is_the_sections() {
    let layout = Layout::new().section("target", "a target");
    let text = "[target.linux]\nappend = \"a\"\n";
    let err = TomlFile::new("app.toml", text)
        .layout(&layout)
        .check_placement()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "app.toml: key `target.linux.append`: `append` is a key of a hook table, and it is \
         written outside any, so it declares no hook and the file would load as no hooks at \
         all; write `[[target.linux.hook]]` on the line above it (line 2, column 1)"
    );
}

#[test]
fn a_project_file_is_told_where_hooks_go() {
    let err = TomlFile::project("app.toml", "on = [\"done\"]\nappend = \"a\"\n")
        .check_placement()
        .unwrap_err();
    assert!(
        matches!(err.kind(), TableErrorKind::ProjectHooks { .. }),
        "{err}"
    );
    assert_eq!(err.key(), Some("on"));
    let err = TomlFile::project("app.toml", "append = \"a\"\n")
        .check_scope()
        .unwrap_err();
    assert!(
        matches!(err.kind(), TableErrorKind::ProjectHooks { .. }),
        "{err}"
    );
}

#[test]
fn the_schema_refuses_a_hook_key_at_the_top_level_and_in_a_body() {
    let layout = Layout::new().section("target", "a target");
    let schema = io_hooks::hook_file_schema::<Ev>(|_| String::new(), "hooks", &layout);
    let refused = &schema["propertyNames"]["not"]["enum"];
    assert_eq!(
        refused,
        &schema["$defs"]["body"]["propertyNames"]["not"]["enum"]
    );
    let refused: Vec<&str> = refused
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    for key in [
        "on",
        "where",
        "append",
        "run",
        "on_failure",
        "timeout_ms",
        "background",
    ] {
        assert!(refused.contains(&key), "{key}: {refused:?}");
    }
}
