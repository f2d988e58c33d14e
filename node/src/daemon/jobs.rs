//! The daemon's job runner: one question's job from its report to its verdict on-chain.
//!
//! The evidence → commitment → committee → routing part is the library's one path,
//! [`crate::pipeline`], behind the [`Resolver`] trait. This module does the rest, in an order
//! that makes a crash at any point safe:
//!
//! 1. resolve (skipped when the job already has a saved intent: a restart never re-runs the
//!    committee and never posts numbers that differ from the report on disk; skipped too when
//!    the chain already has a verdict);
//! 2. derive the integers to post from the report with [`audit::recompute`], refuse a report
//!    that disagrees with itself or has no valid ballot (nothing is ever posted from made-up
//!    numbers; a committee without a valid ballot is retried like a transient failure), and
//!    write the report file (atomically: temp file, fsync, rename);
//! 3. save the post intent (first one wins), then post through [`Poster`];
//! 4. record the transaction in the report, mark the job posted.
//!
//! Failures are classified once: retryable ones are retried with exponential backoff up to
//! `max_attempts` (without limit once the intent is saved: a written verdict is never dropped
//! for a transient reason), the others mark the job failed with the reason. One job's failure never
//! touches another job.

use crate::pipeline::{
    QuestionInput, ResolveError, Resolver,
    clarifications::{self, ClarificationError},
    submissions,
};

use super::gate;

use std::{
    ops::ControlFlow,
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, Instant},
};

use alloy::primitives::{Address, B256, I256, U256};
use serde::Serialize;
use sha2::Digest;
use tracing::{Instrument, debug, error, info, info_span, warn};

use crate::{
    audit,
    chain::ChainError,
    contract::OracleError,
    metrics::{JurorCall, Metrics},
    policy::not_yet::RoundClock,
    poster::{Posted, Poster},
    report::{Report, TxInfo},
    retry::Backoff,
    store::{Job, PostIntent, Stage, Store, StoreError, TxStatus, Wait},
    watcher::events::NewQuestion,
};

/// Retry settings of jobs (and the daemon's start-up checks): how many attempts, and the
/// [`Backoff`] between them. A job's retry time is persisted and the watcher spreads jobs
/// over blocks, so the wait is the backoff's deterministic ceiling, not a jittered draw.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts before a job is marked failed.
    pub max_attempts: u32,
    /// First retry delay; doubles per attempt.
    pub base: Duration,
    /// Largest delay.
    pub max: Duration,
}

impl RetryPolicy {
    /// Delay before retry number `attempt` (1-based).
    pub fn delay(&self, attempt: u32) -> Duration {
        Backoff::new(self.base, self.max).ceiling(attempt.saturating_sub(1))
    }

    /// Whether a failed attempt is retried. Once the report is written and the intent saved,
    /// the verdict must reach the chain: a transient failure never gives such a job up, and
    /// neither does a store that cannot say whether it holds an intent (`has_intent` `None`:
    /// busy or failing), which must not pass for "no intent".
    pub fn retries(&self, retryable: bool, attempt: u32, has_intent: Option<bool>) -> bool {
        retryable && (attempt < self.max_attempts || has_intent.unwrap_or(true))
    }
}

/// How one run of a job ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobOutcome {
    /// Our verdict transaction was mined.
    Posted {
        /// Routing escalated it.
        escalated: bool,
    },
    /// A verdict was already on-chain.
    AlreadyOnChain,
    /// Failed; retried at the given unix ms.
    Retry {
        /// Why.
        reason: String,
    },
    /// Failed for good.
    Failed {
        /// Why.
        reason: String,
    },
    /// Not yet time (the chain's clock is before `resolveAfter`).
    Deferred,
}

