//! Commit-reveal commitments: the salt, the exact report committed to and the commitment of
//! a question, saved before the `commitReport` transaction is signed.
//!
//! The first commitment saved for a question wins (like the post intent): a restart finds it
//! and reveals that report with that salt; a second salt is never drawn. The salt is a secret
//! until the reveal is mined, so [`SavedCommit`]'s `Debug` leaves it out.

use alloy::primitives::{Address, B256, I256, U256};
use rusqlite::params;

use crate::commitment::root::Root;

use super::{
    Store, StoreError,
    sql::{Dec, Hex, RowReader, collect},
};

/// A saved commitment: what `commitReport` sent (or will send) and `revealReport` reveals.
#[derive(Clone, PartialEq, Eq)]
pub struct SavedCommit {
    /// Question id.
    pub question_id: U256,
    /// The operator the commitment binds.
    pub operator: Address,
    /// Evidence Merkle root.
    pub merkle_root: Root,
    /// Valid ballots (n_YES, n_NO, n_NULL).
    pub counts: [u16; 3],
    /// 1e18-scaled Fleiss' kappa.
    pub kappa: I256,
    /// Routing escalated it.
    pub escalated: bool,
    /// The report says "not yet".
    pub not_yet: bool,
    /// The secret salt (never logged before the reveal is mined).
    pub salt: B256,
    /// `reportCommitment(question_id, operator, ..., salt)`.
    pub commitment: B256,
}

impl std::fmt::Debug for SavedCommit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SavedCommit")
            .field("question_id", &self.question_id)
            .field("operator", &self.operator)
            .field("merkle_root", &self.merkle_root)
            .field("counts", &self.counts)
            .field("kappa", &self.kappa)
            .field("escalated", &self.escalated)
            .field("not_yet", &self.not_yet)
            .field("salt", &"<secret>")
            .field("commitment", &self.commitment)
            .finish()
    }
}

const COLUMNS: &[&str] = &[
    "question_id",
    "operator",
    "merkle_root",
    "n_yes",
    "n_no",
    "n_null",
    "kappa",
    "escalated",
    "salt",
    "commitment",
    "not_yet",
];

fn from_row(row: &rusqlite::Row<'_>) -> Result<SavedCommit, StoreError> {
    let r = RowReader::new(row, "commitments", COLUMNS);
    Ok(SavedCommit {
        question_id: r.get::<Dec<U256>>(0)?.0,
        operator: r.get::<Hex<Address>>(1)?.0,
        merkle_root: r.get::<Root>(2)?,
        counts: [r.get(3)?, r.get(4)?, r.get(5)?],
        kappa: r.get::<Dec<I256>>(6)?.0,
        escalated: r.get(7)?,
        salt: r.get::<Hex<B256>>(8)?.0,
        commitment: r.get::<Hex<B256>>(9)?.0,
        not_yet: r.get(10)?,
    })
}

impl Store {
    /// Save a question's commitment; the first one wins: a second call for the same question
    /// keeps the first and returns it.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn save_commit(&self, commit: &SavedCommit) -> Result<SavedCommit, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT OR IGNORE INTO commitments (question_id, operator, merkle_root, n_yes, n_no, \
             n_null, kappa, escalated, salt, commitment, created_at, not_yet) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                Dec(commit.question_id),
                Hex(commit.operator),
                commit.merkle_root,
                commit.counts[0],
                commit.counts[1],
                commit.counts[2],
                Dec(commit.kappa),
                commit.escalated,
                Hex(commit.salt),
                Hex(commit.commitment),
                self.now_ms(),
                commit.not_yet,
            ],
        )?;
        let saved = {
            let mut stmt = tx.prepare_cached(&select())?;
            let rows = stmt.query([Dec(commit.question_id)])?;
            collect(rows, from_row)?
                .into_iter()
                .next()
                .ok_or(rusqlite::Error::QueryReturnedNoRows)?
        };
        tx.commit()?;
        Ok(saved)
    }

    /// The saved commitment of a question.
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] naming the row and column that does not parse.
    pub fn commit(&self, question_id: U256) -> Result<Option<SavedCommit>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&select())?;
        let rows = stmt.query([Dec(question_id)])?;
        Ok(collect(rows, from_row)?.into_iter().next())
    }

    /// Every saved commitment, oldest first (tests read a node's state through this; see
    /// [`Store::open_read_only`]).
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] naming the row and column that does not parse.
    #[cfg(any(test, feature = "test-utils"))]
    pub fn commits(&self) -> Result<Vec<SavedCommit>, StoreError> {
        let sql = format!(
            "SELECT {} FROM commitments ORDER BY created_at",
            COLUMNS.join(", ")
        );
        let conn = self.conn();
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query([])?;
        collect(rows, from_row)
    }
}

fn select() -> String {
    format!(
        "SELECT {} FROM commitments WHERE question_id = ?1",
        COLUMNS.join(", ")
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::tests::question;

    use super::*;

    fn commit(salt: u8) -> SavedCommit {
        SavedCommit {
            not_yet: false,
            question_id: U256::from(9),
            operator: Address::with_last_byte(7),
            merkle_root: Root::from([0xab; 32]),
            counts: [3, 1, 0],
            kappa: I256::try_from(-250_000_000_000_000_000i128).unwrap(),
            escalated: true,
            salt: B256::repeat_byte(salt),
            commitment: B256::repeat_byte(salt ^ 0xff),
        }
    }

    #[test]
    fn the_first_commitment_wins_and_reads_back_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store.record_scan(&[question(9, 1)], 2).unwrap();
        assert_eq!(store.commit(U256::from(9)).unwrap(), None);
        let first = store.save_commit(&commit(1)).unwrap();
        assert_eq!(first, commit(1));
        // A second salt for the same question is never kept.
        assert_eq!(store.save_commit(&commit(2)).unwrap(), commit(1));
        assert_eq!(store.commit(U256::from(9)).unwrap(), Some(commit(1)));
        // The salt is a secret: Debug leaves it out.
        let debug = format!("{first:?}");
        assert!(
            !debug.contains(&format!("{:x}", B256::repeat_byte(1))),
            "{debug}"
        );
        assert!(debug.contains("<secret>"));
    }
}
