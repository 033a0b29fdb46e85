//! `fn write_json`: each variant of an internally tagged enum written as
//! serde's derive and serde_json write it, without serde's machinery. The
//! tag's key and value and each field's key are byte literals, escaped
//! here; each value is written by the engine's probe (`JsonValue`), which
//! writes serde_json's bytes for it.
//!
//! Only what is modelled here is written here: a variant with any serde
//! attribute outside the lists below (or a newtype or tuple variant) is
//! written by serde itself, and an enum with any such attribute, a type
//! parameter, or a tagging other than `#[serde(tag = "…")]` gets no
//! `write_json` at all, so the trait's default (serde) writes it. A
//! `#[serde]` that cannot be read is one not modelled. Nothing is written
//! here for an enum not marked `#[hook(write_json)]`: only that mark says
//! its `Serialize` is serde's derive, which reads the same `#[serde]`
//! (a derive cannot see the others in the same `#[derive(...)]`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::punctuated::Punctuated;
use syn::{Attribute, Fields, GenericParam, LitByteStr, Meta, Token};

use crate::plan::{Plan, PlannedVariant};

/// serde's keys on the enum that leave each variant's bytes as written
/// here: the tag; names that each variant's own `rename` overrides; and
/// keys that only reading, or only the impl's bounds, look at.
const ENUM_KEYS: &[&str] = &[
    "tag",
    "rename",
    "rename_all",
    "deny_unknown_fields",
    "bound",
    "crate",
    "expecting",
    "from",
    "try_from",
];

/// serde's keys on a variant that leave its bytes as written here: its
/// name, and keys only reading looks at.
const VARIANT_KEYS: &[&str] = &[
    "rename",
    "alias",
    "skip_deserializing",
    "deserialize_with",
    "other",
    "borrow",
    "bound",
];

/// serde's keys on a field that leave its bytes as written here: keys only
/// reading looks at, and `skip_serializing_if`, which is modelled.
const FIELD_KEYS: &[&str] = &[
    "default",
    "alias",
    "skip_deserializing",
    "deserialize_with",
    "borrow",
    "bound",
    SKIP_IF,
];

const SKIP_IF: &str = "skip_serializing_if";

/// `fn write_json` of the `HookEvents` impl, or nothing when the trait's
/// default (serde) is what writes this enum.
pub(crate) fn generate(plan: &Plan) -> TokenStream {
    let Some(tag) = &plan.container.internal_tag else {
        return TokenStream::new();
    };
    if !plan.container.write_json {
        return TokenStream::new();
    }
    let generic = plan
        .generics
        .params
        .iter()
        .any(|p| !matches!(p, GenericParam::Lifetime(_)));
    if generic || !only(plan.original_attrs, ENUM_KEYS) {
        return TokenStream::new();
    }
    let krate = &plan.crate_path;
    let tag = tag.value();
    let fast: Vec<Option<TokenStream>> = plan
        .variants
        .iter()
        .map(|v| variant_arm(krate, &tag, v))
        .collect();
    if fast.iter().all(Option::is_none) {
        return TokenStream::new();
    }
    let arms = plan.variants.iter().zip(fast).map(|(v, arm)| {
        arm.unwrap_or_else(|| {
            let ident = &v.original.ident;
            // serde's own bytes, through the probe: the enum's `Serialize`
            // is not known here.
            quote!(Self::#ident { .. } => (&&#krate::__private::JsonValue(self)).write_json(__out),)
        })
    });
    quote! {
        #[inline]
        fn write_json(
            &self,
            __out: &mut ::std::vec::Vec<u8>,
        ) -> ::core::result::Result<(), #krate::__private::serde_json::Error> {
            use #krate::__private::json_in_scope::*;
            match self {
                #(#arms)*
            }
        }
    }
}

