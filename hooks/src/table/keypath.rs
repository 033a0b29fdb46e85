//! Key path segments serde_path_to_error could not name, named from the
//! document.
//!
//! serde_path_to_error names a map's key by watching it arrive as a string.
//! A key read any other way (a [`Spanned`] key, which arrives
//! as a map of its span and value; an enum key) reaches it as no string, and
//! its path holds an unknown segment there. Rather than drop that segment
//! (`pipeline.retries` for `pipeline.check.retries`), the key is found in
//! the parsed document: the one key at that point under which the rest of
//! the path exists and leads to where the error is.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::position::KeySegment;

/// `segments` with each [`KeySegment::Unknown`] replaced by the key of
/// `document` it stands for: the only one under which the rest of the path
/// exists and, when the error has a position (`offset`), leads to a key or
/// value at or around it. An unknown segment that no key, or more than one,
/// would fit is left unknown.
pub(super) fn resolve(
    segments: Vec<KeySegment>,
    document: &DeTable<'_>,
    offset: Option<usize>,
) -> Vec<KeySegment> {
    if !segments.contains(&KeySegment::Unknown) {
        return segments;
    }
    let mut out = Vec::with_capacity(segments.len());
    // Recursion as deep as the path: serde_path_to_error's own reading of
    // the value recursed once per segment already.
    if walk(Node::Table(document), &segments, offset, &mut out) {
        out
    } else {
        segments
    }
}

/// A place in the document: the top level, or a value with its key's span.
#[derive(Clone)]
enum Node<'a, 'i> {
    Table(&'a DeTable<'i>),
    Value(&'a Spanned<DeValue<'i>>, Option<Range<usize>>),
}

impl<'a, 'i> Node<'a, 'i> {
    fn table(&self) -> Option<&'a DeTable<'i>> {
        match self {
            Node::Table(table) => Some(table),
            Node::Value(value, _) => match value.get_ref() {
                DeValue::Table(table) => Some(table),
                _ => None,
            },
        }
    }

    /// Whether the node's key, its value, or anything inside it holds
    /// `offset`. A table's own span is its header only, so what it holds is
    /// searched too; with a stack, as TOML's nesting need not bound it.
    fn holds(&self, offset: usize) -> bool {
        let mut stack = vec![self.clone()];
        while let Some(node) = stack.pop() {
            if let Node::Value(value, key) = &node {
                let within =
                    |r: &Range<usize>| r.start <= offset && offset < r.end.max(r.start + 1);
                if key.as_ref().is_some_and(within) || within(&value.span()) {
                    return true;
                }
                if let DeValue::Array(items) = value.get_ref() {
                    stack.extend(items.iter().map(|item| Node::Value(item, None)));
                }
            }
            if let Some(table) = node.table() {
                stack.extend(table.iter().map(|(k, v)| Node::Value(v, Some(k.span()))));
            }
        }
        false
    }
}

/// Follows `segments` from `node`, pushing each key onto `out`; whether the
/// whole path exists (and holds `offset`, when given).
fn walk(
    node: Node<'_, '_>,
    segments: &[KeySegment],
    offset: Option<usize>,
    out: &mut Vec<KeySegment>,
) -> bool {
    let Some((first, rest)) = segments.split_first() else {
        return offset.is_none_or(|o| node.holds(o));
    };
    let child = match first {
        KeySegment::Key(name) => node.table().and_then(|table| {
            table
                .iter()
                .find(|(k, _)| k.get_ref() == name)
                .map(|(k, v)| Node::Value(v, Some(k.span())))
        }),
        KeySegment::Nth(n) => match node {
            Node::Value(value, _) => match value.get_ref() {
                DeValue::Array(items) => n
                    .checked_sub(1)
                    .and_then(|i| items.get(i))
                    .map(|v| Node::Value(v, None)),
                _ => None,
            },
            Node::Table(_) => None,
        },
        KeySegment::Unknown => return walk_unknown(node, rest, offset, out),
    };
    let Some(child) = child else {
        return false;
    };
    out.push(first.clone());
    let found = walk(child, rest, offset, out);
    if !found {
        out.pop();
    }
    found
}

/// An unknown segment at `node`: the one key of its table under which
/// `rest` can be followed.
fn walk_unknown(
    node: Node<'_, '_>,
    rest: &[KeySegment],
    offset: Option<usize>,
    out: &mut Vec<KeySegment>,
) -> bool {
    let Some(table) = node.table() else {
        return false;
    };
    let mut found: Option<Vec<KeySegment>> = None;
    for (key, value) in table {
        let mut tail = vec![KeySegment::Key(key.get_ref().to_string())];
        if walk(
            Node::Value(value, Some(key.span())),
            rest,
            offset,
            &mut tail,
        ) {
            if found.is_some() {
                return false;
            }
            found = Some(tail);
        }
    }
    match found {
        Some(tail) => {
            out.extend(tail);
            true
        }
        None => false,
    }
}
