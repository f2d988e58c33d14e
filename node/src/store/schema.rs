//! The database schema and its migrations (`PRAGMA user_version`).

use rusqlite::Connection;

use super::StoreError;

/// Current schema version (`PRAGMA user_version`).
pub(crate) const SCHEMA_VERSION: i64 = 9;

/// Migrations by `user_version`: entry `i` upgrades version `i` to `i + 1`.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: cursor, jobs, post intents, sent transactions.
    r#"
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
"#,
    // 2: the report's valid ballot counts (n_YES, n_NO, n_NULL) in the intent, for the
    // count-based `submitReport`. NULL in intents saved before this version.
    r#"
ALTER TABLE post_intents ADD COLUMN n_yes INTEGER;
ALTER TABLE post_intents ADD COLUMN n_no INTEGER;
ALTER TABLE post_intents ADD COLUMN n_null INTEGER;
"#,
    // 3: the question's life after the reports (contract v2). `posted` becomes `reported`
    // (later stages: finalised, final, disputed, arbitrated, expired); `reported_at` keeps
    // when our part was done. `lifecycle` is the chain's view of each question from its
    // events (the last event applied wins, by block and log index, so re-reading an overlap
    // never moves a question back); `operator_reports` holds every `ReportSubmitted`.
    r#"
ALTER TABLE jobs ADD COLUMN reported_at INTEGER;   -- unix ms
UPDATE jobs SET stage = 'reported', reported_at = updated_at WHERE stage = 'posted';
CREATE TABLE lifecycle (
    question_id     TEXT PRIMARY KEY,           -- decimal uint256
    status          TEXT NOT NULL,              -- Resolved | Escalated | Disputed | Arbitrated | Expired
    event_block     INTEGER NOT NULL,           -- position of the last event applied
    event_log       INTEGER NOT NULL,
    verdict_block   INTEGER,                    -- block of VerdictPosted
    final_at        INTEGER,                    -- unix s from finalAt(id); NULL until read
    p_yes           TEXT,                       -- the posted (or arbitrated) triple, 1e18 scale
    p_no            TEXT,
    p_null          TEXT,
    settled         INTEGER NOT NULL DEFAULT 0, -- QuestionSettled seen
    disputer        TEXT,
    bond            TEXT,                       -- decimal wei
    second_opinion  TEXT,                       -- report file of the re-run on a dispute
    updated_at      INTEGER NOT NULL            -- unix ms
);
CREATE TABLE operator_reports (
    question_id   TEXT NOT NULL,
    operator      TEXT NOT NULL,
    merkle_root   TEXT NOT NULL,
    n_yes         INTEGER NOT NULL,
    n_no          INTEGER NOT NULL,
    n_null        INTEGER NOT NULL,
    kappa         TEXT NOT NULL,                -- signed decimal, 1e18 scale
    escalated     INTEGER NOT NULL,
    block_number  INTEGER NOT NULL,
    log_index     INTEGER NOT NULL,
    tx_hash       TEXT NOT NULL,
    PRIMARY KEY (question_id, operator)
);
-- One row per (transaction, question): a `submitReports` batch carries several questions'
-- reports, and each question's job finds it by its own id.
CREATE TABLE sent_txs_v3 (
    tx_hash                  TEXT NOT NULL,
    question_id              TEXT NOT NULL REFERENCES jobs (question_id),
    nonce                    INTEGER NOT NULL,
    gas_limit                INTEGER NOT NULL,
    max_fee_per_gas          TEXT NOT NULL,
    max_priority_fee_per_gas TEXT NOT NULL,
    raw                      TEXT NOT NULL,
    status                   TEXT NOT NULL,    -- pending | mined | skipped | reverted | dropped
    block_number             INTEGER,
    sent_at                  INTEGER NOT NULL,
    PRIMARY KEY (tx_hash, question_id)
);
INSERT INTO sent_txs_v3 SELECT tx_hash, question_id, nonce, gas_limit, max_fee_per_gas,
    max_priority_fee_per_gas, raw, status, block_number, sent_at FROM sent_txs;
DROP TABLE sent_txs;
ALTER TABLE sent_txs_v3 RENAME TO sent_txs;
CREATE INDEX sent_txs_question ON sent_txs (question_id);
"#,
    // 4: evidence submitted on-chain (`EvidenceSubmitted`, one row per (question, index), with
    // the contract's hash-chain link) and the provisional runs they trigger. No foreign key to
    // `jobs`: a submission for a question asked before `start_block` is still recorded.
    r#"
