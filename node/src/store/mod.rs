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

use std::{
    path::Path,
    sync::{Mutex, MutexGuard},
    time::{SystemTime, UNIX_EPOCH},
};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

/// Current schema version (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 1;

/// Migrations by `user_version`: entry `i` upgrades version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[r#"
CREATE TABLE cursor (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    next_block  INTEGER NOT NULL
);
CREATE TABLE jobs (
    question_id     TEXT PRIMARY KEY,          -- decimal uint256
    question        TEXT NOT NULL,
    asker           TEXT NOT NULL,
    question_hash   TEXT NOT NULL,             -- 0x sha256 from the event
    block_number    INTEGER NOT NULL,
    block_hash      TEXT NOT NULL,
    tx_index        INTEGER NOT NULL,
    log_index       INTEGER NOT NULL,
    resolve_after   INTEGER NOT NULL,          -- unix seconds (0 = at once)
    stage           TEXT NOT NULL,             -- queued | resolving | posting | posted | failed
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    next_attempt_at INTEGER NOT NULL DEFAULT 0, -- unix ms
    seen_at         INTEGER NOT NULL,           -- unix ms
    updated_at      INTEGER NOT NULL            -- unix ms
);
CREATE INDEX jobs_due ON jobs (stage, next_attempt_at);
CREATE TABLE post_intents (
    question_id   TEXT PRIMARY KEY REFERENCES jobs (question_id),
    merkle_root   TEXT NOT NULL,               -- 0x bytes32
    p_yes         TEXT NOT NULL,               -- decimal, 1e18 scale
    p_no          TEXT NOT NULL,
    p_null        TEXT NOT NULL,
    kappa         TEXT NOT NULL,               -- signed decimal, 1e18 scale
    escalated     INTEGER NOT NULL,
    report_path   TEXT NOT NULL,
    created_at    INTEGER NOT NULL
);
CREATE INDEX post_intents_root ON post_intents (merkle_root);
CREATE TABLE sent_txs (
    tx_hash                  TEXT PRIMARY KEY,
    question_id              TEXT NOT NULL REFERENCES jobs (question_id),
    nonce                    INTEGER NOT NULL,
    gas_limit                INTEGER NOT NULL,
    max_fee_per_gas          TEXT NOT NULL,
    max_priority_fee_per_gas TEXT NOT NULL,
    raw                      TEXT NOT NULL,    -- 0x signed transaction, for rebroadcast
    status                   TEXT NOT NULL,    -- pending | mined | reverted | dropped
    block_number             INTEGER,
    sent_at                  INTEGER NOT NULL
);
CREATE INDEX sent_txs_question ON sent_txs (question_id);
"#];

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
    /// A row holds a value this version cannot read.
    #[error("corrupt row: {what} = {value:?}")]
    Corrupt {
        /// Which column.
        what: &'static str,
        /// What it held.
        value: String,
    },
    /// Another node holds the data directory.
    #[error("data directory {0} is in use by another veritas node")]
    Locked(String),
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
    /// The verdict is on-chain.
    Posted,
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
            Stage::Posted => "posted",
            Stage::Failed => "failed",
        }
    }

    fn parse(s: &str) -> Result<Self, StoreError> {
        Ok(match s {
            "queued" => Stage::Queued,
            "resolving" => Stage::Resolving,
            "posting" => Stage::Posting,
            "posted" => Stage::Posted,
            "failed" => Stage::Failed,
            other => {
                return Err(StoreError::Corrupt {
                    what: "jobs.stage",
                    value: other.into(),
                });
            }
        })
    }

    /// Every stage, for metrics.
    pub const ALL: [Stage; 5] = [
        Stage::Queued,
        Stage::Resolving,
        Stage::Posting,
        Stage::Posted,
        Stage::Failed,
    ];
}

/// A question as the watcher saw it in a confirmed `QuestionAsked` log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NewQuestion {
    /// Question id (decimal).
    pub question_id: String,
    /// The full text from the event.
    pub question: String,
    /// The asker's address (0x hex).
    pub asker: String,
    /// sha256 of the text as the contract computed it (0x hex).
    pub question_hash: String,
    /// Block of the log.
    pub block_number: u64,
    /// Hash of that block (0x hex).
    pub block_hash: String,
    /// Transaction index in the block.
    pub tx_index: u64,
    /// Log index in the block.
    pub log_index: u64,
    /// Earliest unix time a verdict may be posted (0 = at once).
    pub resolve_after: u64,
}

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
}

