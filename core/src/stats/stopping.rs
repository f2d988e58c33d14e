//! KL early stopping of the committee (the book's auditor specification, "Statistics of a ballot set", rule 7; book/src/jurors.md).
//!
//! After iteration t ≥ 2 the committee compares the posterior means P_t and P_t−1 with
//! D = KL(P_t ‖ P_t−1) in bits, and stops once D < ε for τ consecutive iterations, but never
//! before `min_ballots` valid ballots. The iteration cap T is the committee's business.

use serde::{Deserialize, Serialize};

use super::kl_bits;

/// The stopping rule's parameters (part of the report's `committee` block).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EarlyStopping {
    /// KL threshold ε in bits; an iteration with D < ε counts as stable.
    pub epsilon: f64,
    /// Consecutive stable iterations τ needed to stop.
    pub tau: u32,
    /// Valid ballots required before stopping is allowed.
    pub min_ballots: u32,
}

impl Default for EarlyStopping {
    /// ε = 0.02 bit, τ = 2 and 6 ballots (two full iterations of M = 3).
    ///
    /// The original design suggested ε = 0.01; on a unanimous committee that stops after 5 iterations
    /// (D ≈ 0.0138 bit at t = 3 still counts as moving), 50% of the default T×M budget. At
    /// 0.02 the same committee stops after 4 iterations (12 of 30 calls, the jury issue's ≤ 40%),
    /// whatever M is, and its 12 agreeing ballots still clear every routing threshold. Raising
    /// T instead would only enlarge the budget that contested questions spend.
    fn default() -> Self {
        Self {
            epsilon: 0.02,
            tau: 2,
            min_ballots: 6,
        }
    }
}

impl EarlyStopping {
    /// A fresh tracker for one question's committee.
    pub fn tracker(&self) -> StopTracker {
        StopTracker {
            rule: *self,
            previous: None,
            stable: 0,
            last_divergence: None,
        }
    }

    /// Replay a whole history: would the rule have stopped after the last iteration?
    /// `posteriors[t]` is the posterior mean after iteration t+1.
    pub fn should_stop(&self, posteriors: &[[f64; 3]], valid_ballots: u64) -> bool {
        let mut tracker = self.tracker();
        let mut stop = false;
        for p in posteriors {
            stop = tracker.observe(*p, valid_ballots);
        }
        stop
    }
}

/// The rule's state across the iterations of one committee.
#[derive(Debug, Clone, PartialEq)]
pub struct StopTracker {
    rule: EarlyStopping,
    previous: Option<[f64; 3]>,
    stable: u32,
    last_divergence: Option<f64>,
}

impl StopTracker {
    /// Feed the posterior mean after an iteration and the valid ballots so far; returns
    /// `true` when the committee should stop now.
    pub fn observe(&mut self, posterior: [f64; 3], valid_ballots: u64) -> bool {
        if let Some(previous) = self.previous {
            let d = kl_bits(&posterior, &previous);
            self.last_divergence = Some(d);
            self.stable = if d < self.rule.epsilon {
                self.stable + 1
            } else {
                0
            };
        }
        self.previous = Some(posterior);
        self.stable >= self.rule.tau && valid_ballots >= u64::from(self.rule.min_ballots)
    }

    /// KL(P_t ‖ P_t−1) of the last iteration, once there have been two.
    pub fn last_divergence(&self) -> Option<f64> {
        self.last_divergence
    }

    /// Consecutive iterations so far with D < ε.
    pub fn stable_iterations(&self) -> u32 {
        self.stable
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::stats::posterior_mean;

    #[test]
    fn stops_after_tau_stable_iterations() {
        let rule = EarlyStopping {
            epsilon: 0.01,
            tau: 2,
            min_ballots: 0,
        };
        let mut t = rule.tracker();
        // Unanimous YES, 3 per iteration: (4,1,1)/6, (7,1,1)/9, (10,1,1)/12, (13,1,1)/15.
        assert!(!t.observe(posterior_mean([3, 0, 0]), 3)); // t = 1: no D yet
        // D((7,1,1)/9 ‖ (4,1,1)/6) = 7/9·log2(7/6) + 2/9·log2(2/3) ≈ 0.0430 ≥ ε.
        assert!(!t.observe(posterior_mean([6, 0, 0]), 6));
        assert!((t.last_divergence().unwrap() - 0.042_99).abs() < 1e-4);
        // D((10,1,1)/12 ‖ (7,1,1)/9) ≈ 0.0138 ≥ ε.
        assert!(!t.observe(posterior_mean([9, 0, 0]), 9));
        // ≈ 0.0061 < ε: one stable iteration.
        assert!(!t.observe(posterior_mean([12, 0, 0]), 12));
        assert_eq!(t.stable_iterations(), 1);
        // ≈ 0.0032 < ε: τ = 2 stable iterations, stop.
        assert!(t.observe(posterior_mean([15, 0, 0]), 15));
    }

    #[test]
    fn an_unstable_iteration_resets_the_streak() {
        let rule = EarlyStopping {
            epsilon: 0.01,
            tau: 2,
            min_ballots: 0,
        };
        let p = [0.5, 0.25, 0.25];
        let q = [0.25, 0.5, 0.25];
        assert!(!rule.should_stop(&[p, p], 6)); // one stable iteration
        assert!(rule.should_stop(&[p, p, p], 9)); // two
        assert!(!rule.should_stop(&[p, p, q, q], 12)); // the flip reset it
        assert!(rule.should_stop(&[p, p, q, q, q], 15));
    }

    #[test]
    fn never_before_min_ballots() {
        let rule = EarlyStopping {
            epsilon: 0.01,
            tau: 1,
            min_ballots: 10,
        };
        let p = [0.5, 0.25, 0.25];
        let mut t = rule.tracker();
        assert!(!t.observe(p, 3));
        assert!(!t.observe(p, 6));
        assert!(!t.observe(p, 9));
        assert!(t.observe(p, 12));
    }

    #[test]
    fn defaults() {
        let d = EarlyStopping::default();
        assert_eq!((d.epsilon, d.tau, d.min_ballots), (0.02, 2, 6));
    }

    #[test]
    fn default_rule_stops_a_unanimous_committee_after_four_iterations() {
        // D ≈ 0.0430, 0.0138, 0.0061 bit at t = 2, 3, 4: at ε = 0.02, t = 3 and 4 are stable.
        for m in 2..=6u64 {
            let mut t = EarlyStopping::default().tracker();
            let stops: Vec<bool> = (1..=4u64)
                .map(|i| t.observe(posterior_mean([m * i, 0, 0]), m * i))
                .collect();
            assert_eq!(stops, [false, false, false, true], "M = {m}");
        }
    }
}
