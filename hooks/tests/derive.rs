//! What `#[derive(HookEvents)]` generates, proved on this crate's own small
//! enums: the tag table, `kind`, `from_tag`, `DOCS`, `COSTS`, `tag()`, and the
//! `HookFilter` built on them, up to the 64-variant limit.

use io_hooks::{Cost, HookEvents, HookFilter, Kind, MAX_EVENTS};
use serde::{Deserialize, Serialize};

/// One variant of each shape, tagged with `#[hook(tag)]` only.
#[derive(Debug, HookEvents)]
#[expect(dead_code, reason = "the payloads only give each variant its shape")]
enum Shapes {
    /// A unit variant.
    #[hook(tag = "unit")]
    Unit,
    /// A tuple variant,
    /// documented over two lines.
    ///
    /// A second paragraph, which `DOCS` leaves out.
    #[hook(tag = "tuple")]
    Tuple(u32, String),
    #[hook(tag = "named")]
    Named { x: i64, y: i64 },
    ///
    /// After a blank first line.
    #[hook(tag = "empty_tuple")]
    EmptyTuple(),
    /** A block comment
    over two lines.

    Not this paragraph. */
    #[hook(tag = "empty_named")]
    EmptyNamed {},
}

fn every_shape() -> [Shapes; 5] {
    [
        Shapes::Unit,
        Shapes::Tuple(7, "seven".to_owned()),
        Shapes::Named { x: 1, y: -1 },
        Shapes::EmptyTuple(),
        Shapes::EmptyNamed {},
    ]
}

#[test]
fn tags_are_in_declaration_order() {
    assert_eq!(
        Shapes::TAGS,
        ["unit", "tuple", "named", "empty_tuple", "empty_named"]
    );
}

/// Where `kind` stands in declaration order.
fn position<E: HookEvents>(kind: Kind<E>) -> Option<usize> {
    Kind::<E>::all().position(|k| k == kind)
}

#[test]
fn kind_matches_every_variant_shape() {
    let positions: Vec<Option<usize>> = every_shape().iter().map(|e| position(e.kind())).collect();
    assert_eq!(positions, [Some(0), Some(1), Some(2), Some(3), Some(4)]);
}

#[test]
fn tag_is_the_variants_own_tag() {
    let tags: Vec<&str> = every_shape().iter().map(HookEvents::tag).collect();
    assert_eq!(tags, Shapes::TAGS);
}

#[test]
fn from_tag_finds_each_tag_at_its_index() {
    for event in every_shape() {
        assert_eq!(
            Shapes::from_tag(event.tag()),
            Some(event.kind()),
            "{event:?}"
        );
    }
}

#[test]
fn from_tag_is_exact_and_case_sensitive() {
    assert_eq!(Shapes::from_tag("named").and_then(position), Some(2));
    for near_miss in [
        "Named", "NAMED", "named ", " named", "name", "named_", "", "Unit",
    ] {
        assert_eq!(Shapes::from_tag(near_miss), None, "{near_miss:?}");
    }
}

#[test]
fn docs_are_each_first_paragraph_with_lines_joined() {
    assert_eq!(
        Shapes::DOCS,
        [
            "A unit variant.",
            "A tuple variant, documented over two lines.",
            "",
            "After a blank first line.",
            "A block comment over two lines.",
        ]
    );
}

#[test]
fn filter_from_names_holds_exactly_those_names() {
    let filter = HookFilter::<Shapes>::from_names(["named", "unit"]).expect("both are tags");
    let held: Vec<bool> = every_shape().iter().map(|e| filter.contains(e)).collect();
    assert_eq!(held, [true, false, true, false, false]);
    assert_eq!(filter.tags().collect::<Vec<_>>(), ["unit", "named"]);
    assert_eq!(filter.len(), 2);
}

#[test]
fn filter_from_names_refuses_a_name_that_is_not_a_tag() {
    let err = HookFilter::<Shapes>::from_names(["unit", "Unit"]).unwrap_err();
    assert_eq!(err.name, "Unit");
    assert_eq!(err.expected, Shapes::TAGS);
}

