//! The event registry: the [`HookEvents`] trait the derive implements, and
//! [`HookFilter`], the one-word bitset a hook's `on` list becomes.

use std::fmt;
use std::marker::PhantomData;

mod fields;
pub(crate) mod json;

pub use fields::{
    AsFieldValue, Choices, ChoicesOf, Field, FieldKind, FieldValue, NoChoices, unit_variant_name,
};
pub use json::{Direct, JsonValue, NotSerialize, ViaSerde};

/// The most variants an event enum may have: one bit each in a `u64`.
///
/// `#[derive(HookEvents)]` refuses a 65th variant at compile time, so a
/// [`HookFilter`] is always a single word and matching is always one AND.
pub const MAX_EVENTS: usize = 64;

/// An enum whose variants are the events a hook may name.
///
/// Implement it with `#[derive(HookEvents)]`, never by hand: the derive takes
/// each variant's wire tag from its literal `#[serde(rename = "…")]` (or
/// `#[hook(tag = "…")]`), refuses a variant without one, and builds every item
/// below from one list, so the tags, the indices and the validator cannot
/// disagree.
///
/// ```
/// use io_hooks::HookEvents;
///
/// #[derive(HookEvents)]
/// enum Light {
///     /// The light came on.
///     #[hook(tag = "on")]
///     On,
///     /// The light went off, with the seconds it was on.
///     #[hook(tag = "off")]
///     Off { seconds: u32 },
/// }
///
/// assert_eq!(Light::TAGS, ["on", "off"]);
/// assert_eq!(Light::Off { seconds: 3 }.kind().tag(), "off");
/// assert_eq!(Light::from_tag("off"), Some(Light::Off { seconds: 0 }.kind()));
/// assert_eq!(Light::from_tag("Off"), None);
/// assert_eq!(Light::DOCS[0], "The light came on.");
/// assert_eq!(Light::COSTS, [None, None]);
/// ```
pub trait HookEvents: Sized {
    /// Every wire tag, in declaration order.
    const TAGS: &'static [&'static str];

    /// Each variant's doc comment (its first paragraph, lines joined by a
    /// space; empty when it has none), in the same order as [`TAGS`](Self::TAGS).
    const DOCS: &'static [&'static str];

    /// Each variant's cost class from its `#[hook(cost = "…")]` (`None` where
    /// it declares none), in the same order as [`TAGS`](Self::TAGS).
    const COSTS: &'static [Option<Cost>];

    /// Each variant's fields as serde writes them, in the same order as
    /// [`TAGS`](Self::TAGS): what a `where` filter is checked against when a
    /// table is loaded ([`Kind::fields`]). Empty for an impl without them.
    const FIELDS: &'static [&'static [Field]] = &[];

    /// Whether each variant is marked `#[hook(last)]`, in the same order as
    /// [`TAGS`](Self::TAGS): nothing follows such an event that a cancel
    /// could stop (a run's `finished`), so a hook whose `on` holds only
    /// such events may not cancel, and a cancelling hook's failure on one
    /// answers [`Flow::Continue`](crate::Flow::Continue) ([`Kind::is_last`],
    /// [`HookFilter::LAST`]). Empty, or shorter than `TAGS`, for none.
    const LAST: &'static [bool] = &[];

    /// The fields of the envelope every event is delivered in, beside its
    /// own (a run's id, its depth), as `#[hook(envelope(run_id: String,
    /// depth: u32))]` declares them on the enum: a `where` filter may name
    /// them on every event, and reads them through [`Enveloped`]. Empty for
    /// none.
    const ENVELOPE: &'static [Field] = &[];

    /// This event's [`Kind`]: a `match` on the variant, with no string work.
    fn kind(&self) -> Kind<Self>;

    /// The value of field `index` of this event's variant (a position in
    /// [`Kind::fields`]), read without serialising: `None` for a field no
    /// filter may name, a `None` value, or an index past the end.
    #[inline]
    fn field(&self, index: usize) -> Option<FieldValue<'_>> {
        let _ = index;
        None
    }

    /// The strings field `field` of variant `kind` (positions in
    /// [`TAGS`](Self::TAGS) and [`Kind::fields`]) can hold, when they are
    /// known: for a field marked `#[hook(unit_enum)]` whose type also
    /// derives `Deserialize`, its variants' serde names; for a string field
    /// marked `#[hook(values = …)]`, those values. What a `where`
    /// filter's values are checked against when a table is loaded
    /// ([`Kind::field_choices`]). `None` for any other field.
    fn field_choices(kind: usize, field: usize) -> Option<&'static [&'static str]> {
        let _ = (kind, field);
        None
    }

    /// The prefixes field `field` of variant `kind` declares with
    /// `#[hook(prefix = "…")]`: a string starting with one is a value the
    /// field may hold too, for names known only at run time (an MCP
    /// server's tools). Empty for any other field.
    fn field_prefixes(kind: usize, field: usize) -> &'static [&'static str] {
        let _ = (kind, field);
        &[]
    }

    /// The kind whose tag is `tag`, or `None` for a name this enum does not
    /// emit. Exact and case-sensitive: this is the validator config loading
    /// calls.
    fn from_tag(tag: &str) -> Option<Kind<Self>>;

    /// This event's wire tag.
    #[inline]
    fn tag(&self) -> &'static str {
        self.kind().tag()
    }

    /// Appends this event to `out` as one JSON object: the bytes
    /// `serde_json::to_writer(out, self)` writes, which is what this
    /// default does. What [`Hooks::fire_event`](crate::Hooks::fire_event)
    /// serialises an event with, and an embedder's own line may start with
    /// (`io`'s puts its envelope's fields before the closing `}`).
    ///
    /// `#[derive(HookEvents)]` writes it without serde's machinery for an
    /// internally tagged enum (`#[serde(tag = "…")]`): the tag and each
    /// field's key are byte literals, escaped when the crate compiles, and
    /// each value is written by serde_json (a string or a bool directly,
    /// as serde_json would). A variant with a serde attribute the derive
    /// does not model (`skip`, `flatten`, `serialize_with`, a field's
    /// `rename`, a newtype or tuple variant…), and an enum with one, a type
    /// parameter or another tagging, are written by serde itself: the bytes
    /// are serde's derive's in every case. The derive writes it only for an
    /// enum marked `#[hook(write_json)]`, the embedder's word that its
    /// `Serialize` is serde's derive (a derive cannot see the others of the
    /// same `#[derive(...)]`); any other enum's is serde's.
    ///
    /// ```
    /// use io_hooks::HookEvents;
    ///
    /// #[derive(serde::Serialize, HookEvents)]
    /// #[serde(tag = "event")]
    /// enum Ev {
    ///     #[serde(rename = "step")]
    ///     Step { step: u32, note: String },
    /// }
    /// let step = Ev::Step { step: 3, note: "say \"hi\"".into() };
    /// let mut line = Vec::new();
    /// step.write_json(&mut line)?;
    /// assert_eq!(line, br#"{"event":"step","step":3,"note":"say \"hi\""}"#);
    /// assert_eq!(line, serde_json::to_vec(&step)?);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    ///
    /// # Errors
    /// As `serde_json::to_writer` fails on the event: a field whose
    /// `Serialize` fails (a map with keys that are not strings, a custom
    /// impl's error).
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()>
    where
        Self: serde::Serialize,
    {
        serde_json::to_writer(out, self)
    }
}

