//! `io check` proves that each hook can start without running it, judges
//! only what is its own to judge (a program, an `append` path; never an
//! argument), and prints hints that fix what they are printed under.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::path::Path;
use std::process::Command;

use common::io_env::{IoEnv as Env, code, stdout};

/// The lines `io check` prints under `hook[n]`, up to the next hook.
fn under(text: &str, n: usize) -> String {
    let start = text
        .find(&format!("  hook[{n}]  "))
        .unwrap_or_else(|| panic!("no hook[{n}] line in\n{text}"));
    let rest = &text[start..];
    let end = rest[2..].find("\n  hook[").map_or_else(
        || {
            rest.find("\nok\n")
                .or(rest.find("\nFAILED"))
                .unwrap_or(rest.len())
        },
        |e| e + 2,
    );
    rest[..end].to_owned()
}

/// The one hint under `hook[n]`.
fn hint(text: &str, n: usize) -> String {
    let lines = under(text, n);
    let hints: Vec<&str> = lines
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("hint: "))
        .collect();
    assert_eq!(hints.len(), 1, "one hint under hook[{n}]:\n{text}");
    hints[0].to_owned()
}

/// A `[[hook]]` running `program` on `finished`.
fn run_hook(program: &str) -> String {
    format!("[[hook]]\non = [\"finished\"]\nrun = [{program:?}]\n\n")
}

