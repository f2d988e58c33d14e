//! The pooled audit of one question (`veritas audit --question`), without I/O: every
//! operator's report matched to its `ReportSubmitted` event, each rebuilt and compared with
//! it, then the pooled verdict rebuilt from the events and compared with the chain's views.
//! The command reads the reports and the chain ([`crate::contract::reader::question_view`]) and
//! prints what this returns.
//!
//! A report is matched to its event by an explicit operator (`0xOPERATOR=SOURCE`), else by the
//! operator of its committee seed inputs, else by its `tx.hash`, else by its recomputed root,
//! else by the root it claims.

use alloy::primitives::{Address, U256};

use super::{
    AuditError, AuditReport,
    pooled::{self, Check, PostedVerdict},
};
use crate::commitment::root::Root;
use crate::contract::reader::{QuestionView, ReportEvent, VerdictView};

/// A report handed to the audit: where it came from, the operator it is explicitly named for,
/// and the report (read bounded, [`super::file`], then typed once, [`super::input`]).
#[derive(Debug, Clone)]
pub struct GivenReport {
    /// File path or URL.
    pub source: String,
    /// The operator named with `0xOPERATOR=SOURCE`.
    pub operator: Option<Address>,
    /// The report.
    pub report: AuditReport,
}

/// What the audit found: lines describing the reports and the pooled verdict, every check,
/// and the problems that are not a value compared (an unmatched report, a missing event).
#[derive(Debug, Clone, Default)]
pub struct QuestionAudit {
    /// One line per report event, then the pooled verdict and notes.
    pub lines: Vec<String>,
    /// Every compared value.
    pub checks: Vec<Check>,
    /// What could not be checked, each a sentence.
    pub problems: Vec<String>,
}

/// A report that cannot be audited at all.
#[derive(Debug, thiserror::Error)]
#[error("report {source_name}: {error}")]
pub struct QuestionAuditError {
    /// File path or URL.
    pub source_name: String,
    /// Why.
    pub error: AuditError,
}

/// Audit question `view.id`'s reports and pooled verdict (`from_block`: where the event scan
/// began, named in the problems when an event is missing).
///
/// # Errors
/// [`QuestionAuditError`] when a given report lacks a key the recomputation needs.
pub fn audit_question(
    view: &QuestionView,
    given: &[GivenReport],
    from_block: u64,
) -> Result<QuestionAudit, QuestionAuditError> {
    let mut audit = QuestionAudit {
        lines: Vec::new(),
        checks: Vec::new(),
        problems: Vec::new(),
    };
    let covered = audit.given_reports(view, given)?;
    for (i, (r, source)) in view.reports.iter().zip(&covered).enumerate() {
        let how = match source {
            Some(s) => format!("report file {s} rebuilt and compared"),
            None => "no report given: its event is used as it stands".into(),
        };
        audit.lines.push(format!(
            "  report[{}] {}  block {}: {how}",
            i + 1,
            r.summary(),
            r.block
        ));
    }

    let claims: Vec<pooled::ReportClaim> = view.reports.iter().map(ReportEvent::claim).collect();
    match pooled::pool(&claims, u64::from(view.parameters.quorum)) {
        None => match view.status.as_str() {
            "Expired" => {
                audit
                    .lines
                    .push("  no report and Expired: nothing was posted".into());
            }
            status => audit.problems.push(format!(
                "no report on-chain yet (status {status}): nothing to audit"
            )),
        },
        Some(p) => audit.pooled(view, &p, from_block),
    }
    if !covered.is_empty() && covered.iter().all(Option::is_none) {
        audit.lines.push(
            "  note: no report file given: only the pooling of the events is checked, not the reports behind them"
                .into(),
        );
    }
    Ok(audit)
}

