//! A question's life after the reports, as the chain's events tell it: the pooled verdict,
//! a dispute, the arbiter's ruling, expiry, settlement, and every operator's report.
//!
//! Events are applied in (block, log index) order and a row remembers the position of the
//! last event it took, so re-reading blocks after a restart never moves a question back
//! (a `VerdictPosted` read again after the `VerdictDisputed` that followed it is ignored).

use alloy::primitives::{Address, B256, I256, U256};
use rusqlite::params;
use serde::Serialize;

use crate::commitment::root::Root;
use crate::watcher::events::{EventAt, LifecycleEvent, OperatorReport};

use super::{
    Job, Store, StoreError,
    jobs::decimal,
    now_ms,
    sql::{Dec, Hex, RowReader, collect},
};

/// The chain's status of a question past `Asked` (the contract's `VerdictStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ChainStatus {
    /// Pooled verdict posted; final after the challenge window unless disputed.
    Resolved,
    /// Pooled verdict posted and flagged for the arbiter.
    Escalated,
    /// Disputed within the challenge window.
    Disputed,
    /// The arbiter ruled.
    Arbitrated,
    /// The report window closed without a report.
    Expired,
    /// The court refused or missed its deadline: final, unresolvable triple.
    Defaulted,
    /// Deferred ("not yet"): back to `Asked`, reports open again at the job's `resolve_after`.
    Deferred,
}

impl ChainStatus {
    const ALL: [ChainStatus; 7] = [
        ChainStatus::Resolved,
        ChainStatus::Escalated,
        ChainStatus::Disputed,
        ChainStatus::Arbitrated,
        ChainStatus::Expired,
        ChainStatus::Defaulted,
        ChainStatus::Deferred,
    ];

    /// The stored name (the contract's enum name).
    pub fn as_str(self) -> &'static str {
        match self {
            ChainStatus::Resolved => "Resolved",
            ChainStatus::Escalated => "Escalated",
            ChainStatus::Disputed => "Disputed",
            ChainStatus::Arbitrated => "Arbitrated",
            ChainStatus::Expired => "Expired",
            ChainStatus::Defaulted => "Defaulted",
            ChainStatus::Deferred => "Deferred",
        }
    }
}

impl rusqlite::types::FromSql for ChainStatus {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        let s = value.as_str()?;
        ChainStatus::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                rusqlite::types::FromSqlError::Other(format!("unknown status {s:?}").into())
            })
    }
}

/// What the node knows of a question past its reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lifecycle {
    /// Question id.
    #[serde(serialize_with = "decimal")]
    pub question_id: U256,
    /// The chain's status.
    pub status: ChainStatus,
    /// Block of the `VerdictPosted`.
    pub verdict_block: Option<u64>,
    /// Unix seconds when a Resolved verdict becomes final (`finalAt`), once read.
    pub final_at: Option<u64>,
    /// The verdict on-chain now (posted, or the arbiter's), 1e18 scale.
    #[serde(skip)]
    pub p: Option<[U256; 3]>,
    /// The money is credited (`QuestionSettled`).
    pub settled: bool,
    /// The disputer, when disputed.
    pub disputer: Option<Address>,
    /// The dispute bond in wei (decimal in JSON).
    #[serde(serialize_with = "optional_decimal")]
    pub bond: Option<U256>,
    /// The second opinion's report file (the committee re-run on a dispute).
    pub second_opinion: Option<String>,
}

fn optional_decimal<S: serde::Serializer>(value: &Option<U256>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => s.collect_str(v),
        None => s.serialize_none(),
    }
}

const LIFECYCLE_COLUMNS: &str = "question_id, status, verdict_block, final_at, settled, disputer, \
     bond, second_opinion, p_yes, p_no, p_null";

