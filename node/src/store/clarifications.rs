//! The asker's clarifications (`QuestionClarified`), as the watcher saw them.
//!
//! Stored in the scan's transaction with the questions, submissions and cursor
//! ([`Store::record_scan_with`]), unique by (question, index), so a re-read overlap inserts
//! nothing twice and a crash never moves the cursor past a clarification it did not keep: a
//! clarification missing from a bundle would change what the jurors saw and the root.

use alloy::primitives::{Bytes, U256};
use rusqlite::{Transaction, params};

pub use crate::watcher::events::StoredClarification;

use super::{
    Store, StoreError,
    sql::{Dec, RowReader, collect},
};

const COLUMNS: &[&str] = &["question_id", "idx", "text", "block_number", "log_index"];

fn from_row(row: &rusqlite::Row<'_>) -> Result<StoredClarification, StoreError> {
    let r = RowReader::new(row, "clarifications", COLUMNS);
    Ok(StoredClarification {
        question_id: r.get::<Dec<U256>>(0)?.0,
        index: r.get(1)?,
        text: Bytes::from(r.get::<Vec<u8>>(2)?),
        block_number: r.get(3)?,
        log_index: r.get(4)?,
    })
}

/// Insert `clarifications` in the scan's transaction; returns how many were new.
pub(super) fn insert_clarifications(
    tx: &Transaction<'_>,
    clarifications: &[StoredClarification],
) -> Result<usize, StoreError> {
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO clarifications (question_id, idx, text, block_number, log_index) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut new = 0;
    for c in clarifications {
        new += stmt.execute(params![
            Dec(c.question_id),
            c.index,
            c.text.as_ref(),
            c.block_number,
            c.log_index,
        ])?;
    }
    Ok(new)
}

impl Store {
    /// The stored clarifications of question `id`, by index.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn clarifications(&self, id: U256) -> Result<Vec<StoredClarification>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {} FROM clarifications WHERE question_id = ?1 ORDER BY idx",
            COLUMNS.join(", ")
        ))?;
        let rows = stmt.query([Dec(id)])?;
        collect(rows, from_row)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn clarification(id: u64, index: u64, text: &[u8]) -> StoredClarification {
        StoredClarification {
            question_id: U256::from(id),
            index,
            text: Bytes::copy_from_slice(text),
            block_number: 10 + index,
            log_index: 0,
        }
    }

    #[test]
    fn clarifications_are_kept_once_in_order_and_as_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let first = [
            clarification(1, 2, b"second"),
            clarification(1, 1, b"first"),
        ];
        store.record_scan_with(&[], &[], &first, 12).unwrap();
        // A re-read overlap, and a clarification that is not UTF-8.
        let again = [
            clarification(1, 1, b"first"),
            clarification(1, 3, &[0xff, 0xfe]),
        ];
        store.record_scan_with(&[], &[], &again, 13).unwrap();
        let stored = store.clarifications(U256::from(1)).unwrap();
        let texts: Vec<&[u8]> = stored.iter().map(|c| c.text.as_ref()).collect();
        assert_eq!(texts, [&b"first"[..], b"second", &[0xff, 0xfe]]);
        assert!(store.clarifications(U256::from(2)).unwrap().is_empty());
    }
}
