//! What a shell's Tab offers for a value, from the root the command line
//! names (its `--root`, else the one found from the working directory, as
//! the command itself would): event tags, profile names, hook names and
//! run ids. Each completer is an [`clap_complete::ArgValueCompleter`] on
//! its flag.
//!
//! Completion runs in whatever directory the shell is in, often a
//! repository just cloned, at every Tab. So nothing here runs a hook,
//! starts a program or writes a file (no journal, no key: with no key
//! there is no run id to offer); a name is offered only from a file `io`
//! would load as the operator's (`io_trust::judge`), only when a shell
//! reads it as the one word it is (no control character, no space, no
//! quote, no leading `-`), and whatever fails is no candidate.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use clap_complete::engine::CompletionCandidate;
use io_harness::run::{Key, Record};
use io_harness::{Config, EventKind, Kind, Scope, Source};

use crate::cli::hook_report::hook_key;
use crate::cli::journals::store;
use crate::cli::load::load;
use crate::cli::output::safe_line;

/// The most journals one Tab reads the first record of (each at most the
/// store's bound on a first record): a directory of journals a clone
/// shipped is not read whole at every Tab.
const MAX_JOURNALS: usize = 32;

/// The most characters of a candidate's description (a run's goal).
const HELP_SHOWN: usize = 60;

/// The event tags starting with what was typed, each with the first line
/// of its doc: the engine's registry of events, no file read.
pub(crate) fn events(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    Kind::<EventKind>::all()
        .filter(|kind| kind.tag().starts_with(typed))
        .map(|kind| candidate(kind.tag(), kind.doc()))
        .collect()
}

/// The profile names starting with what was typed that the operator's own
/// files declare ([`operators`]): the user-scope file, and an
/// `io.local.toml` judged theirs; never the project's `io.toml`.
pub(crate) fn profiles(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    let line = Line::typed();
    let Ok(config) = load(line.root.as_deref(), None) else {
        return Vec::new();
    };
    let mut names: BTreeMap<&str, String> = BTreeMap::new();
    for source in config.sources().iter().filter(|s| operators(s)) {
        for name in source.profiles() {
            let from = format!("[profile] in {}", source.path().display());
            names.entry(name).or_insert(from);
        }
    }
    names
        .into_iter()
        .filter(|(name, _)| name.starts_with(typed) && offerable(name))
        .map(|(name, from)| candidate(name, &from))
        .collect()
}

/// The `name`s of the hooks in force starting with what was typed, under
/// the line's `--profile` when it has one (what `--hook NAME` chooses
/// from), each with its key path.
pub(crate) fn hooks(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    let line = Line::typed();
    let Ok(config) = load(line.root.as_deref(), line.profile.as_deref()) else {
        return Vec::new();
    };
    config
        .hook_specs()
        .iter()
        .enumerate()
        .filter_map(|(i, spec)| Some((spec.name.as_deref()?, hook_key(spec, i))))
        .filter(|(name, _)| name.starts_with(typed) && offerable(name))
        .map(|(name, key)| candidate(name, &key))
        .collect()
}

/// The ids of the root's top-level runs starting with what was typed whose
/// journal this user's `io` wrote: its first record verifies with the key
/// in the data directory (no key, no candidate: none is made), and git
/// does not track it (a journal that came with a clone). At most
/// [`MAX_JOURNALS`] journals are read, each as far as its first record;
/// each id comes with its run's goal.
pub(crate) fn run_ids(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    let line = Line::typed();
    let Ok(config) = load(line.root.as_deref(), None) else {
        return Vec::new();
    };
    let Some(Ok(Some(key))) = Config::data_dir().map(Key::load) else {
        return Vec::new();
    };
    let store = store(config.root(), key);
    let Ok(mut ids) = store.runs() else {
        return Vec::new();
    };
    ids.retain(|id| id.starts_with(typed) && offerable(id));
    ids.sort();
    ids.truncate(MAX_JOURNALS);
    ids.into_iter()
        .filter_map(|id| {
            let Ok(Some(Record::Begin { goal, depth: 0, .. })) = store.begin(&id) else {
                return None;
            };
            let journal = store.journal(&id).ok()?;
            matches!(config.tracks(&journal), Ok(false)).then(|| candidate(&id, &goal))
        })
        .collect()
}

/// Whether `source`'s names may be offered: it is the operator's by
/// `io_trust::judge`. Loading judged every file that declares hooks (it
/// loads only as the operator's); a user-scope or local file that declares
/// none is judged here, as it would be if it did. The project's `io.toml`
/// is a clone's, never the operator's word.
fn operators(source: &Source) -> bool {
    let place = match source.scope() {
        Scope::Project => return false,
        Scope::User => io_trust::Place::UserScope,
        Scope::Local => io_trust::Place::Local,
    };
    let loaded_judged = source.declares_hooks()
        || source
            .profiles()
            .any(|name| source.profile_hooks(name).is_some());
    if loaded_judged {
        return true;
    }
    let Ok(Some(text)) = crate::commands::trust::read(source.path()) else {
        return false;
    };
    let store = Config::data_dir().map(io_trust::store::Store::new);
    io_trust::judge(source.path(), &text, place, store.as_ref()).is_ok_and(|v| v.is_operators())
}