/// The exact verdict to post, saved once the report file is on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PostIntent {
    /// Question id (decimal).
    pub question_id: String,
    /// Merkle root (0x bytes32).
    pub merkle_root: String,
    /// 1e18-scaled YES (decimal).
    pub p_yes: String,
    /// 1e18-scaled NO (decimal).
    pub p_no: String,
    /// 1e18-scaled NULL (decimal).
    pub p_null: String,
    /// 1e18-scaled signed kappa (decimal).
    pub kappa: String,
    /// Whether routing escalated the verdict.
    pub escalated: bool,
    /// Path of the report file.
    pub report_path: String,
}

/// Status of a sent transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TxStatus {
    /// Broadcast (or about to be), no receipt yet.
    Pending,
    /// Mined and succeeded.
    Mined,
    /// Mined and reverted.
    Reverted,
    /// Never mined: its nonce was used by another transaction, or it was never broadcast.
    Dropped,
}

impl TxStatus {
    fn as_str(self) -> &'static str {
        match self {
            TxStatus::Pending => "pending",
            TxStatus::Mined => "mined",
            TxStatus::Reverted => "reverted",
            TxStatus::Dropped => "dropped",
        }
    }

    fn parse(s: &str) -> Result<Self, StoreError> {
        Ok(match s {
            "pending" => TxStatus::Pending,
            "mined" => TxStatus::Mined,
            "reverted" => TxStatus::Reverted,
            "dropped" => TxStatus::Dropped,
            other => {
                return Err(StoreError::Corrupt {
                    what: "sent_txs.status",
                    value: other.into(),
                });
            }
        })
    }
}

/// A signed verdict transaction, recorded before broadcast.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SentTx {
    /// Transaction hash (0x).
    pub tx_hash: String,
    /// Question id (decimal).
    pub question_id: String,
    /// Account nonce.
    pub nonce: u64,
    /// Gas limit.
    pub gas_limit: u64,
    /// EIP-1559 max fee per gas (wei, decimal).
    pub max_fee_per_gas: String,
    /// EIP-1559 priority fee per gas (wei, decimal).
    pub max_priority_fee_per_gas: String,
    /// The signed transaction (0x EIP-2718 bytes), to rebroadcast the very same transaction.
    pub raw: String,
    /// Where it is.
    pub status: TxStatus,
    /// Block it was mined in.
    pub block_number: Option<u64>,
    /// Unix ms when it was recorded.
    pub sent_at: i64,
}

/// Unix time in milliseconds.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// The node's SQLite store.
#[derive(Debug)]
pub struct Store {
    conn: Mutex<Connection>,
    /// Held for the store's lifetime when opened with [`Store::open_in`]: an exclusive lock on
    /// `<data_dir>/veritas.lock`, so two nodes never share a data directory (they would race
    /// for nonces). The OS drops it when the process dies, even on SIGKILL.
    _lock: Option<Mutex<Connection>>,
}

/// The lock file inside the data directory.
pub const LOCK_FILE: &str = "veritas.lock";

/// The file name of the store inside the data directory.
pub const FILE_NAME: &str = "veritas.sqlite";

