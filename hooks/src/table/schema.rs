//! The JSON Schema of one `[[hook]]` table, computed from the key table.

use serde_json::{Map, Value, json};

use super::key_table::KEYS;
use super::placement::near_miss_pattern;
use crate::action::{ActionSet, DynKind};
use crate::key::HookKey;
use crate::key::{BACKGROUND, HOOK, ON, ON_FAILURE, TIMEOUT_MS, WHERE};
use crate::layout::Layout;
use crate::registry::{Field, FieldKind, HookEvents, HookFilter, Kind};

/// The JSON Schema (draft 2020-12) of one `[[hook]]` table for events `E`:
/// every key of the key table with what it accepts, exactly one action, and
/// no option of another action. `describe_event(kind)` describes one event.
/// Its `$defs` hold what its rules refer to (`#/$defs/range_in_order`, the
/// rule that a `where` range's `min` is not above its `max`);
/// [`hook_file_schema`] moves them to the file's own `$defs`.
///
/// The keys of each object are in the order written here ([`HOOK_KEYS`](super::HOOK_KEYS)'s,
/// for `properties`) when serde_json's `preserve_order` feature is on in the
/// embedder's build, and sorted otherwise: this crate does not turn it on,
/// as it would change every map of every crate in the build.
///
/// ```
/// use io_hooks::HookEvents;
///
/// #[derive(HookEvents)]
/// enum Ev {
///     /// A job began.
///     #[hook(tag = "job_started")]
///     JobStarted,
/// }
/// let schema = io_hooks::hook_table_schema::<Ev>(|kind| kind.doc().to_owned());
/// assert_eq!(schema["properties"]["on"]["items"]["enum"][0], "job_started");
/// assert_eq!(schema["properties"]["on"]["items"]["anyOf"][0]["description"], "A job began.");
/// let mut keys: Vec<&str> = schema["properties"].as_object().unwrap().keys().map(|k| k.as_str()).collect();
/// let mut spec = io_hooks::HOOK_KEYS.to_vec();
/// (keys.sort(), spec.sort());
/// assert_eq!(keys, spec);
/// ```
pub fn hook_table_schema<E: HookEvents>(describe_event: impl Fn(Kind<E>) -> String) -> Value {
    table_schema(describe_event, &ActionSet::default())
}

/// [`hook_table_schema`] with `actions`' keys, and the rules of each.
fn table_schema<E: HookEvents>(
    describe_event: impl Fn(Kind<E>) -> String,
    actions: &ActionSet,
) -> Value {
    let keys: Vec<HookKey> = KEYS.iter().copied().chain(actions.own_keys()).collect();
    let names = actions.names();
    let events: Vec<Value> = Kind::<E>::all()
        .map(|kind| json!({ "const": kind.tag(), "description": describe_event(kind) }))
        .collect();
    let event = json!({ "enum": E::TAGS, "anyOf": events });
    let properties: Map<String, Value> = keys
        .iter()
        .map(|key| (key.name.to_owned(), (key.schema)(&event)))
        .collect();
    let one_of: Vec<Value> = names
        .iter()
        .map(|name| json!({ "required": [name] }))
        .collect();
    let mut schema = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": properties,
        "oneOf": one_of,
        "$defs": { RANGE_IN_ORDER: range_in_order() },
    });
    let mut exclusions: Vec<Value> = actions
        .kinds()
        .filter_map(|kind| exclusion(kind, &keys, &names))
        .collect();
    if let Some(object) = schema.as_object_mut() {
        // One exclusion is written as it always was, at the top level; the
        // rest, and the rules of `where`, in `allOf`.
        if exclusions.len() == 1
            && let Value::Object(rule) = exclusions.remove(0)
        {
            object.extend(rule);
        }
        exclusions.extend(actions.kinds().flat_map(DynKind::rules));
        exclusions.push(cancel_in_background());
        exclusions.extend(cancel_on_last::<E>());
        exclusions.extend(where_rules::<E>());
        object.insert("allOf".to_owned(), Value::Array(exclusions));
    }
    schema
}

/// The engine's rule between two of its keys, for every action that
/// honours `background`: never `background = true` with
/// `on_failure = "cancel"`.
fn cancel_in_background() -> Value {
    json!({
        "not": {
            "required": [BACKGROUND, ON_FAILURE],
            "properties": {
                BACKGROUND: { "const": true },
                ON_FAILURE: { "const": "cancel" }
            }
        }
    })
}

