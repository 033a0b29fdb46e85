//! Where a run is, as its journal says: what a resume starts from.

use super::outcome::RunError;
use super::store::Record;
use crate::event::Outcome;

/// Where a run is: what the journal holds of it.
#[derive(Default)]
pub(super) struct State {
    pub(super) observations: Vec<String>,
    /// Steps in a row that moved nothing.
    pub(super) idle: u32,
    pub(super) next_seq: u64,
    /// The tokens drawn by the steps committed.
    pub(super) tokens_used: u64,
}

impl State {
    /// Where the journal of run `run_id` leaves it.
    pub(super) fn from_journal(run_id: &str, records: &[Record]) -> Result<State, RunError> {
        let mut state = State::default();
        for record in records {
            match record {
                Record::Step {
                    observation,
                    moved_the_workspace,
                    next_seq,
                    tokens_used,
                    ..
                } => {
                    state.observations.push(observation.clone());
                    state.tokens_used = *tokens_used;
                    state.idle = if *moved_the_workspace {
                        0
                    } else {
                        state.idle + 1
                    };
                    state.next_seq = state.next_seq.max(*next_seq);
                }
                // Every event but `finished` was emitted before `End` was
                // written, and `finished` is counted in it: exact, so a
                // resume after a clean ending continues without a gap.
                Record::End {
                    outcome: Outcome::Completed,
                    ..
                } => return Err(RunError::AlreadyCompleted(run_id.to_owned())),
                Record::End { next_seq, .. } => state.next_seq = *next_seq,
                // After a crash, events up to the reservation may have been
                // seen: the resume starts past all of them.
                Record::Reserve { next_seq } => state.next_seq = state.next_seq.max(*next_seq),
                Record::Begin { .. } => {}
            }
        }
        Ok(state)
    }
}
