//! Every command `io` prints to be pasted is quoted for a POSIX shell
//! (issue 44 item 4): a clone named `w$(touch${IFS}PWNED)` holding an
//! `io.toml` becomes the root, and the resume command `io run` prints at
//! its end, at a signal, and that `io runs` lists, and the `cp` that
//! `io replay` offers for a recording it will not read into itself, pasted into `/bin/sh`,
//! runs nothing of the name and hands `io` the root byte for byte. The
//! shell is the test's: it plays the operator pasting.
#![cfg(unix)] // Unix-only: its programs, links or descriptors (issue 47; Windows: tests/windows.rs)

mod common;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{output_within, read_pid, with_ending_signals_at_default};

/// The clone's name: a command substitution a shell would run unquoted.
const HOSTILE: &str = "w$(touch${IFS}PWNED)";

/// Two steps: a file written, then the answer.
const SCRIPT: &str = "goal = \"g\"\n\
    [[turn]]\ncalls = [{ tool = \"write_file\", args = { path = \"a.txt\", content = \"a\" } }]\n\
    [[turn]]\nanswer = \"done\"\n";

/// A temp dir holding the user scope, the data and home directories, a
/// clone named `name` holding an empty `io.toml` and the script, the
/// directory the test's shell runs in, and a fake `io` that writes the
/// arguments it was given, each ended by a NUL, to `args`.
struct Paste {
    dir: tempfile::TempDir,
    clone: PathBuf,
}

impl Paste {
    fn new(name: &OsStr, user_scope: &str) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        for sub in ["user", "data", "home", "shell", "fake"] {
            std::fs::create_dir(dir.path().join(sub)).expect("dir");
        }
        std::fs::write(dir.path().join("user/io.toml"), user_scope).expect("user scope");
        let clone = dir.path().join(name);
        std::fs::create_dir(&clone).expect("clone");
        std::fs::write(clone.join("io.toml"), "").expect("io.toml");
        std::fs::write(clone.join("script.toml"), SCRIPT).expect("script");
        let fake = dir.path().join("fake/io");
        std::fs::write(
            &fake,
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$ARGS_OUT\"\n",
        )
        .expect("fake io");
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        Paste { dir, clone }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// `command` with the test's user scope, data and home directories.
    fn env<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        command
            .env("IO_CONFIG_HOME", self.path("user"))
            .env("IO_DATA_HOME", self.path("data"))
            .env("HOME", self.path("home"))
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
    }

    /// The real `io` with `args`, run in the clone (no `--root`: the
    /// clone's `io.toml` makes it the root).
    fn io(&self, args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
        self.env(&mut command).args(args).current_dir(&self.clone);
        let child = command.spawn().expect("io runs");
        output_within(child, Duration::from_secs(120), &format!("io {args:?}"))
    }

    /// `line` pasted into `/bin/sh -c`, run in `shell/` with `path` first
    /// on `PATH` (the fake `io`'s directory, or the real one's).
    fn pasted(&self, line: &str, path: &Path) -> Output {
        let mut command = Command::new("/bin/sh");
        self.env(&mut command)
            .arg("-c")
            .arg(line)
            .current_dir(self.path("shell"))
            .env("PATH", format!("{}:/usr/bin:/bin", path.display()))
            .env("ARGS_OUT", self.path("args"));
        let child = command.spawn().expect("sh runs");
        output_within(child, Duration::from_secs(120), &format!("sh -c {line:?}"))
    }

    /// The arguments the fake `io` was given by `line`, pasted.
    fn args_of(&self, line: &str) -> Vec<OsString> {
        let out = self.pasted(line, &self.path("fake"));
        assert!(out.status.success(), "{out:?}");
        let bytes = std::fs::read(self.path("args")).expect("the fake io ran");
        let mut args: Vec<OsString> = bytes
            .split(|&b| b == 0)
            .map(|a| OsString::from_vec(a.to_vec()))
            .collect();
        assert_eq!(args.pop(), Some(OsString::new()), "each ended by a NUL");
        args
    }

    /// No file named `PWNED` anywhere in the temp dir, nor where the test
    /// runs.
    fn assert_nothing_ran(&self) {
        let mut dirs = vec![self.dir.path().to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
                assert_ne!(entry.file_name(), "PWNED", "in {}", dir.display());
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    dirs.push(entry.path());
                }
            }
        }
        assert!(!Path::new("PWNED").exists());
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The text after `prefix` on the line of `out` (stdout, then stderr) that
/// starts with it once trimmed.
fn after<'a>(out: &'a str, prefix: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.trim_start().strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{out}"))
}

/// The id in `io run`'s last line, `run <id> …`.
fn run_id(out: &Output) -> String {
    let stdout = text(&out.stdout);
    let line = stdout
        .lines()
        .rfind(|l| l.starts_with("run "))
        .expect("a run line");
    line.split(' ').nth(1).expect("an id").to_owned()
}

/// A profile `ci` whose policy check (a `run` hook that fails, with
/// `cancel`) cancels a run at its first tool call.
const CI_CANCELS: &str = "[[profile.ci.hook]]\non = [\"tool_call\"]\nrun = [\"false\"]\n\
    on_failure = \"cancel\"\n";

