//! The tools a reference run can call. Each acts on the real workspace
//! directory; none reaches outside it, and none involves a shell.

use std::io::{self, Read};
use std::path::{Component, Path};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::Value;

use super::beneath::{self, Beneath};

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
    /// The workspace's files, opened beneath its root (see [`beneath`]).
    fn files(&self) -> Beneath<'_> {
        Beneath::new(self.root)
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

    /// [`resolve`](Self::resolve), refusing a path in the run's own `.io`:
    /// a `write_file` of `.io/runs/<id>.jsonl` would write the journal a
    /// resume acts on. Asked both of the path as given and of where it
    /// leads today, so a committed `notes -> .io/runs/r-1.jsonl` (a link
    /// that stays beneath the root, which the open would follow) is refused
    /// too.
    fn outside_run_files<'r>(&self, op: &'static str, rel: &'r str) -> Result<&'r Path, ToolError> {
        let path = Self::resolve(rel)?;
        let refused = || ToolError::RunFiles {
            op,
            rel: rel.to_owned(),
        };
        if leads_into_run_files(path) {
            return Err(refused());
        }
        let Ok(root) = std::fs::canonicalize(self.root) else {
            // The open will fail the same way, and say why.
            return Ok(path);
        };
        match real_path(&root.join(path), MAX_LINKS) {
            Some(real) => match real.strip_prefix(&root) {
                Ok(inside) if leads_into_run_files(inside) => Err(refused()),
                _ => Ok(path),
            },
            None => Err(refused()),
        }
    }

    /// Reads go beneath the root too: a link committed as `notes ->
    /// ~/.ssh/id_ed25519` would otherwise put a secret in the observation.
    pub(super) fn read_file(&self, rel: &str) -> Result<ToolResult, ToolError> {
        let bytes = self
            .files()
            .read(Self::resolve(rel)?)
            .map_err(|e| file_error("read", rel, e))?;
        let text = String::from_utf8_lossy(&bytes);
        Ok(ToolResult::seen(format!(
            "[read {rel}] ({} bytes)\n{}",
            bytes.len(),
            truncate(&text)
        )))
    }

    pub(super) fn write_file(&self, rel: &str, content: &str) -> Result<ToolResult, ToolError> {
        let path = self.outside_run_files("write", rel)?;
        let moved = self.write_compared(path, content.as_bytes(), rel)?;
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
        let path = self.outside_run_files("edit", rel)?;
        let bytes = self
            .files()
            .read(path)
            .map_err(|e| file_error("edit", rel, e))?;
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
        let moved = self.write_compared(path, edited.as_bytes(), rel)?;
        Ok(ToolResult {
            observation: format!("[edited {rel}] ({} chars)", edited.chars().count()),
            moved,
        })
    }

    /// Writes `bytes`, returning whether they differ from what was there:
    /// the progress signal, decided here and never after a formatter.
    fn write_compared(&self, path: &Path, bytes: &[u8], rel: &str) -> Result<bool, ToolError> {
        let files = self.files();
        let before = files
            .read_if_any(path)
            .map_err(|e| file_error("write", rel, e))?;
        files
            .write(path, bytes, beneath::SHARED_FILE, beneath::SHARED_DIR)
            .map_err(|e| file_error("write", rel, e))?;
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

    /// Runs an argv as a `run` hook is run (`io_hooks::process::run_argv`), with
    /// `input` on stdin and the run's timeout, and returns how it ended with
    /// up to [`OBSERVATION_LIMIT`] bytes of what it printed. `Err` only when
    /// no pipe, or no thread to read it, could be had for its output.
    fn run_capturing(
        &self,
        argv: &[String],
        input: &[u8],
    ) -> io::Result<(Result<(), io_hooks::HookFailure>, Vec<u8>)> {
        let (reader, writer) = io::pipe()?;
        let output = read_bounded(reader)?;
        let ended = crate::process_interrupt().run_argv(
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

    /// Starts an argv in the background, in its own process group, with no
    /// input and its output discarded; the group is killed on `io`'s
    /// interrupt ([`crate::process_interrupt`]).
    pub(super) fn spawn_background(
        &self,
        argv: &[String],
    ) -> Result<io_hooks::process::Tracked, ToolError> {
        use std::os::unix::process::CommandExt;
        let (program, rest) = argv.split_first().ok_or(ToolError::NoProgram)?;
        let resolved =
            io_hooks::process::resolve_program(program, self.root).map_err(ToolError::NotFound)?;
        Command::new(resolved)
            .args(rest)
            .current_dir(self.root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .and_then(|child| {
                crate::process_interrupt()
                    .track(child)
                    .map_err(io::Error::other)
            })
            .map_err(|error| ToolError::Start {
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
    /// (it may hold the goal's details), beneath the root.
    fn private(&self, rel: &str, bytes: &[u8]) -> Result<(), beneath::Error> {
        self.files().write(
            Path::new(rel),
            bytes,
            beneath::PRIVATE_FILE,
            beneath::PRIVATE_DIR,
        )
    }
}

/// How many symbolic links [`real_path`] follows, as the kernel's limit.
const MAX_LINKS: u32 = 40;

/// Whether the relative path `rel` starts in `.io` (in any case: a file
/// system that folds case opens `.IO` as `.io`).
fn leads_into_run_files(rel: &Path) -> bool {
    rel.components()
        .find(|c| matches!(c, Component::Normal(_)))
        .is_some_and(|c| c.as_os_str().eq_ignore_ascii_case(".io"))
}

/// Where `path` leads today: its canonical form where it exists; else,
/// through a dangling link at its end (up to `links` of them), or as its
/// parent's real path and its name, since a missing name is created as
/// itself. `None` when that cannot be told (a path ending in `..`, an
/// unreadable link).
fn real_path(path: &Path, links: u32) -> Option<std::path::PathBuf> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Some(real);
    }
    let parent = path.parent()?;
    let name = path.file_name()?;
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link && links > 0 {
        let target = std::fs::read_link(path).ok()?;
        return real_path(&parent.join(target), links - 1);
    }
    Some(real_path(parent, links)?.join(name))
}

/// A file operation `op` on `rel` that failed or was refused beneath the
/// root.
fn file_error(op: &'static str, rel: &str, error: beneath::Error) -> ToolError {
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
pub(crate) fn kill_and_reap(child: io_hooks::process::Tracked) {
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
