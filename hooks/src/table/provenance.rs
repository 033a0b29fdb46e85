//! Which files may declare hooks at all: the refusal of a project-scope
//! file's `hook` keys.
//!
//! A hook runs a program or writes a file on the machine that loads it. A
//! file that arrives with a `git clone` (a config file committed to the
//! repository) is written by whoever wrote the repository, so loading hooks from it would
//! let a clone run code. [`TomlFile::project`](super::TomlFile::project)
//! marks such a file, and [`TomlFile::check_scope`](super::TomlFile::check_scope)
//! (which `TomlFile::hooks` calls first) refuses any `hook` key in it, found
//! by [`hook_keys`] here, and any key that would be one elsewhere or spelt
//! otherwise.

use crate::key::HOOK;
use crate::layout::Layout;
use crate::position::toml_key;

/// Where a file comes from, and so whether it may declare hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Provenance {
    /// A file the operator wrote on this machine (in their home directory, or a
    /// git-ignored local file): it may declare hooks.
    Operator,
    /// A file a `git clone` delivers: any `hook` key in it is refused.
    Project,
}

/// The `hook` keys `document` declares: the top level, then each body of
/// each of `layout`'s sections, the sections in the layout's order and the
/// bodies by name (a `toml::Table` is sorted).
///
/// Decided on the parsed document, so a quoted or escaped key
/// (`"\u0068ook"`), a dotted key, an inline array and an empty array are all
/// the same key.
pub(super) fn hook_keys(document: &toml::Table, layout: &Layout) -> Vec<String> {
    let mut keys = Vec::new();
    if document.contains_key(HOOK) {
        keys.push(HOOK.to_owned());
    }
    for (section, _) in layout.get_sections() {
        let Some(toml::Value::Table(bodies)) = document.get(section) else {
            continue;
        };
        for (name, body) in bodies {
            if let toml::Value::Table(body) = body
                && body.contains_key(HOOK)
            {
                keys.push(format!("{}.{}.hook", toml_key(section), toml_key(name)));
            }
        }
    }
    keys
}
