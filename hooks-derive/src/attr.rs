//! Reading the attributes the derive cares about: `#[serde(...)]` (read,
//! never judged: serde owns its syntax), `#[hook(...)]` (ours, strict) and
//! `#[doc = "..."]`.

use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Lit, LitStr, Meta, Token, token};

use crate::ctxt::Ctxt;

const HOOK: &str = "hook";
const SERDE: &str = "serde";
const DOC: &str = "doc";
const TAG: &str = "tag";
const COST: &str = "cost";
const CONTENT: &str = "content";
const CRATE: &str = "crate";
const ENVELOPE: &str = "envelope";
const LAST: &str = "last";
const WRITE_JSON: &str = "write_json";
const UNIT_ENUM: &str = "unit_enum";
const VALUES: &str = "values";
const PREFIX: &str = "prefix";
const RENAME: &str = "rename";
const RENAME_ALL: &str = "rename_all";
const SERIALIZE: &str = "serialize";
const DESERIALIZE: &str = "deserialize";
const SKIP: &str = "skip";
const SKIP_SERIALIZING: &str = "skip_serializing";
const UNTAGGED: &str = "untagged";
const ALIAS: &str = "alias";
const INTO: &str = "into";
const DERIVE: &str = "derive";
const SERIALIZE_TRAIT: &str = "Serialize";

/// A slot that may be set once; a second `set` is an error on the second
/// occurrence (serde's `internals/attr.rs` `Attr<T>`).
struct Attr<'c, T> {
    cx: &'c Ctxt,
    name: &'static str,
    value: Option<T>,
}

impl<'c, T> Attr<'c, T> {
    fn none(cx: &'c Ctxt, name: &'static str) -> Self {
        Attr {
            cx,
            name,
            value: None,
        }
    }

    fn set<S: ToTokens>(&mut self, spanned: S, value: T) {
        if self.value.is_some() {
            self.cx
                .error_spanned_by(spanned, format!("duplicate hook attribute `{}`", self.name));
        } else {
            self.value = Some(value);
        }
    }

    fn get(self) -> Option<T> {
        self.value
    }
}

/// One field of `#[hook(envelope(run_id: String, depth: u32))]`: a field
/// every event's line carries beside the event's own.
pub(crate) struct EnvelopeField {
    /// Its name, as serde writes it on the line.
    pub name: syn::Ident,
    /// Its type, read as a variant's field's is.
    pub ty: syn::Type,
}

/// What the enum's own attributes say.
pub(crate) struct Container {
    /// `#[hook(crate = "…")]`: the path generated code uses for `io_hooks`.
    pub crate_path: Option<syn::Path>,
    /// `#[hook(envelope(…))]`: the fields of the envelope every event is
    /// delivered in, in the order written.
    pub envelope: Vec<EnvelopeField>,
    /// Whether `#[serde(rename_all = …)]` is present, to explain why it does
    /// not supply a tag.
    pub has_rename_all: bool,
    /// Whether the enum carries any `#[serde(...)]`: serde then names the
    /// variants, whatever `#[hook(tag)]` says.
    pub has_serde: bool,
    /// Whether a `#[derive(...)]` this derive can see names `Serialize`:
    /// serde then names the variants, even with no `#[serde]` anywhere.
    pub derives_serialize: bool,
    /// `#[serde(tag = "…")]` without `content`: serde writes each variant's
    /// payload as a map beside the tag (internally tagged).
    pub internal_tag: Option<LitStr>,
    /// `#[hook(write_json)]`: the enum's `Serialize` is serde's derive, so
    /// its `#[serde]` attributes say what it writes, and the derive may
    /// write `write_json` from them. Without it, `write_json` is serde's.
    pub write_json: bool,
}

