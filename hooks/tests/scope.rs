//! The project-scope refusal: a file that arrives with a `git clone` may not
//! declare `hook` in any form, and says so in the spec's words.

use std::path::Path;

use io_hooks::{HookEvents, Scope, TableErrorKind, TomlFile};

#[derive(HookEvents)]
#[allow(dead_code)]
enum Ev {
    #[hook(tag = "step")]
    Step,
}

const ROOT: &str = "/work/project";

/// The spec's message, whole.
fn refusal(file: &str, key: &str) -> String {
    format!(
        "{file}: key `{key}`: a project-scoped file may not declare hooks, because a hook runs \
         or writes on this machine and `io.toml` arrives with a `git clone`. Write it in \
         `io.local.toml` or the user-scope file instead."
    )
}

/// Every way of writing `hook` that TOML allows, with the key path the
/// refusal names.
const FORMS: &[(&str, &str, &str)] = &[
    (
        "array of tables",
        "[[hook]]\non = [\"step\"]\nappend = \"a.jsonl\"\n",
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
        "in a profile, array of tables",
        "[[profile.ci.hook]]\nappend = \"a.jsonl\"\n",
        "profile.ci.hook",
    ),
    (
        "in a profile, inline",
        "[profile.ci]\nmodel = \"m\"\nhook = []\n",
        "profile.ci.hook",
    ),
    (
        "in a profile, dotted",
        "profile.ci.hook = [{ run = [\"x\"] }]\n",
        "profile.ci.hook",
    ),
    (
        "in a quoted profile, escaped key",
        "[profile.\"my ci\"]\n\"\\u0068ook\" = []\n",
        "profile.\"my ci\".hook",
    ),
    (
        "in a later profile",
        "[profile.a]\nmodel = \"m\"\n[profile.b]\nhook = []\n",
        "profile.b.hook",
    ),
];

#[test]
fn a_project_file_refuses_hook_in_every_form() {
    for (what, text, key) in FORMS {
        let file = TomlFile::project("io.toml", text);
        assert_eq!(file.scope(), Scope::Project);
        let e = file.check_scope().unwrap_err();
        assert_eq!(e.to_string(), refusal("io.toml", key), "{what}");
        assert_eq!(e.kind(), &TableErrorKind::ProjectHooks, "{what}");
        assert_eq!(e.key(), Some(*key), "{what}");
        // `hooks` refuses before it reads a table, so even a malformed
        // one (`hook = 1`) is refused rather than explained.
        let e = file.hooks::<Ev>(Path::new(ROOT)).unwrap_err();
        assert_eq!(e.to_string(), refusal("io.toml", key), "{what}");
    }
}

#[test]
fn the_same_text_loads_from_an_operator_file() {
    let text = "[[hook]]\non = [\"step\"]\nappend = \"a.jsonl\"\n";
    let file = TomlFile::new("io.local.toml", text);
    assert_eq!(file.scope(), Scope::Operator);
    assert!(file.check_scope().is_ok());
    let hooks = file.hooks::<Ev>(Path::new(ROOT)).unwrap();
    assert_eq!(hooks.map(|h| h.len()), Some(1));
}

#[test]
fn a_project_file_without_hook_passes() {
    let text = "model = \"m\"\nhooks = 1\n[profile.ci]\nmodel = \"n\"\n[tool.hook]\nx = 1\n";
    let file = TomlFile::project("io.toml", text);
    assert!(file.check_scope().is_ok());
    assert!(file.hook_keys().unwrap().is_empty());
    // Loading refuses what would hide hooks first, in any scope: the near
    // miss `hooks`, here before the `[tool.hook]` table.
    let err = file.hooks::<Ev>(Path::new(ROOT)).unwrap_err();
    assert!(
        matches!(err.kind(), TableErrorKind::HiddenHooks { written, placed: true } if written == "hooks"),
        "{err}"
    );
    let text = "model = \"m\"\n[profile.ci]\nmodel = \"n\"\n[tool]\nhook = 1\n";
    assert_eq!(
        TomlFile::project("io.toml", text)
            .hooks::<Ev>(Path::new(ROOT))
            .unwrap()
            .map(|h| h.len()),
        None
    );
}

#[test]
fn hook_keys_lists_the_top_level_then_each_profile_by_name() {
    let text = "[profile.z]\nhook = []\n[profile.\"my ci\"]\nhook.x = 1\n[profile.b]\nmodel = 1\n";
    let text = format!("\"\\u0068ook\" = []\n{text}");
    let keys = TomlFile::new("f.toml", &text).hook_keys().unwrap();
    assert_eq!(keys, ["hook", "profile.\"my ci\".hook", "profile.z.hook"]);
}

#[test]
fn a_project_file_that_is_not_toml_gets_the_syntax_error() {
    let e = TomlFile::project("io.toml", "hook = [")
        .check_scope()
        .unwrap_err();
    assert!(matches!(e.kind(), TableErrorKind::Syntax(_)), "{e}");
}
