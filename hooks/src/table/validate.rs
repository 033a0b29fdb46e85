//! Validation: a table's keys checked against each other and against the
//! event enum. The shape was settled by [`super::raw`]; what each action
//! means is its own module's ([`crate::action`]).

use toml::Spanned;

use super::keys::on_failure;
use super::read::HookTable;
use crate::action::{ActionKind, ActionSet, ActionTable};
use crate::key::{ON, ON_FAILURE, WHERE};
use crate::raw::{Cx, RawHook, RawValue};
use crate::registry::{HookEvents, HookFilter};
use crate::spec::HookSpec;
use crate::table_error::{TableError, TableErrorKind};

/// Checks one table's keys against each other and against `E`.
///
/// The order of the checks is the order an operator reads a table in: which
/// events, then which action, then the action's details.
pub(super) fn validate<E: HookEvents>(
    HookTable(mut raw): HookTable,
    cx: &Cx<'_>,
    actions: &ActionSet,
) -> Result<HookSpec<E>, TableError> {
    let on_written = raw.span(ON).is_some();
    let on = events::<E>(&mut raw, cx)?;
    let r#where = super::compile_where::compile(raw.take_where(WHERE), on, on_written, cx)?;
    let (kind, value) = chosen_action(&mut raw, cx, actions)?;
    let mut table = ActionTable {
        key: kind.key().name,
        span: value.span(),
        value: Some(value),
        raw: &mut raw,
        taken: Vec::new(),
        cx,
    };
    let action = kind.validate(&mut table)?;
    unread(&raw, kind.key().name, cx)?;
    Ok(HookSpec {
        on,
        r#where,
        action,
        on_failure: on_failure(raw.take_choice(ON_FAILURE)),
        origin: None,
        read_with: Some(cx.root.to_path_buf()),
    })
}

/// `on`: an array, every name an event of `E`, at least one of them.
fn events<E: HookEvents>(raw: &mut RawHook, cx: &Cx<'_>) -> Result<HookFilter<E>, TableError> {
    let on = match raw.take_events(ON) {
        None => return Ok(HookFilter::ALL),
        Some(Ok(on)) => on,
        Some(Err(found)) => {
            let kind = TableErrorKind::Shape(not_an_array::<E>(found.get_ref()));
            return Err(cx.error(ON, found.span(), kind));
        }
    };
    let span = on.span();
    let names = on.into_inner();
    if names.is_empty() {
        return Err(cx.error(ON, span, TableErrorKind::NoEvents(E::TAGS)));
    }
    let mut filter = HookFilter::EMPTY;
    for name in &names {
        match HookFilter::<E>::from_names([name.get_ref()]) {
            // A repeat is harmless to the filter but likely a mistake (a
            // copy meant to be edited into another name), and the schema
            // an editor uses refuses it too (`uniqueItems`).
            Ok(one) if filter.union(one) == filter => {
                let kind = TableErrorKind::RepeatedEvent(name.get_ref().clone());
                return Err(cx.error(ON, name.span(), kind));
            }
            Ok(one) => filter = filter.union(one),
            Err(unknown) => {
                let kind = TableErrorKind::UnknownEvent(unknown);
                return Err(cx.error(ON, name.span(), kind));
            }
        }
    }
    Ok(filter)
}

/// The type error for an `on` that is not an array, in serde's words, with
/// `E`'s first event as the example: "invalid type: string "x", expected an
/// array of event names, as in `on = ["job_started"]`".
fn not_an_array<E: HookEvents>(found: &str) -> String {
    let mut message = format!("invalid type: {found}, expected an array of event names");
    if let Some(tag) = E::TAGS.first() {
        message.push_str(&format!(", as in `on = [\"{tag}\"]`"));
    }
    message
}

/// An option of the chosen action that its `validate` left unread: an
/// embedder's action that declares a key and ignores it would leave the
/// operator's value silently off, so the table is refused, naming it.
fn unread(raw: &RawHook, action: &'static str, cx: &Cx<'_>) -> Result<(), TableError> {
    let Some(key) = raw.keys().find(|key| key.owner == Some(action)) else {
        return Ok(());
    };
    let span = raw.span(key.name).unwrap_or_else(|| cx.span.clone());
    let reason = format!(
        "the `{action}` action declares `{}` but does not read it, so its value would be \
         ignored; remove it, and report this to the program's authors",
        key.name
    );
    Err(cx.refusal(key.name, span, action, reason))
}

/// The one action whose key the table has, and that key's value, taken
/// out of the table; no key of another action.
fn chosen_action<'a>(
    raw: &mut RawHook,
    cx: &Cx<'_>,
    actions: &'a ActionSet,
) -> Result<(&'a dyn ActionKind, Spanned<RawValue>), TableError> {
    let chosen: Vec<_> = actions
        .kinds()
        .filter_map(|kind| Some((kind, raw.take(kind.key().name)?)))
        .collect();
    let (chosen, value) = match <[_; 1]>::try_from(chosen) {
        Ok([one]) => one,
        Err(none) if none.is_empty() => {
            return Err(cx.table_error(TableErrorKind::NoAction(actions.names())));
        }
        Err(_) => {
            return Err(cx.table_error(TableErrorKind::BothActions(actions.names())));
        }
    };
    let name = chosen.key().name;
    let foreign = raw
        .keys()
        .find(|key| key.owner.is_some_and(|owner| owner != name));
    if let Some(key) = foreign {
        let span = raw.span(key.name).unwrap_or_else(|| cx.span.clone());
        let kind = TableErrorKind::KeyOfOtherAction {
            key: key.name,
            owner: key.owner.unwrap_or_default(),
            verb: chosen.verb(),
            why: key.elsewhere,
        };
        return Err(cx.error(key.name, span, kind));
    }
    Ok((chosen, value))
}