impl Container {
    pub(crate) fn from_ast(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut crate_path = Attr::none(cx, CRATE);
        let mut envelope = Attr::none(cx, ENVELOPE);
        let mut write_json = Attr::none(cx, WRITE_JSON);
        let mut serde = SerdeContainer::default();
        let mut has_serde = false;
        let mut derives_serialize = false;
        for attr in attrs {
            if attr.path().is_ident(HOOK) {
                let result =
                    attr.parse_nested_meta(|meta| {
                        if meta.path.is_ident(CRATE) {
                            // #[hook(crate = "my_crate::io_hooks")]
                            let lit = string_value(
                                &meta,
                                "a crate path",
                                "#[hook(crate = \"my_crate::io_hooks\")]",
                            )?;
                            let path = lit.parse::<syn::Path>().map_err(|_| {
                                syn::Error::new_spanned(
                                    &lit,
                                    format!(
                                        "\"{}\" is not a path; write the path `io_hooks` is \
                                     reachable at, as `#[hook(crate = \"my_crate::io_hooks\")]`",
                                        lit.value()
                                    ),
                                )
                            })?;
                            crate_path.set(&meta.path, path);
                        } else if meta.path.is_ident(ENVELOPE) {
                            // #[hook(envelope(run_id: String, depth: u32))]
                            envelope.set(&meta.path, envelope_fields(&meta)?);
                        } else if meta.path.is_ident(WRITE_JSON) {
                            // #[hook(write_json)]
                            if meta.input.peek(Token![=]) || meta.input.peek(token::Paren) {
                                cx.syn_error(meta.error(
                                    "`write_json` takes no value; write `#[hook(write_json)]`",
                                ));
                                skip_value(&meta)?;
                            }
                            write_json.set(&meta.path, ());
                        } else if meta.path.is_ident(TAG)
                            || meta.path.is_ident(COST)
                            || meta.path.is_ident(LAST)
                        {
                            cx.syn_error(meta.error(format!(
                                "`{}` belongs on a variant, not on the enum",
                                path_string(&meta.path)
                            )));
                            skip_value(&meta)?;
                        } else {
                            cx.syn_error(meta.error(format!(
                                "unknown hook attribute `{}` on an enum; expected `crate`, \
                             `envelope` or `write_json`",
                                path_string(&meta.path)
                            )));
                            skip_value(&meta)?;
                        }
                        Ok(())
                    });
                if let Err(err) = result {
                    cx.syn_error(err);
                }
            } else if attr.path().is_ident(SERDE) {
                has_serde = true;
                for meta in serde_metas(attr) {
                    serde.read(cx, &meta);
                }
            } else if attr.path().is_ident(DERIVE) {
                derives_serialize |= names_serialize(attr);
            }
        }
        Container {
            crate_path: crate_path.get(),
            envelope: envelope.get().unwrap_or_default(),
            has_rename_all: serde.has_rename_all,
            has_serde,
            derives_serialize,
            // With `content` it is adjacently tagged: any payload can be written.
            internal_tag: serde.tag.filter(|_| !serde.has_content),
            write_json: write_json.get().is_some(),
        }
    }
}

/// What serde's own attributes on the enum say about how it is written.
#[derive(Default)]
struct SerdeContainer {
    has_rename_all: bool,
    has_content: bool,
    tag: Option<LitStr>,
}

impl SerdeContainer {
    fn read(&mut self, cx: &Ctxt, meta: &Meta) {
        let path = meta.path();
        self.has_rename_all |= path.is_ident(RENAME_ALL);
        self.has_content |= path.is_ident(CONTENT);
        match meta {
            // #[serde(tag = "event")]
            Meta::NameValue(nv) if path.is_ident(TAG) => {
                self.tag = lit_str(&nv.value).cloned();
            }
            // #[serde(into = "Wire")]
            _ if path.is_ident(INTO) => {
                cx.error_spanned_by(
                    path,
                    "serde writes this enum as the type named by `into`, so the tags of these \
                     variants are not what a hook would see; derive `HookEvents` on the enum \
                     serde writes",
                );
            }
            // #[serde(untagged)] on the enum
            Meta::Path(p) if p.is_ident(UNTAGGED) => {
                cx.error_spanned_by(
                    p,
                    "an `untagged` enum is written without any variant's tag, so no hook could \
                     tell its events apart; tag it, as `#[serde(tag = \"event\")]`",
                );
            }
            _ => {}
        }
    }
}

/// What one variant's attributes say.
pub(crate) struct Variant {
    /// `#[serde(rename = "x")]`, or the serialize half of
    /// `#[serde(rename(serialize = "x"))]`.
    pub serde_rename: Option<LitStr>,
    /// `#[hook(tag = "x")]`.
    pub hook_tag: Option<LitStr>,
    /// Every `#[serde(alias = "x")]`: other names serde reads the variant
    /// back from.
    pub aliases: Vec<LitStr>,
    /// `#[hook(cost = "per_unit")]`: the `io_hooks::Cost` variant it names.
    pub cost: Option<syn::Ident>,
    /// `#[hook(last)]`: nothing follows this event that a cancel could
    /// stop.
    pub last: Option<syn::Path>,
    /// The `skip` or `skip_serializing` path, when serde never writes this
    /// variant.
    pub skipped: Option<syn::Path>,
    /// The `untagged` path, when serde writes this variant without its tag.
    pub untagged: Option<syn::Path>,
    /// Whether the variant carries any `#[serde(...)]`.
    pub has_serde: bool,
    /// Whether a `#[hook(...)]` could not be read: its tag is then unknown,
    /// and reporting it missing would be a second error for one mistake.
    pub hook_unreadable: bool,
    /// The first paragraph of the doc comment, lines joined by a space.
    pub doc: String,
}

