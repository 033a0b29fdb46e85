//! `Config`: scopes, discovery, profiles and the project-scope refusal.
//!
//! The user scope is always passed explicitly (`Config::discover_with`), so
//! no test here touches the process-wide environment; `config_env.rs` holds
//! the one test that does.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{git, prerequisite};
use io_harness::{Config, ConfigError, EventKind, HookEvents, Scope};
use io_hooks::{Action, AppendAction, Flow, HookSpec};
use proptest::prelude::*;
use tempfile::TempDir;

/// A discovery root (an empty git work tree: the operator's checkout, in
/// which `io.local.toml` is untracked) and a user-scope directory, both
/// empty to begin with.
struct Fixture {
    root: TempDir,
    home: TempDir,
}

impl Fixture {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        common::work_tree(root.path());
        Fixture {
            root,
            home: tempfile::tempdir().unwrap(),
        }
    }
    fn root(&self) -> &Path {
        self.root.path()
    }
    fn user(&self, text: &str) -> &Self {
        fs::write(self.home.path().join("io.toml"), text).unwrap();
        self
    }
    fn project(&self, text: &str) -> &Self {
        fs::write(self.root().join("io.toml"), text).unwrap();
        self
    }
    fn local(&self, text: &str) -> &Self {
        fs::write(self.root().join("io.local.toml"), text).unwrap();
        self
    }
    fn user_file(&self) -> PathBuf {
        self.home.path().join("io.toml")
    }
    fn project_file(&self) -> PathBuf {
        self.root().join("io.toml")
    }
    fn local_file(&self) -> PathBuf {
        self.root().join("io.local.toml")
    }
    fn discover(&self) -> Result<Config, ConfigError> {
        Config::discover_with(self.root(), Some(self.home.path()))
    }
    fn load(&self) -> Config {
        self.discover().unwrap_or_else(|e| panic!("{e}"))
    }
    fn error(&self) -> String {
        match self.discover() {
            Ok(c) => panic!("expected an error, loaded {:?}", c.hook_specs()),
            Err(e) => e.to_string(),
        }
    }
}

/// An action as these tests compare it: its key, its value as a built-in
/// action's type, and the engine's keys it carries.
fn seen(
    action: &Action,
) -> (
    &'static str,
    Option<AppendAction>,
    Option<io_hooks::RunAction>,
    Option<Duration>,
    bool,
) {
    (
        action.key(),
        action.get::<AppendAction>().cloned(),
        action.get::<io_hooks::RunAction>().cloned(),
        action.timeout(),
        action.background(),
    )
}

fn refusal(file: &str, key: &str) -> String {
    format!(
        "{file}: key `{key}`: a project-scoped file may not declare hooks, because a hook runs \
         or writes on this machine and `io.toml` arrives with a `git clone`. Write it in \
         `io.local.toml` or the user-scope file instead."
    )
}

fn tags(spec: &HookSpec<EventKind>) -> Vec<&'static str> {
    spec.on.tags().collect()
}

// ---- the spec's snippets ----

/// Each TOML snippet of `spec/hooks.md`, and a check of the hook it describes.
type Check = fn(&Path, &HookSpec<EventKind>);

fn snippets() -> Vec<(&'static str, &'static str, Check)> {
    vec![
        (
            "a complete hook",
            "# io.local.toml — gitignored, and yours. A project file may not declare a hook.\n\
             [[hook]]\n\
             append = \"audit.jsonl\"\n",
            a_complete_hook,
        ),
        (
            "an audit log",
            "[[hook]]\n\
             on = [\"refused\", \"approval_requested\", \"approval_decided\", \"spawned\"]\n\
             append = \"audit.jsonl\"\n",
            an_audit_log,
        ),
        (
            "a notification",
            "[[hook]]\n\
             on = [\"stalled\", \"finished\"]\n\
             run = [\"/usr/local/bin/notify\", \"--channel\", \"ops\"]\n\
             timeout_ms = 2000\n",
            a_notification,
        ),
        (
            "a formatter",
            "[[hook]]\non = [\"step\"]\nrun = [\"cargo\", \"fmt\"]\n",
            a_formatter,
        ),
        (
            "a local policy check that stops the run",
            "[[hook]]\n\
             on = [\"tool_call\"]\n\
             run = [\"./scripts/check-tool-call\"]\n\
             on_failure = \"cancel\"\n",
            a_policy_check,
        ),
    ]
}

fn a_complete_hook(root: &Path, h: &HookSpec<EventKind>) {
    assert!(h.on.is_all(), "no `on`, so every event");
    assert_eq!(h.on.len(), EventKind::TAGS.len());
    assert_eq!(
        seen(&h.action),
        seen(&Action::append(root.join("audit.jsonl")))
    );
    assert_eq!(h.on_failure, Flow::Continue);
}

