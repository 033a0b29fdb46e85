//! The plan: the variant list, computed and checked once. Every generated
//! item is built from it, so the tags, indices, validator and docs cannot
//! drift apart (enumset's `plan.rs`).

use std::collections::HashMap;

use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Ident, LitStr};

use crate::attr;
use crate::ctxt::Ctxt;

/// One bit per variant in a `u64`; must equal `io_hooks::MAX_EVENTS`, which
/// the generated code asserts.
pub(crate) const MAX_EVENTS: usize = 64;

pub(crate) struct Plan<'a> {
    pub ident: &'a Ident,
    pub generics: &'a syn::Generics,
    pub crate_path: syn::Path,
    pub variants: Vec<PlannedVariant<'a>>,
}

pub(crate) struct PlannedVariant<'a> {
    pub ident: &'a Ident,
    pub tag: String,
    pub doc: String,
}

impl<'a> Plan<'a> {
    /// Parses and checks `input`, recording every problem in `cx`.
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Self {
        let container = attr::Container::from_ast(cx, &input.attrs);
        let crate_path = container
            .crate_path
            .unwrap_or_else(|| syn::parse_quote!(::io_hooks));
        let mut plan = Plan {
            ident: &input.ident,
            generics: &input.generics,
            crate_path,
            variants: Vec::new(),
        };
        let data = match &input.data {
            Data::Enum(data) => data,
            Data::Struct(s) => {
                cx.error_spanned_by(s.struct_token, NOT_AN_ENUM);
                return plan;
            }
            Data::Union(u) => {
                cx.error_spanned_by(u.union_token, NOT_AN_ENUM);
                return plan;
            }
        };
        if data.variants.len() > MAX_EVENTS {
            cx.error_spanned_by(
                &input.ident,
                format!(
                    "`HookEvents` supports at most {MAX_EVENTS} variants (one bit each in a \
                     u64 filter), and `{}` has {}",
                    input.ident,
                    data.variants.len()
                ),
            );
        }
        let attrs: Vec<attr::Variant> = data
            .variants
            .iter()
            .map(|variant| attr::Variant::from_ast(cx, &variant.attrs))
            .collect();
        let naming = Naming {
            has_rename_all: container.has_rename_all,
            // A `#[serde]` anywhere, even on a field, means serde derives.
            serde_names_variants: container.has_serde
                || attrs.iter().any(|a| a.has_serde)
                || data
                    .variants
                    .iter()
                    .flat_map(|v| &v.fields)
                    .any(|f| attr::has_serde(&f.attrs)),
        };
        // The first literal that wrote each tag, to point at both on a clash.
        let mut seen: HashMap<String, (&Ident, LitStr)> = HashMap::new();
        for (variant, attrs) in data.variants.iter().zip(attrs) {
            for field in &variant.fields {
                for hook in attr::hook_attrs(&field.attrs) {
                    cx.error_spanned_by(
                        hook.path(),
                        "`#[hook]` has no meaning on a field; a tag goes on the variant, as \
                         `#[hook(tag = \"…\")]`",
                    );
                }
            }
            if let Some(skip) = &attrs.skipped {
                cx.error_spanned_by(
                    skip,
                    format!(
                        "variant `{}` has `#[serde({})]`, so serde never writes it and no hook \
                         could see it; remove the skip, or move the variant out of the event enum",
                        variant.ident,
                        skip.to_token_stream(),
                    ),
                );
                continue;
            }
            if let Some(untagged) = &attrs.untagged {
                cx.error_spanned_by(
                    untagged,
                    format!(
                        "variant `{}` has `#[serde(untagged)]`, so serde writes it without a tag \
                         and no hook could match it; remove `untagged`, or move the variant out \
                         of the event enum",
                        variant.ident,
                    ),
                );
                continue;
            }
            let Some(lit) = resolve_tag(cx, &variant.ident, &attrs, &naming) else {
                continue;
            };
            let tag = lit.value();
            if tag.is_empty() {
                cx.error_spanned_by(
                    &lit,
                    format!(
                        "variant `{}` has an empty wire tag; write the name a hook's `on` list \
                         uses, such as \"{}\"",
                        variant.ident,
                        snake_case(&variant.ident),
                    ),
                );
                continue;
            }
            if let Some((first_ident, first_lit)) = seen.get(&tag) {
                let mut err = syn::Error::new_spanned(
                    &lit,
                    format!(
                        "duplicate tag \"{tag}\": variants `{first_ident}` and `{}` would be \
                         one event to a hook; give each its own tag",
                        variant.ident
                    ),
                );
                err.combine(syn::Error::new_spanned(first_lit, "first one here"));
                cx.syn_error(err);
                continue;
            }
            seen.insert(tag.clone(), (&variant.ident, lit));
            plan.variants.push(PlannedVariant {
                ident: &variant.ident,
                tag,
                doc: attrs.doc,
            });
        }
        plan
    }
}