impl Variant {
    pub(crate) fn from_ast(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut hook_tag = Attr::none(cx, TAG);
        let mut cost = Attr::none(cx, COST);
        let mut last = Attr::none(cx, LAST);
        let mut serde = SerdeVariant::default();
        let mut has_serde = false;
        let mut hook_unreadable = false;
        let mut doc_lines = Vec::new();
        for attr in attrs {
            if attr.path().is_ident(HOOK) {
                let result = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident(TAG) {
                        // #[hook(tag = "job_started")]
                        let lit = string_value(&meta, "a tag", "#[hook(tag = \"job_started\")]")?;
                        hook_tag.set(&meta.path, lit);
                    } else if meta.path.is_ident(COST) {
                        // #[hook(cost = "per_unit")]
                        let lit =
                            string_value(&meta, "a cost class", "#[hook(cost = \"per_unit\")]")?;
                        match crate::cost::parse(&lit) {
                            Ok(class) => cost.set(&meta.path, class),
                            Err(err) => cx.syn_error(err),
                        }
                    } else if meta.path.is_ident(LAST) {
                        // #[hook(last)]
                        if meta.input.peek(Token![=]) || meta.input.peek(token::Paren) {
                            cx.syn_error(
                                meta.error("`last` takes no value; write `#[hook(last)]`"),
                            );
                            skip_value(&meta)?;
                        }
                        last.set(&meta.path, meta.path.clone());
                    } else if meta.path.is_ident(CRATE)
                        || meta.path.is_ident(ENVELOPE)
                        || meta.path.is_ident(WRITE_JSON)
                    {
                        cx.syn_error(meta.error(format!(
                            "`{}` belongs on the enum, not on a variant",
                            path_string(&meta.path)
                        )));
                        skip_value(&meta)?;
                    } else {
                        cx.syn_error(meta.error(format!(
                            "unknown hook attribute `{}` on a variant; expected `tag`, `cost` or \
                             `last`",
                            path_string(&meta.path)
                        )));
                        skip_value(&meta)?;
                    }
                    Ok(())
                });
                if let Err(err) = result {
                    hook_unreadable = true;
                    cx.syn_error(err);
                }
            } else if attr.path().is_ident(SERDE) {
                has_serde = true;
                for meta in serde_metas(attr) {
                    serde.read(cx, &meta);
                }
            } else if attr.path().is_ident(DOC)
                && let Meta::NameValue(nv) = &attr.meta
                && let Some(s) = lit_str(&nv.value)
            {
                doc_lines.push(s.value());
            }
        }
        Variant {
            serde_rename: serde.rename,
            aliases: serde.aliases,
            hook_tag: hook_tag.get(),
            cost: cost.get(),
            last: last.get(),
            skipped: serde.skipped,
            untagged: serde.untagged,
            has_serde,
            hook_unreadable,
            doc: first_paragraph(&doc_lines),
        }
    }
}

/// Whether a `#[derive(...)]` lists `Serialize`, by any path
/// (`serde::Serialize`, `::serde::Serialize`). The compiler hands a derive
/// only the `#[derive]` attributes written after the one naming it: a
/// `#[derive(Serialize)]` below `#[derive(HookEvents)]` is seen, while
/// `#[derive(Serialize, HookEvents)]` and `#[derive(HookEvents, Serialize)]`
/// are not (`io_hooks::check_tags` is the test for those).
fn names_serialize(attr: &Attribute) -> bool {
    attr.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
        .is_ok_and(|paths| {
            paths.iter().any(|path| {
                path.segments
                    .last()
                    .is_some_and(|s| s.ident == SERIALIZE_TRAIT)
            })
        })
}

/// Whether `attrs` hold a `#[serde(...)]`.
pub(crate) fn has_serde(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| attr.path().is_ident(SERDE))
}

/// The strings `#[hook(values = …)]` declares.
pub(crate) enum Values {
    /// `values = ["a", "b"]`: string literals.
    List(Vec<LitStr>),
    /// `values = NAMES`: a path to a `&'static [&'static str]`.
    Expr(Expr),
}

