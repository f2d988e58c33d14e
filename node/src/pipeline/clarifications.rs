//! The asker's clarifications as the resolver takes them: the question's stored
//! `QuestionClarified` texts, in order ([`QuestionInput::clarifications`](super::QuestionInput)).
//!
//! A clarification that is not UTF-8 cannot be shown to a juror as text nor committed as a JSON
//! string, so it fails its question (permanently: the contract never changes it); a gap in the
//! numbering means the watcher missed a log, which the next page read repairs.

use alloy::primitives::U256;

use super::ResolveError;
use crate::store::{Store, StoreError};

/// Why a question's clarifications cannot be used now.
#[derive(Debug, thiserror::Error)]
pub enum ClarificationError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A clarification, or the numbering, cannot be used (see [`ResolveError::retryable`]).
    #[error(transparent)]
    Unusable(#[from] ResolveError),
}

/// The clarifications of question `id`, texts by index 1..=c.
///
/// # Errors
/// [`ClarificationError::Unusable`]: permanent for a text that is not UTF-8, retryable for a
/// gap in the numbering; [`ClarificationError::Store`].
pub fn for_question(store: &Store, id: U256) -> Result<Vec<String>, ClarificationError> {
    let stored = store.clarifications(id)?;
    let mut texts = Vec::with_capacity(stored.len());
    for (expected, c) in (1u64..).zip(&stored) {
        if c.index != expected {
            return Err(ResolveError {
                retryable: true,
                reason: format!(
                    "clarification {expected} is not stored yet (found {})",
                    c.index
                ),
            }
            .into());
        }
        let text = std::str::from_utf8(&c.text).map_err(|e| {
            ResolveError::permanent(format!(
                "clarification {} is not valid UTF-8 (invalid byte at offset {}): it cannot be shown to jurors as text",
                c.index,
                e.valid_up_to()
            ))
        })?;
        texts.push(text.to_owned());
    }
    Ok(texts)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use alloy::primitives::Bytes;

    use super::*;
    use crate::store::StoredClarification;

    fn stored(index: u64, text: &[u8]) -> StoredClarification {
        StoredClarification {
            question_id: U256::from(1),
            index,
            text: Bytes::copy_from_slice(text),
            block_number: 5,
            log_index: index,
        }
    }

    fn store_with(clarifications: &[StoredClarification]) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store.record_scan_with(&[], &[], clarifications, 6).unwrap();
        (dir, store)
    }

    #[test]
    fn texts_come_in_order() {
        let (_dir, store) = store_with(&[stored(2, b"<b>two</b>"), stored(1, b"one")]);
        let texts = for_question(&store, U256::from(1)).unwrap();
        assert_eq!(texts, ["one", "<b>two</b>"]);
        assert!(for_question(&store, U256::from(2)).unwrap().is_empty());
    }

    #[test]
    fn a_text_that_is_not_utf8_fails_its_question_for_good() {
        let (_dir, store) = store_with(&[stored(1, b"ok"), stored(2, &[b'a', 0xff])]);
        let Err(ClarificationError::Unusable(e)) = for_question(&store, U256::from(1)) else {
            panic!("accepted");
        };
        assert!(!e.retryable);
        assert!(
            e.reason.contains("clarification 2 is not valid UTF-8"),
            "{e}"
        );
    }

    #[test]
    fn a_gap_waits_for_the_watcher() {
        let (_dir, store) = store_with(&[stored(2, b"two")]);
        let Err(ClarificationError::Unusable(e)) = for_question(&store, U256::from(1)) else {
            panic!("accepted");
        };
        assert!(e.retryable, "{e}");
    }
}
