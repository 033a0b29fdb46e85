//! Round three (issue 22), through the `io` program: no byte of a config
//! file that is not ours reaches the terminal, and what is shown of one that
//! is ours is bounded in width. A repository can commit `io.toml ->
//! ~/.netrc` or `-> /proc/self/environ`; before, the error under a parse
//! failure printed the line it pointed into (the whole environment, a
//! `.netrc`'s password), and a 100 KB line was printed whole.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::process::Output;
use std::time::Duration;

use common::{IoEnv, io_output};

/// What the tests plant in files outside the root: it must never be printed.
const TOKEN: &str = "FAKE_TOKEN_c0ffee";

/// `io args…` in `env`'s root with its user scope, `TOKEN` in its
/// environment, under a watchdog.
fn io(env: &IoEnv, args: &[&str]) -> Output {
    let mut command = env.command(args);
    command.env("IO_TEST_SECRET", TOKEN);
    io_output(&mut command, Duration::from_secs(60), "io")
}

/// An [`IoEnv`] whose temp dir also holds a one-event recording and a
/// one-turn script for `io replay` and `io run`.
fn with_inputs() -> IoEnv {
    let env = IoEnv::new();
    fs::write(
        env.dir().join("events.jsonl"),
        "{\"event\":\"started\",\"goal\":\"g\",\"run_id\":\"r\",\"depth\":0}\n",
    )
    .unwrap();
    fs::write(env.dir().join("script.json"), "[]").unwrap();
    env
}

/// The three commands that load the config, each given the root.
fn every_command(env: &IoEnv) -> Vec<(&'static str, Output)> {
    let events = env.dir().join("events.jsonl");
    let script = env.dir().join("script.json");
    let root = env.root();
    let root_arg = root.to_str().unwrap();
    vec![
        ("check", io(env, &["check", "--root", root_arg])),
        (
            "replay",
            io(
                env,
                &["replay", events.to_str().unwrap(), "--root", root_arg],
            ),
        ),
        (
            "run",
            io(env, &["run", script.to_str().unwrap(), "--root", root_arg]),
        ),
    ]
}

/// `out` failed, printing nothing of `TOKEN`, and its stderr holds `want`.
fn refused_unshown(what: &str, out: &Output, want: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {out:?}");
    assert!(
        !stdout.contains(TOKEN) && !stderr.contains(TOKEN),
        "{what}: the token was printed:\n{stdout}\n{stderr}"
    );
    assert!(stderr.contains(want), "{what}: {stderr}");
}

#[test]
fn a_link_out_of_the_root_shows_nothing_of_what_it_leads_to() {
    let env = with_inputs();
    let root = env.root();
    let outside = env.dir().join("outside");
    fs::create_dir(&outside).unwrap();
    // What `~/.netrc` or a `.env` holds, each a different failure: not
    // TOML; a value serde's message quotes; a key an error names; a
    // profile name in a key path. As `io.toml`, a file that declares `hook`
    // is refused for that first.
    let project = "declares hooks, which a project-scoped file may not";
    let files = [
        (
            "netrc",
            format!("machine example.com login me password {TOKEN}\n"),
            "not valid TOML (line 1, column 9)",
        ),
        (
            "value",
            format!("[[hook]]\nappend = \"{TOKEN}\"\nrun = [\"{TOKEN}\"]\n"),
            "a hook or profile in it does not check (line 1, column 1)",
        ),
        (
            "key",
            format!("[[hook]]\nappend = \"a\"\n{TOKEN} = 1\n"),
            "a hook or profile in it does not check (line 3, column 1)",
        ),
        (
            "shape",
            format!("hook = \"{TOKEN}\"\n"),
            "a hook or profile in it does not check (line 1, column 8)",
        ),
        (
            "profile",
            format!("[profile.{TOKEN}]\nhooks = []\n"),
            "a key in it would declare hooks where none are read (a misspelling of `hook`, or `hook` out of place) (line 2, column 1)",
        ),
    ];
    for (name, text, local_problem) in files {
        let target = outside.join(name);
        fs::write(&target, &text).unwrap();
        for link in ["io.toml", "io.local.toml"] {
            let _ = fs::remove_file(root.join("io.toml"));
            let _ = fs::remove_file(root.join("io.local.toml"));
            symlink(&target, root.join(link)).unwrap();
            let problem = match name {
                "value" | "key" | "shape" if link == "io.toml" => project,
                _ => local_problem,
            };
            let want = format!(
                "io: {}: {problem}; none of it is shown, because it is a symbolic link leading \
                 out of `{}`",
                root.join(link).display(),
                root.display()
            );
            for (command, out) in every_command(&env) {
                refused_unshown(&format!("{name} as {link}, io {command}"), &out, &want);
            }
        }
    }
}