fn to_i64(v: u64) -> i64 {
    // Block numbers, indexes and nonces are far below 2^63.
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn to_u64(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

const JOB_COLUMNS: &str = "question_id, question, asker, question_hash, block_number, block_hash, \
     tx_index, log_index, resolve_after, stage, attempts, last_error, next_attempt_at, seen_at, updated_at";

fn job_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(Job, String)> {
    let stage: String = row.get(9)?;
    Ok((
        Job {
            question: NewQuestion {
                question_id: row.get(0)?,
                question: row.get(1)?,
                asker: row.get(2)?,
                question_hash: row.get(3)?,
                block_number: to_u64(row.get(4)?),
                block_hash: row.get(5)?,
                tx_index: to_u64(row.get(6)?),
                log_index: to_u64(row.get(7)?),
                resolve_after: to_u64(row.get(8)?),
            },
            stage: Stage::Queued,
            attempts: u32::try_from(row.get::<_, i64>(10)?).unwrap_or(u32::MAX),
            last_error: row.get(11)?,
            next_attempt_at: row.get(12)?,
            seen_at: row.get(13)?,
            updated_at: row.get(14)?,
        },
        stage,
    ))
}

fn finish_job((mut job, stage): (Job, String)) -> Result<Job, StoreError> {
    job.stage = Stage::parse(&stage)?;
    Ok(job)
}

const TX_COLUMNS: &str = "tx_hash, question_id, nonce, gas_limit, max_fee_per_gas, \
     max_priority_fee_per_gas, raw, status, block_number, sent_at";

fn tx_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(SentTx, String)> {
    let status: String = row.get(7)?;
    Ok((
        SentTx {
            tx_hash: row.get(0)?,
            question_id: row.get(1)?,
            nonce: to_u64(row.get(2)?),
            gas_limit: to_u64(row.get(3)?),
            max_fee_per_gas: row.get(4)?,
            max_priority_fee_per_gas: row.get(5)?,
            raw: row.get(6)?,
            status: TxStatus::Pending,
            block_number: row.get::<_, Option<i64>>(8)?.map(to_u64),
            sent_at: row.get(9)?,
        },
        status,
    ))
}

fn finish_tx((mut tx, status): (SentTx, String)) -> Result<SentTx, StoreError> {
    tx.status = TxStatus::parse(&status)?;
    Ok(tx)
}

const INTENT_COLUMNS: &str =
    "question_id, merkle_root, p_yes, p_no, p_null, kappa, escalated, report_path";

fn intent_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<PostIntent> {
    Ok(PostIntent {
        question_id: row.get(0)?,
        merkle_root: row.get(1)?,
        p_yes: row.get(2)?,
        p_no: row.get(3)?,
        p_null: row.get(4)?,
        kappa: row.get(5)?,
        escalated: row.get(6)?,
        report_path: row.get(7)?,
    })
}

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
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written (statements are
        // atomic), so a poisoned lock is still safe to use.
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The next block the watcher should scan, if it has scanned before.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn cursor(&self) -> Result<Option<u64>, StoreError> {
        let next: Option<i64> = self
            .conn()
            .query_row("SELECT next_block FROM cursor WHERE id = 1", [], |r| {
                r.get(0)
            })
            .optional()?;
        Ok(next.map(to_u64))
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
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let now = now_ms();
        let mut inserted = 0;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT OR IGNORE INTO jobs (question_id, question, asker, question_hash, block_number, \
                 block_hash, tx_index, log_index, resolve_after, stage, seen_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'queued', ?10, ?10)",
            )?;
            for q in questions {
                inserted += stmt.execute(params![
                    q.question_id,
                    q.question,
                    q.asker,
                    q.question_hash,
                    to_i64(q.block_number),
                    q.block_hash,
                    to_i64(q.tx_index),
                    to_i64(q.log_index),
                    to_i64(q.resolve_after),
                    now,
                ])?;
            }
        }
        tx.execute(
            "INSERT INTO cursor (id, next_block) VALUES (1, ?1) \
             ON CONFLICT (id) DO UPDATE SET next_block = excluded.next_block",
            params![to_i64(next_block)],
        )?;
        tx.commit()?;
        if inserted > 0 {
            crate::crashpoint::hit("scan.recorded");
        }
        Ok(inserted)
    }

    /// One job by question id.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn job(&self, question_id: &str) -> Result<Option<Job>, StoreError> {
        let sql = format!("SELECT {JOB_COLUMNS} FROM jobs WHERE question_id = ?1");
        let row = self
            .conn()
            .query_row(&sql, [question_id], job_from_row)
            .optional()?;
        row.map(finish_job).transpose()
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
            "SELECT {JOB_COLUMNS} FROM jobs WHERE stage IN ('queued', 'resolving', 'posting') \
             AND next_attempt_at <= ?1 AND resolve_after <= ?2 \
             ORDER BY block_number, log_index LIMIT ?3"
        );
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&sql)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(params![now_ms, to_i64(now_secs), limit], job_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter().map(finish_job).collect()
    }

    /// Move a job to `stage` (clearing its retry delay).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn set_stage(&self, question_id: &str, stage: Stage) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE jobs SET stage = ?2, updated_at = ?3 WHERE question_id = ?1",
            params![question_id, stage.as_str(), now_ms()],
        )?;
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
        question_id: &str,
        reason: &str,
        retry_at_ms: Option<i64>,
    ) -> Result<(), StoreError> {
        let now = now_ms();
        match retry_at_ms {
            Some(at) => self.conn().execute(
                "UPDATE jobs SET attempts = attempts + 1, last_error = ?2, next_attempt_at = ?3, \
                 updated_at = ?4 WHERE question_id = ?1",
                params![question_id, reason, at, now],
            )?,
            None => self.conn().execute(
                "UPDATE jobs SET attempts = attempts + 1, last_error = ?2, stage = 'failed', \
                 updated_at = ?3 WHERE question_id = ?1",
                params![question_id, reason, now],
            )?,
        };
        Ok(())
    }

    /// Delay a job without counting an attempt (e.g. the chain's clock is before `resolveAfter`).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn defer(&self, question_id: &str, until_ms: i64) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE jobs SET next_attempt_at = ?2, updated_at = ?3 WHERE question_id = ?1",
            params![question_id, until_ms, now_ms()],
        )?;
        Ok(())
    }

    /// Save the verdict to post and move the job to `posting`, atomically. The first intent
    /// wins: a second call for the same question keeps the first one and returns it.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn save_intent(&self, intent: &PostIntent) -> Result<PostIntent, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT OR IGNORE INTO post_intents (question_id, merkle_root, p_yes, p_no, p_null, kappa, \
             escalated, report_path, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                intent.question_id,
                intent.merkle_root,
                intent.p_yes,
                intent.p_no,
                intent.p_null,
                intent.kappa,
                intent.escalated,
                intent.report_path,
                now_ms()
            ],
        )?;
        tx.execute(
            "UPDATE jobs SET stage = 'posting', updated_at = ?2 WHERE question_id = ?1 \
             AND stage IN ('queued', 'resolving')",
            params![intent.question_id, now_ms()],
        )?;
        let sql = format!("SELECT {INTENT_COLUMNS} FROM post_intents WHERE question_id = ?1");
        let saved = tx.query_row(&sql, [&intent.question_id], intent_from_row)?;
        tx.commit()?;
        Ok(saved)
    }

    /// The saved intent of a question.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn intent(&self, question_id: &str) -> Result<Option<PostIntent>, StoreError> {
        let sql = format!("SELECT {INTENT_COLUMNS} FROM post_intents WHERE question_id = ?1");
        Ok(self
            .conn()
            .query_row(&sql, [question_id], intent_from_row)
            .optional()?)
    }

    /// The intents committed to a Merkle root (normally one), for `/bundles/{root}`.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn intents_by_root(&self, merkle_root: &str) -> Result<Vec<PostIntent>, StoreError> {
        let sql = format!(
            "SELECT {INTENT_COLUMNS} FROM post_intents WHERE lower(merkle_root) = lower(?1) \
             ORDER BY created_at"
        );
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt
            .query_map([merkle_root], intent_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Record a signed transaction before it is broadcast.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn record_tx(&self, tx: &SentTx) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT OR REPLACE INTO sent_txs (tx_hash, question_id, nonce, gas_limit, max_fee_per_gas, \
             max_priority_fee_per_gas, raw, status, block_number, sent_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                tx.tx_hash,
                tx.question_id,
                to_i64(tx.nonce),
                to_i64(tx.gas_limit),
                tx.max_fee_per_gas,
                tx.max_priority_fee_per_gas,
                tx.raw,
                tx.status.as_str(),
                tx.block_number.map(to_i64),
                tx.sent_at
            ],
        )?;
        crate::crashpoint::hit("tx.recorded");
        Ok(())
    }

    /// Update a transaction's status (and block when mined).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn set_tx_status(
        &self,
        tx_hash: &str,
        status: TxStatus,
        block_number: Option<u64>,
    ) -> Result<(), StoreError> {
        if status == TxStatus::Mined {
            crate::crashpoint::hit("tx.mined");
        }
        self.conn().execute(
            "UPDATE sent_txs SET status = ?2, block_number = COALESCE(?3, block_number) WHERE tx_hash = ?1",
            params![tx_hash, status.as_str(), block_number.map(to_i64)],
        )?;
        Ok(())
    }

    /// Every transaction sent for a question, oldest first.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn txs_for(&self, question_id: &str) -> Result<Vec<SentTx>, StoreError> {
        let sql = format!(
            "SELECT {TX_COLUMNS} FROM sent_txs WHERE question_id = ?1 ORDER BY sent_at, nonce"
        );
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt
            .query_map([question_id], tx_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        rows.into_iter().map(finish_tx).collect()
    }

    /// Mark a job posted (its verdict is on-chain).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn mark_posted(&self, question_id: &str) -> Result<(), StoreError> {
        self.conn().execute(
            "UPDATE jobs SET stage = 'posted', last_error = NULL, updated_at = ?2 WHERE question_id = ?1",
            params![question_id, now_ms()],
        )?;
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
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        for (stage, n) in rows {
            let n = to_u64(n);
            counts.total += n;
            match Stage::parse(&stage)? {
                Stage::Queued => counts.queued = n,
                Stage::Resolving => counts.resolving = n,
                Stage::Posting => counts.posting = n,
                Stage::Posted => counts.posted = n,
                Stage::Failed => counts.failed = n,
            }
        }
        counts.escalated = to_u64(conn.query_row(
            "SELECT COUNT(*) FROM jobs j JOIN post_intents i USING (question_id) \
             WHERE j.stage = 'posted' AND i.escalated = 1",
            [],
            |r| r.get(0),
        )?);
        Ok(counts)
    }
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
    /// Verdict on-chain (resolved or escalated).
    pub posted: u64,
    /// Of the posted, how many were escalated.
    pub escalated: u64,
    /// Given up.
    pub failed: u64,
}

fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(StoreError::TooNew(version));
    }
    for (from, sql) in MIGRATIONS.iter().enumerate().skip(to_u64(version) as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", from as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn question(id: u64, block: u64) -> NewQuestion {
        NewQuestion {
            question_id: id.to_string(),
            question: format!("Question {id}?"),
            asker: "0x0000000000000000000000000000000000000001".into(),
            question_hash: format!("0x{:064x}", id),
            block_number: block,
            block_hash: format!("0x{:064x}", block),
            tx_index: 0,
            log_index: id,
            resolve_after: 0,
        }
    }

    fn intent(id: &str, report: &str) -> PostIntent {
        PostIntent {
            question_id: id.into(),
            merkle_root: format!("0x{:064x}", 7),
            p_yes: "500000000000000000".into(),
            p_no: "250000000000000000".into(),
            p_null: "250000000000000000".into(),
            kappa: "-1000".into(),
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
                .map(|j| j.question.question_id.as_str())
                .collect::<Vec<_>>(),
            ["1", "3"]
        );
        let due = store.due_jobs(now_ms(), 1_000, 10).unwrap();
        assert_eq!(due[0].question.question_id, "2", "ordered by block");

        store
            .record_failure("1", "rpc down", Some(now_ms() + 60_000))
            .unwrap();
        store.record_failure("3", "bad input", None).unwrap();
        let due = store.due_jobs(now_ms(), 500, 10).unwrap();
        assert!(due.is_empty(), "{due:?}");
        let job = store.job("1").unwrap().unwrap();
        assert_eq!(
            (job.stage, job.attempts, job.last_error.as_deref()),
            (Stage::Queued, 1, Some("rpc down"))
        );
        assert_eq!(store.job("3").unwrap().unwrap().stage, Stage::Failed);
        assert!(store.job("99").unwrap().is_none());
    }

    #[test]
    fn first_intent_wins_and_moves_to_posting() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store.record_scan(&[question(1, 10)], 11).unwrap();
        store.set_stage("1", Stage::Resolving).unwrap();
        let first = store.save_intent(&intent("1", "a.json")).unwrap();
        let second = store.save_intent(&intent("1", "b.json")).unwrap();
        assert_eq!(first, second);
        assert_eq!(second.report_path, "a.json");
        assert_eq!(store.job("1").unwrap().unwrap().stage, Stage::Posting);
        // A crash leaves it in `posting`: it is due again and keeps its intent.
        let due = store.due_jobs(now_ms(), 0, 10).unwrap();
        assert_eq!(due.len(), 1);
        assert_eq!(
            store
                .intents_by_root(&first.merkle_root.to_uppercase().replace("0X", "0x"))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn transactions_and_counts() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store
            .record_scan(&[question(1, 10), question(2, 10)], 11)
            .unwrap();
        let mut escalated = intent("1", "r.json");
        escalated.escalated = true;
        store.save_intent(&escalated).unwrap();
        let tx = SentTx {
            tx_hash: "0xab".into(),
            question_id: "1".into(),
            nonce: 4,
            gas_limit: 90_000,
            max_fee_per_gas: "2000000000".into(),
            max_priority_fee_per_gas: "1000000000".into(),
            raw: "0x02".into(),
            status: TxStatus::Pending,
            block_number: None,
            sent_at: now_ms(),
        };
        store.record_tx(&tx).unwrap();
        store
            .set_tx_status("0xab", TxStatus::Mined, Some(12))
            .unwrap();
        let txs = store.txs_for("1").unwrap();
        assert_eq!(txs.len(), 1);
        assert_eq!(
            (txs[0].status, txs[0].block_number, txs[0].nonce),
            (TxStatus::Mined, Some(12), 4)
        );
        store.mark_posted("1").unwrap();
        let counts = store.counts().unwrap();
        assert_eq!(
            counts,
            Counts {
                total: 2,
                queued: 1,
                resolving: 0,
                posting: 0,
                posted: 1,
                escalated: 1,
                failed: 0
            }
        );
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
