//! The modules of `src/` depend on one another one way, in layers, as
//! `hooks/tests/layers.rs` keeps those of `hooks/src`.
//!
//! `src/` holds two crates: the library (`lib.rs` and every module it
//! declares) and the `io` program (`main.rs`, `cli/` and `commands/`),
//! which names the library only as `io_harness::…`, from above. In each,
//! the modules, at any depth, name one another in no circle, and each
//! top-level module sits in one of the layers below and names only its own
//! layer and those beneath. A module low down that named one above it (the
//! events naming the run loop for its tools' names, the config naming the
//! crate's root for the process's supervisor) would tie the bottom of the
//! crate to its top, so that neither can be read or changed alone.
//!
//! The reader is `hooks/tests/common/module_graph.rs`, which
//! `hooks/tests/layers.rs` uses too: every `crate::…`, `super::…`
//! and `self::…` path, the paths of their `{…}` groups, and every path that
//! starts with a child the file declares, outside comments and the
//! `#[cfg(test)] mod tests` at a file's end. A path names the deepest
//! module it reaches; inside a crate a module is named by its path, not
//! through the crate root's re-exports (`crate::RawJson`), which would
//! hide which module it is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "../hooks/tests/common/module_graph.rs"]
mod module_graph;
use module_graph::{circle, code, declared, module_of, named, shown, top_edges};

/// The library's layers, bottom to top: each top-level module of
/// `lib.rs`, and the layer it sits in.
const LIBRARY: &[(usize, &[&str])] = &[
    // The words: the events, free-form JSON, the tools' names; and the
    // process's one supervisor. (An OS error as read is io-hooks'
    // `text::os_error`.)
    (1, &["event", "raw_json", "tool_name", "supervisor"]),
    // What is built on the events: the config, the observer, the events'
    // schema and docs, the hook tables' schema.
    (2, &["config", "observer", "event_schema", "hook_schema"]),
    // The reference run loop.
    (3, &["run"]),
    // Replaying a recording.
    (4, &["replay"]),
];

/// The `io` program's layers: each top-level module of `main.rs`.
const PROGRAM: &[(usize, &[&str])] = &[
    // What every command is built of: output and escaping, finding the
    // root, loading, logging, the lines about hooks.
    (1, &["cli"]),
    // One module per command.
    (2, &["commands"]),
];