/// An event in the envelope it is delivered in: what
/// [`Hooks::fire`](crate::Hooks::fire) is given, and what a `where` filter
/// reads, the event's own fields from [`event`](Self::event) and the
/// envelope's ([`HookEvents::ENVELOPE`]) from
/// [`envelope_field`](Self::envelope_field).
///
/// Every event enum is its own, with no envelope value: a condition on an
/// envelope field never holds for an event fired without its envelope.
/// An embedder whose lines carry an envelope implements it for the type it
/// serialises, reading each field at its position in `ENVELOPE`:
///
/// ```
/// use io_hooks::{Enveloped, FieldValue, HookEvents, TomlFile};
///
/// #[derive(HookEvents, serde::Serialize)]
/// #[serde(tag = "event")]
/// #[hook(envelope(job: String, attempt: u32))]
/// enum Ev {
///     #[serde(rename = "finished")]
///     #[hook(last)]
///     Finished { ok: bool },
/// }
///
/// #[derive(serde::Serialize)]
/// struct Line {
///     #[serde(flatten)]
///     event: Ev,
///     job: String,
///     attempt: u32,
/// }
///
/// impl Enveloped<Ev> for Line {
///     fn event(&self) -> &Ev {
///         &self.event
///     }
///     fn envelope_field(&self, index: usize) -> Option<FieldValue<'_>> {
///         match index {
///             0 => Some(FieldValue::Str(&self.job)),
///             1 => Some(FieldValue::UInt(self.attempt.into())),
///             _ => None,
///         }
///     }
/// }
///
/// assert_eq!(Ev::ENVELOPE.iter().map(|f| f.name).collect::<Vec<_>>(), ["job", "attempt"]);
/// // An envelope field on every event, with no `on`.
/// let text = "[[hook]]\nwhere.attempt = { min = 2 }\nappend = \"retries.jsonl\"\n";
/// let specs = TomlFile::new("ci.toml", text).hooks::<Ev>("/p".as_ref())?;
/// let line = |attempt| Line { event: Ev::Finished { ok: true }, job: "lint".into(), attempt };
/// assert!(!specs[0].r#where.passes(&line(1)));
/// assert!(specs[0].r#where.passes(&line(2)));
/// // Fired without its envelope, the event has no `attempt` to match.
/// assert!(!specs[0].r#where.passes(&Ev::Finished { ok: true }));
/// # Ok::<(), io_hooks::TableError>(())
/// ```
pub trait Enveloped<E> {
    /// The event itself: what its kind and its own fields are read from.
    fn event(&self) -> &E;

