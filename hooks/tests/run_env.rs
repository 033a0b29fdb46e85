//! A `run` hook's environment: the variables an embedder names
//! (`HookEnv`, `Hooks::with_env`) reach the child under the embedder's
//! names, and nothing else changes; with none named, the child's
//! environment is the host's, and no word of the engine's appears in it.
//!
//! Each test re-executes itself with variables of its own in the host's
//! environment (an `IO_ROOT` an outer program left, a stale one to
//! remove), since a test may not change its own process's environment.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Ev, assert_child_passed, is_reexec, reexec, step};
use io_hooks::{Action, Flow, HookEnv, HookSpec, Hooks};

/// What the shell adds to its own environment, whatever it was given.
const SHELLS_OWN: &[&str] = &["PWD", "OLDPWD", "SHLVL", "_"];

/// A hook writing its whole environment (`env -0`) to `out` in the root.
fn env_to(out: &str) -> Action {
    Action::run_with_timeout(
        ["/bin/sh", "-c", "exec env -0 > \"$0\"", out],
        Duration::from_secs(20),
    )
}

/// The environment a hook wrote to `file`, by name.
fn read_env(file: &Path) -> BTreeMap<OsString, OsString> {
    let bytes = fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    bytes
        .split(|&b| b == 0)
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            let eq = entry.iter().position(|&b| b == b'=').expect("NAME=value");
            let name = OsStr::from_bytes(&entry[..eq]).to_owned();
            (name, OsStr::from_bytes(&entry[eq + 1..]).to_owned())
        })
        .collect()
}

/// The child's variables that differ from this process's, by name: the
/// value it has (`None`: it has none), the shell's own and `PATH` left out.
fn changes(child: &BTreeMap<OsString, OsString>) -> BTreeMap<String, Option<OsString>> {
    let host: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
    let names = host.keys().chain(child.keys());
    names
        .filter(|name| *name != "PATH" && !SHELLS_OWN.iter().any(|own| *name == *own))
        .filter(|name| host.get(*name) != child.get(*name))
        .map(|name| {
            (
                name.to_string_lossy().into_owned(),
                child.get(name).cloned(),
            )
        })
        .collect()
}

fn some(value: &str) -> Option<OsString> {
    Some(value.into())
}

/// A root whose name is not UTF-8, in `dir`.
fn non_utf8_root(dir: &Path) -> PathBuf {
    let root = dir.join(OsString::from_vec(b"r\xff\xfe".to_vec()));
    fs::create_dir(&root).unwrap();
    root
}

/// The embedder's names, and only those, reach the child: the root
/// (absolute, not UTF-8), the event's tag, the hook's name or else its
/// `hook[N]`, a fixed pair, a removed variable; an `IO_ROOT` the host was
/// given passes through untouched, since the engine names nothing of its
/// own. A background hook's child gets the same.
#[test]
fn an_embedders_own_names_reach_the_child_and_nothing_else_changes() {
    const NAME: &str = "an_embedders_own_names_reach_the_child_and_nothing_else_changes";
    if !is_reexec(NAME) {
        let dir = tempfile::tempdir().unwrap();
        let out = reexec(
            NAME,
            &[
                ("IO_ROOT", OsStr::new("/an/outer/root")),
                ("CI_STALE", OsStr::new("from an outer build")),
            ],
            dir.path(),
        );
        assert_child_passed(&out);
        return;
    }
    let root = non_utf8_root(&std::env::current_dir().unwrap());
    let specs = vec![
        HookSpec::new(common::filter(&["step"]), env_to("named.env"))
            .with_name("notify")
            .with_on_failure(Flow::Cancel),
        HookSpec::new(common::filter(&["step"]), env_to("unnamed.env")),
        HookSpec::new(
            common::filter(&["step"]),
            env_to("background.env").in_background(),
        ),
    ];
    let env = HookEnv::new()
        .root("CI_ROOT")
        .event("CI_EVENT")
        .hook("CI_HOOK")
        .set("CI_BUILD", "b-17")
        .set("CI_BUILD", "b-18")
        .remove("CI_STALE");
    let hooks = Hooks::<Ev>::new(specs, &root).with_env(env);
    assert_eq!(hooks.fire_event(&step(1)), Flow::Continue);
    hooks.wait_background();

    let expect = |hook: &str| {
        BTreeMap::from([
            ("CI_BUILD".to_owned(), some("b-18")),
            ("CI_EVENT".to_owned(), some("step")),
            ("CI_HOOK".to_owned(), some(hook)),
            ("CI_ROOT".to_owned(), Some(root.clone().into_os_string())),
            ("CI_STALE".to_owned(), None),
        ])
    };
    for (file, hook) in [
        ("named.env", "notify"),
        ("unnamed.env", "hook[2]"),
        ("background.env", "hook[3]"),
    ] {
        let child = read_env(&root.join(file));
        assert_eq!(changes(&child), expect(hook), "{file}");
        assert_eq!(
            child.get(OsStr::new("IO_ROOT")),
            Some(&"/an/outer/root".into())
        );
    }
}