#[test]
fn the_resume_command_for_a_hostile_root_name_pastes_as_its_bytes_with_the_profile() {
    let paste = Paste::new(OsStr::new(HOSTILE), CI_CANCELS);
    let out = paste.io(&["run", "script.toml", "--profile", "ci"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let id = run_id(&out);
    let stdout = text(&out.stdout);
    let line = after(&stdout, "resume with: ");
    assert_eq!(
        line,
        format!(
            "io run --resume {id} --root '{}' --profile ci",
            paste.clone.display()
        )
    );
    // Pasted: the name is one word, the profile is kept, nothing ran.
    let args = paste.args_of(line);
    let expected: Vec<OsString> = [
        OsStr::new("run"),
        OsStr::new("--resume"),
        OsStr::new(&id),
        OsStr::new("--root"),
        paste.clone.as_os_str(),
        OsStr::new("--profile"),
        OsStr::new("ci"),
    ]
    .iter()
    .map(|a| a.to_os_string())
    .collect();
    assert_eq!(args, expected);
    paste.assert_nothing_ran();

    // Pasted with the real `io` on PATH, it resumes, under the profile.
    let real = Path::new(env!("CARGO_BIN_EXE_io")).parent().expect("a dir");
    let resumed = paste.pasted(line, real);
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert!(
        text(&resumed.stderr).contains("(user scope, profile `ci`)"),
        "{resumed:?}"
    );
    assert!(text(&resumed.stdout).contains(&format!("run {id} completed")));
    paste.assert_nothing_ran();
}

#[test]
fn io_runs_lists_the_resume_command_quoted() {
    let paste = Paste::new(OsStr::new(HOSTILE), CI_CANCELS);
    let out = paste.io(&["run", "script.toml", "--profile", "ci"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let id = run_id(&out);
    let listed = paste.io(&["runs"]);
    assert_eq!(listed.status.code(), Some(0), "{listed:?}");
    let stdout = text(&listed.stdout);
    let line = after(&stdout, "resume: ");
    let args = paste.args_of(line);
    // With the profile the run began with (issue 45: its journal keeps
    // it), as the command `io run` printed has it.
    assert_eq!(
        args,
        ["run", "--resume", &id, "--root"]
            .iter()
            .map(OsString::from)
            .chain([paste.clone.clone().into_os_string()])
            .chain(["--profile", "ci"].map(OsString::from))
            .collect::<Vec<_>>()
    );
    paste.assert_nothing_ran();
}

/// `io runs` lists the command with the profile the run began with
/// (issue 45: kept in its journal's `begin`), quoted: a profile named as a
/// command substitution is one word, handed to `io` as its bytes.
#[test]
fn io_runs_lists_the_profile_a_run_began_with_quoted() {
    const PROFILE: &str = "c$(touch${IFS}PWNED)";
    let paste = Paste::new(
        OsStr::new("root-ok"),
        &CI_CANCELS.replace("profile.ci.", "profile.\"c$(touch${IFS}PWNED)\"."),
    );
    let out = paste.io(&["run", "script.toml", "--profile", PROFILE]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let id = run_id(&out);
    let listed = paste.io(&["runs"]);
    let stdout = text(&listed.stdout);
    let args = paste.args_of(after(&stdout, "resume: "));
    let expected: Vec<OsString> = [
        OsStr::new("run"),
        OsStr::new("--resume"),
        OsStr::new(&id),
        OsStr::new("--root"),
        paste.clone.as_os_str(),
        OsStr::new("--profile"),
        OsStr::new(PROFILE),
    ]
    .iter()
    .map(|a| a.to_os_string())
    .collect();
    assert_eq!(args, expected);
    paste.assert_nothing_ran();
}

#[test]
fn the_command_a_signal_prints_pastes_as_its_bytes_with_the_profile() {
    let paste = Paste::new(
        OsStr::new(HOSTILE),
        "[[profile.ci.hook]]\non = [\"finished\"]\nappend = \"audit.jsonl\"\n",
    );
    // The first step's `exec` blocks until `io` is signalled.
    std::fs::write(
        paste.clone.join("script.toml"),
        "goal = \"g\"\n[[turn]]\ncalls = [{ tool = \"exec\", args = { argv = [\"/bin/sh\", \
         \"-c\", \"echo $$ > pid; sleep 60\"] } }]\n[[turn]]\nanswer = \"done\"\n",
    )
    .expect("script");
    let mut command = Command::new(env!("CARGO_BIN_EXE_io"));
    paste
        .env(with_ending_signals_at_default(&mut command))
        .args(["run", "script.toml", "--profile", "ci"])
        .current_dir(&paste.clone);
    let child = command.spawn().expect("io runs");
    let io_pid = rustix::process::Pid::from_child(&child);
    let held = read_pid(&paste.clone.join("pid"));
    assert!(held.is_some(), "the exec never started");
    rustix::process::kill_process(io_pid, rustix::process::Signal::TERM).expect("kill");
    let out = output_within(child, Duration::from_secs(60), "io, signalled");
    assert_eq!(out.status.code(), Some(143), "{out:?}");
    let stderr = text(&out.stderr);
    let line = after(&stderr, "io: run ");
    let (id, command) = line
        .split_once(" interrupted; resume it with: ")
        .unwrap_or_else(|| panic!("{line}"));
    assert_eq!(
        paste.args_of(command),
        [
            OsStr::new("run"),
            OsStr::new("--resume"),
            OsStr::new(id),
            OsStr::new("--root"),
            paste.clone.as_os_str(),
            OsStr::new("--profile"),
            OsStr::new("ci"),
        ]
        .iter()
        .map(|a| a.to_os_string())
        .collect::<Vec<_>>()
    );
    paste.assert_nothing_ran();
}

/// A root whose name is not UTF-8 cannot be printed as its bytes, and a
/// POSIX shell has no quoting that shows them as text: the command printed
/// says `--root .` and in which root to run it, and that command resumes.
/// (`io run` cannot begin a run in such a root, whose journal records the
/// workspace as UTF-8; the operator renamed the directory of one.)
#[test]
fn a_root_whose_name_is_not_utf8_gets_a_command_to_run_in_it() {
    let paste = Paste::new(OsStr::new("root-ok"), CI_CANCELS);
    // Two tool calls: the profile's check cancels at each.
    std::fs::write(
        paste.clone.join("script.toml"),
        "goal = \"g\"\n\
         [[turn]]\ncalls = [{ tool = \"write_file\", args = { path = \"a.txt\", content = \"a\" } }]\n\
         [[turn]]\ncalls = [{ tool = \"write_file\", args = { path = \"b.txt\", content = \"b\" } }]\n\
         [[turn]]\nanswer = \"done\"\n",
    )
    .expect("script");
    let out = paste.io(&["run", "script.toml", "--profile", "ci"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let id = run_id(&out);
    let renamed = paste.path("").join(OsStr::from_bytes(b"r\xffoot"));
    std::fs::rename(&paste.clone, &renamed).expect("rename");
    let paste = Paste {
        clone: renamed,
        ..paste
    };
    let fallback = |profile: &str| {
        format!(
            "io run --resume {id} --root .{profile}, run in the root, {} (its name is not \
             UTF-8, so it is not printed to paste)",
            paste.clone.display()
        )
    };

    // Resumed and cancelled again: the line at its end.
    let out = paste.io(&["run", "--resume", &id, "--profile", "ci"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let stdout = text(&out.stdout);
    assert_eq!(after(&stdout, "resume with: "), fallback(" --profile ci"));
    // `io runs`' line.
    let listed = paste.io(&["runs"]);
    let stdout = text(&listed.stdout);
    let line = after(&stdout, "resume: ").to_owned();
    assert_eq!(line, fallback(" --profile ci"));

    // The command, run in the root, resumes the run to its end.
    let command = line.split_once(',').expect("a comma").0;
    let real = Path::new(env!("CARGO_BIN_EXE_io")).parent().expect("a dir");
    let mut sh = Command::new("/bin/sh");
    paste
        .env(&mut sh)
        .arg("-c")
        .arg(command)
        .current_dir(&paste.clone)
        .env("PATH", format!("{}:/usr/bin:/bin", real.display()));
    let resumed = output_within(sh.spawn().expect("sh"), Duration::from_secs(120), "resume");
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert!(text(&resumed.stdout).contains(&format!("run {id} completed")));
}

#[test]
fn the_copy_command_io_replay_prints_for_its_own_input_pastes_as_its_bytes() {
    // The operator's catch-all append, and the recording it wrote, in the
    // clone: replaying it with that hook chosen is refused, with a copy to
    // make first.
    let paste = Paste::new(
        OsStr::new(HOSTILE),
        "[[hook]]\nrun = [\"true\"]\n\n[[hook]]\nappend = \"audit.jsonl\"\n",
    );
    let recording =
        "{\"event\":\"finished\",\"outcome\":\"completed\",\"run_id\":\"r\",\"depth\":0}\n";
    std::fs::write(paste.clone.join("audit.jsonl"), recording).expect("recording");
    let out = paste.io(&["replay", "audit.jsonl", "--hook", "2"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = text(&out.stderr);
    let line = after(&stderr, "io: --hook 2:");
    let command = line
        .split_once("Replay a copy instead: `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .map(|(command, _)| command)
        .unwrap_or_else(|| panic!("no copy command in {line}"));
    let audit = paste.clone.join("audit.jsonl");
    assert_eq!(command, format!("cp '{}' copy.jsonl", audit.display()));
    // Pasted: the name is one word, the copy is made, nothing ran.
    let copied = paste.pasted(command, Path::new("/usr/bin"));
    assert!(copied.status.success(), "{copied:?}");
    assert_eq!(
        std::fs::read_to_string(paste.path("shell/copy.jsonl")).expect("the copy"),
        recording
    );
    paste.assert_nothing_ran();
}
