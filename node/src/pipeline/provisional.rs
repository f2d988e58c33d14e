//! Provisional runs: the committee re-run on a still-open question each time new evidence is
//! submitted on-chain, so participants see how their evidence moves the distribution.
//!
//! A provisional run is [`Resolver::resolve`] on the question with every submission stored so
//! far — the same resolver, committee and bundle rules as the final run — whose result is
//! published and kept, never posted:
//!
//! - a row of the store's `provisional_runs` (served by `GET /questions/{id}/provisional` and
//!   inside `GET /questions/{id}`), with a summary (root, posterior, 1e18 integers, counts,
//!   kappa, routing, which submissions were included);
//! - a line of `reports/<id>.provisional.jsonl`: the summary and the whole report;
//! - a `provisional` event on the live stream.
//!
//! **Bounded.** One task runs them one at a time. A question gets at most one run per
//! `node.provisional_interval`; submissions that arrive meanwhile are coalesced into the next
//! run. A run takes a committee permit (`node.concurrency`) only when one is free and never
//! waits in the permit queue, so final resolutions, which do wait for permits, are served
//! first; at worst a final run that finds every permit busy waits for the one provisional run
//! in progress. A question
//! is open while the chain's latest block is before its `resolveAfter` and its job is still
//! queued; after that, the final run covers every submission.

use std::{
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, debug, info, info_span, warn};

use super::Pipeline;
use crate::{
    audit, chain::ChainProvider, evidence::onchain::Status, live::LiveEvents, report::Report,
    store::ProvisionalCandidate,
};

/// How often the runner looks for due questions when nothing wakes it.
const IDLE_TICK: Duration = Duration::from_secs(1);
/// How soon it tries again when every committee permit was taken.
const BUSY_RETRY: Duration = Duration::from_millis(250);

/// The provisional-run task (see the module docs); cloned to restart it after a panic.
#[derive(Clone)]
pub struct ProvisionalRunner {
    /// Its store, committee permits, report folder and the resolve step of final runs.
    pipeline: Arc<Pipeline>,
    provider: ChainProvider,
    live: Arc<LiveEvents>,
    interval: Duration,
    wake: Arc<Notify>,
}

impl std::fmt::Debug for ProvisionalRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProvisionalRunner")
            .field("interval", &self.interval)
            .finish_non_exhaustive()
    }
}

/// Why one provisional run failed (logged; the next submission or tick tries again).
#[derive(Debug, thiserror::Error)]
enum RunError {
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Resolve(super::JobError),
    #[error("report: {0}")]
    Report(String),
    #[error("history file {path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl ProvisionalRunner {
    /// A runner sharing the pipeline's store, committee permits and resolve step (the
    /// committee is seeded as in the final run); `wake` is notified by the watcher when it
    /// stores submissions.
    pub fn new(
        pipeline: Arc<Pipeline>,
        provider: ChainProvider,
        live: Arc<LiveEvents>,
        interval: Duration,
        wake: Arc<Notify>,
    ) -> Self {
        Self {
            pipeline,
            provider,
            live,
            interval,
            wake,
        }
    }

    /// Run until cancelled. Failures are logged and never stop the node.
    pub async fn run(self, cancel: CancellationToken) {
        loop {
            let next = self.round().await;
            tokio::select! {
                () = cancel.cancelled() => return,
                () = self.wake.notified() => {}
                () = tokio::time::sleep(next) => {}
            }
        }
    }

