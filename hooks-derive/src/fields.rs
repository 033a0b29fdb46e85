//! The field table: each variant's fields as serde writes them (wire name
//! and JSON type), and the accessor a `where` filter reads them through
//! without serialising the event.
//!
//! A field's type is classified by its path, as written: the derive sees
//! tokens, not types. A string (`String`, `str`, `Cow<str>`, `Box<str>`,
//! `Rc<str>`, `Arc<str>`, `PathBuf`, `Path`), an integer, a float or a bool,
//! through a reference or one `Option`, may be named by a filter; anything
//! else (a `Vec`, a map, `serde_json::Value`, a type of the user's, a type
//! alias) is listed as free-form or nested, which a filter may not name,
//! unless the field says `#[hook(unit_enum)]`: an enum of unit variants
//! (or an `Option` of one), which serde writes as the variant's name and a
//! filter reads as that string.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, Fields, GenericArgument, Meta, PathArguments, Type};

use crate::attr::{Values, lit_str, rename_halves, serde_metas};
use crate::plan::Plan;

/// What a field holds, as `io_hooks::FieldKind` names it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Str,
    Integer,
    Float,
    Bool,
    Other,
}

/// One field serde writes under a name.
struct PlannedField<'a> {
    name: String,
    class: Class,
    optional: bool,
    /// `#[hook(unit_enum)]`: read as its unit variant's serde name.
    unit_enum: bool,
    /// `#[hook(values = …)]`: the strings it holds.
    values: Option<Values>,
    /// `#[hook(prefix = "…")]`, each.
    prefixes: Vec<String>,
    /// The primitive integer type it holds (through an `Option`), whose
    /// bounds a filter's integers are checked against.
    integer: Option<syn::Ident>,
    member: &'a syn::Ident,
    ty: &'a Type,
}

/// The fields of `variant` that serde writes, by name, in declaration
/// order. None for a unit or tuple variant, and none for a variant whose
/// field names serde changes by a rule (`rename_all` on it, or
/// `rename_all_fields` on the enum): the derive does not apply serde's case
/// rules, and a wrong name would be a filter that never matches.
fn variant_fields<'a>(variant: &'a syn::Variant, enum_renames: bool) -> Vec<PlannedField<'a>> {
    let Fields::Named(named) = &variant.fields else {
        return Vec::new();
    };
    if enum_renames || serde_has(&variant.attrs, "rename_all") {
        return Vec::new();
    }
    named
        .named
        .iter()
        .filter_map(|field| {
            let member = field.ident.as_ref()?;
            let name = match field_attrs(&field.attrs) {
                FieldAttrs::NotWritten => return None,
                FieldAttrs::Renamed(name) => name,
                FieldAttrs::Plain => member.unraw().to_string(),
            };
            // Its errors are check.rs's to report.
            let hook = crate::attr::field_hook(&field.attrs, |_| {});
            let unit_enum = hook.unit_enum.is_some();
            let (class, optional) = match unit_enum {
                true => (Class::Str, is_option(&field.ty)),
                false => classify(&field.ty),
            };
            Some(PlannedField {
                name,
                class,
                optional,
                unit_enum,
                values: hook.values.filter(|_| class == Class::Str && !unit_enum),
                prefixes: match class == Class::Str && !unit_enum {
                    true => hook.prefixes.iter().map(syn::LitStr::value).collect(),
                    false => Vec::new(),
                },
                integer: (class == Class::Integer)
                    .then(|| integer_of(&field.ty))
                    .flatten(),
                member,
                ty: &field.ty,
            })
        })
        .collect()
}

/// The names serde writes `variant`'s fields under, with each one's
/// ident: what an envelope field may not be named.
pub(crate) fn written_names(
    variant: &syn::Variant,
    enum_renames: bool,
) -> Vec<(String, &syn::Ident)> {
    variant_fields(variant, enum_renames)
        .into_iter()
        .map(|f| (f.name, f.member))
        .collect()
}

/// Whether `field` of `variant` is in the field table: serde writes it
/// under a name of its own, which the derive knows.
pub(crate) fn is_listed(variant: &syn::Variant, field: &syn::Field, enum_renames: bool) -> bool {
    variant_fields(variant, enum_renames)
        .iter()
        .any(|f| field.ident.as_ref() == Some(f.member))
}

/// What serde's attributes on a field say about its name on the wire.
enum FieldAttrs {
    /// `skip`, `skip_serializing` or `flatten`: not written under its name.
    NotWritten,
    /// `rename = "x"` or `rename(serialize = "x")`.
    Renamed(String),
    Plain,
}

