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

use alloy::primitives::U256;
use serde::Serialize;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, debug, info, info_span, warn};

use super::jobs::JobRunner;
use crate::{
    audit, chain::ChainProvider, commitment::root::Root, evidence::onchain::Status,
    live::LiveEvents, report::Report, store::ProvisionalCandidate,
};

/// How often the runner looks for due questions when nothing wakes it.
const IDLE_TICK: Duration = Duration::from_secs(1);
/// How soon it tries again when every committee permit was taken.
const BUSY_RETRY: Duration = Duration::from_millis(250);

/// The provisional-run task (see the module docs); cloned to restart it after a panic.
#[derive(Clone)]
pub struct ProvisionalRunner {
    /// Its store, committee permits, report folder and the resolve step of final runs.
    pipeline: Arc<JobRunner>,
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
    Resolve(super::jobs::JobError),
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
        pipeline: Arc<JobRunner>,
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
            .resolve_current(q, None)
            .await
            .map_err(RunError::Resolve)?;
        let seen = seen as u64;
        let summary = summarize(&report, seen, self.pipeline.store.now_ms())?;
        // The store keeps the summary as a JSON column.
        let stored = serde_json::to_value(&summary).map_err(|e| RunError::Report(e.to_string()))?;
        let run = self
            .pipeline
            .store
            .record_provisional(q.question_id, seen, &stored)?;
        let path = self
            .pipeline
            .reports_dir
            .join(format!("{}.provisional.jsonl", q.question_id));
        let line = HistoryLine {
            run,
            summary: &summary,
            report: &report,
        };
        append_line(&path, &line).map_err(|error| RunError::Io {
            path: path.clone(),
            error,
        })?;
        let event = LiveSummary {
            summary: &summary,
            question: q.question_id,
            run,
        };
        self.live.publish("provisional", &event);
        info!(target: "veritas::provisional", run, submissions = seen, elapsed = ?started.elapsed(), "provisional posterior published");
        Ok(())
    }
}

/// The stored and published summary of a provisional report (keys in this order).
#[derive(Debug, Clone, PartialEq, Serialize)]
struct Summary {
    /// Submissions stored when the run started.
    submissions: u64,
    /// The indexes of those the bundle included (or merged).
    included: Vec<u64>,
    /// The bundle's Merkle root.
    root: Root,
    /// The posterior mean (YES, NO, NULL).
    posterior: [f64; 3],
    /// The 1e18 integers (decimal strings).
    #[serde(with = "crate::decimal::triple")]
    p_fixed: [u128; 3],
    /// Valid votes (YES, NO, NULL).
    counts: [u64; 3],
    /// Kappa, 1e18 (a decimal string).
    #[serde(with = "crate::decimal")]
    kappa_fixed: i128,
    /// Ballots, failed ones included.
    ballots: u64,
    /// `resolve` or `escalate`.
    decision: &'static str,
    /// Unix ms of the run.
    at: i64,
}

/// A line of `reports/<id>.provisional.jsonl`.
#[derive(Serialize)]
struct HistoryLine<'a> {
    run: u64,
    summary: &'a Summary,
    report: &'a Report,
}

/// The live `provisional` event: the summary, then which question and run.
#[derive(Serialize)]
struct LiveSummary<'a> {
    #[serde(flatten)]
    summary: &'a Summary,
    #[serde(with = "crate::decimal")]
    question: U256,
    run: u64,
}

/// The summary of a provisional report, made at `at_ms`: its integers are the audit's
/// recomputation from the report's JSON, as for a final run.
fn summarize(report: &Report, seen: u64, at_ms: i64) -> Result<Summary, RunError> {
    let typed =
        audit::AuditReport::as_written(report).map_err(|m| RunError::Report(m.to_string()))?;
    let rec = audit::recompute(&typed).map_err(|e| RunError::Report(e.to_string()))?;
    let included: Vec<u64> = report
        .submissions
        .iter()
        .flat_map(|s| s.items.iter())
        .filter(|e| matches!(e.status, Status::Included | Status::Merged))
        .map(|e| e.submission.index)
        .collect();
    Ok(Summary {
        submissions: seen,
        included,
        root: rec.root,
        posterior: report.stats.posterior,
        p_fixed: rec.p_fixed,
        counts: rec.counts,
        kappa_fixed: rec.kappa_fixed,
        ballots: rec.ballots,
        decision: if rec.escalated { "escalate" } else { "resolve" },
        at: at_ms,
    })
}

/// Append one JSON line to `path` and fsync it (a history file: lines are only added).
fn append_line(path: &std::path::Path, value: &impl Serialize) -> std::io::Result<()> {
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use alloy::primitives::B256;

    use super::*;

    /// The stored summary and the live event keep the JSON they had as `json!` objects: keys
    /// in this order, 1e18 integers and the question id as decimal strings.
    #[test]
    fn summary_and_event_json() {
        let summary = Summary {
            submissions: 2,
            included: vec![1],
            root: Root::from(B256::with_last_byte(1)),
            posterior: [0.5, 0.25, 0.25],
            p_fixed: [
                500_000_000_000_000_000,
                250_000_000_000_000_000,
                250_000_000_000_000_000,
            ],
            counts: [1, 0, 0],
            kappa_fixed: -7,
            ballots: 1,
            decision: "escalate",
            at: 1_700_000_000_000,
        };
        let stored = concat!(
            r#"{"submissions":2,"included":[1],"root":"0x0000000000000000000000000000000000000000000000000000000000000001","#,
            r#""posterior":[0.5,0.25,0.25],"p_fixed":["500000000000000000","250000000000000000","250000000000000000"],"#,
            r#""counts":[1,0,0],"kappa_fixed":"-7","ballots":1,"decision":"escalate","at":1700000000000"#,
        );
        assert_eq!(
            serde_json::to_string(&summary).unwrap(),
            format!("{stored}}}")
        );
        let event = LiveSummary {
            summary: &summary,
            question: U256::from(12),
            run: 3,
        };
        assert_eq!(
            serde_json::to_string(&event).unwrap(),
            format!(r#"{stored},"question":"12","run":3}}"#)
        );
    }
}