    /// The value of envelope field `index` (a position in
    /// [`HookEvents::ENVELOPE`]): `None` for no value (an `Option` that is
    /// `None`, an index past the end), which no condition matches.
    #[inline]
    fn envelope_field(&self, index: usize) -> Option<FieldValue<'_>> {
        let _ = index;
        None
    }

    /// The JSON text of the event's own free-form field `index` (a
    /// position in [`Kind::fields`] of a field of [`FieldKind::Other`]):
    /// what a `where` on a tool call's arguments reads
    /// ([`Layout::tools`](crate::Layout::tools)). `None` for no such
    /// field, or an embedder that gives none, which no such condition
    /// matches.
    #[inline]
    fn free_form(&self, index: usize) -> Option<&str> {
        let _ = index;
        None
    }
}

/// An event is its own envelope, with no value in it.
impl<E: HookEvents> Enveloped<E> for E {
    #[inline]
    fn event(&self) -> &E {
        self
    }
}

/// One kind of event of `E`: which variant, without its fields. It is what
/// a filter holds one bit of, what an observer is asked whether it wants,
/// and what carries a variant's tag, doc and cost. Only
/// `#[derive(HookEvents)]` makes one from a position, so a `Kind<E>` is
/// always one of `E`'s.
///
/// ```
/// use io_hooks::{Cost, HookEvents, Kind};
///
/// #[derive(HookEvents)]
/// enum Stream {
///     /// A token arrived.
///     #[hook(tag = "token", cost = "per_item")]
///     Token(String),
///     #[hook(tag = "done")]
///     Done,
/// }
///
/// // A kind named in a `const` is checked when the crate compiles.
/// const TOKEN: Kind<Stream> = Kind::named("token");
/// assert_eq!(Stream::Token("hi".into()).kind(), TOKEN);
/// assert_eq!((TOKEN.tag(), TOKEN.doc(), TOKEN.cost()), ("token", "A token arrived.", Some(Cost::PerItem)));
/// assert_eq!(Kind::<Stream>::all().map(Kind::tag).collect::<Vec<_>>(), ["token", "done"]);
/// ```
pub struct Kind<E> {
    index: usize,
    // As `HookFilter`'s: a kind owns no `E`.
    marker: PhantomData<fn() -> E>,
}

impl<E> Kind<E> {
    /// The kind at `index` in declaration order. Private: a kind from
    /// outside this crate comes from a tag ([`Kind::named`],
    /// [`HookEvents::from_tag`]) or a value ([`HookEvents::kind`]), never
    /// from a raw position.
    const fn at(index: usize) -> Self {
        assert!(
            index < MAX_EVENTS,
            "an event kind's position is below MAX_EVENTS"
        );
        Kind {
            index,
            marker: PhantomData,
        }
    }

    /// The position in `E::TAGS`, for the bitset.
    #[inline]
    pub(crate) const fn index(self) -> usize {
        self.index
    }
}

