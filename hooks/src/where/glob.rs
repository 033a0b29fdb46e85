//! A `where` glob: the glob crate's syntax, matched in time linear in the
//! value.
//!
//! The glob crate matches by backtracking: `*` followed by a 64-character
//! literal against a 16 MiB goal took 49.5 s for one event (issue 32, H7).
//! So the glob crate only reads the pattern (its syntax and its error
//! messages are what `docs/hooks.md` documents), and the pattern is then
//! written as a regular expression for the regex crate, whose automata
//! match in one pass over the value, whatever the pattern.
//!
//! The translation keeps the glob crate's meaning with its default options
//! (case-sensitive; `*`, `?` and a class match `/` too): `?` is one
//! character, `*` any run of them, `**` as a whole component any run of
//! components (`a/**/b` is `a/b` or `a/…/b`), `[abc]`, `[a-z]` and
//! `[!abc]` one character within or without, a range whose ends are the
//! wrong way round matching nothing, and every other character itself. The
//! regex crate's own syntax (`{`, `\`, `|`, `^`) is never seen: each
//! character is written as `\x{…}`.

use std::fmt::Write as _;
use std::sync::Arc;

/// A compiled glob.
#[derive(Debug, Clone)]
pub(crate) struct Glob {
    /// As written.
    text: String,
    /// The automaton it is, shared by every clone of a filter.
    matcher: Arc<Matcher>,
}

/// A glob's automaton.
#[derive(Debug)]
enum Matcher {
    /// A whole DFA, built at load: a match is one pass and allocates
    /// nothing, so an event a glob turns away costs no allocation.
    Dfa(Box<regex_automata::dfa::dense::DFA<Vec<u32>>>),
    /// For a glob whose DFA would pass [`SIZE_LIMIT`] (`*a` and twenty
    /// `?`, say): the regex crate's lazy DFA, still one pass, whose cache
    /// may grow during a match.
    Lazy(regex::Regex),
}

/// The most a glob's automaton may take, in bytes: far beyond any glob a
/// person writes, and a bound on what a hostile one costs at load (past it
/// the whole DFA gives way to the lazy one, bounded the same).
const SIZE_LIMIT: usize = 1 << 20;

impl Glob {
    /// The glob `text`, or the reason it is not one (the glob crate's words
    /// for its syntax).
    pub(crate) fn new(text: &str) -> Result<Glob, String> {
        glob::Pattern::new(text).map_err(|e| e.msg.to_owned())?;
        let pattern = translate(text);
        let limits = regex_automata::dfa::dense::Config::new()
            .dfa_size_limit(Some(SIZE_LIMIT))
            .determinize_size_limit(Some(SIZE_LIMIT));
        let matcher = match regex_automata::dfa::dense::Builder::new()
            .configure(limits)
            .build(&pattern)
        {
            Ok(dfa) => Matcher::Dfa(Box::new(dfa)),
            Err(_) => regex::RegexBuilder::new(&pattern)
                .size_limit(SIZE_LIMIT)
                .build()
                .map(Matcher::Lazy)
                .map_err(|_| {
                    format!(
                        "longer than a glob may be ({} KiB compiled)",
                        SIZE_LIMIT >> 10
                    )
                })?,
        };
        Ok(Glob {
            text: text.to_owned(),
            matcher: Arc::new(matcher),
        })
    }

    /// Whether `value`, whole, matches.
    #[inline]
    pub(crate) fn matches(&self, value: &str) -> bool {
        use regex_automata::dfa::Automaton;
        match &*self.matcher {
            Matcher::Dfa(dfa) => {
                let input = regex_automata::Input::new(value)
                    .anchored(regex_automata::Anchored::Yes)
                    .earliest(true);
                // A search fails only on a DFA built to quit, which this is
                // not.
                matches!(dfa.try_search_fwd(&input), Ok(Some(_)))
            }
            Matcher::Lazy(regex) => regex.is_match(value),
        }
    }

    /// The glob as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }
}

/// The regular expression the glob `text` (which the glob crate read
/// without error) is.
fn translate(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut re = String::from("(?s)\\A");
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '?' => {
                re.push('.');
                i += 1;
            }
            '*' if chars.get(i + 1) == Some(&'*') => {
                // The glob crate takes the `/` after `**` into it.
                i += 2;
                if chars.get(i) == Some(&'/') {
                    i += 1;
                    // Consecutive `**/`, which the glob crate makes one,
                    // mean the same written twice.
                    re.push_str("(?:.*/)?");
                } else {
                    re.push_str(".*");
                }
            }
            '*' => {
                re.push_str(".*");
                i += 1;
            }
            '[' => i = class(&chars, i, &mut re),
            c => {
                push_char(&mut re, c);
                i += 1;
            }
        }
    }
    re.push_str("\\z");
    re
}

/// Writes the class that starts at `chars[at]` (a `[`) as the glob crate
/// reads it, and returns where the glob goes on.
fn class(chars: &[char], at: usize, re: &mut String) -> usize {
    let negated = chars.get(at + 1) == Some(&'!');
    let first = if negated { at + 2 } else { at + 1 };
    // The first character is in the class even when it is `]`.
    // The glob crate read it, so it is closed; read as running to the end
    // were it not.
    let end = chars
        .get(first + 1..)
        .and_then(|rest| rest.iter().position(|c| *c == ']'))
        .map_or(chars.len(), |j| first + 1 + j);
    let inside = chars.get(first..end).unwrap_or_default();
    let mut items = String::new();
    let mut i = 0;
    while i < inside.len() {
        if i + 3 <= inside.len() && inside[i + 1] == '-' {
            let (lo, hi) = (inside[i], inside[i + 2]);
            // The wrong way round, a range holds nothing.
            if lo <= hi {
                push_char(&mut items, lo);
                items.push('-');
                push_char(&mut items, hi);
            }
            i += 3;
        } else {
            push_char(&mut items, inside[i]);
            i += 1;
        }
    }
    match (negated, items.is_empty()) {
        (false, true) => re.push_str("[^\\x{0}-\\x{10FFFF}]"),
        (true, true) => re.push('.'),
        (false, false) => {
            let _ = write!(re, "[{items}]");
        }
        (true, false) => {
            let _ = write!(re, "[^{items}]");
        }
    }
    end + 1
}

