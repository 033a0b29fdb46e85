//! What building the hooks finds wrong, as data (`Hooks::problems`,
//! `Hooks::check`), and a serialisation failure as a hook failure.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::os::unix::fs::PermissionsExt;

use common::{Ev, Typed, append, run, said, typed};
use io_hooks::{Flow, HookFailure, Hooks};

fn kinds(hooks: &Hooks<Ev>) -> Vec<(usize, Typed)> {
    hooks
        .problems()
        .iter()
        .map(|p| (p.number(), typed(p)))
        .collect()
}

#[test]
fn each_program_that_cannot_run_is_one_problem_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("scripts")).unwrap();
    std::fs::write(root.join("scripts/x.sh"), "#!/bin/sh\n").unwrap(); // mode 0644
    common::script(root, "myhook", "exit 0");
    let specs = vec![
        run(&["notify-sendx-no-such"], 5000, &[], Flow::Continue),
        run(&["./scripts/x.sh"], 5000, &[], Flow::Continue),
        run(&["myhook"], 5000, &[], Flow::Continue),
        run(&["$HOME/bin/notify"], 5000, &[], Flow::Continue),
        run(&["./scripts"], 5000, &[], Flow::Continue),
        run(&["sh", "-c", "true"], 5000, &[], Flow::Continue),
    ];
    let hooks = Hooks::new(specs, root);
    let got = kinds(&hooks);
    assert_eq!(got[0], (1, said::not_in_path("notify-sendx-no-such")));
    assert_eq!(
        hooks.problems()[0].hint().as_deref(),
        Some(
            "install `notify-sendx-no-such`, or name it by its path \
             (`/usr/local/bin/notify-sendx-no-such`, `./scripts/notify-sendx-no-such`)"
        )
    );
    assert!(
        matches!(&got[1], (2, Typed::Run(text)) if text.starts_with("`./scripts/x.sh`: `") && text.ends_with("` is not executable")),
        "{got:?}"
    );
    assert_eq!(
        hooks.problems()[1].hint().unwrap(),
        format!(
            "make it executable: chmod +x {}",
            root.join("scripts/x.sh").display()
        )
    );
    assert_eq!(got[2], (3, said::not_in_path("myhook")));
    assert_eq!(
        hooks.problems()[2].hint().as_deref(),
        Some("to run the file in the hooks' root, write `./myhook`")
    );
    assert_eq!(got[3], (4, said::run_not_expanded("$HOME/bin/notify")));
    // Nothing else is said of a program no shell will expand: `root/$HOME`
    // is a path nobody meant.
    assert!(
        matches!(&got[4], (5, Typed::Run(text)) if text.starts_with("`./scripts`: `") && text.ends_with("` is a directory")),
        "{got:?}"
    );
    assert_eq!(got.len(), 5, "hook[6] can run: {got:?}");
    assert!(
        hooks.problems()[0]
            .to_string()
            .starts_with("hook[1]: `notify-sendx-no-such` is not an executable file in any absolute `PATH` entry (a bare name is looked up in `PATH` only"),
        "{}",
        hooks.problems()[0]
    );
}