fn field_attrs(attrs: &[Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs::Plain;
    let metas = attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
        .flat_map(serde_metas);
    for meta in metas {
        let path = meta.path();
        if path.is_ident("skip") || path.is_ident("skip_serializing") || path.is_ident("flatten") {
            return FieldAttrs::NotWritten;
        }
        if !path.is_ident("rename") {
            continue;
        }
        match &meta {
            // #[serde(rename = "tool")]
            Meta::NameValue(nv) => {
                if let Some(lit) = lit_str(&nv.value) {
                    out = FieldAttrs::Renamed(lit.value());
                }
            }
            // #[serde(rename(serialize = "tool"))]
            Meta::List(list) => {
                if let (Some(lit), _) = rename_halves(list) {
                    out = FieldAttrs::Renamed(lit.value());
                }
            }
            Meta::Path(_) => {}
        }
    }
    out
}

/// Whether a `#[serde(...)]` in `attrs` holds the key `name`.
pub(crate) fn serde_has(attrs: &[Attribute], name: &str) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
        .flat_map(serde_metas)
        .any(|meta| meta.path().is_ident(name))
}

/// The class of a field's type, and whether it is an `Option` of it.
fn classify(ty: &Type) -> (Class, bool) {
    match strip(ty) {
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return (Class::Other, false);
            };
            if last.ident == "Option" {
                return match single_arg(&last.arguments).map(classify) {
                    Some((class, false)) => (class, true),
                    _ => (Class::Other, false),
                };
            }
            (class_of(last), false)
        }
        _ => (Class::Other, false),
    }
}

/// What a filter reads a field of type `ty` as, in words, when it can
/// without `#[hook(unit_enum)]`.
pub(crate) fn readable_as(ty: &Type) -> Option<&'static str> {
    match classify(ty).0 {
        Class::Str => Some("a string"),
        Class::Integer => Some("an integer"),
        Class::Float => Some("a number"),
        Class::Bool => Some("a bool"),
        Class::Other => None,
    }
}

/// The primitive integer type `ty` names, through references and one
/// `Option`.
fn integer_of(ty: &Type) -> Option<syn::Ident> {
    let Type::Path(p) = strip(ty) else {
        return None;
    };
    let last = p.path.segments.last()?;
    if last.ident == "Option" {
        return single_arg(&last.arguments).and_then(integer_of);
    }
    (class_of(last) == Class::Integer).then(|| last.ident.clone())
}

/// Whether `ty` is an `Option` of something.
fn is_option(ty: &Type) -> bool {
    matches!(
        strip(ty),
        Type::Path(p) if p.qself.is_none()
            && p.path.segments.last().is_some_and(|s| s.ident == "Option")
    )
}

/// `ty` without references, parentheses and invisible groups.
fn strip(mut ty: &Type) -> &Type {
    loop {
        ty = match ty {
            Type::Reference(r) => &r.elem,
            Type::Paren(p) => &p.elem,
            Type::Group(g) => &g.elem,
            _ => return ty,
        };
    }
}

fn class_of(segment: &syn::PathSegment) -> Class {
    let name = segment.ident.to_string();
    match name.as_str() {
        "String" | "str" | "PathBuf" | "Path" if segment.arguments.is_none() => Class::Str,
        "i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16" | "u32" | "u64" | "usize" => {
            Class::Integer
        }
        "f32" | "f64" => Class::Float,
        "bool" => Class::Bool,
        // Cow<'a, str>, Box<str>, Rc<str>, Arc<str>
        "Cow" | "Box" | "Rc" | "Arc" => match single_arg(&segment.arguments).map(strip) {
            Some(Type::Path(p)) if p.qself.is_none() && p.path.is_ident("str") => Class::Str,
            _ => Class::Other,
        },
        _ => Class::Other,
    }
}

/// The one type argument of `<…>`, lifetimes aside.
fn single_arg(args: &PathArguments) -> Option<&Type> {
    let PathArguments::AngleBracketed(args) = args else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    match (types.next(), types.next()) {
        (Some(t), None) => Some(t),
        _ => None,
    }
}

