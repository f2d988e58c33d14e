//! Node state in SQLite: the block cursor, the jobs and their stage, the intent to post, and
//! the transactions sent.
//!
//! One file (`<data_dir>/veritas.sqlite`, WAL journal) that operators can inspect with the
//! `sqlite3` CLI. The exactly-once argument rests on three rows written in this order:
//!
//! 1. a **job** when the watcher sees a confirmed `QuestionAsked` (unique by question id, so
//!    re-reading an overlap after a restart inserts nothing new);
//! 2. a **post intent** once the report file is written: the exact integers to post. A job with
//!    an intent is never resolved again, so a restart posts the numbers the report holds;
//! 3. a **sent tx** (hash, nonce, fees, signed bytes) *before* the transaction is broadcast, so
//!    a crash right after broadcasting still leaves a record to look the receipt up by.
//!
//! The poster also asks the contract (`verdictStatus`) before every send; the contract itself
//! refuses a second verdict. The store keeps the node from even trying.
//!
//! Calls are synchronous behind a `std::sync::Mutex`: every statement is a primary-key lookup
//! or a small indexed scan that takes microseconds, so holding the lock never stalls the
//! runtime for long, and one connection keeps SQLite's locking trivial.
//!
//! The module is split by concern: [`schema`] (tables and migrations), [`jobs`] (cursor,
//! jobs, stages), [`intents`] (post intents), [`commitments`] (commit-reveal salts), [`txs`] (sent transactions), [`lifecycle`]
//! (the chain's view after the reports: verdict, dispute, ruling, expiry) and [`submissions`]
//! (evidence submitted on-chain, provisional runs), [`clarifications`] (the asker's
//! clarifications); [`sql`] holds
//! the typed column encodings (ids, roots and 1e18 values as `U256`/`B256`/`I256`).

mod clarifications;
mod commitments;
mod deferrals;
mod intents;
mod jobs;
mod lifecycle;
mod overview;
mod schema;
pub(crate) mod sql;
mod submissions;
mod txs;

use std::{
    path::Path,
    sync::{Mutex, MutexGuard},
};

use rusqlite::Connection;

use crate::clock::{self, Clock as _, SharedClock};

pub use clarifications::StoredClarification;
pub use commitments::SavedCommit;
pub use deferrals::Deferral;
pub use intents::PostIntent;
pub use jobs::{Counts, Job, Stage, Wait};
pub use lifecycle::{ChainStatus, Lifecycle};
pub use overview::{ChangeHook, QuestionSummary};
use schema::{SCHEMA_VERSION, migrate};
pub use submissions::{ProvisionalCandidate, ProvisionalRun, ScanStored, StoredSubmission};
pub use txs::{SentTx, TxStatus};

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused or failed.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The data directory could not be created.
    #[error("data directory {path}: {error}")]
    Io {
        /// The directory.
        path: String,
        /// The OS error.
        error: std::io::Error,
    },
    /// A row holds a value this version cannot read (never read as 0 or saturated).
    #[error("corrupt {table} row {row}: column {column}: {reason}")]
    Corrupt {
        /// The table.
        table: &'static str,
        /// The row's key (question id or transaction hash) as stored.
        row: String,
        /// The column.
        column: &'static str,
        /// What is wrong with its value.
        reason: String,
    },
    /// Another node holds the data directory.
    #[error("data directory {0} is in use by another veritas node")]
    Locked(String),
    /// A report of round `report` reached the store after the question moved on to round
    /// `job` (a deferral was applied meanwhile): it answers a round that no longer exists.
    #[error("question {question}: a report of round {report}, but the question is in round {job}")]
    StaleRound {
        /// The question.
        question: alloy::primitives::U256,
        /// The round the report answered.
        report: u32,
        /// The job's round now.
        job: u32,
    },
    /// The schema is newer than this binary.
    #[error(
        "database schema version {0} is newer than this node ({SCHEMA_VERSION}); upgrade veritas"
    )]
    TooNew(i64),
}

impl StoreError {
    /// Whether retrying may succeed (the database was busy or locked).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _))
                if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        )
    }
}

/// Unix time in milliseconds on the system clock.
///
/// Kept only for the code not yet handed the store's clock (the chain watcher and the
/// lifecycle table, both being moved to the contract's next ABI); everything else reads
/// [`Store::clock`], so a test can move time instead of sleeping.
pub fn now_ms() -> i64 {
    clock::SystemClock.now_ms()
}

