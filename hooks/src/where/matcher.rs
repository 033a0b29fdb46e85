//! A compiled `where`: each condition's field found in each event of `on`
//! when the table was loaded, so evaluating one is an index, a `match` on
//! the variant and a comparison, on the event before it is serialised.

use std::cmp::Ordering;
use std::fmt;
use std::marker::PhantomData;

use super::tool_args::{ToolClass, ToolTable};
use crate::position::toml_key;
use crate::registry::{Enveloped, FieldValue, HookEvents};

/// A hook's `where`: conditions on named fields of its events, all of which
/// must hold (AND). Empty when the table has no `where`: every event of
/// `on` passes.
///
/// Built when a table is loaded (`where` in a `[[hook]]` table), where every
/// field it names has been found in every event of the hook's `on`, with a
/// value of the field's type.
///
/// ```
/// use io_hooks::{HookEvents, TomlFile};
///
/// #[derive(HookEvents, serde::Serialize)]
/// #[serde(tag = "event")]
/// enum Ev {
///     #[serde(rename = "job_finished")]
///     JobFinished { job: String, attempt: u32 },
/// }
/// let text = "[[hook]]\non = [\"job_finished\"]\nwhere.job = [\"lint\", \"test_*\"]\nappend = \"a.jsonl\"\n";
/// let text = text.replace("\"test_*\"", "{ glob = \"test_*\" }");
/// let specs = TomlFile::new("ci.toml", &text).hooks::<Ev>("/p".as_ref())?;
/// let r#where = &specs[0].r#where;
/// assert_eq!(r#where.to_string(), "job = [\"lint\", { glob = \"test_*\" }]");
/// let finished = |job: &str| Ev::JobFinished { job: job.into(), attempt: 1 };
/// assert_eq!(r#where.turned_away(&finished("lint")), None);
/// assert_eq!(r#where.turned_away(&finished("test_unit")), None);
/// assert_eq!(r#where.turned_away(&finished("build")), Some("job"));
/// # Ok::<(), io_hooks::TableError>(())
/// ```
pub struct Where<E> {
    conditions: Box<[Condition]>,
    marker: PhantomData<fn() -> E>,
}

/// One field and what it must be.
#[derive(Debug, Clone)]
pub(crate) struct Condition {
    /// The field's wire name, for messages.
    pub(crate) name: Box<str>,
    /// For each kind (by position in `E::TAGS`), the field's position in
    /// that variant's field table; [`NOT_IN_ON`] for a kind not in `on`,
    /// which never reaches the filter.
    pub(crate) slots: Box<[u16]>,
    pub(crate) test: Test,
    /// For a condition on a tool call's argument (`where.args.path`): the
    /// argument's key, read from the free-form field each slot names
    /// ([`Enveloped::free_form`]).
    pub(crate) arg: Option<Box<str>>,
}

/// The slot of a kind the hook's `on` does not hold.
pub(crate) const NOT_IN_ON: u16 = u16::MAX;

/// The bit of a slot that says the field is the envelope's: the rest is
/// its position in [`HookEvents::ENVELOPE`] (below [`NOT_IN_ON`]).
pub(crate) const ENVELOPE_SLOT: u16 = 0x8000;

/// What a field's value must be.
#[derive(Debug, Clone)]
pub(crate) enum Test {
    /// Exactly this.
    Is(Scalar),
    /// Any of these.
    AnyOf(Box<[Test]>),
    /// A string matching this glob, whole.
    Glob(super::glob::Glob),
    /// A number within these bounds, each inclusive.
    Range {
        min: Option<Number>,
        max: Option<Number>,
    },
}

/// A value as written in the table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar {
    Str(Box<str>),
    Number(Number),
    Bool(bool),
}

/// A number as written: TOML's integer or float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Number {
    Int(i64),
    Float(f64),
}

impl<E> Where<E> {
    /// No condition: every event of `on` passes.
    pub fn none() -> Self {
        Where {
            conditions: Box::new([]),
            marker: PhantomData,
        }
    }

    pub(crate) fn new(conditions: Vec<Condition>) -> Self {
        Where {
            conditions: conditions.into_boxed_slice(),
            marker: PhantomData,
        }
    }

    /// Whether there is no condition.
    pub fn is_empty(&self) -> bool {
        self.conditions.is_empty()
    }