fn lifecycle_from_row(row: &rusqlite::Row<'_>) -> Result<Lifecycle, StoreError> {
    let r = RowReader::new(
        row,
        "lifecycle",
        &[
            "question_id",
            "status",
            "verdict_block",
            "final_at",
            "settled",
            "disputer",
            "bond",
            "second_opinion",
            "p_yes",
            "p_no",
            "p_null",
        ],
    );
    let p = match (
        r.get::<Option<Dec<U256>>>(8)?,
        r.get::<Option<Dec<U256>>>(9)?,
        r.get::<Option<Dec<U256>>>(10)?,
    ) {
        (Some(y), Some(n), Some(u)) => Some([y.0, n.0, u.0]),
        _ => None,
    };
    Ok(Lifecycle {
        question_id: r.get::<Dec<U256>>(0)?.0,
        status: r.get(1)?,
        verdict_block: r.get(2)?,
        final_at: r.get(3)?,
        settled: r.get(4)?,
        disputer: r.get::<Option<Hex<Address>>>(5)?.map(|h| h.0),
        bond: r.get::<Option<Dec<U256>>>(6)?.map(|d| d.0),
        second_opinion: r.get(7)?,
        p,
    })
}

impl Store {
    /// Apply lifecycle events (in chain order) in one transaction; returns the questions whose
    /// row changed. Idempotent: re-applying a read range changes nothing.
    ///
    /// # Errors
    /// [`StoreError`]; nothing is written then.
    pub fn record_lifecycle(&self, events: &[EventAt]) -> Result<Vec<U256>, StoreError> {
        if events.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let now = now_ms();
        let mut changed = Vec::new();
        for e in events {
            let n = apply_event(&tx, e, now)?;
            if n > 0 && !changed.contains(&e.question_id) {
                changed.push(e.question_id);
            }
        }
        tx.commit()?;
        drop(conn);
        for id in &changed {
            self.announce(*id);
        }
        Ok(changed)
    }

    /// The chain's view of one question (none while it is still `Asked`).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn lifecycle(&self, question_id: U256) -> Result<Option<Lifecycle>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {LIFECYCLE_COLUMNS} FROM lifecycle WHERE question_id = ?1"
        ))?;
        let rows = stmt.query([Dec(question_id)])?;
        Ok(collect(rows, lifecycle_from_row)?.into_iter().next())
    }

    /// Every operator's report on `question_id`, in chain order.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn operator_reports(&self, question_id: U256) -> Result<Vec<OperatorReport>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT question_id, operator, merkle_root, n_yes, n_no, n_null, kappa, escalated, \
             block_number, log_index, tx_hash FROM operator_reports WHERE question_id = ?1 \
             ORDER BY block_number, log_index",
        )?;
        let rows = stmt.query([Dec(question_id)])?;
        collect(rows, |row| {
            let r = RowReader::new(
                row,
                "operator_reports",
                &[
                    "question_id",
                    "operator",
                    "merkle_root",
                    "n_yes",
                    "n_no",
                    "n_null",
                    "kappa",
                    "escalated",
                    "block_number",
                    "log_index",
                    "tx_hash",
                ],
            );
            Ok(OperatorReport {
                question_id: r.get::<Dec<U256>>(0)?.0,
                operator: r.get::<Hex<Address>>(1)?.0,
                merkle_root: r.get::<Root>(2)?,
                counts: [r.get(3)?, r.get(4)?, r.get(5)?],
                kappa: r.get::<Dec<I256>>(6)?.0,
                escalated: r.get(7)?,
                block_number: r.get(8)?,
                log_index: r.get(9)?,
                tx_hash: r.get::<Hex<B256>>(10)?.0,
            })
        })
    }

    /// Remember when a Resolved verdict becomes final (`finalAt`).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn set_final_at(&self, question_id: U256, final_at: u64) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE lifecycle SET final_at = ?2, updated_at = ?3 WHERE question_id = ?1",
            params![Dec(question_id), final_at, now_ms()],
        )?;
        Ok(())
    }

    /// Remember the second opinion's report file.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn set_second_opinion(&self, question_id: U256, path: &str) -> Result<(), StoreError> {
        let now = now_ms();
        self.conn().execute(
            "UPDATE lifecycle SET second_opinion = ?2, updated_at = ?3 WHERE question_id = ?1",
            params![Dec(question_id), path, now],
        )?;
        // The job's row changes too, so the live view knows to show it.
        self.conn().execute(
            "UPDATE jobs SET updated_at = ?2 WHERE question_id = ?1",
            params![Dec(question_id), now],
        )?;
        self.announce(question_id);
        Ok(())
    }

    /// Jobs whose question may still move on (not failed, final, arbitrated or expired), with
    /// the chain's view when there is one: what the lifecycle follower looks at each tick.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn open_jobs(&self) -> Result<Vec<(Job, Option<Lifecycle>)>, StoreError> {
        let ids: Vec<U256> = {
            let conn = self.conn();
            let mut stmt = conn.prepare_cached(
                "SELECT question_id FROM jobs WHERE stage NOT IN ('final', 'arbitrated', 'expired', 'failed') \
                 ORDER BY block_number, log_index",
            )?;
            let rows = stmt.query([])?;
            collect(rows, |row| {
                Ok(RowReader::new(row, "jobs", &["question_id"])
                    .get::<Dec<U256>>(0)?
                    .0)
            })?
        };
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(job) = self.job(id)? {
                out.push((job, self.lifecycle(id)?));
            }
        }
        Ok(out)
    }
}