/// Runs jobs: resolve, report, intent, post.
pub struct JobRunner {
    pub(super) store: Arc<Store>,
    poster: Arc<Poster>,
    resolver: Arc<dyn Resolver>,
    metrics: Arc<Metrics>,
    pub(super) reports_dir: PathBuf,
    chain_id: u64,
    oracle: Address,
    retry: RetryPolicy,
    /// `node.concurrency` permits for the committee stage (see [`JobRunner::new`]); shared
    /// with the provisional runs.
    resolving: Arc<tokio::sync::Semaphore>,
    /// Holds final runs until the question's on-chain submissions are complete.
    evidence_gate: Option<gate::EvidenceGate>,
}

impl std::fmt::Debug for JobRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobRunner")
            .field("reports_dir", &self.reports_dir)
            .finish_non_exhaustive()
    }
}

/// What failed inside a job run, before classification.
#[derive(Debug, thiserror::Error)]
pub(super) enum JobError {
    #[error(transparent)]
    Chain(#[from] ChainError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("resolver: {0}")]
    Resolve(ResolveError),
    #[error("report refused: {0}")]
    Report(String),
    /// Every ballot failed. Retried: a juror outage or an unlucky run of malformed answers
    /// must not cost the question for good, and a model server's answers differ between runs
    /// (sampling, batching, cache state) even where the draw of personas does not.
    #[error("report refused: no valid ballot: every juror failed, nothing to post")]
    NoValidBallot,
    /// The chain is in another report round than the store (a deferral not applied yet).
    #[error(
        "the chain is in report round {chain}, the store in round {stored}: waiting for the watcher"
    )]
    Round { chain: u32, stored: u32 },
    #[error("report file {path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl JobError {
    fn is_retryable(&self) -> bool {
        match self {
            JobError::Chain(e) => e.is_retryable(),
            JobError::Store(e) => e.is_retryable(),
            JobError::Resolve(e) => e.retryable,
            JobError::Report(_) => false,
            JobError::NoValidBallot | JobError::Io { .. } | JobError::Round { .. } => true,
        }
    }
}

/// The report file of a question inside `reports_dir`.
pub fn report_path(reports_dir: &Path, question_id: U256) -> PathBuf {
    reports_dir.join(format!("{question_id}.json"))
}

