//! The tools a reference run can call. Each acts on the real workspace
//! directory; none reaches outside it, and none involves a shell.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::shim;

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
    fn seen(observation: String) -> Self {
        ToolResult {
            observation,
            moved: false,
        }
    }
}

/// A workspace tool's failure, shown to the model as its observation.
pub(crate) type ToolError = String;

/// The workspace a run acts on.
pub(crate) struct Workspace<'a> {
    pub root: &'a Path,
    pub exec_timeout: Duration,
}

impl Workspace<'_> {
    /// `rel` inside the workspace, or an error for an absolute path or one
    /// that climbs out with `..`.
    fn resolve(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let path = Path::new(rel);
        let inside = !rel.is_empty()
            && path
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if inside {
            Ok(self.root.join(path))
        } else {
            Err(format!(
                "`{rel}` is not a path inside the workspace (relative, without `..`)"
            ))
        }
    }

    pub fn read_file(&self, args: &Value) -> Result<ToolResult, ToolError> {
        let rel = str_arg(args, "path")?;
        let bytes = fs::read(self.resolve(rel)?).map_err(|e| format!("read {rel}: {e}"))?;
        let text = String::from_utf8_lossy(&bytes);
        Ok(ToolResult::seen(format!(
            "[read {rel}] ({} bytes)\n{}",
            bytes.len(),
            truncate(&text)
        )))
    }

    pub fn write_file(&self, args: &Value) -> Result<ToolResult, ToolError> {
        let rel = str_arg(args, "path")?;
        let content = str_arg(args, "content")?;
        let path = self.resolve(rel)?;
        let moved = self.write_compared(&path, content.as_bytes(), rel)?;
        Ok(ToolResult {
            observation: format!("[wrote {rel}] ({} chars)", content.chars().count()),
            moved,
        })
    }

    pub fn edit_file(&self, args: &Value) -> Result<ToolResult, ToolError> {
        let rel = str_arg(args, "path")?;
        let old = str_arg(args, "old")?;
        let new = str_arg(args, "new")?;
        let path = self.resolve(rel)?;
        let text = fs::read_to_string(&path).map_err(|e| format!("edit {rel}: {e}"))?;
        let count = text.matches(old).count();
        if count != 1 {
            return Err(format!(
                "edit {rel}: the text to replace occurs {count} times; it must occur exactly once"
            ));
        }
        let edited = text.replacen(old, new, 1);
        let moved = self.write_compared(&path, edited.as_bytes(), rel)?;
        Ok(ToolResult {
            observation: format!("[edited {rel}] ({} chars)", edited.chars().count()),
            moved,
        })
    }

    /// Writes `bytes`, returning whether they differ from what was there:
    /// the progress signal, decided here and never after a formatter.
    fn write_compared(&self, path: &Path, bytes: &[u8], rel: &str) -> Result<bool, ToolError> {
        let before = match fs::read(path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(format!("write {rel}: {e}")),
        };
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| format!("write {rel}: {e}"))?;
        }
        fs::write(path, bytes).map_err(|e| format!("write {rel}: {e}"))?;
        Ok(before.as_deref() != Some(bytes))
    }

    /// Runs an argv (never a shell) in the workspace, with the run's timeout.
    /// Returns the observation and the sandbox outcome line.
    pub fn exec(&self, argv: &[String]) -> (Result<ToolResult, ToolError>, String) {
        let Some((program, rest)) = argv.split_first() else {
            return (
                Err("exec: `argv` names no program".into()),
                "refused".into(),
            );
        };
        let Some(resolved) = shim::resolve_program(program, self.root) else {
            let e = format!("exec: `{program}` was not found");
            return (Err(e), "not found".into());
        };
        let mut command = Command::new(&resolved);
        command
            .args(rest)
            .current_dir(self.root)
            .stdin(Stdio::null())
            .stderr(Stdio::null());
        match shim::run_capturing(command, self.exec_timeout, OBSERVATION_LIMIT) {
            Ok((ending, output)) => {
                let text = String::from_utf8_lossy(&output);
                let observation = format!("[exec {program}] {ending}\n{}", truncate(&text));
                let outcome = ending.to_string();
                if ending.success() {
                    (Ok(ToolResult::seen(observation)), outcome)
                } else {
                    (Err(observation), outcome)
                }
            }
            Err(e) => (
                Err(format!("exec {program}: {e}")),
                "could not spawn".into(),
            ),
        }
    }
}

pub(crate) fn str_arg<'v>(args: &'v Value, key: &str) -> Result<&'v str, ToolError> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing string argument `{key}`"))
}

pub(crate) fn argv_arg(args: &Value) -> Result<Vec<String>, ToolError> {
    let items = args
        .get("argv")
        .and_then(Value::as_array)
        .ok_or("missing array argument `argv`")?;
    items
        .iter()
        .map(|v| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| "`argv` holds a non-string".into())
        })
        .collect()
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
