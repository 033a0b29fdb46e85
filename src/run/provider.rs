//! The model side of a run: the [`Provider`] trait and [`ScriptedProvider`],
//! a file of model turns (no model is reachable from here, and a script makes
//! a run repeatable).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use io_beneath::Via;
use io_hooks::text::os_error;
use io_hooks::{TableError, TomlFile};
use serde::Deserialize;

use super::script::CallAt;

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
    /// Tools the provider ran on its side while producing the turn (a
    /// `server_tool_used` event each).
    #[serde(default)]
    pub server_tools: Vec<String>,
    /// Scripted flakiness: how many attempts at this turn fail before it is
    /// produced. Each failure is a `retry`; three in a row make the loop
    /// fall back to the provider's fallback, if it has one.
    #[serde(default)]
    pub fail: u32,
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

/// The most a script file may hold: 16 MiB, as much as the `begin` record
/// a resume reads (a goal of megabytes resumes).
const MAX_SCRIPT: u64 = 16 * 1024 * 1024;

/// A provider could not produce a turn, or a script could not be loaded.
/// `Display` is the operator's message, cause included; `source()` returns
/// nothing, and each cause stays reachable as its variant's `cause`.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProviderError {
    /// The model failed: an embedder's provider's own error, kept whole
    /// (downcast it to have it back) with its chain, which `Display` writes
    /// out: the error, then each of its sources, joined by ": ". A message
    /// alone is `ProviderError::Model("overloaded".into())`.
    Model(Box<dyn std::error::Error + Send + Sync>),
    /// A script file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: io::Error,
    },
    /// A script is not valid TOML, has a key a script does not take, a
    /// value of the wrong type, or (read by [`ScriptedProvider::read`]) a
    /// call the run loop would refuse for its arguments: the file, the key
    /// path, what is accepted, the line and column, and
    /// [`TableError::source_line`] for the line itself.
    Script(TableError),
    /// A script that could not be shown: the file and why.
    Parse {
        /// The script's name, as given.
        origin: String,
        /// What the TOML parser said, with its position.
        cause: String,
    },
    /// A script gives two scripts one goal.
    DuplicateGoal {
        /// The script's name.
        origin: String,
        /// The goal.
        goal: String,
    },
    /// The script has no turns for a run's goal.
    NoScript {
        /// The goal.
        goal: String,
    },
    /// A run asked for a step beyond its script's turns.
    OutOfTurns {
        /// The goal.
        goal: String,
        /// The turns the script has.
        turns: usize,
        /// The step asked for.
        step: u32,
    },
    /// A turn's scripted `fail`: this attempt fails as an overloaded model
    /// would.
    Scripted {
        /// This attempt, from 1.
        attempt: u32,
        /// The attempts that fail.
        fails: u32,
    },
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderError::Model(cause) => {
                write!(f, "{cause}")?;
                let mut next = cause.source();
                while let Some(inner) = next {
                    write!(f, ": {inner}")?;
                    next = inner.source();
                }
                Ok(())
            }
            ProviderError::Read { path, cause } => {
                write!(f, "{}: {}", path.display(), os_error(cause))
            }
            ProviderError::Script(error) => write!(f, "{error}"),
            ProviderError::Parse { origin, cause } => write!(f, "{origin}: {cause}"),
            ProviderError::DuplicateGoal { origin, goal } => write!(
                f,
                "{origin}: two scripts for the goal `{goal}`; give each run its own goal"
            ),
            ProviderError::NoScript { goal } => {
                write!(f, "the script has no turns for the goal `{goal}`")
            }
            ProviderError::OutOfTurns { goal, turns, step } => write!(
                f,
                "the script for `{goal}` has {turns} turns and step {step} asked for another"
            ),
            ProviderError::Scripted { attempt, fails } => {
                write!(
                    f,
                    "scripted failure {attempt} of {fails} (model overloaded)"
                )
            }
        }
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
    /// When no turn can be produced: the loop retries, then falls back, then
    /// fails the run with the message.
    fn turn(&self, request: &TurnRequest<'_>) -> Result<Turn, ProviderError>;

    /// Switches to a fallback model after repeated failures, returning its
    /// name, or `None` when there is none left (the default).
    fn fall_back(&self) -> Option<String> {
        None
    }
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
///
/// A script may also name a `fallback` model (taken after three failed
/// attempts at a turn) and carry an `[operator]` table, the human side of
/// the session: whether approvals are granted and the answers to questions.
/// [`operator`](Self::operator) turns it into an [`Approver`](crate::run::Approver).
#[derive(Debug)]
pub struct ScriptedProvider {
    goal: String,
    scripts: BTreeMap<String, Vec<Turn>>,
    fallback: Option<String>,
    fell_back: AtomicBool,
    /// Attempts so far at each (goal, step), for `fail`.
    attempts: Mutex<HashMap<(String, u32), u32>>,
    operator: ScriptedOperator,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    goal: String,
    #[serde(default)]
    fallback: Option<String>,
    #[serde(default, rename = "turn")]
    turns: Vec<Turn>,
    #[serde(default, rename = "child")]
    children: Vec<ChildScript>,
    #[serde(default)]
    operator: ScriptedOperator,
}

/// The operator's side of a scripted session: approvals and answers.
///
/// ```toml
/// [operator]
/// approve = false                       # deny what the policy asks about
/// answers = { "which file?" = "src/x.rs" }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedOperator {
    /// Whether approval requests are granted.
    #[serde(default = "yes")]
    pub approve: bool,
    /// Answers, by the exact question.
    #[serde(default)]
    pub answers: BTreeMap<String, String>,
}

