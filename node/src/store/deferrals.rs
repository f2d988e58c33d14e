//! Report rounds: a `QuestionDeferred` ends the question's current round and starts the next.
//!
//! Applied with the other lifecycle events, in the watcher's transaction, exactly once: only a
//! deferral whose count is above the job's `round` moves the job (a re-read range, or a
//! restart, finds the round already there and changes nothing). Moving the job means: the
//! deferred round's intent and commitment leave the live tables for `deferrals` (with the
//! report file that held them), and the job is `queued` again with the new `resolve_after`, so
//! the scheduler runs the question afresh when reports reopen — a new committee on the
//! evidence submitted meanwhile.

use alloy::primitives::U256;
use rusqlite::{OptionalExtension as _, params};
use serde::Serialize;

use crate::commitment::root::Root;

use super::{
    Store, StoreError,
    sql::{Dec, RowReader, collect},
};

/// One deferral of a question, and what this node had reported in the round it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Deferral {
    /// Question id.
    #[serde(serialize_with = "crate::decimal::serialize")]
    pub question_id: U256,
    /// The event's count: the round it starts (from 1).
    pub count: u32,
    /// When reports open again (unix seconds).
    pub resolve_after: u64,
    /// Block of the `QuestionDeferred` log.
    pub block_number: u64,
    /// Its log index.
    pub log_index: u64,
    /// Our report file of the deferred round (renamed `<id>.round-<count - 1>.json` when the
    /// next round writes its own), if we had reported.
    pub report_path: Option<String>,
    /// The root we reported in that round.
    pub merkle_root: Option<Root>,
    /// Whether our report in that round said "not yet".
    pub not_yet: Option<bool>,
}

/// Apply `QuestionDeferred(id, resolve_after, count)` at (`block`, `log_index`) inside the
/// lifecycle transaction (module docs). Returns the rows it changed.
pub(super) fn apply(
    tx: &rusqlite::Transaction<'_>,
    id: U256,
    resolve_after: u64,
    count: u32,
    at: (u64, u64),
    now: i64,
) -> rusqlite::Result<usize> {
    // The round's reports are undone on-chain: forget them (any re-read older report is
    // dropped again, whatever the order of application).
    let mut changed = tx.execute(
        "DELETE FROM operator_reports WHERE question_id = ?1 \
         AND (block_number, log_index) < (?2, ?3)",
        params![Dec(id), at.0, at.1],
    )?;
    let round: Option<u32> = tx
        .query_row(
            "SELECT round FROM jobs WHERE question_id = ?1",
            [Dec(id)],
            |r| r.get(0),
        )
        .optional()?;
    if round.is_none_or(|r| r >= count) {
        // No job (asked before the node's start block), or this deferral is already applied.
        changed += tx.execute(
            "INSERT OR IGNORE INTO deferrals (question_id, count, resolve_after, block_number, \
             log_index) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![Dec(id), count, resolve_after, at.0, at.1],
        )?;
        return Ok(changed);
    }
    crate::crashpoint::hit("deferral.applying");
    changed += tx.execute(
        "INSERT OR REPLACE INTO deferrals (question_id, count, resolve_after, block_number, \
         log_index, report_path, merkle_root, not_yet) \
         SELECT ?1, ?2, ?3, ?4, ?5, i.report_path, i.merkle_root, i.not_yet \
         FROM (SELECT 1) LEFT JOIN post_intents i ON i.question_id = ?1",
        params![Dec(id), count, resolve_after, at.0, at.1],
    )?;
    tx.execute("DELETE FROM post_intents WHERE question_id = ?1", [Dec(id)])?;
    tx.execute("DELETE FROM commitments WHERE question_id = ?1", [Dec(id)])?;
    changed += tx.execute(
        "UPDATE jobs SET round = ?2, resolve_after = ?3, stage = 'queued', attempts = 0, \
         next_attempt_at = 0, last_error = NULL, waiting = NULL, reported_at = NULL, \
         updated_at = ?4 WHERE question_id = ?1",
        params![Dec(id), count, resolve_after, now],
    )?;
    Ok(changed)
}

