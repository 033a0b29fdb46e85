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

/// `timeout_ms`: the wall-clock ceiling on a hook whose action honours it.
pub(crate) const TIMEOUT_MS: &str = "timeout_ms";

/// `background`: each event handed to the hook's own worker, for a hook
/// whose action honours it.
pub(crate) const BACKGROUND: &str = "background";

/// `name`: what every message calls the hook beside its key path, and what
/// an embedder's command line may choose it by.
pub(crate) const NAME: &str = "name";

/// `enabled`: `false` switches the hook off, and says so.
pub(crate) const ENABLED: &str = "enabled";

/// One key of a hook table, as an action declares it: its name, and its
/// JSON Schema, which an editor checks the value with
/// ([`hook_file_schema`](crate::hook_file_schema)).
///
/// An embedder's action declares its key and options with
/// [`HookKey::new`]; their values are read as TOML and checked by the
/// action's own [`validate`](crate::ActionKind::validate).
///
/// ```
/// use io_hooks::HookKey;
/// const URL: HookKey = HookKey::new(
///     "webhook",
///     "an http:// URL, as in `webhook = \"http://127.0.0.1:8080/hooks\"`",
///     |_| serde_json::json!({ "type": "string", "format": "uri" }),
/// );
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
    /// Returns a key called `name`, whose value is any TOML value its
    /// action reads itself ([`ActionTable::value`](crate::ActionTable::value)),
    /// with `schema` as its JSON Schema. `accepts` says what the value may
    /// be, with an example, as a type error ends: "invalid type: integer
    /// `3`, expected {accepts}". `schema` is given the schema of one event
    /// name, for a key whose value names events; most keys ignore it.
    pub const fn new(
        name: &'static str,
        accepts: &'static str,
        schema: fn(event: &Value) -> Value,
    ) -> Self {
        HookKey {
            name,
            shape: Shape::Toml(accepts),
            owner: None,
            schema,
            elsewhere: None,
        }
    }

    /// Returns the key as written.
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
    /// Any TOML value: an embedder's action reads it itself. What it
    /// accepts, with an example.
    Toml(&'static str),
}

impl Shape {
    /// What a value of this shape may be, as a type error ends.
    pub(crate) fn accepts(&self) -> &'static str {
        match self {
            Shape::Strings { array, .. } => array,
            Shape::Text(what) | Shape::Int(what) | Shape::Bool(what) | Shape::Toml(what) => what,
            Shape::Events { .. } => "an array of event names",
            Shape::Choice(_) => "one of its values",
            Shape::Where => crate::r#where::EXPECTING,
        }
    }
}
