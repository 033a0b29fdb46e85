//! Why a tool call failed, as data: the loop shows it to the model as the
//! call's observation (`[edit_file failed] …`), and a test or a reader of
//! the code can tell one failure from another without matching on text.

use std::fmt;
use std::io;

use io_supervisor::ProcessError;
use serde_json::Value;

/// A workspace tool's failure. Its `Display` is the text the model is
/// shown, cause included; like the crate's other errors it returns no
/// [`source`](std::error::Error::source), so no chain shows a cause twice.
#[derive(Debug)]
pub(crate) enum ToolError {
    /// The model called a tool the loop does not have.
    UnknownTool(String),
    /// A string argument is missing (or is not a string).
    MissingString(&'static str),
    /// An array argument is missing (or is not an array).
    MissingArray(&'static str),
    /// An array argument holds something other than strings.
    NotStrings(&'static str),
    /// A path argument is empty, absolute or climbs out with `..`.
    NotInside(String),
    /// A file under the root could not be read or written, or the path was
    /// refused on the way (`op` is the tool's verb: `read`, `write`, ...).
    File {
        op: &'static str,
        rel: String,
        error: io_beneath::Error,
    },
    /// `write_file` or `edit_file` of a path in the run's own `.io` (its
    /// journal, memory and todo list), named or reached through a link.
    RunFiles { op: &'static str, rel: String },
    /// `edit_file` on a file that is not UTF-8.
    NotUtf8 { rel: String },
    /// `edit_file`'s text to replace does not occur exactly once.
    EditMatches { rel: String, count: usize },
    /// `exec_background` with an empty `argv`.
    NoProgram,
    /// `exec_background`'s program is not on the `PATH` a hook gets.
    NotFound(ProcessError),
    /// The program could not be started (`tool` is the tool's name).
    Start {
        tool: &'static str,
        program: String,
        error: io::Error,
    },
    /// `exec`'s program ran and failed; `output` is what it printed.
    Exited {
        program: String,
        failure: ProcessError,
        output: String,
    },
    /// No MCP server of that name in the contract.
    NoMcpServer { server: String, known: Vec<String> },
    /// The MCP server could not be asked: no pipe for its output.
    McpPipe(io::Error),
    /// The MCP server did not run to a clean exit.
    McpServer(ProcessError),
    /// The MCP server's first line is not JSON.
    McpNotJson(serde_json::Error),
    /// The MCP server answered with an `error`.
    McpAnswered(Value),
    /// The MCP server's answer has neither `result` nor `error`.
    McpNoAnswer,
    /// `memory_write`'s key has characters other than letters, digits, `-`
    /// and `_`.
    BadMemoryKey(String),
    /// `poll` or `kill` of a handle that is not running.
    NoHandle(String),
    /// `poll` could not ask the system about the handle's process.
    Poll { handle: String, error: io::Error },
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::UnknownTool(name) => write!(f, "no tool named `{name}`"),
            ToolError::MissingString(key) => write!(f, "missing string argument `{key}`"),
            ToolError::MissingArray(key) => write!(f, "missing array argument `{key}`"),
            ToolError::NotStrings(key) => write!(f, "`{key}` holds a non-string"),
            ToolError::NotInside(rel) => write!(
                f,
                "`{rel}` is not a path inside the workspace (relative, without `..`)"
            ),
            ToolError::File { op, rel, error } => describe(f, error, op, rel),
            ToolError::RunFiles { op, rel } => write!(
                f,
                "{op} {rel}: refused: `{rel}` is in `.io`, which holds the run's own journal and notes; the file tools never write there (use memory_write or todo_write for notes)"
            ),
            ToolError::NotUtf8 { rel } => {
                write!(f, "edit {rel}: stream did not contain valid UTF-8")
            }
            ToolError::EditMatches { rel, count } => write!(
                f,
                "edit {rel}: the text to replace occurs {count} times; it must occur exactly once"
            ),
            ToolError::NoProgram => f.write_str("exec_background: `argv` names no program"),
            ToolError::NotFound(e) => write!(f, "exec_background: {e}"),
            ToolError::Start {
                tool,
                program,
                error,
            } => write!(f, "{tool} {program}: {error}"),
            ToolError::Exited {
                program,
                failure,
                output,
            } => write!(f, "[exec {program}] {failure}\n{output}"),
            ToolError::NoMcpServer { server, known } => write!(
                f,
                "no MCP server named `{server}`; this run has: {}",
                known.join(", ")
            ),
            ToolError::McpPipe(e) => write!(f, "mcp: {e}"),
            ToolError::McpServer(e) => write!(f, "mcp: the server {e}"),
            ToolError::McpNotJson(e) => write!(f, "mcp: the server's answer is not JSON: {e}"),
            ToolError::McpAnswered(error) => {
                write!(f, "mcp: the server answered an error: {error}")
            }
            ToolError::McpNoAnswer => {
                f.write_str("mcp: the server's answer has neither `result` nor `error`")
            }
            ToolError::BadMemoryKey(key) => write!(
                f,
                "memory_write: `{key}` is not a key (letters, digits, `-` and `_`)"
            ),
            ToolError::NoHandle(handle) => write!(f, "no running handle `{handle}`"),
            ToolError::Poll { handle, error } => write!(f, "poll {handle}: {error}"),
        }
    }
}

impl std::error::Error for ToolError {}

/// The message a tool shows the model for `error`: `op` (`read`,
/// `write`, ...) and `rel` as the model gave it.
fn describe(
    f: &mut fmt::Formatter<'_>,
    error: &io_beneath::Error,
    op: &str,
    rel: &str,
) -> fmt::Result {
    write!(f, "{op} {rel}: ")?;
    match error {
        io_beneath::Error::Outside { through: None } => write!(
            f,
            "refused: `{rel}` leads outside the workspace (through `..`, an absolute path or a symbolic link)"
        ),
        io_beneath::Error::Outside {
            through: Some(link),
        } => write!(
            f,
            "refused: `{rel}` goes through the symbolic link `{}`, which may lead outside the workspace (without openat2 no link is followed)",
            link.display()
        ),
        io_beneath::Error::NotRegular { kind } => write!(
            f,
            "refused: `{rel}` is {kind}, not a regular file (reading or writing it could block the run)"
        ),
        io_beneath::Error::Link => write!(
            f,
            "refused: `{rel}` goes through a symbolic link in `.io`, the run's own files, which are reached through none"
        ),
        io_beneath::Error::Owned { .. } => write!(
            f,
            "refused: `{rel}` leads into `.io`, the run's own files, through a symbolic link"
        ),
        io_beneath::Error::LinkToNothing => write!(
            f,
            "refused: `{rel}` is a symbolic link to a file that does not exist, and no file is created through a link"
        ),
        io_beneath::Error::Io(e) => write!(f, "{e}"),
        other => write!(f, "refused: {other}"),
    }
}
