//! A byte string scanned for a byte of one kind, on the per-event path.

/// Whether any byte of `bytes` is one `hit` takes. Every byte is looked
/// at, `N` at a time with no early exit, so that the compiler can compare
/// a whole block at once: the last `N` bytes again for the rest (no copy),
/// or, in a string shorter than `N`, its bytes padded with `pad`, a byte
/// `hit` never takes ([`short`]).
#[inline]
pub(crate) fn any_byte<const N: usize>(bytes: &[u8], pad: u8, hit: impl Fn(u8) -> bool) -> bool {
    let Some(last) = bytes.len().checked_sub(N) else {
        return short::<N>(bytes, pad, hit);
    };
    let block = |block: &[u8]| block.iter().fold(false, |seen, &b| seen | hit(b));
    let mut chunks = bytes.chunks_exact(N);
    let mut seen = false;
    for chunk in &mut chunks {
        seen |= block(chunk);
    }
    seen | block(&bytes[last..])
}

/// [`any_byte`] of a string shorter than `N`, padded to `N` with `pad`.
/// Out of line: inlined, it cost the long path eight instructions of 60
/// (a 150-byte line, `N` = 32, callgrind).
#[inline(never)]
fn short<const N: usize>(bytes: &[u8], pad: u8, hit: impl Fn(u8) -> bool) -> bool {
    debug_assert!(!hit(pad), "the padding is a byte `hit` never takes");
    let mut padded = [pad; N];
    padded[..bytes.len()].copy_from_slice(bytes);
    padded.iter().fold(false, |seen, &b| seen | hit(b))
}