/// The engine's rule for events marked `#[hook(last)]`: never
/// `on_failure = "cancel"` on a hook whose every event is one (an absent
/// `on` is every event). `None` when `E` marks none.
fn cancel_on_last<E: HookEvents>() -> Option<Value> {
    let last = HookFilter::<E>::LAST;
    if last.is_empty() {
        return None;
    }
    let cancel = json!({ "const": "cancel" });
    if last.is_all() {
        return Some(json!({
            "not": { "required": [ON_FAILURE], "properties": { ON_FAILURE: cancel } }
        }));
    }
    let tags: Vec<&str> = last.tags().collect();
    Some(json!({
        "not": {
            "required": [ON, ON_FAILURE],
            "properties": { ON_FAILURE: cancel, ON: { "items": { "enum": tags } } }
        }
    }))
}

/// The rules of `where`, in keywords every editor's validator applies
/// (draft 7's `if` and `then`, which taplo, the engine of Even Better TOML,
/// applies where it skips 2019-09's `dependentSchemas`): a hook table with
/// `where` has `on`, unless `where` names only the envelope's fields
/// ([`HookEvents::ENVELOPE`]), which every event has; and for each event
/// `on` may hold, `where` names only that event's fields a filter reads and
/// the envelope's, each with a value of its type
/// ([`value_schema`]). A glob that matches none of a field's values, and
/// "did you mean", are the loader's alone.
fn where_rules<E: HookEvents>() -> Vec<Value> {
    // The envelope's fields: on every event, and without `on`.
    let envelope: Vec<&str> = E::ENVELOPE.iter().map(|f| f.name).collect();
    let envelope_values: Map<String, Value> = E::ENVELOPE
        .iter()
        .map(|field| (field.name.to_owned(), value_schema(field, &[], &[])))
        .collect();
    let needs_on = match envelope.is_empty() {
        true => json!({ "required": [WHERE] }),
        false => json!({
            "required": [WHERE],
            "properties": { WHERE: { "not": { "propertyNames": { "enum": envelope } } } }
        }),
    };
    let mut rules = vec![json!({ "if": needs_on, "then": { "required": [ON] } })];
    if !envelope.is_empty() {
        rules.push(json!({ "properties": { WHERE: { "properties": envelope_values.clone() } } }));
    }
    for kind in Kind::<E>::all() {
        let mut names = envelope.clone();
        let mut values = envelope_values.clone();
        for (index, field) in kind.fields().iter().enumerate() {
            if !field.is_filterable() {
                continue;
            }
            names.push(field.name);
            values.insert(
                field.name.to_owned(),
                value_schema(
                    field,
                    kind.field_choices(index).unwrap_or_default(),
                    kind.field_prefixes(index),
                ),
            );
        }
        rules.push(json!({
            "if": {
                "required": [ON, WHERE],
                "properties": { ON: { "contains": { "const": kind.tag() } } }
            },
            "then": {
                "properties": {
                    WHERE: { "propertyNames": { "enum": names }, "properties": values }
                }
            }
        }));
    }
    rules
}

/// What `where.<field>` may be for `field`: a value of its type (within an
/// integer's bounds; one of a string's declared `values`, or starting with
/// one of its `prefixes`, when it declares any), a glob for a string, a
/// range for a number (integer bounds for an integer field, reaching into
/// its bounds, and no `min` above its `max`: [`range_in_order`]), or a
/// list of one or more of those.
fn value_schema(field: &Field, values: &[&str], prefixes: &[&str]) -> Value {
    let glob = json!({
        "type": "object",
        "properties": { "glob": { "type": "string" } },
        "required": ["glob"],
        "additionalProperties": false
    });
    // A float bound reaches no integer field, as the loader's type check
    // says.
    let of_type = match field.kind {
        FieldKind::Integer => "integer",
        _ => "number",
    };
    let range = |lo: Option<Value>, hi: Option<Value>| {
        let bound = |limit: &str, at: Option<Value>| match at {
            Some(at) => json!({ "type": of_type, limit: at }),
            None => json!({ "type": of_type }),
        };
        json!({
            "type": "object",
            "properties": { "min": bound("maximum", hi), "max": bound("minimum", lo) },
            "minProperties": 1,
            "additionalProperties": false,
            "allOf": [{ "$ref": format!("#/$defs/{RANGE_IN_ORDER}") }]
        })
    };
    let one: Vec<Value> = match field.kind {
        FieldKind::Str => vec![string_schema(values, prefixes), glob],
        FieldKind::Integer => {
            let (lo, hi) = match field.bounds {
                Some((lo, hi)) => (number(lo), number(hi)),
                None => (None, None),
            };
            let mut int = json!({ "type": "integer" });
            if let Some(object) = int.as_object_mut() {
                object.extend(lo.clone().map(|lo| ("minimum".to_owned(), lo)));
                object.extend(hi.clone().map(|hi| ("maximum".to_owned(), hi)));
            }
            vec![int, range(lo, hi)]
        }
        FieldKind::Float => vec![json!({ "type": "number" }), range(None, None)],
        _ => vec![json!({ "type": "boolean" })],
    };
    let list = json!({ "type": "array", "minItems": 1, "items": { "anyOf": one } });
    let mut any = one;
    any.push(list);
    json!({ "anyOf": any })
}

