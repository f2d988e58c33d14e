//! Sent transactions: every signed verdict transaction, recorded *before* it is broadcast, so
//! a crash right after broadcasting still leaves a record to look the receipt up by.

use alloy::primitives::{B256, Bytes, U256};
use rusqlite::{
    params,
    types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef},
};
use serde::Serialize;

use super::{
    Store, StoreError,
    sql::{Dec, Hex, RowReader, collect},
};

/// Status of a sent transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TxStatus {
    /// Broadcast (or about to be), no receipt yet.
    Pending,
    /// Mined and succeeded.
    Mined,
    /// Mined in a `submitReports` batch that skipped this question's report as stale (the
    /// question stopped taking reports meanwhile).
    Skipped,
    /// Mined and reverted.
    Reverted,
    /// Never mined: its nonce was used by another transaction, or it was never broadcast.
    Dropped,
}

impl TxStatus {
    const ALL: [TxStatus; 5] = [
        TxStatus::Pending,
        TxStatus::Mined,
        TxStatus::Skipped,
        TxStatus::Reverted,
        TxStatus::Dropped,
    ];

    fn as_str(self) -> &'static str {
        match self {
            TxStatus::Pending => "pending",
            TxStatus::Mined => "mined",
            TxStatus::Skipped => "skipped",
            TxStatus::Reverted => "reverted",
            TxStatus::Dropped => "dropped",
        }
    }
}

impl ToSql for TxStatus {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for TxStatus {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let s = value.as_str()?;
        TxStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| FromSqlError::Other(format!("unknown status {s:?}").into()))
    }
}

/// A signed verdict transaction, recorded before broadcast.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SentTx {
    /// Transaction hash.
    pub tx_hash: B256,
    /// Question id.
    #[serde(serialize_with = "crate::decimal::serialize")]
    pub question_id: U256,
    /// Account nonce.
    pub nonce: u64,
    /// Gas limit.
    pub gas_limit: u64,
    /// EIP-1559 max fee per gas (wei).
    pub max_fee_per_gas: u128,
    /// EIP-1559 priority fee per gas (wei).
    pub max_priority_fee_per_gas: u128,
    /// The signed transaction (EIP-2718 bytes), to rebroadcast the very same transaction.
    pub raw: Bytes,
    /// Where it is.
    pub status: TxStatus,
    /// Block it was mined in.
    pub block_number: Option<u64>,
    /// Unix ms when it was recorded.
    pub sent_at: i64,
}

const TX_COLUMNS: &[&str] = &[
    "tx_hash",
    "question_id",
    "nonce",
    "gas_limit",
    "max_fee_per_gas",
    "max_priority_fee_per_gas",
    "raw",
    "status",
    "block_number",
    "sent_at",
];

fn tx_from_row(row: &rusqlite::Row<'_>) -> Result<SentTx, StoreError> {
    let r = RowReader::new(row, "sent_txs", TX_COLUMNS);
    Ok(SentTx {
        tx_hash: r.get::<Hex<B256>>(0)?.0,
        question_id: r.get::<Dec<U256>>(1)?.0,
        nonce: r.get(2)?,
        gas_limit: r.get(3)?,
        max_fee_per_gas: r.get::<Dec<u128>>(4)?.0,
        max_priority_fee_per_gas: r.get::<Dec<u128>>(5)?.0,
        raw: r.get::<Hex<Bytes>>(6)?.0,
        status: r.get(7)?,
        block_number: r.get(8)?,
        sent_at: r.get(9)?,
    })
}

impl Store {
    /// Record a signed transaction before it is broadcast.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn record_tx(&self, tx: &SentTx) -> Result<(), StoreError> {
        self.record_batch_tx(tx, &[tx.question_id])
    }

    /// Record a signed transaction carrying the reports of `questions` (one row each, in one
    /// SQLite transaction) before it is broadcast.
    ///
    /// # Errors
    /// [`StoreError`]; nothing is written then.
    pub fn record_batch_tx(&self, tx: &SentTx, questions: &[U256]) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let db = conn.transaction()?;
        {
            let mut stmt = db.prepare_cached(
                "INSERT OR REPLACE INTO sent_txs (tx_hash, question_id, nonce, gas_limit, \
                 max_fee_per_gas, max_priority_fee_per_gas, raw, status, block_number, sent_at, \
                 round) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, \
                 COALESCE((SELECT round FROM jobs WHERE question_id = ?2), 0))",
            )?;
            for question in questions {
                stmt.execute(params![
                    Hex(tx.tx_hash),
                    Dec(*question),
                    tx.nonce,
                    tx.gas_limit,
                    Dec(tx.max_fee_per_gas),
                    Dec(tx.max_priority_fee_per_gas),
                    Hex(tx.raw.clone()),
                    tx.status,
                    tx.block_number,
                    tx.sent_at
                ])?;
            }
        }
        db.commit()?;
        drop(conn);
        crate::crashpoint::hit("tx.recorded");
        Ok(())
    }

    /// Mark one question's row of a mined batch as skipped (its report was stale).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn mark_skipped(&self, tx_hash: B256, question_id: U256) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE sent_txs SET status = 'skipped' WHERE tx_hash = ?1 AND question_id = ?2",
            params![Hex(tx_hash), Dec(question_id)],
        )?;
        Ok(())
    }

    /// Update a transaction's status (and block when mined).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn set_tx_status(
        &self,
        tx_hash: B256,
        status: TxStatus,
        block_number: Option<u64>,
    ) -> Result<(), StoreError> {
        if status == TxStatus::Mined {
            crate::crashpoint::hit("tx.mined");
        }
        // Every question's row of the transaction, except one already marked skipped.
        self.conn().execute(
            "UPDATE sent_txs SET status = ?2, block_number = COALESCE(?3, block_number) \
             WHERE tx_hash = ?1 AND status != 'skipped'",
            params![Hex(tx_hash), status, block_number],
        )?;
        Ok(())
    }

    /// Every transaction sent for a question in its current report round, oldest first (an
    /// earlier round's report was undone by the deferral that ended it).
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] naming the row and column that does not parse.
    pub fn txs_for(&self, question_id: U256) -> Result<Vec<SentTx>, StoreError> {
        let sql = format!(
            "SELECT {} FROM sent_txs WHERE question_id = ?1 \
             AND round = COALESCE((SELECT round FROM jobs WHERE question_id = ?1), 0) \
             ORDER BY sent_at, nonce",
            TX_COLUMNS.join(", ")
        );
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt.query([Dec(question_id)])?;
        collect(rows, tx_from_row)
    }

    /// Every transaction the node recorded, of every round, oldest first (tests read a node's
    /// state through this; see [`Store::open_read_only`]).
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] naming the row and column that does not parse.
    #[cfg(any(test, feature = "test-utils"))]
    pub fn all_txs(&self) -> Result<Vec<SentTx>, StoreError> {
        let sql = format!(
            "SELECT {} FROM sent_txs ORDER BY sent_at, nonce",
            TX_COLUMNS.join(", ")
        );
        let conn = self.conn();
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query([])?;
        collect(rows, tx_from_row)
    }
}
