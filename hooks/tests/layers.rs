//! The engine's modules depend on one another one way, in the layers the
//! crate's documentation draws.
//!
//! Every module of `hooks/src`, at any depth (a file, or a directory with
//! its `mod.rs`), may name another, and the names form no circle: not
//! between top-level modules (`table/` reads the actions' list and calls
//! each one's validator, `hooks.rs` runs what `action/` prepared, and no
//! action names either of them), and not between a module and its children
//! either (a `mod.rs` that re-exports its children, and a child that takes
//! its parent's items, are one module that reads as several). A circle
//! would mean that no module of it can be read, changed or tested without
//! the others, which is how three of them had grown into one. Each
//! top-level module also sits in one of the layers of the crate's docs,
//! and names only its own layer and those below.
//!
//! The check's reader is `common/module_graph.rs` (io-harness's layer test
//! shares it): it reads every `crate::…`, `super::…` and `self::…` path,
//! the paths of their `{…}` groups, and every path that starts with a
//! child the file declares (`mod keys;` then `keys::KEY`), outside comments
//! and the `#[cfg(test)] mod tests` at a file's end (a test may use the
//! whole crate; a `tests.rs` file is one). A path names the deepest module
//! it reaches. Inside the crate a module is named by its path, not
//! through the crate root's re-exports (`crate::Hooks`,
//! `crate::text::toml_key`), which would hide which module it is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "common/module_graph.rs"]
mod module_graph;
use module_graph::{circle, code, declared, module_of, named, shown, top, top_edges};

/// The layers of the crate's documentation, bottom to top: each top-level
/// module, and the layer it sits in.
const LAYERS: &[(usize, &[&str])] = &[
    // The registry, and the words every message is written with.
    (1, &["registry", "tag_check", "message", "paste", "scan"]),
    // The failure types (the root is io-beneath's, and the process
    // supervisor is io-supervisor's: crates of their own, beneath all of
    // these).
    (2, &["hook_failure"]),
    // The parsing vocabulary: positions, a child's variables, where a hook was written, the key
    // table's rows, the raw table, `where`, the table error.
    (
        3,
        &[
            "position",
            "env",
            "origin",
            "key",
            "where",
            "raw",
            "table_error",
        ],
    ),
    // The actions.
    (4, &["action"]),
    // The spec, the embedder's layout (with its own actions) and the
    // tables.
    (5, &["spec", "layout", "table"]),
    // `Hooks`.
    (6, &["hooks"]),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The crate's module graph, as `common/module_graph.rs` reads it.
fn graph() -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    module_graph::graph(&src(), "lib.rs")
}

/// Every module of the crate, at any depth.
fn modules() -> BTreeSet<String> {
    module_graph::modules(&src(), "lib.rs")
}

#[test]
fn the_top_level_modules_name_one_another_in_no_circle() {
    let (edges, _) = graph();
    let edges = top_edges(&edges);
    if let Some(found) = circle(&edges) {
        panic!(
            "a circle of modules: {}\nevery module and what it names:\n{}",
            found.join(" -> "),
            shown(&edges)
        );
    }
}

/// A `mod.rs` and its children, and siblings, name one another in no
/// circle either: a child that takes its parent's items while the parent
/// takes the child's would make the two one module.
#[test]
fn no_module_and_its_children_name_one_another_in_a_circle() {
    let (edges, _) = graph();
    if let Some(found) = circle(&edges) {
        panic!(
            "a circle of modules: {}\nevery module and what it names:\n{}",
            found.join(" -> "),
            shown(&edges)
        );
    }
}