/// The name in `$defs` of [`range_in_order`]'s rule.
const RANGE_IN_ORDER: &str = "range_in_order";

/// Every integer from `-ORDER_BAND` to `ORDER_BAND` is a threshold of
/// [`range_in_order`]: within it, every range whose `min` is above its
/// `max` is refused.
const ORDER_BAND: i128 = 128;

/// The rule that a range's `min` is not above its `max`, which the loader
/// refuses (`{ min = 10, max = 2 }` is a filter no value passes), as far
/// as JSON Schema can say it. No keyword compares two values of one
/// instance, so the rule is a list of thresholds `t`, each saying "not
/// `min >= t` with `max < t`": an inverted range is refused when a
/// threshold lies in `(max, min]`. The thresholds ([`order_thresholds`])
/// are every integer within [`ORDER_BAND`] of 0 and, beyond it, each power
/// of two and the number halfway to the next, of either sign, to the
/// bounds of a 64-bit integer. So every inverted range with a bound within
/// the band is refused, and one beyond it whose bounds lie in one step
/// (`{ min = 301, max = 300 }`, or `{ min = 0.7, max = 0.5 }` on a float
/// field) is left to the loader. A range in order is never refused: each
/// rule holds for it.
fn range_in_order() -> Value {
    let rules: Vec<Value> = order_thresholds()
        .into_iter()
        .filter_map(number)
        .map(|t| {
            json!({ "not": {
                "properties": { "min": { "minimum": t }, "max": { "exclusiveMaximum": t } }
            } })
        })
        .collect();
    json!({
        "description": "No `min` above its `max`: such a range lets no value through.",
        "if": { "required": ["min", "max"] },
        "then": { "allOf": rules }
    })
}

/// [`range_in_order`]'s thresholds, ascending: every integer within
/// [`ORDER_BAND`] of 0, then, beyond it, `2^k` and `3 * 2^(k-1)` of either
/// sign, up to the bounds of `i64` and `u64`.
fn order_thresholds() -> Vec<i128> {
    let mut beyond: Vec<i128> = (0..64)
        .flat_map(|k| [1_i128 << k, 3_i128 << k])
        .filter(|t| *t > ORDER_BAND && *t <= i128::from(u64::MAX))
        .collect();
    beyond.sort_unstable();
    beyond.dedup();
    let below = beyond
        .iter()
        .rev()
        .map(|t| -t)
        .filter(|t| *t >= i128::from(i64::MIN));
    below
        .chain(-ORDER_BAND..=ORDER_BAND)
        .chain(beyond.iter().copied())
        .collect()
}

/// A string a field may hold: any, or one of `values`, or one starting
/// with one of `prefixes`.
fn string_schema(values: &[&str], prefixes: &[&str]) -> Value {
    let pattern = (!prefixes.is_empty()).then(|| {
        let alternatives: Vec<String> = prefixes.iter().map(|p| regex_literal(p)).collect();
        json!({ "type": "string", "pattern": format!("^(?:{})", alternatives.join("|")) })
    });
    match (values.is_empty(), pattern) {
        (true, None) => json!({ "type": "string" }),
        (true, Some(pattern)) => pattern,
        (false, None) => json!({ "enum": values }),
        (false, Some(pattern)) => json!({ "anyOf": [{ "enum": values }, pattern] }),
    }
}

