//! `name` and `enabled`, the engine's keys on any hook (issue 46,
//! deliverable 4): a name is checked, unique in its array (the error names
//! both tables), and shown beside the key path in every message the engine
//! makes (a problem, a warn line, what `fire_with` reports); a hook
//! switched off never fires, makes no file, reports no problem, and is
//! listed by `Hooks::off` for the host to say so.

mod common;

use common::capture::capture;
use common::{Ev, step};
use io_hooks::{HookSpec, Hooks, TableErrorKind, TomlFile};

fn hooks(text: &str, root: &std::path::Path) -> Result<Vec<HookSpec<Ev>>, io_hooks::TableError> {
    TomlFile::new("app.toml", text).hooks::<Ev>(root)
}

#[test]
fn a_name_repeated_in_the_array_is_refused_naming_both_tables() {
    let root = tempfile::tempdir().expect("a directory");
    let text = "[[hook]]\nname = \"audit\"\nappend = \"a\"\n\n[[hook]]\nappend = \"b\"\n\n\
                [[hook]]\nname = \"audit\"\nappend = \"c\"\n";
    let error = hooks(text, root.path()).expect_err("a repeated name");
    assert_eq!(error.key(), Some("hook[3].name"));
    assert!(
        matches!(error.kind(), TableErrorKind::RepeatedName { name, first, .. }
            if name == "audit" && first == "hook[1]"),
        "{error:?}"
    );
    assert!(
        error.to_string().starts_with(
            "app.toml: key `hook[3].name`: `name = \"audit\"` is already hook[1]'s name; give \
             each hook of the array a name of its own (line 9, column 8)"
        ),
        "{error}"
    );
    // Two names, each once: both read, each on its spec and its origin.
    let specs = hooks(&text.replacen("\"audit\"", "\"log\"", 1), root.path()).expect("valid");
    let names: Vec<_> = specs.iter().map(|s| s.name.as_deref()).collect();
    assert_eq!(names, [Some("log"), None, Some("audit")]);
    let labels: Vec<_> = specs
        .iter()
        .map(|s| s.origin.as_ref().map(ToString::to_string))
        .collect();
    assert_eq!(
        labels,
        [
            Some("app.toml: hook[1] \"log\"".to_owned()),
            Some("app.toml: hook[2]".to_owned()),
            Some("app.toml: hook[3] \"audit\"".to_owned()),
        ]
    );
}

#[test]
fn a_name_that_does_not_print_as_itself_or_reads_as_a_number_is_refused_unechoed() {
    let root = tempfile::tempdir().expect("a directory");
    for (name, says) in [
        ("\"\"", "an empty name"),
        ("\"42\"", "digits alone"),
        ("\"a\\u001b[2Jb\"", "U+001B"),
        ("\"a\\u202eb\"", "U+202E"),
        ("\"a\\\"b\"", "U+0022"),
    ] {
        let text = format!("[[hook]]\nname = {name}\nappend = \"a\"\n");
        let error = hooks(&text, root.path()).expect_err(name);
        assert_eq!(error.key(), Some("hook[1].name"), "{name}");
        assert!(
            matches!(error.kind(), TableErrorKind::BadName { reason, .. } if reason.contains(says)),
            "{name}: {error}"
        );
        assert!(!error.to_string().contains('\u{1b}'), "{error}");
    }
    let text = format!("[[hook]]\nname = \"{}\"\nappend = \"a\"\n", "n".repeat(65));
    let error = hooks(&text, root.path()).expect_err("too long");
    assert!(
        error
            .to_string()
            .contains("65 characters is longer than 64"),
        "{error}"
    );
}

#[test]
fn a_hook_switched_off_never_fires_makes_no_file_and_has_no_problem() {
    let root = tempfile::tempdir().expect("a directory");
    let text = "[[hook]]\nname = \"on\"\nappend = \"on.jsonl\"\n\n\
                [[hook]]\nname = \"off\"\nenabled = false\nappend = \"off.jsonl\"\n\n\
                [[hook]]\nenabled = false\nrun = [\"./no-such-program\"]\n";
    let specs = hooks(text, root.path()).expect("valid");
    assert_eq!(
        specs.iter().map(|s| s.enabled).collect::<Vec<_>>(),
        [true, false, false]
    );
    let hooks = Hooks::new(specs, root.path());
    assert!(hooks.problems().is_empty(), "{:?}", hooks.problems());
    let off: Vec<String> = hooks.off().map(ToString::to_string).collect();
    assert_eq!(off, ["app.toml: hook[2] \"off\"", "app.toml: hook[3]"]);
    let mut fired = Vec::new();
    let _ = hooks.fire_with(&step(1), &step(1), |run| fired.push(run.origin.label()));
    assert_eq!(fired, ["hook[1] \"on\""]);
    assert!(root.path().join("on.jsonl").exists());
    assert!(!root.path().join("off.jsonl").exists());
}

#[test]
fn a_problem_and_its_warn_line_give_the_name_beside_the_key_path() {
    let root = tempfile::tempdir().expect("a directory");
    let text = "[[hook]]\nname = \"deploy\"\nrun = [\"./no-such-deploy-step\"]\n";
    let specs = hooks(text, root.path()).expect("valid");
    let (hooks, logged) = capture(|| Hooks::new(specs, root.path()));
    let problem = &hooks.problems()[0];
    assert_eq!(problem.origin.name(), Some("deploy"));
    assert!(
        problem
            .to_string()
            .starts_with("app.toml: hook[1] \"deploy\": `./no-such-deploy-step`: "),
        "{problem}"
    );
    assert!(logged.contains("hook=\"hook[1]\""), "{logged}");
    assert!(logged.contains("name=\"deploy\""), "{logged}");
}

#[test]
fn a_spec_built_in_code_takes_a_name_and_a_switch() {
    let spec = HookSpec::<Ev>::new(
        io_hooks::HookFilter::ALL,
        io_hooks::Action::append("a.jsonl"),
    )
    .with_name("audit")
    .with_enabled(false);
    assert_eq!(spec.name.as_deref(), Some("audit"));
    assert!(!spec.enabled);
    let debug = format!("{spec:?}");
    assert!(
        debug.contains("name: \"audit\"") && debug.contains("enabled: false"),
        "{debug}"
    );
}