CREATE TABLE submissions (
    question_id   TEXT NOT NULL,               -- decimal uint256
    idx           INTEGER NOT NULL,            -- the question's item number, from 1
    submitter     TEXT NOT NULL,               -- 0x address (checksummed)
    url           BLOB NOT NULL,               -- the event's bytes, exactly
    title         BLOB NOT NULL,
    snippet       BLOB NOT NULL,
    prev_head     TEXT NOT NULL,               -- 0x bytes32: evidence head before this item
    evidence_head TEXT NOT NULL,               -- 0x bytes32: evidence head after it (the event's)
    block_number  INTEGER NOT NULL,
    block_hash    TEXT NOT NULL,
    log_index     INTEGER NOT NULL,
    tx_hash       TEXT,
    seen_at       INTEGER NOT NULL,            -- unix ms
    PRIMARY KEY (question_id, idx)
);
CREATE TABLE provisional_runs (
    question_id   TEXT NOT NULL,
    run           INTEGER NOT NULL,            -- 1, 2, ... per question
    submissions   INTEGER NOT NULL,            -- submissions stored when the run started
    summary       TEXT NOT NULL,               -- JSON: root, posterior, counts, routing
    created_at    INTEGER NOT NULL,            -- unix ms
    PRIMARY KEY (question_id, run)
);
"#,
    // 5: commit-reveal reporting. The salt, the exact report committed to and the commitment,
    // saved before the `commitReport` transaction is signed: a restart reveals this report with
    // this salt, and never draws a second salt for the question.
    r#"
CREATE TABLE commitments (
    question_id   TEXT PRIMARY KEY REFERENCES jobs (question_id),
    operator      TEXT NOT NULL,               -- 0x address the commitment binds
    merkle_root   TEXT NOT NULL,               -- 0x bytes32
    n_yes         INTEGER NOT NULL,
    n_no          INTEGER NOT NULL,
    n_null        INTEGER NOT NULL,
    kappa         TEXT NOT NULL,               -- signed decimal, 1e18 scale
    escalated     INTEGER NOT NULL,
    salt          TEXT NOT NULL,               -- 0x bytes32: secret until the reveal is mined
    commitment    TEXT NOT NULL,               -- 0x bytes32: reportCommitment(...)
    created_at    INTEGER NOT NULL             -- unix ms
);
"#,
    // 6: an intent holds what is sent. The 1e18 triple was stored but never sent since reports
    // carry counts (v2): the contract computes it from the counts, and so does every display.
    r#"
ALTER TABLE post_intents DROP COLUMN p_yes;
ALTER TABLE post_intents DROP COLUMN p_no;
ALTER TABLE post_intents DROP COLUMN p_null;
"#,
    // 7: why a job in `posting` waits without spending an attempt ('stake': the free stake is
    // short of the report bond; 'reveal_phase': committed, the reveal phase not open yet;
    // 'resolve_after': the chain's clock is before resolveAfter). NULL: it is sending or
    // waiting for a transaction. The metrics tell these apart, so that an alert on stuck
    // transactions does not fire on a wait.
    r#"
ALTER TABLE jobs ADD COLUMN waiting TEXT;
"#,
    // 8: the asker's clarifications (`QuestionClarified`), kept as the event's bytes: the
    // bundle commits them right after the question.
    r#"
CREATE TABLE clarifications (
    question_id   TEXT NOT NULL,               -- decimal id
    idx           INTEGER NOT NULL,            -- from 1
    text          BLOB NOT NULL,               -- the event's bytes (not necessarily UTF-8)
    block_number  INTEGER NOT NULL,
    log_index     INTEGER NOT NULL,
    PRIMARY KEY (question_id, idx)
);
"#,
    // 9: report rounds ("not yet", contract v4). A `QuestionDeferred` starts round `count`:
    // the job goes back to `queued` with the new `resolve_after`, and the deferred round's
    // intent and commitment move to `deferrals` (our report of that round and what it said).
    // Transactions carry the round they were sent in, so a new round never mistakes an old
    // round's mined report for its own. Intents and commitments record "not yet".
    r#"
ALTER TABLE jobs ADD COLUMN round INTEGER NOT NULL DEFAULT 0;      -- deferrals applied
ALTER TABLE post_intents ADD COLUMN not_yet INTEGER NOT NULL DEFAULT 0;
ALTER TABLE post_intents ADD COLUMN round INTEGER NOT NULL DEFAULT 0;
ALTER TABLE commitments ADD COLUMN not_yet INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sent_txs ADD COLUMN round INTEGER NOT NULL DEFAULT 0;
CREATE TABLE deferrals (
    question_id   TEXT NOT NULL,               -- decimal id
    count         INTEGER NOT NULL,            -- the event's count: the round it starts
    resolve_after INTEGER NOT NULL,            -- unix s: reports open again
    block_number  INTEGER NOT NULL,
    log_index     INTEGER NOT NULL,
    report_path   TEXT,                        -- our report of the deferred round, if any
    merkle_root   TEXT,                        -- what we reported in it (NULL: nothing)
    not_yet       INTEGER,
    PRIMARY KEY (question_id, count)
);
"#,
];

/// Bring the database to [`SCHEMA_VERSION`], one transaction per migration.
///
/// # Errors
/// [`StoreError::TooNew`] for a database from a newer node; SQLite errors.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(StoreError::TooNew(version));
    }
    let done = usize::try_from(version).unwrap_or(0);
    for (from, sql) in MIGRATIONS.iter().enumerate().skip(done) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", from as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}
