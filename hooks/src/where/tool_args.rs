//! The embedder's tools and their arguments: what `where.<args>.<name>` is
//! checked against at load, and what `io check`-like audits read to say
//! which tools a policy lets through.
//!
//! The engine names no tool: an embedder whose events carry a tool's name
//! and its free-form arguments declares each tool once in a [`ToolTable`]
//! and gives it to [`Layout::tools`](crate::Layout::tools).

use std::fmt;

/// An embedder's tools: which event fields hold a call's tool name and its
/// arguments, and each tool's arguments and class.
///
/// ```
/// use io_hooks::{ArgKind, ToolArg, ToolClass, ToolSpec, ToolTable};
///
/// static TOOLS: ToolTable = ToolTable {
///     tool_field: "tool",
///     args_field: "args",
///     tools: &[
///         ToolSpec { name: "read", class: ToolClass::Contained, args: &[ToolArg::new("path", ArgKind::Str)] },
///         ToolSpec { name: "run", class: ToolClass::RunsCommands, args: &[ToolArg::new("argv", ArgKind::Strings)] },
///     ],
///     open: &[],
/// };
/// assert_eq!(TOOLS.tool("run").map(|t| t.class), Some(ToolClass::RunsCommands));
/// assert_eq!(TOOLS.tool("read").and_then(|t| t.arg("path")).map(|a| a.kind), Some(ArgKind::Str));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolTable {
    /// The event field holding the tool's name (a string).
    pub tool_field: &'static str,
    /// The event field holding the call's arguments, a JSON object (a
    /// free-form field: [`Enveloped::free_form`](crate::Enveloped::free_form)
    /// gives its text).
    pub args_field: &'static str,
    /// Each tool, declared once.
    pub tools: &'static [ToolSpec],
    /// Tools known only at run time, by the prefix of their names, whose
    /// arguments are free-form (an MCP server's).
    pub open: &'static [OpenTools],
}

/// One tool: its name, what it can do, and its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSpec {
    /// The name a call gives.
    pub name: &'static str,
    /// What it can do to the machine.
    pub class: ToolClass,
    /// Its arguments.
    pub args: &'static [ToolArg],
}

/// Tools whose names start with `prefix`, known only at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenTools {
    /// The prefix (`mcp__`).
    pub prefix: &'static str,
    /// What they can do; an embedder that cannot know says
    /// [`ToolClass::Opaque`].
    pub class: ToolClass,
    /// Why their arguments cannot be filtered, for the refusal.
    pub why_free_form: &'static str,
}

/// One argument of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolArg {
    /// Its key in the arguments object.
    pub name: &'static str,
    /// What it holds.
    pub kind: ArgKind,
}

impl ToolArg {
    /// An argument `name` holding `kind`.
    pub const fn new(name: &'static str, kind: ArgKind) -> Self {
        ToolArg { name, kind }
    }
}

/// What an argument holds, as a filter reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgKind {
    /// A string.
    Str,
    /// An integer.
    Integer,
    /// A bool.
    Bool,
    /// An array of strings (a command's `argv`): a filter matches the
    /// elements joined by single spaces, the command line as an operator
    /// reads it (`git push --force`), with no quoting.
    Strings,
    /// Free-form JSON: no filter may name it.
    FreeForm,
}

impl ArgKind {
    /// In words, for messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            ArgKind::Str => "a string",
            ArgKind::Integer => "an integer",
            ArgKind::Bool => "a bool",
            ArgKind::Strings => "a list of strings (matched as one command line)",
            ArgKind::FreeForm => "free-form",
        }
    }
}

/// What a tool can do, declared once with the tool, so an audit of what a
/// policy lets through counts a new tool without a second list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolClass {
    /// Stays within what the run already holds: reads files, asks,
    /// records its own state, polls or stops its own processes. Nothing a
    /// policy on commands or written files needs to see.
    Contained,
    /// Writes or changes files.
    WritesFiles,
    /// Runs a command.
    RunsCommands,
    /// Starts another run, with tools of its own.
    StartsRuns,
    /// Does what another program decides (an MCP server's tool).
    Opaque,
}

impl ToolClass {
    /// Whether a policy on commands or files that lets it through misses
    /// something: every class but [`ToolClass::Contained`].
    pub const fn reaches(self) -> bool {
        !matches!(self, ToolClass::Contained)
    }

    /// In words: `writes files`, `runs commands`, ….
    pub const fn as_str(self) -> &'static str {
        match self {
            ToolClass::Contained => "stays within the run",
            ToolClass::WritesFiles => "writes files",
            ToolClass::RunsCommands => "runs commands",
            ToolClass::StartsRuns => "starts runs with tools of their own",
            ToolClass::Opaque => "does what another program decides",
        }
    }
}

impl fmt::Display for ToolClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ToolTable {
    /// The tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&ToolSpec> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The open tools whose prefix `name` starts with.
    pub fn open_tool(&self, name: &str) -> Option<&OpenTools> {
        self.open.iter().find(|o| name.starts_with(o.prefix))
    }
}

impl ToolSpec {
    /// The argument named `name`.
    pub fn arg(&self, name: &str) -> Option<&ToolArg> {
        self.args.iter().find(|a| a.name == name)
    }
}