/// `text` as a regular expression (ECMA-262, as JSON Schema's `pattern`)
/// that matches it literally.
fn regex_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        // ECMA-262's syntax characters: the only ones an escape may
        // precede in a `u`-mode pattern.
        if "\\^$.|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `n` as a JSON number, when JSON's integers (`i64`, `u64`) hold it.
fn number(n: i128) -> Option<Value> {
    i64::try_from(n)
        .map(Value::from)
        .or_else(|_| u64::try_from(n).map(Value::from))
        .ok()
}

/// The JSON Schema (draft 2020-12) of a whole file that may declare hooks,
/// as far as hooks go, with `$defs.hook` the [`hook_table_schema`]: `hook`
/// arrays at the top level and in each body of each of `layout`'s sections
/// (`array_description` describes one array), and the same refusals as
/// [`TomlFile::check_placement`](super::TomlFile::check_placement): a near
/// miss of `hook` in those places, or a key of a hook table outside any,
/// and `hook` or a near miss holding a table or an array anywhere else. Every other key is allowed, as the
/// loader keeps it for its owner. The caller adds `$schema`, `$id` and its
/// own title, and may describe each section (`properties.<key>`) in its
/// own words.
///
/// ```
/// use io_hooks::{HookEvents, Layout};
///
/// #[derive(HookEvents)]
/// enum Ev {
///     #[hook(tag = "job_finished")]
///     JobFinished,
/// }
/// let layout = Layout::new().section("target", "a target");
/// let schema = io_hooks::hook_file_schema::<Ev>(|_| String::new(), "hooks", &layout);
/// assert_eq!(schema["properties"]["hook"]["items"]["$ref"], "#/$defs/hook");
/// assert_eq!(schema["properties"]["target"]["additionalProperties"]["$ref"], "#/$defs/body");
/// ```
pub fn hook_file_schema<E: HookEvents>(
    describe_event: impl Fn(Kind<E>) -> String,
    array_description: &str,
    layout: &Layout,
) -> Value {
    let near_miss = near_miss_pattern();
    let hooks = json!({
        "type": "array",
        "description": array_description,
        "items": { "$ref": "#/$defs/hook" }
    });
    // At the top level and in a section's body: `hook`, or no near miss;
    // and no key of a hook table, outside any (a `[[hook]]` header left
    // out). A section is named by its own key.
    let own = layout.actions().own_keys();
    let stray: Vec<&str> = super::key_table::stray_keys()
        .chain(own.iter().map(|key| key.name))
        .filter(|key| !layout.is_section(key))
        .collect();
    let names = json!({
        "anyOf": [{ "const": HOOK }, { "not": { "pattern": near_miss } }],
        "not": { "enum": stray }
    });
    let mut properties = Map::new();
    properties.insert(HOOK.to_owned(), hooks.clone());
    for (section, _) in layout.get_sections() {
        let description = format!(
            "Named bodies, each of which may declare its own `hook` array, as in `[[{}.<name>.hook]]`.",
            crate::position::toml_key(section)
        );
        properties.insert(
            section.to_owned(),
            json!({
                "type": "object",
                "description": description,
                "additionalProperties": { "$ref": "#/$defs/body" }
            }),
        );
    }
    // The table's own `$defs` (what its rules refer to as `#/$defs/…`)
    // move to the file's, where those references then point.
    let mut table = table_schema::<E>(describe_event, layout.actions());
    if let Some(tools) = layout.get_tools() {
        super::compile_args::patch_schema::<E>(&mut table, tools);
    }
    let table_defs = table
        .as_object_mut()
        .and_then(|table| table.remove("$defs"));
    let mut file = json!({
        "type": "object",
        "properties": properties,
        "propertyNames": names,
        "additionalProperties": { "$ref": "#/$defs/elsewhere" },
        "$defs": {
            HOOK: table,
            "body": {
                "type": "object",
                "properties": { HOOK: hooks },
                "propertyNames": names,
                "additionalProperties": { "$ref": "#/$defs/elsewhere" }
            },
            "elsewhere": {
                "description": "Any other value: it may not hide a `hook` array or table, which would load as no hooks.",
                "patternProperties": { near_miss: { "not": { "type": ["object", "array"] } } },
                "additionalProperties": { "$ref": "#/$defs/elsewhere" },
                "items": { "$ref": "#/$defs/elsewhere" }
            }
        }
    });
    if let (Some(Value::Object(defs)), Some(Value::Object(table_defs))) =
        (file.get_mut("$defs"), table_defs)
    {
        defs.extend(table_defs);
    }
    file
}

