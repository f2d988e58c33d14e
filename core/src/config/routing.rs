//! The `[routing]` section: the thresholds of the node's `policy`, which resolves a question
//! automatically or escalates it to the arbiter.

use serde::{Deserialize, Serialize};

/// Thresholds of the routing rule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoutingPolicy {
    /// Minimum posterior mean of the leading outcome.
    pub min_posterior: f64,
    /// Minimum lower 95% credible bound of the leading outcome.
    pub min_lower_bound: f64,
    /// Minimum Fleiss' kappa (agreement beyond chance).
    pub min_kappa: f64,
    /// Minimum valid ballots; below it the outcome is "insufficient ballots".
    pub min_valid_ballots: u64,
    /// Minimum lower 95% credible bound of the leading outcome on the effective sample
    /// (counts scaled by n_eff / N). 0 turns the correlation guard off.
    pub min_effective_lower_bound: f64,
    /// Some evidence item must hold at least this share of the question's content terms…
    pub min_relevance: f64,
    /// …and at least this many of them (all of them when the question has fewer). Both 0
    /// turn the floor off (a committee shown no evidence, such as the replay resolver's).
    pub min_relevant_terms: usize,
    /// Escalate questions that are not yes/no (multi-outcome markets, open questions).
    pub yes_no_only: bool,
}

impl Default for RoutingPolicy {
    /// posterior ≥ 0.70, lower bound ≥ 0.50, kappa ≥ 0.40 ("moderate" agreement, Landis &
    /// Koch), at least 6 valid ballots (two full iterations of M = 3); effective lower bound
    /// ≥ 0.25 (three agreeing independent judgements); an item sharing ≥ 15% and ≥ 2 of the
    /// question's terms (all 300 dev claims' own evidence: 280 pass; the demo corpus against
    /// prediction markets: none); yes/no questions only.
    fn default() -> Self {
        Self {
            min_posterior: 0.70,
            min_lower_bound: 0.50,
            min_kappa: 0.40,
            min_valid_ballots: 6,
            min_effective_lower_bound: 0.25,
            min_relevance: 0.15,
            min_relevant_terms: 2,
            yes_no_only: true,
        }
    }
}
