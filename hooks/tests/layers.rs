//! The engine's modules depend on one another one way.
//!
//! Each top-level module of `hooks/src` (a file, or a directory with its
//! `mod.rs`) may name another through `crate::…`, and the names form no
//! circle: `table/` reads the actions' list and calls each one's validator,
//! `exec/` runs what `action/` prepared, and no action names either of them;
//! what they all use is in `shared/`, which names none of them. A circle
//! would mean that no module of it can be read, changed or tested without
//! the others, which is how three of them had grown into one.
//!
//! The check reads the source: every `crate::name` and every name at the top
//! of a `crate::{…}` group, outside comments and the `#[cfg(test)] mod tests`
//! at a file's end (a test may use the whole crate). Inside the crate a
//! module is named by its path, not through the crate root's re-exports
//! (`crate::Hooks`, `crate::text::toml_key`), which would hide which module
//! it is.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

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

/// The top-level module a file belongs to: `action` for `action/run/mod.rs`.
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).expect("a file under src");
    let first = rel.components().next().expect("a path with a component");
    let name = first.as_os_str().to_string_lossy();
    name.strip_suffix(".rs").unwrap_or(&name).to_owned()
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

/// The identifier at the start of `text`.
fn ident(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// Every name a file's code reaches through `crate::`: the first segment
/// of each path, and each top-level name of a `crate::{…}` group.
fn named(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if c.is_whitespace() => {}
                    _ if start && depth == 0 => {
                        out.push(ident(&group[i..]).to_owned());
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest).to_owned());
        }
    }
    out
}

/// Module → the modules it names, and any name that is not a module.
fn graph() -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    let root = src();
    let modules: BTreeSet<String> = files(&root)
        .iter()
        .map(|f| module_of(f))
        .filter(|m| m != "lib")
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut strays = Vec::new();
    for file in files(&root) {
        let from = module_of(&file);
        if from == "lib" {
            continue;
        }
        let text = fs::read_to_string(&file).expect("read a source file");
        for name in named(&code(&text)) {
            if name == from || name.is_empty() {
                continue;
            }
            if modules.contains(&name) {
                edges.entry(from.clone()).or_default().insert(name);
            } else {
                let rel = file.strip_prefix(&root).unwrap_or(&file);
                strays.push(format!("{}: crate::{name}", rel.display()));
            }
        }
    }
    (edges, strays)
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
fn the_modules_name_one_another_in_no_circle() {
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
fn table_and_hooks_use_the_actions_and_no_action_uses_them() {
    let (edges, _) = graph();
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
fn the_reader_sees_paths_groups_and_skips_comments_and_tests() {
    let text = "use crate::a::X;\n\
                // crate::commented\n\
                /// [`Y`](crate::doc)\n\
                use crate::{b::{C, D}, e, f::G};\n\
                fn x() { crate::h::go(); }\n\
                #[cfg(test)]\n\
                mod tests {\n    use crate::tested;\n}\n";
    assert_eq!(named(&code(text)), ["a", "b", "e", "f", "h"]);
    let mut edges = BTreeMap::new();
    edges.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    edges.insert("b".to_owned(), BTreeSet::from(["c".to_owned()]));
    assert_eq!(circle(&edges), None);
    edges.insert("c".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert_eq!(
        circle(&edges).map(|c| c.join(" -> ")),
        Some("a -> b -> c -> a".to_owned())
    );
}