fn yes() -> bool {
    true
}

impl Default for ScriptedOperator {
    fn default() -> Self {
        ScriptedOperator {
            approve: true,
            answers: BTreeMap::new(),
        }
    }
}

impl super::policy::Approver for ScriptedOperator {
    fn approve(&self, _: &super::policy::ApprovalRequest<'_>) -> bool {
        self.approve
    }

    fn answer(&self, question: &super::policy::Question<'_>) -> Option<String> {
        self.answers.get(question.question).cloned()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChildScript {
    goal: String,
    #[serde(default, rename = "turn")]
    turns: Vec<Turn>,
}

impl ScriptFile {
    /// Every call of the script, with its key path: the top-level turns',
    /// then each child's.
    fn calls(&self) -> Vec<CallAt<'_>> {
        let mut calls = Vec::new();
        let turns = std::iter::once((String::new(), &self.turns)).chain(
            self.children
                .iter()
                .enumerate()
                .map(|(i, child)| (format!("child[{}].", i + 1), &child.turns)),
        );
        for (prefix, turns) in turns {
            for (t, turn) in turns.iter().enumerate() {
                for (c, call) in turn.calls.iter().enumerate() {
                    calls.push(CallAt {
                        key: format!("{prefix}turn[{}].calls[{}]", t + 1, c + 1),
                        tool: &call.tool,
                        args: &call.args,
                    });
                }
            }
        }
        calls
    }
}

impl ScriptedProvider {
    /// Parses a script; `origin` names it in errors.
    ///
    /// # Errors
    /// A script that is not valid TOML, has an unknown key, or gives two
    /// scripts one goal.
    pub fn from_toml(origin: &str, text: &str) -> Result<Self, ProviderError> {
        Self::parse(&TomlFile::new(origin, text), false)
    }

    /// [`from_toml`](Self::from_toml); with `calls`, each call of a tool
    /// the loop has is checked as the loop reads its arguments too.
    fn parse(text: &TomlFile<'_>, calls: bool) -> Result<Self, ProviderError> {
        let origin = text.name();
        super::script::check_keys(text).map_err(ProviderError::Script)?;
        let file: ScriptFile = text.deserialize().map_err(ProviderError::Script)?;
        if calls {
            super::script::check_calls(text, file.calls()).map_err(ProviderError::Script)?;
        }
        let mut scripts = BTreeMap::new();
        scripts.insert(file.goal.clone(), file.turns);
        for child in file.children {
            if scripts.contains_key(&child.goal) {
                return Err(ProviderError::DuplicateGoal {
                    origin: origin.to_owned(),
                    goal: child.goal,
                });
            }
            scripts.insert(child.goal, child.turns);
        }
        Ok(ScriptedProvider {
            goal: file.goal,
            scripts,
            fallback: file.fallback,
            fell_back: AtomicBool::new(false),
            attempts: Mutex::new(HashMap::new()),
            operator: file.operator,
        })
    }

    /// Reads and parses the script at `path`, as a config file is read: a
    /// regular file only, judged before it is opened (a FIFO or a device is
    /// refused unopened, as is a file of `/proc` or `/sys`), and at most 16
    /// MiB of it. A script reached through a symbolic link (a clone's
    /// `script.toml -> ~/.netrc`, or `-> .env` beside it) is read, but when
    /// it does not load, nothing of it is shown: toml's message quotes the
    /// line, and a goal it repeats is its text.
    ///
    /// # Errors
    /// As [`from_toml`](Self::from_toml), or when the file cannot be read.
    pub fn from_path(path: &Path) -> Result<Self, ProviderError> {
        Self::read(path).map(|(provider, _)| provider)
    }

    /// [`from_path`](Self::from_path), with the script's text: what a run
    /// pins in its journal, so that a resume runs the script the run began
    /// with and reads no file the journal names.
    ///
    /// # Errors
    /// As [`from_path`](Self::from_path).
    pub fn read(path: &Path) -> Result<(Self, String), ProviderError> {
        let unread = |cause| ProviderError::Read {
            path: path.to_owned(),
            cause,
        };
        let (bytes, via) = crate::config::read_regular(path, MAX_SCRIPT).map_err(unread)?;
        let bytes = bytes.ok_or_else(|| {
            unread(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "larger than {} MiB, the most a script may hold, so it is not read",
                    MAX_SCRIPT / (1024 * 1024)
                ),
            ))
        })?;
        let text = String::from_utf8(bytes).map_err(|_| {
            unread(io::Error::new(
                io::ErrorKind::InvalidData,
                "not UTF-8 text, which a TOML file must be; none of it is shown",
            ))
        })?;
        let origin = path.display().to_string();
        let provider = Self::parse(&TomlFile::new(&origin, &text), true).map_err(|e| {
            let cause = match via {
                Via::Direct => return e,
                Via::LinkOut => {
                    "a symbolic link leading out of its directory, and not a script that loads; \
                     none of it is shown"
                }
                _ => {
                    "reached through a symbolic link, and not a script that loads; none of it \
                     is shown"
                }
            };
            ProviderError::Parse {
                cause: cause.to_owned(),
                origin,
            }
        })?;
        Ok((provider, text))
    }

    /// The top-level run's goal.
    pub fn goal(&self) -> &str {
        &self.goal
    }

    /// The script's `[operator]`: an approver that grants or denies as the
    /// script says and answers its questions.
    pub fn operator(&self) -> &ScriptedOperator {
        &self.operator
    }
}