#[test]
fn the_profiles_of_a_file_linked_out_of_the_root_are_counted_not_named() {
    // A file that loads (profiles are allowed in `io.toml`), so nothing is
    // withheld; but an unknown `--profile` listed every profile declared,
    // and a near miss was answered "did you mean" with the linked-to name.
    let env = IoEnv::new();
    let root = env.root();
    let outside = env.dir().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(
        outside.join("elsewhere.toml"),
        format!("[profile.{TOKEN}]\nmodel = \"m\"\n"),
    )
    .unwrap();
    symlink(outside.join("elsewhere.toml"), root.join("io.toml")).unwrap();
    env.write("io.local.toml", "[profile.ci]\nmodel = \"m\"\n");
    let near = &TOKEN[..TOKEN.len() - 1];
    for asked in ["nope", near] {
        let out = io(&env, &["check", "--profile", asked]);
        refused_unshown(
            asked,
            &out,
            &format!(
                "io: unknown profile `{asked}`; the profiles declared are `ci`, and 1 more in \
                 a file behind a symbolic link out of the root, so not shown\n"
            ),
        );
    }
    // The profile itself is still the operator's to apply.
    let out = io(&env, &["check", "--profile", TOKEN]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // With only the linked file's, none is named.
    fs::remove_file(root.join("io.local.toml")).unwrap();
    let out = io(&env, &["check", "--profile", "nope"]);
    refused_unshown(
        "only linked",
        &out,
        "io: unknown profile `nope`; the 1 profile(s) declared are in a file behind a symbolic \
         link out of the root, so not shown\n",
    );
    // The same file in the root is ours: named, and a near miss suggested.
    fs::remove_file(root.join("io.toml")).unwrap();
    fs::copy(outside.join("elsewhere.toml"), root.join("io.toml")).unwrap();
    let out = io(&env, &["check", "--profile", near]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!(
            "(did you mean `{TOKEN}`?); the profiles declared are `{TOKEN}`\n"
        )),
        "{out:?}"
    );
}

#[test]
fn a_link_to_proc_self_environ_is_not_read() {
    let env = with_inputs();
    let root = env.root();
    symlink("/proc/self/environ", root.join("io.toml")).unwrap();
    let want = format!(
        "io: {}: cannot be read: a file of the kernel's proc file system",
        root.join("io.toml").display()
    );
    for (command, out) in every_command(&env) {
        refused_unshown(&format!("io {command}"), &out, &want);
    }
}

/// `out` is `io check` refusing `append = 1` on line 2, that line shown
/// under the message with its caret.
#[track_caller]
fn shows_its_line(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stderr.ends_with("\n   |\n 2 | append = 1\n   |          ^\n"),
        "{stderr}"
    );
}

/// Issue 32, H4: a link that stays in the root shows nothing either. A
/// clone commits `io.toml -> .env`, and the operator's gitignored `.env`
/// (an API key) sits beside it: before, `io check`, `io replay` and `io
/// run` printed the key's line under the parse error. Rule 1: a file
/// reached through any symbolic link shows nothing of what it holds.
#[test]
fn a_link_within_the_root_shows_nothing_of_what_it_leads_to() {
    let env = with_inputs();
    let root = env.root();
    fs::write(root.join(".env"), format!("OPENAI_API_KEY={TOKEN}\n")).unwrap();
    for link in ["io.toml", "io.local.toml"] {
        let _ = fs::remove_file(root.join("io.toml"));
        let _ = fs::remove_file(root.join("io.local.toml"));
        symlink(".env", root.join(link)).unwrap();
        let want = format!(
            "io: {}: not valid TOML (line 1, column 16); none of it is shown, because it is \
             reached through a symbolic link",
            root.join(link).display()
        );
        for (command, out) in every_command(&env) {
            refused_unshown(&format!(".env as {link}, io {command}"), &out, &want);
        }
    }
    // The file itself in its place is ours, and shown.
    fs::remove_file(root.join("io.local.toml")).unwrap();
    fs::write(root.join("io.local.toml"), "[[hook]]\nappend = 1\n").unwrap();
    shows_its_line(&io(&env, &["check"]));
}

#[test]
fn a_link_to_the_users_own_file_is_theirs_and_shown() {
    // `io.toml` leading to the user-scope file is read once, as the user
    // scope: the operator's own, inside their config directory.
    let env = with_inputs();
    let root = env.root();
    fs::write(env.user().join("io.toml"), "[[hook]]\nappend = 1\n").unwrap();
    symlink(env.user().join("io.toml"), root.join("io.toml")).unwrap();
    shows_its_line(&io(&env, &["check"]));
}