/// One of the two crates of `src/`.
struct Crate {
    /// Its root file: `lib.rs` or `main.rs`.
    root: &'static str,
    /// Its layers.
    layers: &'static [(usize, &'static [&'static str])],
}

const CRATES: [Crate; 2] = [
    Crate {
        root: "lib.rs",
        layers: LIBRARY,
    },
    Crate {
        root: "main.rs",
        layers: PROGRAM,
    },
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The module graph of the crate whose root is `root`.
fn graph(root: &str) -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    module_graph::graph(&src(), root)
}

/// Every module of the crate whose root is `root`, at any depth.
fn modules(root: &str) -> BTreeSet<String> {
    module_graph::modules(&src(), root)
}

/// The top-level modules a crate's root file declares.
fn roots_children(root: &str) -> BTreeSet<String> {
    module_graph::roots_children(&src(), root)
}

/// The modules whose children take the parent's own types while the parent
/// calls them, today: `config/mod.rs` holds `Config`, `Source` and `Scope`,
/// which `discover.rs` and `read.rs` build, and calls both. Left as it is
/// while `config/` is reshaped elsewhere; the list may only shrink.
const PARENT_AND_CHILDREN_ONE_MODULE: &[&str] = &["config"];

/// `edges` without those from a child of one of
/// [`PARENT_AND_CHILDREN_ONE_MODULE`] to that parent.
fn without_known(edges: BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    edges
        .into_iter()
        .map(|(from, to)| {
            let to = to
                .into_iter()
                .filter(|to| {
                    !(PARENT_AND_CHILDREN_ONE_MODULE.contains(&to.as_str())
                        && from.starts_with(&format!("{to}::")))
                })
                .collect();
            (from, to)
        })
        .collect()
}

/// Modules, at any depth, and their children and siblings, name one
/// another in no circle, in either crate.
#[test]
fn no_modules_name_one_another_in_a_circle() {
    for krate in &CRATES {
        let (edges, _) = graph(krate.root);
        let edges = without_known(edges);
        assert!(
            !edges.is_empty(),
            "the reader saw no path in {}",
            krate.root
        );
        if let Some(found) = circle(&edges) {
            panic!(
                "a circle of modules under {}: {}\nevery module and what it names:\n{}",
                krate.root,
                found.join(" -> "),
                shown(&edges)
            );
        }
    }
}

#[test]
fn each_module_names_only_its_layer_and_those_below() {
    for krate in &CRATES {
        let layer_of = |module: &str| {
            krate
                .layers
                .iter()
                .find(|(_, modules)| modules.contains(&module))
                .map(|(layer, _)| *layer)
        };
        let tops = roots_children(krate.root);
        for module in &tops {
            assert!(
                layer_of(module).is_some(),
                "`{module}` (declared in {}) is in no layer of this test's list",
                krate.root
            );
        }
        for (_, listed) in krate.layers {
            for module in *listed {
                assert!(
                    tops.contains(*module),
                    "`{module}` is in a layer but {} declares no such module",
                    krate.root
                );
            }
        }
        let (edges, _) = graph(krate.root);
        for (from, to) in top_edges(&edges) {
            for to in to {
                let (a, b) = (layer_of(&from), layer_of(&to));
                assert!(
                    b <= a,
                    "`{from}` (layer {a:?}) names `{to}` (layer {b:?}), a layer above it"
                );
            }
        }
    }
}

/// The events sit below the run loop: the tools' names they are checked
/// against are a module of their own, which the loop reads too.
#[test]
fn the_events_and_the_config_name_neither_the_run_loop_nor_the_crate_root() {
    let (edges, _) = graph("lib.rs");
    let edges = top_edges(&edges);
    let names = |from: &str, to: &str| edges.get(from).is_some_and(|t| t.contains(to));
    for low in ["event", "config", "observer", "event_schema"] {
        assert!(!names(low, "run"), "{low} names run:\n{}", shown(&edges));
    }
    assert!(names("event", "tool_name"), "{}", shown(&edges));
    assert!(names("run", "tool_name"), "{}", shown(&edges));
}

/// No module of `cli/` names a command: what the commands are built of
/// sits below them all, and `main.rs` only parses and dispatches.
#[test]
fn the_commands_use_cli_and_cli_uses_no_command() {
    let (edges, _) = graph("main.rs");
    let edges = top_edges(&edges);
    let names = |from: &str, to: &str| edges.get(from).is_some_and(|t| t.contains(to));
    assert!(names("commands", "cli"), "{}", shown(&edges));
    assert!(!names("cli", "commands"), "{}", shown(&edges));
}

#[test]
fn inside_each_crate_a_module_is_named_by_its_path() {
    for krate in &CRATES {
        let (_, strays) = graph(krate.root);
        assert!(
            strays.is_empty(),
            "names through the crate root of {}, which hide the module they are from:\n{}",
            krate.root,
            strays.join("\n")
        );
    }
}

#[test]
fn the_reader_tells_the_two_crates_apart() {
    let library = modules("lib.rs");
    let program = modules("main.rs");
    assert!(library.contains("run::call"), "{library:?}");
    assert!(library.contains("event"), "{library:?}");
    assert!(program.contains("cli::output"), "{program:?}");
    assert!(program.contains("commands::replay::input"), "{program:?}");
    assert!(
        library.intersection(&program).next().is_none(),
        "a module in both crates: {library:?} {program:?}"
    );
    assert_eq!(module_of(&src(), &src().join("run/mod.rs")), "run");
    assert_eq!(module_of(&src(), &src().join("main.rs")), "");
    assert_eq!(module_of(&src(), &src().join("run/call.rs")), "run::call");
    assert_eq!(
        module_of(&src(), &src().join("commands/replay/mod.rs")),
        "commands::replay"
    );
    let text = "use crate::a::X;\n\
                // crate::commented\n\
                use super::{sib::H, I};\n\
                mod kid;\n\
                fn x() { crate::h::go(); kid::run(); other::skip(); }\n\
                #[cfg(test)]\n\
                mod tests {\n    use crate::tested;\n}\n";
    let code = code(text);
    let children = declared(&code);
    let got: Vec<String> = named(&code, "m::n", &children)
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        got,
        ["a::X", "m::sib::H", "m::I", "h::go", "m::n::kid::run"]
    );
    let mut edges = BTreeMap::new();
    edges.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    edges.insert("b".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert!(circle(&edges).is_some());
}
