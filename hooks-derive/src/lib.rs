//! `#[derive(HookEvents)]`: turns an event enum into a checked registry.
//!
//! Use it through `io_hooks`, which re-exports it; the generated code names
//! `::io_hooks` (or the path given by `#[hook(crate = "…")]`).
//!
//! Every variant must carry its wire tag literally, as
//! `#[serde(rename = "…")]` or `#[hook(tag = "…")]` (both present must agree).
//! A variant without one, two variants with one tag, an empty tag, a variant
//! serde never writes or writes untagged (`skip`, `skip_serializing`,
//! `untagged`), an alias that is another variant's tag, an enum serde writes
//! as another type (`into`), a newtype under an internal tag whose field is no
//! map (a string, number, sequence, tuple or `Option`), more than 64 variants,
//! and a derive on a struct or union are compile errors, all reported together.
//!
//! `#[hook(cost = "per_unit")]` on a variant declares its cost class
//! (`per_item`, `per_unit`, `per_invocation`, `rare`) for `HookEvents::COSTS`; it
//! is optional.
//!
//! The derive runs in three stages: `plan` reads the enum, `check` judges it,
//! `expand` generates from it (`fields` the field table, `json` the
//! `write_json` writer).
//!
//! `#[hook(tag)]` is for an enum serde does not serialise. Where the enum
//! carries any `#[serde(...)]`, or a `#[derive(Serialize)]` written below
//! `#[derive(HookEvents)]`, serde names the variants, so a variant tagged
//! only by `#[hook(tag)]` is refused. The compiler hands a derive only the
//! `#[derive]` attributes after the one naming it: a `Serialize` in the same
//! `#[derive(...)]`, or in one above, cannot be told apart from none, so
//! there the derive trusts `#[hook(tag)]`, and `io_hooks::check_tags` is the
//! test that catches a disagreement.

#![forbid(unsafe_code)]

mod attr;
mod check;
mod cost;
mod ctxt;
mod expand;
mod fields;
mod json;
mod plan;

use proc_macro::TokenStream;