/// The arm that writes variant `v` here, or `None` when serde must.
fn variant_arm(krate: &syn::Path, tag: &str, v: &PlannedVariant) -> Option<TokenStream> {
    // Only serde's own name: `#[hook(tag)]` alone is for an enum serde
    // does not write.
    let name = v.attrs.serde_rename.as_ref()?.value();
    if !v.is_written() || !only(&v.original.attrs, VARIANT_KEYS) {
        return None;
    }
    let fields: Vec<&syn::Field> = match &v.original.fields {
        Fields::Named(named) => named.named.iter().collect(),
        Fields::Unit => Vec::new(),
        Fields::Unnamed(_) => return None,
    };
    let mut pending = format!("{{{}:{}", escape(tag), escape(&name)).into_bytes();
    let mut body = Vec::new();
    let mut bindings = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        let member = field.ident.as_ref()?;
        if !only(&field.attrs, FIELD_KEYS) {
            return None;
        }
        let local = format_ident!("__f{}", i);
        bindings.push(quote!(#member: #local));
        let key = format!(",{}:", escape(&member.unraw().to_string()));
        let write = quote!((&&#krate::__private::JsonValue(#local)).write_json(__out)?;);
        match skip_if(&field.attrs)? {
            None => {
                pending.extend_from_slice(key.as_bytes());
                body.extend(flush(&mut pending));
                body.push(write);
            }
            // serde calls it with a reference to the field, as here.
            Some(path) => {
                body.extend(flush(&mut pending));
                let key = byte_literal(key.as_bytes());
                body.push(quote! {
                    if !#path(#local) {
                        __out.extend_from_slice(#key);
                        #write
                    }
                });
            }
        }
    }
    pending.push(b'}');
    body.extend(flush(&mut pending));
    let ident = &v.original.ident;
    Some(quote! {
        Self::#ident { #(#bindings,)* .. } => {
            #(#body)*
            ::core::result::Result::Ok(())
        }
    })
}

/// The statement that appends the literal bytes gathered so far, emptying
/// them; none when there are none.
fn flush(pending: &mut Vec<u8>) -> Option<TokenStream> {
    if pending.is_empty() {
        return None;
    }
    let bytes = byte_literal(pending);
    pending.clear();
    Some(quote!(__out.extend_from_slice(#bytes);))
}

fn byte_literal(bytes: &[u8]) -> LitByteStr {
    LitByteStr::new(bytes, Span::call_site())
}

/// The path of a field's `#[serde(skip_serializing_if = "path")]`:
/// `Some(None)` without one, `None` when it is there and cannot be read
/// (serde reports it; this writer leaves the variant to serde).
fn skip_if(attrs: &[Attribute]) -> Option<Option<syn::ExprPath>> {
    let mut found = None;
    for meta in serde_items(attrs)? {
        if !meta.path().is_ident(SKIP_IF) {
            continue;
        }
        let Meta::NameValue(nv) = &meta else {
            return None;
        };
        let lit = crate::attr::lit_str(&nv.value)?;
        found = Some(lit.parse::<syn::ExprPath>().ok()?);
    }
    Some(found)
}

/// Whether every item of every `#[serde(...)]` in `attrs` is one of `keys`,
/// each read.
fn only(attrs: &[Attribute], keys: &[&str]) -> bool {
    serde_items(attrs).is_some_and(|items| {
        items
            .iter()
            .all(|meta| keys.iter().any(|key| meta.path().is_ident(key)))
    })
}

/// The items of every `#[serde(...)]` in `attrs`, or `None` when one cannot
/// be read.
fn serde_items(attrs: &[Attribute]) -> Option<Vec<Meta>> {
    let mut items = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let list = attr
            .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .ok()?;
        items.extend(list);
    }
    Some(items)
}

/// `s` as a JSON string, quotes included, as serde_json writes it: `"`,
/// `\` and each control character below U+0020 escaped (the short forms
/// `\b \t \n \f \r` where there is one, else `\u00XX` in lower-case hex),
/// every other character as it is.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped_as_serde_json_escapes_them() {
        let mut samples: Vec<String> = (0u8..=0x7f).map(|b| char::from(b).to_string()).collect();
        samples.extend(
            [
                "",
                "event",
                "é",
                "\u{2028}",
                "\u{7f}",
                "😀",
                "a\"b\\c",
                "x\u{1}\u{1f}y",
            ]
            .map(str::to_owned),
        );
        for s in &samples {
            let serde = serde_json::to_string(s).expect("a string serialises");
            assert_eq!(escape(s), serde, "{s:?}");
        }
    }
}