/// Write `value` as pretty JSON to `path` atomically (temp file, fsync, rename).
///
/// # Errors
/// The I/O error.
pub fn write_json_atomic(path: &Path, value: &impl Serialize) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("json.tmp");
    {
        let mut file = std::fs::File::create(&tmp)?;
        let text = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
        file.write_all(&text)?;
        file.write_all(b"\n")?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

impl JobRunner {
    /// Assemble a pipeline; at most `resolve_slots` jobs run their committee at once.
    ///
    /// Only resolution holds a slot: a job whose verdict is saved waits for its transaction
    /// without one, so many transactions can be pipelined while the committee stays bounded.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        store: Arc<Store>,
        poster: Arc<Poster>,
        resolver: Arc<dyn Resolver>,
        metrics: Arc<Metrics>,
        reports_dir: PathBuf,
        chain_id: u64,
        oracle: Address,
        retry: RetryPolicy,
        resolve_slots: usize,
    ) -> Self {
        Self {
            store,
            poster,
            resolver,
            metrics,
            reports_dir,
            chain_id,
            oracle,
            retry,
            resolving: Arc::new(tokio::sync::Semaphore::new(resolve_slots.max(1))),
            evidence_gate: None,
        }
    }

    /// Check each question's on-chain submissions are complete before its final run (see
    /// [`submissions`]).
    pub fn with_evidence_gate(mut self, gate: gate::EvidenceGate) -> Self {
        self.evidence_gate = Some(gate);
        self
    }

    /// The committee permits (`node.concurrency`), for runs outside the job flow (provisional
    /// runs take one only when it is free, so they never delay a final run).
    pub fn committee_slots(&self) -> Arc<tokio::sync::Semaphore> {
        Arc::clone(&self.resolving)
    }

    /// Run one job to its next resting state; every failure is recorded in the store.
    pub async fn run_job(&self, job: Job) -> JobOutcome {
        let span =
            info_span!(target: "veritas::pipeline", "question", id = %job.question.question_id);
        async move {
            // Running again: whatever it waited for is over (a wait below records it afresh).
            self.record(|s| s.set_waiting(job.question.question_id, Wait::Transaction));
            match self.try_run(&job).await {
                Ok(outcome) => outcome,
                Err(JobError::Chain(ChainError::Revert { error, .. })) if matches!(*error, OracleError::VeritasTooEarly(_)) => {
                    let wait_s = match *error {
                        OracleError::VeritasTooEarly(e) => e.resolveAfter.saturating_sub(u64::try_from(e.nowTimestamp).unwrap_or(u64::MAX)).max(1),
                        _ => 1,
                    };
                    let until = self.store.now_ms().saturating_add(i64::try_from(wait_s.saturating_mul(1000)).unwrap_or(i64::MAX));
                    info!(target: "veritas::pipeline", wait_s, "chain clock before resolveAfter; deferring");
                    self.record(|s| s.defer(job.question.question_id, until));
                    self.record(|s| s.set_waiting(job.question.question_id, Wait::ResolveAfter));
                    JobOutcome::Deferred
                }
                Err(JobError::Chain(ChainError::CommitRevealWait { what, retry_in, .. })) => {
                    // Our commitment is on-chain: look again soon, without spending an attempt.
                    debug!(target: "veritas::pipeline", what, retry_in = ?retry_in, "commit-reveal: waiting");
                    let until = self.store.now_ms().saturating_add(i64::try_from(retry_in.as_millis()).unwrap_or(i64::MAX));
                    self.record(|s| s.defer(job.question.question_id, until));
                    self.record(|s| s.set_waiting(job.question.question_id, Wait::RevealPhase));
                    JobOutcome::Deferred
                }
                Err(JobError::Chain(ChainError::StakeShortfall(short))) => {
                    // Settled questions free their bonds in their own time: wait as long as
                    // the longest retry, without spending an attempt.
                    let wait = self.retry.max;
                    warn!(target: "veritas::pipeline", error = %short, retry_in = ?wait, "stake short of the report bond; waiting");
                    let until = self.store.now_ms().saturating_add(i64::try_from(wait.as_millis()).unwrap_or(i64::MAX));
                    self.record(|s| s.defer_because(job.question.question_id, &short.to_string(), until));
                    self.record(|s| s.set_waiting(job.question.question_id, Wait::Stake));
                    JobOutcome::Deferred
                }
                Err(e) => self.fail(&job, &e),
            }
        }
        .instrument(span)
        .await
    }

    fn record(&self, f: impl FnOnce(&Store) -> Result<(), StoreError>) {
        if let Err(e) = f(&self.store) {
            error!(target: "veritas::pipeline", error = %e, "store update failed");
        }
    }

    /// Fail a question whose job task panicked, for good, with the panic as its reason (the
    /// scheduler calls this; a job that panicked once would most likely panic again).
    pub fn fail_panicked(&self, question_id: U256, message: &str) {
        let reason = format!("job panicked: {message}");
        error!(target: "veritas::pipeline", question = %question_id, reason, "question failed");
        self.record(|s| s.record_failure(question_id, &reason, None));
    }

    fn fail(&self, job: &Job, err: &JobError) -> JobOutcome {
        let attempt = job.attempts + 1;
        let reason = err.to_string();
        let qid = job.question.question_id;
        let intent = self.store.intent(qid).map(|i| i.is_some());
        if let Err(e) = &intent {
            warn!(target: "veritas::pipeline", error = %e, "cannot read the saved intent; assuming one exists");
        }
        if self
            .retry
            .retries(err.is_retryable(), attempt, intent.as_ref().ok().copied())
        {
            let delay = self.retry.delay(attempt);
            warn!(target: "veritas::pipeline", attempt, retry_in = ?delay, error = %reason, "attempt failed; will retry");
            let at = self
                .store
                .now_ms()
                .saturating_add(i64::try_from(delay.as_millis()).unwrap_or(i64::MAX));
            self.record(|s| s.record_failure(qid, &reason, Some(at)));
            self.metrics.record_retry();
            JobOutcome::Retry { reason }
        } else {
            error!(target: "veritas::pipeline", attempt, error = %reason, "question failed");
            self.record(|s| s.record_failure(qid, &reason, None));
            JobOutcome::Failed { reason }
        }
    }

    async fn try_run(&self, job: &Job) -> Result<JobOutcome, JobError> {
        let qid = job.question.question_id;
        let intent = match self.store.intent(qid)? {
            Some(intent) => {
                info!(target: "veritas::pipeline", "resuming from saved intent");
                intent
            }
            None => match self.fresh_intent(job).await? {
                ControlFlow::Continue(intent) => intent,
                ControlFlow::Break(outcome) => return Ok(outcome),
            },
        };
        // The intent answers one report round. A deferral ends it on-chain before the watcher
        // deletes the intent here, and the contract takes reports without a round: sent once the
        // next round opens, the old report would count in it.
        let round = self.poster.round(qid).await?;
        if round != intent.round {
            return Err(JobError::Round {
                chain: round,
                stored: intent.round,
            });
        }
        let started = Instant::now();
        let posted = self.poster.post(&job.question, &intent).await?;
        self.metrics.observe("post", started.elapsed());
        let outcome = match posted {
            Posted::Mined {
                tx_hash,
                block,
                gas_used,
            } => {
                let path = PathBuf::from(&intent.report_path);
                if let Err(e) = add_tx_to_report(&path, tx_hash, block, Some(gas_used)) {
                    // The verdict is on-chain; the report without its tx key still audits.
                    warn!(target: "veritas::pipeline", error = %e, "could not add the tx to the report");
                }
                JobOutcome::Posted {
                    escalated: intent.escalated,
                }
            }
            Posted::AlreadyOnChain => {
                self.attach_earlier_tx(job, &intent).await?;
                JobOutcome::AlreadyOnChain
            }
        };
        crate::crashpoint::hit("report.tx_added");
        self.store.mark_reported(qid, job.round)?;
        if matches!(outcome, JobOutcome::Posted { .. }) {
            let since_seen = Duration::from_millis(
                u64::try_from(self.store.now_ms() - job.seen_at).unwrap_or(0),
            );
            self.metrics.observe("confirmation_to_verdict", since_seen);
        }
        info!(target: "veritas::pipeline", outcome = ?outcome, "question done");
        Ok(outcome)
    }

    /// A question with no saved intent: skip it when a verdict is already on-chain, defer it
    /// while its evidence is incomplete, else run the committee for the intent to post.
    async fn fresh_intent(
        &self,
        job: &Job,
    ) -> Result<ControlFlow<JobOutcome, PostIntent>, JobError> {
        let qid = job.question.question_id;
        // A verdict may already be on-chain (another operator, or a lost data dir):
        // one cheap call saves a whole committee run.
        if self.already_on_chain(qid).await? {
            self.store.mark_reported(qid, job.round)?;
            info!(target: "veritas::pipeline", "verdict already on-chain; nothing to resolve");
            return Ok(ControlFlow::Break(JobOutcome::AlreadyOnChain));
        }
        if let Some(gate) = &self.evidence_gate
            && let gate::Gate::Wait { until_ms, reason } = gate.check(&self.store, job).await?
        {
            info!(target: "veritas::pipeline", reason, "submissions not complete yet; deferring");
            self.store.defer(qid, until_ms)?;
            return Ok(ControlFlow::Break(JobOutcome::Deferred));
        }
        // The semaphore is never closed, so acquiring cannot fail.
        let _slot = self.resolving.acquire().await.ok();
        Ok(ControlFlow::Continue(self.resolve_and_report(job).await?))
    }

    /// The post found a verdict already on-chain: if it is ours from before a crash, the
    /// report still lacks its tx key. The chain is the truth when our records are not (a
    /// transaction recorded as dropped that was mined after all, under a crash and a
    /// replacement race).
    async fn attach_earlier_tx(&self, job: &Job, intent: &PostIntent) -> Result<(), JobError> {
        let qid = job.question.question_id;
        let mined = self
            .store
            .txs_for(qid)?
            .into_iter()
            .find(|t| t.status == TxStatus::Mined)
            .map(|t| (t.tx_hash, t.block_number.unwrap_or_default()));
        let ours = match mined {
            Some(found) => Some(found),
            None => {
                self.poster
                    .report_tx(qid, job.question.block_number)
                    .await?
            }
        };
        if let Some((tx_hash, block)) = ours {
            let path = PathBuf::from(&intent.report_path);
            if let Err(e) = add_tx_to_report(&path, tx_hash, block, None) {
                warn!(target: "veritas::pipeline", error = %e, "could not add the tx to the report");
            }
        }
        Ok(())
    }

    /// Resolve a stored question on its current evidence (every stored on-chain submission).
    /// The final run, a provisional run and a second opinion all go through here; the caller
    /// holds the committee permit. Returns the report and how many submissions it saw. Only
    /// the final run passes the round's `clock`, so only its report applies the "not yet" rule.
    pub(super) async fn resolve_current(
        &self,
        q: &NewQuestion,
        clock: Option<RoundClock>,
    ) -> Result<(Report, usize), JobError> {
        let input = QuestionInput {
            id: q.question_id,
            text: q.question.clone(),
            asker: q.asker,
            chain_id: self.chain_id,
            oracle: self.oracle,
            resolve_after: q.resolve_after,
            block_hash: q.block_hash,
            operator: self.poster.address(),
            submissions: submissions::for_question(&self.store, q.question_id)?,
            clarifications: match clarifications::for_question(&self.store, q.question_id) {
                Ok(texts) => texts,
                Err(ClarificationError::Store(e)) => return Err(e.into()),
                Err(ClarificationError::Unusable(e)) => return Err(JobError::Resolve(e)),
            },
            clock,
        };
        // The resolver returns the finished report: its question block names the question
        // on-chain (the report file, `report.rs`) and its `submissions` record each submission's fate.
        let report = self
            .resolver
            .resolve(&input)
            .await
            .map_err(JobError::Resolve)?;
        Ok((report, input.submissions.len()))
    }

    /// On a dispute: run the committee again on the question's current evidence and write
    /// the result to `reports/<id>.dispute.json` for the arbiter (served by the API, never
    /// posted). It holds a committee slot like any resolution.
    ///
    /// # Errors
    /// The resolver's failure, or the report file or store write that failed.
    pub async fn second_opinion(&self, job: &Job) -> Result<PathBuf, String> {
        let q = &job.question;
        // The current evidence includes every submission made while the question was open.
        let (report, _) = {
            let _slot = self.resolving.acquire().await.ok();
            self.resolve_current(q, None)
                .await
                .map_err(|e| e.to_string())?
        };
        let path = self
            .reports_dir
            .join(format!("{}.dispute.json", q.question_id));
        write_json_atomic(&path, &report).map_err(|e| format!("{}: {e}", path.display()))?;
        self.store
            .set_second_opinion(q.question_id, &path.display().to_string())
            .map_err(|e| e.to_string())?;
        info!(target: "veritas::pipeline", question = %q.question_id, path = %path.display(), "second opinion written");
        Ok(path)
    }

    async fn already_on_chain(&self, qid: U256) -> Result<bool, JobError> {
        // Our report is on-chain, or the question no longer takes reports.
        Ok(self.poster.on_chain(qid).await?)
    }

    async fn resolve_and_report(&self, job: &Job) -> Result<PostIntent, JobError> {
        let q = &job.question;
        check_question_hash(q)?;
        // The round's clock, read before the committee: the "not yet" rule's "now" and the
        // round the report answers. A chain further on than the store (a deferral the watcher
        // has not applied yet) waits for the watcher.
        let clock = self.poster.round_clock(q.question_id).await?;
        if clock.round != job.round {
            return Err(JobError::Round {
                chain: clock.round,
                stored: job.round,
            });
        }
        self.store.set_stage(q.question_id, Stage::Resolving)?;
        crate::crashpoint::hit("job.resolving");
        let started = Instant::now();
        let (report, _) = self.resolve_current(q, Some(clock)).await?;
        self.metrics.observe("resolve", started.elapsed());
        self.record_juror_costs(&report);
        let rec = posted_values(q, &report)?;
        let path = report_path(&self.reports_dir, q.question_id);
        self.keep_deferred_report(job, &path)?;
        write_json_atomic(&path, &report).map_err(|error| JobError::Io {
            path: path.clone(),
            error,
        })?;
        crate::crashpoint::hit("report.written");
        let intent = PostIntent {
            question_id: q.question_id,
            merkle_root: rec.root,
            kappa: I256::try_from(rec.kappa_fixed).map_err(|e| {
                JobError::Report(format!("kappa {} out of range: {e}", rec.kappa_fixed))
            })?,
            counts: Some(rec.counts),
            escalated: rec.posted_escalated(),
            not_yet: rec.defers(),
            round: job.round,
            report_path: path.display().to_string(),
        };
        let saved = self.store.save_intent(&intent)?;
        crate::crashpoint::hit("intent.saved");
        if let Some(n) = report.not_yet.as_ref().filter(|n| n.defers) {
            info!(target: "veritas::pipeline", root = %saved.merkle_root, round = job.round, reason = %n.reason, "report written: not yet");
        } else {
            info!(target: "veritas::pipeline", root = %saved.merkle_root, escalated = saved.escalated, round = job.round, "report written");
        }
        Ok(saved)
    }

    /// Feed each juror call of the committee into the metrics (calls, tokens, cost).
    fn record_juror_costs(&self, report: &Report) {
        for ballot in &report.ballots {
            self.metrics.record_juror_call(JurorCall {
                voted: ballot.vote.is_some(),
                tokens: ballot.prompt_tokens + ballot.completion_tokens,
                cached_tokens: ballot.cached_prompt_tokens,
                cost_usd: ballot.cost_usd,
            });
        }
        self.metrics
            .record_question_cost(report.ballots.iter().map(|b| b.cost_usd).sum());
    }

    /// Before round `r` (>= 1) writes the question's report file, move the deferred round's
    /// report (still at that path) to `<id>.round-<r - 1>.json` and record it. Idempotent: a
    /// retry after a crash finds it moved.
    fn keep_deferred_report(&self, job: &Job, path: &Path) -> Result<(), JobError> {
        let Some(previous) = job.round.checked_sub(1) else {
            return Ok(());
        };
        let qid = job.question.question_id;
        let current = path.display().to_string();
        let Some(deferral) = self
            .store
            .deferrals(qid)?
            .into_iter()
            .find(|d| d.count == job.round && d.report_path.as_deref() == Some(&current))
        else {
            return Ok(());
        };
        let kept = self
            .reports_dir
            .join(format!("{qid}.round-{previous}.json"));
        if path.exists() {
            std::fs::rename(path, &kept).map_err(|error| JobError::Io {
                path: kept.clone(),
                error,
            })?;
        }
        self.store
            .set_deferral_report(qid, deferral.count, &kept.display().to_string())?;
        Ok(())
    }
}

