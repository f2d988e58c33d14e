//! Routing: resolve a question automatically or escalate it to the human arbiter.
//!
//! The thesis' escalation rule: a verdict is posted as resolved only when the committee is
//! both *confident* (the leading outcome's posterior mean and the lower end of its 95%
//! credible interval clear thresholds) and *in agreement* (Fleiss' kappa clears a threshold),
//! on enough valid ballots, and the leading outcome is YES or NO. Everything else escalates,
//! with every reason listed — a NULL lead, disagreement and too few ballots are signals, not
//! errors. The thresholds are configurable; the defaults are explained in the book's
//! routing chapter (book/src/routing.md).
//!
//! Three guards come on top, because agreement alone can be manufactured:
//!
//! - **Correlation**: N agreeing ballots of one model are one judgement read N times. The
//!   confidence test is repeated on the *effective* sample (counts scaled by n_eff / N, see
//!   [`crate::stats::effective`]): its lower 95% bound must clear `min_effective_lower_bound`.
//!   The default 0.25 is passed by three agreeing independent judgements (Beta(4, 2): 0.28) and
//!   not by two (Beta(3, 2): 0.19); why three is enough is the simulation in [`simulate`].
//! - **Relevance**: some committed item must share enough of the question's terms
//!   ([`mod@crate::question::relevance`]); otherwise "no relevant evidence", whatever the votes.
//! - **Yes/no only**: a multi-outcome or open question ([`crate::question::kind`]) is never resolved.
//!
//! The posted integers are untouched by all of this: routing only chooses the status.

pub mod not_yet;
pub mod simulate;

use serde::{Deserialize, Serialize};

use crate::bundle::EvidenceItem;
use crate::question::{QuestionCheck, QuestionKind, Relevance, classify, relevance};
use crate::stats::{EffectiveSample, Outcome, Summary, effective_sample};
pub use veritas_core::config::routing::RoutingPolicy;

/// What routing knows besides the ballots: the question's kind and the bundle's relevance.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutingInputs {
    /// The deterministic yes/no check of the question text.
    pub question: QuestionCheck,
    /// The planner's classification, when a planner model gave one.
    pub planner_kind: Option<QuestionKind>,
    /// How much each committed item speaks to the question.
    pub relevance: Relevance,
}

