//! The operator's documents: `docs/events.md` is what `io events --markdown`
//! generates, nothing links outside the repository, the README keeps its two
//! commands first, `docs/hooks.md` quotes the program's own refusal, and
//! every test the threat model, the decisions and ROBUSTNESS.md name
//! exists.

use std::fs;
use std::path::{Path, PathBuf};

const REGENERATE: &str = "cargo run -q --bin io -- events --markdown > docs/events.md";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md, every other top-level Markdown file, and everything in docs/.
fn documents() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(repo())
        .expect("the repository")
        .chain(fs::read_dir(repo().join("docs")).expect("docs/"))
        .map(|entry| entry.expect("an entry").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
}

#[test]
fn docs_events_md_is_what_io_events_markdown_generates() {
    let checked_in = read(&repo().join("docs/events.md"));
    let generated = io_harness::schema::events_markdown();
    if checked_in != generated {
        let first = checked_in
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or(
                checked_in.lines().count().min(generated.lines().count()),
                |n| n,
            );
        panic!(
            "docs/events.md is stale (first difference at line {}); regenerate it with:\n  {REGENERATE}",
            first + 1
        );
    }
    // The stale check compares against something real: all 27 events.
    for tag in <io_harness::EventKind as io_harness::HookEvents>::TAGS {
        assert!(checked_in.contains(&format!("\n### `{tag}`\n")), "{tag}");
    }
    assert!(checked_in.contains(REGENERATE));
}

#[test]
fn nothing_refers_to_the_shared_folder_outside_the_repository() {
    let documents = documents();
    assert!(documents.iter().any(|p| p.ends_with("README.md")));
    assert!(documents.iter().any(|p| p.ends_with("docs/hooks.md")));
    for path in documents {
        let text = read(&path);
        assert!(
            !text.contains("../shared"),
            "{} mentions ../shared, which a clone does not have",
            path.display()
        );
    }
}

#[test]
fn every_relative_link_leads_to_a_file_in_the_repository() {
    let root = fs::canonicalize(repo()).expect("the repository");
    let mut checked = 0;
    for path in documents() {
        let text = read(&path);
        let dir = path.parent().expect("a directory");
        // `](target)`: Markdown's inline links.
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let file = target.split('#').next().unwrap_or(target);
            let resolved = fs::canonicalize(dir.join(file)).unwrap_or_else(|e| {
                panic!("{}: link `{target}` leads nowhere: {e}", path.display())
            });
            assert!(
                resolved.starts_with(&root),
                "{}: link `{target}` leads outside the repository",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} links found");
}

#[test]
fn the_readme_opens_with_its_two_commands() {
    let readme = read(&repo().join("README.md"));
    let mut lines = readme.lines().filter(|l| !l.trim().is_empty());
    assert!(lines.next().is_some_and(|l| l.starts_with("# ")));
    assert_eq!(lines.next(), Some("```sh"));
    let first = lines.next().unwrap_or_default();
    let second = lines.next().unwrap_or_default();
    assert!(
        first.starts_with("cargo run -q --locked --bin io -- demo "),
        "{first}"
    );
    assert!(second.starts_with("cargo test --workspace "), "{second}");
    assert!(second.contains("# every test"), "{second}");
    assert_eq!(lines.next(), Some("```"));

    // Both work on a machine that has only rustup's toolchain: no cargo
    // subcommand that rustup does not ship (nextest, mutants, fuzz, ...).
    let shipped = ["build", "check", "clippy", "doc", "fmt", "run", "test"];
    for command in [first, second] {
        let command = command.split('#').next().unwrap_or_default();
        let words: Vec<&str> = command.split_whitespace().collect();
        for pair in words.windows(2) {
            if pair[0] == "cargo" {
                assert!(
                    shipped.contains(&pair[1]),
                    "`cargo {}` is not shipped by rustup: {command}",
                    pair[1]
                );
            }
        }
    }
    // And CI runs the suite's command verbatim.
    let test_command = second.split('#').next().unwrap_or_default().trim_end();
    let ci = read(&repo().join(".ci/run"));
    assert!(
        ci.lines().any(|l| l.trim_end().ends_with(test_command)),
        ".ci/run does not run `{test_command}`"
    );
}

#[test]
fn docs_hooks_md_quotes_the_refusal_the_program_prints() {
    let guide = read(&repo().join("docs/hooks.md"));
    let err = io_harness::Config::from_toml("[[hook]]\nappend = \"audit.jsonl\"\n")
        .expect_err("a project file may not declare a hook");
    let printed = err.to_string();
    assert!(
        guide.contains(&format!("```\n{printed}\n```")),
        "docs/hooks.md does not quote:\n{printed}"
    );
    // And it links what a hook receives.
    assert!(guide.contains("](events.md)"));
}

/// Every `.rs` file of the workspace, outside `target/`.
fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            if !path.ends_with("target") && !path.ends_with(".git") {
                sources(&path, found);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The names in backquotes in the last cell of each row of the tables of
/// `text` whose last column is headed `test` (any case): the tests a
/// promise or a decision names.
fn named_tests(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_test_table = false;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(row) = line.strip_prefix('|') else {
            in_test_table = false;
            continue;
        };
        let cells: Vec<&str> = row.trim_end().trim_end_matches('|').split('|').collect();
        let last = cells.last().map_or("", |c| c.trim());
        if lines.peek().is_some_and(|next| next.starts_with("| ---")) {
            in_test_table = last.eq_ignore_ascii_case("test");
            continue;
        }
        if !in_test_table || line.starts_with("| ---") {
            continue;
        }
        for quoted in last.split('`').skip(1).step_by(2) {
            let name = quoted.rsplit("::").next().unwrap_or(quoted);
            // A test's name: lower case, digits and at least two `_`.
            if name.matches('_').count() >= 2
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            {
                names.push(name.to_owned());
            }
        }
    }
    names
}

#[test]
fn every_test_the_threat_model_the_decisions_and_robustness_name_exists() {
    let mut files = Vec::new();
    sources(repo(), &mut files);
    let code: String = files.iter().map(|f| read(f)).collect();
    for doc in ["docs/threat-model.md", "docs/decisions.md", "ROBUSTNESS.md"] {
        let names = named_tests(&read(&repo().join(doc)));
        assert!(names.len() > 40, "{doc}: only {} tests found", names.len());
        let missing: Vec<&String> = names
            .iter()
            .filter(|name| !code.contains(&format!("fn {name}(")))
            .collect();
        assert!(
            missing.is_empty(),
            "{doc} names tests that do not exist: {missing:?}"
        );
    }
}

/// The most lines README.md may have: what this is, the two commands, the
/// operator's tour and links (issue 43, "docs that are today's truth").
const README_LINES: usize = 250;

#[test]
fn the_readme_is_at_most_250_lines() {
    let lines = read(&repo().join("README.md")).lines().count();
    assert!(
        lines <= README_LINES,
        "README.md has {lines} lines, more than {README_LINES}: move the detail to docs/"
    );
}