#[test]
fn all_and_empty_cover_exactly_the_variants() {
    let all = HookFilter::<Shapes>::ALL;
    assert!(every_shape().iter().all(|e| all.contains(e)));
    assert_eq!(all.len(), Shapes::TAGS.len());

    let empty = HookFilter::<Shapes>::EMPTY;
    assert!(empty.is_empty());
    assert!(!every_shape().iter().any(|e| empty.contains(e)));
}

// 64 variants through `macro_rules!`, which is also how a crate would build
// a large event enum: the tags arrive as `$tag:literal` fragments.
macro_rules! sixty_four {
    ($($variant:ident = $tag:literal),* $(,)?) => {
        #[derive(Debug, Clone, Copy, HookEvents)]
        enum SixtyFour {
            $(#[hook(tag = $tag)] $variant,)*
        }

        const EVERY: &[SixtyFour] = &[$(SixtyFour::$variant),*];
    };
}

sixty_four! {
    V00 = "v00", V01 = "v01", V02 = "v02", V03 = "v03", V04 = "v04", V05 = "v05", V06 = "v06",
    V07 = "v07", V08 = "v08", V09 = "v09", V10 = "v10", V11 = "v11", V12 = "v12", V13 = "v13",
    V14 = "v14", V15 = "v15", V16 = "v16", V17 = "v17", V18 = "v18", V19 = "v19", V20 = "v20",
    V21 = "v21", V22 = "v22", V23 = "v23", V24 = "v24", V25 = "v25", V26 = "v26", V27 = "v27",
    V28 = "v28", V29 = "v29", V30 = "v30", V31 = "v31", V32 = "v32", V33 = "v33", V34 = "v34",
    V35 = "v35", V36 = "v36", V37 = "v37", V38 = "v38", V39 = "v39", V40 = "v40", V41 = "v41",
    V42 = "v42", V43 = "v43", V44 = "v44", V45 = "v45", V46 = "v46", V47 = "v47", V48 = "v48",
    V49 = "v49", V50 = "v50", V51 = "v51", V52 = "v52", V53 = "v53", V54 = "v54", V55 = "v55",
    V56 = "v56", V57 = "v57", V58 = "v58", V59 = "v59", V60 = "v60", V61 = "v61", V62 = "v62",
    V63 = "v63",
}

#[test]
fn sixty_four_variants_fill_the_word_without_overflow() {
    assert_eq!(SixtyFour::TAGS.len(), MAX_EVENTS);
    assert_eq!(position(SixtyFour::V63.kind()), Some(63));
    assert_eq!(SixtyFour::from_tag("v63"), Some(SixtyFour::V63.kind()));

    // `len` counts the bits: 64 set bits is `u64::MAX`, computed without
    // the `1 << 64` that would overflow.
    let all = HookFilter::<SixtyFour>::ALL;
    assert_eq!(all.len(), 64);
    assert!(all.is_all());
    assert!(EVERY.iter().all(|e| all.contains(e)));
    assert_eq!(all.tags().count(), 64);

    let empty = HookFilter::<SixtyFour>::EMPTY;
    assert!(empty.is_empty());
    assert!(!EVERY.iter().any(|e| empty.contains(e)));

    let last = HookFilter::<SixtyFour>::from_names(["v63"]).expect("a tag");
    assert!(last.contains(&SixtyFour::V63));
    assert!(!last.contains(&SixtyFour::V62));
    assert_eq!(
        last.union(HookFilter::only(SixtyFour::V00.kind()))
            .tags()
            .collect::<Vec<_>>(),
        ["v00", "v63"]
    );
}

/// An enum serde serialises, tagged on `event` as `RunEvent` is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, HookEvents)]
#[serde(tag = "event")]
enum Wire {
    #[serde(rename = "began")]
    Began,
    #[serde(rename = "tool_call")]
    ToolCall { tool: String, step: u32 },
    #[serde(rename = "wrapped")]
    Wrapped(Inner),
    #[serde(rename(serialize = "ended", deserialize = "ended"))]
    #[hook(tag = "ended")]
    Ended { ok: bool },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Inner {
    note: String,
}

#[test]
fn the_tag_is_what_serde_writes_and_reads_back() {
    let events = [
        Wire::Began,
        Wire::ToolCall {
            tool: "exec".to_owned(),
            step: 3,
        },
        Wire::Wrapped(Inner {
            note: "n".to_owned(),
        }),
        Wire::Ended { ok: true },
    ];
    for event in events {
        let json = serde_json::to_value(&event).expect("serialises");
        assert_eq!(json["event"], event.tag(), "{json}");
        let back: Wire = serde_json::from_value(json).expect("deserialises");
        assert_eq!(back, event);
    }
    assert_eq!(Wire::TAGS, ["began", "tool_call", "wrapped", "ended"]);
}

/// Generic parameters, bounded as the `'static` trait requires.
#[derive(HookEvents)]
#[expect(dead_code, reason = "the payloads only give each variant its shape")]
enum Generic<'a, T> {
    #[hook(tag = "value")]
    Value(T),
    #[hook(tag = "text")]
    Text(&'a str),
}

#[test]
fn a_generic_enum_gets_the_same_registry() {
    assert_eq!(Generic::<'static, u8>::TAGS, ["value", "text"]);
    assert_eq!(position(Generic::<u8>::Text("t").kind()), Some(1));
    assert_eq!(Generic::<'_, u8>::Value(1).tag(), "value");
}

#[derive(HookEvents)]
enum Nothing {}

#[test]
fn an_empty_enum_has_no_tags_and_an_empty_all() {
    assert!(Nothing::TAGS.is_empty());
    assert!(Nothing::DOCS.is_empty());
    assert_eq!(Nothing::from_tag(""), None);
    assert!(HookFilter::<Nothing>::ALL.is_empty());
}

/// Each class once, in an order unlike `Cost`'s, one variant declaring none,
/// and a cost written beside a serde rename.
#[derive(Serialize, HookEvents)]
#[serde(tag = "event")]
#[expect(dead_code, reason = "only the generated tables are read")]
enum Costed {
    #[serde(rename = "done")]
    #[hook(cost = "per_invocation")]
    Done,
    #[serde(rename = "quiet")]
    Quiet,
    #[serde(rename = "token")]
    #[hook(cost = "per_item")]
    Token,
    #[serde(rename = "odd")]
    #[hook(cost = "rare")]
    Odd,
    #[hook(cost = "per_unit", tag = "step")]
    #[serde(rename = "step")]
    Step,
}

#[test]
fn costs_follow_each_variants_own_attribute() {
    assert_eq!(
        Costed::COSTS,
        [
            Some(Cost::PerInvocation),
            None,
            Some(Cost::PerItem),
            Some(Cost::Rare),
            Some(Cost::PerUnit),
        ]
    );
    assert_eq!(Costed::COSTS.len(), Costed::TAGS.len());
    // The attribute names no tag: serde's rename still decides it.
    assert_eq!(Costed::TAGS, ["done", "quiet", "token", "odd", "step"]);
    assert_eq!(Costed::Token.tag(), "token");
}

#[test]
fn without_a_cost_attribute_every_cost_is_none() {
    assert_eq!(Shapes::COSTS, [None; 5]);
    assert!(Nothing::COSTS.is_empty());
}

#[test]
fn a_cost_reads_as_words_and_serialises_in_snake_case() {
    let classes = [
        Cost::PerItem,
        Cost::PerUnit,
        Cost::PerInvocation,
        Cost::Rare,
    ];
    let words: Vec<&str> = classes.iter().map(|c| c.as_str()).collect();
    assert_eq!(words, ["per item", "per unit", "per invocation", "rare"]);
    let json = serde_json::to_string(&classes).expect("serialises");
    assert_eq!(json, r#"["per_item","per_unit","per_invocation","rare"]"#);
}

/// Why the derive refuses such a newtype under `#[serde(tag)]` (the trybuild
/// case `internal-tag-newtype-not-a-map`): serde itself cannot write it, and
/// a struct newtype it can.
#[test]
fn serde_cannot_write_a_string_or_number_newtype_beside_an_internal_tag() {
    #[derive(Serialize)]
    #[serde(tag = "event")]
    enum Plain {
        Text(String),
        Number(u32),
        Missing(Option<Inner>),
        Struct(Inner),
    }
    for refused in [
        Plain::Text("t".to_owned()),
        Plain::Number(1),
        Plain::Missing(None),
    ] {
        assert!(serde_json::to_string(&refused).is_err());
    }
    let written = Plain::Struct(Inner {
        note: "n".to_owned(),
    });
    assert_eq!(
        serde_json::to_string(&written).expect("a struct is a map"),
        r#"{"event":"Struct","note":"n"}"#
    );
}

/// `Kind::named` is what a `const` names a kind with; called at run time it
/// does the same, so each tag is found at its own position, including tags
/// of the same length as an earlier one (`step` after `done`).
#[test]
fn named_finds_each_tag_at_its_own_position() {
    for (i, tag) in Costed::TAGS.iter().enumerate() {
        let kind = Kind::<Costed>::named(tag);
        assert_eq!(position(kind), Some(i), "{tag}");
        assert_eq!(kind.tag(), *tag);
    }
    assert_eq!(Kind::<Costed>::named("step"), Costed::Step.kind());
}

/// The documented panic, for a tag the enum does not have (in a `const`,
/// the same panic is a compile error): it names the tag it was given and
/// every tag the enum has, so the mistake is seen without the source.
#[test]
#[should_panic(expected = "Kind::named: no event of this enum has the tag `Token`; \
                           expected one of `done`, `quiet`, `token`, `odd`, `step`")]
fn named_panics_naming_the_tag_and_the_choices() {
    let _ = Kind::<Costed>::named("Token");
}

/// The message is built without allocating (it must be, in a `const fn`):
/// a tag too long for its buffer is cut with `…` at a character boundary,
/// and a control character is shown as `?`, never written to the terminal.
#[test]
fn named_panic_message_is_cut_and_escaped() {
    let long = format!("\u{1b}[2J{}", "é".repeat(2000));
    let payload =
        std::panic::catch_unwind(|| Kind::<Costed>::named(&long)).expect_err("no such tag");
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .expect("a text payload");
    assert!(
        message.starts_with("Kind::named: no event of this enum has the tag `?[2Jé"),
        "{message}"
    );
    assert!(message.ends_with("é…"), "{message}");
    assert!(message.len() <= 1024, "{}", message.len());
}

#[test]
fn a_kind_reads_its_own_variants_doc_and_cost() {
    let tuple = Kind::<Shapes>::named("tuple");
    assert_eq!(tuple.doc(), "A tuple variant, documented over two lines.");
    assert_eq!(Kind::<Shapes>::named("named").doc(), "");
    let docs: Vec<&str> = Kind::<Shapes>::all().map(Kind::doc).collect();
    assert_eq!(docs, Shapes::DOCS);

    assert_eq!(Costed::Token.kind().cost(), Some(Cost::PerItem));
    assert_eq!(Costed::Quiet.kind().cost(), None);
    let costs: Vec<Option<Cost>> = Kind::<Costed>::all().map(Kind::cost).collect();
    assert_eq!(costs, Costed::COSTS);
}

#[test]
fn a_kind_debugs_as_its_tag() {
    assert_eq!(format!("{:?}", Costed::Token.kind()), "Kind(token)");
    assert_eq!(format!("{:?}", Kind::<Shapes>::named("unit")), "Kind(unit)");
}

/// Kinds key maps and sets: equal kinds hash alike, and distinct ones do
/// not all hash alike (which would put every kind in one bucket).
#[test]
fn kinds_hash_as_the_variant_they_name() {
    use std::collections::HashSet;
    use std::hash::BuildHasher;
    let state = std::hash::RandomState::new();
    let hashes: HashSet<u64> = Kind::<Costed>::all().map(|k| state.hash_one(k)).collect();
    assert_eq!(hashes.len(), Costed::TAGS.len());
    assert_eq!(
        state.hash_one(Costed::Token.kind()),
        state.hash_one(Kind::<Costed>::named("token"))
    );
    let set: HashSet<Kind<Costed>> = Kind::all().chain(Kind::all()).collect();
    assert_eq!(set.len(), Costed::TAGS.len());
}
