//! The block cursor and the jobs: one row per confirmed `QuestionAsked`, and its stage.

use alloy::primitives::{Address, B256, U256};
use rusqlite::{
    params,
    types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef},
};
use serde::Serialize;

use crate::watcher::events::NewQuestion;

use super::{
    Store, StoreError,
    sql::{Dec, Hex, RowReader, collect},
};

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Waiting to be resolved (new, or retrying after a failure).
    Queued,
    /// Evidence, committee and report are being produced.
    Resolving,
    /// The report is written and the intent saved; the verdict is being posted.
    Posting,
    /// Our report is on-chain, or the question no longer takes reports (the quorum's verdict
    /// was posted first); waiting for the pooled verdict.
    Reported,
    /// The pooled verdict is posted: in its challenge window (Resolved) or waiting for the
    /// arbiter (Escalated).
    Finalised,
    /// Resolved and past its challenge window: it will never change.
    Final,
    /// Disputed within the challenge window; waiting for the arbiter.
    Disputed,
    /// The court ruled: final.
    Arbitrated,
    /// The court refused to rule or missed its deadline (or nobody took the escalation there):
    /// final, with the unresolvable triple.
    Defaulted,
    /// The report window closed without a report: no verdict, the fee went back to the asker.
    Expired,
    /// Gave up after the maximum attempts, or hit a permanent error; see `last_error`.
    Failed,
}

impl Stage {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Queued => "queued",
            Stage::Resolving => "resolving",
            Stage::Posting => "posting",
            Stage::Reported => "reported",
            Stage::Finalised => "finalised",
            Stage::Final => "final",
            Stage::Disputed => "disputed",
            Stage::Arbitrated => "arbitrated",
            Stage::Defaulted => "defaulted",
            Stage::Expired => "expired",
            Stage::Failed => "failed",
        }
    }

    /// Every stage, for metrics, in the order a question passes them.
    pub const ALL: [Stage; 11] = [
        Stage::Queued,
        Stage::Resolving,
        Stage::Posting,
        Stage::Reported,
        Stage::Finalised,
        Stage::Final,
        Stage::Disputed,
        Stage::Arbitrated,
        Stage::Defaulted,
        Stage::Expired,
        Stage::Failed,
    ];

    /// Whether this node's part is done: its report is on-chain (or no longer needed).
    pub fn is_reported(self) -> bool {
        matches!(
            self,
            Stage::Reported
                | Stage::Finalised
                | Stage::Final
                | Stage::Disputed
                | Stage::Arbitrated
                | Stage::Defaulted
                | Stage::Expired
        )
    }

    /// Whether nothing about the question can change any more.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Stage::Final | Stage::Arbitrated | Stage::Defaulted | Stage::Expired | Stage::Failed
        )
    }
}

impl ToSql for Stage {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Stage {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let s = value.as_str()?;
        Stage::ALL
            .into_iter()
            .find(|stage| stage.as_str() == s)
            .ok_or_else(|| FromSqlError::Other(format!("unknown stage {s:?}").into()))
    }
}

/// The store's rows write question ids as decimal text, the API's and the reports' form.
pub(super) use crate::decimal::serialize as decimal;

/// A job row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Job {
    /// The question as seen on-chain.
    #[serde(flatten)]
    pub question: NewQuestion,
    /// Where it is.
    pub stage: Stage,
    /// Attempts made so far.
    pub attempts: u32,
    /// The last failure, if any.
    pub last_error: Option<String>,
    /// Unix ms before which the job is not retried.
    pub next_attempt_at: i64,
    /// Unix ms when the watcher stored it.
    pub seen_at: i64,
    /// Unix ms of the last change.
    pub updated_at: i64,
    /// The report round the job works on: the question's deferrals seen (`QuestionDeferred`).
    pub round: u32,
}

/// Jobs per stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Every question seen.
    pub total: u64,
    /// Waiting to run or retry.
    pub queued: u64,
    /// Being resolved.
    pub resolving: u64,
    /// Report written, being posted.
    pub posting: u64,
    /// Our part done: report on-chain, in any later stage.
    pub reported: u64,
    /// Of the reported, how many our routing escalated.
    pub escalated: u64,
    /// Jobs per stage, in [`Stage::ALL`] order.
    pub by_stage: [u64; Stage::ALL.len()],
    /// Given up.
    pub failed: u64,
    /// The `posting` jobs by what they wait for, in [`Wait::ALL`] order.
    pub posting_by_wait: [u64; Wait::ALL.len()],
}

