//! The key table: every key a `[[hook]]` table may hold, what it accepts,
//! and which action it belongs to. [`HOOK_KEYS`], the visitor of
//! [`RawHook`](crate::raw::RawHook), its "expecting" text, unknown-key
//! errors and the JSON Schema are all computed from it.
//!
//! `on`, `where` and `on_failure` belong to every hook; each action brings
//! its own key and options (`action::ENTRIES`; an embedder's own
//! action's keys are its [`ActionKind`](crate::ActionKind)'s). The table lists `on`,
//! `where`, then each action's key, then `on_failure`, then each action's
//! options: the order an operator reads them in.

use serde_json::json;

use crate::action::{self, Entry};
use crate::key::{self, HookKey, Shape};
use crate::spec::OnFailure;

/// `on`: which events a hook wants.
const ON: HookKey = HookKey {
    name: key::ON,
    shape: Shape::Events {
        item: "an event name, a string",
    },
    owner: None,
    schema: |event| {
        json!({
            "type": "array",
            "description": "The event names this hook wants; absent means every event.",
            "minItems": 1,
            "uniqueItems": true,
            "items": event
        })
    },
    elsewhere: None,
};

/// `where`: conditions on named fields of the events in `on`.
const WHERE: HookKey = HookKey {
    name: key::WHERE,
    shape: Shape::Where,
    owner: None,
    schema: |_| super::compile_where::schema(),
    elsewhere: None,
};

/// `on_failure`'s values, from [`OnFailure::ALL`].
const ON_FAILURE_VALUES: [&str; OnFailure::ALL.len()] = {
    let mut out = [""; OnFailure::ALL.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = OnFailure::ALL[i].as_str();
        i += 1;
    }
    out
};

/// `on_failure`: what a failure of this hook does to the run.
const ON_FAILURE: HookKey = HookKey {
    name: key::ON_FAILURE,
    shape: Shape::Choice(&ON_FAILURE_VALUES),
    owner: None,
    schema: |_| {
        json!({
            "enum": ON_FAILURE_VALUES,
            "default": OnFailure::default().as_str(),
            "description": "\"cancel\" asks the host to end its run at its next boundary when this hook fails."
        })
    },
    elsewhere: None,
};

const COUNT: usize = {
    let mut n = 3;
    let mut i = 0;
    while i < action::ENTRIES.len() {
        n += 1 + action::ENTRIES[i].options.len();
        i += 1;
    }
    n
};

/// Every key: `on`, `where`, each action's key, `on_failure`, each action's
/// options.
pub(crate) const KEYS: [HookKey; COUNT] = {
    const fn push(out: &mut [HookKey; COUNT], at: &mut usize, key: HookKey) {
        out[*at] = key;
        *at += 1;
    }
    let actions: &[Entry] = &action::ENTRIES;
    let mut out = [ON; COUNT];
    let mut at = 0;
    push(&mut out, &mut at, ON);
    push(&mut out, &mut at, WHERE);
    let mut i = 0;
    while i < actions.len() {
        push(&mut out, &mut at, actions[i].key);
        i += 1;
    }
    push(&mut out, &mut at, ON_FAILURE);
    let mut i = 0;
    while i < actions.len() {
        let mut j = 0;
        while j < actions[i].options.len() {
            push(&mut out, &mut at, actions[i].options[j]);
            j += 1;
        }
        i += 1;
    }
    out
};

const NAMES: [&str; COUNT] = {
    let mut out = [""; COUNT];
    let mut i = 0;
    while i < COUNT {
        out[i] = KEYS[i].name;
        i += 1;
    }
    out
};

/// The keys a `[[hook]]` table may hold: `on`, `where`, each built-in
/// action's key, `on_failure`, then each built-in action's options. A
/// [`Layout`](crate::Layout)'s own actions
/// ([`Layout::action`](crate::Layout::action)) add theirs after these.
pub const HOOK_KEYS: &[&str] = &NAMES;

/// The `on_failure` a table says, or the default.
pub(crate) fn on_failure(value: Option<&str>) -> OnFailure {
    OnFailure::ALL
        .into_iter()
        .find(|f| Some(f.as_str()) == value)
        .unwrap_or_default()
}
