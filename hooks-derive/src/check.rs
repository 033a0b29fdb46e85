//! Checks that look at more than one attribute: across the variants, or a
//! variant against the enum (serde's `internals/check.rs`). Checks on a single
//! attribute happen where it is read, in `attr`. Every check records its
//! errors in the `Ctxt` and goes on, so one compile reports them all.

use std::collections::HashMap;

use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{Fields, Ident, LitStr, Type};

use crate::attr;
use crate::ctxt::Ctxt;
use crate::plan::{MAX_EVENTS, Plan, PlannedVariant, snake_case};

/// Runs every check on `plan`.
pub(crate) fn check(cx: &Ctxt, plan: &Plan) {
    check_variant_count(cx, plan);
    check_field_attrs(cx, plan);
    check_written(cx, plan);
    check_tag_present(cx, plan);
    check_tag_not_empty(cx, plan);
    check_tags_distinct(cx, plan);
    check_aliases(cx, plan);
    check_internal_newtypes(cx, plan);
    check_envelope(cx, plan);
}

/// The variants this check judges: those serde writes with a tag. One that
/// it never writes, or writes untagged, has been reported once already.
fn written<'p, 'a>(plan: &'p Plan<'a>) -> impl Iterator<Item = &'p PlannedVariant<'a>> {
    plan.variants.iter().filter(|v| v.is_written())
}

/// At most [`MAX_EVENTS`] variants: one bit each in a `u64` filter.
fn check_variant_count(cx: &Ctxt, plan: &Plan) {
    if plan.variants.len() > MAX_EVENTS {
        cx.error_spanned_by(
            plan.ident,
            format!(
                "`HookEvents` supports at most {MAX_EVENTS} variants (one bit each in a u64 \
                 filter), and `{}` has {}",
                plan.ident,
                plan.variants.len()
            ),
        );
    }
}

/// A field's `#[hook]` says only `unit_enum`, on a named field whose type
/// a filter could not read otherwise, or `values` and `prefix`, on a named
/// string field.
fn check_field_attrs(cx: &Ctxt, plan: &Plan) {
    let enum_renames = crate::fields::serde_has(plan.original_attrs, "rename_all_fields");
    let fields = plan
        .variants
        .iter()
        .flat_map(|v| v.original.fields.iter().map(move |f| (v.original, f)));
    for (variant, field) in fields {
        let hook = attr::field_hook(&field.attrs, |err| cx.syn_error(err));
        let what = match (&hook.unit_enum, hook.declares_values()) {
            (Some(_), _) => "`#[hook(unit_enum)]`",
            (None, true) => "`#[hook(values)]` and `#[hook(prefix)]`",
            (None, false) => continue,
        };
        let Some(name) = &field.ident else {
            cx.error_spanned_by(
                &field.ty,
                format!("{what} is for a named field: a `where` filter names a field"),
            );
            continue;
        };
        let readable = crate::fields::readable_as(&field.ty);
        if !crate::fields::is_listed(variant, field, enum_renames) {
            cx.error_spanned_by(
                name,
                format!(
                    "field `{name}` is not in the field table (serde writes it under no name \
                     the derive knows: `skip`, `skip_serializing`, `flatten`, or a \
                     `rename_all` rule), so no filter can name it; remove {what}"
                ),
            );
        } else if hook.unit_enum.is_some() {
            if let Some(kind) = readable {
                cx.error_spanned_by(
                    &field.ty,
                    format!(
                        "field `{name}` is already {kind}, which a `where` filter reads; \
                         remove `#[hook(unit_enum)]`"
                    ),
                );
            }
        } else if readable != Some("a string") {
            let is = readable.map_or_else(
                || "not a string a `where` filter reads (an enum of unit variants takes `#[hook(unit_enum)]`, which knows its values)".to_owned(),
                str::to_owned,
            );
            cx.error_spanned_by(
                &field.ty,
                format!(
                    "field `{name}` is {is}, and `values` and `prefix` name the strings a \
                     string field holds; remove them"
                ),
            );
        }
    }
}

/// serde writes every variant, with its tag: no `skip`, `skip_serializing`
/// or `untagged`, which would make a hook that could never fire.
fn check_written(cx: &Ctxt, plan: &Plan) {
    for v in &plan.variants {
        let ident = &v.original.ident;
        if let Some(skip) = &v.attrs.skipped {
            cx.error_spanned_by(
                skip,
                format!(
                    "variant `{ident}` has `#[serde({})]`, so serde never writes it and no hook \
                     could see it; remove the skip, or move the variant out of the event enum",
                    skip.to_token_stream(),
                ),
            );
        } else if let Some(untagged) = &v.attrs.untagged {
            cx.error_spanned_by(
                untagged,
                format!(
                    "variant `{ident}` has `#[serde(untagged)]`, so serde writes it without a tag \
                     and no hook could match it; remove `untagged`, or move the variant out of \
                     the event enum"
                ),
            );
        }
    }
}

