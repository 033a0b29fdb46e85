//! Validation: a table's keys checked against each other and against the
//! event enum. The shape was settled by [`super::read`]; what each action
//! means is its own module's ([`crate::action`]).

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use toml::Spanned;

use super::key_table::on_failure;
use super::read::HookTable;
use crate::action::{ActionSet, ActionTable, DynKind};
use crate::key::{BACKGROUND, ENABLED, ON, ON_FAILURE, TIMEOUT_MS, WHERE};
use crate::raw::{Cx, RawHook, RawValue};
use crate::registry::{HookEvents, HookFilter};
use crate::spec::HookSpec;
use crate::table_error::{TableError, TableErrorKind};

/// Checks one table's keys against each other and against `E`; `names`
/// holds the names of the array's tables before it, with each one's key
/// path.
///
/// The order of the checks is the order an operator reads a table in: which
/// events, then which action, then the action's details.
pub(super) fn validate<E: HookEvents>(
    HookTable(mut raw): HookTable,
    cx: &Cx<'_>,
    actions: &ActionSet,
    names: &mut BTreeMap<String, String>,
) -> Result<HookSpec<E>, TableError> {
    let name = super::name::take(&mut raw, cx, names)?;
    let enabled = raw.take_bool(ENABLED).is_none_or(Spanned::into_inner);
    let on_written = raw.span(ON).is_some();
    let on = events::<E>(&mut raw, cx)?;
    cancel_stops_something(&raw, on, cx)?;
    let r#where = super::compile_where::compile(raw.take_where(WHERE), on, on_written, cx)?;
    let (kind, value) = chosen_action(&mut raw, cx, actions)?;
    let key = kind.key();
    let mut table = ActionTable {
        key,
        value,
        raw: &mut raw,
        taken: Vec::new(),
        cx,
    };
    let action = kind.validate(&mut table)?;
    let (timeout, background) = engine_keys(&mut raw, key.name, cx)?;
    unread(&raw, key.name, cx)?;
    Ok(HookSpec {
        name,
        enabled,
        on,
        r#where,
        action: action.with_keys(timeout, background),
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

/// Refuses `on_failure = "cancel"` on a hook whose every event is marked
/// `#[hook(last)]`: nothing follows those that a cancel could stop, so the
/// policy check would look like one and stop nothing. A hook with other
/// events too is kept: its cancel stops what follows those, and on a last
/// event its failure is reported and answers `Flow::Continue`.
fn cancel_stops_something<E: HookEvents>(
    raw: &RawHook,
    on: HookFilter<E>,
    cx: &Cx<'_>,
) -> Result<(), TableError> {
    if raw.choice(ON_FAILURE) != Some("cancel") || !on.without(HookFilter::LAST).is_empty() {
        return Ok(());
    }
    let span = raw.span(ON_FAILURE).unwrap_or_else(|| cx.span.clone());
    let kind = TableErrorKind::CancelStopsNothing {
        events: on.tags().collect(),
    };
    Err(cx.error(ON_FAILURE, span, kind))
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

/// Why a value of the engine's keys is refused.
#[derive(Debug)]
enum Refusal {
    /// `timeout_ms` below 1.
    BadTimeout(i64),
    /// `background = true` with `on_failure = "cancel"`.
    CancelInBackground,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::BadTimeout(ms) => write!(
                f,
                "`{TIMEOUT_MS} = {ms}` is not a timeout; write a whole number of milliseconds, at \
                 least 1"
            ),
            Refusal::CancelInBackground => f.write_str(
                "`background = true` cannot go with `on_failure = \"cancel\"`: a cancel from the \
                 background would land on a later step than the event that caused it, and a \
                 policy check must block; remove `background`, or make the hook \
                 `on_failure = \"continue\"`",
            ),
        }
    }
}

/// The engine's `timeout_ms` (at least 1 ms) and `background` (never on a
/// hook that cancels), as the table writes them, taken; the chosen action
/// `action` honours each one written ([`chosen_action`] checked).
fn engine_keys(
    raw: &mut RawHook,
    action: &'static str,
    cx: &Cx<'_>,
) -> Result<(Option<Duration>, bool), TableError> {
    let timeout = match raw.take_int(TIMEOUT_MS) {
        None => None,
        Some(t) => match u64::try_from(*t.get_ref()) {
            Ok(ms) if ms >= 1 => Some(Duration::from_millis(ms)),
            _ => {
                let refusal = Refusal::BadTimeout(*t.get_ref());
                return Err(cx.refusal(TIMEOUT_MS, t.span(), action, refusal));
            }
        },
    };
    let background = match raw.take_bool(BACKGROUND) {
        Some(b) if *b.get_ref() && raw.choice(ON_FAILURE) == Some("cancel") => {
            let refusal = Refusal::CancelInBackground;
            return Err(cx.refusal(BACKGROUND, b.span(), action, refusal));
        }
        Some(b) => b.into_inner(),
        None => false,
    };
    Ok((timeout, background))
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
/// out of the table; no key of another action, and no key of the engine's
/// that it does not honour.
fn chosen_action<'a>(
    raw: &mut RawHook,
    cx: &Cx<'_>,
    actions: &'a ActionSet,
) -> Result<(&'a dyn DynKind, Spanned<RawValue>), TableError> {
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
            also: Vec::new(),
            verb: chosen.verb(),
            why: key.elsewhere,
        };
        return Err(cx.error(key.name, span, kind));
    }
    for name in [TIMEOUT_MS, BACKGROUND] {
        let Some(span) = raw.span(name).filter(|_| !chosen.honours(name)) else {
            continue;
        };
        let mut honouring = actions.honouring(name).into_iter();
        let kind = TableErrorKind::KeyOfOtherAction {
            key: name,
            owner: honouring.next().unwrap_or_default(),
            also: honouring.collect(),
            verb: chosen.verb(),
            why: chosen.why_not(name),
        };
        return Err(cx.error(name, span, kind));
    }
    Ok((chosen, value))
}
