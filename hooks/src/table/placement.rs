//! Where hooks may be declared, and the keys that would hide them.
//!
//! Hooks are read from the top-level `hook` array and, for each section of
//! the file's [`Layout`], the `hook` array of each of its
//! bodies (`[target.<name>]`). Anything else that looks like a declaration
//! of hooks would load as "no hooks declared", which is the silence this
//! feature must not allow, so it is an error:
//!
//! - a near miss of `hook` (`hooks`, `Hook`, `hok`) in those places,
//!   whatever its value;
//! - `hook`, or a near miss of it, holding a table or an array anywhere
//!   else (`[[targets.ci.hook]]`, `[[ci.hook]]`, `[tool.hook]`). A string
//!   or a number there is some other part's business and is left alone;
//! - a key of a hook table (`on`, `where`, `append`, `run`, `on_failure`,
//!   `timeout_ms`, `background`, an embedder's action's key) at the top
//!   level or in a section's body: a `[[hook]]` header left out, which
//!   would leave the keys in no table. `name` and `enabled` are not among
//!   them: a host's own document uses those words for itself.
//!
//! A near miss is decided by [`is_near_miss`]; [`near_miss_pattern`] is the
//! same rule as a regular expression, for the JSON Schema, so that an
//! editor and the loader refuse the same names.

use std::fmt::Write as _;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::key_table::stray_keys;
use crate::key::HOOK;
use crate::layout::Layout;
use crate::position::toml_key;
use crate::registry::did_you_mean;

/// Whether `key` is a misspelling of `hook`: not `hook` itself, but equal
/// to it ignoring ASCII case (`Hook`), or, once ASCII-lowercased, starting
/// with `h` as `hook` does and within [`did_you_mean`]'s distance of it
/// (`hooks`, `hok`, `hoook`, `hool`). The first-letter rule keeps ordinary
/// words one edit away (`book`, `look`) loading: other parts of the
/// embedder own unknown keys, and a typo rarely changes the first letter.
/// (`hooks`, `HOOK` and `hok` are near misses; `hook`, `book` and
/// `hooks_dir` are not.)
pub(crate) fn is_near_miss(key: &str) -> bool {
    if key == HOOK {
        return false;
    }
    let lower = key.to_ascii_lowercase();
    lower == HOOK || (lower.starts_with('h') && did_you_mean(&lower, [HOOK]).is_some())
}

/// [`is_near_miss`]'s names as patterns: a letter stands for itself in
/// either ASCII case, `.` for any one character. With the distance
/// `did_you_mean` allows (one edit up to five characters, two at six), a
/// name within it of `hook` and starting with `h` is `hook` with one letter
/// dropped, one changed, two neighbours swapped, one added, or two added;
/// a unit test proves the two rules equal.
const NEAR_MISSES: &[&str] = &[
    "hok", "hoo", // one dropped
    "h.ok", "ho.k", "hoo.", "hoko", // one changed, two swapped
    "h.ook", "ho.ok", "hoo.k", "hook.", // one added
    "h..ook", "h.o.ok", "h.oo.k", "h.ook.", "ho..ok", "ho.o.k", "ho.ok.", "hoo..k", "hoo.k.",
    "hook..", // two added
];

/// [`is_near_miss`] as an anchored regular expression in the common subset
/// of ECMA-262 and Rust's `regex`, for a JSON Schema's `pattern`. It also
/// matches `hook` itself, which a schema allows by name; it begins
/// `^(?:[hH][oO][kK]|`.
pub(crate) fn near_miss_pattern() -> String {
    let mut out = String::from("^(?:");
    for (i, pattern) in NEAR_MISSES.iter().enumerate() {
        if i > 0 {
            out.push('|');
        }
        for c in pattern.chars() {
            match c {
                '.' => out.push_str("[\\s\\S]"),
                c => {
                    let _ = write!(out, "[{c}{}]", c.to_ascii_uppercase());
                }
            }
        }
    }
    out.push_str(")$");
    out
}

/// A key that would declare hooks where none are read.
#[derive(Debug)]
pub(super) struct Hidden {
    /// Its key path, as an operator writes it (`targets.ci.hook`).
    pub(super) key: String,
    /// The key alone, as written (quoted as TOML quotes it, when it must
    /// be).
    pub(super) written: String,
    /// Where its name starts in the text.
    pub(super) at: usize,
    /// Whether it sits where hooks are read (the top level, a section's
    /// body), and so is wrong only by its spelling.
    pub(super) placed: bool,
    /// Whether it is a key of a hook table (`on`, `append`) written where
    /// hooks are read but outside any `[[hook]]` table: a table header
    /// left out.
    pub(super) stray: bool,
}