#[test]
fn each_module_names_only_its_layer_and_those_below() {
    let (edges, _) = graph();
    let layer_of = |module: &str| {
        LAYERS
            .iter()
            .find(|(_, modules)| modules.contains(&module))
            .map(|(layer, _)| *layer)
    };
    let tops: BTreeSet<String> = modules().iter().map(|m| top(m).to_owned()).collect();
    for module in &tops {
        assert!(
            layer_of(module).is_some(),
            "`{module}` is in no layer of LAYERS (and of the crate's docs)"
        );
    }
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

#[test]
fn table_and_hooks_use_the_actions_and_no_action_uses_them() {
    let (edges, _) = graph();
    let edges = top_edges(&edges);
    let names = |from: &str, to: &str| edges.get(from).is_some_and(|t| t.contains(to));
    assert!(names("table", "action"), "{}", shown(&edges));
    assert!(names("hooks", "action"), "{}", shown(&edges));
    assert!(
        names("action", "raw") && names("table", "raw"),
        "{}",
        shown(&edges)
    );
    for other in ["table", "hooks", "spec"] {
        assert!(
            !names("action", other),
            "action names {other}:\n{}",
            shown(&edges)
        );
    }
    assert!(!names("table", "hooks"), "{}", shown(&edges));
}

/// An action's module names the interface it implements, never the
/// registry that lists it.
#[test]
fn no_action_names_the_registry() {
    let (edges, _) = graph();
    for (from, to) in &edges {
        if from.starts_with("action::") {
            assert!(
                !to.contains("action"),
                "`{from}` names the registry `action` (its mod.rs): {to:?}"
            );
        }
    }
    let run: Vec<&String> = edges
        .keys()
        .filter(|m| m.starts_with("action::run"))
        .collect();
    assert!(!run.is_empty(), "the reader saw no file of action/run");
}

#[test]
fn inside_the_crate_a_module_is_named_by_its_path() {
    let (_, strays) = graph();
    assert!(
        strays.is_empty(),
        "names through the crate root, which hide the module they are from:\n{}",
        strays.join("\n")
    );
}

#[test]
fn the_reader_sees_paths_groups_children_and_skips_comments_and_tests() {
    let text = "use crate::a::X;\n\
                // crate::commented\n\
                /// [`Y`](crate::doc)\n\
                use crate::{b::{C, D}, e, f::G};\n\
                use super::{sib::H, I};\n\
                use super::super::up::J;\n\
                mod kid;\n\
                mod r#where;\n\
                use crate::r#where::{K, r#type::L};\n\
                fn x() { crate::h::go(); kid::run(); other::skip(); r#where::M; }\n\
                #[cfg(test)]\n\
                mod tests {\n    use crate::tested;\n}\n";
    let code = code(text);
    let children = declared(&code);
    assert_eq!(
        children,
        BTreeSet::from(["kid".to_owned(), "where".to_owned()])
    );
    let got: Vec<String> = named(&code, "m::n", &children)
        .into_iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        got,
        [
            "a::X",
            "b::C",
            "b::D",
            "e",
            "f::G",
            "m::sib::H",
            "m::I",
            "up::J",
            "where::K",
            "where::type::L",
            "h::go",
            "m::n::kid::run",
            "m::n::where::M"
        ]
    );
    assert_eq!(
        module_of(&src(), &src().join("action/run/mod.rs")),
        "action::run"
    );
    assert_eq!(
        module_of(&src(), &src().join("action/run/run_key.rs")),
        "action::run::run_key"
    );
    assert_eq!(module_of(&src(), &src().join("hooks.rs")), "hooks");
    let mut edges = BTreeMap::new();
    edges.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    edges.insert("b".to_owned(), BTreeSet::from(["c".to_owned()]));
    assert_eq!(circle(&edges), None);
    edges.insert("c".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert_eq!(
        circle(&edges).map(|c| c.join(" -> ")),
        Some("a -> b -> c -> a".to_owned())
    );
    // A parent and its child, naming each other.
    let mut edges = BTreeMap::new();
    edges.insert("p".to_owned(), BTreeSet::from(["p::c".to_owned()]));
    edges.insert("p::c".to_owned(), BTreeSet::from(["p".to_owned()]));
    assert!(circle(&edges).is_some());
    assert!(circle(&top_edges(&edges)).is_none());
}
