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
//! crate's root for the process's interrupt) would tie the bottom of the
//! crate to its top, so that neither can be read or changed alone.
//!
//! The reader is `hooks/tests/layers.rs`'s: every `crate::…`, `super::…`
//! and `self::…` path, the paths of their `{…}` groups, and every path that
//! starts with a child the file declares, outside comments and the
//! `#[cfg(test)] mod tests` at a file's end. A path names the deepest
//! module it reaches; inside a crate a module is named by its path, not
//! through the crate root's re-exports (`crate::RawJson`), which would
//! hide which module it is.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The library's layers, bottom to top: each top-level module of
/// `lib.rs`, and the layer it sits in.
const LIBRARY: &[(usize, &[&str])] = &[
    // The words: the events, free-form JSON, the tools' names; and the
    // process's one interrupt. (An OS error as read is io-hooks'
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

/// The module a file is: `run::call` for `run/call.rs`, `commands::replay`
/// for `commands/replay/mod.rs`, `` for `lib.rs` and `main.rs`.
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).expect("a file under src");
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
fn top(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

/// The top-level modules a crate's root file declares.
fn roots_children(root: &str) -> BTreeSet<String> {
    let text = fs::read_to_string(src().join(root)).expect("read a crate root");
    declared(&code(&text))
}

/// The files of the crate whose root is `root`: the root, and every file
/// of a module it declares.
fn crate_files(root: &str) -> Vec<PathBuf> {
    let tops = roots_children(root);
    files(&src())
        .into_iter()
        .filter(|f| {
            let module = module_of(f);
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

/// The identifier at the start of `text`.
fn ident(text: &str) -> &str {
    let end = text.find(|c: char| !is_ident(c)).unwrap_or(text.len());
    &text[..end]
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
        prefix.push(name.to_owned());
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
        let start = before.rfind(|c: char| !is_ident(c)).map_or(0, |i| i + 1);
        // The first segment of a path, not a later one.
        if code[..start].ends_with("::") {
            continue;
        }
        let first = &code[start..at];
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
                .or_else(|| line.strip_prefix("pub(super) "))
                .or_else(|| line.strip_prefix("pub "))
                .unwrap_or(line);
            let name = line.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_owned())
        })
        .collect()
}

/// Every module of the crate whose root is `root`, at any depth.
fn modules(root: &str) -> BTreeSet<String> {
    crate_files(root)
        .iter()
        .map(|f| module_of(f))
        .filter(|m| !m.is_empty() && !m.ends_with("tests"))
        .collect()
}

/// The crate's module → the modules it names (at every depth), and any
/// path through the crate root that names no module.
fn graph(root: &str) -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    let modules = modules(root);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut strays = Vec::new();
    for file in crate_files(root) {
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
                    let rel = file.strip_prefix(src()).unwrap_or(&file);
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
    assert_eq!(module_of(&src().join("run/mod.rs")), "run");
    assert_eq!(module_of(&src().join("main.rs")), "");
    assert_eq!(module_of(&src().join("run/call.rs")), "run::call");
    assert_eq!(
        module_of(&src().join("commands/replay/mod.rs")),
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
