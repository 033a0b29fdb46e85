//! The key table: every key a `[[hook]]` table may hold, what it accepts,
//! and which action it belongs to. [`HOOK_KEYS`], the visitor of
//! [`RawHook`](crate::raw::RawHook), its "expecting" text, unknown-key
//! errors and the JSON Schema are all computed from it.
//!
//! `on`, `where`, `on_failure`, `timeout_ms`, `background`, `name` and
//! `enabled` are the engine's (`timeout_ms` and `background` for every
//! action that honours them); each action
//! brings its own key and options (`action::BUILT_IN`; an embedder's own
//! action's keys are its [`ActionKind`](crate::ActionKind)'s). The table
//! lists `on`, `where`, then each action's key, then `on_failure`,
//! `timeout_ms`, `background`, `name` and `enabled`, then each action's
//! options: the order an operator reads them in.

use serde_json::json;

use crate::action::{self, DEFAULT_TIMEOUT, Entry};
use crate::key::{self, HookKey, Shape};
use crate::spec::Flow;

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

/// `on_failure`'s values, from [`Flow::ALL`].
const ON_FAILURE_VALUES: [&str; Flow::ALL.len()] = {
    let mut out = [""; Flow::ALL.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = Flow::ALL[i].as_str();
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
            "default": Flow::default().as_str(),
            "description": "\"cancel\" asks the host to end its run at its next boundary when this hook fails."
        })
    },
    elsewhere: None,
};

/// `timeout_ms`: the wall-clock ceiling on a hook whose action honours it.
pub(crate) const TIMEOUT_MS: HookKey = HookKey {
    name: key::TIMEOUT_MS,
    shape: Shape::Int("a whole number of milliseconds, at least 1, as in `timeout_ms = 2000`"),
    owner: None,
    schema: |_| {
        json!({
            "type": "integer",
            "minimum": 1,
            "default": DEFAULT_TIMEOUT.as_millis() as u64,
            "description": "The wall-clock ceiling on a run hook, in milliseconds; the child is killed at it."
        })
    },
    elsewhere: None,
};

/// `background`: each event handed to the hook's own worker.
pub(crate) const BACKGROUND: HookKey = HookKey {
    name: key::BACKGROUND,
    shape: Shape::Bool("`true` or `false`, as in `background = true`"),
    owner: None,
    schema: |_| {
        json!({
            "type": "boolean",
            "default": false,
            "description": "Hand each event to this hook's own worker, in order, and let the run go on at once. Never for a hook whose work the next step reads (a formatter), nor with on_failure = \"cancel\"."
        })
    },
    elsewhere: None,
};

/// `name`: what messages call the hook beside its key path.
const NAME: HookKey = HookKey {
    name: key::NAME,
    shape: Shape::Text("a name, a string, as in `name = \"no-rm\"`"),
    owner: None,
    schema: |_| {
        json!({
            "type": "string",
            "minLength": 1,
            "maxLength": super::name::MAX_NAME,
            "pattern": super::name::PATTERN,
            "description": "What every message calls this hook beside its key path (`hook[3] \"no-rm\"`), and what a command line may choose it by; unique in its array, printable, not all digits."
        })
    },
    elsewhere: None,
};

/// `enabled`: `false` switches the hook off, and says so at every start.
const ENABLED: HookKey = HookKey {
    name: key::ENABLED,
    shape: Shape::Bool("`true` or `false`, as in `enabled = false`"),
    owner: None,
    schema: |_| {
        json!({
            "type": "boolean",
            "default": true,
            "description": "false switches this hook off: it never fires, and the host says so at every start."
        })
    },
    elsewhere: None,
};

const COUNT: usize = {
    let mut n = 7;
    let mut i = 0;
    while i < action::BUILT_IN.len() {
        n += 1 + action::BUILT_IN[i].options.len();
        i += 1;
    }
    n
};

/// Every key: `on`, `where`, each action's key, `on_failure`,
/// `timeout_ms`, `background`, `name`, `enabled`, each action's options.
pub(crate) const KEYS: [HookKey; COUNT] = {
    const fn push(out: &mut [HookKey; COUNT], at: &mut usize, key: HookKey) {
        out[*at] = key;
        *at += 1;
    }
    let actions: &[Entry] = &action::BUILT_IN;
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
    push(&mut out, &mut at, TIMEOUT_MS);
    push(&mut out, &mut at, BACKGROUND);
    push(&mut out, &mut at, NAME);
    push(&mut out, &mut at, ENABLED);
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
/// action's key, `on_failure`, `timeout_ms`, `background`, `name`,
/// `enabled`, then each built-in action's options. A
/// [`Layout`](crate::Layout)'s own actions
/// ([`Layout::action`](crate::Layout::action)) add theirs after these.
pub const HOOK_KEYS: &[&str] = &NAMES;

/// The keys of a hook table that, outside any (at the top level or in a
/// section's body), are a `[[hook]]` header left out: every one of
/// [`HOOK_KEYS`] but `name` and `enabled`, words a host's own document uses
/// for itself (a project's `name`, a section's `enabled`).
pub(crate) fn stray_keys() -> impl Iterator<Item = &'static str> + Clone {
    HOOK_KEYS
        .iter()
        .copied()
        .filter(|key| ![key::NAME, key::ENABLED].contains(key))
}

/// The `on_failure` a table says, or the default.
pub(crate) fn on_failure(value: Option<&str>) -> Flow {
    Flow::ALL
        .into_iter()
        .find(|f| Some(f.as_str()) == value)
        .unwrap_or_default()
}
