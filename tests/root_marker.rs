//! A marker the project ships never silently takes the place of the
//! operator's hooks higher up (issue 44 item 3): a committed, empty
//! `src/io.toml` made a run started in `src/` take `src/` as its root, so
//! the top's `io.local.toml`, a `cancel` policy among its hooks, was not in
//! force, and with `-q` nothing said so. Now the search refuses, in one
//! line on stderr (`-q` too), naming both roots and the `--root` for each.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::output_within;

/// The operator's policy check: a `run` hook on every tool call that
/// fails, with `cancel`, so that a run under it ends cancelled (exit 3).
const POLICY: &str = "[[hook]]\non = [\"tool_call\"]\nrun = [\"false\"]\non_failure = \"cancel\"\n";

/// Two steps: a file written, then the answer.
const SCRIPT: &str = "goal = \"g\"\n\
    [[turn]]\ncalls = [{ tool = \"write_file\", args = { path = \"a.txt\", content = \"a\" } }]\n\
    [[turn]]\nanswer = \"done\"\n";

/// A temp dir with an empty user scope, data and home directories, and a
/// project `top` (named `name`) holding the operator's `io.local.toml`
/// (`POLICY`) and the script, with a `src/` under it.
struct Project {
    dir: tempfile::TempDir,
    top: PathBuf,
}