impl<E: HookEvents> Kind<E> {
    /// The kind whose tag is `tag`, for a `const`: an unknown tag is a
    /// compile error there. (At run time it panics; a tag that comes from
    /// input goes through [`HookEvents::from_tag`].)
    ///
    /// # Panics
    /// If `E` has no variant tagged `tag`; the message names `tag` and the
    /// tags `E` has:
    ///
    /// ```should_panic
    /// // Panics with: Kind::named: no event of this enum has the tag
    /// // `finishd`; expected one of `started`, `finished`
    /// #[derive(io_hooks::HookEvents)]
    /// enum Build {
    ///     #[hook(tag = "started")]
    ///     Started,
    ///     #[hook(tag = "finished")]
    ///     Finished,
    /// }
    /// let tag = String::from("finishd");
    /// io_hooks::Kind::<Build>::named(&tag);
    /// ```
    pub const fn named(tag: &str) -> Self {
        let mut i = 0;
        while i < E::TAGS.len() {
            if str_eq(E::TAGS[i], tag) {
                return Self::at(i);
            }
            i += 1;
        }
        let mut message = PanicMessage::new();
        message.push("Kind::named: no event of this enum has the tag `");
        message.push(tag);
        message.push("`; expected one of ");
        let mut i = 0;
        while i < E::TAGS.len() {
            if i > 0 {
                message.push(", ");
            }
            message.push("`");
            message.push(E::TAGS[i]);
            message.push("`");
            i += 1;
        }
        panic!("{}", message.as_str())
    }

    /// Every kind of `E`, in declaration order.
    pub fn all() -> impl Iterator<Item = Self> {
        (0..E::TAGS.len()).map(Self::at)
    }

    /// The wire tag.
    #[inline]
    pub fn tag(self) -> &'static str {
        E::TAGS[self.index]
    }

    /// The variant's doc comment (its first paragraph; empty when it has
    /// none).
    #[inline]
    pub fn doc(self) -> &'static str {
        E::DOCS[self.index]
    }

    /// The variant's `#[hook(cost = "…")]`, when it declares one.
    #[inline]
    pub fn cost(self) -> Option<Cost> {
        E::COSTS[self.index]
    }

    /// Whether the variant is marked `#[hook(last)]`: nothing follows it
    /// that a cancel could stop ([`HookEvents::LAST`]).
    #[inline]
    pub fn is_last(self) -> bool {
        E::LAST.get(self.index).copied().unwrap_or(false)
    }
}

/// `a == b`, in a `const fn`.
/// A panic message built where `format!` cannot run, in a `const fn`:
/// bytes in a fixed buffer, cut with `…` when full. An ASCII control
/// character is written `?`, so a tag cannot break the line it is shown on.
struct PanicMessage {
    buf: [u8; PanicMessage::CAPACITY],
    len: usize,
    cut: bool,
}

impl PanicMessage {
    /// Enough for a tag and a list of 64 short tags; a longer list is cut.
    const CAPACITY: usize = 1024;
    /// Room kept for the `…` a cut message ends with.
    const ELLIPSIS: &'static str = "…";

    const fn new() -> Self {
        PanicMessage {
            buf: [0; PanicMessage::CAPACITY],
            len: 0,
            cut: false,
        }
    }

    const fn push(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let room = PanicMessage::CAPACITY - PanicMessage::ELLIPSIS.len();
        let mut i = 0;
        while i < bytes.len() {
            if self.len == room {
                self.cut = true;
                return;
            }
            let b = bytes[i];
            self.buf[self.len] = if b < 0x20 || b == 0x7f { b'?' } else { b };
            self.len += 1;
            i += 1;
        }
    }

    /// The message, ending at a character boundary (a cut may fall inside a
    /// character), with `…` when cut.
    const fn as_str(&mut self) -> &str {
        let (head, _) = self.buf.split_at(self.len);
        let valid = match std::str::from_utf8(head) {
            Ok(text) => text.len(),
            Err(e) => e.valid_up_to(),
        };
        self.len = valid;
        if self.cut {
            let ellipsis = PanicMessage::ELLIPSIS.as_bytes();
            let mut i = 0;
            while i < ellipsis.len() {
                self.buf[self.len] = ellipsis[i];
                self.len += 1;
                i += 1;
            }
        }
        let (head, _) = self.buf.split_at(self.len);
        match std::str::from_utf8(head) {
            Ok(text) => text,
            Err(_) => "",
        }
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

// Written out: a derive would demand `E: Clone` and friends.
impl<E> Clone for Kind<E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for Kind<E> {}
impl<E> PartialEq for Kind<E> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<E> Eq for Kind<E> {}
impl<E> std::hash::Hash for Kind<E> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}
impl<E: HookEvents> fmt::Debug for Kind<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kind({})", self.tag())
    }
}

