//! What a run may do: the [`Policy`] (allow, ask or deny, per tool and per
//! program) and the [`Approver`] that answers when the policy asks.
//!
//! This is the boundary against the agent. A hook is not: it receives events
//! and grants nothing.

use std::collections::BTreeMap;

use crate::tool_name::ToolName;

/// The policy's answer for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Go ahead.
    Allow,
    /// Ask the [`Approver`] first (an `approval_requested` event).
    Ask,
    /// Refuse (a `refused` event); the model sees the refusal.
    Deny,
}

/// Allow, ask or deny, per tool and, for `exec`, per program.
///
/// The default allows every tool the reference loop has but `mcp`, asks
/// for `mcp` and for any program `exec` or `exec_background` runs, and
/// denies a tool it does not know.
///
/// ```
/// use io_harness::run::{Policy, Rule};
///
/// let policy = Policy::default()
///     .program("cargo", Rule::Allow)
///     .program("rm", Rule::Deny);
/// assert_eq!(policy.for_tool("write_file"), Rule::Allow);
/// assert_eq!(policy.for_program("cargo"), Rule::Allow);
/// assert_eq!(policy.for_program("rm"), Rule::Deny);
/// assert_eq!(policy.for_program("curl"), Rule::Ask);
/// assert_eq!(policy.for_tool("format_disk"), Rule::Deny);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    tools: BTreeMap<String, Rule>,
    programs: BTreeMap<String, Rule>,
    other_tools: Rule,
    other_programs: Rule,
}

impl Default for Policy {
    fn default() -> Self {
        let tools = ToolName::ALL
            .iter()
            .map(|&tool| {
                let rule = match tool {
                    // An MCP server is a command someone else named: ask first.
                    ToolName::Mcp => Rule::Ask,
                    _ => Rule::Allow,
                };
                (tool.as_str().to_owned(), rule)
            })
            .collect();
        Policy {
            tools,
            programs: BTreeMap::new(),
            other_tools: Rule::Deny,
            other_programs: Rule::Ask,
        }
    }
}

impl Policy {
    /// Sets the rule for a tool.
    #[must_use]
    pub fn tool(mut self, name: &str, rule: Rule) -> Self {
        self.tools.insert(name.to_owned(), rule);
        self
    }

    /// Sets the rule for a program `exec` runs, by its name as the model
    /// wrote it (`cargo`, `./scripts/x`).
    #[must_use]
    pub fn program(mut self, name: &str, rule: Rule) -> Self {
        self.programs.insert(name.to_owned(), rule);
        self
    }

    /// Sets the rule for programs not named with [`program`](Self::program).
    #[must_use]
    pub fn other_programs(mut self, rule: Rule) -> Self {
        self.other_programs = rule;
        self
    }

    /// The rule for a tool.
    pub fn for_tool(&self, tool: &str) -> Rule {
        self.tools.get(tool).copied().unwrap_or(self.other_tools)
    }

    /// The rule for a program.
    pub fn for_program(&self, program: &str) -> Rule {
        self.programs
            .get(program)
            .copied()
            .unwrap_or(self.other_programs)
    }

    /// The rule for one call: the tool's, and for `exec` and
    /// `exec_background` the stricter of the tool's and the program's
    /// (`argv[0]`).
    ///
    /// ```
    /// use io_harness::run::{Policy, Rule};
    /// use serde_json::json;
    ///
    /// let policy = Policy::default().program("cargo", Rule::Allow);
    /// assert_eq!(policy.for_call("exec", &json!({"argv": ["cargo", "fmt"]})), Rule::Allow);
    /// assert_eq!(policy.for_call("exec", &json!({"argv": ["curl"]})), Rule::Ask);
    /// let strict = policy.tool("exec", Rule::Deny);
    /// assert_eq!(strict.for_call("exec", &json!({"argv": ["cargo"]})), Rule::Deny);
    /// ```
    pub fn for_call(&self, tool: &str, args: &serde_json::Value) -> Rule {
        let rule = self.for_tool(tool);
        let program = args
            .get("argv")
            .and_then(|argv| argv.get(0))
            .and_then(serde_json::Value::as_str);
        match (ToolName::parse(tool), program) {
            (Some(ToolName::Exec | ToolName::ExecBackground), Some(program)) => {
                rule.stricter(self.for_program(program))
            }
            _ => rule,
        }
    }
}

impl Rule {
    /// The stricter of two rules: deny over ask over allow.
    pub fn stricter(self, other: Rule) -> Rule {
        match (self, other) {
            (Rule::Deny, _) | (_, Rule::Deny) => Rule::Deny,
            (Rule::Ask, _) | (_, Rule::Ask) => Rule::Ask,
            _ => Rule::Allow,
        }
    }
}

/// A request the policy sent to the approver.
#[derive(Debug, Clone, Copy)]
pub struct ApprovalRequest<'a> {
    /// The run asking.
    pub run_id: &'a str,
    /// The tool.
    pub tool: &'a str,
    /// Its arguments.
    pub args: &'a serde_json::Value,
}

/// A question the model put to the operator with the `ask` tool.
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    /// The run asking.
    pub run_id: &'a str,
    /// The question.
    pub question: &'a str,
}

/// The operator's channel: answers the policy's `Ask`, and the model's
/// questions. A hook cannot reach it.
pub trait Approver: Send + Sync {
    /// Whether the call may go ahead.
    fn approve(&self, request: &ApprovalRequest<'_>) -> bool;

    /// The answer to a question, or `None` when there is nobody to answer
    /// (the default): the model is told so and goes on.
    fn answer(&self, question: &Question<'_>) -> Option<String> {
        let _ = question;
        None
    }
}

/// Approves everything the policy asks about.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

impl Approver for ApproveAll {
    fn approve(&self, _: &ApprovalRequest<'_>) -> bool {
        true
    }
}

/// Denies everything the policy asks about.
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

impl Approver for DenyAll {
    fn approve(&self, _: &ApprovalRequest<'_>) -> bool {
        false
    }
}
