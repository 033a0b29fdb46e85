//! `RunEvent` as it was serialised before its hand-written `Serialize`: the
//! reference the bench measures it against and the harness's tests compare
//! its bytes with (`tests/events_schema.rs` includes this file by path).

use io_harness::{EventKind, RunEvent};

/// `RunEvent` as it was serialised before its hand-written `Serialize`:
/// serde's derive with the kind `#[serde(flatten)]`ed in front of the
/// envelope. The same bytes (`tests/events_schema.rs` proves it); the
/// baseline of the `serialise/flattened` bench.
#[derive(serde::Serialize)]
pub struct Flattened<'a> {
    #[serde(flatten)]
    kind: &'a EventKind,
    run_id: &'a str,
    depth: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    seq: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<&'a str>,
}

impl<'a> From<&'a RunEvent> for Flattened<'a> {
    fn from(e: &'a RunEvent) -> Self {
        Flattened {
            kind: &e.kind,
            run_id: &e.run_id,
            depth: e.depth,
            seq: e.seq,
            at: e.at.as_deref(),
        }
    }
}
