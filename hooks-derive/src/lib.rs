//! `#[derive(HookEvents)]`: turns an event enum into a checked registry.
//!
//! Use it through `io_hooks`, which re-exports it; the generated code names
//! `::io_hooks` (or the path given by `#[hook(crate = "…")]`).
//!
//! Every variant must carry its wire tag literally, as
//! `#[serde(rename = "…")]` or `#[hook(tag = "…")]` (both present must agree).
//! A variant without one, two variants with one tag, a variant serde never
//! serialises, more than 64 variants, and a derive on a struct or union are
//! compile errors, all reported together.

mod attr;
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