/// A whole shell line in one element is named as one, with the array to
/// write instead; never "install `notify-send hello`". A line a shell must
/// read (a pipe) is shown run through `sh -c`, and a program whose name
/// holds a space and exists runs as it is.
#[test]
fn a_shell_line_in_one_element_is_told_to_split_into_an_array() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    common::script(root, "my hook", "exit 0");
    let specs = vec![
        run(&["notify-send hello"], 5000, &[], Flow::Continue),
        run(
            &["notify-send  -u\tlow", "a \"b\""],
            5000,
            &[],
            Flow::Continue,
        ),
        run(&["jq . | tee log"], 5000, &[], Flow::Continue),
        run(&["./my hook"], 5000, &[], Flow::Continue),
    ];
    let hooks = Hooks::new(specs, root);
    let got = kinds(&hooks);
    let problems = hooks.problems();
    assert_eq!(problems[0].action(), "run");
    assert_eq!(
        problems[0].to_string(),
        "hook[1]: `run[1]` = `notify-send hello` looks like a shell line: a hook runs no \
         shell, so it would look for one program of that whole name, spaces included"
    );
    assert_eq!(
        problems[0].hint().as_deref(),
        Some(r#"split it into an array, one word per element: `run = ["notify-send", "hello"]`"#)
    );
    assert_eq!(
        problems[1].hint().as_deref(),
        Some(
            r#"split it into an array, one word per element: `run = ["notify-send", "-u", "low", "a \"b\""]`"#
        )
    );
    assert_eq!(
        problems[2].hint().as_deref(),
        Some(
            r#"it uses a shell's syntax, which only a shell reads: name the shell as the program, as in `run = ["sh", "-c", "jq . | tee log"]`"#
        )
    );
    assert_eq!(got.len(), 3, "`./my hook` exists and runs: {got:?}");
    for problem in problems {
        let hint = problem.hint().unwrap_or_default();
        assert!(!hint.contains("install"), "{hint}");
    }
}

/// The line comes from a config file: its message escapes a control or
/// bidirectional character (and cuts it at 80 characters), and the array
/// the hint offers writes it as a TOML escape, so that pasted back it is the
/// same bytes and shown it moves no cursor.
#[test]
fn a_shell_line_with_control_characters_is_escaped_in_message_and_hint() {
    let dir = tempfile::tempdir().unwrap();
    let line = "notify-send \u{1b}\u{202e}x";
    let hooks = Hooks::new(vec![run(&[line], 5000, &[], Flow::Continue)], dir.path());
    let problem = &hooks.problems()[0];
    let message = problem.to_string();
    assert!(
        message.contains("`notify-send \\x1b\\u{202e}x` looks like a shell line"),
        "{message}"
    );
    assert_eq!(
        problem.hint().as_deref(),
        Some(
            r#"split it into an array, one word per element: `run = ["notify-send", "\U0000001B\U0000202Ex"]`"#
        )
    );
    let long = format!("notify-send {}", "x".repeat(200));
    let hooks = Hooks::new(vec![run(&[&long], 5000, &[], Flow::Continue)], dir.path());
    assert!(hooks.problems()[0].to_string().contains("xxx…` looks like"));
}

/// `append = "$HOME/x"` in a file whose root the embedder gave as `.` (or
/// `""`, or a relative directory) is shown as the operator wrote it, with
/// no `./` or root in front.
#[test]
fn an_unexpanded_append_path_is_shown_as_written_whatever_the_roots_spelling() {
    let text = "[[hook]]\nappend = \"$HOME/x\"\n";
    for root in [".", "", "./sub/..", "sub"] {
        let root = std::path::Path::new(root);
        let specs = io_hooks::TomlFile::new("app.toml", text)
            .hooks::<Ev>(root)
            .expect("the table is valid");
        let problems = Hooks::check(&specs, root);
        assert_eq!(
            typed(&problems[0]),
            said::append_not_expanded("$HOME/x"),
            "root {root:?}"
        );
        assert_eq!(
            problems[0].to_string(),
            "app.toml: hook[1]: `append` = `$HOME/x`: the `~` or `$` is taken literally, \
             because there is no shell",
            "root {root:?}"
        );
    }
}

