//! A tool call as the loop acts on it: the tool's name parsed once into a
//! [`ToolName`], from the one list of the reference loop's tools
//! (`tool_name.rs`), and its arguments into the typed fields of a [`Tool`].

use serde_json::Value;

use super::tools::ToolError;
use crate::tool_name::ToolName;

/// A call the loop carries out as the step goes, its arguments parsed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tool<'a> {
    ReadFile {
        path: &'a str,
    },
    WriteFile {
        path: &'a str,
        content: &'a str,
    },
    EditFile {
        path: &'a str,
        old: &'a str,
        new: &'a str,
    },
    Exec {
        argv: Vec<String>,
    },
    ExecBackground {
        argv: Vec<String>,
    },
    Poll {
        handle: &'a str,
    },
    Kill {
        handle: &'a str,
    },
    MemoryWrite {
        key: &'a str,
        value: &'a str,
    },
    TodoWrite {
        items: Vec<&'a str>,
    },
    Ask {
        question: &'a str,
    },
    Mcp {
        server: &'a str,
        method: &'a str,
        params: Value,
    },
}

/// A parsed call: one carried out in its place, or a `spawn`, which starts a
/// child run once the step's other calls are done.
#[derive(Debug)]
pub(crate) enum Call<'a> {
    /// Carried out in the order the model wrote it.
    Now(Tool<'a>),
    /// A child run: its goal, or why the call gives none (the child is then
    /// refused with that reason, in its turn).
    Spawn(Result<&'a str, ToolError>),
}

impl<'a> Call<'a> {
    /// Parses a call: its name, then its arguments in the order they are
    /// reported when missing. The error is what the model is shown.
    pub(crate) fn parse(name: &str, args: &'a Value) -> Result<Call<'a>, ToolError> {
        let tool = ToolName::parse(name).ok_or_else(|| ToolError::UnknownTool(name.to_owned()))?;
        let arg = |key| str_arg(args, key);
        Ok(Call::Now(match tool {
            ToolName::Spawn => return Ok(Call::Spawn(arg("goal"))),
            ToolName::ReadFile => Tool::ReadFile { path: arg("path")? },
            ToolName::WriteFile => Tool::WriteFile {
                path: arg("path")?,
                content: arg("content")?,
            },
            ToolName::EditFile => Tool::EditFile {
                path: arg("path")?,
                old: arg("old")?,
                new: arg("new")?,
            },
            ToolName::Exec => Tool::Exec {
                argv: argv_arg(args)?,
            },
            ToolName::ExecBackground => Tool::ExecBackground {
                argv: argv_arg(args)?,
            },
            ToolName::Poll => Tool::Poll {
                handle: arg("handle")?,
            },
            ToolName::Kill => Tool::Kill {
                handle: arg("handle")?,
            },
            ToolName::MemoryWrite => Tool::MemoryWrite {
                key: arg("key")?,
                value: arg("value")?,
            },
            ToolName::TodoWrite => Tool::TodoWrite {
                items: strings_arg(args, "items")?,
            },
            ToolName::Ask => Tool::Ask {
                question: arg("question")?,
            },
            ToolName::Mcp => Tool::Mcp {
                server: arg("server")?,
                method: arg("method")?,
                params: args
                    .get("params")
                    .cloned()
                    .unwrap_or_else(|| serde_json::json!({})),
            },
        }))
    }
}

fn str_arg<'v>(args: &'v Value, key: &'static str) -> Result<&'v str, ToolError> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or(ToolError::MissingString(key))
}

/// The `argv` argument: the program first, each an owned string.
fn argv_arg(args: &Value) -> Result<Vec<String>, ToolError> {
    Ok(strings_arg(args, "argv")?
        .into_iter()
        .map(str::to_owned)
        .collect())
}

/// An argument that is an array of strings.
fn strings_arg<'v>(args: &'v Value, key: &'static str) -> Result<Vec<&'v str>, ToolError> {
    let items = args
        .get(key)
        .and_then(Value::as_array)
        .ok_or(ToolError::MissingArray(key))?;
    items
        .iter()
        .map(|item| item.as_str().ok_or(ToolError::NotStrings(key)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_name_parses_back_to_its_tool_and_no_other_name_does() {
        for &tool in ToolName::ALL {
            assert_eq!(ToolName::parse(tool.as_str()), Some(tool));
        }
        assert_eq!(ToolName::ALL.len(), 12);
        assert_eq!(ToolName::parse("Read_file"), None);
        assert_eq!(ToolName::parse(""), None);
    }

    /// The one table of the tools' arguments (`tool_name.rs`'s [`TOOLS`],
    /// which `where.args` is checked against) is what the loop parses: a
    /// call holding every declared argument, of its declared type, parses;
    /// one missing any declared argument that is not free-form is refused
    /// naming it; and no tool reads an argument the table does not declare.
    ///
    /// [`TOOLS`]: crate::tool_name::TOOLS
    #[test]
    fn each_tool_parses_the_arguments_its_table_row_declares_and_no_other() {
        use io_hooks::FieldKind;
        let tools = &crate::tool_name::TOOLS;
        assert_eq!(tools.tools.len(), ToolName::ALL.len());
        for (spec, tool) in tools.tools.iter().zip(ToolName::ALL) {
            assert_eq!(spec.name, tool.as_str());
            let value = |kind| match kind {
                FieldKind::Strings => json!(["a", "b"]),
                FieldKind::Other => json!({"k": 1}),
                _ => json!("a"),
            };
            let all: serde_json::Map<String, Value> = spec
                .args
                .iter()
                .map(|a| (a.name.to_owned(), value(a.kind)))
                .collect();
            let full = Value::Object(all.clone());
            match Call::parse(spec.name, &full) {
                Ok(Call::Now(_) | Call::Spawn(Ok(_))) => {}
                other => panic!("{}: {other:?}", spec.name),
            }
            for arg in spec.args.iter().filter(|a| a.kind != FieldKind::Other) {
                let mut without = all.clone();
                without.remove(arg.name);
                let refused = match Call::parse(spec.name, &Value::Object(without)) {
                    Err(e) | Ok(Call::Spawn(Err(e))) => e.to_string(),
                    Ok(call) => panic!("{} without `{}`: {call:?}", spec.name, arg.name),
                };
                assert!(refused.contains(&format!("`{}`", arg.name)), "{refused}");
            }
        }
    }

    #[test]
    fn arguments_are_checked_in_the_order_written() {
        let args = json!({"path": "a"});
        let err = |call: Result<Call<'_>, ToolError>| match call {
            Err(e) => e,
            Ok(call) => panic!("parsed: {call:?}"),
        };
        let missing = err(Call::parse("edit_file", &args));
        assert!(matches!(missing, ToolError::MissingString("old")));
        assert_eq!(missing.to_string(), "missing string argument `old`");
        let mixed = err(Call::parse("todo_write", &json!({"items": ["a", 1]})));
        assert!(matches!(mixed, ToolError::NotStrings("items")));
        assert_eq!(mixed.to_string(), "`items` holds a non-string");
        let absent = err(Call::parse("todo_write", &json!({})));
        assert_eq!(absent.to_string(), "missing array argument `items`");
        match Call::parse("spawn", &json!({})) {
            Ok(Call::Spawn(Err(e))) => {
                assert_eq!(e.to_string(), "missing string argument `goal`");
            }
            other => panic!("expected a spawn without a goal: {other:?}"),
        }
        let unknown = err(Call::parse("nope", &args));
        assert!(matches!(&unknown, ToolError::UnknownTool(name) if name == "nope"));
        assert_eq!(unknown.to_string(), "no tool named `nope`");
    }
}