/// Every written variant carries its tag literally, where serde reads it,
/// and a `#[hook(tag)]` beside serde's rename agrees with it.
fn check_tag_present(cx: &Ctxt, plan: &Plan) {
    for v in written(plan) {
        let ident = &v.original.ident;
        match (&v.attrs.serde_rename, &v.attrs.hook_tag) {
            (Some(serde), Some(hook)) if serde.value() != hook.value() => {
                cx.error_spanned_by(
                    hook,
                    format!(
                        "`#[hook(tag = \"{}\")]` disagrees with `#[serde(rename = \"{}\")]`; \
                         serde writes the tag a hook is matched on, so make them equal or drop \
                         this one",
                        hook.value(),
                        serde.value()
                    ),
                );
            }
            (None, Some(hook)) if plan.serde_names_variants => {
                cx.error_spanned_by(
                    hook,
                    format!(
                        "serde names variant `{ident}` itself and never reads `#[hook(tag)]`; \
                         write the tag where serde reads it, as `#[serde(rename = \"{tag}\")]`",
                        tag = hook.value(),
                    ),
                );
            }
            // A `#[hook]` that could not be read has been reported already.
            (None, None) if !v.attrs.hook_unreadable => {
                cx.error_spanned_by(ident, missing_tag(ident, plan));
            }
            _ => {}
        }
    }
}

/// "variant `X` has no wire tag; add …", offering only what would be read.
fn missing_tag(ident: &Ident, plan: &Plan) -> String {
    let suggested = snake_case(ident);
    let mut message =
        format!("variant `{ident}` has no wire tag; add `#[serde(rename = \"{suggested}\")]`");
    // Where serde names the variants, `#[hook(tag)]` would be refused.
    if !plan.serde_names_variants {
        message.push_str(&format!(
            ", or `#[hook(tag = \"{suggested}\")]` if serde does not serialise this enum"
        ));
    }
    if plan.container.has_rename_all {
        message.push_str(
            " (an enum-level `rename_all` does not count: renaming the variant must never \
             change a tag operators wrote in their config)",
        );
    }
    message
}

/// The tag each written variant goes out with: serde's rename, else a
/// `#[hook(tag)]` where serde does not name the variants. A `#[hook(tag)]`
/// that serde never reads is not on the wire, so it is compared with nothing
/// (`check_tag_present` has reported it).
fn wire_tags<'p>(plan: &'p Plan) -> impl Iterator<Item = (&'p Ident, &'p LitStr)> {
    written(plan).filter_map(|v| {
        let tag = match (&v.attrs.serde_rename, &v.attrs.hook_tag) {
            (Some(serde), _) => serde,
            (None, Some(hook)) if !plan.serde_names_variants => hook,
            _ => return None,
        };
        Some((&v.original.ident, tag))
    })
}

/// No tag is the empty string.
fn check_tag_not_empty(cx: &Ctxt, plan: &Plan) {
    for (ident, lit) in wire_tags(plan).filter(|(_, lit)| lit.value().is_empty()) {
        cx.error_spanned_by(
            lit,
            format!(
                "variant `{ident}` has an empty wire tag; write the name a hook's `on` list \
                 uses, such as \"{}\"",
                snake_case(ident),
            ),
        );
    }
}

/// No two variants share a tag, or a hook could not tell them apart.
fn check_tags_distinct(cx: &Ctxt, plan: &Plan) {
    // The first literal that wrote each tag, to point at both on a clash.
    let mut seen: HashMap<String, (&Ident, &LitStr)> = HashMap::new();
    for (ident, lit) in wire_tags(plan).filter(|(_, lit)| !lit.value().is_empty()) {
        let tag = lit.value();
        if let Some((first_ident, first_lit)) = seen.get(&tag) {
            let mut err = syn::Error::new_spanned(
                lit,
                format!(
                    "duplicate tag \"{tag}\": variants `{first_ident}` and `{ident}` would be one \
                     event to a hook; give each its own tag",
                ),
            );
            err.combine(syn::Error::new_spanned(first_lit, "first one here"));
            cx.syn_error(err);
        } else {
            seen.insert(tag, (ident, lit));
        }
    }
}

