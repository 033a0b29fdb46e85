//! No hook silently off (issue 33): `io` finds the project's top from
//! anywhere inside it, every `io run`, `io run --resume` and `io replay`
//! says which hooks are in force before the first event, and a run whose
//! `cancel` hook cannot run is not started.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::os::unix::fs::PermissionsExt;

use common::io_env::{code, stderr, stdout};
use common::{IoEnv, run_io};

/// A script of one turn that writes `written.txt`, then answers.
const SCRIPT: &str = "goal = \"write a file\"\n\n[[turn]]\nsay = \"writing\"\ncalls = [{ tool = \"write_file\", args = { path = \"written.txt\", content = \"hi\\n\" } }]\n\n[[turn]]\nanswer = \"done\"\n";

/// The hooks-in-force line: the first line of stderr.
fn in_force(out: &std::process::Output) -> String {
    stderr(out).lines().next().unwrap_or_default().to_owned()
}

#[test]
fn io_run_from_a_subdirectory_has_the_projects_hooks_and_keeps_io_at_the_top() {
    let env = IoEnv::new();
    env.write("io.local.toml", "[[hook]]\nappend = \"audit.jsonl\"\n");
    env.write("script.toml", SCRIPT);
    let src = env.root().join("src");
    std::fs::create_dir(&src).expect("src");
    let out = run_io(&src, &env.user(), &["run", "../script.toml"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The hooks of the top's io.local.toml ran, and the run acted there.
    let audit = std::fs::read_to_string(env.root().join("audit.jsonl")).expect("audit log");
    assert!(audit.lines().count() > 3, "{audit}");
    assert!(env.root().join("written.txt").is_file());
    assert!(env.root().join(".io/runs").is_dir());
    assert!(!src.join(".io").exists() && !src.join("audit.jsonl").exists());
    assert!(!src.join("written.txt").exists());
}

#[test]
fn io_check_prints_the_root_it_chose_and_why() {
    let env = IoEnv::new();
    env.write("io.local.toml", "[[hook]]\nappend = \"audit.jsonl\"\n");
    let deep = env.root().join("src/a/b");
    std::fs::create_dir_all(&deep).expect("deep");
    let root = env.root();

    let out = run_io(&deep, &env.user(), &["check"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).lines().next(),
        Some(
            format!(
                "root: {} (it holds `io.local.toml`; found from the working directory, {})",
                root.display(),
                deep.display()
            )
            .as_str()
        )
    );
    assert!(stdout(&out).contains("hook[1]  on every event: append to audit.jsonl"));

    let out = run_io(&root, &env.user(), &["check"], &[]);
    assert_eq!(
        stdout(&out).lines().next(),
        Some(
            format!(
                "root: {} (the working directory, which holds `io.local.toml`)",
                root.display()
            )
            .as_str()
        )
    );

    // `--root` wins over the search.
    let out = run_io(&deep, &env.user(), &["check", "--root", "."], &[]);
    assert_eq!(
        stdout(&out).lines().next(),
        Some("root: . (given with --root)")
    );
    assert!(stdout(&out).contains("no hooks declared"));
}

#[test]
fn a_git_directory_marks_the_top_too_and_the_nearest_marker_wins() {
    // The root is a checkout: its `.git` is there already.
    let env = IoEnv::new();
    assert!(env.root().join(".git").is_dir());
    let inner = env.root().join("crates/inner");
    std::fs::create_dir_all(inner.join("src")).expect("inner");
    // The nearest marker wins: an io.toml in a sub-project makes it the top.
    std::fs::write(inner.join("io.toml"), "").expect("io.toml");

    let out = run_io(&env.root().join("crates"), &env.user(), &["check"], &[]);
    let first = stdout(&out).lines().next().unwrap_or_default().to_owned();
    assert!(
        first.starts_with(&format!("root: {} (it holds `.git`;", env.root().display())),
        "{first}"
    );

    let out = run_io(&inner.join("src"), &env.user(), &["check"], &[]);
    let first = stdout(&out).lines().next().unwrap_or_default().to_owned();
    assert!(
        first.starts_with(&format!("root: {} (it holds `io.toml`;", inner.display())),
        "{first}"
    );
}

#[test]
fn the_search_never_takes_a_file_from_a_directory_others_may_write() {
    // A shared directory (mode 0777, as /tmp is) holding an io.local.toml
    // someone else could have put there: the search from below it stops
    // there, and the working directory stays the root.
    let env = IoEnv::new();
    let shared = env.root().join("shared");
    let below = shared.join("mine");
    std::fs::create_dir_all(&below).expect("dirs");
    std::fs::write(shared.join("io.local.toml"), "[[hook]]\nrun = [\"true\"]\n").expect("plant");
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).expect("chmod");

    let out = run_io(&below, &env.user(), &["check"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let first = stdout(&out).lines().next().unwrap_or_default().to_owned();
    assert_eq!(
        first,
        format!(
            "root: {} (the working directory; no `io.local.toml`, `io.toml` or `.git` in it or above it; the search stopped below {}, which anyone may write)",
            below.display(),
            shared.display()
        )
    );
    assert!(
        stdout(&out).contains("no hooks declared"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn every_run_resume_and_replay_says_which_hooks_are_in_force() {
    let env = IoEnv::new();
    let local = env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\nrun = [\"true\"]\non_failure = \"cancel\"\n\n[[hook]]\nappend = \"audit.jsonl\"\n",
    );
    std::fs::write(
        env.user().join("io.toml"),
        "[[hook]]\nappend = \"/dev/null\"\n",
    )
    .expect("user scope");
    env.write("script.toml", SCRIPT);
    let said = format!(
        "io: 2 hook(s) in force, from {} (local scope); user scope: 1 hook(s), replaced by io.local.toml",
        local.display()
    );

    let out = env.io(&["run", "script.toml"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(in_force(&out), said);
    // Before the first event: the line is stderr's first, the run's
    // progress follows on stdout.
    assert!(stdout(&out).contains("started"), "{}", stdout(&out));

    let out = env.io(&["replay", "audit.jsonl", "--dry-run"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(in_force(&out), said);

    // A resume too: a run cancelled by the policy hook, then resumed.
    std::fs::write(
        &local,
        "[[hook]]\non = [\"tool_call\"]\nrun = [\"false\"]\non_failure = \"cancel\"\n",
    )
    .expect("cancelling hook");
    let out = env.io(&["run", "script.toml"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let run_id = stdout(&out)
        .lines()
        .find_map(|l| l.strip_prefix("run "))
        .and_then(|l| l.split_whitespace().next())
        .expect("run id")
        .to_owned();
    std::fs::write(&local, "[[hook]]\nappend = \"audit.jsonl\"\n").expect("no check");
    let out = env.io(&["run", "--resume", &run_id]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        in_force(&out),
        format!(
            "io: 1 hook(s) in force, from {} (local scope); user scope: 1 hook(s), replaced by io.local.toml",
            local.display()
        )
    );

    // -q silences it, and only it.
    let out = env.io(&["-q", "replay", "audit.jsonl", "--dry-run"]);
    assert_eq!(code(&out), 0);
    assert_eq!(stderr(&out), "");
}

#[test]
fn no_hooks_in_force_is_said_with_the_reason() {
    let env = IoEnv::new();
    env.write(
        "events.jsonl",
        "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r-1\",\"depth\":0}\n",
    );
    let out = env.io(&["replay", "events.jsonl"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        in_force(&out),
        format!(
            "io: no hooks in force: no config file found (looked for `io.local.toml` and `io.toml` in {}, and the user scope's)",
            env.root().display()
        )
    );

    // A file that declares no `hook`.
    let project = env.write("io.toml", "[toolchain]\nargv = [\"cargo\"]\n");
    let out = env.io(&["replay", "events.jsonl"]);
    assert_eq!(
        in_force(&out),
        format!(
            "io: no hooks in force: no file read declares `hook` ({})",
            project.display()
        )
    );

    // `hook = []` replaces the user scope's hooks with none, and says so.
    std::fs::write(
        env.user().join("io.toml"),
        "[[hook]]\nappend = \"/dev/null\"\n\n[[hook]]\nrun = [\"true\"]\n",
    )
    .expect("user scope");
    let local = env.write("io.local.toml", "hook = []\n");
    let out = env.io(&["replay", "events.jsonl"]);
    assert_eq!(
        in_force(&out),
        format!(
            "io: no hooks in force: {} (local scope) declares `hook` empty; user scope: 2 hook(s), replaced by io.local.toml",
            local.display()
        )
    );
}

#[test]
fn a_run_whose_cancel_hook_cannot_run_is_not_started() {
    let env = IoEnv::new();
    env.write(
        "io.local.toml",
        "[[hook]]\nappend = \"audit.jsonl\"\n\n[[hook]]\non = [\"tool_call\"]\nrun = [\"./scripts/check-tool-call\"]\non_failure = \"cancel\"\n",
    );
    env.write("script.toml", SCRIPT);
    let out = env.io(&["run", "script.toml"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "io: hook[2]: `./scripts/check-tool-call`: there is no `{}/scripts/check-tool-call`",
            env.root().display()
        )),
        "{err}"
    );
    assert!(
        err.ends_with(
            "io: the run was not started: hook[2] has `on_failure = \"cancel\"` and cannot run as written (the problem is above), so the first event it is given would cancel the run, after that step's tools had run; fix it (`io check` shows it), or set `on_failure = \"continue\"` to run without the check\n"
        ),
        "{err}"
    );
    // Nothing ran: no tool wrote, no journal, and no hook was installed, so
    // the `append` hook's file was not made (its being there would say the
    // hook had been).
    assert!(!env.root().join("audit.jsonl").exists());
    assert!(!env.root().join("written.txt").exists());
    assert!(!env.root().join(".io").exists());
    assert_eq!(stdout(&out), "");

    // The same hook with `continue` is warned about, and the run goes on.
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"tool_call\"]\nrun = [\"./scripts/check-tool-call\"]\n",
    );
    let out = env.io(&["run", "script.toml"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("io: hook[1]: `./scripts/check-tool-call`: there is no"));
    assert!(env.root().join("written.txt").is_file());
}

/// Issue 45: what the search for config files passed over is said on the
/// hooks-in-force line, at every start, `-q` included: a root search that
/// stopped below a directory anyone may write (so the project's
/// `io.local.toml`, and its policy, were not read), and a relative
/// `IO_CONFIG_HOME`, which is not used.
#[test]
fn what_the_search_passed_over_is_said_at_every_start_quiet_or_not() {
    let env = IoEnv::new();
    env.write("io.local.toml", "[[hook]]\nappend = \"audit.jsonl\"\n");
    env.write(
        "events.jsonl",
        "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r-1\",\"depth\":0}\n",
    );
    let shared = env.root().join("shared");
    let cache = shared.join("cache");
    std::fs::create_dir_all(&cache).expect("shared/cache");
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let stopped = format!(
        "io: no hooks in force: no config file found (looked for `io.local.toml` and `io.toml` \
         in {}, and the user scope's); the root search stopped below {}, which anyone may \
         write, so no `io.local.toml` at or above it was read (name the root with --root to \
         read one)",
        cache.display(),
        shared.display()
    );
    for args in [
        &["replay", "../../events.jsonl"][..],
        &["-q", "replay", "../../events.jsonl"],
        &["-q", "run", "../../script.toml"],
    ] {
        if args.contains(&"run") {
            env.write("script.toml", SCRIPT);
        }
        let out = run_io(&cache, &env.user(), args, &[]);
        assert_eq!(code(&out), 0, "io {args:?}: {}", stderr(&out));
        assert_eq!(in_force(&out), stopped, "io {args:?}");
    }
    assert!(
        !env.root().join("audit.jsonl").exists(),
        "the project's hooks were not read"
    );

    // A relative IO_CONFIG_HOME is passed over (HOME is the test's own, so
    // the lookup that goes on finds nothing of the machine's).
    let home = env.user().join("home");
    let vars = [
        ("IO_CONFIG_HOME", std::ffi::OsStr::new("cfg")),
        ("XDG_CONFIG_HOME", std::ffi::OsStr::new("")),
        ("HOME", home.as_os_str()),
    ];
    let out = run_io(
        &env.root(),
        &env.user(),
        &["-q", "replay", "events.jsonl"],
        &vars,
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        in_force(&out).ends_with(
            "; IO_CONFIG_HOME=cfg is not an absolute path, so no user-scope file was looked for \
             there (set it to an absolute one)"
        ),
        "{}",
        in_force(&out)
    );

    // Nothing passed over: -q says nothing.
    let out = run_io(
        &env.root(),
        &env.user(),
        &["-q", "replay", "events.jsonl"],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

/// What the search passed over is said by `io check` too, on a `passed
/// over:` line each and in `--json`'s `passed_over`: the check an operator
/// runs to learn which hooks are in force names the file it did not read.
#[test]
fn io_check_says_what_the_search_passed_over_in_text_and_json() {
    let env = IoEnv::new();
    env.write("io.local.toml", "[[hook]]\nappend = \"audit.jsonl\"\n");
    let shared = env.root().join("shared");
    let cache = shared.join("cache");
    std::fs::create_dir_all(&cache).expect("shared/cache");
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let stopped = format!(
        "the root search stopped below {}, which anyone may write, so no `io.local.toml` at \
         or above it was read (name the root with --root to read one)",
        shared.display()
    );
    let out = run_io(&cache, &env.user(), &["check"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("\npassed over: {stopped}\n")),
        "{}",
        stdout(&out)
    );
    let out = run_io(&cache, &env.user(), &["check", "--json"], &[]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one object");
    assert_eq!(report["passed_over"], serde_json::json!([stopped]));

    let home = env.user().join("home");
    let vars = [
        ("IO_CONFIG_HOME", std::ffi::OsStr::new("cfg")),
        ("XDG_CONFIG_HOME", std::ffi::OsStr::new("")),
        ("HOME", home.as_os_str()),
    ];
    let relative = "IO_CONFIG_HOME=cfg is not an absolute path, so no user-scope file was looked \
                    for there (set it to an absolute one)";
    let out = run_io(&env.root(), &env.user(), &["check"], &vars);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("\npassed over: {relative}\n")),
        "{}",
        stdout(&out)
    );
    let out = run_io(&env.root(), &env.user(), &["check", "--json"], &vars);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one object");
    assert_eq!(report["passed_over"], serde_json::json!([relative]));

    // Nothing passed over: no such line, and an empty list.
    let out = run_io(&env.root(), &env.user(), &["check"], &[]);
    assert!(!stdout(&out).contains("passed over"), "{}", stdout(&out));
    let out = run_io(&env.root(), &env.user(), &["check", "--json"], &[]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("one object");
    assert_eq!(report["passed_over"], serde_json::json!([]));
}