/// What a job in the `posting` stage waits for (the `jobs.waiting` column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// A report, commit or reveal being sent or mined (the column is NULL).
    Transaction,
    /// The free stake is short of the report bond.
    Stake,
    /// Our commitment is on-chain; the reveal phase is not open yet.
    RevealPhase,
    /// The chain's clock is before the question's `resolveAfter`.
    ResolveAfter,
}

impl Wait {
    /// Every wait, in the order of [`Counts::posting_by_wait`].
    pub const ALL: [Wait; 4] = [
        Wait::Transaction,
        Wait::Stake,
        Wait::RevealPhase,
        Wait::ResolveAfter,
    ];

    /// The stored name, and the metrics' label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Wait::Transaction => "transaction",
            Wait::Stake => "stake",
            Wait::RevealPhase => "reveal_phase",
            Wait::ResolveAfter => "resolve_after",
        }
    }
}

const JOB_COLUMNS: &[&str] = &[
    "question_id",
    "question",
    "asker",
    "question_hash",
    "block_number",
    "block_hash",
    "tx_index",
    "log_index",
    "resolve_after",
    "stage",
    "attempts",
    "last_error",
    "next_attempt_at",
    "seen_at",
    "updated_at",
    "round",
];

fn job_from_row(row: &rusqlite::Row<'_>) -> Result<Job, StoreError> {
    let r = RowReader::new(row, "jobs", JOB_COLUMNS);
    Ok(Job {
        question: NewQuestion {
            question_id: r.get::<Dec<U256>>(0)?.0,
            question: r.get(1)?,
            asker: r.get::<Hex<Address>>(2)?.0,
            question_hash: r.get::<Hex<B256>>(3)?.0,
            block_number: r.get(4)?,
            block_hash: r.get::<Hex<B256>>(5)?.0,
            tx_index: r.get(6)?,
            log_index: r.get(7)?,
            resolve_after: r.get(8)?,
            defect: None,
        },
        stage: r.get(9)?,
        attempts: r.get(10)?,
        last_error: r.get(11)?,
        next_attempt_at: r.get(12)?,
        seen_at: r.get(13)?,
        updated_at: r.get(14)?,
        round: r.get(15)?,
    })
}

/// Insert the questions of a scan (known ids are ignored); returns how many were new.
pub(super) fn insert_questions(
    tx: &rusqlite::Transaction<'_>,
    questions: &[NewQuestion],
    now: i64,
) -> Result<usize, StoreError> {
    let mut inserted = 0;
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO jobs (question_id, question, asker, question_hash, block_number, \
         block_hash, tx_index, log_index, resolve_after, stage, last_error, seen_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)",
    )?;
    for q in questions {
        let stage = match q.defect {
            None => Stage::Queued,
            Some(_) => Stage::Failed,
        };
        inserted += stmt.execute(params![
            Dec(q.question_id),
            q.question,
            Hex(q.asker),
            Hex(q.question_hash),
            q.block_number,
            Hex(q.block_hash),
            q.tx_index,
            q.log_index,
            q.resolve_after,
            stage,
            q.defect,
            now,
        ])?;
    }
    Ok(inserted)
}

/// Move the watcher's cursor (inside the scan's transaction).
pub(super) fn set_cursor(
    tx: &rusqlite::Transaction<'_>,
    next_block: u64,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO cursor (id, next_block) VALUES (1, ?1) \
         ON CONFLICT (id) DO UPDATE SET next_block = excluded.next_block",
        params![next_block],
    )?;
    Ok(())
}

