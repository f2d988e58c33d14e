//! The audit's side of a pooled verdict: each operator's report rebuilt from its file is
//! compared with its `ReportSubmitted` event, and the pooled verdict ([`crate::verdict`], the
//! contract's pooling rule) with what the chain posted. Every comparison is a named [`Check`].

use super::{Mismatch, Recomputed};
pub use crate::verdict::{
    EscalationReason, Pooled, PostedVerdict, ReportClaim, pool, roots_digest, status_consistent,
};

/// One compared value: what the recomputation gives and what a source on-chain states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// Source and field, e.g. `report[1].nNo` or `chain.getVerdict.pYes`.
    pub field: String,
    /// The recomputed value.
    pub expected: String,
    /// The stated value.
    pub found: String,
}

impl Check {
    /// Build a check.
    pub fn new(field: impl Into<String>, expected: impl ToString, found: impl ToString) -> Self {
        Self {
            field: field.into(),
            expected: expected.to_string(),
            found: found.to_string(),
        }
    }

    /// Whether the two agree.
    pub fn ok(&self) -> bool {
        self.expected == self.found
    }
}

/// The failing checks as mismatches.
pub fn failures(checks: &[Check]) -> Vec<Mismatch> {
    checks
        .iter()
        .filter(|c| !c.ok())
        .map(|c| Mismatch::new(c.field.clone(), c.expected.clone(), c.found.clone()))
        .collect()
}

/// Compare a report rebuilt from its file with its operator's `ReportSubmitted` event: root,
/// each count, kappa and the escalation flag. Fields are named `<label>.<field>`.
pub fn compare_report_with_event(label: &str, rec: &Recomputed, event: &ReportClaim) -> Vec<Check> {
    let mut out = vec![Check::new(format!("{label}.root"), rec.root, event.root)];
    for (k, name) in ["nYes", "nNo", "nNull"].into_iter().enumerate() {
        out.push(Check::new(
            format!("{label}.{name}"),
            rec.counts[k],
            event.counts[k],
        ));
    }
    out.push(Check::new(
        format!("{label}.fleissKappa"),
        rec.kappa_fixed,
        event.kappa,
    ));
    out.push(Check::new(
        format!("{label}.escalated"),
        rec.posted_escalated(),
        event.escalated,
    ));
    out
}

/// Compare the pooled verdict with one on-chain source (`source` names it in the fields, e.g.
/// `chain.getVerdict`). `triple` false skips the triple (an `Arbitrated` verdict's
/// `getVerdict`, which shows the arbiter's).
pub fn compare_with_chain(
    source: &str,
    pooled: &Pooled,
    chain: &PostedVerdict,
    triple: bool,
) -> Vec<Check> {
    let mut out = vec![Check::new(
        format!("{source}.merkleRoot"),
        pooled.root,
        chain.root,
    )];
    if triple {
        for (k, name) in ["pYes", "pNo", "pNull"].into_iter().enumerate() {
            out.push(Check::new(
                format!("{source}.{name}"),
                pooled.p_fixed[k],
                chain.p_fixed[k],
            ));
        }
    }
    out.push(Check::new(
        format!("{source}.fleissKappa"),
        pooled.kappa,
        chain.kappa,
    ));
    if let Some(escalated) = chain.escalated {
        out.push(Check::new(
            format!("{source}.escalated"),
            pooled.escalated,
            escalated,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use alloy::primitives::B256;

    use super::*;
    use crate::{stats, verdict::test_claim as claim};

    #[test]
    fn a_changed_count_is_named() {
        let rec = Recomputed {
            clock: None,
            not_yet: None,
            question_id: None,
            question: "q".into(),
            question_hash: B256::ZERO,
            root: crate::commitment::root::Root::from(B256::with_last_byte(1)),
            leaves: vec![],
            p_fixed: stats::to_wad([3, 1, 0]),
            kappa_fixed: 7,
            valid_ballots: 4,
            ballots: 4,
            counts: [3, 1, 0],
            escalated: false,
            routing: crate::audit::RoutingAudit {
                routing: crate::policy::route(
                    &stats::summarize::<stats::BallotRecord>(&[]),
                    &crate::policy::RoutingInputs::from_bundle("q", &[]),
                    &crate::policy::RoutingPolicy::default(),
                ),
                findings: Vec::new(),
            },
        };
        let event = claim(1, [3, 1, 0], 7, false);
        let checks = compare_report_with_event("r", &rec, &event);
        assert_eq!(checks.len(), 6);
        assert_eq!(failures(&checks), vec![]);
        let event = claim(1, [3, 2, 0], 7, false);
        let m = failures(&compare_report_with_event("r", &rec, &event));
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].field, "r.nNo");
        assert_eq!((m[0].expected.as_str(), m[0].found.as_str()), ("1", "2"));
        let event = claim(2, [3, 1, 0], 7, true);
        let fields: Vec<_> = failures(&compare_report_with_event("r", &rec, &event))
            .into_iter()
            .map(|m| m.field)
            .collect();
        assert_eq!(fields, ["r.root", "r.escalated"]);
    }
}