/// Derives `io_hooks::HookEvents` for an enum: its wire tags, one per
/// variant in declaration order, each variant's doc and cost, and each
/// event's `io_hooks::Kind` (its bit in a filter).
///
/// ```
/// use io_hooks::{Cost, HookEvents};
///
/// #[derive(serde::Serialize, HookEvents)]
/// #[serde(tag = "event")]
/// enum Build {
///     /// A build started; once per build.
///     #[serde(rename = "started")]
///     #[hook(cost = "per_invocation")]
///     Started { target: String },
///     /// A build finished; once per build.
///     #[serde(rename = "finished")]
///     Finished { ok: bool },
/// }
/// assert_eq!(Build::TAGS, ["started", "finished"]);
/// assert_eq!(Build::DOCS[1], "A build finished; once per build.");
/// assert_eq!(Build::COSTS, [Some(Cost::PerInvocation), None]);
/// let done = Build::Finished { ok: true };
/// assert_eq!(done.kind().tag(), "finished");
/// assert_eq!(Build::from_tag("started"), Some(Build::Started { target: "x".into() }.kind()));
/// ```
///
/// # Attributes
///
/// On the enum:
///
/// - `#[hook(crate = "path")]`: the path the generated code names the
///   engine by, `::io_hooks` by default. For a crate that re-exports
///   `io_hooks` under another name (`#[hook(crate = "my_app::hooks")]`).
///   Given once at most.
/// - `#[hook(envelope(run_id: String, depth: u32, seq: Option<u64>))]`:
///   the fields every event's line carries beside its own (the envelope
///   the embedder serialises each event in), as named fields are written,
///   in `HookEvents::ENVELOPE`: a hook's `where` may name them on every
///   event, with `on` or without, checked with their types and bounds as an
///   event's own fields are; the values come from the embedder's
///   `io_hooks::Enveloped` impl. Each a string, an integer, a float or a
///   bool (or an `Option` of one), each named once, and none named as the
///   tag or as a field of an event. Given once at most.
/// - `#[hook(write_json)]`: the enum's `Serialize` is serde's derive, so
///   the derive writes `HookEvents::write_json` itself, from the same
///   `#[serde(...)]` attributes, byte for byte what serde writes, without
///   serde's machinery (the line each matching event is serialised to).
///   Without it, `write_json` is the trait's default, serde's. Takes no
///   value. (A derive cannot see the other derives of the same
///   `#[derive(...)]`, so it cannot tell serde's `Serialize` from one
///   written by hand; the mark is the embedder's word for it.)
///
/// On a variant:
///
/// - `#[hook(tag = "name")]`: the variant's wire tag, for an enum serde does
///   not serialise. Where the enum carries any `#[serde(...)]`, or a
///   `#[derive(Serialize)]` below this derive's, serde names the variants,
///   so the tag must come from `#[serde(rename = "…")]` and a variant tagged
///   only by `#[hook(tag)]` is refused; both present must agree. Not empty,
///   and unique across the enum. (A `Serialize` this derive cannot see is
///   checked by `io_hooks::check_tags`, in a test.)
/// - `#[hook(cost = "class")]`: the variant's cost class, one of
///   `per_item`, `per_unit`, `per_invocation` or `rare`, reported by
///   `HookEvents::COSTS` (`None` for a variant without one). Optional.
/// - `#[hook(last)]`: nothing follows this event that a cancel could stop
///   (a run's `finished`), in `HookEvents::LAST`: a hook whose every event
///   is such may not say `on_failure = "cancel"`, and a cancelling hook's
///   failure on one answers `Flow::Continue`. Takes no value.
///
/// On a named field:
///
/// - `#[hook(unit_enum)]`: the field holds an enum of unit variants (or an
///   `Option` of one), which serde writes as the variant's name, so a
///   hook's `where` may name it and match that name
///   (`where.outcome = "cancelled"`). The field table lists it as a string,
///   and `HookEvents::field` reads the name from the value's own
///   `Serialize` without allocating; a value that is not a unit variant
///   reads as no value, which no filter matches. Where the field's type
///   also derives `Deserialize`, its variants' names are known
///   (`HookEvents::field_choices`), and a filter's value or glob that none
///   of them matches is refused when the table is loaded. Refused on a
///   field a filter can already read (a string, a number, a bool).
/// - `#[hook(values = EXPR)]`, on a string field: the strings it holds, an
///   expression of type `&'static [&'static str]` (a `const` the program
///   already keeps, so the list cannot drift) or an array of string
///   literals (`values = ["exec", "read_file"]`). A filter's value that is
///   none of them, or a glob that matches none, is refused when the table
///   is loaded, with the nearest suggested (`exce`: did you mean `exec`?),
///   as a hook that could never fire (`HookEvents::field_choices`).
/// - `#[hook(prefix = "…")]`, on a string field, repeatable: a string
///   starting with it is a value the field holds too, for names known only
///   at run time (`prefix = "mcp__"` for an MCP server's tools). With
///   `values` or alone (`HookEvents::field_prefixes`).
///
/// An integer field's bounds are its type's (`u32`: 0 to 4294967295): a
/// filter's integer, or a `{ min, max }` range, outside them is refused
/// when the table is loaded (`Field::bounds`).
///
/// serde's own attributes are read too: `rename` gives the tag, and a
/// variant serde never writes, or writes without its tag (`skip`,
/// `skip_serializing`, `untagged`), is refused. `rename_all` does not give a
/// tag: the tag is written on each variant, so that it can be searched for.
/// Doc comments become the variant's entry in `HookEvents::DOCS`.
///
/// For an internally tagged enum (`#[serde(tag = "…")]`), the derive also
/// writes `HookEvents::write_json`, the event as serde_json writes it,
/// without serde's machinery: the tag and each field's key as byte
/// literals escaped here, each value as serde_json writes it, and a field's
/// `skip_serializing_if` honoured. A variant with any other serde attribute
/// that changes what serde writes (`skip`, `flatten`, `serialize_with`,
/// `with`, a field's `rename`, its own `rename_all`), a newtype or tuple
/// variant, is written by serde; an enum with such an attribute
/// (`rename_all_fields`, `content`, `remote`…), a type parameter, or no
/// internal tag gets the trait's default, serde. The bytes are serde's
/// derive's in every case, for an enum marked `#[hook(write_json)]`.
///
/// Each variant's named fields become its row of `HookEvents::FIELDS`, by
/// the name serde writes (`rename` honoured; `skip`, `skip_serializing` and
/// `flatten` fields left out), each with its JSON type, read off the type's
/// path: a string, an integer, a float or a bool (through a reference or
/// one `Option`) may be named by a hook's `where`, and so may a field marked
/// `#[hook(unit_enum)]`; anything else is listed as free-form or nested. `HookEvents::field` reads one without
/// serialising the event. A variant whose field names serde changes by a
/// rule (`rename_all` on it, `rename_all_fields` on the enum) lists none.
///
/// # Errors at compile time
///
/// A variant without a literal tag, two variants with one tag, an empty
/// tag, a variant serde never writes or writes untagged, an unknown key in
/// `#[hook(...)]`, an envelope field of a type no filter reads, declared
/// twice, or named as the tag or an event's field, more than 64 variants (`MAX_EVENTS`), and a derive on a
/// struct or union: each an error pointing at the offending token, all
/// reported in one compile. The crate docs say more on each.
#[proc_macro_derive(HookEvents, attributes(hook))]
pub fn derive_hook_events(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input).into()
}
