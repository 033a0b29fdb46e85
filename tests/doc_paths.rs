//! Every repository path a document names exists (issue 43, item 8).
//!
//! Read: README.md, CONTRIBUTING.md, ROBUSTNESS.md, BENCHMARKS.md, the
//! unreleased section of CHANGELOG.md, everything in docs/, and the README
//! of each workspace member (hooks/README.md among them).
//!
//! What counts as a path:
//!
//! - a word made of letters, digits and `_ - . /` that holds a `/` and
//!   whose first component is a top-level entry of the repository or the
//!   folder of a workspace member (`hooks/src/hooks.rs`, `tests/docs.rs`,
//!   `src/cli/`, `.ci/run`): it must exist as written;
//! - a word ending in `.rs` that holds a `/` but starts elsewhere
//!   (`action/append/log.rs`, written relative to a crate's `src/`): it
//!   must exist under some member's `src/` or `tests/`;
//! - in a member's README, either of these may also be written from the
//!   member's folder (`tests/run.rs` in outside/ci-runner/README.md);
//! - a relative Markdown link target, from the document's folder.
//!
//! What is not judged: URLs and absolute paths (`/tmp/…`, `/proc`); the
//! output lines of a ```` ```console ```` block (what a run printed names
//! the run's own files; its `$ ` command lines are judged) and ```` ```toml
//! ````, ```` ```json ```` and ```` ```rust ```` blocks (an operator's or an
//! embedder's files, not the repository's); the part of a path from its
//! first component holding a placeholder or a wildcard (`$`, `*`, `?`, `<`,
//! `{`, `…`), so `hooks/src/$F.rs` checks `hooks/src`; what a build or a
//! run makes and git ignores (`target/`, `fuzz/corpus/`, `fuzz/artifacts/`,
//! `fuzz/coverage/`); an `io.toml` or `io.local.toml` outside `examples/`,
//! which names an operator's file in some project (`src/io.toml`, a marker
//! a clone commits); and, in CHANGELOG.md, a line that says a path moved
//! or went away, since that is what a changelog records.
//!
//! A failure lists every stale path with its document and line.

use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The folders of the workspace's members, from the root `Cargo.toml`.
fn members() -> Vec<String> {
    let manifest = read(&repo().join("Cargo.toml"));
    let (_, rest) = manifest
        .split_once("members = [")
        .expect("a members list in Cargo.toml");
    let (list, _) = rest.split_once(']').expect("its end");
    list.split(',')
        .map(|m| m.trim().trim_matches('"').to_owned())
        .filter(|m| !m.is_empty())
        .collect()
}

/// The documents read, with the text of each that is judged.
fn documents() -> Vec<(PathBuf, String)> {
    let mut files: Vec<PathBuf> = [
        "README.md",
        "CONTRIBUTING.md",
        "ROBUSTNESS.md",
        "BENCHMARKS.md",
    ]
    .iter()
    .map(|f| repo().join(f))
    .filter(|p| p.is_file())
    .collect();
    let mut docs: Vec<PathBuf> = fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    for member in members() {
        let readme = repo().join(&member).join("README.md");
        if member != "." && readme.is_file() {
            files.push(readme);
        }
    }
    let mut out: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|p| {
            let text = read(&p);
            (p, text)
        })
        .collect();
    out.push((repo().join("CHANGELOG.md"), unreleased_section()));
    out
}

/// CHANGELOG.md with every line blanked but those of its first `## [`
/// section when that section has no date (the version being written), so
/// that line numbers stay the file's.
fn unreleased_section() -> String {
    let changelog = read(&repo().join("CHANGELOG.md"));
    let mut inside = false;
    let mut seen = false;
    let mut out = String::new();
    for line in changelog.lines() {
        if line.starts_with("## [") {
            inside = !seen && !line.contains("] - ");
            seen = true;
        }
        let moved = [
            "moved", "renamed", "removed", "is gone", "are gone", "was ", "were ", "formerly",
        ]
        .iter()
        .any(|w| line.to_lowercase().contains(w));
        if inside && !moved {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The lines of `text` that are judged, with their numbers: fenced blocks
/// as the module's doc says.
fn judged_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            fence = match fence {
                None => Some(info.trim()),
                Some(_) => None,
            };
            continue;
        }
        match fence {
            None | Some("" | "sh" | "bash" | "text") => out.push((n + 1, line)),
            Some("console") => {
                if let Some(command) = trimmed.strip_prefix("$ ") {
                    out.push((n + 1, command));
                }
            }
            Some(_) => {}
        }
    }
    out
}

/// The words of `line` that may be paths.
fn words(line: &str) -> Vec<&str> {
    line.split(|c: char| !(c.is_alphanumeric() || "_-./$*?<>{}…~:".contains(c)))
        .map(|w| w.trim_end_matches([':', '.', ',']))
        .map(|w| w.split(':').next().unwrap_or(w))
        .filter(|w| w.contains('/') && !w.starts_with('/') && !w.starts_with('~'))
        .collect()
}

/// `word` cut before its first component that holds a placeholder or a
/// wildcard.
fn fixed_part(word: &str) -> String {
    let mut kept = Vec::new();
    for part in word.split('/') {
        if part.contains(['$', '*', '?', '<', '>', '{', '}', '…']) || part.contains("...") {
            break;
        }
        kept.push(part);
    }
    kept.join("/").trim_end_matches('/').to_owned()
}