/// Applies one lifecycle event to `tx`; returns the rows it changed (0 when the row already
/// holds this event or a later one).
fn apply_event(tx: &rusqlite::Transaction<'_>, e: &EventAt, now: i64) -> rusqlite::Result<usize> {
    let change = match &e.event {
        LifecycleEvent::Posted { escalated, p } => Change {
            verdict_block: Some(e.block),
            p: Some(p),
            ..Change::to(if *escalated {
                ChainStatus::Escalated
            } else {
                ChainStatus::Resolved
            })
        },
        LifecycleEvent::Disputed { disputer, bond } => Change {
            disputer: Some(*disputer),
            bond: Some(*bond),
            ..Change::to(ChainStatus::Disputed)
        },
        LifecycleEvent::CourtRequested => Change::to(ChainStatus::Disputed),
        LifecycleEvent::Arbitrated { p } => Change {
            p: Some(p),
            ..Change::to(ChainStatus::Arbitrated)
        },
        LifecycleEvent::Defaulted { p } => Change {
            p: Some(p),
            ..Change::to(ChainStatus::Defaulted)
        },
        LifecycleEvent::Expired => Change::to(ChainStatus::Expired),
        LifecycleEvent::Settled => {
            return tx.execute(
                "UPDATE lifecycle SET settled = 1, updated_at = ?2 \
                 WHERE question_id = ?1 AND settled = 0",
                params![Dec(e.question_id), now],
            );
        }
        LifecycleEvent::Deferred {
            resolve_after,
            count,
        } => return defer(tx, e, now, *resolve_after, *count),
        LifecycleEvent::Report(r) => return insert_report(tx, e.question_id, r),
    };
    change.apply(tx, e, now)
}

/// A status an event moves a question to, with the fields it sets (`None`: kept as they are).
struct Change<'a> {
    status: ChainStatus,
    verdict_block: Option<u64>,
    disputer: Option<Address>,
    bond: Option<U256>,
    p: Option<&'a [U256; 3]>,
}

impl Change<'_> {
    /// To `status`, setting nothing else.
    fn to(status: ChainStatus) -> Self {
        Self {
            status,
            verdict_block: None,
            disputer: None,
            bond: None,
            p: None,
        }
    }

    /// Write the change of event `e` unless a later event is already applied.
    fn apply(
        &self,
        tx: &rusqlite::Transaction<'_>,
        e: &EventAt,
        now: i64,
    ) -> rusqlite::Result<usize> {
        let p = |k: usize| self.p.map(|p| Dec(p[k]));
        tx.execute(
            "INSERT INTO lifecycle (question_id, status, event_block, event_log, \
             verdict_block, disputer, bond, p_yes, p_no, p_null, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) \
             ON CONFLICT (question_id) DO UPDATE SET status = excluded.status, \
             event_block = excluded.event_block, event_log = excluded.event_log, \
             verdict_block = COALESCE(excluded.verdict_block, verdict_block), \
             disputer = COALESCE(excluded.disputer, disputer), \
             bond = COALESCE(excluded.bond, bond), p_yes = COALESCE(excluded.p_yes, p_yes), \
             p_no = COALESCE(excluded.p_no, p_no), p_null = COALESCE(excluded.p_null, p_null), \
             updated_at = excluded.updated_at \
             WHERE (excluded.event_block, excluded.event_log) > (event_block, event_log)",
            params![
                Dec(e.question_id),
                self.status.as_str(),
                e.block,
                e.log_index,
                self.verdict_block,
                self.disputer.map(Hex),
                self.bond.map(Dec),
                p(0),
                p(1),
                p(2),
                now
            ],
        )
    }
}