impl Project {
    fn new(name: &str) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        for sub in ["user", "data", "home"] {
            std::fs::create_dir(dir.path().join(sub)).expect("dir");
        }
        let top = dir.path().join(name);
        std::fs::create_dir_all(top.join("src")).expect("src");
        // The operator's checkout, in which `io.local.toml` is untracked.
        common::work_tree(&top);
        std::fs::write(top.join("io.local.toml"), POLICY).expect("io.local.toml");
        std::fs::write(top.join("script.toml"), SCRIPT).expect("script");
        Project { dir, top }
    }

    fn src(&self) -> PathBuf {
        self.top.join("src")
    }

    /// `program args…` in `cwd`, with the test's user scope, data and
    /// home directories and `PATH` led by the real `io`'s directory.
    fn command(&self, program: &str, cwd: &Path) -> Command {
        let mut command = Command::new(program);
        let bin = Path::new(env!("CARGO_BIN_EXE_io")).parent().expect("a dir");
        command
            .current_dir(cwd)
            .env("IO_CONFIG_HOME", self.dir.path().join("user"))
            .env("IO_DATA_HOME", self.dir.path().join("data"))
            .env("HOME", self.dir.path().join("home"))
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// The real `io` with `args`, in `cwd`.
    fn io(&self, cwd: &Path, args: &[&str]) -> Output {
        let mut command = self.command(env!("CARGO_BIN_EXE_io"), cwd);
        command.args(args);
        output_within(
            command.spawn().expect("io runs"),
            Duration::from_secs(120),
            &format!("io {args:?}"),
        )
    }

    /// `line` pasted into `/bin/sh -c`, in `cwd`.
    fn pasted(&self, cwd: &Path, line: &str) -> Output {
        let mut command = self.command("/bin/sh", cwd);
        command.arg("-c").arg(line);
        output_within(
            command.spawn().expect("sh runs"),
            Duration::from_secs(120),
            line,
        )
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What `io` says refusing `root` (found `why`) below `above`, whose
/// `io.local.toml` declares hooks; `flag` quotes a directory as `--root`.
fn refusal(root: &Path, why: &str, above: &Path, flag: &dyn Fn(&Path) -> String) -> String {
    format!(
        "io: not taking {} as the root ({why}): {} above it declares hooks that a run at {} \
         has in force and one at the root found would not, and a marker nearer the working \
         directory does not turn them off without your word. Say which root you mean: `{}` \
         runs with them, `{}` without them\n",
        root.display(),
        above.join("io.local.toml").display(),
        above.display(),
        flag(above),
        flag(root),
    )
}

/// `--root DIR` for a directory whose name needs no quoting.
fn plain(dir: &Path) -> String {
    format!("--root {}", dir.display())
}

#[test]
fn a_committed_empty_io_toml_below_the_operators_hooks_is_refused_even_with_q() {
    let project = Project::new("top");
    std::fs::write(project.src().join("io.toml"), "").expect("src/io.toml");
    let said = refusal(
        &project.src(),
        "the working directory, which holds `io.toml`",
        &project.top,
        &plain,
    );
    for args in [
        &["-q", "run", "../script.toml"][..],
        &["run", "../script.toml"],
        &["check"],
        &["runs"],
        &["-q", "replay", "--dry-run", "../script.toml"],
    ] {
        let out = project.io(&project.src(), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        assert_eq!(text(&out.stderr), said, "{args:?}");
        assert_eq!(text(&out.stdout), "", "{args:?}");
    }
    // Nothing ran: no journal, no file written, at either root.
    for dir in [project.top.clone(), project.src()] {
        assert!(!dir.join(".io").exists() && !dir.join("a.txt").exists());
    }

    // Each `--root` the line names does what it says.
    let out = project.io(
        &project.src(),
        &["-q", "run", "../script.toml", "--root", ".."],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "the policy check cancels: {out:?}"
    );
    let out = project.io(
        &project.src(),
        &["-q", "run", "../script.toml", "--root", "."],
    );
    assert_eq!(out.status.code(), Some(0), "the operator's word: {out:?}");
}

#[test]
fn the_roots_in_the_refusal_are_quoted_to_paste() {
    let project = Project::new("my w$(touch${IFS}PWNED)");
    std::fs::write(project.src().join("io.toml"), "").expect("src/io.toml");
    let out = project.io(&project.src(), &["-q", "run", "../script.toml"]);
    let quoted = |dir: &Path| format!("--root '{}'", dir.display());
    assert_eq!(
        text(&out.stderr),
        refusal(
            &project.src(),
            "the working directory, which holds `io.toml`",
            &project.top,
            &quoted
        )
    );
    // The first `--root` pasted after the command runs under the policy.
    let stderr = text(&out.stderr);
    let flag = stderr
        .split('`')
        .find(|part| part.starts_with("--root "))
        .expect("a --root");
    let run = project.pasted(&project.src(), &format!("io -q run ../script.toml {flag}"));
    assert_eq!(run.status.code(), Some(3), "{run:?}");
    assert!(!project.src().join("PWNED").exists() && !project.top.join("PWNED").exists());
}

#[test]
fn every_kind_of_nearer_marker_at_any_depth_is_refused() {
    // A submodule's `.git`, a committed `io.local.toml` that declares no
    // hooks (git is not asked about one), and a marker below a marker.
    for (marker, cwd, root) in [
        ("src/.git", "src", "src"),
        ("src/io.local.toml", "src", "src"),
        ("src/io.toml", "src/sub", "src/sub"),
    ] {
        let project = Project::new("top");
        std::fs::create_dir_all(project.top.join("src/sub")).expect("sub");
        std::fs::write(project.top.join(marker), "").expect("marker");
        std::fs::write(project.top.join("src/sub/io.toml"), "").expect("sub/io.toml");
        let cwd = project.top.join(cwd);
        let out = project.io(&cwd, &["-q", "run", "../script.toml"]);
        assert_eq!(out.status.code(), Some(1), "{marker}: {out:?}");
        let first = text(&out.stderr);
        assert!(
            first.starts_with(&format!(
                "io: not taking {} as the root",
                project.top.join(root).display()
            )),
            "{marker}: {first}"
        );
        assert!(
            first.contains(&format!(
                "`--root {}` runs with them",
                project.top.display()
            )),
            "{marker}: {first}"
        );
    }
}

#[test]
fn an_outer_io_local_toml_that_does_not_load_is_refused_too() {
    let project = Project::new("top");
    std::fs::write(project.top.join("io.local.toml"), "[[hook]\n").expect("broken");
    std::fs::write(project.src().join("io.toml"), "").expect("src/io.toml");
    let out = project.io(&project.src(), &["check"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "io: not taking {} as the root (the working directory, which holds `io.toml`): {} \
             above it holds an `io.local.toml` that does not load, so which hooks a run there \
             has cannot be told ({}: ",
            project.src().display(),
            project.top.display(),
            project.top.join("io.local.toml").display()
        )),
        "{stderr}"
    );
    assert!(stderr.ends_with(&format!(
        "`--root {}` runs with them, `--root {}` without them\n",
        project.top.display(),
        project.src().display()
    )));
}

#[test]
fn the_operators_own_hooks_at_the_nearer_root_and_no_hooks_above_are_no_conflict() {
    // The operator's own `io.local.toml` with hooks at the nearer root is
    // their word: its hooks are in force, the top's are not, nothing asks.
    let project = Project::new("top");
    std::fs::write(
        project.src().join("io.local.toml"),
        "[[hook]]\nappend = \"audit.jsonl\"\n",
    )
    .expect("src/io.local.toml");
    let out = project.io(&project.src(), &["run", "../script.toml"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        text(&out.stderr),
        format!(
            "io: 1 hook(s) in force, from {} (local scope)\n",
            project.src().join("io.local.toml").display()
        )
    );
    assert!(project.src().join("audit.jsonl").is_file());

    // An `io.local.toml` above that declares no hooks has none to lose.
    let project = Project::new("top");
    std::fs::write(
        project.top.join("io.local.toml"),
        "[agent]\nmodel = \"x\"\n",
    )
    .expect("top");
    std::fs::write(project.src().join("io.toml"), "").expect("src/io.toml");
    let out = project.io(&project.src(), &["-q", "run", "../script.toml"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(text(&out.stderr), "");
    assert!(project.src().join(".io/runs").is_dir());
}