impl QuestionAudit {
    /// Each given report rebuilt, checked against itself and matched to its `ReportSubmitted`
    /// event; returns, per event, the source of the report file that covers it.
    fn given_reports(
        &mut self,
        view: &QuestionView,
        given: &[GivenReport],
    ) -> Result<Vec<Option<String>>, QuestionAuditError> {
        let id: U256 = view.id;
        let mut covered: Vec<Option<String>> = vec![None; view.reports.len()];
        let mut taken = vec![false; view.reports.len()];
        for l in given {
            let rec = super::recompute(&l.report).map_err(|error| QuestionAuditError {
                source_name: l.source.clone(),
                error,
            })?;
            // The report against itself, as the single-report audit checks it.
            for m in super::compare_with_report(&rec, &l.report) {
                self.checks.push(Check::new(
                    format!("{}: {}", l.source, m.field),
                    m.expected,
                    m.found,
                ));
            }
            if let Some(qid) = &rec.question_id {
                self.checks
                    .push(Check::new(format!("{}: question.id", l.source), id, qid));
            }
            self.checks.push(Check::new(
                format!("{}: questionHash", l.source),
                rec.question_hash,
                view.question_hash,
            ));
            match match_event(l, rec.root, &view.reports, &taken) {
                Some(i) => {
                    taken[i] = true;
                    covered[i] = Some(l.source.clone());
                    self.matched_report(view, i, l, &rec);
                }
                None => self.problems.push(format!(
                    "{}: matches no ReportSubmitted event of question {id} (root {}); name its \
                     operator with --report 0xOPERATOR={}",
                    l.source, rec.root, l.source
                )),
            }
        }
        Ok(covered)
    }

    /// A report file against the event `i` it matched, and its seed's chain-fixed inputs (the
    /// operator that reported, the question's block).
    fn matched_report(
        &mut self,
        view: &QuestionView,
        i: usize,
        l: &GivenReport,
        rec: &super::Recomputed,
    ) {
        let label = format!("report[{}] {}", i + 1, short(view.reports[i].operator));
        self.checks.extend(pooled::compare_report_with_event(
            &label,
            rec,
            &view.reports[i].claim(),
        ));
        let Some(seed_inputs) = &l.report.committee.seed_inputs else {
            return;
        };
        self.checks.push(Check::new(
            format!("{label}.committee.seed_inputs.operator"),
            view.reports[i].operator,
            seed_inputs.operator,
        ));
        if let Some(chain_hash) = view.asked_block_hash {
            self.checks.push(Check::new(
                format!("{label}.committee.seed_inputs.block_hash"),
                chain_hash,
                seed_inputs.block_hash,
            ));
        }
    }

    /// The pooling of the events `p` against the status and the verdict on chain.
    fn pooled(&mut self, view: &QuestionView, p: &pooled::Pooled, from_block: u64) {
        let reasons: Vec<String> = p.reasons.iter().map(ToString::to_string).collect();
        self.lines.push(format!(
            "  pooled: counts YES {} NO {} NULL {}, triple {} / {} / {}, kappa {}, root {}, {}",
            p.counts[0],
            p.counts[1],
            p.counts[2],
            p.p_fixed[0],
            p.p_fixed[1],
            p.p_fixed[2],
            p.kappa,
            p.root,
            if p.escalated {
                format!("escalated ({})", reasons.join(", "))
            } else {
                "resolved".into()
            }
        ));
        let disputed = view.dispute.is_some();
        let expected_status = if p.escalated {
            "Escalated (or Disputed, Arbitrated, Defaulted without a disputer)"
        } else {
            "Resolved (or Disputed, Arbitrated, Defaulted after a dispute)"
        };
        if view.status == "Asked" {
            self.problems.push(format!(
                "no verdict yet: {} of {} reports, the report window closes at {}",
                p.reports, view.parameters.quorum, view.report_window_closes_at
            ));
        } else {
            self.checks.push(Check::new(
                "chain.verdictStatus",
                if pooled::status_consistent(p, &view.status, disputed) {
                    view.status.clone()
                } else {
                    expected_status.to_string()
                },
                &view.status,
            ));
        }
        if let Some(v) = &view.verdict {
            self.verdict_on_chain(view, p, v, from_block);
        }
    }