/// How often an event fires, which is what a hook on it costs: a `run` hook
/// spawns a process each time. A variant declares it with
/// `#[hook(cost = "per_item" | "per_unit" | "per_invocation" | "rare")]`.
///
/// ```
/// use io_hooks::{Cost, HookEvents};
///
/// #[derive(HookEvents)]
/// enum Deploy {
///     /// A line of a host's log; once per line, many per host.
///     #[hook(tag = "log_line", cost = "per_item")]
///     LogLine,
///     /// A host was deployed to; once per host.
///     #[hook(tag = "host_done", cost = "per_unit")]
///     HostDone,
///     /// The deploy finished; once per invocation.
///     #[hook(tag = "finished")]
///     Finished,
/// }
///
/// assert_eq!(Deploy::COSTS, [Some(Cost::PerItem), Some(Cost::PerUnit), None]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Cost {
    /// Once per item of a stream, many per unit of work (a log line, a
    /// file of a batch, a chunk of output): a `run` hook here spawns a
    /// process per item.
    PerItem,
    /// Once per unit of the program's work (a job, a stage, a host, a
    /// request, an iteration of its main loop), or per call within one.
    PerUnit,
    /// Once per invocation of the program.
    PerInvocation,
    /// When it happens, rarely: nothing measurable.
    Rare,
}

impl Cost {
    /// The class in words, for a listing of events: `per item`, `per
    /// unit`, `per invocation`, `rare`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Cost::PerItem => "per item",
            Cost::PerUnit => "per unit",
            Cost::PerInvocation => "per invocation",
            Cost::Rare => "rare",
        }
    }
}

/// A set of events of `E`, one bit per variant.
///
/// A hook's `on` list becomes one of these at load time; matching an event
/// against it is a shift, an AND and a test.
///
/// ```
/// use io_hooks::{HookEvents, HookFilter};
///
/// #[derive(HookEvents)]
/// enum Ev {
///     #[hook(tag = "started")]
///     Started,
///     #[hook(tag = "job")]
///     Job(u32),
///     #[hook(tag = "finished")]
///     Finished,
/// }
///
/// let f = HookFilter::<Ev>::from_names(["job", "finished"])?;
/// assert!(f.contains(&Ev::Job(3)));
/// assert!(!f.contains(&Ev::Started));
/// assert_eq!(f.tags().collect::<Vec<_>>(), ["job", "finished"]);
///
/// let err = HookFilter::<Ev>::from_names(["jobb"]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "unknown event `jobb` (did you mean `job`?); \
///      expected one of `started`, `job`, `finished`"
/// );
/// # Ok::<(), io_hooks::UnknownEvent>(())
/// ```
pub struct HookFilter<E> {
    bits: u64,
    // `fn() -> E`: the filter owns no `E`, so it is `Send + Sync + Copy`
    // whatever `E` is.
    marker: PhantomData<fn() -> E>,
}

impl<E: HookEvents> HookFilter<E> {
    /// Every event of `E`.
    pub const ALL: Self = Self::from_bits(if E::TAGS.len() >= MAX_EVENTS {
        u64::MAX
    } else {
        (1u64 << E::TAGS.len()) - 1
    });

    /// No event at all.
    pub const EMPTY: Self = Self::from_bits(0);