impl Provider for ScriptedProvider {
    fn turn(&self, request: &TurnRequest<'_>) -> Result<Turn, ProviderError> {
        let turns = self
            .scripts
            .get(request.goal)
            .ok_or_else(|| ProviderError::NoScript {
                goal: request.goal.to_owned(),
            })?;
        let index = request.step.saturating_sub(1) as usize;
        let turn = turns.get(index).ok_or_else(|| ProviderError::OutOfTurns {
            goal: request.goal.to_owned(),
            turns: turns.len(),
            step: request.step,
        })?;
        if turn.fail > 0 {
            // A poisoned lock only means another run panicked mid-count.
            let mut attempts = self
                .attempts
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let n = attempts
                .entry((request.goal.to_owned(), request.step))
                .or_insert(0);
            *n += 1;
            if *n <= turn.fail {
                return Err(ProviderError::Scripted {
                    attempt: *n,
                    fails: turn.fail,
                });
            }
        }
        Ok(turn.clone())
    }

    fn fall_back(&self) -> Option<String> {
        let name = self.fallback.clone()?;
        (!self.fell_back.swap(true, Ordering::Relaxed)).then_some(name)
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

    /// An embedder's model error is kept whole: its message and each cause
    /// of its chain are in the text, once, and the error itself comes back
    /// by downcast.
    #[test]
    fn a_model_error_keeps_the_embedders_error_and_its_chain() {
        #[derive(Debug)]
        struct Overloaded(io::Error);
        impl fmt::Display for Overloaded {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the model is overloaded")
            }
        }
        impl std::error::Error for Overloaded {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let cause = io::Error::new(io::ErrorKind::TimedOut, "no answer in 30 s");
        let err = ProviderError::Model(Box::new(Overloaded(cause)));
        assert_eq!(
            err.to_string(),
            "the model is overloaded: no answer in 30 s"
        );
        assert!(std::error::Error::source(&err).is_none());
        let ProviderError::Model(inner) = err else {
            unreachable!()
        };
        let back = inner
            .downcast::<Overloaded>()
            .expect("the embedder's own type");
        assert_eq!(back.0.kind(), io::ErrorKind::TimedOut);
        assert_eq!(ProviderError::Model("busy".into()).to_string(), "busy");
    }

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
        assert!(err.to_string().contains("has 2 turns and step 3"), "{err}");
    }

    /// The key lists `script.rs` names a table's keys by are the keys
    /// serde reads: each struct's own list, from serde's refusal of a key
    /// none of them has.
    #[test]
    fn the_script_checks_key_lists_are_the_structs_fields() {
        fn fields<T: for<'de> Deserialize<'de>>(text: &str) -> Vec<String> {
            let err = toml::from_str::<T>(text).err().expect("refused");
            let message = err.message().to_owned();
            let list = message.split_once("expected ").expect("a list").1;
            list.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect()
        }
        let sorted = |keys: &[&str]| {
            let mut keys: Vec<String> = keys.iter().map(|k| (*k).to_owned()).collect();
            keys.sort();
            keys
        };
        let mut cases: Vec<(Vec<String>, &[&str])> = vec![
            (
                fields::<ScriptFile>("zzz = 1\n"),
                super::super::script::SCRIPT_KEYS,
            ),
            (fields::<Turn>("zzz = 1\n"), super::super::script::TURN_KEYS),
            (
                fields::<ToolCall>("zzz = 1\n"),
                super::super::script::CALL_KEYS,
            ),
            (
                fields::<ChildScript>("zzz = 1\n"),
                super::super::script::CHILD_KEYS,
            ),
            (
                fields::<ScriptedOperator>("zzz = 1\n"),
                super::super::script::OPERATOR_KEYS,
            ),
        ];
        for (serde, ours) in &mut cases {
            serde.sort();
            assert_eq!(*serde, sorted(ours));
        }
    }

    #[test]
    fn a_script_with_an_unknown_key_is_refused_naming_the_file() {
        let err = ScriptedProvider::from_toml("s.toml", "goal = \"g\"\n[[turn]]\nsya = \"a\"\n")
            .expect_err("unknown key");
        assert!(err.to_string().starts_with("s.toml:"), "{err}");
        assert!(err.to_string().contains("sya"), "{err}");
    }
}