impl Store {
    /// A question's deferrals, oldest first.
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] naming the row and column that does not parse.
    pub fn deferrals(&self, question_id: U256) -> Result<Vec<Deferral>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT question_id, count, resolve_after, block_number, log_index, report_path, \
             merkle_root, not_yet FROM deferrals WHERE question_id = ?1 ORDER BY count",
        )?;
        let rows = stmt.query([Dec(question_id)])?;
        collect(rows, |row| {
            let r = RowReader::new(
                row,
                "deferrals",
                &[
                    "question_id",
                    "count",
                    "resolve_after",
                    "block_number",
                    "log_index",
                    "report_path",
                    "merkle_root",
                    "not_yet",
                ],
            );
            Ok(Deferral {
                question_id: r.get::<Dec<U256>>(0)?.0,
                count: r.get(1)?,
                resolve_after: r.get(2)?,
                block_number: r.get(3)?,
                log_index: r.get(4)?,
                report_path: r.get(5)?,
                merkle_root: r.get::<Option<Root>>(6)?,
                not_yet: r.get(7)?,
            })
        })
    }

    /// Record where a deferred round's report file was moved.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn set_deferral_report(
        &self,
        question_id: U256,
        count: u32,
        path: &str,
    ) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE deferrals SET report_path = ?3 WHERE question_id = ?1 AND count = ?2",
            params![Dec(question_id), count, path],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use alloy::primitives::{Address, B256, I256};

    use super::super::tests::{id, intent, question};
    use super::*;
    use crate::watcher::events::{EventAt, LifecycleEvent, OperatorReport};

    fn deferred(count: u32, block: u64) -> EventAt {
        EventAt {
            question_id: id(1),
            event: LifecycleEvent::Deferred {
                resolve_after: 5_000 * u64::from(count),
                count,
            },
            block,
            log_index: 1,
        }
    }

    fn report(block: u64) -> EventAt {
        EventAt {
            question_id: id(1),
            event: LifecycleEvent::Report(OperatorReport {
                question_id: id(1),
                operator: Address::with_last_byte(7),
                merkle_root: Root::from([0; 32]),
                counts: [1, 2, 0],
                kappa: I256::ZERO,
                escalated: false,
                block_number: block,
                log_index: 0,
                tx_hash: B256::ZERO,
            }),
            block,
            log_index: 0,
        }
    }

    #[test]
    fn a_deferral_starts_the_next_round_exactly_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store.record_scan(&[question(1, 1)], 2).unwrap();
        let mut ours = intent(1, "reports/1.json");
        ours.not_yet = true;
        store.save_intent(&ours).unwrap();
        store.mark_reported(id(1), 0).unwrap();
        let page = [report(3), deferred(1, 3)];
        store.record_lifecycle(&page).unwrap();
        let job = store.job(id(1)).unwrap().unwrap();
        assert_eq!((job.round, job.stage.as_str()), (1, "queued"));
        assert_eq!(job.question.resolve_after, 5_000);
        assert!(
            store.intent(id(1)).unwrap().is_none(),
            "the round's intent moved"
        );
        assert!(store.operator_reports(id(1)).unwrap().is_empty());
        let kept = store.deferrals(id(1)).unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].report_path.as_deref(), Some("reports/1.json"));
        assert_eq!(kept[0].not_yet, Some(true));

        // Round 1 starts; the same page read again (a restart's overlap) changes nothing.
        store
            .set_stage(id(1), super::super::Stage::Resolving)
            .unwrap();
        store.record_lifecycle(&page).unwrap();
        let job = store.job(id(1)).unwrap().unwrap();
        assert_eq!((job.round, job.stage.as_str()), (1, "resolving"));
        assert!(store.operator_reports(id(1)).unwrap().is_empty());
        assert_eq!(store.deferrals(id(1)).unwrap(), kept);

        // The deferred round's runner finishing late neither reports nor saves for round 1.
        store.mark_reported(id(1), 0).unwrap();
        assert_eq!(
            store.job(id(1)).unwrap().unwrap().stage.as_str(),
            "resolving"
        );
        let late = store.save_intent(&ours).unwrap_err();
        assert!(
            matches!(
                late,
                StoreError::StaleRound {
                    report: 0,
                    job: 1,
                    ..
                }
            ),
            "{late}"
        );
        let mut next = intent(1, "reports/1.json");
        next.round = 1;
        assert_eq!(store.save_intent(&next).unwrap().round, 1);

        // A later deferral moves it again; an earlier one never moves it back.
        store.record_lifecycle(&[deferred(2, 9)]).unwrap();
        store.record_lifecycle(&[deferred(1, 3)]).unwrap();
        assert_eq!(store.job(id(1)).unwrap().unwrap().round, 2);
        assert_eq!(store.deferrals(id(1)).unwrap().len(), 2);
    }
}