/// Whether a shell reads `name` back as the one word it is: what
/// [`io_hooks::text::shell_word`] leaves bare (ASCII letters, digits and
/// `_@%+=:,./-`, so no control character, newline, space, quote or `$`),
/// and not starting with `-`, which would read as a flag. Other names are
/// not offered; they can still be typed, quoted.
fn offerable(name: &str) -> bool {
    !name.starts_with('-') && matches!(io_hooks::text::shell_word(name), Cow::Borrowed(_))
}

/// A candidate `value`, described by the first line of `help` (cut, and
/// escaped: a description is shown by zsh and fish beside the value).
fn candidate(value: &str, help: &str) -> CompletionCandidate {
    let first = help.lines().next().unwrap_or("").trim();
    let mut shown: String = first.chars().take(HELP_SHOWN).collect();
    if first.chars().count() > HELP_SHOWN {
        shown.push('…');
    }
    CompletionCandidate::new(value).help(Some(safe_line(&shown).into()))
}

/// What the command line being completed says of where to look: its
/// `--root` and its `--profile`.
#[derive(Debug, Default, PartialEq)]
struct Line {
    /// `--root DIR` or `--root=DIR`, the last one given.
    root: Option<PathBuf>,
    /// `--profile NAME` or `--profile=NAME`, the last one given.
    profile: Option<String>,
}

impl Line {
    /// The line `io` was asked to complete: the words after the first `--`
    /// of its own arguments (`COMPLETE=bash io -- io replay …`), the word
    /// being completed being `_CLAP_COMPLETE_INDEX` (bash, zsh, elvish),
    /// else the last.
    fn typed() -> Line {
        let words: Vec<OsString> = std::env::args_os()
            .skip_while(|a| a != "--")
            .skip(1)
            .collect();
        let current = std::env::var("_CLAP_COMPLETE_INDEX")
            .ok()
            .and_then(|i| i.parse().ok())
            .unwrap_or(words.len().saturating_sub(1));
        Line::of(&words, current)
    }

    /// The `--root` and `--profile` of `words` (the program's name first),
    /// leaving out the word at `current`, which is being typed; the words
    /// after a `--` are operands.
    fn of(words: &[OsString], current: usize) -> Line {
        let mut line = Line::default();
        let mut at = 1;
        while let Some(word) = words.get(at) {
            if word == "--" {
                break;
            }
            let next = words.get(at + 1).filter(|_| at + 1 != current);
            let (flag, value, used) = match word.to_str().and_then(|w| w.split_once('=')) {
                Some((flag, value)) => (flag, Some(OsString::from(value)), 1),
                None => (word.to_str().unwrap_or(""), next.cloned(), 2),
            };
            let value = value.filter(|_| at != current && !flag.is_empty());
            match (flag, value) {
                ("--root", Some(dir)) => line.root = Some(PathBuf::from(dir)),
                ("--profile", Some(name)) => line.profile = name.into_string().ok(),
                _ => {
                    at += 1;
                    continue;
                }
            }
            at += used;
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;
    use std::path::PathBuf;

    use super::{Line, offerable};

    /// The `--root` of `words`, `current` being typed.
    fn root_of(words: &[&str], current: usize) -> Option<PathBuf> {
        let words: Vec<OsString> = words.iter().map(OsString::from).collect();
        Line::of(&words, current).root
    }

    #[test]
    fn the_line_gives_its_root_and_profile_but_not_the_word_being_typed() {
        let line = |words: &[&str], current: usize| {
            let words: Vec<OsString> = words.iter().map(OsString::from).collect();
            Line::of(&words, current)
        };
        assert_eq!(
            line(
                &[
                    "io",
                    "replay",
                    "--root",
                    "/w",
                    "--profile",
                    "ci",
                    "--hook",
                    ""
                ],
                7
            ),
            Line {
                root: Some(PathBuf::from("/w")),
                profile: Some("ci".to_owned())
            }
        );
        assert_eq!(
            line(
                &["io", "replay", "--root=/w", "--profile=ci", "--hook", "a"],
                5
            ),
            Line {
                root: Some(PathBuf::from("/w")),
                profile: Some("ci".to_owned())
            }
        );
        // The profile being typed is not the line's profile.
        assert_eq!(line(&["io", "run", "--profile", "c"], 3).profile, None);
        assert_eq!(line(&["io", "run", "--profile=c"], 2).profile, None);
        // After `--`, words are operands.
        assert_eq!(
            root_of(&["io", "replay", "--", "--root", "/w", "x"], 5),
            None
        );
        // A flag at the end has no value.
        assert_eq!(root_of(&["io", "check", "--root"], 3), None);
        // The last one given wins.
        assert_eq!(
            root_of(&["io", "check", "--root", "/a", "--root", "/b", ""], 6),
            Some(PathBuf::from("/b"))
        );
        // A flag's value is not read as a flag.
        assert_eq!(
            root_of(&["io", "check", "--profile", "--root", "/a", ""], 5),
            None
        );
    }

    #[test]
    fn only_a_name_a_shell_reads_as_one_word_is_offered() {
        for name in ["ci", "r-0123abcdef01", "a.b_c-d", "x:y", "v1.2"] {
            assert!(offerable(name), "{name}");
        }
        for name in [
            "",
            "-x",
            "--root",
            "a b",
            "a\nb",
            "a\tb",
            "a\x1bb",
            "it's",
            "$(x)",
            "a\u{202e}b",
            "café",
            "=x",
            "a;b",
        ] {
            assert!(!offerable(name), "{name:?}");
        }
    }
}
