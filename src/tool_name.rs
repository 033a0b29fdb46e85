//! The reference loop's tools by name: [`ToolName`] and [`TOOL_NAMES`],
//! declared from one list with each tool's arguments and class ([`TOOLS`]). It sits below the events and the loop alike: an
//! event's `tool` field holds one of these names (`#[hook(values)]` in
//! `event.rs`), and the loop's policy and dispatch parse a call's name
//! into a [`ToolName`] (`run/call.rs`, `run/policy.rs`).

/// Declares [`ToolName`] from one list of `Variant = "wire_name" (class)
/// [arguments]` rows, so the enum, [`ToolName::ALL`], the names and
/// [`TOOLS`] (each tool's arguments and class, what a hook's
/// `where.args.<name>` is checked against and what `io check` counts)
/// cannot drift apart.
macro_rules! tool_names {
    ($($variant:ident = $name:literal ($class:ident) [$($arg:ident: $kind:ident),*],)*) => {
        /// A tool of the reference loop, by the name the model calls it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum ToolName {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        /// Every tool's name, in the order declared: the strings a
        /// `tool` field of an event holds (`#[hook(values)]` in
        /// `event.rs`).
        pub(crate) const TOOL_NAMES: &[&str] = &[$($name),*];

        /// Every tool with its class and its arguments, in the order
        /// declared, and the MCP servers' tools (`mcp__…`), whose arguments
        /// are free-form: what a hook file is read with
        /// ([`io_hooks::Layout::tools`]).
        pub static TOOLS: io_hooks::ToolTable = io_hooks::ToolTable {
            tool_field: "tool",
            args_field: "args",
            tools: &[$(io_hooks::ToolSpec {
                name: $name,
                class: io_hooks::ToolClass::$class,
                args: &[$(io_hooks::Field::new(stringify!($arg), io_hooks::FieldKind::$kind, false)),*],
            }),*],
            open: &[(
                "mcp__",
                io_hooks::ToolClass::Opaque,
                "each MCP server declares its tools' arguments when it starts, after hooks are \
                 loaded",
            )],
        };

        impl ToolName {
            /// Every tool, in the order declared.
            pub(crate) const ALL: &[ToolName] = &[$(ToolName::$variant),*];

            /// The name the model calls the tool by.
            pub(crate) const fn as_str(self) -> &'static str {
                match self {
                    $(ToolName::$variant => $name,)*
                }
            }
        }
    };
}

tool_names! {
    ReadFile = "read_file" (Contained) [path: Str],
    WriteFile = "write_file" (WritesFiles) [path: Str, content: Str],
    EditFile = "edit_file" (WritesFiles) [path: Str, old: Str, new: Str],
    Spawn = "spawn" (StartsRuns) [goal: Str],
    Exec = "exec" (RunsCommands) [argv: Strings],
    ExecBackground = "exec_background" (RunsCommands) [argv: Strings],
    Poll = "poll" (Contained) [handle: Str],
    Kill = "kill" (Contained) [handle: Str],
    MemoryWrite = "memory_write" (Contained) [key: Str, value: Str],
    TodoWrite = "todo_write" (Contained) [items: Strings],
    Ask = "ask" (Contained) [question: Str],
    Mcp = "mcp" (Opaque) [server: Str, method: Str, params: Other],
}

impl ToolName {
    /// The tool the model named, or `None` for a name the loop does not have.
    pub(crate) fn parse(name: &str) -> Option<ToolName> {
        ToolName::ALL.iter().copied().find(|t| t.as_str() == name)
    }
}