/// A `QuestionDeferred`: the lifecycle row back to Deferred, the deferred round's verdict
/// (a court's "too early") cleared, and the round moved on ([`super::deferrals::apply`]).
fn defer(
    tx: &rusqlite::Transaction<'_>,
    e: &EventAt,
    now: i64,
    resolve_after: u64,
    count: u32,
) -> rusqlite::Result<usize> {
    let row = tx.execute(
        "INSERT INTO lifecycle (question_id, status, event_block, event_log, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (question_id) DO UPDATE SET status = excluded.status, \
         event_block = excluded.event_block, event_log = excluded.event_log, \
         verdict_block = NULL, final_at = NULL, disputer = NULL, bond = NULL, \
         second_opinion = NULL, p_yes = NULL, p_no = NULL, p_null = NULL, \
         updated_at = excluded.updated_at \
         WHERE (excluded.event_block, excluded.event_log) > (event_block, event_log)",
        params![
            Dec(e.question_id),
            ChainStatus::Deferred.as_str(),
            e.block,
            e.log_index,
            now
        ],
    )?;
    Ok(row
        + super::deferrals::apply(
            tx,
            e.question_id,
            resolve_after,
            count,
            (e.block, e.log_index),
            now,
        )?)
}

/// An operator's `ReportSubmitted`, recorded once.
fn insert_report(
    tx: &rusqlite::Transaction<'_>,
    id: U256,
    r: &OperatorReport,
) -> rusqlite::Result<usize> {
    tx.execute(
        "INSERT OR IGNORE INTO operator_reports (question_id, operator, merkle_root, \
         n_yes, n_no, n_null, kappa, escalated, block_number, log_index, tx_hash) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            Dec(id),
            Hex(r.operator),
            r.merkle_root,
            r.counts[0],
            r.counts[1],
            r.counts[2],
            Dec(r.kappa),
            r.escalated,
            r.block_number,
            r.log_index,
            Hex(r.tx_hash)
        ],
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::tests::question;

    use super::*;

    fn at(block: u64, event: LifecycleEvent) -> EventAt {
        EventAt {
            question_id: U256::from(1),
            event,
            block,
            log_index: 0,
        }
    }

    #[test]
    fn a_reread_event_never_moves_a_question_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store.record_scan(&[question(1, 1)], 2).unwrap();
        let third = [U256::from(1), U256::from(2), U256::from(3)];
        let posted = at(
            5,
            LifecycleEvent::Posted {
                escalated: false,
                p: third,
            },
        );
        let disputed = at(
            7,
            LifecycleEvent::Disputed {
                disputer: Address::repeat_byte(9),
                bond: U256::from(10),
            },
        );
        assert_eq!(
            store
                .record_lifecycle(std::slice::from_ref(&posted))
                .unwrap()
                .len(),
            1
        );
        store.set_final_at(U256::from(1), 100).unwrap();
        store
            .record_lifecycle(std::slice::from_ref(&disputed))
            .unwrap();
        // The restart overlap reads both again: nothing changes.
        assert!(
            store
                .record_lifecycle(&[posted, disputed])
                .unwrap()
                .is_empty()
        );
        let l = store.lifecycle(U256::from(1)).unwrap().unwrap();
        assert_eq!(l.status, ChainStatus::Disputed);
        assert_eq!((l.verdict_block, l.final_at), (Some(5), Some(100)));
        assert_eq!(l.bond, Some(U256::from(10)));
        store
            .record_lifecycle(&[
                at(
                    9,
                    LifecycleEvent::Arbitrated {
                        p: [third[2], third[1], third[0]],
                    },
                ),
                at(9, LifecycleEvent::Settled),
            ])
            .unwrap();
        let l = store.lifecycle(U256::from(1)).unwrap().unwrap();
        assert_eq!((l.status, l.settled), (ChainStatus::Arbitrated, true));
        assert_eq!(l.p, Some([third[2], third[1], third[0]]));
    }
}