#[test]
fn a_nul_or_a_byte_that_is_not_utf8_shows_nothing_of_the_file() {
    let env = with_inputs();
    let root = env.root();
    for (bytes, want) in [
        (
            format!("[[hook]]\nappend = \"{TOKEN}\0\"\n").into_bytes(),
            "holds a NUL character (line 2, column 28), which no config file needs, so it is \
             not read as one and none of it is shown\n",
        ),
        (
            [
                format!("[[hook]]\nappend = \"{TOKEN}").as_bytes(),
                b"\xff\"\n",
            ]
            .concat(),
            "not UTF-8 text, which a TOML file must be (line 2, column 28); none of it is shown\n",
        ),
    ] {
        fs::write(root.join("io.local.toml"), &bytes).unwrap();
        let want = format!("io: {}: {want}", root.join("io.local.toml").display());
        for (command, out) in every_command(&env) {
            refused_unshown(&format!("io {command}"), &out, &want);
            assert_eq!(String::from_utf8_lossy(&out.stderr), want, "io {command}");
        }
    }
}

/// The excerpt that ends `stderr`: the file's line as shown (after its
/// ` | `) and the character index the caret under it points at.
#[track_caller]
fn excerpt(stderr: &str) -> (&str, usize) {
    let lines: Vec<&str> = stderr.lines().collect();
    let [.., source, caret] = lines.as_slice() else {
        panic!("no excerpt: {stderr}");
    };
    let source = source.split_once(" | ").expect("an excerpt line").1;
    let at = caret.find('^').expect("a caret") - caret.find('|').expect("a gutter") - 2;
    (source, at)
}

/// The widest line `io` may print about a 100 KB line: the path, the
/// message with its quoted parts cut to 200 characters, and the rest (the
/// list of every event name is the longest, some 570 characters).
const WIDEST: usize = 1000;

#[test]
fn a_100_kb_line_is_shown_cut_around_the_caret() {
    let env = with_inputs();
    let root = env.root();
    let half = "1, ".repeat(17_000);
    let cases = [
        // A syntax error in the middle of the line: the caret under it.
        format!("x = [{half}?, {half}]\n"),
        // serde's message quotes the whole value.
        format!("hook = \"{}\"\n", "A".repeat(100_000)),
        // An unknown key, named as written.
        format!("[[hook]]\nappend = \"a\"\n{} = 1\n", "k".repeat(100_000)),
        // A profile name, in the key path.
        format!("[profile.{}]\nhook = 1\n", "p".repeat(100_000)),
        // An event name, named as written.
        format!(
            "[[hook]]\nappend = \"a\"\non = [\"{}\"]\n",
            "e".repeat(100_000)
        ),
    ];
    for text in cases {
        fs::write(root.join("io.local.toml"), &text).unwrap();
        let out = io(&env, &["check"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let widest = stderr.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(widest <= WIDEST, "a line of {widest} characters:\n{stderr}");
        // The excerpt: a line of at most 100 characters of the file and
        // the two `…`, then a caret under the character the error is at.
        let (source, at) = excerpt(&stderr);
        assert!(source.chars().count() <= 102, "{source}");
        assert!(source.chars().nth(at).is_some(), "{stderr}");
    }
    // The syntax error's caret is under the `?`, with both sides cut.
    fs::write(
        root.join("io.local.toml"),
        format!("x = [{half}?, {half}]\n"),
    )
    .unwrap();
    let out = io(&env, &["check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let (source, at) = excerpt(&stderr);
    assert!(source.starts_with('…') && source.ends_with('…'), "{source}");
    assert_eq!(source.chars().nth(at), Some('?'), "{stderr}");
}

#[test]
fn control_characters_in_an_excerpt_are_escaped_and_the_caret_follows() {
    let env = with_inputs();
    let root = env.root();
    // A bell and an escape before the error: printed as `\x07` and `\x1b`,
    // and the caret moved past their escapes, under the `?`.
    fs::write(root.join("io.local.toml"), "x = \"\u{7}\u{1b}\" ?\n").unwrap();
    let out = io(&env, &["check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\u{7}'),
        "{stderr:?}"
    );
    assert!(stderr.contains("(line 1, column 10)"), "{stderr}");
    let (source, at) = excerpt(&stderr);
    assert_eq!(source, "x = \"\\x07\\x1b\" ?");
    assert_eq!(&source[at..=at], "?", "{stderr}");
}
