//! Evidence submitted on-chain (`EvidenceSubmitted`) and the provisional runs it triggers.
//!
//! The watcher stores each confirmed submission in the same transaction as the questions of
//! its range and the cursor ([`Store::record_scan_with`]), unique by (question, index), so a
//! re-read overlap inserts nothing twice. Each row keeps its link of the contract's evidence
//! hash chain (`prev_head` → `evidence_head`), which the report repeats for auditors.
//!
//! A provisional run (a committee re-run while the question is open, never posted) is one
//! row of `provisional_runs`: how many submissions it saw and a JSON summary of its result.

use alloy::primitives::{Address, B256, Bytes, U256};
use rusqlite::params;
use serde::Serialize;

use crate::watcher::events::NewQuestion;

use super::{
    Job, Store, StoreError,
    clarifications::{StoredClarification, insert_clarifications},
    jobs::{insert_questions, set_cursor},
    sql::{Dec, Hex, RowReader, collect},
};

/// One confirmed `EvidenceSubmitted` log with its link of the evidence hash chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSubmission {
    /// Question id.
    pub question_id: U256,
    /// The question's item number, from 1.
    pub index: u64,
    /// Who submitted it (and paid the evidence fee).
    pub submitter: Address,
    /// URL, as the event's bytes.
    pub url: Bytes,
    /// Title, as the event's bytes.
    pub title: Bytes,
    /// Snippet, as the event's bytes.
    pub snippet: Bytes,
    /// The contract-wide evidence head before this item.
    pub prev_head: B256,
    /// The head after it (from the event).
    pub evidence_head: B256,
    /// Block of the log.
    pub block_number: u64,
    /// Hash of that block.
    pub block_hash: B256,
    /// Position of the log in its block.
    pub log_index: u64,
    /// The submitting transaction.
    pub tx_hash: Option<B256>,
}

/// What one scan stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStored {
    /// New questions.
    pub questions: usize,
    /// New submissions.
    pub submissions: usize,
}

/// One provisional run of a question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProvisionalRun {
    /// 1, 2, ... per question.
    pub run: u64,
    /// Submissions stored when it started (all of them entered its bundle's candidates).
    pub submissions: u64,
    /// Unix ms when it was recorded.
    pub created_at: i64,
    /// Root, posterior, counts and routing of the run (see `daemon::provisional`).
    pub summary: serde_json::Value,
}

/// A question that may need a provisional run: open, with submissions newer than its last run.
#[derive(Debug, Clone, PartialEq)]
pub struct ProvisionalCandidate {
    /// The job (stage `queued`: its final run has not started).
    pub job: Job,
    /// Submissions stored for it.
    pub submissions: u64,
    /// Submissions its last provisional run saw (0 when none ran).
    pub last_run_submissions: u64,
    /// Unix ms of its last provisional run, if any.
    pub last_run_at: Option<i64>,
}

const SUBMISSION_COLUMNS: &[&str] = &[
    "question_id",
    "idx",
    "submitter",
    "url",
    "title",
    "snippet",
    "prev_head",
    "evidence_head",
    "block_number",
    "block_hash",
    "log_index",
    "tx_hash",
];

fn submission_from_row(row: &rusqlite::Row<'_>) -> Result<StoredSubmission, StoreError> {
    let r = RowReader::new(row, "submissions", SUBMISSION_COLUMNS);
    Ok(StoredSubmission {
        question_id: r.get::<Dec<U256>>(0)?.0,
        index: r.get(1)?,
        submitter: r.get::<Hex<Address>>(2)?.0,
        url: Bytes::from(r.get::<Vec<u8>>(3)?),
        title: Bytes::from(r.get::<Vec<u8>>(4)?),
        snippet: Bytes::from(r.get::<Vec<u8>>(5)?),
        prev_head: r.get::<Hex<B256>>(6)?.0,
        evidence_head: r.get::<Hex<B256>>(7)?.0,
        block_number: r.get(8)?,
        block_hash: r.get::<Hex<B256>>(9)?.0,
        log_index: r.get(10)?,
        tx_hash: r.get::<Option<Hex<B256>>>(11)?.map(|h| h.0),
    })
}

