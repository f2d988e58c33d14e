//! The routing block of a report, recomputed: the node's own [`policy::route`] applied to the
//! report's `routing.policy`, the statistics recomputed from its ballots, and the routing
//! inputs rebuilt from its question and evidence.
//!
//! The planner's classification is the only input that is not recomputed (it is a model's
//! answer): it is read where the node reads it, the report's `search.plan.question_kind`,
//! never from the `routing` block being checked. Every key of the recomputed block must equal
//! the report's, so a flipped decision, an edited reason or a threshold changed after the fact
//! is named. A policy that is missing or incomplete does not read as a report
//! ([`super::input`]): that is the finding, not a skipped check.

use serde_json::{Map, Value};

use super::{AuditReport, Mismatch};
use crate::policy::{self, Routing, RoutingInputs};
use crate::stats::Summary;

/// The routing recomputed from a report, and where the report's block differs from it.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutingAudit {
    /// The routing recomputed (its decision is the one a verdict posts, never the claim).
    pub routing: Routing,
    /// Every key of the report's block that differs from the recomputed one.
    pub findings: Vec<Mismatch>,
}

impl RoutingAudit {
    /// Whether the recomputed routing escalates.
    pub fn escalated(&self) -> bool {
        self.routing.decision == policy::Decision::Escalate
    }
}

/// Recompute the routing of `report` (question `question`, ballots summarised as `summary`)
/// from its own policy, evidence and planner classification.
pub fn recompute(report: &AuditReport, question: &str, summary: &Summary) -> RoutingAudit {
    let mut inputs = RoutingInputs::from_bundle(question, &report.evidence);
    inputs.planner_kind = report.search.as_ref().and_then(|s| s.plan.question_kind);
    let routing = policy::route(summary, &inputs, &report.routing.policy);
    RoutingAudit {
        findings: differences(&report.routing, &routing),
        routing,
    }
}

/// Every key whose JSON differs between the report's routing block and the recomputed one
/// (a key only one of them has included).
fn differences(stated: &Routing, recomputed: &Routing) -> Vec<Mismatch> {
    let keys = |r: &Routing| match serde_json::to_value(r) {
        Ok(Value::Object(keys)) => keys,
        _ => Map::new(),
    };
    let (recomputed, stated) = (keys(recomputed), keys(stated));
    let mut names: Vec<&String> = recomputed.keys().chain(stated.keys()).collect();
    names.sort();
    names.dedup();
    let show = |v: Option<&Value>, absent: &str| {
        v.map_or_else(
            || absent.to_owned(),
            |v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        )
    };
    names
        .into_iter()
        .filter_map(|key| {
            let (expected, found) = (recomputed.get(key), stated.get(key));
            (expected != found).then(|| {
                Mismatch::in_report(
                    &format!("routing.{key}"),
                    show(expected, "(absent)"),
                    show(found, "(missing)"),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::super::fixture::{fields, read, report, reseal};

    #[test]
    fn a_flipped_decision_is_recomputed_both_ways() {
        // The policy says resolve; the report claims escalate.
        let mut r = report();
        assert_eq!(r["routing"]["decision"], "resolve");
        r["routing"]["decision"] = json!("escalate");
        assert_eq!(fields(&r), ["report.routing.decision"]);
        let rec = crate::audit::recompute(&read(&r)).unwrap();
        assert!(!rec.escalated, "the recomputed decision, not the claim");
        // The policy says escalate (a posterior of 1 is out of reach); the report claims resolve.
        let mut r = report();
        r["routing"]["policy"]["min_posterior"] = json!(1.0);
        reseal(&mut r);
        assert_eq!(r["routing"]["decision"], "escalate");
        assert_eq!(fields(&r), Vec::<String>::new());
        r["routing"]["decision"] = json!("resolve");
        assert_eq!(fields(&r), ["report.routing.decision"]);
        assert!(crate::audit::recompute(&read(&r)).unwrap().escalated);
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
        r["search"] = json!({"resolve_after": null, "raw_hits": [], "dropped": [],
            "plan": {"queries": [], "rubric": crate::bundle::Rubric::default(), "model": null,
                "fallback_reason": null, "latency_ms": 0, "question_kind": "open"}});
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
