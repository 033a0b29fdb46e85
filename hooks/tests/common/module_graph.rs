//! The module-graph reader of the layer tests: `hooks/tests/layers.rs`
//! for `hooks/src`, and io-harness's `tests/layers.rs` for its `src/`
//! (through `#[path]`), each with its own layers and its own tests.
//!
//! It reads the source: every `crate::…`, `super::…` and `self::…` path,
//! the paths of their `{…}` groups, and every path that starts with a
//! child the file declares (`mod keys;` then `keys::KEY`), outside comments
//! and the `#[cfg(test)] mod tests` at a file's end (a test may use the
//! whole crate; a `tests.rs` file is one). Raw identifiers (`r#where`) are
//! read as their module's file is named (`where`). A source directory may
//! hold several crates, each named by its root file (`lib.rs`, `main.rs`):
//! a crate is its root and every file of a top-level module the root
//! declares. A path names the deepest module it reaches.
#![allow(dead_code)] // each test binary uses its own subset

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Each `.rs` file under `dir`, at any depth.
pub(crate) fn files(dir: &Path) -> Vec<PathBuf> {
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

/// The module a file under `src` is: `action::run` for
/// `action/run/mod.rs`, `action::run::run_key` for `action/run/run_key.rs`,
/// `` for a crate root (`lib.rs`, `main.rs`).
pub(crate) fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("a file under src");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.strip_suffix(".rs").unwrap_or(&last);
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_owned());
    }
    parts.join("::")
}

/// The top-level module `module` is in.
pub(crate) fn top(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

/// The top-level modules the crate root `root` (a file of `src`) declares.
pub(crate) fn roots_children(src: &Path, root: &str) -> BTreeSet<String> {
    let text = fs::read_to_string(src.join(root)).expect("read a crate root");
    declared(&code(&text))
}

/// The files of the crate whose root is `root`: the root, and every file
/// of a module it declares.
pub(crate) fn crate_files(src: &Path, root: &str) -> Vec<PathBuf> {
    let tops = roots_children(src, root);
    files(src)
        .into_iter()
        .filter(|f| {
            let module = module_of(src, f);
            if module.is_empty() {
                f.file_name().is_some_and(|n| n == root)
            } else {
                tops.contains(top(&module))
            }
        })
        .collect()
}

/// The file's code: without comment lines and without the `mod tests` a
/// file ends with.
pub(crate) fn code(text: &str) -> String {
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

pub(crate) fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The identifier at the start of `text`, a raw one (`r#where`) with its
/// `r#`.
pub(crate) fn ident(text: &str) -> &str {
    let raw = if text.starts_with("r#") { 2 } else { 0 };
    let end = text[raw..]
        .find(|c: char| !is_ident(c))
        .map_or(text.len(), |end| raw + end);
    &text[..end]
}

/// A module's name as its file is named: `where` for `r#where`.
pub(crate) fn unraw(name: &str) -> &str {
    name.strip_prefix("r#").unwrap_or(name)
}

/// The path that starts at `text` (after its first `::`), with each path of
/// a `{…}` group spelt out: `a::b::{C, d::E}` is `a::b::C` and `a::b::d::E`.
pub(crate) fn paths(text: &str) -> Vec<Vec<String>> {
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
pub(crate) fn named(code: &str, module: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
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
pub(crate) fn declared(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line
                .strip_prefix("pub(crate) ")
                .or_else(|| line.strip_prefix("pub(super) "))
                .or_else(|| line.strip_prefix("pub "))
                .unwrap_or(line);
            let name = line.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(unraw(name.trim()).to_owned())
        })
        .collect()
}

/// Every module of the crate whose root is `root`, at any depth.
pub(crate) fn modules(src: &Path, root: &str) -> BTreeSet<String> {
    crate_files(src, root)
        .iter()
        .map(|f| module_of(src, f))
        .filter(|m| !m.is_empty() && !m.ends_with("tests"))
        .collect()
}

/// The crate's module → the modules it names (at every depth), and any
/// path through the crate root that names no module.
pub(crate) fn graph(src: &Path, root: &str) -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    let modules = modules(src, root);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut strays = Vec::new();
    for file in crate_files(src, root) {
        let from = module_of(src, &file);
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
                    let rel = file.strip_prefix(src).unwrap_or(&file);
                    strays.push(format!("{}: crate::{}", rel.display(), path.join("::")));
                }
            }
        }
    }
    (edges, strays)
}

/// The edges between top-level modules.
pub(crate) fn top_edges(
    edges: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeMap<String, BTreeSet<String>> {
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
pub(crate) fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
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

pub(crate) fn shown(edges: &BTreeMap<String, BTreeSet<String>>) -> String {
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