impl Store {
    /// The next block the watcher should scan, if it has scanned before.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`]; [`StoreError::Corrupt`] for a negative cursor.
    pub fn cursor(&self) -> Result<Option<u64>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached("SELECT 1, next_block FROM cursor WHERE id = 1")?;
        let rows = stmt.query([])?;
        let next = collect(rows, |row| {
            RowReader::new(row, "cursor", &["id", "next_block"]).get::<u64>(1)
        })?;
        Ok(next.into_iter().next())
    }

    /// Store the questions found in a scanned range and move the cursor past it, atomically.
    /// Questions already known (same id) are ignored. Returns how many were new.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`]; nothing is written then.
    pub fn record_scan(
        &self,
        questions: &[NewQuestion],
        next_block: u64,
    ) -> Result<usize, StoreError> {
        Ok(self
            .record_scan_with(questions, &[], &[], next_block)?
            .questions)
    }

    /// Announce the questions of a scan that stored at least one new one.
    pub(super) fn announce_scan(&self, questions: &[NewQuestion], inserted: usize) {
        if inserted > 0 {
            crate::crashpoint::hit("scan.recorded");
            for q in questions {
                self.announce(q.question_id);
            }
        }
    }

    /// One job by question id.
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] naming the row and column that does not parse.
    pub fn job(&self, question_id: U256) -> Result<Option<Job>, StoreError> {
        let sql = format!(
            "SELECT {} FROM jobs WHERE question_id = ?1",
            JOB_COLUMNS.join(", ")
        );
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt.query([Dec(question_id)])?;
        Ok(collect(rows, job_from_row)?.into_iter().next())
    }

    /// Every job, in the order the watcher saw them (tests read a node's state through this;
    /// see [`Store::open_read_only`]).
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] naming the row and column that does not parse.
    #[cfg(any(test, feature = "test-utils"))]
    pub fn jobs(&self) -> Result<Vec<Job>, StoreError> {
        let sql = format!(
            "SELECT {} FROM jobs ORDER BY seen_at, question_id",
            JOB_COLUMNS.join(", ")
        );
        let conn = self.conn();
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt.query([])?;
        collect(rows, job_from_row)
    }

    /// When each job was first reported (unix ms; `None` before), by question id: the load
    /// tests time the nodes' own latency from `seen_at` to this.
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] naming the row and column that does not parse.
    #[cfg(any(test, feature = "test-utils"))]
    pub fn reported_times(&self) -> Result<Vec<(U256, Option<i64>)>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT question_id, reported_at FROM jobs")?;
        let rows = stmt.query([])?;
        collect(rows, |row| {
            let r = RowReader::new(row, "jobs", &["question_id", "reported_at"]);
            Ok((r.get::<Dec<U256>>(0)?.0, r.get(1)?))
        })
    }

    /// Jobs that may run now: not posted or failed, retry time reached, `resolve_after` reached
    /// (`now_secs`, the chain's idea of time), oldest first, at most `limit`.
    ///
    /// Jobs left in `resolving` or `posting` by a crash are due again: `posting` ones resume
    /// from their saved intent.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn due_jobs(
        &self,
        now_ms: i64,
        now_secs: u64,
        limit: usize,
    ) -> Result<Vec<Job>, StoreError> {
        let sql = format!(
            "SELECT {} FROM jobs WHERE stage IN ('queued', 'resolving', 'posting') \
             AND next_attempt_at <= ?1 AND resolve_after <= ?2 \
             ORDER BY block_number, log_index LIMIT ?3",
            JOB_COLUMNS.join(", ")
        );
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&sql)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // The chain's clock fits i64 for billions of years; clamp rather than fail a poll.
        let now_secs = i64::try_from(now_secs).unwrap_or(i64::MAX);
        let rows = stmt.query(params![now_ms, now_secs, limit])?;
        collect(rows, job_from_row)
    }

    /// Move a job to `stage` (clearing its retry delay).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn set_stage(&self, question_id: U256, stage: Stage) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE jobs SET stage = ?2, updated_at = ?3 WHERE question_id = ?1",
            params![Dec(question_id), stage, self.now_ms()],
        )?;
        self.announce(question_id);
        Ok(())
    }

    /// Record a failed attempt: bump `attempts`, keep the reason, and either schedule a retry
    /// at `retry_at_ms` (the stage is kept, so a job with an intent stays in `posting`) or,
    /// when `retry_at_ms` is `None`, mark the job failed for good.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn record_failure(
        &self,
        question_id: U256,
        reason: &str,
        retry_at_ms: Option<i64>,
    ) -> Result<(), StoreError> {
        let now = self.now_ms();
        match retry_at_ms {
            Some(at) => self.conn().execute(
                "UPDATE jobs SET attempts = attempts + 1, last_error = ?2, next_attempt_at = ?3, \
                 updated_at = ?4 WHERE question_id = ?1",
                params![Dec(question_id), reason, at, now],
            )?,
            None => self.conn().execute(
                "UPDATE jobs SET attempts = attempts + 1, last_error = ?2, stage = 'failed', \
                 updated_at = ?3 WHERE question_id = ?1",
                params![Dec(question_id), reason, now],
            )?,
        };
        self.announce(question_id);
        Ok(())
    }

    /// Delay a job without counting an attempt (e.g. the chain's clock is before `resolveAfter`).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn defer(&self, question_id: U256, until_ms: i64) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE jobs SET next_attempt_at = ?2, updated_at = ?3 WHERE question_id = ?1",
            params![Dec(question_id), until_ms, self.now_ms()],
        )?;
        Ok(())
    }

    /// [`Self::defer`] and keep `reason` as the job's last error, still without counting an
    /// attempt: a wait the operator should see (a stake short of the report bond).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn defer_because(
        &self,
        question_id: U256,
        reason: &str,
        until_ms: i64,
    ) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE jobs SET next_attempt_at = ?2, last_error = ?3, updated_at = ?4 \
             WHERE question_id = ?1",
            params![Dec(question_id), until_ms, reason, self.now_ms()],
        )?;
        self.announce(question_id);
        Ok(())
    }

    /// Record what a deferred job waits for ([`Wait::Transaction`]: nothing, it is running);
    /// [`Counts::posting_by_wait`] reads it.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn set_waiting(&self, question_id: U256, wait: Wait) -> Result<(), StoreError> {
        let value = (wait != Wait::Transaction).then(|| wait.as_str());
        self.conn().execute(
            "UPDATE jobs SET waiting = ?2 WHERE question_id = ?1 AND waiting IS NOT ?2",
            params![Dec(question_id), value],
        )?;
        Ok(())
    }

    /// Mark a job reported (our report is on-chain, or the question takes no more reports).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn mark_reported(&self, question_id: U256, round: u32) -> Result<(), StoreError> {
        let now = self.now_ms();
        // Only the round that was reported: our own report can complete the quorum that
        // defers the question, and the watcher may have queued the next round already.
        self.conn().execute(
            "UPDATE jobs SET stage = 'reported', last_error = NULL, updated_at = ?2, \
             reported_at = COALESCE(reported_at, ?2) WHERE question_id = ?1 AND round = ?3",
            params![Dec(question_id), now, round],
        )?;
        self.announce(question_id);
        Ok(())
    }

    /// Number of jobs per stage, plus posted verdicts split by escalation, for metrics.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn counts(&self) -> Result<Counts, StoreError> {
        let conn = self.conn();
        let mut counts = Counts::default();
        let mut stmt = conn.prepare_cached("SELECT stage, COUNT(*) FROM jobs GROUP BY stage")?;
        let rows = stmt.query([])?;
        let rows = collect(rows, |row| {
            let r = RowReader::new(row, "jobs", &["stage", "count"]);
            Ok((r.get::<Stage>(0)?, r.get::<u64>(1)?))
        })?;
        for (stage, n) in rows {
            counts.total += n;
            if let Some(i) = Stage::ALL.iter().position(|s| *s == stage) {
                counts.by_stage[i] = n;
            }
            match stage {
                Stage::Queued => counts.queued = n,
                Stage::Resolving => counts.resolving = n,
                Stage::Posting => counts.posting = n,
                Stage::Failed => counts.failed = n,
                s if s.is_reported() => counts.reported += n,
                _ => {}
            }
        }
        let mut stmt = conn.prepare_cached(
            "SELECT COALESCE(waiting, 'transaction'), COUNT(*) FROM jobs \
             WHERE stage = 'posting' GROUP BY 1",
        )?;
        let rows = stmt.query([])?;
        let rows = collect(rows, |row| {
            let r = RowReader::new(row, "jobs", &["waiting", "count"]);
            Ok((r.get::<String>(0)?, r.get::<u64>(1)?))
        })?;
        for (wait, n) in rows {
            // An unknown name (a newer node's) counts as a transaction: the alert stays on.
            let i = Wait::ALL
                .iter()
                .position(|w| w.as_str() == wait)
                .unwrap_or(0);
            counts.posting_by_wait[i] += n;
        }
        counts.escalated = conn.query_row(
            "SELECT COUNT(*) FROM jobs j JOIN post_intents i USING (question_id) \
             WHERE j.reported_at IS NOT NULL AND i.escalated = 1",
            [],
            |r| r.get(0),
        )?;
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{id, question};
    use super::*;
    use crate::clock::{Clock as _, ManualClock, SharedClock};

    fn now_ms() -> i64 {
        crate::clock::SystemClock.now_ms()
    }

    #[test]
    fn due_jobs_respect_time_and_stage() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let mut later = question(2, 9);
        later.resolve_after = 1_000;
        store
            .record_scan(&[question(1, 10), later, question(3, 11)], 12)
            .unwrap();
        let due = store.due_jobs(now_ms(), 500, 10).unwrap();
        assert_eq!(
            due.iter()
                .map(|j| j.question.question_id)
                .collect::<Vec<_>>(),
            [id(1), id(3)]
        );
        let due = store.due_jobs(now_ms(), 1_000, 10).unwrap();
        assert_eq!(due[0].question.question_id, id(2), "ordered by block");

        store
            .record_failure(id(1), "rpc down", Some(now_ms() + 60_000))
            .unwrap();
        store.record_failure(id(3), "bad input", None).unwrap();
        let due = store.due_jobs(now_ms(), 500, 10).unwrap();
        assert!(due.is_empty(), "{due:?}");
        let job = store.job(id(1)).unwrap().unwrap();
        assert_eq!(
            (job.stage, job.attempts, job.last_error.as_deref()),
            (Stage::Queued, 1, Some("rpc down"))
        );
        assert_eq!(store.job(id(3)).unwrap().unwrap().stage, Stage::Failed);
        assert!(store.job(id(99)).unwrap().is_none());
    }

    #[test]
    fn posting_jobs_are_counted_by_what_they_wait_for() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store
            .record_scan(&[question(1, 10), question(2, 10), question(3, 10)], 12)
            .unwrap();
        for n in 1..=3 {
            store.set_stage(id(n), Stage::Posting).unwrap();
        }
        store.set_waiting(id(2), Wait::Stake).unwrap();
        store.set_waiting(id(3), Wait::RevealPhase).unwrap();
        let counts = store.counts().unwrap();
        assert_eq!(counts.posting, 3);
        assert_eq!(counts.posting_by_wait, [1, 1, 1, 0]);
        // Running again clears the wait; a queued job's wait is not a posting one.
        store.set_waiting(id(2), Wait::Transaction).unwrap();
        store.set_stage(id(3), Stage::Queued).unwrap();
        assert_eq!(store.counts().unwrap().posting_by_wait, [2, 0, 0, 0]);
    }

    #[test]
    fn a_deferral_is_no_attempt_and_reported_is_stamped_once() {
        let dir = tempfile::tempdir().unwrap();
        let clock = std::sync::Arc::new(ManualClock::at_ms(5_000));
        let store = Store::open_in(dir.path())
            .unwrap()
            .with_clock(std::sync::Arc::clone(&clock) as SharedClock);
        store.record_scan(&[question(1, 10)], 11).unwrap();
        store
            .defer_because(id(1), "stake below the report bond", 9_000)
            .unwrap();
        let job = store.job(id(1)).unwrap().unwrap();
        assert_eq!(
            (job.attempts, job.next_attempt_at, job.last_error.as_deref()),
            (0, 9_000, Some("stake below the report bond"))
        );
        assert!(store.due_jobs(8_999, 0, 10).unwrap().is_empty());
        assert_eq!(store.due_jobs(9_000, 0, 10).unwrap().len(), 1);
        store.mark_reported(id(1), 0).unwrap();
        clock.advance(std::time::Duration::from_secs(1));
        store.mark_reported(id(1), 0).unwrap();
        let reported_at: i64 = store
            .conn()
            .query_row("SELECT reported_at FROM jobs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(reported_at, 5_000, "the first report time is kept");
        let job = store.job(id(1)).unwrap().unwrap();
        assert_eq!((job.stage, job.last_error), (Stage::Reported, None));
        let counts = store.counts().unwrap();
        assert_eq!((counts.total, counts.reported, counts.queued), (1, 1, 0));
    }
}