/// What a field's `#[hook(...)]` says, each key once.
#[derive(Default)]
pub(crate) struct FieldHook {
    /// `#[hook(unit_enum)]`: the field holds an enum of unit variants, which
    /// serde writes as the variant's name, and a `where` filter reads it as
    /// that string.
    pub(crate) unit_enum: Option<syn::Path>,
    /// `#[hook(values = …)]`: the strings a string field holds, which a
    /// filter's values are checked against.
    pub(crate) values: Option<Values>,
    /// `#[hook(prefix = "…")]`, each: a string starting with it is a value
    /// the field may hold too (names known only at run time).
    pub(crate) prefixes: Vec<LitStr>,
}

impl FieldHook {
    /// Whether the field's values are declared (`values` or `prefix`).
    pub(crate) fn declares_values(&self) -> bool {
        self.values.is_some() || !self.prefixes.is_empty()
    }
}

/// A field's `#[hook(...)]`. Every unknown key is an error, given to
/// `error`, as is a repeated one, `unit_enum` with a value, and `values` or
/// `prefix` beside `unit_enum` (whose values are its variants' names).
pub(crate) fn field_hook(attrs: &[Attribute], mut error: impl FnMut(syn::Error)) -> FieldHook {
    let mut out = FieldHook::default();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident(HOOK)) {
        let result = attr.parse_nested_meta(|meta| {
            // #[hook(unit_enum)]
            if meta.path.is_ident(UNIT_ENUM) {
                if meta.input.peek(Token![=]) || meta.input.peek(token::Paren) {
                    error(meta.error("`unit_enum` takes no value; write `#[hook(unit_enum)]`"));
                    return skip_value(&meta);
                }
                if out.unit_enum.is_some() {
                    error(meta.error("duplicate hook attribute `unit_enum`"));
                }
                out.unit_enum = Some(meta.path.clone());
                return Ok(());
            }
            // #[hook(values = TOOL_NAMES)], #[hook(values = ["a", "b"])]
            if meta.path.is_ident(VALUES) {
                let input = meta.value()?;
                let value = if input.peek(token::Bracket) {
                    let list;
                    syn::bracketed!(list in input);
                    let lits = Punctuated::<LitStr, Token![,]>::parse_terminated(&list)?;
                    Values::List(lits.into_iter().collect())
                } else {
                    Values::Expr(input.parse()?)
                };
                if out.values.is_some() {
                    error(syn::Error::new_spanned(
                        &meta.path,
                        "duplicate hook attribute `values`",
                    ));
                }
                out.values = Some(value);
                return Ok(());
            }
            // #[hook(prefix = "mcp__")]
            if meta.path.is_ident(PREFIX) {
                let lit = string_value(&meta, "`prefix`", "prefix = \"mcp__\"")?;
                if lit.value().is_empty() {
                    error(syn::Error::new_spanned(
                        &lit,
                        "an empty `prefix` starts every string, so no value would be checked; \
                         remove it",
                    ));
                }
                out.prefixes.push(lit);
                return Ok(());
            }
            error(meta.error(format!(
                "unknown hook attribute `{}` on a field; a field takes `unit_enum` (an enum of \
                 unit variants, which serde writes as a string, for a `where` filter to read), \
                 `values = …` (the strings a string field holds) and `prefix = \"…\"` (a string \
                 starting with it is one too), and a tag goes on the variant, as \
                 `#[hook(tag = \"…\")]`",
                path_string(&meta.path)
            )));
            skip_value(&meta)
        });
        if let Err(err) = result {
            error(err);
        }
    }
    if let Some(unit_enum) = &out.unit_enum
        && out.declares_values()
    {
        error(syn::Error::new_spanned(
            unit_enum,
            "a `unit_enum` field's values are its variants' names; remove `values` and `prefix`",
        ));
    }
    out
}

