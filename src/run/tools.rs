//! The tools a reference run can call. Each acts on the real workspace
//! directory; none reaches outside it, and none involves a shell.

use std::io::{self, Read, Write};
use std::path::{Component, Path};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::Value;

use io_beneath::{Open, Root};

/// How much of a file or a command's output an observation keeps.
const OBSERVATION_LIMIT: usize = 16 * 1024;

/// What a tool call did.
pub(crate) struct ToolResult {
    /// What the model sees.
    pub observation: String,
    /// Whether a write changed bytes on disk (compared with what was there).
    pub moved: bool,
}

impl ToolResult {
    pub(crate) fn seen(observation: String) -> Self {
        ToolResult {
            observation,
            moved: false,
        }
    }
}

pub(crate) use super::tool_error::ToolError;

/// The workspace a run acts on.
pub(crate) struct Workspace<'a> {
    pub root: &'a Path,
    pub exec_timeout: Duration,
}

impl Workspace<'_> {
    /// The workspace's root, whose `.io` is the run's own state (see
    /// [`io_beneath`]): reached through no symbolic link, and the model's
    /// writes never reach it at all.
    fn files(&self) -> Result<Root, io_beneath::Error> {
        Ok(Root::open(self.root)?.own(STATE_DIR))
    }

    /// `rel` as a path inside the workspace, or an error for an empty or
    /// absolute path or one that climbs out with `..`: checked before any
    /// file is touched, with the message it has always had.
    fn resolve(rel: &str) -> Result<&Path, ToolError> {
        let path = Path::new(rel);
        let inside = !rel.is_empty()
            && path
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if inside {
            Ok(path)
        } else {
            Err(ToolError::NotInside(rel.to_owned()))
        }
    }

    /// Reads the whole of `rel` beneath the root; `op` names the tool in an
    /// error.
    fn read(&self, op: &'static str, rel: &str) -> Result<Vec<u8>, ToolError> {
        let path = Self::resolve(rel)?;
        let failed = |e| file_error(op, rel, e);
        // The model may read the run's own files by their names (its todo
        // list), never through a link.
        let opened = self
            .files()
            .and_then(|root| root.open_file(path, &Open::read().own_state()));
        let mut bytes = Vec::new();
        opened
            .map_err(failed)?
            .into_file()
            .read_to_end(&mut bytes)
            .map_err(|e| failed(e.into()))?;
        Ok(bytes)
    }

    /// Reads go beneath the root too: a link committed as `notes ->
    /// ~/.ssh/id_ed25519` would otherwise put a secret in the observation.
    pub(super) fn read_file(&self, rel: &str) -> Result<ToolResult, ToolError> {
        let bytes = self.read("read", rel)?;
        let text = String::from_utf8_lossy(&bytes);
        Ok(ToolResult::seen(format!(
            "[read {rel}] ({} bytes)\n{}",
            bytes.len(),
            truncate(&text)
        )))
    }

    pub(super) fn write_file(&self, rel: &str, content: &str) -> Result<ToolResult, ToolError> {
        let moved = self.write_compared("write", rel, content.as_bytes())?;
        Ok(ToolResult {
            observation: format!("[wrote {rel}] ({} chars)", content.chars().count()),
            moved,
        })
    }

    pub(super) fn edit_file(
        &self,
        rel: &str,
        old: &str,
        new: &str,
    ) -> Result<ToolResult, ToolError> {
        if Self::in_run_files(rel) {
            return Err(ToolError::RunFiles {
                op: "edit",
                rel: rel.to_owned(),
            });
        }
        let bytes = self.read("edit", rel)?;
        let text = String::from_utf8(bytes).map_err(|_| ToolError::NotUtf8 {
            rel: rel.to_owned(),
        })?;
        let count = text.matches(old).count();
        if count != 1 {
            return Err(ToolError::EditMatches {
                rel: rel.to_owned(),
                count,
            });
        }
        let edited = text.replacen(old, new, 1);
        let moved = self.write_compared("edit", rel, edited.as_bytes())?;
        Ok(ToolResult {
            observation: format!("[edited {rel}] ({} chars)", edited.chars().count()),
            moved,
        })
    }

    /// Whether `rel` names the run's own `.io`, in any case (a file system
    /// that folds case opens `.IO` as `.io`).
    fn in_run_files(rel: &str) -> bool {
        Path::new(rel)
            .components()
            .find(|c| matches!(c, Component::Normal(_)))
            .is_some_and(|c| c.as_os_str().eq_ignore_ascii_case(STATE_DIR))
    }

    /// Writes `bytes` to `rel` for the tool `op`, returning whether they
    /// differ from what was there: the progress signal, decided here and
    /// never after a formatter. Never in `.io`: a `write_file` of
    /// `.io/runs/<id>.jsonl` would write the journal a resume acts on, by
    /// its name or through a committed link (`notes ->
    /// .io/runs/r-1.jsonl`, `state -> .io`), which the open refuses.
    fn write_compared(&self, op: &'static str, rel: &str, bytes: &[u8]) -> Result<bool, ToolError> {
        let path = Self::resolve(rel)?;
        let refused = |e| file_error(op, rel, e);
        if Self::in_run_files(rel) {
            return Err(refused(io_beneath::Error::Owned {
                name: STATE_DIR.into(),
                way: io_beneath::Way::Name,
            }));
        }
        let root = self.files().map_err(refused)?;
        let before = match root.open_file(path, &Open::read()) {
            Ok(opened) => {
                let mut before = Vec::new();
                opened
                    .into_file()
                    .read_to_end(&mut before)
                    .map_err(|e| refused(e.into()))?;
                Some(before)
            }
            Err(io_beneath::Error::Io(e)) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(refused(e)),
        };
        let how = Open::write()
            .create(SHARED_FILE)
            .truncate()
            .dirs(SHARED_DIR);
        root.open_file(path, &how)
            .map_err(refused)?
            .into_file()
            .write_all(bytes)
            .map_err(|e| refused(e.into()))?;
        Ok(before.as_deref() != Some(bytes))
    }

    /// Runs an argv (never a shell) in the workspace, with the run's timeout,
    /// exactly as a `run` hook is run. Returns the observation and the
    /// sandbox outcome line.
    pub(super) fn exec(&self, argv: &[String]) -> (Result<ToolResult, ToolError>, String) {
        let program = argv.first().map_or("", String::as_str);
        let (result, output) = match self.run_capturing(argv, b"") {
            Ok(ran) => ran,
            Err(error) => {
                let error = ToolError::Start {
                    tool: "exec",
                    program: program.to_owned(),
                    error,
                };
                return (Err(error), "could not spawn".into());
            }
        };
        let text = String::from_utf8_lossy(&output);
        match result {
            Ok(()) => (
                Ok(ToolResult::seen(format!(
                    "[exec {program}] exited 0\n{text}"
                ))),
                "exited 0".into(),
            ),
            Err(failure) => {
                let outcome = failure.to_string();
                let error = ToolError::Exited {
                    program: program.to_owned(),
                    failure,
                    output: text.into_owned(),
                };
                (Err(error), outcome)
            }
        }
    }

    /// Runs an argv as a `run` hook is run (`io_supervisor::run_argv`), with
    /// `input` on stdin and the run's timeout, and returns how it ended with
    /// up to [`OBSERVATION_LIMIT`] bytes of what it printed. `Err` only when
    /// no pipe, or no thread to read it, could be had for its output.
    fn run_capturing(
        &self,
        argv: &[String],
        input: &[u8],
    ) -> io::Result<(Result<(), io_supervisor::ProcessError>, Vec<u8>)> {
        let (reader, writer) = io::pipe()?;
        let output = read_bounded(reader)?;
        let ended = crate::supervisor::process_supervisor().run_argv(
            argv,
            self.root,
            input,
            Stdio::from(writer),
            self.exec_timeout,
        );
        // The child's end closed when it exited; a grandchild still holding
        // it only costs us what it printed so far.
        Ok((ended, output.recv_timeout(OUTPUT_GRACE).unwrap_or_default()))
    }

    /// Sends one JSON-RPC request to an MCP server spoken to over stdio (the
    /// shape of an MCP `tools/call`, without the session around it) and
    /// returns the `result` of its first line of output.
    pub(super) fn mcp(
        &self,
        argv: &[String],
        method: &str,
        params: &Value,
    ) -> Result<String, ToolError> {
        let request =
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut line = request.to_string().into_bytes();
        line.push(b'\n');
        let (ran, text) = self
            .run_capturing(argv, &line)
            .map_err(ToolError::McpPipe)?;
        ran.map_err(ToolError::McpServer)?;
        let first = text.split(|&b| b == b'\n').next().unwrap_or_default();
        let reply: Value = serde_json::from_slice(first).map_err(ToolError::McpNotJson)?;
        match (reply.get("result"), reply.get("error")) {
            (Some(result), _) => Ok(result.to_string()),
            (None, Some(error)) => Err(ToolError::McpAnswered(error.clone())),
            (None, None) => Err(ToolError::McpNoAnswer),
        }
    }

    /// Starts an argv in the background, in its own process group (on
    /// Windows, a job object of its own: `Supervisor::spawn_tracked`),
    /// with no input and its output discarded; the group is killed on `io`'s
    /// interrupt ([`crate::supervisor::process_supervisor`]).
    pub(super) fn spawn_background(
        &self,
        argv: &[String],
    ) -> Result<io_supervisor::Tracked, ToolError> {
        let (program, rest) = argv.split_first().ok_or(ToolError::NoProgram)?;
        let resolved =
            io_supervisor::resolve_program(program, self.root).map_err(ToolError::NotFound)?;
        let mut command = Command::new(resolved);
        command
            .args(rest)
            .current_dir(self.root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        spawn_tracked(command).map_err(|error| ToolError::Start {
            tool: "exec_background",
            program: program.clone(),
            error,
        })
    }

    /// Writes `.io/memory/<key>.md`. The run's own notes, not its work: it
    /// does not move the workspace.
    pub(super) fn memory_write(&self, key: &str, value: &str) -> Result<(), ToolError> {
        let ok = !key.is_empty()
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !ok {
            return Err(ToolError::BadMemoryKey(key.to_owned()));
        }
        let rel = format!(".io/memory/{key}.md");
        self.private(&rel, value.as_bytes())
            .map_err(|e| file_error("memory_write", &rel, e))
    }

    /// Writes `.io/todo.md` from `items`, returning how many it holds.
    pub(super) fn todo_write(&self, items: &[&str]) -> Result<u32, ToolError> {
        let mut text = String::new();
        for item in items {
            text.push_str("- [ ] ");
            text.push_str(item);
            text.push('\n');
        }
        self.private(".io/todo.md", text.as_bytes())
            .map_err(|e| file_error("todo_write", ".io/todo.md", e))?;
        Ok(items.len() as u32)
    }

    /// Writes one of the run's own files under `.io`, private to its owner
    /// (it may hold the goal's details), beneath the root and through no
    /// symbolic link.
    fn private(&self, rel: &str, bytes: &[u8]) -> Result<(), io_beneath::Error> {
        let how = Open::write()
            .create(PRIVATE_FILE)
            .truncate()
            .dirs(PRIVATE_DIR);
        self.files()?
            .open_file(rel, &how.own_state())?
            .into_file()
            .write_all(bytes)
            .map_err(io_beneath::Error::from)
    }
}