/// `c`, as the regex crate reads it literally anywhere.
fn push_char(re: &mut String, c: char) {
    let _ = write!(re, "\\x{{{:x}}}", u32::from(c));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Globs the glob crate reads, each feature and each regex
    /// metacharacter among them.
    const GLOBS: &[&str] = &[
        "write_*",
        "*_file",
        "?xec",
        "exec",
        "*",
        "**",
        "a/**/b",
        "**/b",
        "a/**",
        "a/**/**/b",
        "[abc]x",
        "[!abc]x",
        "[a-c]?",
        "[c-a]",
        "[!c-a]",
        "[]]",
        "[!]]",
        "[]-]",
        "[-a]",
        "a*b*c",
        "{a,b}",
        "a\\b",
        "^a$",
        "a|b",
        "(x)",
        "é?",
        "[é-ü]",
        "*.rs",
        "x[*]y",
        "[?]",
        "a.b",
        "a+",
    ];

    /// Values to match them against.
    const VALUES: &[&str] = &[
        "",
        "write_file",
        "edit_file",
        "exec",
        "eexec",
        "a/b",
        "a/x/b",
        "a/x/y/b",
        "b",
        "x/b",
        "a/",
        "a",
        "ax",
        "bx",
        "dx",
        "]",
        "-",
        "!",
        "abc",
        "aXbYc",
        "{a,b}",
        "a\\b",
        "^a$",
        "a|b",
        "(x)",
        "éa",
        "ée",
        "ö",
        "main.rs",
        "x*y",
        "?",
        "a.b",
        "aab",
        "a+",
        "line\nbreak",
        "c",
        "[c-a]",
    ];

    /// Both matchers agree, on every glob and value here.
    #[test]
    fn it_matches_as_the_glob_crate_does() {
        for &g in GLOBS {
            let ours = Glob::new(g).unwrap_or_else(|e| panic!("{g}: {e}"));
            let theirs = glob::Pattern::new(g).expect("the glob crate reads it");
            for &v in VALUES {
                // On Windows the glob crate takes `\\` for a path's
                // separator; a `where` glob is matched on text, alike
                // everywhere.
                if cfg!(windows) && (g.contains('\\') || v.contains('\\')) {
                    continue;
                }
                assert_eq!(ours.matches(v), theirs.matches(v), "glob {g:?} on {v:?}");
            }
            assert_eq!(ours.as_str(), g);
        }
    }

    /// A glob whose whole DFA would be too large is matched by the lazy
    /// one, with the same answers; a usual one gets the whole DFA.
    #[test]
    fn a_glob_too_large_for_a_whole_dfa_is_matched_lazily_alike() {
        let wide = format!("*a{}", "?".repeat(20));
        let ours = Glob::new(&wide).expect("a glob");
        assert!(matches!(*ours.matcher, Matcher::Lazy(_)), "{ours:?}");
        let theirs = glob::Pattern::new(&wide).expect("a glob");
        for value in [
            format!("xa{}", "b".repeat(20)),
            format!("a{}", "b".repeat(19)),
            "b".repeat(40),
            format!("{}a{}", "c".repeat(9), "é".repeat(20)),
        ] {
            assert_eq!(ours.matches(&value), theirs.matches(&value), "{value}");
        }
        let usual = Glob::new("write_*").expect("a glob");
        assert!(matches!(*usual.matcher, Matcher::Dfa(_)));
    }

    #[test]
    fn what_the_glob_crate_refuses_is_refused_in_its_words() {
        for (g, why) in [
            ("[", "invalid range pattern"),
            ("[!]", "invalid range pattern"),
            ("***", "wildcards are either regular `*` or recursive `**`"),
            (
                "a**",
                "recursive wildcards must form a single path component",
            ),
        ] {
            assert_eq!(Glob::new(g).map(|_| ()), Err(why.to_owned()), "{g}");
        }
    }

    /// The case that took 49.5 s: `*` then a 64-character literal against
    /// 16 MiB that almost matches it everywhere. It is a whole DFA, which
    /// reads each byte of the value once: one pass by construction, with no
    /// clock to read on a busy machine (BENCHMARKS.md's glob rows measure
    /// the cost, and `where_filter.rs` bounds the old quadratic case).
    #[test]
    fn a_star_and_a_long_literal_is_a_whole_dfa_and_matches_as_the_glob_crate_does() {
        let literal = format!("{}b", "a".repeat(63));
        let glob = Glob::new(&format!("*{literal}")).expect("a glob");
        assert!(matches!(*glob.matcher, Matcher::Dfa(_)), "{glob:?}");
        let value = "a".repeat(1 << 20);
        assert!(!glob.matches(&value));
        assert!(glob.matches(&format!("{value}{literal}")));
        let pattern = glob::Pattern::new(glob.as_str()).expect("the glob crate's");
        for value in [
            literal.clone(),
            format!("x{literal}"),
            format!("{literal}x"),
        ] {
            assert_eq!(glob.matches(&value), pattern.matches(&value), "{value}");
        }
    }
}