/// With no variable named, or an empty `HookEnv`, the child's environment
/// is the host's: an `IO_EVENT` the host was given is the child's as it
/// was, and no word of the engine's is added.
#[test]
fn with_no_names_the_childs_environment_is_the_hosts() {
    const NAME: &str = "with_no_names_the_childs_environment_is_the_hosts";
    if !is_reexec(NAME) {
        let dir = tempfile::tempdir().unwrap();
        let out = reexec(NAME, &[("IO_EVENT", OsStr::new("stale"))], dir.path());
        assert_child_passed(&out);
        return;
    }
    let root = std::env::current_dir().unwrap();
    let specs = || {
        vec![HookSpec::new(
            common::filter(&["step"]),
            env_to("plain.env"),
        )]
    };
    for hooks in [
        Hooks::<Ev>::new(specs(), &root),
        Hooks::<Ev>::new(specs(), &root).with_env(HookEnv::new()),
    ] {
        assert!(HookEnv::new().is_empty());
        let _ = hooks.fire_event(&step(1));
        let child = read_env(&root.join("plain.env"));
        assert_eq!(changes(&child), BTreeMap::new());
        assert_eq!(child.get(OsStr::new("IO_EVENT")), Some(&"stale".into()));
        fs::remove_file(root.join("plain.env")).unwrap();
    }
}

/// The engine's three come after the embedder's own pairs: a `set` of the
/// name the tag goes under is the tag, and each event gets its own.
#[test]
fn the_event_tag_is_each_events_own_and_wins_over_a_fixed_pair() {
    let dir = tempfile::tempdir().unwrap();
    let argv = ["/bin/sh", "-c", "printf '%s\\n' \"$EV\" >> tags.txt"];
    let spec = HookSpec::new(common::filter(&[]), Action::run(argv));
    let env = HookEnv::new().set("EV", "fixed").event("EV");
    assert!(!env.is_empty());
    let hooks = Hooks::<Ev>::new(vec![spec], dir.path()).with_env(env);
    let _ = hooks.fire_event(&step(1));
    let _ = hooks.fire_event(&common::started("go"));
    let tags = fs::read_to_string(dir.path().join("tags.txt")).unwrap();
    assert_eq!(tags, "step\nstarted\n");
}

/// Each one name, or one pair of the embedder's own, is something to give:
/// only `HookEnv::new()` is empty.
#[test]
fn any_one_name_or_pair_makes_an_environment_to_give() {
    assert!(HookEnv::new().is_empty());
    assert_eq!(HookEnv::new(), HookEnv::default());
    for env in [
        HookEnv::new().root("R"),
        HookEnv::new().event("E"),
        HookEnv::new().hook("H"),
        HookEnv::new().set("S", "v"),
        HookEnv::new().remove("X"),
    ] {
        assert!(!env.is_empty(), "{env:?}");
    }
}
