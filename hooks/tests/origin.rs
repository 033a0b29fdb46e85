//! Every hook knows where it was written (issue 36): an embedder that reads
//! hooks from two files, and from a section's bodies beside the top level,
//! sees each one named by its file and its key path as written
//! (`deploy.local.toml: stage.apply.hook[1]`), never by its place in the
//! merged list (`hook[3]`): in its problems, in what `fire_with` reports,
//! in the engine's warn lines and in what a background hook reports. A
//! table error inside a section names the section's array as written.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use common::capture::capture;
use common::{Ev, step};
use io_hooks::{HookSpec, HookTables, Hooks, Layout, Origin, TableError, TomlFile};
use serde::Deserialize;

/// The embedder's words: hooks at the top level and in each stage.
fn layout() -> Layout {
    Layout::new().section("stage", "a stage")
}

/// The embedder's document: top-level hooks, and each stage's.
#[derive(Deserialize)]
struct Doc {
    hook: Option<HookTables>,
    stage: Option<BTreeMap<String, Stage>>,
}

#[derive(Deserialize)]
struct Stage {
    hook: Option<HookTables>,
}

/// Every hook of `file`, the top level first, then each stage's by name,
/// read as the embedder reads them.
fn read(file: &TomlFile<'_>, root: &Path) -> Result<Vec<HookSpec<Ev>>, TableError> {
    file.check_placement()?;
    let doc: Doc = file.deserialize()?;
    let mut specs = match doc.hook {
        Some(tables) => tables.into_specs(file, "hook", root)?,
        None => Vec::new(),
    };
    for (name, stage) in doc.stage.unwrap_or_default() {
        if let Some(tables) = stage.hook {
            let key = format!("stage.{}.hook", io_hooks::text::toml_key(&name));
            specs.extend(tables.into_specs(file, &key, root)?);
        }
    }
    Ok(specs)
}

const SHARED: &str = "[[hook]]\non = [\"step\"]\nappend = \"shared.jsonl\"\n";