    /// `getVerdict` and the `VerdictPosted` event against the pooling; after the court, the
    /// ruling's (or a default's) triple instead.
    fn verdict_on_chain(
        &mut self,
        view: &QuestionView,
        p: &pooled::Pooled,
        v: &VerdictView,
        from_block: u64,
    ) {
        let id = view.id;
        let defaulted = view.status == "Defaulted";
        let arbitrated = view.arbitrated.is_some() || view.status == "Arbitrated" || defaulted;
        let onchain = PostedVerdict {
            p_fixed: [v.p_yes, v.p_no, v.p_null],
            kappa: v.fleiss_kappa,
            root: v.merkle_root,
            escalated: None,
        };
        self.checks.extend(pooled::compare_with_chain(
            "chain.getVerdict",
            p,
            &onchain,
            !arbitrated,
        ));
        match &view.posted {
            Some(posted) => self.checks.extend(pooled::compare_with_chain(
                "chain.VerdictPosted",
                p,
                &posted.verdict(),
                true,
            )),
            None => self.problems.push(format!(
                "no VerdictPosted event for question {id} from block {from_block} on (try --from-block)"
            )),
        }
        let (expected, whose) = if defaulted {
            (
                Some(crate::contract::UNRESOLVABLE_TRIPLE.map(|x| x.to::<u128>())),
                "a defaulted court: unresolvable",
            )
        } else if arbitrated {
            if view.arbitrated.is_none() {
                self.problems.push(format!(
                    "no VerdictArbitrated event for question {id} from block {from_block} on"
                ));
            }
            (view.arbitrated, "arbiter's VerdictArbitrated")
        } else {
            (None, "")
        };
        for (k, name) in ["pYes", "pNo", "pNull"].into_iter().enumerate() {
            if let Some(triple) = expected {
                self.checks.push(Check::new(
                    format!("chain.getVerdict.{name} ({whose})"),
                    triple[k],
                    onchain.p_fixed[k],
                ));
            }
        }
    }
}

/// The index of the event `given` belongs to, among those not taken yet.
fn match_event(
    given: &GivenReport,
    recomputed_root: Root,
    events: &[ReportEvent],
    taken: &[bool],
) -> Option<usize> {
    let free = |i: &usize| !taken[*i];
    let find = |pred: &dyn Fn(&ReportEvent) -> bool| {
        (0..events.len()).filter(free).find(|&i| pred(&events[i]))
    };
    let report = &given.report;
    if let Some(op) = given
        .operator
        .or_else(|| report.committee.seed_inputs.map(|s| s.operator))
    {
        return find(&|e| e.operator == op);
    }
    if let Some(i) = report.tx.as_ref().and_then(|tx| find(&|e| e.tx == tx.hash)) {
        return Some(i);
    }
    if let Some(i) = find(&|e| e.merkle_root == recomputed_root) {
        return Some(i);
    }
    find(&|e| e.merkle_root == report.root)
}

fn short(a: Address) -> String {
    let s = a.to_string();
    format!("{}…{}", &s[..6], &s[s.len() - 4..])
}

#[cfg(test)]
mod tests {
    use alloy::primitives::B256;
    use serde_json::{Value, json};

    use super::*;

    /// The root of 32 bytes `byte`.
    fn root_of(byte: u8) -> Root {
        Root::from([byte; 32])
    }

    fn event(operator: u8, root: u8, tx: u8) -> ReportEvent {
        ReportEvent {
            not_yet: false,
            operator: Address::repeat_byte(operator),
            merkle_root: root_of(root),
            n_yes: 1,
            n_no: 0,
            n_null: 0,
            fleiss_kappa: 0,
            escalated: false,
            block: 1,
            tx: B256::repeat_byte(tx),
        }
    }

