//! Issue 44, deliverable 5, through `io`: `.io` is io's own state, out of
//! every hook's reach. A clone that commits `logs -> .io/runs` beside the
//! operator's `append = "logs/audit.jsonl"` made the hook write into the
//! journals' directory, and `io check` said ok. Now an `append` that
//! reaches `.io` (by its name in any case, through `..`, through a link or
//! a chain of links, before `.io` exists or after) is a problem `io check`
//! names, exiting 1, and a failure `io run` says at each event, with the
//! journals left byte for byte.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::run_io;

/// A clone (no `.io` yet) committing `logs -> .io/runs`, `state -> .io`
/// and `chain -> state`; a user scope and data and home directories of
/// the test's own.
struct Clone {
    tmp: tempfile::TempDir,
}

impl Clone {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        for dir in ["clone/a", "user", "data", "home"] {
            fs::create_dir_all(tmp.path().join(dir)).unwrap();
        }
        let root = tmp.path().join("clone");
        symlink(".io/runs", root.join("logs")).unwrap();
        symlink(".io", root.join("state")).unwrap();
        symlink("state", root.join("chain")).unwrap();
        fs::write(
            root.join("script.toml"),
            "goal = \"greet\"\n\n[[turn]]\nanswer = \"done\"\n",
        )
        .unwrap();
        Clone { tmp }
    }

    fn root(&self) -> PathBuf {
        self.tmp.path().join("clone")
    }

    /// The operator's user-scope file: one `append` hook per path.
    fn hooks(&self, appends: &[&str]) {
        let text: String = appends
            .iter()
            .map(|path| format!("[[hook]]\nappend = \"{path}\"\n\n"))
            .collect();
        fs::write(self.tmp.path().join("user/io.toml"), text).unwrap();
    }

    /// `io args…` in the clone, every directory it may write its own.
    fn io(&self, args: &[&str]) -> Output {
        let dir = |name: &str| self.tmp.path().join(name).into_os_string();
        let (data, home) = (dir("data"), dir("home"));
        let env: [(&str, &OsStr); 2] = [("IO_DATA_HOME", &data), ("HOME", &home)];
        run_io(&self.root(), &self.tmp.path().join("user"), args, &env)
    }

    /// The names in the clone's `.io/runs`, sorted.
    fn runs(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.root().join(".io/runs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

/// The refusal of `path` under `root`, through the link `link`.
fn through(root: &Path, path: &str, link: &str) -> String {
    format!(
        "`{}` is refused: it reaches `.io`, the program's own state, through the symbolic link \
         `{link}`, and that state is never reached through a link",
        root.join(path).display()
    )
}

#[test]
fn io_check_names_every_append_that_reaches_io_state_and_fails() {
    let clone = Clone::new();
    let root = clone.root();
    clone.hooks(&[
        "logs/audit.jsonl",
        ".io/x.jsonl",
        ".IO/runs/x.jsonl",
        "a/../.io/runs/y.jsonl",
        "chain/runs/z.jsonl",
        "a/fine.jsonl",
    ]);
    let out = clone.io(&["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let by_name = |path: &str| {
        format!(
            "`{}` is refused: it is in `.io`, the program's own state, which only the program \
             itself opens",
            root.join(path).display()
        )
    };
    for problem in [
        through(&root, "logs/audit.jsonl", "logs"),
        by_name(".io/x.jsonl"),
        by_name(".IO/runs/x.jsonl"),
        format!(
            "`{}` is refused: it reaches `.io`, the program's own state, through `..`, and that \
             state is reached by its own names alone",
            root.join("a/../.io/runs/y.jsonl").display()
        ),
        through(&root, "chain/runs/z.jsonl", "chain"),
    ] {
        let line = format!("    problem: append: {problem}\n");
        assert!(stdout.contains(&line), "{line}\nin\n{stdout}");
    }
    assert!(
        stdout.contains(
            "      hint: an append hook never writes `.io`, which holds the program's own state; \
             name a file outside it, by a path that does not go through the symbolic link `logs`\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("FAILED: 5 hook(s) cannot work as written\n"),
        "{stdout}"
    );
    assert!(!root.join(".io").exists(), "io check made nothing");
}

/// A first run journals; a second, with the operator's hooks aimed at that
/// journal and at the journals' directory through the clone's link, says
/// each refusal before the run and at each event, and leaves the first
/// journal byte for byte and `.io/runs` holding journals only.
#[test]
fn io_run_never_appends_into_io_state_and_says_why() {
    let clone = Clone::new();
    let root = clone.root();
    let first = clone.io(&["run", "script.toml"]);
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let [journal] = <[String; 1]>::try_from(clone.runs()).expect("one journal");
    let before = fs::read(root.join(".io/runs").join(&journal)).unwrap();

    let aimed = format!("logs/{journal}");
    clone.hooks(&[&aimed, "logs/audit.jsonl", "state/notes.md"]);
    let out = clone.io(&["run", "script.toml"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for (n, path, link) in [
        (1, aimed.as_str(), "logs"),
        (2, "logs/audit.jsonl", "logs"),
        (3, "state/notes.md", "state"),
    ] {
        let refusal = through(&root, path, link);
        let problem = format!("io: hook[{n}]: append: {refusal}\n");
        assert!(stderr.contains(&problem), "{problem}\nin\n{stderr}");
        let failed = format!(
            "hook[{n}] FAILED: could not append to {}",
            refusal.replacen(" is refused:", ":", 1)
        );
        // Once at each event: each event's line of hooks says it.
        let events = stdout.matches("    hooks: ").count();
        assert!(events > 0, "{stdout}");
        assert_eq!(
            stdout.matches(&failed).count(),
            events,
            "{failed}\nin\n{stdout}"
        );
    }
    assert_eq!(
        fs::read(root.join(".io/runs").join(&journal)).unwrap(),
        before
    );
    let runs = clone.runs();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(
        runs.iter()
            .all(|name| name.starts_with("r-") && name.ends_with(".jsonl")),
        "{runs:?}"
    );
    let mut state: Vec<_> = fs::read_dir(root.join(".io"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    state.sort();
    assert_eq!(state, ["runs"], "nothing but the journals in .io");
}
