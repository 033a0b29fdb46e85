//! The project-scope refusal: a file that arrives with a `git clone` may not
//! declare `hook` in any form, and says so in the embedder's words (its
//! [`Layout`]), or in words that name no file.

use std::path::Path;

use io_hooks::{HookEvents, Layout, TableErrorKind, TomlFile};

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
        .operator_file("ci.local.toml")
        .operator_file("~/.ci.toml")
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
    // A body of a section the layout does not list is no place for hooks,
    // and a project file is no place for any: the scope is said first.
    let e = TomlFile::project("app.toml", "[[target.ci.hook]]\nappend = \"a\"\n")
        .hooks::<Ev>(Path::new(ROOT))
        .unwrap_err();
    assert!(
        matches!(e.kind(), TableErrorKind::ProjectHooks { .. }),
        "{e}"
    );
    assert_eq!(e.key(), Some("target.ci.hook"));
}

/// What an operator file is told is a misspelt or misplaced hook, with a
/// hint how to write it, and the key path.
const HIDDEN: &[(&str, &str)] = &[
    ("[[hooks]]\nappend = \"a.jsonl\"\n", "hooks"),
    ("Hook = []\n", "Hook"),
    ("hooks = 1\n", "hooks"),
    ("[target.ci]\nHook = []\n", "target.ci.Hook"),
    ("[[jobs.x.hook]]\nappend = \"a.jsonl\"\n", "jobs.x.hook"),
    (
        "[[targets.ci.hook]]\nappend = \"a.jsonl\"\n",
        "targets.ci.hook",
    ),
];

#[test]
fn a_project_file_is_told_it_may_not_declare_hooks_before_how_to_spell_one() {
    let layout = layout();
    for (text, key) in HIDDEN {
        let file = TomlFile::project("ci.toml", text).layout(&layout);
        for e in [
            file.check_scope().unwrap_err(),
            file.hooks::<Ev>(Path::new(ROOT)).unwrap_err(),
        ] {
            assert_eq!(e.to_string(), refusal("ci.toml", key), "{text}");
        }
        // An operator file gets the hint, which is right there.
        let file = TomlFile::new("ci.local.toml", text).layout(&layout);
        assert!(file.check_scope().is_ok(), "{text}");
        let e = file.hooks::<Ev>(Path::new(ROOT)).unwrap_err();
        assert!(
            matches!(e.kind(), TableErrorKind::HiddenHooks { .. }),
            "{text}: {e}"
        );
        assert_eq!(e.key(), Some(*key), "{text}");
    }
}

#[test]
fn the_same_text_loads_from_an_operator_file() {
    let text = "[[hook]]\non = [\"job_started\"]\nappend = \"a.jsonl\"\n";
    let file = TomlFile::new("ci.local.toml", text);
    assert!(file.check_scope().is_ok());
    let hooks = file.hooks::<Ev>(Path::new(ROOT)).unwrap();
    assert_eq!(hooks.len(), 1);
}

#[test]
fn a_project_file_without_hook_passes() {
    let layout = layout();
    let text = "model = \"m\"\n[target.ci]\nmodel = \"n\"\n[tool]\nhook = 1\n";
    assert_eq!(
        TomlFile::project("ci.toml", text)
            .layout(&layout)
            .hooks::<Ev>(Path::new(ROOT))
            .unwrap()
            .len(),
        0
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

#[test]
fn every_file_name_is_given_bare_and_quoted_by_the_engine() {
    let layout = Layout::new()
        .project_file("ci.toml")
        .operator_file("ci.local.toml")
        .operator_place("your user-wide file")
        .operator_file("~/.ci.toml");
    assert_eq!(layout.get_project_file(), Some("ci.toml"));
    assert_eq!(
        layout.get_operator_files().as_deref(),
        Some("`ci.local.toml`, your user-wide file or `~/.ci.toml`")
    );
    let e = TomlFile::project("ci.toml", "hook = []\n")
        .layout(&layout)
        .check_scope()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "ci.toml: key `hook`: a project-scoped file may not declare hooks, because a hook runs \
         or writes on this machine and `ci.toml` arrives with a `git clone`. Write it in \
         `ci.local.toml`, your user-wide file or `~/.ci.toml` instead."
    );
    assert!(
        matches!(e.kind(), TableErrorKind::ProjectHooks { operator_files: Some(w), .. }
            if *w == layout.get_operator_files().unwrap()),
        "{e:#?}"
    );
    assert_eq!(Layout::new().get_operator_files(), None);
}
