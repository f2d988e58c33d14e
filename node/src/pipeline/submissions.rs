//! On-chain submissions as the resolver takes them: the question's stored items as
//! [`QuestionInput::submissions`](super::QuestionInput::submissions), which the report records
//! under its `submissions` key. The gate that holds a final run back until they are all known
//! is the daemon's (`daemon::gate`).

use alloy::primitives::U256;

use crate::{
    evidence::onchain::ChainSubmission,
    store::{Store, StoreError, StoredSubmission},
};

/// The report-side form of a stored submission.
pub fn chain_submission(s: &StoredSubmission) -> ChainSubmission {
    ChainSubmission::from_bytes(
        s.index,
        s.submitter,
        &s.url,
        &s.title,
        &s.snippet,
        s.prev_head,
        s.evidence_head,
        s.block_number,
        s.log_index,
    )
}

/// The question's stored submissions, by index.
///
/// # Errors
/// [`StoreError`].
pub fn for_question(store: &Store, id: U256) -> Result<Vec<ChainSubmission>, StoreError> {
    Ok(store
        .submissions(id)?
        .iter()
        .map(chain_submission)
        .collect())
}