/// The fields of `envelope(name: Type, …)`: named fields, as a struct's
/// are written, at least one.
fn envelope_fields(meta: &ParseNestedMeta) -> syn::Result<Vec<EnvelopeField>> {
    const EXAMPLE: &str = "#[hook(envelope(run_id: String, depth: u32))]";
    if !meta.input.peek(token::Paren) {
        return Err(meta.error(format!(
            "`envelope` lists the fields every event's line carries, as `{EXAMPLE}`"
        )));
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let fields = Punctuated::<syn::Field, Token![,]>::parse_terminated_with(
        &content,
        syn::Field::parse_named,
    )?;
    if fields.is_empty() {
        return Err(meta.error(format!(
            "`envelope()` names no field; name one or more, as `{EXAMPLE}`, or remove it"
        )));
    }
    Ok(fields
        .into_iter()
        .filter_map(|field| {
            Some(EnvelopeField {
                name: field.ident?,
                ty: field.ty,
            })
        })
        .collect())
}

/// The string literal after `=` in a `#[hook(key = "…")]`, or an error
/// saying that `what` is one, as `example` shows.
fn string_value(meta: &ParseNestedMeta, what: &str, example: &str) -> syn::Result<LitStr> {
    let value: Expr = meta.value()?.parse()?;
    match lit_str(&value) {
        Some(lit) => Ok(lit.clone()),
        None => Err(syn::Error::new_spanned(
            value,
            format!("{what} is a string literal, as `{example}`"),
        )),
    }
}

/// Consumes the rest of an item we refused (`= value` or `(...)`), so the
/// items after it are still read and their errors still reported.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(token::Paren) {
        meta.input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}

/// What serde's own attributes say about a variant's name on the wire.
#[derive(Default)]
struct SerdeVariant {
    rename: Option<LitStr>,
    aliases: Vec<LitStr>,
    skipped: Option<syn::Path>,
    untagged: Option<syn::Path>,
}

impl SerdeVariant {
    fn read(&mut self, cx: &Ctxt, meta: &Meta) {
        let path = meta.path();
        match meta {
            // #[serde(rename = "job_started")]
            Meta::NameValue(nv) if path.is_ident(RENAME) => {
                if let Some(lit) = lit_str(&nv.value) {
                    self.rename = Some(lit.clone());
                }
            }
            // #[serde(alias = "turn")]
            Meta::NameValue(nv) if path.is_ident(ALIAS) => {
                self.aliases.extend(lit_str(&nv.value).cloned());
            }
            // #[serde(rename(serialize = "a", deserialize = "a"))]
            Meta::List(list) if path.is_ident(RENAME) => {
                let (ser, de) = rename_halves(list);
                if let (Some(s), Some(d)) = (&ser, &de)
                    && s.value() != d.value()
                {
                    cx.error_spanned_by(
                        d,
                        format!(
                            "serde writes this variant as \"{s}\" but reads it as \"{d}\"; a \
                             hook tag must read back as it was written, so write \
                             `#[serde(rename = \"{s}\")]`",
                            s = s.value(),
                            d = d.value(),
                        ),
                    );
                }
                if ser.is_some() {
                    self.rename = ser;
                }
            }
            // #[serde(skip)] / #[serde(skip_serializing)]
            Meta::Path(p) if p.is_ident(SKIP) || p.is_ident(SKIP_SERIALIZING) => {
                self.skipped = Some(p.clone());
            }
            // #[serde(untagged)]
            Meta::Path(p) if p.is_ident(UNTAGGED) => {
                self.untagged = Some(p.clone());
            }
            _ => {}
        }
    }
}

/// The `serialize` and `deserialize` names of serde's
/// `rename(serialize = "a", deserialize = "b")`, each when given; neither
/// when serde's syntax is something we cannot read (serde reports it).
pub(crate) fn rename_halves(list: &syn::MetaList) -> (Option<LitStr>, Option<LitStr>) {
    let Ok(inner) = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) else {
        return (None, None);
    };
    let half = |name: &str| {
        inner.iter().find_map(|m| match m {
            Meta::NameValue(nv) if nv.path.is_ident(name) => lit_str(&nv.value).cloned(),
            _ => None,
        })
    };
    (half(SERIALIZE), half(DESERIALIZE))
}

/// The items of a `#[serde(...)]` attribute, or none if serde's own syntax is
/// something we cannot read: serde reports its own errors.
pub(crate) fn serde_metas(attr: &Attribute) -> Vec<Meta> {
    attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        .map(|p| p.into_iter().collect())
        .unwrap_or_default()
}

/// The string literal `expr` is, seen through the invisible groups a
/// `macro_rules!` fragment (`$tag:literal`, `$tag:expr`) arrives in.
pub(crate) fn lit_str(mut expr: &Expr) -> Option<&LitStr> {
    while let Expr::Group(group) = expr {
        expr = &group.expr;
    }
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s),
        _ => None,
    }
}

/// `/// a` lines arrive one attribute each, a `/** a */` block as one
/// attribute holding newlines; both are split into lines here.
fn first_paragraph(lines: &[String]) -> String {
    lines
        .iter()
        .flat_map(|l| l.split('\n'))
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn path_string(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}
