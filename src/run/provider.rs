//! The model side of a run: the [`Provider`] trait and [`ScriptedProvider`],
//! a file of model turns (no model is reachable from here, and a script makes
//! a run repeatable).

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::Deserialize;

/// What the loop asks the provider for: the next turn of one run.
#[derive(Debug, Clone, Copy)]
pub struct TurnRequest<'a> {
    /// The run's goal; a child run's is the goal its parent gave it.
    pub goal: &'a str,
    /// The step about to be taken, from 1.
    pub step: u32,
    /// 0 for a top-level run.
    pub depth: u32,
    /// The observations of every step so far, oldest first.
    pub observations: &'a [String],
}

/// One model turn: text streamed token by token, then tool calls or a final
/// answer.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// The text the model streams; each token is a `token` event.
    #[serde(default)]
    pub say: String,
    /// The tools the model calls, in order.
    #[serde(default)]
    pub calls: Vec<ToolCall>,
    /// A revised plan, announced before the calls (a `replan` event).
    #[serde(default)]
    pub replan: Option<String>,
    /// The final answer: the run completes after this turn.
    #[serde(default)]
    pub answer: Option<String>,
}

/// One tool call as the model writes it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The tool's name.
    pub tool: String,
    /// Its arguments.
    #[serde(default = "empty_object")]
    pub args: serde_json::Value,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

/// A provider could not produce a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderError(pub String);

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProviderError {}

/// The model: given where a run is, its next turn.
///
/// Called from several threads when a run spawns children, hence
/// `Send + Sync`.
pub trait Provider: Send + Sync {
    /// The next turn of the run described by `request`.
    ///
    /// # Errors
    /// When no turn can be produced; the run fails with the message.
    fn turn(&self, request: &TurnRequest<'_>) -> Result<Turn, ProviderError>;
}

/// A script of model turns, keyed by goal: the top-level run's turns, and a
/// `[[child]]` table for each goal a `spawn` call may give.
///
/// ```toml
/// goal = "add a greeting"
///
/// [[turn]]
/// say = "I'll write the module."
/// calls = [{ tool = "write_file", args = { path = "greet.txt", content = "hi\n" } }]
///
/// [[turn]]
/// answer = "Done."
///
/// [[child]]
/// goal = "write the docs"
/// [[child.turn]]
/// answer = "Nothing to add."
/// ```
///
/// Turn *k* answers step *k*; a run that asks for a step past its script's
/// end gets an error, so a script that forgets its answer fails loudly.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedProvider {
    goal: String,
    scripts: BTreeMap<String, Vec<Turn>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    goal: String,
    #[serde(default, rename = "turn")]
    turns: Vec<Turn>,
    #[serde(default, rename = "child")]
    children: Vec<ChildScript>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChildScript {
    goal: String,
    #[serde(default, rename = "turn")]
    turns: Vec<Turn>,
}

impl ScriptedProvider {
    /// Parses a script; `origin` names it in errors.
    ///
    /// # Errors
    /// A script that is not valid TOML, has an unknown key, or gives two
    /// scripts one goal.
    pub fn from_toml(origin: &str, text: &str) -> Result<Self, ProviderError> {
        let file: ScriptFile = toml::from_str(text)
            .map_err(|e| ProviderError(format!("{origin}: {}", e.to_string().trim_end())))?;
        let mut scripts = BTreeMap::new();
        scripts.insert(file.goal.clone(), file.turns);
        for child in file.children {
            if scripts.contains_key(&child.goal) {
                return Err(ProviderError(format!(
                    "{origin}: two scripts for the goal `{}`; give each run its own goal",
                    child.goal
                )));
            }
            scripts.insert(child.goal, child.turns);
        }
        Ok(ScriptedProvider {
            goal: file.goal,
            scripts,
        })
    }

    /// Reads and parses the script at `path`.
    ///
    /// # Errors
    /// As [`from_toml`](Self::from_toml), or when the file cannot be read.
    pub fn from_path(path: &Path) -> Result<Self, ProviderError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ProviderError(format!("{}: {e}", path.display())))?;
        Self::from_toml(&path.display().to_string(), &text)
    }

    /// The top-level run's goal.
    pub fn goal(&self) -> &str {
        &self.goal
    }
}

impl Provider for ScriptedProvider {
    fn turn(&self, request: &TurnRequest<'_>) -> Result<Turn, ProviderError> {
        let turns = self.scripts.get(request.goal).ok_or_else(|| {
            ProviderError(format!(
                "the script has no turns for the goal `{}`",
                request.goal
            ))
        })?;
        let index = request.step.saturating_sub(1) as usize;
        turns.get(index).cloned().ok_or_else(|| {
            ProviderError(format!(
                "the script for `{}` has {} turns and step {} asked for another",
                request.goal,
                turns.len(),
                request.step
            ))
        })
    }
}

/// Splits streamed text into tokens: each word with the whitespace before
/// it, so joining the tokens gives the text back.
pub(crate) fn tokens(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let word_start = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        let end = rest[word_start..]
            .find(char::is_whitespace)
            .map_or(rest.len(), |i| word_start + i);
        let (token, tail) = rest.split_at(end);
        rest = tail;
        Some(token)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_join_back_to_the_text() {
        let text = "  fn main() {\n    hi();\n}\n";
        let t: Vec<&str> = tokens(text).collect();
        assert_eq!(t.concat(), text);
        assert_eq!(t[0], "  fn");
        assert_eq!(tokens("").count(), 0);
    }

    #[test]
    fn a_script_answers_each_step_with_its_turn_and_errs_past_the_end() {
        let p = ScriptedProvider::from_toml(
            "s.toml",
            "goal = \"g\"\n[[turn]]\nsay = \"a\"\n[[turn]]\nanswer = \"done\"\n",
        )
        .expect("parses");
        let req = |step| TurnRequest {
            goal: "g",
            step,
            depth: 0,
            observations: &[],
        };
        assert_eq!(p.turn(&req(1)).expect("turn 1").say, "a");
        assert_eq!(
            p.turn(&req(2)).expect("turn 2").answer.as_deref(),
            Some("done")
        );
        let err = p.turn(&req(3)).expect_err("past the end");
        assert!(err.0.contains("has 2 turns and step 3"), "{err}");
    }

    #[test]
    fn a_script_with_an_unknown_key_is_refused_naming_the_file() {
        let err = ScriptedProvider::from_toml("s.toml", "goal = \"g\"\n[[turn]]\nsya = \"a\"\n")
            .expect_err("unknown key");
        assert!(err.0.starts_with("s.toml:"), "{err}");
        assert!(err.0.contains("sya"), "{err}");
    }
}