impl Store {
    /// Store the questions, submissions and clarifications found in a scanned range and move
    /// the cursor past it, in one transaction. Known questions (same id), submissions and
    /// clarifications (same question and index) are ignored.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`]; nothing is written then.
    pub fn record_scan_with(
        &self,
        questions: &[NewQuestion],
        submissions: &[StoredSubmission],
        clarifications: &[StoredClarification],
        next_block: u64,
    ) -> Result<ScanStored, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let now = self.now_ms();
        let new_questions = insert_questions(&tx, questions, now)?;
        let mut new_submissions = 0;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT OR IGNORE INTO submissions (question_id, idx, submitter, url, title, \
                 snippet, prev_head, evidence_head, block_number, block_hash, log_index, tx_hash, \
                 seen_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?;
            for s in submissions {
                new_submissions += stmt.execute(params![
                    Dec(s.question_id),
                    s.index,
                    Hex(s.submitter),
                    s.url.as_ref(),
                    s.title.as_ref(),
                    s.snippet.as_ref(),
                    Hex(s.prev_head),
                    Hex(s.evidence_head),
                    s.block_number,
                    Hex(s.block_hash),
                    s.log_index,
                    s.tx_hash.map(Hex),
                    now,
                ])?;
            }
        }
        insert_clarifications(&tx, clarifications)?;
        set_cursor(&tx, next_block)?;
        tx.commit()?;
        // The connection's lock is not re-entrant: release it before announcing (which reads).
        drop(conn);
        self.announce_scan(questions, new_questions);
        Ok(ScanStored {
            questions: new_questions,
            submissions: new_submissions,
        })
    }

    /// The submissions of `question_id`, by index.
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] naming a row that does not parse.
    pub fn submissions(&self, question_id: U256) -> Result<Vec<StoredSubmission>, StoreError> {
        let sql = format!(
            "SELECT {} FROM submissions WHERE question_id = ?1 ORDER BY idx",
            SUBMISSION_COLUMNS.join(", ")
        );
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt.query([Dec(question_id)])?;
        collect(rows, submission_from_row)
    }

    /// Open questions whose stored submissions outnumber what their last provisional run saw.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn provisional_candidates(&self) -> Result<Vec<ProvisionalCandidate>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT s.question_id, s.n, COALESCE(p.seen, 0), p.at FROM \
             (SELECT question_id, COUNT(*) AS n FROM submissions GROUP BY question_id) s \
             JOIN jobs j ON j.question_id = s.question_id AND j.stage = 'queued' \
             LEFT JOIN (SELECT question_id, MAX(submissions) AS seen, MAX(created_at) AS at \
                        FROM provisional_runs GROUP BY question_id) p \
             ON p.question_id = s.question_id \
             WHERE s.n > COALESCE(p.seen, 0) ORDER BY j.block_number, j.log_index",
        )?;
        let rows = stmt.query([])?;
        let rows = collect(rows, |row| {
            let r = RowReader::new(row, "submissions", &["question_id", "n", "seen", "at"]);
            Ok((
                r.get::<Dec<U256>>(0)?.0,
                r.get::<u64>(1)?,
                r.get::<u64>(2)?,
                r.get::<Option<i64>>(3)?,
            ))
        })?;
        drop(stmt);
        drop(conn);
        let mut out = Vec::with_capacity(rows.len());
        for (id, submissions, last_run_submissions, last_run_at) in rows {
            if let Some(job) = self.job(id)? {
                out.push(ProvisionalCandidate {
                    job,
                    submissions,
                    last_run_submissions,
                    last_run_at,
                });
            }
        }
        Ok(out)
    }

    /// Record a provisional run of `question_id` that saw `submissions` items; returns its
    /// run number.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn record_provisional(
        &self,
        question_id: U256,
        submissions: u64,
        summary: &serde_json::Value,
    ) -> Result<u64, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let run: u64 = tx.query_row(
            "SELECT COALESCE(MAX(run), 0) + 1 FROM provisional_runs WHERE question_id = ?1",
            [Dec(question_id)],
            |r| r.get(0),
        )?;
        tx.execute(
            "INSERT INTO provisional_runs (question_id, run, submissions, summary, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                Dec(question_id),
                run,
                submissions,
                summary.to_string(),
                self.now_ms()
            ],
        )?;
        tx.commit()?;
        Ok(run)
    }

    /// The provisional runs of `question_id`, oldest first.
    ///
    /// # Errors
    /// [`StoreError`]; [`StoreError::Corrupt`] for a summary that is not JSON.
    pub fn provisional_runs(&self, question_id: U256) -> Result<Vec<ProvisionalRun>, StoreError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT question_id, run, submissions, summary, created_at FROM provisional_runs \
             WHERE question_id = ?1 ORDER BY run",
        )?;
        let rows = stmt.query([Dec(question_id)])?;
        collect(rows, |row| {
            let columns = &["question_id", "run", "submissions", "summary", "created_at"];
            let r = RowReader::new(row, "provisional_runs", columns);
            let text: String = r.get(3)?;
            let summary = serde_json::from_str(&text).map_err(|e| StoreError::Corrupt {
                table: "provisional_runs",
                row: question_id.to_string(),
                column: "summary",
                reason: e.to_string(),
            })?;
            Ok(ProvisionalRun {
                run: r.get(1)?,
                submissions: r.get(2)?,
                summary,
                created_at: r.get(4)?,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn question(n: u64) -> NewQuestion {
        NewQuestion {
            question_id: U256::from(n),
            question: format!("Question {n}?"),
            asker: Address::with_last_byte(1),
            question_hash: B256::from(U256::from(n)),
            block_number: 10,
            block_hash: B256::with_last_byte(10),
            tx_index: 0,
            log_index: n,
            resolve_after: 4_000_000_000,
            defect: None,
        }
    }

    fn submission(q: u64, index: u64) -> StoredSubmission {
        StoredSubmission {
            question_id: U256::from(q),
            index,
            submitter: Address::with_last_byte(7),
            url: Bytes::from_static(b"https://e.example/x"),
            title: Bytes::from_static(b"T"),
            // Not UTF-8: the store keeps the event's bytes exactly.
            snippet: Bytes::from(vec![0xff, 0x00, b'a']),
            prev_head: B256::with_last_byte(index as u8),
            evidence_head: B256::with_last_byte(index as u8 + 1),
            block_number: 11,
            block_hash: B256::with_last_byte(11),
            log_index: index,
            tx_hash: None,
        }
    }

    #[test]
    fn submissions_are_idempotent_and_drive_provisional_candidates() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let stored = store
            .record_scan_with(
                &[question(1)],
                &[submission(1, 1), submission(1, 2)],
                &[],
                12,
            )
            .unwrap();
        assert_eq!((stored.questions, stored.submissions), (1, 2));
        assert_eq!(store.cursor().unwrap(), Some(12));
        // A re-read overlap stores nothing twice.
        let again = store
            .record_scan_with(
                &[question(1)],
                &[submission(1, 2), submission(1, 3)],
                &[],
                13,
            )
            .unwrap();
        assert_eq!((again.questions, again.submissions), (0, 1));
        let all = store.submissions(U256::from(1)).unwrap();
        assert_eq!(all.iter().map(|s| s.index).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(all[0], submission(1, 1), "bytes and hashes round-trip");

        let candidates = store.provisional_candidates().unwrap();
        assert_eq!(candidates.len(), 1);
        assert_eq!(
            (
                candidates[0].submissions,
                candidates[0].last_run_submissions
            ),
            (3, 0)
        );
        let summary = serde_json::json!({"root": "0x01"});
        assert_eq!(
            store
                .record_provisional(U256::from(1), 3, &summary)
                .unwrap(),
            1
        );
        assert!(store.provisional_candidates().unwrap().is_empty());
        store
            .record_scan_with(&[], &[submission(1, 4)], &[], 14)
            .unwrap();
        assert_eq!(
            store.provisional_candidates().unwrap()[0].last_run_submissions,
            3
        );
        // Once the final run starts, no provisional run is due.
        store
            .set_stage(U256::from(1), super::super::Stage::Resolving)
            .unwrap();
        assert!(store.provisional_candidates().unwrap().is_empty());
        let runs = store.provisional_runs(U256::from(1)).unwrap();
        assert_eq!((runs[0].run, runs[0].submissions), (1, 3));
        assert_eq!(runs[0].summary, summary);
    }
}