fn an_audit_log(root: &Path, h: &HookSpec<EventKind>) {
    assert_eq!(
        tags(h),
        [
            "refused",
            "approval_requested",
            "approval_decided",
            "spawned"
        ]
    );
    assert_eq!(
        seen(&h.action),
        seen(&Action::append(root.join("audit.jsonl")))
    );
    assert_eq!(h.on_failure, Flow::Continue);
}

fn a_notification(_: &Path, h: &HookSpec<EventKind>) {
    assert_eq!(tags(h), ["stalled", "finished"]);
    assert_eq!(
        seen(&h.action),
        seen(&Action::run_with_timeout(
            vec!["/usr/local/bin/notify", "--channel", "ops"],
            Duration::from_millis(2000)
        ))
    );
    assert_eq!(h.on_failure, Flow::Continue);
}

fn a_formatter(_: &Path, h: &HookSpec<EventKind>) {
    assert_eq!(tags(h), ["step"]);
    assert_eq!(
        seen(&h.action),
        seen(&Action::run_with_timeout(
            vec!["cargo", "fmt"],
            Duration::from_millis(5000)
        ))
    );
    assert_eq!(h.on_failure, Flow::Continue);
}

fn a_policy_check(_: &Path, h: &HookSpec<EventKind>) {
    assert_eq!(tags(h), ["tool_call"]);
    assert_eq!(
        seen(&h.action),
        seen(&Action::run_with_timeout(
            vec!["./scripts/check-tool-call"],
            Duration::from_millis(5000)
        ))
    );
    assert_eq!(h.on_failure, Flow::Cancel);
}

#[test]
fn every_spec_snippet_loads_in_the_local_scope() {
    for (what, text, check) in snippets() {
        let f = Fixture::new();
        f.local(text);
        let config = f.load();
        assert_eq!(config.hook_specs().len(), 1, "{what}");
        check(f.root(), &config.hook_specs()[0]);
        let won = config.hooks_in_force().unwrap();
        assert_eq!(won.source.scope(), Scope::Local, "{what}");
        assert_eq!(won.source.path(), f.local_file());
        assert!(!config.hooks().is_empty(), "{what}");
    }
}

#[test]
fn every_spec_snippet_loads_in_the_user_scope_with_paths_in_the_project() {
    for (what, text, check) in snippets() {
        let f = Fixture::new();
        f.user(text);
        let config = f.load();
        assert_eq!(config.hook_specs().len(), 1, "{what}");
        // `append = "audit.jsonl"` in the user file means the project's
        // audit.jsonl, not one beside the user file.
        check(f.root(), &config.hook_specs()[0]);
        assert_eq!(config.hooks_in_force().unwrap().source.scope(), Scope::User);
    }
}

#[test]
fn every_spec_snippet_is_refused_in_io_toml() {
    for (what, text, _) in snippets() {
        let f = Fixture::new();
        f.project(text);
        assert_eq!(
            f.error(),
            refusal(&f.project_file().display().to_string(), "hook"),
            "{what}"
        );
    }
}

#[test]
fn every_spec_snippet_is_refused_by_from_toml() {
    for (what, text, _) in snippets() {
        let e = Config::from_toml(text).unwrap_err();
        assert!(matches!(e, ConfigError::ProjectHooks { .. }), "{what}");
        assert_eq!(e.to_string(), refusal("io.toml", "hook"), "{what}");
    }
}

// ---- the project-scope refusal, whole ----

#[test]
fn every_way_of_writing_hook_is_refused_in_the_project_scope() {
    let cases: &[(&str, &str)] = &[
        ("[[hook]]\nappend = \"a\"\n", "hook"),
        ("hook = []\n", "hook"),
        ("hook = [{ append = \"a\" }]\n", "hook"),
        ("hook = [{ run = [\"x\"] }, { append = \"a\" }]\n", "hook"),
        ("\"hook\" = []\n", "hook"),
        ("'hook' = []\n", "hook"),
        ("\"\\u0068ook\" = []\n", "hook"),
        ("\"\\U00000068ook\" = []\n", "hook"),
        ("hook.append = \"a\"\n", "hook"),
        ("[hook]\nappend = \"a\"\n", "hook"),
        ("[hook.x]\n", "hook"),
        ("hook = 5\n", "hook"),
        ("hook = \"anything\"\n", "hook"),
        ("[[hook]]\n", "hook"),
        ("[[hook]]\nnot_a_key = 1\n", "hook"),
        ("[profile.ci]\nhook = []\n", "profile.ci.hook"),
        (
            "[profile.ci]\nmodel = \"m\"\n[[profile.ci.hook]]\nrun = [\"x\"]\n",
            "profile.ci.hook",
        ),
        ("profile.ci.hook = []\n", "profile.ci.hook"),
        (
            "[profile]\nci.hook = [{ append = \"a\" }]\n",
            "profile.ci.hook",
        ),
        ("[profile.ci]\n\"\\u0068ook\" = []\n", "profile.ci.hook"),
        ("profile = { ci = { hook = [] } }\n", "profile.ci.hook"),
        ("[profile.\"my ci\"]\nhook = []\n", "profile.\"my ci\".hook"),
        // The top level is named first, whatever the order of writing.
        (
            "[profile.ci]\nhook = []\n[[hook]]\nappend = \"a\"\n",
            "hook",
        ),
    ];
    for (text, key) in cases {
        let e = Config::from_toml(text).unwrap_err();
        assert_eq!(e.to_string(), refusal("io.toml", key), "{text}");

        let f = Fixture::new();
        f.project(text);
        assert_eq!(
            f.error(),
            refusal(&f.project_file().display().to_string(), key),
            "{text}"
        );
    }
}