/// The node's SQLite store.
#[derive(Debug)]
pub struct Store {
    conn: Mutex<Connection>,
    /// Held for the store's lifetime when opened with [`Store::open_in`]: an exclusive lock on
    /// `<data_dir>/veritas.lock`, so two nodes never share a data directory (they would race
    /// for nonces). The OS drops it when the process dies, even on SIGKILL.
    _lock: Option<Mutex<Connection>>,
    /// What every change of a question is reported to (the web view's list), once set.
    on_change: overview::OnChange,
    /// The node's clock: every stamp written here and every deadline computed from one.
    clock: SharedClock,
}

/// The lock file inside the data directory.
pub const LOCK_FILE: &str = "veritas.lock";

/// The file name of the store inside the data directory.
pub const FILE_NAME: &str = "veritas.sqlite";

impl Store {
    /// Open (or create) `<data_dir>/veritas.sqlite` in WAL mode and migrate it, after taking
    /// the data directory's lock.
    ///
    /// # Errors
    /// [`StoreError::Locked`] when another node uses the directory; [`StoreError`] when the
    /// directory or database cannot be opened or is from a newer node.
    pub fn open_in(data_dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|error| StoreError::Io {
            path: data_dir.display().to_string(),
            error,
        })?;
        let lock = Connection::open(data_dir.join(LOCK_FILE))?;
        lock.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
        // A node that is still exiting gets a moment to let go.
        lock.busy_timeout(std::time::Duration::from_secs(1))?;
        let locked = lock.execute_batch(
            "CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY); BEGIN EXCLUSIVE; \
             INSERT OR REPLACE INTO lock (id) VALUES (1); COMMIT;",
        );
        match locked {
            Ok(()) => {}
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) =>
            {
                return Err(StoreError::Locked(data_dir.display().to_string()));
            }
            Err(e) => return Err(e.into()),
        }
        let mut store = Self::open(&data_dir.join(FILE_NAME))?;
        store._lock = Some(Mutex::new(lock));
        Ok(store)
    }

    /// Open (or create) the database file at `path` in WAL mode and migrate it.
    ///
    /// # Errors
    /// [`StoreError`] when the database cannot be opened or is from a newer node.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let mut conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // NORMAL is durable across process crashes in WAL mode (only an OS crash can lose the
        // last commits), which is the failure the exactly-once argument must survive.
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrate(&mut conn)?;
        Ok(Self {
            conn: Mutex::new(conn),
            _lock: None,
            on_change: overview::OnChange::default(),
            clock: clock::system(),
        })
    }

    /// A read-only handle on the store in `data_dir` of a node that may be running (WAL lets
    /// it read while the node writes): the integration tests check what a node recorded
    /// through the store's own typed reads ([`Store::job`], [`Store::jobs`],
    /// [`Store::submissions`], ...) instead of SQL against its schema, which then lives in one
    /// place. No lock, no migration, no write.
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be opened (for instance, before the node made it).
    #[cfg(any(test, feature = "test-utils"))]
    pub fn open_read_only(data_dir: &Path) -> Result<Self, StoreError> {
        let conn = Connection::open_with_flags(
            data_dir.join(FILE_NAME),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        Ok(Self {
            conn: Mutex::new(conn),
            _lock: None,
            on_change: overview::OnChange::default(),
            clock: clock::system(),
        })
    }

    /// The same store on `clock` (a test's [`clock::ManualClock`]) instead of the system's.
    #[must_use]
    pub fn with_clock(mut self, clock: SharedClock) -> Self {
        self.clock = clock;
        self
    }

    /// The node's clock. Components that hold the store read the time here, so the stamps
    /// in the database and the deadlines computed from them come from one clock.
    pub fn clock(&self) -> &SharedClock {
        &self.clock
    }

    /// Unix milliseconds on the store's clock.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written (statements are
        // atomic), so a poisoned lock is still safe to use.
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use alloy::primitives::{Address, B256, I256, U256};

    use crate::commitment::root::Root;

    use super::*;
    use crate::watcher::events::NewQuestion;

    pub(crate) fn id(n: u64) -> U256 {
        U256::from(n)
    }

    pub(crate) fn question(n: u64, block: u64) -> NewQuestion {
        NewQuestion {
            question_id: id(n),
            question: format!("Question {n}?"),
            asker: Address::with_last_byte(1),
            question_hash: B256::from(U256::from(n)),
            block_number: block,
            block_hash: B256::from(U256::from(block)),
            tx_index: 0,
            log_index: n,
            resolve_after: 0,
            defect: None,
        }
    }

    pub(crate) fn intent(n: u64, report: &str) -> PostIntent {
        PostIntent {
            not_yet: false,
            round: 0,
            question_id: id(n),
            merkle_root: Root::from(B256::from(U256::from(7))),
            kappa: I256::try_from(-1000).unwrap(),
            counts: Some([2, 1, 1]),
            escalated: false,
            report_path: report.into(),
        }
    }

    #[test]
    fn survives_reopen_and_ignores_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open_in(dir.path()).unwrap();
            assert_eq!(store.cursor().unwrap(), None);
            assert_eq!(
                store
                    .record_scan(&[question(1, 10), question(2, 11)], 12)
                    .unwrap(),
                2
            );
        }
        let store = Store::open_in(dir.path()).unwrap();
        assert_eq!(store.cursor().unwrap(), Some(12));
        // Re-reading an overlap inserts nothing and may move the cursor.
        assert_eq!(
            store
                .record_scan(&[question(2, 11), question(3, 13)], 14)
                .unwrap(),
            1
        );
        assert_eq!(store.cursor().unwrap(), Some(14));
        let mode: String = store
            .conn()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let version: i64 = store
            .conn()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
    }

    #[test]
    fn stamps_and_changes_read_the_store_clock() {
        let dir = tempfile::tempdir().unwrap();
        let clock = std::sync::Arc::new(clock::ManualClock::at_ms(1_000_000));
        let store = Store::open_in(dir.path())
            .unwrap()
            .with_clock(std::sync::Arc::clone(&clock) as SharedClock);
        let changed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = std::sync::Arc::clone(&changed);
        store.on_change(Box::new(move |store, id| {
            let summary = store.question_summary(id).unwrap().unwrap();
            seen.lock()
                .unwrap()
                .push((summary.status, summary.updated_ms));
        }));
        store.record_scan(&[question(1, 10)], 11).unwrap();
        let job = store.job(id(1)).unwrap().unwrap();
        assert_eq!((job.seen_at, job.updated_at), (1_000_000, 1_000_000));
        clock.advance(std::time::Duration::from_secs(90));
        store.set_stage(id(1), Stage::Resolving).unwrap();
        assert_eq!(store.job(id(1)).unwrap().unwrap().updated_at, 1_090_000);
        assert_eq!(
            *changed.lock().unwrap(),
            [("queued", 1_000_000), ("resolving", 1_090_000)]
        );
    }

    #[test]
    fn first_intent_wins_and_moves_to_posting() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store.record_scan(&[question(1, 10)], 11).unwrap();
        store.set_stage(id(1), Stage::Resolving).unwrap();
        let first = store.save_intent(&intent(1, "a.json")).unwrap();
        let second = store.save_intent(&intent(1, "b.json")).unwrap();
        assert_eq!(first, second);
        assert_eq!(first, intent(1, "a.json"), "typed values round-trip");
        assert_eq!(second.report_path, "a.json");
        assert_eq!(store.job(id(1)).unwrap().unwrap().stage, Stage::Posting);
        // A crash leaves it in `posting`: it is due again and keeps its intent.
        let due = store.due_jobs(now_ms(), 0, 10).unwrap();
        assert_eq!(due.len(), 1);
        assert_eq!(store.intents_by_root(first.merkle_root).unwrap().len(), 1);
    }

    #[test]
    fn transactions_and_counts() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store
            .record_scan(&[question(1, 10), question(2, 10)], 11)
            .unwrap();
        let mut escalated = intent(1, "r.json");
        escalated.escalated = true;
        store.save_intent(&escalated).unwrap();
        let tx = SentTx {
            tx_hash: B256::with_last_byte(0xab),
            question_id: id(1),
            nonce: 4,
            gas_limit: 90_000,
            max_fee_per_gas: 2_000_000_000,
            max_priority_fee_per_gas: 1_000_000_000,
            raw: vec![2u8].into(),
            status: TxStatus::Pending,
            block_number: None,
            sent_at: now_ms(),
        };
        store.record_tx(&tx).unwrap();
        store
            .set_tx_status(B256::with_last_byte(0xab), TxStatus::Mined, Some(12))
            .unwrap();
        let txs = store.txs_for(id(1)).unwrap();
        assert_eq!(txs.len(), 1);
        assert_eq!(
            (txs[0].status, txs[0].block_number, txs[0].nonce),
            (TxStatus::Mined, Some(12), 4)
        );
        assert_eq!(
            txs[0],
            SentTx {
                status: TxStatus::Mined,
                block_number: Some(12),
                ..tx
            }
        );
        store.mark_reported(id(1), 0).unwrap();
        let counts = store.counts().unwrap();
        assert_eq!(
            counts,
            Counts {
                total: 2,
                queued: 1,
                resolving: 0,
                posting: 0,
                reported: 1,
                escalated: 1,
                failed: 0,
                by_stage: [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
                posting_by_wait: [0; 4],
            }
        );
    }

    #[test]
    fn an_intent_saved_at_schema_5_keeps_what_is_sent_after_the_migration() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.sqlite");
        {
            let conn = Connection::open(&path).unwrap();
            for sql in &schema::MIGRATIONS[..5] {
                conn.execute_batch(sql).unwrap();
            }
            conn.pragma_update(None, "user_version", 5).unwrap();
            conn.execute_batch(&format!(
                "INSERT INTO jobs (question_id, question, asker, question_hash, block_number, \
                 block_hash, tx_index, log_index, resolve_after, stage, seen_at, updated_at) \
                 VALUES ('5', 'Question 5?', '{asker}', '{hash}', 10, '{hash}', 0, 0, 0, 'posting', 1, 1); \
                 INSERT INTO post_intents (question_id, merkle_root, p_yes, p_no, p_null, kappa, \
                 escalated, report_path, created_at, n_yes, n_no, n_null) VALUES ('5', '{root}', \
                 '500000000000000000', '250000000000000000', '250000000000000000', '-1000', 0, \
                 'r.json', 1, 2, 1, 1);",
                asker = Address::with_last_byte(1),
                hash = B256::from(U256::from(5)),
                root = B256::from(U256::from(7)),
            ))
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.intent(id(5)).unwrap(), Some(intent(5, "r.json")));
        let columns: Vec<String> = store
            .conn()
            .prepare("SELECT name FROM pragma_table_info('post_intents')")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(!columns.iter().any(|c| c.starts_with("p_")), "{columns:?}");
    }

    /// A Merkle root's column holds the `0x` text the `B256` before it wrote (an old row
    /// reads, a written row is unchanged), and a value that is not a root is named.
    #[test]
    fn a_root_is_stored_as_its_0x_text() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store.record_scan(&[question(5, 10)], 11).unwrap();
        let saved = store.save_intent(&intent(5, "r.json")).unwrap();
        let text: String = store
            .conn()
            .query_row(
                "SELECT merkle_root FROM post_intents WHERE question_id = '5'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            text,
            "0x0000000000000000000000000000000000000000000000000000000000000007"
        );
        assert_eq!(text, B256::from(U256::from(7)).to_string());
        assert_eq!(saved.merkle_root.to_string(), text);
        assert_eq!(store.intents_by_root(saved.merkle_root).unwrap(), [saved]);

        let corrupt = |sql: &str| store.conn().execute(sql, []).unwrap();
        corrupt("UPDATE post_intents SET merkle_root = '0x07' WHERE question_id = '5'");
        let err = store.intent(id(5)).unwrap_err().to_string();
        assert_eq!(
            err,
            "corrupt post_intents row 5: column merkle_root: Conversion error from type Text at \
             index: 1, \"0x07\": not a Merkle root (0x and 64 hex digits): invalid string length"
        );
    }

    #[test]
    fn a_corrupt_row_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store.record_scan(&[question(5, 10)], 11).unwrap();
        store.save_intent(&intent(5, "r.json")).unwrap();
        let corrupt = |sql: &str| store.conn().execute(sql, []).unwrap();

        corrupt("UPDATE post_intents SET kappa = '-1e3' WHERE question_id = '5'");
        let err = store.intent(id(5)).unwrap_err().to_string();
        assert!(
            err.contains("post_intents row 5") && err.contains("kappa"),
            "{err}"
        );

        corrupt("UPDATE jobs SET block_number = -3 WHERE question_id = '5'");
        let err = store.job(id(5)).unwrap_err().to_string();
        assert!(
            err.contains("jobs row 5") && err.contains("block_number"),
            "{err}"
        );
        let err = store.due_jobs(now_ms(), 0, 10).unwrap_err().to_string();
        assert!(err.contains("jobs row 5"), "{err}");

        corrupt("UPDATE jobs SET block_number = 10, stage = 'postd' WHERE question_id = '5'");
        let err = store.job(id(5)).unwrap_err().to_string();
        assert!(err.contains("stage") && err.contains("postd"), "{err}");
    }

    #[test]
    fn one_node_per_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let first = Store::open_in(dir.path()).unwrap();
        assert!(matches!(
            Store::open_in(dir.path()),
            Err(StoreError::Locked(_))
        ));
        drop(first);
        Store::open_in(dir.path()).unwrap();
    }

    #[test]
    fn refuses_a_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.sqlite");
        {
            let conn = Connection::open(&path).unwrap();
            conn.pragma_update(None, "user_version", 99).unwrap();
        }
        assert!(matches!(Store::open(&path), Err(StoreError::TooNew(99))));
    }
}