/// Where a table sits, which decides what its keys may be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The top level: declares `hook`, holds the sections.
    Top,
    /// A section's table: its keys are names, its values bodies.
    Section,
    /// A section's body: declares `hook`.
    Body,
    /// Anywhere else.
    Elsewhere,
}

/// The first key of `document`, by position, that would declare hooks where
/// none are read; `None` when there is none.
///
/// Walked with a stack of its own rather than by recursion: the depth is
/// bounded by toml's parser today, and need not be by us.
pub(super) fn hidden_hook(document: &DeTable<'_>, layout: &Layout) -> Option<Hidden> {
    enum Node<'a, 'i> {
        Table(&'a DeTable<'i>, Place),
        Array(&'a [Spanned<DeValue<'i>>]),
    }
    // A hook table's keys: where hooks are read, one of them outside any
    // table is a `[[hook]]` header left out.
    let own = layout.actions().own_keys();
    let table_keys: Vec<&str> = stray_keys().chain(own.iter().map(|key| key.name)).collect();
    let mut found: Option<Hidden> = None;
    let mut stack = vec![(Node::Table(document, Place::Top), String::new())];
    while let Some((node, prefix)) = stack.pop() {
        let mut children = Vec::new();
        match node {
            Node::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    children.push((
                        item.get_ref(),
                        format!("{prefix}[{}]", i + 1),
                        Place::Elsewhere,
                    ));
                }
            }
            Node::Table(table, place) => {
                for (key, value) in table {
                    let name: &str = key.get_ref();
                    let path = if prefix.is_empty() {
                        toml_key(name).into_owned()
                    } else {
                        format!("{prefix}.{}", toml_key(name))
                    };
                    let holds = matches!(value.get_ref(), DeValue::Table(_) | DeValue::Array(_));
                    let stray = match place {
                        Place::Top => !layout.is_section(name) && table_keys.contains(&name),
                        Place::Body => table_keys.contains(&name),
                        _ => false,
                    };
                    if stray || hides(place, name, holds) {
                        let at = key.span().start;
                        if found.as_ref().is_none_or(|f| at < f.at) {
                            found = Some(Hidden {
                                key: path,
                                written: toml_key(name).into_owned(),
                                at,
                                placed: place != Place::Elsewhere,
                                stray,
                            });
                        }
                        continue;
                    }
                    let next = match (place, name) {
                        // Read by the typed loader, which checks it whole.
                        (Place::Top | Place::Body, HOOK) => continue,
                        (Place::Top, name) if layout.is_section(name) => Place::Section,
                        (Place::Section, _) => Place::Body,
                        _ => Place::Elsewhere,
                    };
                    children.push((value.get_ref(), path, next));
                }
            }
        }
        for (value, path, place) in children {
            match value {
                DeValue::Table(table) => stack.push((Node::Table(table, place), path)),
                // A section or a section's body that is not a table is the
                // typed loader's to refuse, with its own message.
                DeValue::Array(items) if place == Place::Elsewhere => {
                    stack.push((Node::Array(items), path));
                }
                _ => {}
            }
        }
    }
    found
}