#[test]
fn the_refusal_comes_before_the_tables_are_checked() {
    // A broken table in a project file is refused for being there, not
    // diagnosed as if it could be fixed in place.
    let e = Config::from_toml("[[hook]]\ntimout_ms = 1\non = [\"nope\"]\n").unwrap_err();
    assert_eq!(e.to_string(), refusal("io.toml", "hook"));
}

#[test]
fn the_refusal_reads_the_document_not_the_text() {
    // Text that mentions `hook` but declares none is not refused.
    let text = "# [[hook]]\n# hook = []\nhooks_dir = 1\ndescription = \"[[hook]] hook = []\"\n\
                [notify]\nhook = \"a key of another table\"\n[[agent]]\nhook = 1\n";
    let config = Config::from_toml(text).unwrap();
    assert!(config.hooks().is_empty());
    assert!(config.sources()[0].document().contains_key("notify"));
}

#[test]
fn a_project_file_may_declare_profiles_without_hooks() {
    let f = Fixture::new();
    f.project("[profile.ci]\nmodel = \"small\"\n");
    let config = f.load().with_profile("ci").unwrap();
    assert!(config.hook_specs().is_empty());
    assert_eq!(config.profile(), Some("ci"));
}

#[test]
fn a_profile_body_must_be_a_table_so_it_cannot_smuggle_hooks_by_position() {
    let e = Config::from_toml("profile.ci = [[{ append = \"a\" }]]\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "io.toml: key `profile.ci`: invalid type: array, expected a profile body: a table, \
         as in `[profile.ci]` (line 1, column 14)"
    );
    let e = Config::from_toml("[[profile]]\nhook = []\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "io.toml: key `profile`: invalid type: array, expected a table of profiles, as in \
         `[profile.ci]` (line 1, column 1)"
    );
    let e = Config::from_toml("profile = 3\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "io.toml: key `profile`: invalid type: integer `3`, expected a table of profiles, as in \
         `[profile.ci]` (line 1, column 11)"
    );
}

// ---- scopes replace, never accumulate ----

const TWO_HOOKS: &str = "[[hook]]\nappend = \"user.jsonl\"\n[[hook]]\nrun = [\"notify\"]\n";

#[test]
fn the_last_scope_that_declares_hook_supplies_all_of_them() {
    let f = Fixture::new();
    f.user(TWO_HOOKS)
        .project("[mcp]\nserver = \"x\"\n")
        .local("[[hook]]\non = [\"finished\"]\nrun = [\"local\"]\n");
    let config = f.load();
    let specs = config.hook_specs();
    assert_eq!(
        specs.len(),
        1,
        "one hook in io.local.toml replaces both user hooks"
    );
    assert_eq!(tags(&specs[0]), ["finished"]);

    let scopes: Vec<_> = config
        .sources()
        .iter()
        .map(io_harness::Source::scope)
        .collect();
    assert_eq!(scopes, [Scope::User, Scope::Project, Scope::Local]);
    let paths: Vec<_> = config
        .sources()
        .iter()
        .map(|s| s.path().to_path_buf())
        .collect();
    assert_eq!(paths, [f.user_file(), f.project_file(), f.local_file()]);
    let declares: Vec<_> = config
        .sources()
        .iter()
        .map(io_harness::Source::declares_hooks)
        .collect();
    assert_eq!(declares, [true, false, true]);

    let in_force: Vec<_> = config
        .sources()
        .iter()
        .map(io_harness::Source::in_force)
        .collect();
    assert_eq!(in_force, [false, false, true]);

    let won = config.hooks_in_force().unwrap();
    assert_eq!(won.source.path(), f.local_file());
    assert_eq!(won.profile, None);
    assert_eq!(
        won.to_string(),
        format!("hooks from {} (local scope)", f.local_file().display())
    );
}

#[test]
fn an_empty_hook_array_replaces_too() {
    let f = Fixture::new();
    f.user(TWO_HOOKS).local("hook = []\n");
    let config = f.load();
    assert!(config.hook_specs().is_empty());
    assert!(config.hooks().is_empty());
    assert_eq!(
        config.hooks_in_force().unwrap().source.scope(),
        Scope::Local,
        "the local file's empty array is what is in force"
    );
}