    /// The events marked `#[hook(last)]` ([`HookEvents::LAST`]): nothing
    /// follows them that a cancel could stop.
    ///
    /// ```
    /// use io_hooks::{HookEvents, HookFilter};
    ///
    /// #[derive(HookEvents)]
    /// enum Ev {
    ///     #[hook(tag = "step")]
    ///     Step,
    ///     #[hook(tag = "finished", last)]
    ///     Finished,
    /// }
    /// assert_eq!(HookFilter::<Ev>::LAST.tags().collect::<Vec<_>>(), ["finished"]);
    /// let on = HookFilter::<Ev>::from_names(["finished"])?;
    /// assert!(on.without(HookFilter::LAST).is_empty());
    /// # Ok::<(), io_hooks::UnknownEvent>(())
    /// ```
    pub const LAST: Self = Self::from_bits({
        let mut bits = 0u64;
        let mut i = 0;
        while i < E::LAST.len() && i < MAX_EVENTS {
            if E::LAST[i] {
                bits |= 1u64 << i;
            }
            i += 1;
        }
        bits
    });

    const fn from_bits(bits: u64) -> Self {
        HookFilter {
            bits,
            marker: PhantomData,
        }
    }

    /// The filter holding exactly the events of `kind`.
    #[inline]
    pub const fn only(kind: Kind<E>) -> Self {
        Self::from_bits(1u64 << kind.index())
    }

    /// The filter holding the named events.
    ///
    /// # Errors
    /// The first name `E` does not emit, with every valid tag and the nearest
    /// one when it is close.
    pub fn from_names<I, S>(names: I) -> Result<Self, UnknownEvent>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut bits = 0u64;
        for name in names {
            let name = name.as_ref();
            match E::from_tag(name) {
                Some(kind) => bits |= 1u64 << kind.index(),
                None => return Err(UnknownEvent::new::<E>(name)),
            }
        }
        Ok(Self::from_bits(bits))
    }

    /// Whether `event` is in the set: one shift, one AND.
    #[inline]
    pub fn contains(&self, event: &E) -> bool {
        self.contains_kind(event.kind())
    }

    /// Whether events of `kind` are in the set: one shift, one AND.
    #[inline]
    pub fn contains_kind(&self, kind: Kind<E>) -> bool {
        self.bits & (1u64 << kind.index()) != 0
    }

    /// The events in either set.
    #[inline]
    #[must_use]
    pub const fn union(self, other: Self) -> Self {
        Self::from_bits(self.bits | other.bits)
    }

    /// The events in this set and not in `other`.
    #[inline]
    #[must_use]
    pub const fn without(self, other: Self) -> Self {
        Self::from_bits(self.bits & !other.bits)
    }

    /// Whether the set holds no event.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Whether the set holds every event of `E`.
    #[inline]
    pub fn is_all(&self) -> bool {
        self.bits == Self::ALL.bits
    }

    /// How many events the set holds.
    #[inline]
    pub const fn len(&self) -> usize {
        self.bits.count_ones() as usize
    }

    /// The tags in the set, in `E::TAGS` order.
    pub fn tags(&self) -> impl Iterator<Item = &'static str> + '_ {
        Kind::<E>::all()
            .filter(|kind| self.contains_kind(*kind))
            .map(Kind::tag)
    }
}

// Written out rather than derived: a derive would demand `E: Clone` and
// friends, and the filter never holds an `E`.
impl<E> Clone for HookFilter<E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for HookFilter<E> {}
impl<E> PartialEq for HookFilter<E> {
    fn eq(&self, other: &Self) -> bool {
        self.bits == other.bits
    }
}
impl<E> Eq for HookFilter<E> {}
impl<E: HookEvents> Default for HookFilter<E> {
    /// The default is [`HookFilter::ALL`], as an absent `on` is every event.
    fn default() -> Self {
        Self::ALL
    }
}

impl<E: HookEvents> fmt::Debug for HookFilter<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.tags()).finish()
    }
}

/// An event name the enum does not emit.
///
/// Its `Display` is the reason half of an operator's error; the config layer
/// puts the file and the key path in front of it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownEvent {
    /// The name as written.
    pub name: String,
    /// The nearest valid tag, when one is close enough to be a typo.
    pub suggestion: Option<&'static str>,
    /// Every valid tag, in declaration order.
    pub expected: &'static [&'static str],
}

impl UnknownEvent {
    /// The error for `name`, which `E` does not emit.
    pub fn new<E: HookEvents>(name: &str) -> Self {
        UnknownEvent {
            name: name.to_owned(),
            suggestion: did_you_mean(name, E::TAGS.iter().copied()),
            expected: E::TAGS,
        }
    }
}

