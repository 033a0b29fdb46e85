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
//! The check reads the source: every `crate::…`, `super::…` and `self::…`
//! path, the paths of their `{…}` groups, and every path that starts with
//! a child the file declares (`mod keys;` then `keys::KEY`), outside
//! comments and the `#[cfg(test)] mod tests` at a file's end (a test may
//! use the whole crate; a `tests.rs` file is one). A path names the deepest
//! module it reaches. Inside the crate a module is named by its path, not
//! through the crate root's re-exports (`crate::Hooks`,
//! `crate::text::toml_key`), which would hide which module it is.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers of the crate's documentation, bottom to top: each top-level
/// module, and the layer it sits in.
const LAYERS: &[(usize, &[&str])] = &[
    // The registry, and the words every message is written with.
    (1, &["registry", "tag_check", "message"]),
    // The failure types (the root is io-beneath's, and the process
    // supervisor is io-supervisor's: crates of their own, beneath all of
    // these).
    (2, &["hook_failure"]),
    // The parsing vocabulary: positions, where a hook was written, the key
    // table's rows, the raw table, `where`, the table error.
    (
        3,
        &["position", "origin", "key", "where", "raw", "table_error"],
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

/// Each `.rs` file under `dir`, at any depth.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read a source directory")
        .map(|e| e.expect("read a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The module a file is: `action::run` for `action/run/mod.rs`,
/// `action::run::run_key` for `action/run/run_key.rs`, `` for `lib.rs`.
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).expect("a file under src");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.strip_suffix(".rs").unwrap_or(&last);
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_owned());
    }
    parts.join("::")
}

/// The top-level module `module` is in.
fn top(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

/// The file's code: without comment lines and without the `mod tests` a
/// file ends with.
fn code(text: &str) -> String {
    let mut end = text.len();
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let at = from + at;
        let rest = text[at + "#[cfg(test)]".len()..].trim_start();
        if rest.starts_with("mod tests") {
            end = at;
            break;
        }
        from = at + 1;
    }
    text[..end]
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The identifier at the start of `text`, a raw one (`r#where`) with its
/// `r#`.
fn ident(text: &str) -> &str {
    let raw = if text.starts_with("r#") { 2 } else { 0 };
    let end = text[raw..]
        .find(|c: char| !is_ident(c))
        .map_or(text.len(), |end| raw + end);
    &text[..end]
}

/// A module's name as its file is named: `where` for `r#where`.
fn unraw(name: &str) -> &str {
    name.strip_prefix("r#").unwrap_or(name)
}

/// The path that starts at `text` (after its first `::`), with each path of
/// a `{…}` group spelt out: `a::b::{C, d::E}` is `a::b::C` and `a::b::d::E`.
fn paths(text: &str) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    let mut rest = text;
    loop {
        let name = ident(rest);
        if name.is_empty() {
            break;
        }
        prefix.push(unraw(name).to_owned());
        rest = &rest[name.len()..];
        match rest.strip_prefix("::") {
            Some(more) => rest = more,
            None => return vec![prefix],
        }
    }
    let Some(group) = rest.strip_prefix('{') else {
        return vec![prefix];
    };
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' | ',' if depth == 0 => {
                let item = group[start..i].trim();
                if !item.is_empty() {
                    for tail in paths(item) {
                        let mut path = prefix.clone();
                        path.extend(tail);
                        out.push(path);
                    }
                }
                if c == '}' {
                    break;
                }
                start = i + 1;
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    out
}

/// Every path a file's code names, made absolute (from the crate root,
/// without `crate`): its `crate::…`, `super::…` and `self::…` paths, and
/// those that start with one of `children`, the modules it declares.
/// `module` is the file's own module.
fn named(code: &str, module: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let here: Vec<String> = module
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    let mut out = Vec::new();
    for (at, _) in code.match_indices("::") {
        let before = &code[..at];
        let mut start = before.rfind(|c: char| !is_ident(c)).map_or(0, |i| i + 1);
        if code[..start].ends_with("r#") {
            start -= 2;
        }
        // The first segment of a path, not a later one.
        if code[..start].ends_with("::") {
            continue;
        }
        let first = unraw(&code[start..at]);
        let base: Vec<String> = match first {
            "crate" => Vec::new(),
            "self" => here.clone(),
            "super" => {
                let mut up = here.clone();
                up.pop();
                up
            }
            child if children.contains(child) => here.clone(),
            _ => continue,
        };
        let from = if matches!(first, "crate" | "self" | "super") {
            at + 2
        } else {
            start
        };
        for tail in paths(&code[from..]) {
            let mut path = base.clone();
            let mut tail = tail.into_iter().peekable();
            // `super::super::x`.
            while tail.peek().is_some_and(|s| s == "super") {
                tail.next();
                path.pop();
            }
            path.extend(tail);
            out.push(path);
        }
    }
    out
}

/// The modules `mod name;` declares in `code`.
fn declared(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line
                .strip_prefix("pub(crate) ")
                .or_else(|| line.strip_prefix("pub "))
                .unwrap_or(line);
            let name = line.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(unraw(name.trim()).to_owned())
        })
        .collect()
}

/// Every module, at any depth, by the files under `src`.
fn modules() -> BTreeSet<String> {
    files(&src())
        .iter()
        .map(|f| module_of(f))
        .filter(|m| !m.is_empty() && !m.ends_with("tests"))
        .collect()
}

/// Module → the modules it names (at every depth), and any path through
/// the crate root that names no module.
fn graph() -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    let root = src();
    let modules = modules();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut strays = Vec::new();
    for file in files(&root) {
        let from = module_of(&file);
        if from.is_empty() || from.ends_with("tests") {
            continue;
        }
        let text = fs::read_to_string(&file).expect("read a source file");
        let code = code(&text);
        for path in named(&code, &from, &declared(&code)) {
            // The deepest module the path reaches.
            let reached = (1..=path.len())
                .rev()
                .map(|n| path[..n].join("::"))
                .find(|m| modules.contains(m));
            match reached {
                Some(to) if to != from => {
                    edges.entry(from.clone()).or_default().insert(to);
                }
                Some(_) => {}
                None => {
                    let rel = file.strip_prefix(&root).unwrap_or(&file);
                    strays.push(format!("{}: crate::{}", rel.display(), path.join("::")));
                }
            }
        }
    }
    (edges, strays)
}

/// The edges between top-level modules.
fn top_edges(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in edges {
        for to in to {
            if top(from) != top(to) {
                out.entry(top(from).to_owned())
                    .or_default()
                    .insert(top(to).to_owned());
            }
        }
    }
    out
}

/// A circle of `edges`, as the modules along it, when there is one.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|m| m == at) {
            let mut found = path[i..].to_vec();
            found.push(at.to_owned());
            return Some(found);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_owned());
        for next in edges.get(at).into_iter().flatten() {
            if let Some(found) = visit(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(at.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for start in edges.keys() {
        if let Some(found) = visit(start, edges, &mut Vec::new(), &mut done) {
            return Some(found);
        }
    }
    None
}

fn shown(edges: &BTreeMap<String, BTreeSet<String>>) -> String {
    edges
        .iter()
        .map(|(from, to)| {
            format!(
                "  {from} -> {}",
                to.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
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
    assert_eq!(module_of(&src().join("action/run/mod.rs")), "action::run");
    assert_eq!(
        module_of(&src().join("action/run/run_key.rs")),
        "action::run::run_key"
    );
    assert_eq!(module_of(&src().join("hooks.rs")), "hooks");
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