/// The directory under the root that holds the run's own state: its
/// journals, memory and todo list.
pub(crate) const STATE_DIR: &str = ".io";
/// The mode of a private file (the journal, `.io`'s notes): its owner's.
pub(crate) const PRIVATE_FILE: u32 = 0o600;
/// The mode of a private directory (`.io` and everything under it).
pub(crate) const PRIVATE_DIR: u32 = 0o700;
/// The mode a workspace file is created with, before the umask.
const SHARED_FILE: u32 = 0o666;
/// The mode a workspace directory is created with, before the umask.
const SHARED_DIR: u32 = 0o777;

/// A file operation `op` on `rel` that failed or was refused beneath the
/// root. A write or an edit that would reach the run's own files is told
/// so in those words.
fn file_error(op: &'static str, rel: &str, error: io_beneath::Error) -> ToolError {
    if matches!(error, io_beneath::Error::Owned { .. }) && op != "read" {
        return ToolError::RunFiles {
            op,
            rel: rel.to_owned(),
        };
    }
    ToolError::File {
        op,
        rel: rel.to_owned(),
        error,
    }
}

/// How long to wait, once a command has ended, for the rest of its output.
const OUTPUT_GRACE: Duration = Duration::from_millis(200);

/// Reads up to [`OBSERVATION_LIMIT`] bytes of `reader` on a thread of its
/// own, then drains the rest, and sends what it kept when the pipe closes.
fn read_bounded(reader: io::PipeReader) -> io::Result<mpsc::Receiver<Vec<u8>>> {
    let (tx, rx) = mpsc::channel();
    // A thread the system refuses (`RLIMIT_NPROC`) fails the call, as a
    // pipe that cannot be made does, rather than panicking.
    thread::Builder::new().spawn(move || {
        let mut kept = Vec::new();
        let mut reader = reader;
        // A read error ends the output like an EOF does.
        let _ = (&mut reader)
            .take(OBSERVATION_LIMIT as u64)
            .read_to_end(&mut kept);
        let _ = io::copy(&mut reader, &mut io::sink());
        let _ = tx.send(kept);
    })?;
    Ok(rx)
}

/// Kills a background child's whole process group, then reaps it.
pub(crate) fn kill_and_reap(child: io_supervisor::Tracked) {
    child.kill_and_reap();
}

fn truncate(text: &str) -> &str {
    if text.len() <= OBSERVATION_LIMIT {
        return text;
    }
    let mut end = OBSERVATION_LIMIT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Spawns `command` in a process group of its own and hands the child to
/// `io`'s supervisor, which kills the group on an interrupt.
#[cfg(unix)]
fn spawn_tracked(mut command: Command) -> io::Result<io_supervisor::Tracked> {
    use std::os::unix::process::CommandExt;
    command.process_group(0).spawn().and_then(|child| {
        crate::supervisor::process_supervisor()
            .track(child)
            .map_err(io::Error::other)
    })
}

/// Spawns `command` in a job object of its own, through `io`'s supervisor,
/// which terminates the job (the child and every process it started) on an
/// interrupt.
#[cfg(windows)]
fn spawn_tracked(command: Command) -> io::Result<io_supervisor::Tracked> {
    crate::supervisor::process_supervisor()
        .spawn_tracked(command)
        .map_err(io::Error::other)
}