#[test]
fn a_scope_without_hook_leaves_the_earlier_hooks_in_force() {
    let f = Fixture::new();
    f.user(TWO_HOOKS).local("[toolchain]\nbuild = [\"make\"]\n");
    let config = f.load();
    assert_eq!(config.hook_specs().len(), 2);
    assert_eq!(
        seen(&config.hook_specs()[0].action),
        seen(&Action::append(f.root().join("user.jsonl")))
    );
    assert_eq!(config.hooks_in_force().unwrap().source.scope(), Scope::User);
}

#[test]
fn nothing_declared_means_no_hooks_and_none_in_force() {
    let f = Fixture::new();
    let config = f.load();
    assert!(config.sources().is_empty(), "missing files are skipped");
    assert!(config.sources().iter().all(|s| !s.in_force()));
    assert!(config.hooks_in_force().is_none());
    assert!(config.hooks().is_empty());
    assert_eq!(config.root(), f.root());
    assert_eq!(config.hooks().root(), f.root());
}

#[test]
fn no_user_scope_at_all_is_allowed() {
    let f = Fixture::new();
    f.local(TWO_HOOKS);
    let config = Config::discover_with(f.root(), None).unwrap();
    assert_eq!(config.sources().len(), 1);
    assert_eq!(config.hook_specs().len(), 2);
}

#[test]
fn keys_this_crate_does_not_own_are_kept_in_every_scope() {
    let f = Fixture::new();
    f.user("[agent]\nname = \"me\"\n")
        .project(
            "[[mcp]]\ncommand = [\"srv\"]\n[toolchain]\ntest = [\"cargo\", \"test\"]\n\
             [[policy.layers]]\nallow = [\"exec\"]\n",
        )
        .local("[[hook]]\nappend = \"a\"\n[custom]\nx = 1\n");
    let config = f.load();
    let docs: Vec<_> = config
        .sources()
        .iter()
        .map(io_harness::Source::document)
        .collect();
    assert_eq!(docs[0]["agent"]["name"].as_str(), Some("me"));
    assert!(docs[1]["mcp"].is_array());
    assert!(docs[1]["toolchain"].is_table());
    assert!(docs[1]["policy"]["layers"].is_array());
    assert_eq!(docs[2]["custom"]["x"].as_integer(), Some(1));
}

// ---- profiles ----

#[test]
fn an_applied_profile_with_hooks_replaces_the_hooks_like_a_later_scope() {
    let f = Fixture::new();
    f.user("[profile.ci]\n[[profile.ci.hook]]\non = [\"finished\"]\nrun = [\"report\"]\n")
        .local(TWO_HOOKS);
    let base = f.load();
    assert_eq!(
        base.hook_specs().len(),
        2,
        "a profile does nothing until applied"
    );
    assert_eq!(base.profiles(), ["ci"]);

    let ci = base.with_profile("ci").unwrap();
    assert_eq!(ci.hook_specs().len(), 1);
    assert_eq!(tags(&ci.hook_specs()[0]), ["finished"]);
    let won = ci.hooks_in_force().unwrap();
    assert_eq!(won.source.path(), f.user_file());
    assert_eq!(won.profile, Some("ci"));
    assert_eq!(
        won.to_string(),
        format!(
            "hooks from {} (user scope), profile `ci`",
            f.user_file().display()
        )
    );
    let in_force: Vec<_> = ci
        .sources()
        .iter()
        .map(io_harness::Source::in_force)
        .collect();
    assert_eq!(
        in_force,
        [true, false],
        "the profile moved the hooks to the user file"
    );
}

#[test]
fn a_profile_without_hooks_leaves_the_file_hooks_in_force() {
    let f = Fixture::new();
    f.user("[profile.fast]\nmodel = \"small\"\n")
        .local(TWO_HOOKS);
    let config = f.load().with_profile("fast").unwrap();
    assert_eq!(config.hook_specs().len(), 2);
    let won = config.hooks_in_force().unwrap();
    assert_eq!(won.source.scope(), Scope::Local);
    assert_eq!(won.profile, None);
}

#[test]
fn the_last_file_whose_profile_declares_hook_wins() {
    let f = Fixture::new();
    f.user("[[profile.ci.hook]]\nappend = \"user-ci\"\n")
        .project("[profile.ci]\nmodel = \"m\"\n")
        .local("[[profile.ci.hook]]\nappend = \"local-ci\"\n[[profile.ci.hook]]\nrun = [\"x\"]\n");
    let config = f.load().with_profile("ci").unwrap();
    assert_eq!(config.hook_specs().len(), 2);
    assert_eq!(
        seen(&config.hook_specs()[0].action),
        seen(&Action::append(f.root().join("local-ci")))
    );
    assert_eq!(
        config.hooks_in_force().unwrap().source.scope(),
        Scope::Local
    );
}