/// One top-level hook, then a stage's hook whose program is missing (a
/// problem when the hooks are built, a failure each time it fires), then a
/// stage's background hook that fails.
const LOCAL: &str = "\
[[hook]]
on = [\"step\"]
append = \"local.jsonl\"

[[stage.apply.hook]]
on = [\"step\"]
run = [\"./no-such-deploy-step\"]

[[stage.notify.hook]]
on = [\"step\"]
run = [\"/bin/sh\", \"-c\", \"exit 4\"]
background = true
";

/// The merged hooks of both files, in the order the embedder merges them.
fn merged(root: &Path) -> Vec<HookSpec<Ev>> {
    let layout = layout();
    let mut specs = read(&TomlFile::new("deploy.toml", SHARED).layout(&layout), root)
        .expect("deploy.toml is valid");
    specs.extend(
        read(
            &TomlFile::new("deploy.local.toml", LOCAL).layout(&layout),
            root,
        )
        .expect("deploy.local.toml is valid"),
    );
    specs
}

#[test]
fn each_spec_read_from_a_file_knows_its_file_and_key_path() {
    let root = tempfile::tempdir().expect("a directory");
    let origins: Vec<Option<Origin>> = merged(root.path())
        .into_iter()
        .map(|spec| spec.origin)
        .collect();
    assert_eq!(
        origins,
        [
            Some(Origin::new(Some("deploy.toml"), "hook[1]")),
            Some(Origin::new(Some("deploy.local.toml"), "hook[1]")),
            Some(Origin::new(
                Some("deploy.local.toml"),
                "stage.apply.hook[1]"
            )),
            Some(Origin::new(
                Some("deploy.local.toml"),
                "stage.notify.hook[1]"
            )),
        ]
    );
    // `TomlFile::hooks` sets it too.
    let specs = TomlFile::new("deploy.toml", SHARED)
        .hooks::<Ev>(root.path())
        .expect("valid");
    assert_eq!(
        specs[0].origin.as_ref().map(ToString::to_string).as_deref(),
        Some("deploy.toml: hook[1]")
    );
}

#[test]
fn a_stage_hooks_problem_run_and_warn_lines_name_its_file_and_key_path() {
    let root = tempfile::tempdir().expect("a directory");
    let specs = merged(root.path());
    let apply = Origin::new(Some("deploy.local.toml"), "stage.apply.hook[1]");

    let (hooks, built) = capture(|| Hooks::new(specs.clone(), root.path()));
    let problems = hooks.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].origin, apply);
    assert_eq!(problems[0].index, 2);
    assert!(
        problems[0]
            .to_string()
            .starts_with("deploy.local.toml: stage.apply.hook[1]: `./no-such-deploy-step`: "),
        "{}",
        problems[0]
    );
    assert_eq!(Hooks::check(&specs, root.path()), problems);
    let warned: Vec<&str> = built.lines().collect();
    assert_eq!(warned.len(), 1, "{built}");
    assert!(
        warned[0].contains("WARN")
            && warned[0].contains(&format!("{}; it fails each time it fires", problems[0]))
            && warned[0].contains("hook=\"stage.apply.hook[1]\"")
            && warned[0].contains("file=\"deploy.local.toml\""),
        "{built}"
    );

    let (runs, fired) = capture(|| {
        let mut runs = Vec::new();
        let _ = hooks.fire_with(&step(1), &step(1), |run| {
            runs.push((run.index, run.origin.clone(), run.result.is_ok()));
        });
        hooks.wait_background();
        runs
    });
    let notify = Origin::new(Some("deploy.local.toml"), "stage.notify.hook[1]");
    assert_eq!(
        runs,
        [
            (0, Origin::new(Some("deploy.toml"), "hook[1]"), true),
            (1, Origin::new(Some("deploy.local.toml"), "hook[1]"), true),
            (2, apply.clone(), false),
            (3, notify, true),
        ]
    );
    let failed = fired
        .lines()
        .find(|l| l.contains("failed on `step`"))
        .unwrap_or_else(|| panic!("{fired}"));
    assert!(
        failed.contains("deploy.local.toml: stage.apply.hook[1] failed on `step`: could not spawn")
            && failed.contains("hook=\"stage.apply.hook[1]\"")
            && failed.contains("file=\"deploy.local.toml\""),
        "{failed}"
    );
    let background = fired
        .lines()
        .find(|l| l.contains("in the background"))
        .unwrap_or_else(|| panic!("{fired}"));
    assert!(
        background.contains(
            "deploy.local.toml: stage.notify.hook[1] failed in the background on `step` (its \
             event 1): exited with status 4"
        ) && background.contains("hook=\"stage.notify.hook[1]\"")
            && background.contains("file=\"deploy.local.toml\""),
        "{background}"
    );
    // No line names a hook by its place in the merged list.
    for merged_name in ["hook[3]", "hook[4]"] {
        assert!(
            !built.contains(merged_name) && !fired.contains(merged_name),
            "{built}{fired}"
        );
    }
}

#[test]
fn a_background_report_names_the_hook_by_its_file_and_key_path() {
    let root = tempfile::tempdir().expect("a directory");
    let told = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&told);
    let ((), _log) = capture(|| {
        let hooks = Hooks::new(merged(root.path()), root.path()).on_background(move |run| {
            let failed = run.result.is_err();
            seen.lock().unwrap_or_else(PoisonError::into_inner).push((
                run.index,
                run.origin.to_string(),
                failed,
            ));
        });
        let _ = hooks.fire_event(&step(1));
        hooks.wait_background();
    });
    assert_eq!(
        *told.lock().unwrap_or_else(PoisonError::into_inner),
        [(
            3,
            "deploy.local.toml: stage.notify.hook[1]".to_owned(),
            true
        )]
    );
}

#[test]
fn a_hook_built_in_code_is_named_by_its_place_with_no_file() {
    let root = tempfile::tempdir().expect("a directory");
    let specs = vec![
        common::append(&root.path().join("a.jsonl"), &[], io_hooks::Flow::Continue),
        common::run(&["./missing"], 5000, &[], io_hooks::Flow::Continue),
    ];
    let problems = Hooks::check(&specs, root.path());
    assert_eq!(problems[0].origin, Origin::new(None, "hook[2]"));
    assert!(
        problems[0].to_string().starts_with("hook[2]: "),
        "{}",
        problems[0]
    );
    // A spec given an origin in code is named by it.
    let named: Vec<_> = specs
        .into_iter()
        .map(|spec| spec.with_origin(Origin::new(Some("app.toml"), "jobs.build.hook[7]")))
        .collect();
    let problems = Hooks::check(&named, root.path());
    assert!(
        problems[0]
            .to_string()
            .starts_with("app.toml: jobs.build.hook[7]: "),
        "{}",
        problems[0]
    );
}

#[test]
fn a_table_error_in_a_section_names_the_sections_array_as_written() {
    let root = tempfile::tempdir().expect("a directory");
    let layout = layout();
    let both = "[[stage.apply.hook]]\nappend = \"a.jsonl\"\nrun = [\"deploy\"]\n";
    let err = read(
        &TomlFile::new("deploy.local.toml", both).layout(&layout),
        root.path(),
    )
    .expect_err("two actions");
    assert_eq!(err.key(), Some("stage.apply.hook[1]"));
    assert!(
        err.to_string()
            .contains("(write two `[[stage.apply.hook]]` tables for two actions)"),
        "{err}"
    );
    // At the top level, and in the kind's own words, it is `[[hook]]`.
    assert!(
        err.kind()
            .to_string()
            .contains("(write two `[[hook]]` tables for two actions)"),
        "{}",
        err.kind()
    );
    let top = "[[hook]]\nappend = \"a.jsonl\"\nrun = [\"deploy\"]\n";
    let err = read(
        &TomlFile::new("deploy.local.toml", top).layout(&layout),
        root.path(),
    )
    .expect_err("two actions");
    assert!(
        err.to_string()
            .contains("(write two `[[hook]]` tables for two actions)"),
        "{err}"
    );

    // A table where the section's array belongs is told how it is written.
    let table = "[stage.apply.hook]\nrun = [\"deploy\"]\n";
    let err = read(
        &TomlFile::new("deploy.local.toml", table).layout(&layout),
        root.path(),
    )
    .expect_err("a table, not an array");
    assert_eq!(err.key(), Some("stage.apply.hook"));
    assert!(
        err.to_string()
            .contains("an array of hook tables, written `[[stage.apply.hook]]`"),
        "{err}"
    );
    let err = read(
        &TomlFile::new("deploy.local.toml", "[hook]\nrun = [\"deploy\"]\n").layout(&layout),
        root.path(),
    )
    .expect_err("a table, not an array");
    assert!(
        err.to_string()
            .contains("an array of hook tables, written `[[hook]]`"),
        "{err}"
    );

    // A misspelt array in a section is told how that array is spelt.
    let misspelt = "[[stage.apply.hooks]]\nrun = [\"deploy\"]\n";
    let err = read(
        &TomlFile::new("deploy.local.toml", misspelt).layout(&layout),
        root.path(),
    )
    .expect_err("a near miss");
    assert_eq!(err.key(), Some("stage.apply.hooks"));
    assert!(
        err.to_string().contains(
            "did you mean `hook`? Hooks are declared only as `[[stage.apply.hook]]` tables, so \
             `hooks` would load as no hooks at all"
        ),
        "{err}"
    );
}