/// `const FIELDS` and `fn field` of the `HookEvents` impl.
pub(crate) fn generate(plan: &Plan) -> TokenStream {
    let krate = &plan.crate_path;
    let enum_renames = serde_has(plan.original_attrs, "rename_all_fields");
    let per_variant: Vec<Vec<PlannedField>> = plan
        .variants
        .iter()
        .map(|v| variant_fields(v.original, enum_renames))
        .collect();
    let tables = per_variant.iter().map(|fields| {
        let rows = fields
            .iter()
            .map(|f| field_row(krate, &f.name, f.class, f.optional, f.integer.as_ref()));
        quote!(&[#(#rows),*])
    });
    let arms: Vec<TokenStream> = plan
        .variants
        .iter()
        .zip(&per_variant)
        .filter_map(|(v, fields)| accessor_arm(krate, &v.original.ident, fields))
        .collect();
    // A variant with no field to read has no arm: the rest, when there is
    // a rest, reads nothing. Written only then, so the match needs no
    // `#[allow(unreachable_patterns)]`, which a crate's `forbid` rejects.
    let rest =
        (arms.len() < plan.variants.len()).then(|| quote!(_ => ::core::option::Option::None,));
    let body = if arms.is_empty() {
        quote!({
            let _ = __index;
            ::core::option::Option::None
        })
    } else {
        quote!({
            match self {
                #(#arms)*
                #rest
            }
        })
    };
    let choices = choices_fn(krate, &per_variant);
    let envelope = plan.container.envelope.iter().map(|f| {
        let (class, optional) = classify(&f.ty);
        let integer = (class == Class::Integer)
            .then(|| integer_of(&f.ty))
            .flatten();
        field_row(
            krate,
            &f.name.unraw().to_string(),
            class,
            optional,
            integer.as_ref(),
        )
    });
    quote! {
        const FIELDS: &'static [&'static [#krate::Field]] = &[#(#tables),*];
        const ENVELOPE: &'static [#krate::Field] = &[#(#envelope),*];

        #choices

        #[inline]
        fn field(&self, __index: usize) -> ::core::option::Option<#krate::FieldValue<'_>>
            #body
    }
}

/// One row of a field table: `Field::new(name, kind, optional)`, bounded
/// by its integer type's own `MIN` and `MAX` when it has one.
fn field_row(
    krate: &syn::Path,
    name: &str,
    class: Class,
    optional: bool,
    integer: Option<&syn::Ident>,
) -> TokenStream {
    let kind = match class {
        Class::Str => quote!(Str),
        Class::Integer => quote!(Integer),
        Class::Float => quote!(Float),
        Class::Bool => quote!(Bool),
        Class::Other => quote!(Other),
    };
    let row = quote!(#krate::Field::new(#name, #krate::FieldKind::#kind, #optional));
    match integer {
        // The type's own bounds, as the compiler knows them.
        Some(int) => quote!(#row.bounded(
            ::core::primitive::#int::MIN as i128,
            ::core::primitive::#int::MAX as i128,
        )),
        None => row,
    }
}

/// `fn field_choices`, for the fields marked `#[hook(unit_enum)]`: each
/// asks its type's `Deserialize` for its variants' names, through the
/// probe that answers `None` for a type without one. No such field, no
/// function: the trait's default answers `None`.
fn choices_fn(krate: &syn::Path, per_variant: &[Vec<PlannedField>]) -> TokenStream {
    let arms: Vec<TokenStream> = per_variant
        .iter()
        .enumerate()
        .flat_map(|(v, fields)| {
            fields.iter().enumerate().filter_map(move |(i, f)| {
                let ty = f.ty;
                match &f.values {
                    _ if f.unit_enum => Some(
                        quote!((#v, #i) => (&#krate::__private::Choices::<#ty>::NEW).choices(),),
                    ),
                    Some(Values::List(lits)) => {
                        Some(quote!((#v, #i) => ::core::option::Option::Some(&[#(#lits),*]),))
                    }
                    // A `&'static [&'static str]`, and a type error points
                    // at it.
                    Some(Values::Expr(values)) => Some(quote_spanned!(values.span()=>
                        (#v, #i) => ::core::option::Option::Some(#values),
                    )),
                    None => None,
                }
            })
        })
        .collect();
    let prefixes: Vec<TokenStream> = per_variant
        .iter()
        .enumerate()
        .flat_map(|(v, fields)| {
            fields
                .iter()
                .enumerate()
                .filter(|(_, f)| !f.prefixes.is_empty())
                .map(move |(i, f)| {
                    let prefixes = &f.prefixes;
                    quote!((#v, #i) => &[#(#prefixes),*],)
                })
        })
        .collect();
    let prefixes_fn = (!prefixes.is_empty()).then(|| {
        quote! {
            fn field_prefixes(__kind: usize, __field: usize) -> &'static [&'static str] {
                match (__kind, __field) {
                    #(#prefixes)*
                    _ => &[],
                }
            }
        }
    });
    if arms.is_empty() {
        return quote!(#prefixes_fn);
    }
    quote! {
        #prefixes_fn

        fn field_choices(
            __kind: usize,
            __field: usize,
        ) -> ::core::option::Option<&'static [&'static str]> {
            use #krate::__private::choices_in_scope::*;
            match (__kind, __field) {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    }
}

/// `Self::V { a: __f0, .. } => match __index { 0 => …, _ => None },` for a
/// variant with a field a filter may name.
fn accessor_arm(
    krate: &syn::Path,
    variant: &syn::Ident,
    fields: &[PlannedField],
) -> Option<TokenStream> {
    let readable: Vec<(usize, &PlannedField)> = fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.class != Class::Other)
        .collect();
    if readable.is_empty() {
        return None;
    }
    let bindings = readable.iter().map(|(i, f)| {
        let member = f.member;
        let local = format_ident!("__f{}", i);
        quote!(#member: #local)
    });
    let reads = readable.iter().map(|(i, f)| {
        let local = format_ident!("__f{}", i);
        if f.unit_enum {
            quote!(#i => #krate::__private::unit_variant_name(#local),)
        } else {
            quote!(#i => #krate::__private::AsFieldValue::field_value(#local),)
        }
    });
    Some(quote! {
        Self::#variant { #(#bindings,)* .. } => match __index {
            #(#reads)*
            _ => ::core::option::Option::None,
        },
    })
}