/// Leaf 0 is the text as asked; if the decoded text does not hash to the event's
/// questionHash (invalid UTF-8 replaced while decoding), no honest root exists.
fn check_question_hash(q: &NewQuestion) -> Result<(), JobError> {
    let hash = B256::from_slice(&sha2::Sha256::digest(q.question.as_bytes()));
    if hash != q.question_hash {
        return Err(JobError::Report(format!(
            "question text does not hash to the on-chain questionHash {} (not valid UTF-8?)",
            q.question_hash
        )));
    }
    Ok(())
}

/// The integers to post are what an auditor derives from the report file: the same
/// function, on the same JSON, so a verdict is by construction what its report proves.
fn posted_values(q: &NewQuestion, report: &Report) -> Result<audit::Recomputed, JobError> {
    let typed = audit::AuditReport::as_written(report)
        .map_err(|m| JobError::Report(format!("report does not read back: {m}")))?;
    let rec = audit::recompute(&typed).map_err(|e| JobError::Report(e.to_string()))?;
    if rec.question != q.question {
        return Err(JobError::Report(
            "the report's question text is not the one asked".into(),
        ));
    }
    let mismatches = audit::compare_with_report(&rec, &typed);
    if let Some(first) = mismatches.first() {
        return Err(JobError::Report(format!(
            "report disagrees with itself: {first}"
        )));
    }
    if rec.valid_ballots == 0 {
        return Err(JobError::NoValidBallot);
    }
    Ok(rec)
}

