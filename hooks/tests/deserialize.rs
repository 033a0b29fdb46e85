//! [`TomlFile::deserialize`] on an embedder's own document: errors in its
//! own tables read in its own words, with the whole key path, as the hook
//! tables' errors do.

use std::collections::BTreeMap;

use io_hooks::{HookTables, TableError, TableErrorKind, TomlFile};
use serde::Deserialize;
use toml::Spanned;

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

/// The same document with its pipelines' names kept with their spans.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct SpannedDoc {
    pipeline: BTreeMap<Spanned<String>, BTreeMap<Spanned<String>, Vec<Job>>>,
}

fn spanned_err(text: &str) -> TableError {
    TomlFile::new("ci.toml", text)
        .deserialize::<SpannedDoc>()
        .unwrap_err()
}

#[test]
fn a_spanned_map_key_is_named_in_the_key_path() {
    let text = "[[pipeline.build.job]]\nname = \"b\"\n\
                [[pipeline.check.job]]\nname = \"t\"\n[[pipeline.check.job]]\nname = \"u\"\nretries = 1\n";
    let e = spanned_err(text);
    assert_eq!(
        e.to_string(),
        "ci.toml: key `pipeline.check.job[2].retries`: unknown field `retries`, expected \
         `name` or `timeout_ms` (line 7, column 1)"
    );
    // A wrong value, in a table whose keys are all alike but for where.
    let text = "[[pipeline.a.job]]\nname = \"x\"\n[[pipeline.b.job]]\nname = 1\n";
    assert_eq!(spanned_err(text).key(), Some("pipeline.b.job[1].name"));
    // Inline tables, and a quoted key.
    let text = "pipeline = { a = { job = [] }, \"my ci\" = { job = [{ name = true }] } }\n";
    assert_eq!(
        spanned_err(text).key(),
        Some("pipeline.\"my ci\".job[1].name")
    );
    // A table missing a key: the error is at the table.
    let text = "[[pipeline.a.job]]\nname = \"x\"\n[[pipeline.b.job]]\ntimeout_ms = 1\n";
    let e = spanned_err(text);
    assert_eq!(e.key(), Some("pipeline.b.job[1]"), "{e}");
}

#[test]
fn an_embedders_own_check_makes_an_error_that_reads_like_the_engines() {
    let text = "[[pipeline.check.job]]\nname = \"\"\n";
    let file = TomlFile::new("ci.toml", text);
    let span = text.find("\"\"").map(|at| at..at + 2);
    let e = TableError::custom(
        &file,
        "pipeline.check.job[1].name",
        "a job's name is empty; write one, as in `name = \"test\"`",
        span,
    );
    assert_eq!(
        e.to_string(),
        "ci.toml: key `pipeline.check.job[1].name`: a job's name is empty; write one, as in \
         `name = \"test\"` (line 2, column 8)"
    );
    assert_eq!(
        (e.file(), e.key(), e.position()),
        ("ci.toml", Some("pipeline.check.job[1].name"), Some((2, 8)))
    );
    assert!(
        matches!(e.kind(), TableErrorKind::Custom(m) if m.starts_with("a job's name")),
        "{e:#?}"
    );
    let line = e.source_line().expect("a line");
    assert_eq!(
        (line.line, line.text.as_str(), line.caret),
        (2, "name = \"\"", 7)
    );
    // Without a span: no position, no line.
    let e = TableError::custom(&file, "pipeline", "no pipeline runs", None);
    assert_eq!(e.to_string(), "ci.toml: key `pipeline`: no pipeline runs");
    assert_eq!(e.source_line(), None);
}
