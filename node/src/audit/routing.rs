//! The routing block of a report, recomputed: the node's own [`policy::route`] applied to the
//! report's `routing.policy`, the statistics recomputed from its ballots, and the routing
//! inputs rebuilt from its question and evidence.
//!
//! The planner's classification is the only input that is not recomputed (it is a model's
//! answer): it is read where the node reads it, the report's `search.plan.question_kind`,
//! never from the `routing` block being checked. Every key of the recomputed block must equal
//! the report's, so a flipped decision, an edited reason or a threshold changed after the fact
//! is named. A policy that is missing, incomplete or malformed is a finding, not a skipped check.

use super::{AuditReport, Claim, Mismatch};
use crate::policy::{self, Decision, Routing, RoutingInputs};
use crate::question::QuestionKind;
use crate::stats::Summary;

/// The routing recomputed from a report, and what could not be.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutingAudit {
    /// The decision the report claims.
    pub claimed: Decision,
    /// The decision recomputed; `None` when `findings` say why it could not be.
    pub recomputed: Option<Decision>,
    /// The recomputed reasons (empty when not recomputed).
    pub reasons: Vec<String>,
    /// Keys that differ from the recomputed block, or that stop the recomputation.
    pub findings: Vec<Mismatch>,
    /// The routing recomputed, when it could be (the "not yet" rule reads it).
    pub routing: Option<Routing>,
}

impl RoutingAudit {
    /// Whether the verdict is escalated: the recomputed decision, else the claimed one (then
    /// `findings` is not empty, so the report does not audit).
    pub fn escalated(&self) -> bool {
        self.recomputed.unwrap_or(self.claimed) == Decision::Escalate
    }
}

/// The planner's classification as the node used it (`search.plan.question_kind`).
fn planner_kind(report: &AuditReport) -> Result<Option<QuestionKind>, Mismatch> {
    match &report.search.plan.question_kind {
        Claim::Absent => Ok(None),
        Claim::Is { value, .. } => Ok(*value),
        Claim::Not { why, .. } => Err(Mismatch::in_report(
            "search.plan.question_kind",
            "yes_no, multi_outcome or open",
            why.clone(),
        )),
    }
}

/// Recompute the routing of `report` (question `question`, ballots summarised as `summary`),
/// given the decision it claims.
pub fn recompute(
    report: &AuditReport,
    question: &str,
    summary: &Summary,
    claimed: Decision,
) -> RoutingAudit {
    let mut audit = RoutingAudit {
        claimed,
        recomputed: None,
        reasons: Vec::new(),
        findings: Vec::new(),
        routing: None,
    };
    let items = report
        .evidence_items()
        .map_err(|e| Mismatch::in_report("evidence", "evidence items routing can read", e));
    let (policy, items, kind) = match (report.policy(), items, planner_kind(report)) {
        (Ok(p), Ok(i), Ok(k)) => (p, i, k),
        (p, i, k) => {
            audit.findings.extend(p.err());
            audit.findings.extend(i.err());
            audit.findings.extend(k.err());
            return audit;
        }
    };
    let mut inputs = RoutingInputs::from_bundle(question, &items);
    inputs.planner_kind = kind;
    let routing: Routing = policy::route(summary, &inputs, &policy);
    audit.recomputed = Some(routing.decision);
    audit.reasons = routing.reasons.clone();
    audit.findings = report.routing_differences(&routing);
    audit.routing = Some(routing);
    audit
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::super::fixture::{fields, report, reseal};

    #[test]
    fn a_flipped_decision_is_recomputed_both_ways() {
        // The policy says resolve; the report claims escalate.
        let mut r = report();
        assert_eq!(r["routing"]["decision"], "resolve");
        r["routing"]["decision"] = json!("escalate");
        assert_eq!(fields(&r), ["report.routing.decision"]);
        let rec = crate::audit::recompute(&r).unwrap();
        assert!(!rec.escalated, "the recomputed decision, not the claim");
        // The policy says escalate (a posterior of 1 is out of reach); the report claims resolve.
        let mut r = report();
        r["routing"]["policy"]["min_posterior"] = json!(1.0);
        reseal(&mut r);
        assert_eq!(r["routing"]["decision"], "escalate");
        assert_eq!(fields(&r), Vec::<String>::new());
        r["routing"]["decision"] = json!("resolve");
        assert_eq!(fields(&r), ["report.routing.decision"]);
        assert!(crate::audit::recompute(&r).unwrap().escalated);
    }

    #[test]
    fn a_policy_changed_after_the_fact_or_missing_is_named() {
        // A threshold edited without re-routing: the decision and reasons no longer follow.
        let mut r = report();
        r["routing"]["policy"]["min_posterior"] = json!(1.0);
        assert_eq!(
            fields(&r),
            ["report.routing.decision", "report.routing.reasons"]
        );
        let mut r = report();
        r["routing"].as_object_mut().unwrap().remove("policy");
        assert_eq!(fields(&r), ["report.routing.policy"]);
        // A dropped threshold would take its default silently: named instead.
        let mut r = report();
        r["routing"]["policy"]
            .as_object_mut()
            .unwrap()
            .remove("min_kappa");
        assert_eq!(fields(&r), ["report.routing.policy.min_kappa"]);
        let mut r = report();
        r["routing"]["policy"]["min_kappa"] = json!("high");
        assert_eq!(fields(&r), ["report.routing.policy"]);
    }

    #[test]
    fn edited_reasons_and_invented_keys_are_named() {
        let mut r = report();
        r["routing"]["reasons"] = json!(["looked fine"]);
        assert_eq!(fields(&r), ["report.routing.reasons"]);
        let mut r = report();
        r["routing"]["status"] = json!("insufficient ballots");
        assert_eq!(fields(&r), ["report.routing.status"]);
    }

    #[test]
    fn the_planner_kind_is_read_from_the_search_record() {
        // The planner called it open: routing must escalate, whatever `routing` says.
        let mut r = report();
        r["search"] = json!({"plan": {"question_kind": "open"}});
        let found = fields(&r);
        assert!(
            found.contains(&"report.routing.decision".to_string())
                && found.contains(&"report.routing.planner_kind".to_string()),
            "{found:?}"
        );
        // A `planner_kind` in the routing block without a search record is not an input.
        let mut r = report();
        r["routing"]["planner_kind"] = json!("open");
        assert_eq!(fields(&r), ["report.routing.planner_kind"]);
    }
}