    /// The fields named, in the order written.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.conditions.iter().map(|c| &*c.name)
    }

    /// The tools of `table` that can run commands, write files, start runs
    /// or do what another program decides ([`ToolClass::reaches`]) and
    /// that this filter's condition on the tool's name
    /// ([`ToolTable::tool_field`]) lets through unseen: what a policy
    /// narrowed to `exec` does not see (`exec_background`). Tools known by
    /// a prefix are named `prefix…`, unless the condition lets every one of
    /// them through. `None` when no condition names the tool.
    ///
    /// ```
    /// use io_hooks::{ToolClass, ToolSpec, ToolTable, Where};
    ///
    /// # #[derive(io_hooks::HookEvents, serde::Serialize)]
    /// # #[serde(tag = "event")]
    /// # enum Ev { #[serde(rename = "call")] Call { tool: String } }
    /// static TOOLS: ToolTable = ToolTable {
    ///     tool_field: "tool",
    ///     args_field: "args",
    ///     tools: &[
    ///         ToolSpec { name: "exec", class: ToolClass::RunsCommands, args: &[] },
    ///         ToolSpec { name: "exec_background", class: ToolClass::RunsCommands, args: &[] },
    ///         ToolSpec { name: "read", class: ToolClass::Contained, args: &[] },
    ///     ],
    ///     open: &[],
    /// };
    /// let text = "[[hook]]\non = [\"call\"]\nwhere.tool = \"exec\"\nappend = \"a.jsonl\"\n";
    /// let specs = io_hooks::TomlFile::new("p.toml", text).hooks::<Ev>("/p".as_ref())?;
    /// let unseen = specs[0].r#where.lets_through(&TOOLS).unwrap_or_default();
    /// assert_eq!(unseen, [("exec_background".to_owned(), ToolClass::RunsCommands)]);
    /// assert_eq!(Where::<Ev>::none().lets_through(&TOOLS), None);
    /// # Ok::<(), io_hooks::TableError>(())
    /// ```
    pub fn lets_through(&self, table: &ToolTable) -> Option<Vec<(String, ToolClass)>> {
        let test = &self
            .conditions
            .iter()
            .find(|c| c.arg.is_none() && *c.name == *table.tool_field)?
            .test;
        let declared = table
            .tools
            .iter()
            .filter(|t| t.class.reaches() && !test.matches(FieldValue::Str(t.name)))
            .map(|t| (t.name.to_owned(), t.class));
        // A name no one would give: a condition that lets it through lets
        // through every name with the prefix (`mcp__*`).
        let open = table
            .open
            .iter()
            .filter(|(_, class, _)| class.reaches())
            .filter(|(prefix, ..)| !test.matches(FieldValue::Str(&format!("{prefix}\u{1}"))))
            .map(|(prefix, class, _)| (format!("{prefix}…"), *class));
        Some(declared.chain(open).collect())
    }
}

impl<E: HookEvents> Where<E> {
    /// Whether `event` (of a kind in the hook's `on`) passes every
    /// condition: an event of `E`, or one in its envelope ([`Enveloped`]),
    /// whose envelope fields a condition may name.
    #[inline]
    pub fn passes<V: Enveloped<E> + ?Sized>(&self, event: &V) -> bool {
        self.conditions.is_empty() || self.turned_away(event).is_none()
    }

    /// The first field whose condition `event` fails, or `None` when it
    /// passes them all: what a checker or a dry run reports. An
    /// event of a kind not in the hook's `on` passes (`on` turns it away).
    /// A condition on an envelope field fails for an event fired without
    /// its envelope, which holds no value.
    pub fn turned_away<V: Enveloped<E> + ?Sized>(&self, event: &V) -> Option<&str> {
        let own = event.event();
        let kind = own.kind().index();
        self.conditions.iter().find_map(|c| {
            let slot = *c.slots.get(kind)?;
            let value = match slot {
                NOT_IN_ON => return None,
                s if c.arg.is_some() => {
                    let json = event.free_form(usize::from(s));
                    let passes = json.is_some_and(|json| {
                        let key = c.arg.as_deref().unwrap_or("");
                        super::arg_value::with_value(json, key, |v| c.test.matches(v))
                    });
                    return (!passes).then_some(&*c.name);
                }
                s if s & ENVELOPE_SLOT != 0 => {
                    event.envelope_field(usize::from(s & !ENVELOPE_SLOT))
                }
                s => own.field(usize::from(s)),
            };
            let passes = value.is_some_and(|value| c.test.matches(value));
            (!passes).then_some(&*c.name)
        })
    }
}