#[test]
fn a_script_that_can_never_start_is_a_problem_with_a_hint() {
    let env = Env::new();
    env.file("scripts/no-shebang.sh", b"echo hi\n", 0o755);
    env.file("scripts/crlf.sh", b"#!/bin/sh\r\necho hi\r\n", 0o755);
    env.file(
        "scripts/env-missing.sh",
        b"#!/usr/bin/env io-no-such-interpreter-4\nprint(1)\n",
        0o755,
    );
    env.file(
        "scripts/abs-missing.sh",
        b"#!/no/such/interpreter -e\n",
        0o755,
    );
    env.file("scripts/empty.sh", b"", 0o755);
    env.file("scripts/fine.sh", b"#!/bin/sh\nexit 0\n", 0o755);
    env.file("scripts/fine-env.sh", b"#!/usr/bin/env sh\nexit 0\n", 0o755);
    let mut config = String::new();
    for program in [
        "./scripts/no-shebang.sh",
        "./scripts/crlf.sh",
        "./scripts/env-missing.sh",
        "./scripts/abs-missing.sh",
        "./scripts/empty.sh",
        "./scripts/fine.sh",
        "./scripts/fine-env.sh",
    ] {
        config.push_str(&run_hook(program));
    }
    env.file("io.local.toml", config.as_bytes(), 0o644);
    let out = env.io(&["check"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    let root = env.root();
    assert!(
        under(&text, 1).contains(&format!(
            "problem: `./scripts/no-shebang.sh`: `{}/scripts/no-shebang.sh` cannot be started: \
             it neither begins with a `#!` line naming its interpreter nor is a binary this \
             system runs",
            root.display()
        )),
        "{text}"
    );
    assert_eq!(
        hint(&text, 1),
        "make its first line `#!` and the interpreter that runs it, as in `#!/bin/sh`"
    );
    assert!(
        under(&text, 2).contains("ends in a carriage return (`\\r`, a Windows line ending)"),
        "{text}"
    );
    assert!(
        under(&text, 3).contains(
            "runs `io-no-such-interpreter-4` through `env`, and it is not an executable file in \
             any absolute `PATH` entry"
        ),
        "{text}"
    );
    assert_eq!(
        hint(&text, 3),
        "install `io-no-such-interpreter-4`, or change the `#!` line to an interpreter that is installed"
    );
    assert!(
        under(&text, 4).contains(
            "names the interpreter `/no/such/interpreter`, which is not an executable file"
        ),
        "{text}"
    );
    assert!(under(&text, 5).contains("cannot be started"), "{text}");
    for n in [6, 7] {
        assert!(!under(&text, n).contains("problem"), "hook[{n}]: {text}");
    }
    assert!(
        text.ends_with("FAILED: 5 hook(s) cannot work as written\n"),
        "{text}"
    );
}

#[test]
fn a_binary_the_kernel_runs_is_no_problem() {
    let env = Env::new();
    // Whatever `true` is here, a binary of this system's format.
    let real = std::fs::canonicalize("/bin/true").expect("/bin/true");
    let bytes = std::fs::read(real).expect("read /bin/true");
    env.file("bin/mytrue", &bytes, 0o755);
    env.file("io.local.toml", run_hook("./bin/mytrue").as_bytes(), 0o644);
    let out = env.io(&["check"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

#[test]
fn an_argument_is_never_judged_only_the_program() {
    let env = Env::new();
    env.file(
        "io.local.toml",
        b"[[hook]]\non = [\"finished\"]\nrun = [\"sh\", \"-c\", \"echo \\\"$HOME\\\" >> seen.txt\"]\n\n\
          [[hook]]\non = [\"finished\"]\nrun = [\"sh\", \"-c\", \"cat >> ~/x\", \"${HOME}\"]\n",
        0o644,
    );
    let out = env.io(&["check"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}");
    assert!(!text.contains("problem"), "{text}");
}

#[test]
fn an_interpreter_read_from_the_file_is_escaped_and_bounded() {
    let env = Env::new();
    let mut line = b"#!/no/\x1b]0;owned\x07\x1b[31m\xe2\x80\xaered".to_vec();
    line.extend(std::iter::repeat_n(b'x', 400));
    line.push(b'\n');
    env.file("hostile.sh", &line, 0o755);
    env.file("io.local.toml", run_hook("./hostile.sh").as_bytes(), 0o644);
    let out = env.io(&["check"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    assert!(
        !text.contains('\x1b') && !text.contains('\x07') && !text.contains('\u{202e}'),
        "{text:?}"
    );
    assert!(
        text.contains("`/no/\\x1b]0;owned\\x07\\x1b[31m\\u{202e}redxxx"),
        "{text}"
    );
    let problem = under(&text, 1);
    let shown = problem
        .split("interpreter `")
        .nth(1)
        .and_then(|s| s.split('`').next())
        .expect("the interpreter, quoted");
    assert!(shown.ends_with('…'), "{shown}");
    assert!(shown.len() < 200, "bounded: {shown}");
}

#[test]
fn a_tilde_or_home_in_a_program_or_append_path_gets_write_the_absolute_path() {
    let env = Env::new();
    env.file(
        "io.local.toml",
        b"[[hook]]\nappend = \"~/audit.jsonl\"\n\n\
          [[hook]]\non = [\"finished\"]\nrun = [\"$HOME/bin/notify\"]\n\n\
          [[hook]]\nappend = \"${HOME}/audit.jsonl\"\n",
        0o644,
    );
    let out = env.io(&["check"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    for n in 1..=3 {
        assert_eq!(
            hint(&text, n),
            "write the absolute path in its place: nothing expands `~` or `$NAME`, because a \
             hook never runs through a shell",
        );
        assert_eq!(under(&text, n).matches("problem:").count(), 1, "{text}");
    }
    assert!(!text.contains("mkdir"), "{text}");
}

#[test]
fn no_hint_for_a_path_under_proc_sys_or_dev() {
    let env = Env::new();
    env.file(
        "io.local.toml",
        b"[[hook]]\nappend = \"/proc/io-nope/audit.jsonl\"\n\n\
          [[hook]]\nappend = \"/sys/io-nope/audit.jsonl\"\n\n\
          [[hook]]\nappend = \"/dev/io-nope/audit.jsonl\"\n\n\
          [[hook]]\nappend = \"/dev/null\"\n",
        0o644,
    );
    let out = env.io(&["check"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    for n in 1..=4 {
        assert!(under(&text, n).contains("problem:"), "hook[{n}]: {text}");
    }
    assert!(!text.contains("hint:"), "{text}");
}

/// Runs a hint's command as an operator would paste it.
fn paste(command: &str, dir: &Path) {
    let status = Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .status()
        .expect("sh runs");
    assert!(status.success(), "`{command}` failed");
}

#[test]
fn each_command_hint_pasted_into_a_shell_fixes_its_problem() {
    if !common::prerequisite("GNU sed", sed_is_gnu()) {
        return;
    }
    let env = Env::new();
    // Spaces and a quote in every path: the command must still work.
    env.file("it's here/x.sh", b"#!/bin/sh\nexit 0\n", 0o644);
    env.file("it's here/crlf.sh", b"#!/bin/sh\r\nexit 0\r\n", 0o755);
    env.file(
        "io.local.toml",
        b"[[hook]]\non = [\"finished\"]\nrun = [\"./it's here/x.sh\"]\n\n\
          [[hook]]\non = [\"finished\"]\nrun = [\"./it's here/crlf.sh\"]\n\n\
          [[hook]]\nappend = \"my logs/o'k/audit.jsonl\"\n",
        0o644,
    );
    let out = env.io(&["check"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    let hints: Vec<String> = (1..=3).map(|n| hint(&text, n)).collect();
    assert!(
        hints[0].starts_with("make it executable: chmod +x '"),
        "{text}"
    );
    assert!(
        hints[1].starts_with("save it with Unix line endings: sed -i"),
        "{text}"
    );
    assert!(hints[2].starts_with("create it: mkdir -p '"), "{text}");
    for hint in &hints {
        let command = hint.split_once(": ").expect("a command after the colon").1;
        paste(command, &env.root());
    }
    let out = env.io(&["check"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

fn sed_is_gnu() -> bool {
    Command::new("sed")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("GNU"))
}

/// Issue 32, H5: a clone commits `tool -> ~/.ssh/id_ed25519` (not
/// executable) and the operator's hook runs `./tool`. The `chmod +x` hint
/// named the link, and pasted, it made the key 0711: `chmod` follows a
/// link. A hint now says where a link leads, names the file itself when it
/// is in the root, and gives no command for one outside it. A FIFO is
/// called what it is, not "not executable" with a `chmod` hint.
#[test]
fn a_hint_never_names_a_link_and_never_a_file_outside_the_root() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let env = Env::new();
    let outside = env.dir().join("ssh");
    std::fs::create_dir(&outside).expect("ssh");
    let key = outside.join("id_ed25519");
    std::fs::write(&key, "-----BEGIN OPENSSH PRIVATE KEY-----\n").expect("key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("0600");
    symlink(&key, env.root().join("tool")).expect("tool ->");
    env.file("real/inner.sh", b"#!/bin/sh\nexit 0\n", 0o644);
    symlink("real/inner.sh", env.root().join("inner")).expect("inner ->");
    common::mkfifo(&env.root().join("pipe"));
    env.file(
        "io.local.toml",
        format!(
            "{}{}{}",
            run_hook("./tool"),
            run_hook("./inner"),
            run_hook("./pipe")
        )
        .as_bytes(),
        0o644,
    );
    let out = env.io(&["check"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    let root = env.root();
    let out_of_root = under(&text, 1);
    assert!(
        out_of_root.contains(&format!(
            "`{}` is a symbolic link to `{}`, which is not executable and lies outside the hooks' root",
            root.join("tool").display(),
            key.display()
        )),
        "{text}"
    );
    assert!(!hint(&text, 1).contains("chmod"), "{text}");
    let inner = hint(&text, 2);
    let real = std::fs::canonicalize(root.join("real/inner.sh")).expect("inner");
    assert_eq!(
        inner,
        format!("make it executable: chmod +x {}", real.display()),
        "{text}"
    );
    assert!(
        under(&text, 3).contains(&format!(
            "`{}` is a FIFO, not a program (a program is a regular file)",
            root.join("pipe").display()
        )),
        "{text}"
    );
    assert!(!hint(&text, 3).contains("chmod"), "{text}");
    // Every hint pasted changes nothing outside the root.
    for n in 1..=3 {
        if let Some((_, command)) = hint(&text, n).split_once(": chmod") {
            paste(&format!("chmod{command}"), &root);
        }
    }
    let mode = std::fs::metadata(&key).expect("key").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the key outside the root was changed");
    let inner_mode = std::fs::metadata(&real)
        .expect("inner")
        .permissions()
        .mode()
        & 0o111;
    assert_ne!(
        inner_mode, 0,
        "the hint made the file in the root executable"
    );
}