const NOT_AN_ENUM: &str =
    "`HookEvents` can only be derived for an enum: its variants are the events a hook may name";

/// What decides a variant's name besides its own tag.
struct Naming {
    /// An enum-level `#[serde(rename_all)]`, which does not supply a tag.
    has_rename_all: bool,
    /// The enum carries `#[serde(...)]`, so serde names every variant and
    /// `#[hook(tag)]` alone would disagree with what serde writes.
    serde_names_variants: bool,
}

/// The variant's literal tag: serde's rename, or `#[hook(tag)]`, which must
/// agree when both are written.
fn resolve_tag(cx: &Ctxt, ident: &Ident, attrs: &attr::Variant, naming: &Naming) -> Option<LitStr> {
    match (&attrs.serde_rename, &attrs.hook_tag) {
        (Some(serde), Some(hook)) if serde.value() != hook.value() => {
            cx.error_spanned_by(
                hook,
                format!(
                    "`#[hook(tag = \"{}\")]` disagrees with `#[serde(rename = \"{}\")]`; serde \
                     writes the tag a hook is matched on, so make them equal or drop this one",
                    hook.value(),
                    serde.value()
                ),
            );
            None
        }
        (None, Some(hook)) if naming.serde_names_variants => {
            cx.error_spanned_by(
                hook,
                format!(
                    "serde names variant `{ident}` itself and never reads `#[hook(tag)]`; write \
                     the tag where serde reads it, as `#[serde(rename = \"{tag}\")]`",
                    tag = hook.value(),
                ),
            );
            None
        }
        (Some(lit), _) | (None, Some(lit)) => Some(lit.clone()),
        // A `#[hook]` that could not be read has been reported already.
        (None, None) if attrs.hook_unreadable => None,
        (None, None) => {
            let suggested = snake_case(ident);
            let mut message = format!(
                "variant `{ident}` has no wire tag; add `#[serde(rename = \"{suggested}\")]`"
            );
            // Where serde names the variants, `#[hook(tag)]` would be refused.
            if !naming.serde_names_variants {
                message.push_str(&format!(
                    ", or `#[hook(tag = \"{suggested}\")]` if serde does not serialise this enum"
                ));
            }
            if naming.has_rename_all {
                message.push_str(
                    " (an enum-level `rename_all` does not count: renaming the variant must \
                     never change a tag operators wrote in their config)",
                );
            }
            cx.error_spanned_by(ident, message);
            None
        }
    }
}

/// serde's `snake_case` for a variant name (`internals/case.rs`), used only
/// to suggest a tag in an error.
fn snake_case(variant: &Ident) -> String {
    let variant = variant.unraw().to_string();
    let mut out = String::new();
    for (i, ch) in variant.char_indices() {
        if i > 0 && ch.is_uppercase() {
            out.push('_');
        }
        out.push(ch.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;

    use super::*;

    #[test]
    fn suggested_tags_follow_serde_snake_case() {
        let tag = |name: &str| snake_case(&Ident::new(name, Span::call_site()));
        assert_eq!(tag("ToolCall"), "tool_call");
        assert_eq!(tag("Step"), "step");
        // serde's rule, not heck's: every capital starts a word.
        assert_eq!(tag("HTTPRequest"), "h_t_t_p_request");
    }

    #[test]
    fn a_raw_identifier_suggests_its_plain_name() {
        let ident = Ident::new_raw("Type", Span::call_site());
        assert_eq!(snake_case(&ident), "type");
    }
}