#[test]
fn an_empty_profile_hook_array_clears_the_hooks() {
    let f = Fixture::new();
    f.user(TWO_HOOKS).local("[profile.quiet]\nhook = []\n");
    let config = f.load().with_profile("quiet").unwrap();
    assert!(config.hook_specs().is_empty());
    assert_eq!(config.hooks_in_force().unwrap().profile, Some("quiet"));
}

#[test]
fn applying_another_profile_replaces_the_first() {
    let f = Fixture::new();
    f.local("[[profile.a.hook]]\nappend = \"a\"\n[[profile.b.hook]]\nappend = \"b\"\n");
    let config = f
        .load()
        .with_profile("a")
        .unwrap()
        .with_profile("b")
        .unwrap();
    assert_eq!(config.profile(), Some("b"));
    assert_eq!(
        seen(&config.hook_specs()[0].action),
        seen(&Action::append(f.root().join("b")))
    );
}

#[test]
fn an_unknown_profile_lists_the_profiles_that_exist() {
    let f = Fixture::new();
    f.user("[profile.release]\n")
        .project("[profile.ci]\n[profile.nightly]\n");
    let e = f.load().with_profile("cii").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown profile `cii` (did you mean `ci`?); the profiles declared are `ci`, \
         `nightly`, `release`"
    );
    let e = f.load().with_profile("weekend").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown profile `weekend`; the profiles declared are `ci`, `nightly`, `release`"
    );
    let e = Config::from_toml("")
        .unwrap()
        .with_profile("ci")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown profile `ci`; no file read declares a `[profile.<name>]` table"
    );
}