fn add_tx_to_report(
    path: &Path,
    tx_hash: B256,
    block: u64,
    gas_used: Option<u64>,
) -> std::io::Result<()> {
    let text = std::fs::read_to_string(path)?;
    let mut report: Report = serde_json::from_str(&text).map_err(std::io::Error::other)?;
    report.tx = Some(TxInfo {
        hash: tx_hash,
        block: Some(block),
        gas_used,
    });
    write_json_atomic(path, &report)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn backoff_doubles_and_caps() {
        let p = RetryPolicy {
            max_attempts: 5,
            base: Duration::from_secs(2),
            max: Duration::from_secs(10),
        };
        assert_eq!(p.delay(1), Duration::from_secs(2));
        assert_eq!(p.delay(2), Duration::from_secs(4));
        assert_eq!(p.delay(3), Duration::from_secs(8));
        assert_eq!(p.delay(4), Duration::from_secs(10));
        assert_eq!(p.delay(40), Duration::from_secs(10));
    }

    #[test]
    fn a_job_that_may_hold_an_intent_is_never_given_up() {
        let p = RetryPolicy {
            max_attempts: 3,
            base: Duration::from_secs(1),
            max: Duration::from_secs(1),
        };
        assert!(p.retries(true, 2, Some(false)));
        assert!(!p.retries(true, 3, Some(false)), "attempts exhausted");
        assert!(p.retries(true, 3, Some(true)), "a saved intent keeps it");
        assert!(
            p.retries(true, 3, None),
            "an unreadable store is not 'no intent'"
        );
        assert!(
            !p.retries(false, 1, Some(true)),
            "permanent errors are final"
        );
    }

    #[test]
    fn a_committee_without_a_valid_ballot_is_retried_a_refused_report_is_not() {
        assert!(JobError::NoValidBallot.is_retryable());
        assert!(!JobError::Report("disagrees with itself".into()).is_retryable());
    }

    #[tokio::test]
    async fn atomic_write_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = report_path(dir.path(), U256::from(3));
        write_json_atomic(&path, &json!({"a": 1})).unwrap();
        write_json_atomic(&path, &json!({"a": 2})).unwrap();
        let back: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(back, json!({"a": 2}));
        let replayed = crate::pipeline::replay::ReplayResolver::default()
            .resolve(&QuestionInput {
                id: U256::from(3),
                text: "Is it?".into(),
                asker: Address::ZERO,
                chain_id: 31337,
                oracle: Address::ZERO,
                resolve_after: 0,
                block_hash: B256::ZERO,
                operator: Address::ZERO,
                submissions: Vec::new(),
                clarifications: Vec::new(),
                clock: None,
            })
            .await
            .unwrap();
        write_json_atomic(&path, &replayed).unwrap();
        add_tx_to_report(&path, B256::with_last_byte(0xab), 5, Some(60_000)).unwrap();
        let back: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(back["tx"]["block"], 5);
        assert!(!dir.path().join("3.json.tmp").exists());
    }
}
