//! The cost classes `#[hook(cost = "…")]` accepts. One table both parses a
//! value and lists the valid ones in the error (serde's `internals/case.rs`
//! does the same for `rename_all`).

use syn::LitStr;

/// Each class as written in the attribute, and the `io_hooks::Cost` variant
/// it names, in `Cost`'s declaration order.
const CLASSES: &[(&str, &str)] = &[
    ("per_item", "PerItem"),
    ("per_unit", "PerUnit"),
    ("per_invocation", "PerInvocation"),
    ("rare", "Rare"),
];

/// The `io_hooks::Cost` variant `lit` names, or an error listing every class.
pub(crate) fn parse(lit: &LitStr) -> syn::Result<syn::Ident> {
    let value = lit.value();
    match CLASSES.iter().find(|(name, _)| *name == value) {
        Some((_, variant)) => Ok(syn::Ident::new(variant, lit.span())),
        None => Err(syn::Error::new_spanned(
            lit,
            format!(
                "unknown cost class `cost = {value:?}`, expected one of {}",
                expected()
            ),
        )),
    }
}

/// `"per_item", "per_unit", …`, from [`CLASSES`].
fn expected() -> String {
    CLASSES
        .iter()
        .map(|(name, _)| format!("{name:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;

    use super::*;

    #[test]
    fn every_class_parses_to_its_variant() {
        for (name, variant) in CLASSES {
            let ident = parse(&LitStr::new(name, Span::call_site())).expect("a class");
            assert_eq!(ident, variant);
        }
    }

    #[test]
    fn an_unknown_class_lists_every_class() {
        let err = parse(&LitStr::new("PerUnit", Span::call_site())).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown cost class `cost = \"PerUnit\"`, expected one of \"per_item\", \
             \"per_unit\", \"per_invocation\", \"rare\""
        );
    }
}
