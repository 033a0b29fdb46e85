//! The reference loop's tools by name: [`ToolName`] and [`TOOL_NAMES`],
//! declared from one list. It sits below the events and the loop alike: an
//! event's `tool` field holds one of these names (`#[hook(values)]` in
//! `event.rs`), and the loop's policy and dispatch parse a call's name
//! into a [`ToolName`] (`run/call.rs`, `run/policy.rs`).

/// Declares [`ToolName`] from one list of `Variant = "wire_name"` pairs, so
/// the enum, [`ToolName::ALL`] and the names cannot drift apart.
macro_rules! tool_names {
    ($($variant:ident = $name:literal,)*) => {
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
    ReadFile = "read_file",
    WriteFile = "write_file",
    EditFile = "edit_file",
    Spawn = "spawn",
    Exec = "exec",
    ExecBackground = "exec_background",
    Poll = "poll",
    Kill = "kill",
    MemoryWrite = "memory_write",
    TodoWrite = "todo_write",
    Ask = "ask",
    Mcp = "mcp",
}

impl ToolName {
    /// The tool the model named, or `None` for a name the loop does not have.
    pub(crate) fn parse(name: &str) -> Option<ToolName> {
        ToolName::ALL.iter().copied().find(|t| t.as_str() == name)
    }
}