#[test]
fn a_profile_hook_error_names_the_profile_path() {
    let f = Fixture::new();
    f.local("[profile.ci]\n[[profile.ci.hook]]\non = [\"stepp\"]\nappend = \"a\"\n");
    let e = f.error();
    let expected = format!(
        "{}: key `profile.ci.hook[1].on`: unknown event `stepp` (did you mean `step`?); \
         expected one of {} (line 3, column 7)",
        f.local_file().display(),
        EventKind::TAGS
            .iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_eq!(e, expected);
}

// ---- errors name the file ----

#[test]
fn a_hook_error_in_any_scope_names_that_file_even_when_shadowed() {
    let f = Fixture::new();
    f.user("[[hook]]\nrun = [\"x\"]\ntimout_ms = 10\n")
        .local(TWO_HOOKS);
    assert_eq!(
        f.error(),
        format!(
            "{}: key `hook[1].timout_ms`: unknown key `timout_ms` (did you mean `timeout_ms`?); \
             a hook table takes `on`, `where`, `append`, `run`, `on_failure`, `timeout_ms`, `background`, `name`, `enabled` (line 3, column 1)",
            f.user_file().display()
        )
    );
}

#[test]
fn the_spec_error_situations_each_read_file_key_reason() {
    let cases: &[(&str, &str)] = &[
        (
            "[[hook]]\nappend = \"a\"\n[[hook]]\non = [\"step\"]\n",
            "key `hook[2]`: the table has neither `append` nor `run`; a hook needs exactly one \
             of them (line 3, column 1)",
        ),
        (
            "[[hook]]\nappend = \"a\"\nrun = [\"x\"]\n",
            "key `hook[1]`: the table has both `append` and `run`; a hook needs exactly one of \
             them (write two `[[hook]]` tables for two actions) (line 1, column 1)",
        ),
        (
            "[[hook]]\nrun = []\n",
            "key `hook[1].run`: `run = []` names no program; write the program first, then its \
             arguments, as in `run = [\"tee\", \"-a\", \"events.jsonl\"]` (line 2, column 7)",
        ),
        (
            "[[hook]]\nrun = [\"\"]\n",
            "key `hook[1].run`: `run` names no program: its first element is empty; write the \
             program first, then its arguments, as in `run = [\"tee\", \"-a\", \"events.jsonl\"]` (line 2, column 8)",
        ),
        (
            "[[hook]]\nrun = [\"x\"]\ntimout_ms = 1\n",
            "key `hook[1].timout_ms`: unknown key `timout_ms` (did you mean `timeout_ms`?); a \
             hook table takes `on`, `where`, `append`, `run`, `on_failure`, `timeout_ms`, `background`, `name`, `enabled` (line 3, column 1)",
        ),
        (
            "[[hook]]\non = []\nrun = [\"x\"]\n",
            "key `hook[1].on`: `on = []` names no event, so the hook could never fire; leave \
             `on` out for every event, or name one or more of `started`, `step`,",
        ),
        (
            "[[hook]]\non = [\"finish\"]\nrun = [\"x\"]\n",
            "key `hook[1].on`: unknown event `finish` (did you mean `finished`?); expected one \
             of `started`, `step`, `tool_call`,",
        ),
        (
            "[[hook]]\nrun = [\"x\"]\ntimeout_ms = 0\n",
            "key `hook[1].timeout_ms`: `timeout_ms = 0` is not a timeout; write a whole number \
             of milliseconds, at least 1 (line 3, column 14)",
        ),
        (
            "[[hook]]\nappend = \"a\"\ntimeout_ms = 10\n",
            "key `hook[1].timeout_ms`: `timeout_ms` applies only to a `run` hook, and this hook \
             appends; remove it (line 3, column 14)",
        ),
        (
            "[[hook]]\nrun = [\"x\"]\non_failure = \"stop\"\n",
            "key `hook[1].on_failure`: invalid value: string \"stop\", expected `\"continue\"` or \
             `\"cancel\"` (line 3, column 14)",
        ),
        (
            "[[hook]]\nrun = \"notify --channel ops\"\n",
            "key `hook[1].run`: invalid type: string \"notify --channel ops\", expected an argv \
             array, program first, as in `run = [\"tee\", \"-a\", \"events.jsonl\"]` (there is no shell) \
             (line 2, column 7)",
        ),
    ];
    for (text, rest) in cases {
        let f = Fixture::new();
        f.local(text);
        let e = f.error();
        let head = format!("{}: {rest}", f.local_file().display());
        assert!(e.starts_with(&head), "\n got: {e}\nwant: {head}");
    }
}

#[test]
fn a_syntax_error_names_the_file_and_position() {
    let f = Fixture::new();
    f.local("[[hook]]\nappend = \"a\n");
    assert_eq!(
        f.error(),
        format!(
            "{}: not valid TOML: invalid basic string, expected `\"` (line 2, column 12)",
            f.local_file().display()
        )
    );
}

#[test]
fn a_file_that_is_not_utf8_is_an_error_naming_it() {
    let f = Fixture::new();
    fs::write(f.local_file(), b"[[hook]]\nappend = \"a\xff\"\n").unwrap();
    assert_eq!(
        f.error(),
        format!(
            "{}: not UTF-8 text, which a TOML file must be (line 2, column 12); none of it is \
             shown",
            f.local_file().display()
        )
    );
}

#[test]
fn an_unreadable_file_is_an_error_naming_it() {
    let f = Fixture::new();
    fs::create_dir(f.local_file()).unwrap();
    let e = f.discover().unwrap_err();
    assert!(matches!(e, ConfigError::Read { .. }), "{e}");
    assert!(
        e.to_string()
            .starts_with(&format!("{}: cannot be read: ", f.local_file().display())),
        "{e}"
    );
}

#[test]
fn a_dangling_symlink_is_an_error_not_a_missing_file() {
    let f = Fixture::new();
    std::os::unix::fs::symlink(f.root().join("nowhere.toml"), f.local_file()).unwrap();
    assert_eq!(
        f.error(),
        format!(
            "{}: cannot be read: a symbolic link to a file that does not exist",
            f.local_file().display()
        )
    );
}

/// A symbolic link that loops (a repository can commit one) cannot be
/// opened: the error names the loop, not a link to nothing, nor a file that
/// is simply absent.
#[test]
fn a_symlink_loop_is_an_error_naming_the_loop() {
    let f = Fixture::new();
    std::os::unix::fs::symlink(f.local_file(), f.local_file()).unwrap();
    let cause = std::io::Error::from_raw_os_error(libc::ELOOP);
    assert_eq!(
        f.error(),
        format!(
            "{}: cannot be read: {}",
            f.local_file().display(),
            io_hooks::text::os_error(&cause)
        )
    );
}

#[test]
fn the_root_must_be_a_directory() {
    let f = Fixture::new();
    let missing = f.root().join("missing");
    let e = Config::discover_with(&missing, None).unwrap_err();
    assert!(matches!(e, ConfigError::Root { .. }));
    assert!(
        e.to_string().starts_with(&format!(
            "{}: cannot be the discovery root, which must be a directory: ",
            missing.display()
        )),
        "{e}"
    );
    let file = f.root().join("file");
    fs::write(&file, "").unwrap();
    assert!(matches!(
        Config::discover_with(&file, None),
        Err(ConfigError::Root { .. })
    ));
}

#[test]
fn a_relative_root_is_made_absolute() {
    let f = Fixture::new();
    f.local("[[hook]]\nappend = \"a.jsonl\"\n");
    // A path relative to the current directory, reaching the same root.
    let cwd = std::env::current_dir().unwrap();
    let mut relative = PathBuf::new();
    for _ in cwd.components().skip(1) {
        relative.push("..");
    }
    relative.push(f.root().strip_prefix("/").unwrap());
    let config = Config::discover_with(&relative, None).unwrap();
    assert!(config.root().is_absolute());
    let Some(AppendAction { path, .. }) = config.hook_specs()[0].action.get() else {
        panic!("an append hook")
    };
    assert!(path.is_absolute(), "{}", path.display());
}

#[test]
fn the_user_file_reached_as_the_project_file_is_read_once_as_the_user_scope() {
    let f = Fixture::new();
    f.project(TWO_HOOKS);
    // The harness pointed at the operator's own config directory.
    let config = Config::discover_with(f.root(), Some(f.root())).unwrap();
    assert_eq!(config.sources().len(), 1);
    assert_eq!(config.sources()[0].scope(), Scope::User);
    assert_eq!(config.hook_specs().len(), 2);
}

#[test]
fn hooks_is_the_harness_observer_type() {
    let f = Fixture::new();
    f.local("[[hook]]\non = [\"step\"]\nrun = [\"x\"]\n");
    let hooks: io_harness::Hooks = f.load().hooks();
    assert!(!hooks.is_empty());
    assert_eq!(hooks.specs().len(), 1);
    assert_eq!(hooks.root(), f.root());
}

// ---- a tracked io.local.toml arrived with the clone ----

#[test]
fn a_tracked_io_local_toml_may_not_declare_hooks() {
    let f = Fixture::new();
    if !prerequisite("a usable git", git(f.root(), &["init", "-q"])) {
        return;
    }
    f.local(TWO_HOOKS);
    // Untracked: the operator's own file.
    assert_eq!(f.load().hook_specs().len(), 2);

    assert!(git(f.root(), &["add", "io.local.toml"]));
    assert_eq!(
        f.error(),
        format!(
            "{}: key `hook`: this `io.local.toml` is tracked by the repository's git index, so \
             it arrives with a `git clone` just as `io.toml` does, and may not declare hooks. \
             Untrack it with `git rm --cached io.local.toml` (and list it in `.gitignore`), or \
             move the hooks to the user-scope file.",
            f.local_file().display()
        )
    );

    // A tracked file's profile hooks are refused the same way.
    f.local("[[profile.ci.hook]]\nappend = \"a\"\n");
    let e = f.discover().unwrap_err();
    assert!(
        matches!(&e, ConfigError::TrackedLocal { key, .. } if key == "profile.ci.hook"),
        "{e}"
    );

    // The refusal comes before the tables are checked, as in `io.toml`.
    f.local("[[hook]]\ntimout_ms = 1\n");
    assert!(matches!(
        f.discover(),
        Err(ConfigError::TrackedLocal { .. })
    ));

    // A tracked file without hooks is fine: only hooks are refused.
    f.local("[mcp]\nserver = \"x\"\n");
    assert!(f.load().hook_specs().is_empty());

    // The fix the message names works.
    f.local(TWO_HOOKS);
    assert!(git(f.root(), &["rm", "-q", "--cached", "io.local.toml"]));
    assert_eq!(f.load().hook_specs().len(), 2);
}

#[test]
fn a_tracked_io_local_toml_in_a_subdirectory_root_is_refused_too() {
    let f = Fixture::new();
    if !prerequisite("a usable git", git(f.root(), &["init", "-q"])) {
        return;
    }
    let sub = f.root().join("crates").join("app");
    fs::create_dir_all(&sub).unwrap();
    fs::write(sub.join("io.local.toml"), TWO_HOOKS).unwrap();
    assert!(git(f.root(), &["add", "crates/app/io.local.toml"]));
    assert!(matches!(
        Config::discover_with(&sub, None),
        Err(ConfigError::TrackedLocal { .. })
    ));
}

// ---- no input panics ----

fn toml_ish() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "on",
        "append",
        "run",
        "on_failure",
        "timeout_ms",
        "hook",
        "\"hook\"",
        "\"\\u0068ook\"",
        "profile",
        "profile.ci",
        "profile.ci.hook",
        "mcp",
        "x.y",
    ]);
    let value = prop::sample::select(vec![
        "[]",
        "[\"\"]",
        "[\"step\"]",
        "[\"stepp\"]",
        "\"a\"",
        "0",
        "-1",
        "5000",
        "1.5",
        "true",
        "{}",
        "{ hook = [] }",
        "[{ run = [\"x\"] }]",
        "[[1]]",
        "\"cancel\"",
        "1979-05-27T07:32:00Z",
    ]);
    let header = prop::sample::select(vec![
        "[[hook]]",
        "[hook]",
        "[profile.ci]",
        "[[profile.ci.hook]]",
        "[profile]",
        "[[profile]]",
        "[mcp]",
        "[[hook]]\nappend = \"a\"",
        "[[hook]]\non = [\"step\"]\nrun = [\"x\"]",
        "[[profile.ci.hook]]\nrun = [\"x\"]\non_failure = \"cancel\"",
    ]);
    let line = prop_oneof![
        3 => (key, value).prop_map(|(k, v)| format!("{k} = {v}")),
        3 => header.prop_map(str::to_owned),
        1 => "[ -~]{0,20}",
    ];
    prop::collection::vec(line, 0..10).prop_map(|lines| lines.join("\n"))
}