    /// Run every due question once; returns how long to sleep before the next round.
    async fn round(&self) -> Duration {
        let candidates = match self.pipeline.store.provisional_candidates() {
            Ok(c) => c,
            Err(e) => {
                warn!(target: "veritas::provisional", error = %e, "cannot read candidates");
                return IDLE_TICK;
            }
        };
        if candidates.is_empty() {
            return IDLE_TICK;
        }
        let chain_time = match crate::chain::latest_block(&self.provider).await {
            Ok((_, t)) => t,
            Err(e) => {
                warn!(target: "veritas::provisional", error = %e, "cannot read the chain's time");
                return IDLE_TICK;
            }
        };
        let mut next = IDLE_TICK;
        for candidate in candidates {
            let q = &candidate.job.question;
            if q.resolve_after <= chain_time {
                // Closed: the final run takes every submission into account.
                continue;
            }
            if let Some(last) = candidate.last_run_at {
                let due = last + i64::try_from(self.interval.as_millis()).unwrap_or(i64::MAX);
                let now = self.pipeline.store.now_ms();
                if now < due {
                    let wait = Duration::from_millis(u64::try_from(due - now).unwrap_or(0));
                    next = next.min(wait);
                    debug!(target: "veritas::provisional", question = %q.question_id, ?wait, "rate limited; coalescing");
                    continue;
                }
            }
            let Ok(_permit) = self.pipeline.committee_slots().try_acquire_owned() else {
                // Every permit is busy (final runs come first).
                return next.min(BUSY_RETRY);
            };
            let span =
                info_span!(target: "veritas::provisional", "provisional", id = %q.question_id);
            if let Err(e) = self.run_one(&candidate).instrument(span).await {
                warn!(target: "veritas::provisional", question = %q.question_id, error = %e, "provisional run failed");
                // Do not spin on a failing question: wait a full interval before retrying.
                next = next.min(self.interval.max(IDLE_TICK));
            }
        }
        next
    }

    async fn run_one(&self, candidate: &ProvisionalCandidate) -> Result<(), RunError> {
        let q = &candidate.job.question;
        let started = Instant::now();
        let (report, seen) = self
            .pipeline
            .resolve_current(q)
            .await
            .map_err(RunError::Resolve)?;
        let seen = seen as u64;
        let summary = summarize(&report, seen, self.pipeline.store.now_ms())?;
        let run = self
            .pipeline
            .store
            .record_provisional(q.question_id, seen, &summary)?;
        let path = self
            .pipeline
            .reports_dir
            .join(format!("{}.provisional.jsonl", q.question_id));
        append_line(
            &path,
            &json!({"run": run, "summary": summary, "report": report}),
        )
        .map_err(|error| RunError::Io {
            path: path.clone(),
            error,
        })?;
        let mut event = summary.clone();
        if let Some(obj) = event.as_object_mut() {
            obj.insert("question".into(), json!(q.question_id.to_string()));
            obj.insert("run".into(), json!(run));
        }
        self.live.publish("provisional", &event);
        info!(target: "veritas::provisional", run, submissions = seen, elapsed = ?started.elapsed(), "provisional posterior published");
        Ok(())
    }
}

/// The stored and published summary of a provisional report, made at `at_ms`.
fn summarize(report: &Report, seen: u64, at_ms: i64) -> Result<Value, RunError> {
    let value = serde_json::to_value(report).map_err(|e| RunError::Report(e.to_string()))?;
    let rec = audit::recompute(&value).map_err(|e| RunError::Report(e.to_string()))?;
    let included: Vec<u64> = report
        .submissions
        .iter()
        .flat_map(|s| s.items.iter())
        .filter(|e| matches!(e.status, Status::Included | Status::Merged))
        .map(|e| e.submission.index)
        .collect();
    Ok(json!({
        "submissions": seen,
        "included": included,
        "root": rec.root,
        "posterior": report.stats.posterior,
        "p_fixed": rec.p_fixed.map(|p| p.to_string()),
        "counts": rec.counts,
        "kappa_fixed": rec.kappa_fixed.to_string(),
        "ballots": rec.ballots,
        "decision": if rec.escalated { "escalate" } else { "resolve" },
        "at": at_ms,
    }))
}

/// Append one JSON line to `path` and fsync it (a history file: lines are only added).
fn append_line(path: &std::path::Path, value: &Value) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let mut line = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    line.push(b'\n');
    file.write_all(&line)?;
    file.sync_data()
}