impl Test {
    #[inline]
    pub(crate) fn matches(&self, value: FieldValue<'_>) -> bool {
        match self {
            Test::Is(scalar) => scalar.equals(value),
            Test::AnyOf(tests) => tests.iter().any(|t| t.matches(value)),
            Test::Glob(pattern) => match value {
                FieldValue::Str(s) => pattern.matches(s),
                _ => false,
            },
            Test::Range { min, max } => {
                min.is_none_or(|min| compare(value, min).is_some_and(Ordering::is_ge))
                    && max.is_none_or(|max| compare(value, max).is_some_and(Ordering::is_le))
            }
        }
    }
}

impl Scalar {
    #[inline]
    fn equals(&self, value: FieldValue<'_>) -> bool {
        match (self, value) {
            (Scalar::Str(a), FieldValue::Str(b)) => **a == *b,
            (Scalar::Bool(a), FieldValue::Bool(b)) => *a == b,
            (Scalar::Number(n), value) => compare(value, *n) == Some(Ordering::Equal),
            _ => false,
        }
    }
}

/// `value` against a number written in the table: integers exactly (a
/// `u64` above `i64::MAX` is above every TOML integer), a float as floats
/// compare (NaN equals nothing). An integer field is never compared with a
/// float: loading refuses that filter (`… is an integer, and this is a
/// range of floats`).
#[inline]
fn compare(value: FieldValue<'_>, n: Number) -> Option<Ordering> {
    match (value, n) {
        (FieldValue::Int(v), Number::Int(n)) => Some(v.cmp(&n)),
        (FieldValue::UInt(v), Number::Int(n)) => Some(i128::from(v).cmp(&i128::from(n))),
        (FieldValue::Float(v), Number::Int(n)) => v.partial_cmp(&(n as f64)),
        (FieldValue::Float(v), Number::Float(n)) => v.partial_cmp(&n),
        _ => None,
    }
}

/// As a TOML inline table's body, the order written: `job = ["lint",
/// { glob = "test_*" }], attempt = { min = 2 }`. Strings are escaped, so a
/// value from the file cannot start a line of its own.
impl<E> fmt::Display for Where<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.conditions.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match c.arg.as_deref() {
                // `args.path`: a dotted key, as written.
                Some(arg) => {
                    let field = c.name.strip_suffix(arg).and_then(|f| f.strip_suffix('.'));
                    let field = field.unwrap_or_default();
                    write!(f, "{}.{} = {}", toml_key(field), toml_key(arg), c.test)?;
                }
                None => write!(f, "{} = {}", toml_key(&c.name), c.test)?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Test::Is(scalar) => write!(f, "{scalar}"),
            Test::AnyOf(tests) => {
                f.write_str("[")?;
                for (i, t) in tests.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str("]")
            }
            Test::Glob(pattern) => write!(f, "{{ glob = {} }}", quoted(pattern.as_str())),
            Test::Range { min, max } => {
                f.write_str("{ ")?;
                if let Some(min) = min {
                    write!(f, "min = {min}")?;
                }
                if let Some(max) = max {
                    if min.is_some() {
                        f.write_str(", ")?;
                    }
                    write!(f, "max = {max}")?;
                }
                f.write_str(" }")
            }
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Str(s) => f.write_str(&quoted(s)),
            Scalar::Number(n) => write!(f, "{n}"),
            Scalar::Bool(b) => write!(f, "{b}"),
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(n) => write!(f, "{n}"),
            // `{:?}` keeps the `.0` that makes `1.0` a TOML float.
            Number::Float(x) => write!(f, "{x:?}"),
        }
    }
}

/// A string as a TOML basic string: JSON's escapes are TOML's.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| String::from("\"\""))
}

// Written out: a derive would demand `E: Clone` and `E: Debug`.
impl<E> Clone for Where<E> {
    fn clone(&self) -> Self {
        Where {
            conditions: self.conditions.clone(),
            marker: PhantomData,
        }
    }
}

impl<E> Default for Where<E> {
    fn default() -> Self {
        Self::none()
    }
}

impl<E> fmt::Debug for Where<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Where({self})")
    }
}
