//! Generation: from a checked plan to the `HookEvents` impl.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, LitStr};

use crate::check;
use crate::ctxt::Ctxt;
use crate::plan::{MAX_EVENTS, Plan};

/// The whole derive: parse into a plan, check it, generate. On error, the
/// errors plus a stub impl, so the user sees the real problem and not a
/// cascade of "`HookEvents` is not implemented" at every use.
pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let plan = Plan::from_ast(&cx, input);
    check::check(&cx, &plan);
    match cx.check() {
        Ok(()) => generate(&plan),
        Err(err) => {
            let errors = err.to_compile_error();
            let stub = fallback(&plan);
            quote!(#errors #stub)
        }
    }
}

fn generate(plan: &Plan) -> TokenStream {
    let krate = &plan.crate_path;
    let ident = plan.ident;
    let (impl_generics, ty_generics, where_clause) = plan.generics.split_for_impl();
    // `check` has proved that every variant has its tag.
    let tags: Vec<String> = plan
        .variants
        .iter()
        .filter_map(|v| v.tag())
        .map(LitStr::value)
        .collect();
    let docs = plan.variants.iter().map(|v| &v.attrs.doc);
    let costs = plan.variants.iter().map(|v| match &v.attrs.cost {
        Some(class) => quote!(::core::option::Option::Some(#krate::Cost::#class)),
        None => quote!(::core::option::Option::None),
    });
    let fields = crate::fields::generate(plan);
    let json = crate::json::generate(plan);
    let last = plan.variants.iter().map(|v| v.attrs.last.is_some());
    let count = plan.variants.len();
    let max_events = MAX_EVENTS;
    // Each kind is built from its tag in an inline `const`, so the lookup
    // costs nothing at run time and no public constructor takes a position.
    let index_arms = plan.variants.iter().zip(&tags).map(|(v, tag)| {
        let variant = &v.original.ident;
        // `{ .. }` matches unit, tuple and struct variants alike.
        quote!(Self::#variant { .. } => const { #krate::Kind::<Self>::named(#tag) },)
    });
    let tag_arms = tags.iter().map(|tag| {
        quote!(#tag => ::core::option::Option::Some(const { #krate::Kind::<Self>::named(#tag) }),)
    });
    // An empty enum has no value to match on; `match *self {}` says so.
    let index_body = if count == 0 {
        quote!(match *self {})
    } else {
        quote!(match self { #(#index_arms)* })
    };
    quote! {
        #[doc(hidden)]
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::HookEvents for #ident #ty_generics #where_clause {
                const TAGS: &'static [&'static str] = &[#(#tags),*];
                const DOCS: &'static [&'static str] = &[#(#docs),*];
                const COSTS: &'static [::core::option::Option<#krate::Cost>] = &[#(#costs),*];
                const LAST: &'static [bool] = &[#(#last),*];

                #fields

                #json

                #[inline]
                fn kind(&self) -> #krate::Kind<Self> {
                    #index_body
                }

                #[inline]
                fn from_tag(__tag: &str) -> ::core::option::Option<#krate::Kind<Self>> {
                    match __tag {
                        #(#tag_arms)*
                        _ => ::core::option::Option::None,
                    }
                }
            }

            // The derive refused more than its own limit; the runtime's must
            // be the same number, or a filter could not hold every variant.
            const _: () = ::core::assert!(
                #max_events == #krate::MAX_EVENTS,
                "io-hooks and io-hooks-derive disagree on MAX_EVENTS; use matching versions",
            );
        };
    }
}

/// A stub impl with the right shape and no content (thiserror's
/// `fallback.rs`): it compiles, so the only errors shown are ours.
fn fallback(plan: &Plan) -> TokenStream {
    let krate = &plan.crate_path;
    let ident = plan.ident;
    let (impl_generics, ty_generics, where_clause) = plan.generics.split_for_impl();
    quote! {
        #[doc(hidden)]
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::HookEvents for #ident #ty_generics #where_clause {
                const TAGS: &'static [&'static str] = &[];
                const DOCS: &'static [&'static str] = &[];
                const COSTS: &'static [::core::option::Option<#krate::Cost>] = &[];
                fn kind(&self) -> #krate::Kind<Self> {
                    ::core::unreachable!()
                }
                fn from_tag(_: &str) -> ::core::option::Option<#krate::Kind<Self>> {
                    ::core::option::Option::None
                }
            }
        };
    }
}
