//! The project-scope refusal: a file that arrives with a `git clone` may not
//! declare `hook` in any form, and says so in the embedder's words (its
//! [`Layout`]), or in words that name no file.

use std::path::Path;

use io_hooks::{HookEvents, Layout, Scope, TableErrorKind, TomlFile};

#[derive(HookEvents)]
#[allow(dead_code)]
enum Ev {
    #[hook(tag = "job_started")]
    JobStarted,
}

const ROOT: &str = "/srv/ci";

/// A CI system's files: `[target.<name>]` bodies declare hooks too.
fn layout() -> Layout {
    Layout::new()
        .section("target", "a target")
        .project_file("ci.toml")
        .operator_files("`ci.local.toml` or `~/.ci.toml`")
}

/// The refusal, whole, in the layout's words.
fn refusal(file: &str, key: &str) -> String {
    format!(
        "{file}: key `{key}`: a project-scoped file may not declare hooks, because a hook runs \
         or writes on this machine and `ci.toml` arrives with a `git clone`. Write it in \
         `ci.local.toml` or `~/.ci.toml` instead."
    )
}

/// Every way of writing `hook` that TOML allows, with the key path the
/// refusal names.
const FORMS: &[(&str, &str, &str)] = &[
    (
        "array of tables",
        "[[hook]]\non = [\"job_started\"]\nappend = \"a.jsonl\"\n",
        "hook",
    ),
    (
        "inline array",
        "hook = [{ append = \"a.jsonl\" }]\n",
        "hook",
    ),
    ("empty array", "hook = []\n", "hook"),
    ("quoted key", "\"hook\" = []\n", "hook"),
    ("literal-quoted key", "'hook' = []\n", "hook"),
    ("escaped key", "\"\\u0068ook\" = []\n", "hook"),
    ("not even an array", "hook = 1\n", "hook"),
    (
        "in a target, array of tables",
        "[[target.ci.hook]]\nappend = \"a.jsonl\"\n",
        "target.ci.hook",
    ),
    (
        "in a target, inline",
        "[target.ci]\nmodel = \"m\"\nhook = []\n",
        "target.ci.hook",
    ),
    (
        "in a target, dotted",
        "target.ci.hook = [{ run = [\"x\"] }]\n",
        "target.ci.hook",
    ),
    (
        "in a quoted target, escaped key",
        "[target.\"my ci\"]\n\"\\u0068ook\" = []\n",
        "target.\"my ci\".hook",
    ),
    (
        "in a later target",
        "[target.a]\nmodel = \"m\"\n[target.b]\nhook = []\n",
        "target.b.hook",
    ),
];

#[test]
fn a_project_file_refuses_hook_in_every_form() {
    for (what, text, key) in FORMS {
        let layout = layout();
        let file = TomlFile::project("ci.toml", text).layout(&layout);
        assert_eq!(file.scope(), Scope::Project);
        let e = file.check_scope().unwrap_err();
        assert_eq!(e.to_string(), refusal("ci.toml", key), "{what}");
        assert!(
            matches!(e.kind(), TableErrorKind::ProjectHooks { project_file: Some(f), .. } if f == "ci.toml"),
            "{what}"
        );
        assert_eq!(e.key(), Some(*key), "{what}");
        // `hooks` refuses before it reads a table, so even a malformed
        // one (`hook = 1`) is refused rather than explained.
        let e = file.hooks::<Ev>(Path::new(ROOT)).unwrap_err();
        assert_eq!(e.to_string(), refusal("ci.toml", key), "{what}");
    }
}

#[test]
fn without_a_layout_the_refusal_names_no_file() {
    let e = TomlFile::project("app.toml", "hook = []\n")
        .check_scope()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "app.toml: key `hook`: a project-scoped file may not declare hooks, because a hook runs \
         or writes on this machine and this file arrives with a `git clone`. Write it in a file \
         of the operator's own instead."
    );
    // A body of a section the layout does not list is no place for hooks:
    // refused as hidden, before the scope is considered.
    let e = TomlFile::project("app.toml", "[[target.ci.hook]]\nappend = \"a\"\n")
        .hooks::<Ev>(Path::new(ROOT))
        .unwrap_err();
    assert!(
        matches!(e.kind(), TableErrorKind::HiddenHooks { placed: false, .. }),
        "{e}"
    );
}

#[test]
fn the_same_text_loads_from_an_operator_file() {
    let text = "[[hook]]\non = [\"job_started\"]\nappend = \"a.jsonl\"\n";
    let file = TomlFile::new("ci.local.toml", text);
    assert_eq!(file.scope(), Scope::Operator);
    assert!(file.check_scope().is_ok());
    let hooks = file.hooks::<Ev>(Path::new(ROOT)).unwrap();
    assert_eq!(hooks.map(|h| h.len()), Some(1));
}

#[test]
fn a_project_file_without_hook_passes() {
    let layout = layout();
    let text = "model = \"m\"\nhooks = 1\n[target.ci]\nmodel = \"n\"\n[tool.hook]\nx = 1\n";
    let file = TomlFile::project("ci.toml", text).layout(&layout);
    assert!(file.check_scope().is_ok());
    assert!(file.hook_keys().unwrap().is_empty());
    // Loading refuses what would hide hooks first, in any scope: the near
    // miss `hooks`, here before the `[tool.hook]` table.
    let err = file.hooks::<Ev>(Path::new(ROOT)).unwrap_err();
    assert!(
        matches!(err.kind(), TableErrorKind::HiddenHooks { written, placed: true, .. } if written == "hooks"),
        "{err}"
    );
    let text = "model = \"m\"\n[target.ci]\nmodel = \"n\"\n[tool]\nhook = 1\n";
    assert_eq!(
        TomlFile::project("ci.toml", text)
            .layout(&layout)
            .hooks::<Ev>(Path::new(ROOT))
            .unwrap()
            .map(|h| h.len()),
        None
    );
}

#[test]
fn hook_keys_lists_the_top_level_then_each_section_in_order_then_each_body_by_name() {
    let layout = Layout::new()
        .section("target", "a target")
        .section("stage", "a stage");
    let text = "[stage.a]\nhook = []\n[target.z]\nhook = []\n[target.\"my ci\"]\nhook.x = 1\n\
                [target.b]\nmodel = 1\n[other.c]\nhook = 1\n";
    let text = format!("\"\\u0068ook\" = []\n{text}");
    let file = TomlFile::new("f.toml", &text).layout(&layout);
    let keys = file.hook_keys().unwrap();
    assert_eq!(
        keys,
        [
            "hook",
            "target.\"my ci\".hook",
            "target.z.hook",
            "stage.a.hook"
        ]
    );
    // Without the layout, only the top level declares hooks.
    assert_eq!(
        TomlFile::new("f.toml", &text).hook_keys().unwrap(),
        ["hook"]
    );
}

#[test]
fn a_project_file_that_is_not_toml_gets_the_syntax_error() {
    let e = TomlFile::project("ci.toml", "hook = [")
        .check_scope()
        .unwrap_err();
    assert!(matches!(e.kind(), TableErrorKind::Syntax(_)), "{e}");
}