impl RoutingInputs {
    /// Inputs computed from the committed bundle alone (so an auditor recomputes them).
    pub fn from_bundle(question: &str, evidence: &[EvidenceItem]) -> Self {
        Self {
            question: classify(question),
            planner_kind: None,
            relevance: relevance(question, evidence),
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

/// A policy as a report states it: every threshold written. A configuration may leave one at
/// its default; a report that did would let a reader assume a threshold it never applied.
fn every_threshold<'de, D: serde::Deserializer<'de>>(d: D) -> Result<RoutingPolicy, D::Error> {
    use serde::de::Error as _;
    let stated = serde_json::Value::deserialize(d)?;
    if let (serde_json::Value::Object(stated), Ok(serde_json::Value::Object(all))) =
        (&stated, serde_json::to_value(RoutingPolicy::default()))
        && let Some(key) = all.keys().find(|k| !stated.contains_key(*k))
    {
        return Err(D::Error::custom(format!("missing field `{key}`")));
    }
    RoutingPolicy::deserialize(stated).map_err(D::Error::custom)
}

/// The routing block of the report. An unknown key is refused: the audit compares the block
/// key by key, so an invented one must not be dropped unseen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    /// The thresholds applied, every one stated.
    #[serde(deserialize_with = "every_threshold")]
    pub policy: RoutingPolicy,
    /// The effective-sample figures the correlation guard read (the plain ones are `stats`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective: Option<EffectiveSample>,
    /// The question's kind by the deterministic check, and the rule that decided it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<QuestionCheck>,
    /// The planner's classification, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planner_kind: Option<QuestionKind>,
    /// The evidence-relevance scores the floor read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance: Option<Relevance>,
}

/// The leading outcome of the counts (ties to the first in K order) and whether it is tied.
fn lead_of(n: [u64; 3]) -> (Outcome, bool) {
    let mut lead = Outcome::Yes;
    for k in Outcome::ALL {
        if n[k.index()] > n[lead.index()] {
            lead = k;
        }
    }
    let tied = Outcome::ALL
        .iter()
        .any(|k| *k != lead && n[k.index()] == n[lead.index()]);
    (lead, tied)
}

/// The seed's rule alone (before this module's guards): plain posterior, plain lower bound,
/// kappa and ballot count. Kept for `veritas eval` and `veritas simulate`, which report the
/// old rule next to the new one on the same ballots.
pub fn route_plain(summary: &Summary, policy: &RoutingPolicy) -> Decision {
    let n = summary.counts.as_array();
    let (lead, tied) = lead_of(n);
    let resolves = summary.valid >= policy.min_valid_ballots
        && !tied
        && lead != Outcome::Null
        && summary.posterior[lead.index()] >= policy.min_posterior
        && summary.ci95[lead.index()][0] >= policy.min_lower_bound
        && summary.kappa.is_some_and(|k| k >= policy.min_kappa);
    if resolves {
        Decision::Resolve
    } else {
        Decision::Escalate
    }
}

/// The reasons to escalate that the votes cannot change: a question that is not yes/no (by its
/// reading or the planner's, when `yes_no_only`), and a bundle below the relevance floor.
fn vote_free_guards(inputs: &RoutingInputs, policy: &RoutingPolicy, reasons: &mut Vec<String>) {
    if policy.yes_no_only {
        if inputs.question.kind != QuestionKind::YesNo {
            reasons.push(format!(
                "not a yes/no question: {} ({})",
                inputs.question.kind, inputs.question.rule
            ));
        } else if let Some(kind) = inputs.planner_kind.filter(|k| *k != QuestionKind::YesNo) {
            reasons.push(format!(
                "not a yes/no question: the planner classified it as {kind}"
            ));
        }
    }
    let rel = &inputs.relevance;
    let floor = policy.min_relevance > 0.0 || policy.min_relevant_terms > 0;
    if floor && !rel.clears(policy.min_relevance, policy.min_relevant_terms) {
        let detail = match rel.best_item() {
            None => "the bundle is empty".to_owned(),
            Some(_) if rel.terms.is_empty() => {
                "the question has no content terms to match".to_owned()
            }
            Some(best) => format!(
                "the best item [{}] shares {} of the question's {} terms ({:.2}; needs {:.2} and {})",
                best.id,
                best.matched.len(),
                rel.terms.len(),
                best.share,
                policy.min_relevance,
                policy.min_relevant_terms.min(rel.terms.len()).max(1)
            ),
        };
        reasons.push(format!("no relevant evidence: {detail}"));
    }
}

/// Apply the policy to a ballot set's summary and the routing inputs.
pub fn route(summary: &Summary, inputs: &RoutingInputs, policy: &RoutingPolicy) -> Routing {
    let n = summary.counts.as_array();
    let effective = effective_sample(n, summary.n_eff);
    let (lead, tied) = lead_of(n);
    let mut routing = Routing {
        decision: Decision::Escalate,
        outcome: Some(lead),
        status: None,
        reasons: Vec::new(),
        policy: *policy,
        effective: Some(effective),
        question: Some(inputs.question.clone()),
        planner_kind: inputs.planner_kind,
        relevance: Some(inputs.relevance.clone()),
    };
    // Guards that do not depend on the votes come first: they decide whatever the votes say.
    vote_free_guards(inputs, policy, &mut routing.reasons);
    if summary.valid < policy.min_valid_ballots {
        routing.reasons.push(format!(
            "insufficient ballots: {} valid of {} cast, {} needed",
            summary.valid, summary.ballots, policy.min_valid_ballots
        ));
        routing.outcome = None;
        routing.status = Some("insufficient ballots".to_owned());
        return routing;
    }
    if tied {
        routing.reasons.push(format!(
            "no single leading outcome: counts YES {} / NO {} / NULL {}",
            n[0], n[1], n[2]
        ));
    }
    if lead == Outcome::Null {
        let reason = "NULL leads: the evidence does not settle the question";
        routing.reasons.push(reason.to_owned());
    }
    let confidence = Confidence::of(summary, &effective, lead);
    routing.reasons.extend(confidence.shortfalls(policy));
    if routing.reasons.is_empty() {
        routing
            .reasons
            .push(confidence.why_resolved(&inputs.relevance));
        routing.decision = Decision::Resolve;
    }
    routing
}

/// How sure the committee is of its leading outcome: the figures the confidence and agreement
/// tests read.
#[derive(Debug, Clone, Copy)]
struct Confidence {
    lead: Outcome,
    /// Posterior mean of the lead.
    posterior: f64,
    /// Lower 95% bound of the lead.
    lower: f64,
    /// Lower 95% bound of the lead on the effective sample.
    effective_lower: f64,
    /// Effective sample size of the valid ballots.
    n_eff: f64,
    /// Valid ballots.
    valid: u64,
    /// Fleiss' kappa, undefined without an iteration of two valid ballots.
    kappa: Option<f64>,
}

impl Confidence {
    fn of(summary: &Summary, effective: &EffectiveSample, lead: Outcome) -> Self {
        Self {
            lead,
            posterior: summary.posterior[lead.index()],
            lower: summary.ci95[lead.index()][0],
            effective_lower: effective.ci95[lead.index()][0],
            n_eff: effective.n_eff,
            valid: summary.valid,
            kappa: summary.kappa,
        }
    }

    /// A reason to escalate for each test the lead fails: posterior, lower bound, effective
    /// lower bound (correlated jurors count once), agreement.
    fn shortfalls(self, policy: &RoutingPolicy) -> Vec<String> {
        let Self {
            lead,
            posterior: p,
            lower,
            effective_lower: eff_lower,
            n_eff,
            valid,
            kappa,
        } = self;
        let mut reasons = Vec::new();
        if p < policy.min_posterior {
            reasons.push(format!(
                "posterior of {lead} {p:.3} < {:.2}",
                policy.min_posterior
            ));
        }
        if lower < policy.min_lower_bound {
            reasons.push(format!(
                "lower 95% bound of {lead} {lower:.3} < {:.2}",
                policy.min_lower_bound
            ));
        }
        if eff_lower < policy.min_effective_lower_bound {
            reasons.push(format!(
                "effective lower 95% bound of {lead} {eff_lower:.3} < {:.2}: n_eff {n_eff:.2} of {valid} valid ballots (correlated jurors count once)",
                policy.min_effective_lower_bound
            ));
        }
        match kappa {
            Some(k) if k >= policy.min_kappa => {}
            Some(k) => reasons.push(format!(
                "jurors disagree: kappa {k:.3} < {:.2}",
                policy.min_kappa
            )),
            None => reasons.push("kappa undefined: no iteration had two valid ballots".to_owned()),
        }
        reasons
    }

    /// The one reason of a resolved verdict: the figures that cleared the tests, and the
    /// evidence item that cleared the relevance floor.
    fn why_resolved(self, relevance: &Relevance) -> String {
        format!(
            "{}: effective lower bound {:.3} (n_eff {:.2} of {} ballots), posterior {:.3}, lower bound {:.3}, kappa {:.3}, best item [{}] shares {:.2} of the question's terms",
            self.lead,
            self.effective_lower,
            self.n_eff,
            self.valid,
            self.posterior,
            self.lower,
            self.kappa.unwrap_or(0.0),
            relevance.best.unwrap_or(0),
            relevance.best_item().map(|b| b.share).unwrap_or(0.0)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::Source;
    use crate::stats::{BallotRecord, summarize};

    /// Ballots by iteration; slot j of every iteration is cast by model `m{j % models}`.
    fn ballots_of(models: usize, votes: &[&[Option<Outcome>]]) -> Vec<BallotRecord> {
        let mut out = Vec::new();
        for (t, it) in votes.iter().enumerate() {
            for (j, v) in it.iter().enumerate() {
                out.push(BallotRecord {
                    iteration: t as u32 + 1,
                    model: format!("m{}", j % models),
                    archetype: "a".into(),
                    vote: *v,
                });
            }
        }
        out
    }

    fn ballots(votes: &[&[Option<Outcome>]]) -> Vec<BallotRecord> {
        ballots_of(3, votes)
    }

    const QUESTION: &str = "Did the Calderwick council approve the Harbour Street bike lane?";

    fn item(id: u32, title: &str, snippet: &str) -> EvidenceItem {
        EvidenceItem {
            id,
            url: String::new(),
            title: title.into(),
            snippet: snippet.into(),
            published_at: None,
            source: Source::Local,
            submitter: None,
        }
    }

    fn relevant() -> RoutingInputs {
        RoutingInputs::from_bundle(
            QUESTION,
            &[item(
                1,
                "Council approves bike lane",
                "Calderwick council approved the Harbour Street bike lane on 12 March.",
            )],
        )
    }

    const Y: Option<Outcome> = Some(Outcome::Yes);
    const N: Option<Outcome> = Some(Outcome::No);
    const U: Option<Outcome> = Some(Outcome::Null);

    #[test]
    fn unanimous_committee_of_three_models_resolves() {
        let s = summarize(&ballots(&[&[Y, Y, Y] as &[_]; 5]));
        let r = route(&s, &relevant(), &RoutingPolicy::default());
        assert_eq!(r.decision, Decision::Resolve, "{:?}", r.reasons);
        assert_eq!(r.outcome, Some(Outcome::Yes));
        assert!(
            r.reasons[0].contains("effective lower bound"),
            "{:?}",
            r.reasons
        );
        assert_eq!(
            route_plain(&s, &RoutingPolicy::default()),
            Decision::Resolve
        );
    }

    #[test]
    fn a_committee_of_one_model_does_not_settle_alone() {
        // The case: 12 agreeing ballots of one model pass every plain threshold
        // (posterior 0.867, lower bound 0.661, kappa 1) but n_eff = 1.
        let s = summarize(&ballots_of(1, &[&[Y, Y, Y] as &[_]; 4]));
        assert_eq!(s.n_eff, 1.0);
        assert_eq!(
            route_plain(&s, &RoutingPolicy::default()),
            Decision::Resolve
        );
        let r = route(&s, &relevant(), &RoutingPolicy::default());
        assert_eq!(r.decision, Decision::Escalate);
        assert_eq!(r.reasons.len(), 1, "{:?}", r.reasons);
        assert!(
            r.reasons[0]
                .starts_with("effective lower 95% bound of YES 0.094 < 0.25: n_eff 1.00 of 12"),
            "{:?}",
            r.reasons
        );
        let e = r.effective.unwrap_or_else(|| effective_sample([0; 3], 0.0));
        assert_eq!(e.counts, [1.0, 0.0, 0.0]);
        // Two agreeing models are not enough either; three are (the test above).
        let s = summarize(&ballots_of(2, &[&[Y, Y] as &[_]; 6]));
        assert_eq!(s.n_eff, 2.0);
        let r = route(&s, &relevant(), &RoutingPolicy::default());
        assert_eq!(r.decision, Decision::Escalate, "{:?}", r.reasons);
        // The guard can be turned off, restoring the plain rule.
        let off = RoutingPolicy {
            min_effective_lower_bound: 0.0,
            ..RoutingPolicy::default()
        };
        assert_eq!(route(&s, &relevant(), &off).decision, Decision::Resolve);
    }

    #[test]
    fn irrelevant_or_empty_evidence_escalates_whatever_the_votes() {
        let s = summarize(&ballots(&[&[Y, Y, Y] as &[_]; 5]));
        let off_topic = RoutingInputs::from_bundle(
            QUESTION,
            &[item(
                1,
                "Lantern festival",
                "Organisers cancelled the festival.",
            )],
        );
        let r = route(&s, &off_topic, &RoutingPolicy::default());
        assert_eq!(r.decision, Decision::Escalate);
        assert_eq!(r.reasons.len(), 1, "{:?}", r.reasons);
        assert!(r.reasons[0].starts_with("no relevant evidence: the best item [1] shares 0 of"));
        let empty = RoutingInputs::from_bundle(QUESTION, &[]);
        let r = route(&s, &empty, &RoutingPolicy::default());
        assert_eq!(r.reasons, ["no relevant evidence: the bundle is empty"]);
        // Both floor thresholds at 0 turn the floor off; one of them alone does not.
        let off = RoutingPolicy {
            min_relevance: 0.0,
            min_relevant_terms: 0,
            ..RoutingPolicy::default()
        };
        assert_eq!(route(&s, &empty, &off).decision, Decision::Resolve);
        let share_only = RoutingPolicy {
            min_relevant_terms: 0,
            ..RoutingPolicy::default()
        };
        assert_eq!(route(&s, &empty, &share_only).decision, Decision::Escalate);
    }

    #[test]
    fn questions_that_are_not_yes_no_escalate_with_the_rule() {
        let s = summarize(&ballots(&[&[Y, Y, Y] as &[_]; 5]));
        let question = "Who will win the Calderwick council vote on the Harbour Street bike lane: Smith or Jones?";
        let inputs = RoutingInputs::from_bundle(
            question,
            &[item(
                1,
                "Harbour Street bike lane",
                "The Calderwick council vote on the bike lane.",
            )],
        );
        let r = route(&s, &inputs, &RoutingPolicy::default());
        assert_eq!(r.decision, Decision::Escalate);
        assert_eq!(
            r.reasons,
            ["not a yes/no question: multi-outcome (starts with \"who\" and names alternatives)"]
        );
        // The planner can add the reason the rules missed, never remove one.
        let mut inputs = relevant();
        inputs.planner_kind = Some(QuestionKind::Open);
        let r = route(&s, &inputs, &RoutingPolicy::default());
        assert_eq!(
            r.reasons,
            ["not a yes/no question: the planner classified it as open"]
        );
    }

    #[test]
    fn null_lead_escalates() {
        let s = summarize(&ballots(&[&[U, U, U] as &[_]; 5]));
        let r = route(&s, &relevant(), &RoutingPolicy::default());
        assert_eq!(r.decision, Decision::Escalate);
        assert!(r.reasons.iter().any(|x| x.contains("NULL leads")));
    }

    #[test]
    fn disagreement_escalates_with_every_reason() {
        let s = summarize(&ballots(&[&[Y, N, U], &[Y, N, Y], &[N, Y, U]]));
        let r = route(&s, &relevant(), &RoutingPolicy::default());
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
        let r = route(&s, &relevant(), &RoutingPolicy::default());
        assert_eq!(r.decision, Decision::Escalate);
        assert_eq!(r.outcome, None);
        assert_eq!(r.status.as_deref(), Some("insufficient ballots"));
    }

    #[test]
    fn an_old_config_section_still_parses_with_the_new_defaults() {
        let old: RoutingPolicy = match toml::from_str("min_posterior = 0.8\nmin_kappa = 0.5") {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(old.min_posterior, 0.8);
        assert_eq!(old.min_effective_lower_bound, 0.25);
        assert!(old.yes_no_only);
    }
}