/// Whether the key `name`, at `place`, holding a table or an array when
/// `holds`, would hide hooks by its spelling or its place: a near miss of
/// `hook` where hooks are read, `hook` or a near miss holding tables
/// anywhere else.
fn hides(place: Place, name: &str, holds: bool) -> bool {
    match place {
        Place::Top | Place::Body => is_near_miss(name),
        Place::Section => false,
        Place::Elsewhere => holds && (name == HOOK || is_near_miss(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_of_hook_are_exactly_the_close_ones() {
        for near in [
            "hooks", "Hook", "HOOK", "hok", "hoook", "Hooks", "hool", "hoko",
        ] {
            assert!(is_near_miss(near), "{near}");
        }
        for far in [
            "hook",
            "book",
            "look",
            "mcp",
            "toolchain",
            "policy",
            "agent",
            "profile",
            "hooks_dir",
            "notebook",
            "h",
        ] {
            assert!(!is_near_miss(far), "{far}");
        }
    }

    /// Whether `key` matches one of [`NEAR_MISSES`] (or is `hook`).
    fn matches_a_pattern(key: &str) -> bool {
        let key: Vec<char> = key.chars().collect();
        NEAR_MISSES.iter().any(|pattern| {
            pattern.chars().count() == key.len()
                && pattern
                    .chars()
                    .zip(&key)
                    .all(|(p, k)| p == '.' || p.eq_ignore_ascii_case(k))
        }) || key.iter().collect::<String>().eq_ignore_ascii_case(HOOK)
    }

    /// Every name up to eight characters over `h`, `o`, `k` in both cases
    /// and one other letter: whether a name is a near miss depends only on
    /// which of those each of its characters is, so this covers every name
    /// (and none longer than six is one).
    #[test]
    fn the_patterns_are_the_rule() {
        const ALPHABET: [char; 5] = ['h', 'o', 'k', 'K', 'x'];
        let mut names = vec![String::new()];
        let mut checked = 0;
        for _ in 0..8 {
            let mut longer = Vec::with_capacity(names.len() * ALPHABET.len());
            for name in &names {
                for c in ALPHABET {
                    let name = format!("{name}{c}");
                    let rule = is_near_miss(&name) || name == HOOK;
                    assert_eq!(rule, matches_a_pattern(&name), "{name}");
                    checked += 1;
                    longer.push(name);
                }
            }
            names = longer;
        }
        assert!(checked > 400_000);
    }

    fn hidden(text: &str) -> Option<(String, bool)> {
        let document = DeTable::parse(text).expect("TOML");
        let layout = Layout::new().section("target", "a target");
        hidden_hook(document.get_ref(), &layout).map(|h| (h.key, h.placed))
    }

    #[test]
    fn without_sections_only_the_top_level_declares_hooks() {
        let document = DeTable::parse("[[target.ci.hook]]\nappend = \"a\"\n").expect("TOML");
        let found = hidden_hook(document.get_ref(), &Layout::new()).map(|h| (h.key, h.placed));
        assert_eq!(found, Some(("target.ci.hook".into(), false)));
    }

    #[test]
    fn hooks_hide_anywhere_but_the_top_level_and_a_section_body() {
        assert_eq!(hidden("[[hook]]\nappend = \"a\"\n"), None);
        assert_eq!(
            hidden("[[target.ci.hook]]\nappend = \"a\"\n[target.hook]\nx = 1\n"),
            None
        );
        assert_eq!(hidden("[mcp]\nhook = \"pre-commit\"\n"), None);
        // Not tables where tables belong: the typed loader's to refuse.
        assert_eq!(hidden("[[target]]\nhook = []\n"), None);
        assert_eq!(hidden("target.ci = [[{ hook = [] }]]\n"), None);
        assert_eq!(
            hidden("[[targets.ci.hook]]\nappend = \"a\"\n"),
            Some(("targets.ci.hook".into(), false))
        );
        assert_eq!(
            hidden("[[ci.hook]]\nappend = \"a\"\n"),
            Some(("ci.hook".into(), false))
        );
        assert_eq!(
            hidden("[[agent]]\nname = \"x\"\n[[agent.Hooks]]\nappend = \"a\"\n"),
            Some(("agent[1].Hooks".into(), false))
        );
        assert_eq!(
            hidden("x = [{ hook = [] }]\n"),
            Some(("x[1].hook".into(), false))
        );
        assert_eq!(hidden("hooks = 1\n"), Some(("hooks".into(), true)));
        assert_eq!(
            hidden("[target.ci]\nHook = []\n"),
            Some(("target.ci.Hook".into(), true))
        );
        // The first by position, whatever the map's order.
        assert_eq!(
            hidden("[b.hook]\n[a.hook]\n"),
            Some(("b.hook".into(), false))
        );
    }

    #[test]
    fn a_hook_hidden_as_deep_as_toml_nests_is_found() {
        // toml's parser refuses nesting much deeper than this.
        let depth = 50;
        let text = format!(
            "x = {}{{ hook = [] }}{}\n",
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let (key, placed) = hidden(&text).expect("found");
        assert_eq!(key, format!("x{}.hook", "[1]".repeat(depth)));
        assert!(!placed);
    }
}