/// No `#[serde(alias)]` is another variant's tag: serde would read that
/// variant's events back as the first variant accepting the name, so a
/// replayed event would not reach the hooks on its own tag.
fn check_aliases(cx: &Ctxt, plan: &Plan) {
    let tags: Vec<(&Ident, &LitStr)> = wire_tags(plan).collect();
    for v in written(plan) {
        for alias in &v.attrs.aliases {
            let owner = tags
                .iter()
                .find(|(ident, lit)| *ident != &v.original.ident && lit.value() == alias.value());
            if let Some((other, lit)) = owner {
                let mut err = syn::Error::new_spanned(
                    alias,
                    format!(
                        "alias \"{}\" of variant `{}` is the tag of variant `{other}`, so serde \
                         reads one of the two back as the other and a hook on it would miss \
                         those events; remove the alias",
                        alias.value(),
                        v.original.ident,
                    ),
                );
                err.combine(syn::Error::new_spanned(lit, "the tag it repeats"));
                cx.syn_error(err);
            }
        }
    }
}

/// Under `#[serde(tag = "…")]` serde writes a newtype variant's field as a
/// map with the tag beside it, which a string, number, sequence, tuple or
/// `Option` cannot be: serialising fails at run time and the event is dropped.
fn check_internal_newtypes(cx: &Ctxt, plan: &Plan) {
    let Some(tag) = &plan.container.internal_tag else {
        return;
    };
    for v in written(plan) {
        let Fields::Unnamed(fields) = &v.original.fields else {
            continue;
        };
        let field = match fields.unnamed.len() {
            1 => &fields.unnamed[0],
            _ => continue,
        };
        if let Some(kind) = not_a_map(&field.ty) {
            cx.error_spanned_by(
                &field.ty,
                format!(
                    "variant `{ident}` is internally tagged (`#[serde(tag = \"{tag}\")]`) and \
                     holds {kind}, which serde cannot write as a map beside the tag, so every \
                     such event would fail to serialise and no hook would see it; give the \
                     variant named fields, as `{ident} {{ value: … }}`",
                    ident = v.original.ident,
                    tag = tag.value(),
                ),
            );
        }
    }
}

/// What `ty` is, when serde may write it as something other than a map: a
/// primitive, a string, a sequence, a tuple, or an `Option`. Anything else
/// (a struct, a map, a type parameter) is left to serde.
fn not_a_map(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Group(g) => not_a_map(&g.elem),
        Type::Paren(p) => not_a_map(&p.elem),
        Type::Reference(r) => not_a_map(&r.elem),
        // `()` is written as nothing beside the tag, which serde accepts.
        Type::Tuple(t) if !t.elems.is_empty() => Some("a tuple"),
        Type::Array(_) | Type::Slice(_) => Some("a sequence"),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            match name.as_str() {
                "bool" | "char" | "f32" | "f64" | "i8" | "i16" | "i32" | "i64" | "i128"
                | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => Some("a primitive"),
                "str" | "String" => Some("a string"),
                "Vec" => Some("a sequence"),
                // `None` is never a map, whatever `Some` would hold.
                "Option" => Some("an `Option`"),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The envelope's fields: each of a type a `where` filter reads, each named
/// once, and none named as the tag or a field of an event, which would put
/// the key on the event's line twice.
fn check_envelope(cx: &Ctxt, plan: &Plan) {
    let envelope = &plan.container.envelope;
    let enum_renames = crate::fields::serde_has(plan.original_attrs, "rename_all_fields");
    for (i, field) in envelope.iter().enumerate() {
        let name = field.name.unraw().to_string();
        if crate::fields::readable_as(&field.ty).is_none() {
            cx.error_spanned_by(
                &field.ty,
                format!(
                    "envelope field `{name}` is not a string, an integer, a number or a bool (or \
                     an `Option` of one), so no `where` filter could read it; declare only the \
                     fields a filter may name"
                ),
            );
        }
        if let Some(first) = envelope[..i].iter().find(|f| f.name.unraw() == name) {
            let mut err = syn::Error::new_spanned(
                &field.name,
                format!("envelope field `{name}` is declared twice; declare each field once"),
            );
            err.combine(syn::Error::new_spanned(&first.name, "first one here"));
            cx.syn_error(err);
        }
        if plan
            .container
            .internal_tag
            .as_ref()
            .is_some_and(|tag| tag.value() == name)
        {
            cx.error_spanned_by(
                &field.name,
                format!("envelope field `{name}` has the name of the tag serde writes; rename it"),
            );
        }
        for v in &plan.variants {
            let clash = crate::fields::written_names(v.original, enum_renames)
                .into_iter()
                .find(|(written, _)| *written == name);
            if let Some((_, member)) = clash {
                let mut err = syn::Error::new_spanned(
                    member,
                    format!(
                        "field `{name}` of variant `{}` has the name of an envelope field, so \
                         the event's line would hold the key `{name}` twice; rename one",
                        v.original.ident
                    ),
                );
                err.combine(syn::Error::new_spanned(&field.name, "the envelope field"));
                cx.syn_error(err);
            }
        }
    }
}