fn loads_or_fails_cleanly(f: &Fixture, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for scope in [Scope::User, Scope::Project, Scope::Local] {
        let _ = fs::remove_file(f.user_file());
        let _ = fs::remove_file(f.project_file());
        let _ = fs::remove_file(f.local_file());
        match scope {
            Scope::User => f.user(&text),
            Scope::Project => f.project(&text),
            _ => f.local(&text),
        };
        match f.discover() {
            Ok(config) => {
                let _ = config.hooks_in_force();
                let _ = config.hook_specs();
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
    // The raw bytes, UTF-8 or not, as the local file.
    fs::write(f.local_file(), bytes).unwrap();
    if let Err(e) = f.discover() {
        assert!(!e.to_string().is_empty());
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        match Config::from_toml(text) {
            Ok(config) => assert!(config.hook_specs().is_empty(), "project text has no hooks"),
            Err(e) => assert!(e.to_string().starts_with("io.toml: "), "{e}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_bytes_load_or_fail_cleanly(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let f = Fixture::new();
        loads_or_fails_cleanly(&f, &bytes);
    }

    #[test]
    fn toml_ish_documents_load_or_fail_cleanly(text in toml_ish()) {
        let f = Fixture::new();
        loads_or_fails_cleanly(&f, text.as_bytes());
    }

    #[test]
    fn from_toml_never_lets_a_hook_through(text in toml_ish()) {
        match Config::from_toml(&text) {
            Ok(config) => {
                prop_assert!(config.hook_specs().is_empty());
                for name in config.profiles() {
                    let applied = config.clone().with_profile(name).unwrap();
                    prop_assert!(applied.hook_specs().is_empty());
                }
            }
            Err(e) => prop_assert!(e.to_string().starts_with("io.toml: "), "{}", e),
        }
    }
}

// ---- a near miss of `hook` is refused, not read as "no hooks" ----

#[test]
fn a_near_miss_of_hook_is_refused_in_every_scope_with_its_position() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "[[hooks]]\nappend = \"a.jsonl\"\n",
            "hooks",
            "line 1, column 3",
        ),
        (
            "x = 1\n[[Hook]]\nappend = \"a.jsonl\"\n",
            "Hook",
            "line 2, column 3",
        ),
        ("HOOK = []\n", "HOOK", "line 1, column 1"),
        ("[[hok]]\nrun = [\"x\"]\n", "hok", "line 1, column 3"),
        ("[[hoook]]\nrun = [\"x\"]\n", "hoook", "line 1, column 3"),
        (
            "[profile.ci]\nmodel = \"m\"\n[[profile.ci.hooks]]\nrun = [\"x\"]\n",
            "profile.ci.hooks",
            "line 3, column 14",
        ),
    ];
    type Writer = fn(&Fixture, &str);
    type FileOf = fn(&Fixture) -> PathBuf;
    let scopes: [(Writer, FileOf); 3] = [
        (
            |f, t| {
                f.user(t);
            },
            Fixture::user_file,
        ),
        (
            |f, t| {
                f.project(t);
            },
            Fixture::project_file,
        ),
        (
            |f, t| {
                f.local(t);
            },
            Fixture::local_file,
        ),
    ];
    for (text, key, at) in cases {
        for (write, file) in scopes {
            let f = Fixture::new();
            write(&f, text);
            let last = key.rsplit('.').next().unwrap();
            // The array as it would be spelt where it was written: a
            // profile's misspelt `[[profile.ci.hooks]]` is told of
            // `[[profile.ci.hook]]`.
            let array = key
                .rsplit_once('.')
                .map_or("hook".to_owned(), |(section, _)| format!("{section}.hook"));
            assert_eq!(
                f.error(),
                format!(
                    "{}: key `{key}`: did you mean `hook`? Hooks are declared only as \
                     `[[{array}]]` tables, so `{last}` would load as no hooks at all ({at})",
                    file(&f).display()
                ),
                "{text:?}"
            );
        }
    }
}

#[test]
fn other_unknown_keys_far_from_hook_still_load() {
    let f = Fixture::new();
    f.project(
        "book = 1\nlook = \"x\"\nhooks_dir = \"h\"\n[[mcp]]\nname = \"d\"\n[toolchain]\nv = 1\n\
         [policy]\na = 1\n[agent]\nb = 2\n[profile.ci]\nnotebook = true\n",
    )
    .local("[[hook]]\nappend = \"a.jsonl\"\n");
    let config = f.load();
    assert_eq!(config.hook_specs().len(), 1);
}
