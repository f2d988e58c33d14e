//! Post intents: the exact verdict to post, saved once its report file is on disk.
//!
//! A job with an intent is never resolved again, so a restart posts the numbers the report
//! holds. An intent holds exactly what `submitReport` sends — root, valid ballot counts, kappa,
//! escalation — typed (`Root`, `U256`, `I256`) from the report to the poster and stored as
//! exact text. The 1e18 triple is not stored: the contract computes it from the counts, and so
//! does whoever displays it (`stats::to_wad`, the contract's rounding).

use alloy::primitives::{I256, U256};
use rusqlite::{OptionalExtension as _, params};
use serde::Serialize;

use crate::commitment::root::Root;

use super::{
    Store, StoreError,
    sql::{Dec, RowReader, collect},
};

/// The exact verdict to post, saved once the report file is on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PostIntent {
    /// Question id.
    #[serde(serialize_with = "crate::decimal::serialize")]
    pub question_id: U256,
    /// Merkle root of the question and its evidence.
    pub merkle_root: Root,
    /// 1e18-scaled signed kappa.
    #[serde(serialize_with = "crate::decimal::serialize")]
    pub kappa: I256,
    /// Valid ballots per outcome (n_YES, n_NO, n_NULL), as in the report's `stats.counts`;
    /// `None` only for intents saved by a node older than store schema 2.
    pub counts: Option<[u64; 3]>,
    /// Whether routing escalated the verdict.
    pub escalated: bool,
    /// Whether the report says "not yet" (the question's deadline is still ahead).
    pub not_yet: bool,
    /// The report round it answers (the job's `round` when it was resolved).
    pub round: u32,
    /// Path of the report file.
    pub report_path: String,
}

const INTENT_COLUMNS: &[&str] = &[
    "question_id",
    "merkle_root",
    "kappa",
    "escalated",
    "report_path",
    "n_yes",
    "n_no",
    "n_null",
    "not_yet",
    "round",
];

fn intent_from_row(row: &rusqlite::Row<'_>) -> Result<PostIntent, StoreError> {
    let r = RowReader::new(row, "post_intents", INTENT_COLUMNS);
    let counts = match (
        r.get::<Option<u64>>(5)?,
        r.get::<Option<u64>>(6)?,
        r.get::<Option<u64>>(7)?,
    ) {
        (Some(y), Some(n), Some(z)) => Some([y, n, z]),
        (None, None, None) => None,
        _ => {
            return Err(StoreError::Corrupt {
                table: "post_intents",
                row: r.get::<String>(0)?,
                column: "n_yes",
                reason: "only some of n_yes, n_no, n_null are set".into(),
            });
        }
    };
    Ok(PostIntent {
        question_id: r.get::<Dec<U256>>(0)?.0,
        merkle_root: r.get::<Root>(1)?,
        kappa: r.get::<Dec<I256>>(2)?.0,
        escalated: r.get(3)?,
        report_path: r.get(4)?,
        counts,
        not_yet: r.get(8)?,
        round: r.get(9)?,
    })
}

fn select(filter: &str) -> String {
    format!(
        "SELECT {} FROM post_intents WHERE {filter}",
        INTENT_COLUMNS.join(", ")
    )
}

impl Store {
    /// Save the verdict to post and move the job to `posting`, atomically. The first intent
    /// wins: a second call for the same question keeps the first one and returns it.
    ///
    /// # Errors
    /// [`StoreError::StaleRound`] when the question was deferred after this report's round
    /// began (its intent would answer a round that is gone); [`StoreError`].
    pub fn save_intent(&self, intent: &PostIntent) -> Result<PostIntent, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let round: Option<u32> = tx
            .query_row(
                "SELECT round FROM jobs WHERE question_id = ?1",
                [Dec(intent.question_id)],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(job) = round.filter(|r| *r != intent.round) {
            return Err(StoreError::StaleRound {
                question: intent.question_id,
                report: intent.round,
                job,
            });
        }
        let [n_yes, n_no, n_null] = intent.counts.map_or([None; 3], |c| c.map(Some));
        tx.execute(
            "INSERT OR IGNORE INTO post_intents (question_id, merkle_root, kappa, escalated, \
             report_path, created_at, n_yes, n_no, n_null, not_yet, round) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                Dec(intent.question_id),
                intent.merkle_root,
                Dec(intent.kappa),
                intent.escalated,
                intent.report_path,
                self.now_ms(),
                n_yes,
                n_no,
                n_null,
                intent.not_yet,
                intent.round,
            ],
        )?;
        tx.execute(
            "UPDATE jobs SET stage = 'posting', updated_at = ?2 WHERE question_id = ?1 \
             AND stage IN ('queued', 'resolving')",
            params![Dec(intent.question_id), self.now_ms()],
        )?;
        let saved = {
            let mut stmt = tx.prepare_cached(&select("question_id = ?1"))?;
            let rows = stmt.query([Dec(intent.question_id)])?;
            collect(rows, intent_from_row)?
                .into_iter()
                .next()
                .ok_or(rusqlite::Error::QueryReturnedNoRows)?
        };
        tx.commit()?;
        Ok(saved)
    }

    /// The saved intent of a question.
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] naming the row and column that does not parse.
    pub fn intent(&self, question_id: U256) -> Result<Option<PostIntent>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&select("question_id = ?1"))?;
        let rows = stmt.query([Dec(question_id)])?;
        Ok(collect(rows, intent_from_row)?.into_iter().next())
    }

    /// The intents committed to a Merkle root (normally one), for `/bundles/{root}`.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn intents_by_root(&self, merkle_root: Root) -> Result<Vec<PostIntent>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&select(
            "lower(merkle_root) = lower(?1) ORDER BY created_at",
        ))?;
        let rows = stmt.query([merkle_root])?;
        collect(rows, intent_from_row)
    }

    /// Every saved intent, oldest first (tests read a node's state through this; see
    /// [`Store::open_read_only`]).
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] naming the row and column that does not parse.
    #[cfg(any(test, feature = "test-utils"))]
    pub fn intents(&self) -> Result<Vec<PostIntent>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare(&select("1 ORDER BY created_at"))?;
        let rows = stmt.query([])?;
        collect(rows, intent_from_row)
    }
}
