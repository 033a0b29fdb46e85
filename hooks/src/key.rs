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

/// One key of a hook table, as an action declares it: its name, and its
/// JSON Schema, which an editor checks the value with
/// ([`hook_file_schema`](crate::schema::hook_file_schema)).
///
/// An embedder's action declares its key and options with
/// [`HookKey::new`]; their values are read as TOML and checked by the
/// action's own [`validate`](crate::ActionKind::validate).
///
/// ```
/// use io_hooks::HookKey;
/// const URL: HookKey = HookKey::new("webhook", |_| {
///     serde_json::json!({ "type": "string", "format": "uri" })
/// });
/// assert_eq!(URL.name(), "webhook");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct HookKey {
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

impl HookKey {
    /// A key called `name`, whose value is any TOML value its action reads
    /// itself, with `schema` as its JSON Schema. `schema` is given the
    /// schema of one event name, for a key whose value names events; most
    /// keys ignore it.
    pub const fn new(name: &'static str, schema: fn(event: &Value) -> Value) -> Self {
        HookKey {
            name,
            shape: Shape::Toml,
            owner: None,
            schema,
            elsewhere: None,
        }
    }

    /// The key as written.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// This key, as a key of the action `owner`.
    pub(crate) const fn owned_by(mut self, owner: &'static str) -> Self {
        self.owner = Some(owner);
        self
    }
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
    /// (`table/compile_where.rs`).
    Where,
    /// Any TOML value: an embedder's action reads it itself.
    Toml,
}

/// A top-level table whose named bodies declare hooks of their own, as
/// `[target.<name>]` bodies declare `[[target.<name>.hook]]`: one entry of a
/// [`Layout`](crate::Layout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub(crate) key: String,
    pub(crate) noun: String,
}

impl Section {
    /// The top-level key (`target`).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// One body in words, with its article, as in "in a target".
    pub fn noun(&self) -> &str {
        &self.noun
    }
}
