//! The key table's vocabulary: a row of it ([`HookKey`], with the
//! [`Shape`] its value must have), and the names of the keys every hook
//! table may hold, each one constant. An action's own keys are its
//! module's.

use serde_json::Value;

/// The array of hook tables, `[[hook]]`.
pub(crate) const HOOK: &str = "hook";

/// `on`: which events a hook wants.
pub(crate) const ON: &str = "on";

/// `where`: conditions on named fields of the events in `on`.
pub(crate) const WHERE: &str = "where";

/// `on_failure`: what a failure of the hook does to the run.
pub(crate) const ON_FAILURE: &str = "on_failure";

/// One key of a `[[hook]]` table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HookKey {
    /// The key as written.
    pub(crate) name: &'static str,
    /// What its value must be, with the words a type error uses.
    pub(crate) shape: Shape,
    /// The action key it belongs to, or `None` for a key of every hook.
    pub(crate) owner: Option<&'static str>,
    /// Its JSON Schema, given the schema of one event name (for `on`).
    pub(crate) schema: fn(event: &Value) -> Value,
    /// Why it applies only to its owner's hooks, said when it is written
    /// on another's, when there is more to say than that it does not apply.
    pub(crate) elsewhere: Option<&'static str>,
}

/// What a key's value must be. Each carries what a type error says is
/// accepted.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// An array of strings: what the array is called, what an element is.
    Strings {
        /// The array, as in "an argv array, program first".
        array: &'static str,
        /// One element, as in "a program or an argument, a string".
        item: &'static str,
    },
    /// A string.
    Text(&'static str),
    /// An integer (any: the validator has its own message for a bad one).
    Int(&'static str),
    /// `true` or `false`.
    Bool(&'static str),
    /// `on`'s event names: an array of strings, what an element is. Any
    /// other value is kept as what it is and refused by validation, which
    /// knows the event enum and so can show one of its events as the
    /// example.
    Events {
        /// One element, as in "an event name, a string".
        item: &'static str,
    },
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// `where`: a table of field names and what each must be
    /// (`table/conditions.rs`).
    Where,
}
