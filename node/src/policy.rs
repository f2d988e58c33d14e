//! Routing: resolve a question automatically or escalate it to the human arbiter.
//!
//! The thesis' escalation rule: a verdict is posted as resolved only when the committee is
//! both *confident* (the leading outcome's posterior mean and the lower end of its 95%
//! credible interval clear thresholds) and *in agreement* (Fleiss' kappa clears a threshold),
//! on enough valid ballots, and the leading outcome is YES or NO. Everything else escalates,
//! with every reason listed — a NULL lead, disagreement and too few ballots are signals, not
//! errors. The thresholds are configurable; the defaults are explained in the README.

use serde::{Deserialize, Serialize};

use crate::stats::{Outcome, Summary};

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
}

impl Default for RoutingPolicy {
    /// posterior ≥ 0.70, lower bound ≥ 0.50, kappa ≥ 0.40 ("moderate" agreement, Landis &
    /// Koch), at least 6 valid ballots (two full iterations of M = 3).
    fn default() -> Self {
        Self {
            min_posterior: 0.70,
            min_lower_bound: 0.50,
            min_kappa: 0.40,
            min_valid_ballots: 6,
        }
    }
}

/// Resolve or escalate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Post the verdict as resolved.
    Resolve,
    /// Hand the question to the arbiter.
    Escalate,
}

/// The routing block of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Routing {
    /// Resolve or escalate.
    pub decision: Decision,
    /// The leading outcome (posterior mode; ties go to the earlier outcome in K order), or
    /// null when there are too few valid ballots to name one.
    pub outcome: Option<Outcome>,
    /// "insufficient ballots" when below the minimum, else null.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Every reason to escalate (empty when resolved), or why it resolved.
    pub reasons: Vec<String>,
    /// The thresholds applied.
    pub policy: RoutingPolicy,
}

/// Apply the policy to a ballot set's summary.
pub fn route(summary: &Summary, policy: &RoutingPolicy) -> Routing {
    let mut reasons = Vec::new();
    let n = summary.counts.as_array();
    // Leading outcome: highest count, ties to the first in K order (YES, NO, NULL).
    let mut lead = Outcome::Yes;
    for k in Outcome::ALL {
        if n[k.index()] > n[lead.index()] {
            lead = k;
        }
    }
    let tied = Outcome::ALL
        .iter()
        .filter(|k| **k != lead && n[k.index()] == n[lead.index()])
        .count()
        > 0;
    if summary.valid < policy.min_valid_ballots {
        reasons.push(format!(
            "insufficient ballots: {} valid of {} cast, {} needed",
            summary.valid, summary.ballots, policy.min_valid_ballots
        ));
        return Routing {
            decision: Decision::Escalate,
            outcome: None,
            status: Some("insufficient ballots".to_owned()),
            reasons,
            policy: *policy,
        };
    }
    if tied {
        reasons.push(format!(
            "no single leading outcome: counts YES {} / NO {} / NULL {}",
            n[0], n[1], n[2]
        ));
    }
    if lead == Outcome::Null {
        reasons.push("NULL leads: the evidence does not settle the question".to_owned());
    }
    let p = summary.posterior[lead.index()];
    if p < policy.min_posterior {
        reasons.push(format!(
            "posterior of {lead} {p:.3} < {:.2}",
            policy.min_posterior
        ));
    }
    let lower = summary.ci95[lead.index()][0];
    if lower < policy.min_lower_bound {
        reasons.push(format!(
            "lower 95% bound of {lead} {lower:.3} < {:.2}",
            policy.min_lower_bound
        ));
    }
    match summary.kappa {
        Some(k) if k >= policy.min_kappa => {}
        Some(k) => reasons.push(format!(
            "jurors disagree: kappa {k:.3} < {:.2}",
            policy.min_kappa
        )),
        None => reasons.push("kappa undefined: no iteration had two valid ballots".to_owned()),
    }
    let decision = if reasons.is_empty() {
        reasons.push(format!(
            "{lead}: posterior {p:.3}, lower bound {lower:.3}, kappa {:.3}",
            summary.kappa.unwrap_or(0.0)
        ));
        Decision::Resolve
    } else {
        Decision::Escalate
    };
    Routing {
        decision,
        outcome: Some(lead),
        status: None,
        reasons,
        policy: *policy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{BallotRecord, summarize};

    fn ballots(votes: &[&[Option<Outcome>]]) -> Vec<BallotRecord> {
        let mut out = Vec::new();
        for (t, it) in votes.iter().enumerate() {
            for v in *it {
                out.push(BallotRecord {
                    iteration: t as u32 + 1,
                    model: "m".into(),
                    archetype: "a".into(),
                    vote: *v,
                });
            }
        }
        out
    }

    const Y: Option<Outcome> = Some(Outcome::Yes);
    const N: Option<Outcome> = Some(Outcome::No);
    const U: Option<Outcome> = Some(Outcome::Null);

    #[test]
    fn unanimous_committee_resolves() {
        let s = summarize(&ballots(&[&[Y, Y, Y] as &[_]; 5]));
        let r = route(&s, &RoutingPolicy::default());
        assert_eq!(r.decision, Decision::Resolve, "{:?}", r.reasons);
        assert_eq!(r.outcome, Some(Outcome::Yes));
    }

    #[test]
    fn null_lead_escalates() {
        let s = summarize(&ballots(&[&[U, U, U] as &[_]; 5]));
        let r = route(&s, &RoutingPolicy::default());
        assert_eq!(r.decision, Decision::Escalate);
        assert!(r.reasons.iter().any(|x| x.contains("NULL leads")));
    }

    #[test]
    fn disagreement_escalates_with_every_reason() {
        let s = summarize(&ballots(&[&[Y, N, U], &[Y, N, Y], &[N, Y, U]]));
        let r = route(&s, &RoutingPolicy::default());
        assert_eq!(r.decision, Decision::Escalate);
        assert!(
            r.reasons.iter().any(|x| x.contains("disagree")),
            "{:?}",
            r.reasons
        );
        assert!(r.reasons.iter().any(|x| x.contains("posterior")));
        assert!(r.reasons.iter().any(|x| x.contains("lower 95%")));
    }

    #[test]
    fn too_few_valid_ballots_is_insufficient_not_a_verdict() {
        let s = summarize(&ballots(&[&[Y, None, None], &[Y, None, None]]));
        let r = route(&s, &RoutingPolicy::default());
        assert_eq!(r.decision, Decision::Escalate);
        assert_eq!(r.outcome, None);
        assert_eq!(r.status.as_deref(), Some("insufficient ballots"));
    }
}
