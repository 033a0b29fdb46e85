//! An embedder's operators read its words only: every error loading hook
//! tables can give names the embedder's files, events and sections (from
//! its [`Layout`] and its event enum), or no file at all, and never a word
//! of the first program this engine was written for.

use std::collections::BTreeMap;
use std::mem::discriminant;
use std::path::Path;

use io_hooks::{HookEvents, HookTables, Layout, TableError, TomlFile};
use serde::Deserialize;

/// A CI system's events.
#[derive(HookEvents)]
#[allow(dead_code)]
enum Ci {
    #[hook(tag = "job_started")]
    JobStarted,
    #[hook(tag = "job_finished")]
    JobFinished,
}

const ROOT: &str = "/srv/ci";

/// Words of io-harness, the engine's first embedder, that no other
/// embedder's operator should meet.
const FOREIGN: &[&str] = &[
    "io.toml",
    "io.local.toml",
    "io check",
    "io-harness",
    "step",
    "tool_call",
    "profile",
    "user-scope",
];

/// Text that fails in each way an operator file can, one per kind.
const OPERATOR: &[&str] = &[
    "hook = [",
    "[[hook]]\nappend = 3\n",
    "hook = 1\n",
    "hook = [1]\n",
    "[[hook]]\non = \"job_started\"\nappend = \"a\"\n",
    "[[hook]]\non = { a = 1 }\nappend = \"a\"\n",
    "[[hook]]\non_failure = \"stop\"\nappend = \"a\"\n",
    "[[hook]]\nappend = \"a\"\ntimout_ms = 1\n",
    "[[hook]]\non = [\"job_startd\"]\nappend = \"a\"\n",
    "[[hook]]\non = []\nappend = \"a\"\n",
    "[[hook]]\non = [\"job_started\"]\n",
    "[[hook]]\nappend = \"a\"\nrun = [\"x\"]\n",
    "[[hook]]\nrun = []\n",
    "[[hook]]\nrun = [\"\"]\n",
    "[[hook]]\nrun = [\"x\", \"a\\u0000b\"]\n",
    "[[hook]]\nappend = \"\"\n",
    "[[hook]]\nappend = \"a\\u0000\"\n",
    "[[hook]]\nappend = \"a\"\ntimeout_ms = 5\n",
    "[[hook]]\nrun = [\"x\"]\ntimeout_ms = 0\n",
    "[[hook]]\non = [\"job_started\", \"job_started\"]\nappend = \"a\"\n",
    "[[hooks]]\nappend = \"a\"\n",
    "[pipeline.nightly]\nHook = []\n",
    "[[jobs.nightly.hook]]\nappend = \"a\"\n",
    "[[pipelines.nightly.hook]]\nappend = \"a\"\n",
    "[[pipeline.nightly.hook]]\nrun = []\n",
];

/// Text a project file is refused for.
const PROJECT: &[&str] = &[
    "[[hook]]\nappend = \"a\"\n",
    "[[pipeline.nightly.hook]]\nappend = \"a\"\n",
];

/// The CI system's file layout: `[pipeline.<name>]` bodies declare hooks.
fn layout() -> Layout {
    Layout::new()
        .section("pipeline", "a pipeline")
        .project_file("ci.toml")
        .operator_file("ci.local.toml")
        .operator_file("~/.config/ci/ci.toml")
}

/// Loads `file` as the CI system would: the top level, then each pipeline.
fn load(file: &TomlFile<'_>) -> Result<(), TableError> {
    #[derive(Deserialize)]
    struct Doc {
        pipeline: Option<BTreeMap<String, Body>>,
    }
    #[derive(Deserialize)]
    struct Body {
        hook: Option<HookTables>,
    }
    file.hooks::<Ci>(Path::new(ROOT))?;
    let doc: Doc = file.deserialize()?;
    for (name, body) in doc.pipeline.unwrap_or_default() {
        if let Some(tables) = body.hook {
            tables.into_specs::<Ci>(file, &format!("pipeline.{name}.hook"), Path::new(ROOT))?;
        }
    }
    Ok(())
}

#[test]
fn no_error_loading_hook_tables_names_another_programs_files_or_events() {
    let layout = layout();
    let default = Layout::new();
    let mut kinds = Vec::new();
    for layout in [&layout, &default] {
        let files = OPERATOR
            .iter()
            .map(|text| TomlFile::new("ci.local.toml", text))
            .chain(
                PROJECT
                    .iter()
                    .map(|text| TomlFile::project("ci.toml", text)),
            );
        for file in files {
            let file = file.layout(layout);
            let e = load(&file).expect_err(file.text());
            let message = e.to_string();
            assert!(
                message.starts_with(&format!("{}: ", file.name())),
                "{message}"
            );
            let lower = message.to_lowercase();
            for word in FOREIGN {
                assert!(!lower.contains(word), "`{word}` in: {message}");
            }
            if !kinds.contains(&discriminant(e.kind())) {
                kinds.push(discriminant(e.kind()));
            }
        }
    }
    // Every kind loading produces: an action's own refusals (`append`'s
    // empty path, `run`'s empty argv, NUL and bad `timeout_ms`) are one,
    // `Action`.
    assert_eq!(kinds.len(), 12);
}

#[test]
fn the_messages_use_the_layouts_words_and_the_enums_events() {
    let layout = layout();
    let err = |file: TomlFile<'_>| load(&file.layout(&layout)).unwrap_err().to_string();
    assert_eq!(
        err(TomlFile::project("ci.toml", PROJECT[1])),
        "ci.toml: key `pipeline.nightly.hook`: a project-scoped file may not declare hooks, \
         because a hook runs or writes on this machine and `ci.toml` arrives with a `git \
         clone`. Write it in `ci.local.toml` or `~/.config/ci/ci.toml` instead."
    );
    assert_eq!(
        err(TomlFile::new("ci.local.toml", OPERATOR[22])),
        "ci.local.toml: key `jobs.nightly.hook`: hooks are declared only at the top level \
         (`[[hook]]`) or in a pipeline (`[[pipeline.<name>.hook]]`), so `hook` here would load \
         as no hooks at all (line 1, column 16)"
    );
    assert_eq!(
        err(TomlFile::new("ci.local.toml", OPERATOR[4])),
        "ci.local.toml: key `hook[1].on`: invalid type: string \"job_started\", expected an \
         array of event names, as in `on = [\"job_started\"]` (line 2, column 6)"
    );
    // Two sections are listed as a sentence lists them.
    let two = Layout::new()
        .section("pipeline", "a pipeline")
        .section("stage", "a stage");
    let e = TomlFile::new("ci.local.toml", OPERATOR[22])
        .layout(&two)
        .check_placement()
        .unwrap_err();
    assert!(
        e.to_string().contains(
            "only at the top level (`[[hook]]`), in a pipeline (`[[pipeline.<name>.hook]]`) or \
             in a stage (`[[stage.<name>.hook]]`), so"
        ),
        "{e}"
    );
}
