//! The node's counters and latency summaries, shared by the pipeline (which records) and the
//! HTTP API (which exports them in Prometheus text format).
//!
//! Kept apart from [`crate::api`] so the pipeline depends on a plain data type, not on the
//! HTTP server.

use std::{
    collections::BTreeMap,
    sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use crate::jury::BallotRow;

/// Counters and latency summaries the node exports (besides the store's job counts).
#[derive(Debug, Default)]
pub struct Metrics {
    /// Verdicts posted by this process and resolved automatically.
    pub resolved: AtomicU64,
    /// Verdicts posted by this process and escalated.
    pub escalated: AtomicU64,
    /// Questions marked failed by this process.
    pub questions_failed: AtomicU64,
    /// Attempts that failed and were scheduled for retry.
    pub attempts_failed: AtomicU64,
    /// Juror calls (ballots) made.
    pub juror_calls: AtomicU64,
    /// Juror calls that produced no vote.
    pub juror_failures: AtomicU64,
    /// Tokens used by jurors (prompt + completion).
    pub tokens: AtomicU64,
    /// Juror cost in micro-dollars.
    pub cost_micro_usd: AtomicU64,
    /// Stage → (sum of seconds, count).
    latencies: Mutex<BTreeMap<&'static str, (f64, u64)>>,
}

impl Metrics {
    /// Add one to a counter.
    pub fn inc(&self, counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Record one duration of a stage (`resolve`, `post`, `confirmation_to_verdict`).
    pub fn observe(&self, stage: &'static str, elapsed: Duration) {
        // A poisoned lock only means another thread panicked mid-update of a float sum: the
        // map is still usable for a gauge.
        let mut map = self.latencies.lock().unwrap_or_else(|p| p.into_inner());
        let entry = map.entry(stage).or_insert((0.0, 0));
        entry.0 += elapsed.as_secs_f64();
        entry.1 += 1;
    }

    /// Every stage's (sum of seconds, count), in stage order.
    pub fn latencies(&self) -> Vec<(&'static str, (f64, u64))> {
        let map = self.latencies.lock().unwrap_or_else(|p| p.into_inner());
        map.iter().map(|(k, v)| (*k, *v)).collect()
    }

    /// Count the juror calls, failures, tokens and cost of a report's ballots.
    pub fn record_ballots(&self, ballots: &[BallotRow]) {
        for ballot in ballots {
            self.inc(&self.juror_calls);
            if ballot.vote.is_none() {
                self.inc(&self.juror_failures);
            }
            self.tokens.fetch_add(
                ballot.prompt_tokens + ballot.completion_tokens,
                Ordering::Relaxed,
            );
            // Rounded to micro-dollars; negative or absurd values are ignored.
            if ballot.cost_usd.is_finite() && ballot.cost_usd >= 0.0 {
                self.cost_micro_usd
                    .fetch_add((ballot.cost_usd * 1e6).round() as u64, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn ballots_feed_juror_counters() {
        let m = Metrics::default();
        let ballots: Vec<BallotRow> = serde_json::from_value(serde_json::json!([
            {"iteration": 1, "slot": 0, "model": "m", "archetype": "a", "vote": "YES",
             "confidence": 1.0, "reasoning": "r", "latency_ms": 0,
             "prompt_tokens": 100, "completion_tokens": 20, "cost_usd": 0.0015, "failure": null},
            {"iteration": 1, "slot": 1, "model": "m", "archetype": "a", "vote": null,
             "confidence": null, "reasoning": null, "latency_ms": 0, "failure": "timeout",
             "prompt_tokens": 100, "completion_tokens": 0, "cost_usd": 0.001},
            {"iteration": 1, "slot": 2, "model": "m", "archetype": "a", "vote": "NO",
             "confidence": 1.0, "reasoning": "r", "latency_ms": 0,
             "prompt_tokens": 7, "completion_tokens": 0, "cost_usd": 0.0, "failure": null},
        ]))
        .unwrap();
        m.record_ballots(&ballots);
        assert_eq!(m.juror_calls.load(Ordering::Relaxed), 3);
        assert_eq!(m.juror_failures.load(Ordering::Relaxed), 1);
        assert_eq!(m.tokens.load(Ordering::Relaxed), 227);
        assert_eq!(m.cost_micro_usd.load(Ordering::Relaxed), 2_500);
        m.observe("post", Duration::from_millis(250));
        m.observe("post", Duration::from_millis(750));
        let map = m.latencies.lock().unwrap();
        assert_eq!(map["post"], (1.0, 2));
    }
}