#[test]
fn each_append_path_that_cannot_work_is_one_problem_and_check_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("logs")).unwrap();
    std::os::unix::fs::symlink(root.join("elsewhere"), root.join("link.jsonl")).unwrap();
    let specs = vec![
        append(&root.join("~/audit.jsonl"), &[], Flow::Continue),
        append(&root.join("logs"), &[], Flow::Continue),
        append(&root.join("nope/audit.jsonl"), &[], Flow::Continue),
        append(&root.join("link.jsonl"), &[], Flow::Continue),
        append(&root.join("fine.jsonl"), &[], Flow::Continue),
    ];
    let checked = Hooks::check(&specs, root);
    assert!(!root.join("fine.jsonl").exists(), "check creates no file");
    let hooks = Hooks::new(specs, root);
    assert_eq!(
        hooks.problems(),
        checked.as_slice(),
        "one source of problems"
    );
    assert!(root.join("fine.jsonl").exists(), "new creates the good one");
    let got = kinds(&hooks);
    assert_eq!(got[0], (1, said::append_not_expanded("~/audit.jsonl")));
    // Nothing else is said of a path no shell will expand: `mkdir -p
    // root/~` would fix nothing anyone meant.
    assert_eq!(got[1], (2, said::is_directory(&root.join("logs"))));
    assert_eq!(
        got[2],
        (
            3,
            said::no_parent(&root.join("nope/audit.jsonl"), &root.join("nope"))
        )
    );
    assert_eq!(got[3], (4, said::is_symlink(&root.join("link.jsonl"))));
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(
        !root.join("elsewhere").exists(),
        "the link was not followed"
    );
    assert!(!root.join("~").exists() && !root.join("nope").exists());
}

/// A FIFO where an append log should be is not a regular file: `check`
/// says so (it never tries to open it), and building the hooks reports the
/// same one problem rather than a failed open.
#[test]
fn a_fifo_at_an_append_path_is_a_not_regular_problem() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fifo = root.join("audit.jsonl");
    common::mkfifo(&fifo);
    let specs = vec![append(&fifo, &[], Flow::Continue)];
    let checked = Hooks::check(&specs, root);
    let hooks = Hooks::new(specs, root);
    assert_eq!(hooks.problems(), checked.as_slice());
    let got = kinds(&hooks);
    assert_eq!(got, [(1, said::not_regular(&fifo))]);
}

/// A path outside the hooks' root is checked as written, and finds what
/// one beneath the root finds: a directory, a symbolic link (not followed),
/// a FIFO (not opened), a directory that does not exist. A file that is
/// there, or is not yet, is fine; `check` creates nothing.
#[test]
fn an_append_path_outside_the_root_is_checked_as_written() {
    let root = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let out = elsewhere.path();
    std::fs::create_dir(out.join("logs")).unwrap();
    std::os::unix::fs::symlink(out.join("target"), out.join("link.jsonl")).unwrap();
    common::mkfifo(&out.join("fifo.jsonl"));
    std::fs::write(out.join("there.jsonl"), "").unwrap();
    let specs: Vec<_> = [
        "logs",
        "link.jsonl",
        "fifo.jsonl",
        "nope/audit.jsonl",
        "there.jsonl",
        "new.jsonl",
    ]
    .iter()
    .map(|name| append(&out.join(name), &[], Flow::Continue))
    .collect();
    let checked: Vec<_> = Hooks::check(&specs, root.path())
        .into_iter()
        .map(|p| (p.number(), typed(&p)))
        .collect();
    assert_eq!(
        checked,
        [
            (1, said::is_directory(&out.join("logs"))),
            (2, said::is_symlink(&out.join("link.jsonl"))),
            (3, said::not_regular(&out.join("fifo.jsonl"))),
            (
                4,
                said::no_parent(&out.join("nope/audit.jsonl"), &out.join("nope"))
            ),
        ]
    );
    assert!(!out.join("target").exists(), "the link was not followed");
    assert!(!out.join("new.jsonl").exists(), "check creates no file");
}

/// An event whose `Serialize` fails, as a map with a non-string key does.
#[derive(serde::Serialize)]
struct Unserialisable {
    map: std::collections::BTreeMap<(u8, u8), u8>,
}