    /// The audit's fixture report, with seed inputs naming operator `seed`, posted in
    /// transaction `tx`, claiming `root`.
    fn report(seed: Option<u8>, tx: Option<u8>, root: Root) -> Value {
        let mut r = super::super::fixture::report();
        if let Some(op) = seed {
            r["committee"]["seed_inputs"] = json!({"chain_id": 31337, "oracle": Address::ZERO,
                "question_id": "7", "operator": Address::repeat_byte(op), "block_hash": B256::ZERO});
        }
        if let Some(tx) = tx {
            r["tx"] = json!({"hash": B256::repeat_byte(tx)});
        }
        r["root"] = json!(root);
        r
    }

    fn given(operator: Option<u8>, report: Value) -> GivenReport {
        GivenReport {
            source: "r.json".into(),
            operator: operator.map(Address::repeat_byte),
            report: super::super::fixture::read(&report),
        }
    }

    /// Three events: operators 1, 2, 3, roots 0x11, 0x22, 0x33, transactions 0xa1, 0xa2, 0xa3.
    fn events() -> Vec<ReportEvent> {
        vec![
            event(1, 0x11, 0xa1),
            event(2, 0x22, 0xa2),
            event(3, 0x33, 0xa3),
        ]
    }

    #[test]
    fn an_explicit_operator_wins_over_every_other_clue() {
        // The seed, the transaction and the root all point at event 3; `0xOPERATOR=` at 2.
        let report = report(Some(3), Some(0xa3), root_of(0x33));
        let m = match_event(
            &given(Some(2), report),
            root_of(0x33),
            &events(),
            &[false; 3],
        );
        assert_eq!(m, Some(1));
    }

    #[test]
    fn the_seed_operator_then_the_transaction_then_the_roots() {
        let free = [false; 3];
        let seed = report(Some(3), None, root_of(0));
        assert_eq!(
            match_event(&given(None, seed), root_of(0), &events(), &free),
            Some(2)
        );
        let tx = report(None, Some(0xa2), root_of(0x11));
        assert_eq!(
            match_event(&given(None, tx), root_of(0x33), &events(), &free),
            Some(1)
        );
        // No operator, no known transaction: the recomputed root before the claimed one.
        let roots = report(None, Some(0xee), root_of(0x11));
        assert_eq!(
            match_event(&given(None, roots.clone()), root_of(0x33), &events(), &free),
            Some(2)
        );
        assert_eq!(
            match_event(&given(None, roots), root_of(0x99), &events(), &free),
            Some(0)
        );
    }

    #[test]
    fn a_taken_event_is_never_matched_twice_and_a_named_operator_does_not_fall_back() {
        // Two reports of the same root: the second takes the next event with that root, if any.
        let mut evs = events();
        evs[1].merkle_root = root_of(0x11);
        let r = given(None, report(None, None, root_of(0x11)));
        assert_eq!(
            match_event(&r, root_of(0), &evs, &[false, false, false]),
            Some(0)
        );
        assert_eq!(
            match_event(&r, root_of(0), &evs, &[true, false, false]),
            Some(1)
        );
        assert_eq!(
            match_event(&r, root_of(0), &evs, &[true, true, false]),
            None
        );
        // Operator 2's event taken: a report named for operator 2 matches nothing, even though
        // its root is another free event's.
        let named = given(Some(2), report(None, None, root_of(0x33)));
        assert_eq!(
            match_event(&named, root_of(0x33), &events(), &[false, true, false]),
            None
        );
    }

    #[test]
    fn an_address_is_shortened_to_its_ends() {
        let s = Address::repeat_byte(0xab).to_string();
        assert_eq!(
            short(Address::repeat_byte(0xab)),
            format!("{}…{}", &s[..6], &s[38..])
        );
    }
}