const MADE_BY_A_RUN: [&str; 4] = ["target", "fuzz/corpus", "fuzz/artifacts", "fuzz/coverage"];

/// Whether `word`, read as a path, names something that must exist, and
/// what it resolves to; `None` when it is not judged.
fn judge(word: &str, tops: &[String], bases: &[PathBuf]) -> Option<bool> {
    if word.contains("://") {
        return None;
    }
    let last = word.rsplit('/').next().unwrap_or_default();
    if ["io.toml", "io.local.toml"].contains(&last) && !word.starts_with("examples/") {
        return None;
    }
    let first = word.split('/').next().unwrap_or_default();
    let fixed = fixed_part(word);
    if tops.iter().any(|t| t == first) {
        if MADE_BY_A_RUN
            .iter()
            .any(|m| fixed == *m || fixed.starts_with(&format!("{m}/")))
        {
            return None;
        }
        return Some(repo().join(&fixed).exists());
    }
    if word.ends_with(".rs") && fixed == word {
        return Some(bases.iter().any(|b| b.join(word).exists()));
    }
    None
}

/// The targets of `text`'s relative Markdown links on `line`.
fn link_targets(line: &str) -> Vec<&str> {
    line.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &line[at + 2..];
            let target = &rest[..rest.find(')')?];
            let file = target.split('#').next().unwrap_or(target);
            (!file.is_empty() && !target.contains("://") && !target.starts_with("mailto:"))
                .then_some(file)
        })
        .collect()
}

/// Every stale path of every document, as `doc:line: path`.
fn stale_paths() -> (Vec<String>, usize) {
    let mut tops: Vec<String> = fs::read_dir(repo())
        .expect("the repository")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name != ".git")
        .collect();
    let members = members();
    for member in &members {
        let first = member.split('/').next().unwrap_or_default().to_owned();
        if first != "." && !tops.contains(&first) {
            tops.push(first);
        }
    }
    let mut bases = Vec::new();
    for member in &members {
        for dir in ["src", "tests"] {
            let base = repo().join(member).join(dir);
            if base.is_dir() {
                bases.push(base);
            }
        }
    }
    let mut stale = Vec::new();
    let mut judged = 0;
    for (doc, text) in documents() {
        let shown = doc
            .strip_prefix(repo())
            .unwrap_or(&doc)
            .display()
            .to_string();
        let folder = doc.parent().expect("a folder");
        for (n, line) in judged_lines(&text) {
            for word in words(line) {
                // A member's README names its own files from its folder.
                let own = folder != repo()
                    && folder != repo().join("docs")
                    && folder.join(fixed_part(word)).exists();
                if let Some(exists) = judge(word, &tops, &bases) {
                    judged += 1;
                    if !exists && !own {
                        stale.push(format!("{shown}:{n}: {word}"));
                    }
                }
            }
            for target in link_targets(line) {
                judged += 1;
                if !folder.join(target).exists() {
                    stale.push(format!("{shown}:{n}: {target} (a link)"));
                }
            }
        }
    }
    stale.dedup();
    (stale, judged)
}

#[test]
fn every_path_a_document_names_exists() {
    let (stale, judged) = stale_paths();
    assert!(
        judged > 100,
        "only {judged} paths judged: is the scan blind?"
    );
    assert!(
        stale.is_empty(),
        "{} path(s) named in the docs do not exist:\n{}",
        stale.len(),
        stale.join("\n")
    );
}

#[test]
fn the_scan_finds_paths_where_the_docs_write_them() {
    let tops = vec!["hooks".to_owned(), "src".to_owned(), "target".to_owned()];
    let bases = vec![repo().join("hooks/src"), repo().join("src")];
    // A missing path is judged and found missing; a real one exists.
    assert_eq!(judge("hooks/src/spawn/mod.rs", &tops, &bases), Some(false));
    assert_eq!(judge("hooks/src/lib.rs", &tops, &bases), Some(true));
    assert_eq!(judge("src/cli/", &tops, &bases), Some(true));
    // Relative to a crate's `src/`.
    assert_eq!(judge("action/append/log.rs", &tops, &bases), Some(true));
    assert_eq!(judge("exec/run.rs", &tops, &bases), Some(false));
    // Placeholders cut the path; what a build makes, URLs and words that
    // are no path are not judged.
    assert_eq!(judge("hooks/src/$F.rs", &tops, &bases), Some(true));
    assert_eq!(judge("target/release/io", &tops, &bases), None);
    assert_eq!(judge("https://example.com/src/x.rs", &tops, &bases), None);
    assert_eq!(judge("and/or", &tops, &bases), None);
    // Words: a sentence's full stop and a line number are not the path's.
    assert_eq!(
        words("see `hooks/src/lib.rs:12` and tests/docs.rs."),
        ["hooks/src/lib.rs", "tests/docs.rs"]
    );
    // A console block's output is not judged, its commands are.
    let text = "```console\n$ io replay examples/x.jsonl\nsrc/greet.rs holds greet()\n```\n";
    assert_eq!(judged_lines(text), [(2, "io replay examples/x.jsonl")]);
}
