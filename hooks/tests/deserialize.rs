//! [`TomlFile::deserialize`] on an embedder's own document: errors in its
//! own tables read in its own words, with the whole key path, as the hook
//! tables' errors do.

use std::collections::BTreeMap;

use io_hooks::{HookTables, TableErrorKind, TomlFile};
use serde::Deserialize;

/// A CI system's project file: pipelines of jobs, and hooks beside them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Doc {
    hook: Option<HookTables>,
    #[serde(default)]
    pipeline: BTreeMap<String, Pipeline>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Pipeline {
    job: Vec<Job>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Job {
    name: String,
    timeout_ms: Option<u64>,
}

#[test]
fn an_unknown_key_in_a_callers_array_of_tables_names_the_callers_keys() {
    let text = "[[pipeline.check.job]]\nname = \"t\"\nretries = 1\n";
    let e = TomlFile::new("ci.toml", text)
        .deserialize::<Doc>()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "ci.toml: key `pipeline.check.job[1].retries`: unknown field `retries`, expected \
         `name` or `timeout_ms` (line 3, column 1)"
    );
    assert!(matches!(e.kind(), TableErrorKind::Shape(_)), "{e:#?}");
}

#[test]
fn an_unknown_key_in_a_hook_table_beside_them_names_a_hook_tables_keys() {
    let text = "[[pipeline.check.job]]\nname = \"t\"\n[[hook]]\nappend = \"a\"\nretries = 1\n";
    let e = TomlFile::new("ci.toml", text)
        .deserialize::<Doc>()
        .unwrap_err();
    let message = e.to_string();
    assert!(
        message.starts_with(
            "ci.toml: key `hook[1].retries`: unknown key `retries`; a hook table takes `on`, "
        ) && message.ends_with(" (line 5, column 1)"),
        "{message}"
    );
    assert!(
        matches!(e.kind(), TableErrorKind::UnknownKey { key, .. } if key == "retries"),
        "{e:#?}"
    );
}
