//! The plan: the variant list, read once. `check` judges it and every
//! generated item is built from it, so the tags, indices, validator, docs and
//! costs cannot drift apart (enumset's `plan.rs`).

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
    /// The enum's own attributes, as written.
    pub original_attrs: &'a [syn::Attribute],
    pub crate_path: syn::Path,
    /// What the enum's own attributes say.
    pub container: attr::Container,
    /// Whether serde names the variants: the enum derives `Serialize` where
    /// this derive sees it, or the enum, a variant or a field carries
    /// `#[serde(...)]`, so `#[hook(tag)]` alone would disagree with what
    /// serde writes.
    pub serde_names_variants: bool,
    /// Every variant, in declaration order; empty for a struct or union.
    pub variants: Vec<PlannedVariant<'a>>,
}

pub(crate) struct PlannedVariant<'a> {
    pub original: &'a syn::Variant,
    pub attrs: attr::Variant,
}

impl PlannedVariant<'_> {
    /// The literal that names this variant on the wire, when it has one:
    /// serde's rename, else `#[hook(tag)]`. `check` proves the two agree and
    /// that a `#[hook(tag)]` alone is one serde never contradicts.
    pub(crate) fn tag(&self) -> Option<&LitStr> {
        self.attrs
            .serde_rename
            .as_ref()
            .or(self.attrs.hook_tag.as_ref())
    }

    /// Whether serde writes this variant, with its tag: neither skipped nor
    /// untagged.
    pub(crate) fn is_written(&self) -> bool {
        self.attrs.skipped.is_none() && self.attrs.untagged.is_none()
    }
}

impl<'a> Plan<'a> {
    /// Reads `input` into a plan, recording what cannot be read in `cx`.
    /// Judging the plan is `check`'s work.
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Self {
        let container = attr::Container::from_ast(cx, &input.attrs);
        let crate_path = container
            .crate_path
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(::io_hooks));
        let variants: Vec<PlannedVariant> = match &input.data {
            Data::Enum(data) => data
                .variants
                .iter()
                .map(|original| PlannedVariant {
                    original,
                    attrs: attr::Variant::from_ast(cx, &original.attrs),
                })
                .collect(),
            Data::Struct(s) => {
                cx.error_spanned_by(s.struct_token, NOT_AN_ENUM);
                Vec::new()
            }
            Data::Union(u) => {
                cx.error_spanned_by(u.union_token, NOT_AN_ENUM);
                Vec::new()
            }
        };
        // A `#[serde]` anywhere, even on a field, means serde derives.
        let serde_names_variants = container.has_serde
            || container.derives_serialize
            || variants.iter().any(|v| v.attrs.has_serde)
            || variants
                .iter()
                .flat_map(|v| &v.original.fields)
                .any(|f| attr::has_serde(&f.attrs));
        Plan {
            ident: &input.ident,
            generics: &input.generics,
            original_attrs: &input.attrs,
            crate_path,
            container,
            serde_names_variants,
            variants,
        }
    }
}

const NOT_AN_ENUM: &str =
    "`HookEvents` can only be derived for an enum: its variants are the events a hook may name";

/// serde's `snake_case` for a variant name (`internals/case.rs`), used only
/// to suggest a tag in an error.
pub(crate) fn snake_case(variant: &Ident) -> String {
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
        assert_eq!(tag("JobStarted"), "job_started");
        assert_eq!(tag("Build"), "build");
        // serde's rule, not heck's: every capital starts a word.
        assert_eq!(tag("HTTPRequest"), "h_t_t_p_request");
    }

    /// Whether the plan of `input` says serde names its variants.
    fn serde_names(input: DeriveInput) -> bool {
        let cx = Ctxt::new();
        let named = Plan::from_ast(&cx, &input).serde_names_variants;
        cx.check().expect("the enum reads");
        named
    }

    #[test]
    fn a_serialize_derive_the_derive_sees_means_serde_names_the_variants() {
        assert!(serde_names(syn::parse_quote! {
            #[derive(Clone, serde::Serialize)]
            enum Ev { A }
        }));
        assert!(serde_names(syn::parse_quote! {
            #[derive(Serialize)]
            enum Ev { A }
        }));
        // Another derive, or a path that only ends in something else.
        assert!(!serde_names(syn::parse_quote! {
            #[derive(Clone, Debug)]
            #[derive(serde::Deserialize)]
            enum Ev { A }
        }));
        // `Serialize` in another attribute than `derive`.
        assert!(!serde_names(syn::parse_quote! {
            #[doc = "Serialize"]
            #[allow(unused)]
            enum Ev { A }
        }));
        // A derive list that does not parse is serde's or rustc's to report.
        assert!(!serde_names(syn::parse_quote! {
            #[derive(Serialize = 1)]
            enum Ev { A }
        }));
    }

    #[test]
    fn a_raw_identifier_suggests_its_plain_name() {
        let ident = Ident::new_raw("Type", Span::call_site());
        assert_eq!(snake_case(&ident), "type");
    }
}
