//! Shared by the test binaries that drive `io run` and `io run --resume`
//! against a workspace a test lays out (resume_trust.rs,
//! run_special_files.rs, resume_events.rs, thread_limit.rs): a temp dir
//! with an empty user scope, a root and a directory outside it, and
//! journals written by hand as a hostile clone or model would.
#![allow(dead_code)] // each test binary uses its own subset

use std::ops::Deref;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::IoEnv;

/// [`IoEnv`] (an empty user scope `user`, a workspace root `root`, `io`
/// run there under a watchdog) and a directory outside the root
/// (`outside`).
pub(crate) struct Env {
    env: IoEnv,
}

impl Deref for Env {
    type Target = IoEnv;
    fn deref(&self) -> &IoEnv {
        &self.env
    }
}

impl Env {
    pub(crate) fn new() -> Self {
        let env = IoEnv::new();
        std::fs::create_dir(env.dir().join("outside")).expect("outside");
        Env { env }
    }

    pub(crate) fn outside(&self) -> PathBuf {
        self.dir().join("outside")
    }

    pub(crate) fn journal_path(&self, run_id: &str) -> PathBuf {
        self.root().join(format!(".io/runs/{run_id}.jsonl"))
    }

    /// The journal's text (empty when there is none).
    pub(crate) fn journal_text(&self, run_id: &str) -> String {
        std::fs::read_to_string(self.journal_path(run_id)).unwrap_or_default()
    }

    /// Writes a journal as a clone or a model would: `records`, one a
    /// line, the file 0600 (as `io` makes it) unless changed after. It
    /// carries no MAC, so `io` uses none of it.
    pub(crate) fn plant_journal(&self, run_id: &str, records: &[serde_json::Value]) -> PathBuf {
        let text: String = records.iter().map(|r| format!("{r}\n")).collect();
        self.write_journal(run_id, &text)
    }

    /// Writes a journal as this user's `io` would: `records`, each sealed
    /// with the key in the data directory (made if missing) as
    /// docs/run-script.md says, the file 0600. For a journal that passes
    /// the MAC check, to show what the checks behind it hold.
    pub(crate) fn seal_journal(&self, run_id: &str, records: &[serde_json::Value]) -> PathBuf {
        let key = io_trust::Key::load_or_create(self.data()).expect("the key");
        let mut chain = key.chain(run_id.as_bytes());
        let text: String = records.iter().map(|r| sealed_line(&mut chain, r)).collect();
        self.write_journal(run_id, &text)
    }

    /// Writes `text` as `run_id`'s journal, 0600.
    pub(crate) fn write_journal(&self, run_id: &str, text: &str) -> PathBuf {
        let path = self.journal_path(run_id);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect(".io/runs");
        std::fs::write(&path, text).expect("journal");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("0600");
        path
    }
}

/// `record` as a sealed journal line, the next of `chain`: the record's
/// JSON with a first key `mac`, the chain's tag over the record's JSON as
/// written without it (docs/run-script.md, "The journal").
pub(crate) fn sealed_line(chain: &mut io_trust::Chain, record: &serde_json::Value) -> String {
    let json = record.to_string();
    let tag = chain.seal(json.as_bytes());
    format!("{{\"mac\":\"{tag}\",{}\n", &json[1..])
}

pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Both streams of `out`, for an assertion's message.
pub(crate) fn both(out: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// The run id in `io run`'s last line, `run <id> ...`.
pub(crate) fn run_id_in(out: &Output) -> String {
    let stdout = text(&out.stdout);
    let line = stdout
        .lines()
        .rfind(|l| l.starts_with("run "))
        .unwrap_or_else(|| panic!("no `run` line in:\n{}", both(out)));
    line.split_whitespace().nth(1).expect("an id").to_owned()
}

/// A journal's first record: a run of `goal` that began in `workspace`
/// from the script `origin`, with `mcp` as its MCP servers; the script's
/// text is pinned in it, as `io run` pins it.
pub(crate) fn begin(workspace: &Path, origin: &Path, mcp: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"begin": {
        "goal": "planted",
        "workspace": workspace,
        "depth": 0,
        "max_steps": 50,
        "origin": origin,
        "script": std::fs::read_to_string(origin).expect("the script"),
        "mcp_servers": mcp,
    }})
}

/// The script of [`cancelled_run`]: two steps, a file each, each turn
/// saying a few words first, then the answer `done`.
const TWO_FILES: &str = r#"
goal = "two files"
[[turn]]
say = "First a."
calls = [{ tool = "write_file", args = { path = "a.txt", content = "a" } }]
[[turn]]
say = "Then b, and done."
calls = [{ tool = "write_file", args = { path = "b.txt", content = "b" } }]
answer = "done"
"#;

/// A run cancelled after its first step by a hook on `step` that fails
/// once, with `hooks` (more `[[hook]]` tables) beside it: resumable, with
/// one step to go, after which it answers `done`. Each turn says a few
/// words first (a `token` each, and a `spend_draw` of them). Returns its id.
pub(crate) fn cancelled_run(env: &Env, hooks: &str) -> String {
    cancelled_run_of(env, hooks, TWO_FILES)
}

/// A run of `script` (a script file's text) cancelled after its first step
/// by a hook on `step` that fails once, with `hooks` (more `[[hook]]`
/// tables) beside it. Returns its id.
pub(crate) fn cancelled_run_of(env: &Env, hooks: &str, script: &str) -> String {
    env.write("once.sh", "[ -e once ] && exit 0\n: > once\nexit 1\n");
    env.write(
        "io.local.toml",
        &format!(
            "{hooks}\n[[hook]]\non = [\"step\"]\nrun = [\"/bin/sh\", \"./once.sh\"]\non_failure = \"cancel\"\n"
        ),
    );
    let script = env.write("script.toml", script);
    let out = env.io(&["run", script.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(3), "{}", both(&out));
    run_id_in(&out)
}

/// `io args` started and held at its `started` event by a `run` hook
/// (`gate.sh`, given as `gate`) that writes its pid to `gate.pid` and then
/// blocks on `gate.fifo`. Returns the running `io`, the guard that releases
/// the gate when dropped, and the gate's pid once it is held.
pub(crate) fn held_at_started(
    env: &Env,
    gate: &str,
    args: &[&str],
) -> (std::process::Child, crate::common::ReleaseFifo, Option<i32>) {
    let root = env.root();
    let release = crate::common::fifo(&root.join("gate.fifo"), true);
    env.write("gate.sh", gate);
    env.write(
        "io.local.toml",
        "[[hook]]\non = [\"started\"]\nrun = [\"/bin/sh\", \"./gate.sh\"]\ntimeout_ms = 120000\n",
    );
    let io = env.command(args).spawn().expect("io runs");
    let held = crate::common::read_pid(&root.join("gate.pid"));
    (io, release, held)
}