#[test]
fn a_serialisation_failure_fails_the_hook_naming_the_tag_and_serdes_reason() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("a.jsonl");
    let hooks = Hooks::new(vec![append(&log, &["step"], Flow::Cancel)], dir.path());
    let bad = Unserialisable {
        map: [((1, 2), 3)].into_iter().collect(),
    };
    let mut failures = Vec::new();
    let flow = hooks.fire_with(&common::step(1), &bad, |run| {
        failures.push(run.result.map_err(ToString::to_string));
    });
    assert_eq!(flow, Flow::Cancel, "on_failure = cancel applies");
    assert_eq!(
        failures,
        [Err(
            "could not serialise the `step` event as JSON: key must be a string".to_owned()
        )]
    );
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "");
    let mut kinds = Vec::new();
    let again = hooks.fire_with(&common::step(2), &bad, |run| {
        kinds.push(matches!(
            run.result,
            Err(HookFailure::Serialize { event: "step", .. })
        ));
    });
    assert_eq!(again, Flow::Cancel);
    assert_eq!(kinds, [true]);
}

#[test]
fn an_executable_program_in_root_is_no_problem() {
    let dir = tempfile::tempdir().unwrap();
    let script = common::script(dir.path(), "ok.sh", "exit 0");
    let mode = std::fs::metadata(&script).unwrap().permissions().mode();
    assert_ne!(mode & 0o111, 0);
    let hooks = Hooks::new(
        vec![run(&["./ok.sh"], 5000, &[], Flow::Continue)],
        dir.path(),
    );
    assert!(hooks.problems().is_empty(), "{:?}", hooks.problems());
}

/// The root is given when the file is read and when the hooks are built;
/// two different roots are a problem of each hook whose `append` path was
/// resolved against the first, and nothing is created for it. The same
/// root spelt two ways (`""` and `.`, or absolute) is one root.
#[test]
fn an_append_path_read_with_another_root_than_the_hooks_is_a_problem() {
    let read = tempfile::tempdir().expect("a directory");
    let built = tempfile::tempdir().expect("a directory");
    let elsewhere = tempfile::tempdir().expect("a directory");
    let abs = elsewhere.path().join("b.jsonl");
    let text = format!(
        "[[hook]]\nappend = \"a.jsonl\"\n[[hook]]\nappend = \"{}\"\n",
        abs.display()
    );
    let specs = io_hooks::TomlFile::new("app.toml", &text)
        .hooks::<Ev>(read.path())
        .expect("the table is valid");

    let hooks = Hooks::new(specs.clone(), built.path());
    let problems = hooks.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].index, 0, "an absolute path is no root's");
    assert_eq!(
        typed(&problems[0]),
        said::other_root(&read.path().join("a.jsonl"), read.path(), built.path())
    );
    assert_eq!(
        problems[0].to_string(),
        format!(
            "app.toml: hook[1]: append: `{}` was resolved against `{}` when its file was read, and the \
             hooks' root is `{}`",
            read.path().join("a.jsonl").display(),
            read.path().display(),
            built.path().display()
        )
    );
    assert_eq!(
        problems[0].hint().as_deref(),
        Some("read the file and build the hooks with the same root")
    );
    assert!(!read.path().join("a.jsonl").exists(), "nothing is created");
    assert!(!built.path().join("a.jsonl").exists());
    assert_eq!(Hooks::check(&specs, built.path()), problems);

    // The same root: no problem, and the file is created.
    let hooks = Hooks::new(specs, read.path());
    assert!(hooks.problems().is_empty(), "{:?}", hooks.problems());
    assert!(read.path().join("a.jsonl").exists());

    // The working directory spelt `""`, `.` or absolute is one root.
    let text = "[[hook]]\nappend = \"$HOME/x\"\n";
    let cwd = std::env::current_dir().expect("a working directory");
    for (read_with, built_with) in [("", "."), (".", ""), ("", cwd.to_str().expect("UTF-8"))] {
        let specs = io_hooks::TomlFile::new("app.toml", text)
            .hooks::<Ev>(std::path::Path::new(read_with))
            .expect("the table is valid");
        let problems = Hooks::check(&specs, std::path::Path::new(built_with));
        assert!(
            matches!(
                problems.iter().map(typed).collect::<Vec<_>>()[..],
                [Typed::Append(ref text)] if text.starts_with("`append` = `")
                    && text.ends_with("$HOME/x`: the `~` or `$` is taken literally, because there is no shell")
            ),
            "{read_with:?} then {built_with:?}: {problems:?}"
        );
    }
}
