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
//! `#[hook(cost = "per_step")]` on a variant declares its cost class
//! (`per_token`, `per_step`, `per_run`, `rare`) for `HookEvents::COSTS`; it
//! is optional.
//!
//! The derive runs in three stages: `plan` reads the enum, `check` judges it,
//! `expand` generates from it.
//!
//! `#[hook(tag)]` is for an enum serde does not serialise. Where the enum
//! carries any `#[serde(...)]`, serde names the variants, so a variant tagged
//! only by `#[hook(tag)]` is refused. An enum that derives `Serialize` with no
//! `#[serde]` attribute at all cannot be told apart from one that does not
//! derive it, so there the derive trusts `#[hook(tag)]`.

#![forbid(unsafe_code)]

mod attr;
mod check;
mod cost;
mod ctxt;
mod expand;
mod plan;

use proc_macro::TokenStream;

/// Derives `io_hooks::HookEvents` for an enum. See the crate docs.
#[proc_macro_derive(HookEvents, attributes(hook))]
pub fn derive_hook_events(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input).into()
}