impl fmt::Display for UnknownEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown event `{}`", self.name)?;
        if let Some(s) = self.suggestion {
            write!(f, " (did you mean `{s}`?)")?;
        }
        f.write_str("; expected one of ")?;
        write_one_of(f, self.expected)
    }
}

impl std::error::Error for UnknownEvent {}

/// Writes `` `a`, `b`, `c` ``: serde's shape for a list of accepted values.
pub(crate) fn write_one_of(f: &mut fmt::Formatter<'_>, names: &[&str]) -> fmt::Result {
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "`{name}`")?;
    }
    Ok(())
}

/// The candidate nearest to `input`, if it is near enough to be a typo.
///
/// "Near enough" is an edit distance (insertions, deletions, substitutions
/// and swaps of two neighbours) of at most one for short names and at most a
/// third of the input's length for longer ones, so `jobb` suggests `job`
/// and `timout_ms` suggests `timeout_ms`, but `x` suggests nothing. Ties go
/// to the earlier candidate.
///
/// ```
/// assert_eq!(io_hooks::text::did_you_mean("jobb", ["started", "job"]), Some("job"));
/// assert_eq!(io_hooks::text::did_you_mean("colour", ["on", "run"]), None);
/// ```
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (input.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (strsim::osa_distance(input, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

impl<E: HookEvents> Kind<E> {
    /// The fields of this kind's variant as serde writes them, in
    /// declaration order: those a `where` filter may name and the others
    /// (empty for a unit or tuple variant).
    pub fn fields(self) -> &'static [Field] {
        E::FIELDS.get(self.index()).copied().unwrap_or(&[])
    }

    /// The position of the field written `name` in [`fields`](Self::fields).
    pub fn field_index(self, name: &str) -> Option<usize> {
        self.fields().iter().position(|f| f.name == name)
    }

    /// The strings field `index` can hold, when they are known: the serde
    /// names of the variants of a field marked `#[hook(unit_enum)]` whose
    /// type also derives `Deserialize` ([`HookEvents::field_choices`]).
    ///
    /// ```
    /// use io_hooks::{HookEvents, Kind};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Serialize, Deserialize)]
    /// #[serde(rename_all = "snake_case")]
    /// enum Outcome {
    ///     Passed,
    ///     Failed,
    /// }
    ///
    /// #[derive(HookEvents, Serialize)]
    /// #[serde(tag = "event")]
    /// enum Ev {
    ///     #[serde(rename = "job_finished")]
    ///     JobFinished {
    ///         #[hook(unit_enum)]
    ///         outcome: Outcome,
    ///         attempt: u32,
    ///     },
    /// }
    /// let kind = Kind::<Ev>::named("job_finished");
    /// assert_eq!(kind.field_choices(0), Some(&["passed", "failed"][..]));
    /// assert_eq!(kind.field_choices(1), None);
    /// ```
    pub fn field_choices(self, index: usize) -> Option<&'static [&'static str]> {
        E::field_choices(self.index(), index)
    }

    /// The prefixes field `index` declares with `#[hook(prefix = "…")]`: a
    /// string starting with one is a value it may hold too, beside its
    /// [`field_choices`](Self::field_choices) ([`HookEvents::field_prefixes`]).
    pub fn field_prefixes(self, index: usize) -> &'static [&'static str] {
        E::field_prefixes(self.index(), index)
    }
}

/// The names of `kind`'s fields a filter may name, the envelope's last: what
/// a message about a field it does not have lists.
pub(crate) fn filterable_names<E: HookEvents>(kind: Kind<E>) -> Vec<&'static str> {
    kind.fields()
        .iter()
        .filter(|f| f.is_filterable())
        .chain(E::ENVELOPE)
        .map(|f| f.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean_stays_quiet_when_nothing_is_close() {
        let keys = ["on", "append", "run", "on_failure", "timeout_ms"];
        assert_eq!(did_you_mean("timout_ms", keys), Some("timeout_ms"));
        assert_eq!(did_you_mean("apend", keys), Some("append"));
        assert_eq!(did_you_mean("onfailure", keys), Some("on_failure"));
        assert_eq!(did_you_mean("command", keys), None);
        assert_eq!(did_you_mean("x", keys), None);
        // A swap of two neighbours is one edit, as the operator meant it.
        assert_eq!(did_you_mean("tset", ["test", "stop"]), Some("test"));
    }
}