/// "If `kind`'s key is present, no other action's option is": `None` when
/// there is no such option. `keys` are every key, `names` the action keys.
fn exclusion(kind: &dyn DynKind, keys: &[HookKey], names: &[&str]) -> Option<Value> {
    let name = kind.key().name;
    let foreign: Vec<&str> = keys
        .iter()
        .filter(|key| {
            let other = key.owner.is_some_and(|owner| owner != name) && !names.contains(&key.name);
            let unhonoured =
                [TIMEOUT_MS, BACKGROUND].contains(&key.name) && !kind.honours(key.name);
            other || unhonoured
        })
        .map(|key| key.name)
        .collect();
    let not = match foreign.as_slice() {
        [] => return None,
        [one] => json!({ "required": [one] }),
        many => {
            json!({ "anyOf": many.iter().map(|k| json!({ "required": [k] })).collect::<Vec<_>>() })
        }
    };
    Some(json!({
        "if": { "required": [name] },
        "then": { "not": not }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{TableErrorKind, TomlFile};

    #[derive(crate::HookEvents)]
    #[hook(crate = "crate")]
    #[allow(dead_code)] // only its tags are used
    enum Ev {
        #[hook(tag = "job_started")]
        JobStarted,
    }

    /// The error loading a one-key table, `key = 0`.
    fn kind_for(key: &str) -> TableErrorKind {
        let text = format!("[[hook]]\n{} = 0\n", crate::text::toml_key(key));
        let err = TomlFile::new("app.toml", &text)
            .hooks::<Ev>(std::path::Path::new("/p"))
            .expect_err("no one-key table with an integer is a hook");
        err.kind().clone()
    }

    #[test]
    fn the_order_thresholds_are_the_band_then_two_an_octave_each_way() {
        let thresholds = order_thresholds();
        assert!(thresholds.windows(2).all(|w| w[0] < w[1]));
        assert!((-ORDER_BAND..=ORDER_BAND).all(|n| thresholds.contains(&n)));
        let beyond: Vec<i128> = thresholds
            .iter()
            .copied()
            .filter(|t| *t > ORDER_BAND)
            .collect();
        assert_eq!(&beyond[..4], [192, 256, 384, 512]);
        assert_eq!(thresholds.first(), Some(&i128::from(i64::MIN)));
        assert_eq!(thresholds.last(), Some(&(3_i128 << 62)));
        // Each one is a JSON number, so each is a rule.
        let rules = range_in_order();
        let rules = rules["then"]["allOf"].as_array().expect("the rules");
        assert_eq!(rules.len(), thresholds.len());
        assert_eq!(
            rules[0]["not"]["properties"]["max"]["exclusiveMaximum"],
            i64::MIN
        );
    }

    #[test]
    fn the_parser_accepts_exactly_the_keys_the_schema_lists() {
        let schema = hook_table_schema::<Ev>(|_| String::new());
        // Sorted: the schema's order is HOOK_KEYS' only with serde_json's
        // `preserve_order`, which this crate leaves to the embedder.
        let mut listed: Vec<&str> = schema["properties"]
            .as_object()
            .expect("properties is an object")
            .keys()
            .map(String::as_str)
            .collect();
        listed.sort_unstable();
        assert!(listed.contains(&"on") && listed.contains(&"timeout_ms"));
        for key in &listed {
            let kind = kind_for(key);
            assert!(
                !matches!(kind, TableErrorKind::UnknownKey { .. }),
                "`{key}` is in the schema but the parser refuses it as unknown"
            );
        }
        let near_misses = [
            "command",
            "timeout",
            "On",
            "on_failur",
            "appendd",
            "runs",
            "",
        ];
        for key in listed
            .iter()
            .map(|k| format!("{k}_"))
            .chain(near_misses.map(String::from))
        {
            match kind_for(&key) {
                TableErrorKind::UnknownKey { expected, .. } => {
                    let mut expected = expected.clone();
                    expected.sort_unstable();
                    assert_eq!(expected, listed);
                }
                other => panic!("`{key}` is not in the schema but the parser took it: {other:?}"),
            }
        }
    }
}
