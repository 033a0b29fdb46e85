//! The embedder's tools and their arguments: what `where.<args>.<name>` is
//! checked against at load, and what `io check`-like audits read to say
//! which tools a policy lets through.
//!
//! The engine names no tool: an embedder whose events carry a tool's name
//! and its free-form arguments declares each tool once in a [`ToolTable`]
//! and gives it to [`Layout::tools`](crate::Layout::tools).

use std::fmt;

use crate::registry::Field;
#[cfg(doc)]
use crate::registry::FieldKind;

/// An embedder's tools: which event fields hold a call's tool name and its
/// arguments, and each tool's arguments and class.
///
/// ```
/// use io_hooks::{Field, FieldKind, ToolClass, ToolSpec, ToolTable};
///
/// static TOOLS: ToolTable = ToolTable {
///     tool_field: "tool",
///     args_field: "args",
///     tools: &[
///         ToolSpec {
///             name: "read",
///             class: ToolClass::Contained,
///             args: &[Field::new("path", FieldKind::Str, false)],
///         },
///         ToolSpec {
///             name: "run",
///             class: ToolClass::RunsCommands,
///             args: &[Field::new("argv", FieldKind::Strings, false)],
///         },
///     ],
///     open: &[],
/// };
/// assert_eq!(TOOLS.tool("run").map(|t| t.class), Some(ToolClass::RunsCommands));
/// assert_eq!(TOOLS.tool("read").and_then(|t| t.arg("path")).map(|a| a.kind), Some(FieldKind::Str));
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
    /// arguments are free-form (an MCP server's): each as its prefix
    /// (`mcp__`), what those tools can do (an embedder that cannot know
    /// says [`ToolClass::Opaque`]), and why their arguments cannot be
    /// filtered, in the embedder's words, for the refusal.
    pub open: &'static [(&'static str, ToolClass, &'static str)],
}

/// One tool: its name, what it can do, and its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolSpec {
    /// The name a call gives.
    pub name: &'static str,
    /// What it can do to the machine.
    pub class: ToolClass,
    /// Its arguments: each a field of the call's arguments object, by its
    /// key and what it holds ([`FieldKind::Strings`] for a command's argv,
    /// [`FieldKind::Other`] for one no filter may name). `optional` and
    /// `bounds` are read as an event field's are: the bounds of an integer
    /// argument are checked at load.
    pub args: &'static [Field],
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

    /// Returns the open tools whose prefix `name` starts with: their prefix,
    /// class and why their arguments are free-form.
    pub fn open_tool(&self, name: &str) -> Option<&(&'static str, ToolClass, &'static str)> {
        self.open
            .iter()
            .find(|(prefix, ..)| name.starts_with(prefix))
    }
}

impl ToolSpec {
    /// Returns the argument named `name`.
    pub fn arg(&self, name: &str) -> Option<&Field> {
        self.args.iter().find(|a| a.name == name)
    }
}
