//! The one rule that ends a run at a step boundary, shared by the run loop
//! and [`replay`](crate::replay::replay), so `io run` and `io replay` can
//! never again disagree about a cancel raised in the last step.

/// How a run ends at a step boundary, or `None` when it goes on.
///
/// `cancel_pending`: an observer answered [`Flow::Cancel`](io_hooks::Flow)
/// to an event since the run started (it is never taken back). `natural`:
/// how the run would end here without it (the model answered; a replay's
/// input ended), or `None` when another step follows. A pending cancel wins
/// over the natural ending, the last step's included: the step finishes,
/// and the run ends `cancelled`.
pub(crate) fn ending<O>(cancel_pending: bool, cancelled: O, natural: Option<O>) -> Option<O> {
    if cancel_pending {
        Some(cancelled)
    } else {
        natural
    }
}

#[cfg(test)]
mod tests {
    use super::ending;

    #[test]
    fn a_pending_cancel_wins_over_the_natural_ending_and_otherwise_changes_nothing() {
        assert_eq!(
            ending(true, "cancelled", Some("completed")),
            Some("cancelled")
        );
        assert_eq!(ending(true, "cancelled", None), Some("cancelled"));
        assert_eq!(
            ending(false, "cancelled", Some("completed")),
            Some("completed")
        );
        assert_eq!(ending(false, "cancelled", None), None);
    }
}
