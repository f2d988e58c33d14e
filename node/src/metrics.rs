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
    /// Prompt tokens the model servers served from their prompt cache.
    pub cached_tokens: AtomicU64,
    /// Juror cost of each question's committee run: (sum of US dollars, runs).
    question_cost: Mutex<(f64, u64)>,
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

    /// Count one juror call: whether it produced a vote, its tokens and its cost.
    pub fn record_juror_call(&self, call: JurorCall) {
        self.inc(&self.juror_calls);
        if !call.voted {
            self.inc(&self.juror_failures);
        }
        self.tokens.fetch_add(call.tokens, Ordering::Relaxed);
        self.cached_tokens
            .fetch_add(call.cached_tokens, Ordering::Relaxed);
        // Rounded to micro-dollars; negative or absurd values are ignored.
        if call.cost_usd.is_finite() && call.cost_usd >= 0.0 {
            self.cost_micro_usd
                .fetch_add((call.cost_usd * 1e6).round() as u64, Ordering::Relaxed);
        }
    }

    /// Record the juror cost of one question's committee run (non-finite or negative: 0).
    pub fn record_question_cost(&self, usd: f64) {
        let usd = if usd.is_finite() && usd >= 0.0 {
            usd
        } else {
            0.0
        };
        let mut cost = self.question_cost.lock().unwrap_or_else(|p| p.into_inner());
        cost.0 += usd;
        cost.1 += 1;
    }

    /// The juror cost of the committee runs so far: (sum of US dollars, runs).
    pub fn question_cost(&self) -> (f64, u64) {
        *self.question_cost.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What the metrics count of one juror call. The caller maps its ballots to these, so the
/// metrics do not depend on the jury's types.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JurorCall {
    /// The call produced a vote.
    pub voted: bool,
    /// Prompt and completion tokens.
    pub tokens: u64,
    /// Of the prompt tokens, those served from the server's prompt cache.
    pub cached_tokens: u64,
    /// Its cost in US dollars.
    pub cost_usd: f64,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn juror_calls_feed_juror_counters() {
        let m = Metrics::default();
        let calls = [
            JurorCall {
                voted: true,
                tokens: 100 + 20,
                cached_tokens: 60,
                cost_usd: 0.0015,
            },
            JurorCall {
                voted: false,
                tokens: 100,
                cached_tokens: 0,
                cost_usd: 0.001,
            },
            JurorCall {
                voted: true,
                tokens: 7,
                cached_tokens: 0,
                cost_usd: 0.0,
            },
        ];
        for call in calls {
            m.record_juror_call(call);
        }
        assert_eq!(m.juror_calls.load(Ordering::Relaxed), 3);
        assert_eq!(m.juror_failures.load(Ordering::Relaxed), 1);
        assert_eq!(m.tokens.load(Ordering::Relaxed), 227);
        assert_eq!(m.cost_micro_usd.load(Ordering::Relaxed), 2_500);
        assert_eq!(m.cached_tokens.load(Ordering::Relaxed), 60);
        m.record_question_cost(0.0025);
        m.record_question_cost(f64::NAN);
        let (sum, runs) = m.question_cost();
        assert_eq!(runs, 2);
        assert!((sum - 0.0025).abs() < 1e-12, "{sum}");
        m.observe("post", Duration::from_millis(250));
        m.observe("post", Duration::from_millis(750));
        let map = m.latencies.lock().unwrap();
        assert_eq!(map["post"], (1.0, 2));
    }
}
