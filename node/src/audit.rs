//! Rebuild a verdict from its report file, and compare it with the report and the chain.
//!
//! The daemon and `veritas audit` share this code: before posting, the daemon derives the
//! integers it posts from the report with [`recompute`] (so a verdict is by construction what
//! its report proves), and an auditor runs the same function on the same file.
//!
//! A report is read as the node's own typed [`crate::report::Report`] ([`input`]): a key that
//! is missing or of another type is the one finding, naming its path. The checks then read
//! the keys the auditor guide fixes: `question.text` (and `question.id`), `evidence`,
//! `leaves`, `root`, `ballots` (`iteration`, `slot`, `model`, `archetype`, `vote`), `stats`
//! (`p_fixed`, `kappa_fixed` and the ballot counts), `routing` (its `policy`, and every other
//! key compared with the recomputed block), `search.plan.question_kind`, and the committee's
//! `seed`, `seed_inputs`, `M`, `T`, stopping rule, `stop_iteration` and weights. Nothing the
//! report claims is taken as it stands:
//!
//! - the statistics are recomputed from the ballots ([`crate::stats::summarize`]);
//! - the routing is recomputed by the node's own [`crate::policy::route`] from the report's
//!   policy, those statistics and its evidence ([`routing`]);
//! - the committee's draws are recomputed from the seed, every (iteration, slot) of the run
//!   exactly once, and the stop from the KL rule ([`seed`], [`draws`]); an `M` of 0 or an
//!   empty weight list is a mismatch, never a skipped check.
//!
//! [`file`] reads a report bounded in size; the evidence items are committed as written (what
//! the spec commits), not as typed. [`pooled`] rebuilds a verdict pooled from several
//! operators' reports (version 2).
//!
//! On-chain evidence ([`check_submissions`], [`compare_submissions_with_chain`], from
//! `audit/submissions.rs`): the report's `submissions` key lists every item submitted for the
//! question with its link of the contract's evidence hash chain, each link recomputed offline
//! and every `EvidenceSubmitted` log of the question looked up in it with the chain.
//!
//! The asker's clarifications ([`compare_clarifications_with_chain`]): offline they are part of
//! the root (leaves 1..=c, from `question.clarifications`); with the chain, the report must hold
//! every `QuestionClarified` text of the question, in order, and nothing else.

use alloy::{
    primitives::{Address, B256, I256, U256},
    providers::Provider,
    rpc::types::Filter,
    sol_types::SolEvent,
};
use sha2::{Digest, Sha256};

pub mod draws;
pub mod file;
#[cfg(test)]
pub(crate) mod fixture;
pub mod input;
pub mod pooled;
pub mod question;
pub mod routing;
pub mod seed;
mod submissions;

pub use file::{MAX_REPORT_BYTES, ReportFileError, read_report};
pub use input::AuditReport;
pub use routing::RoutingAudit;
pub use submissions::{check_submissions, compare_submissions_with_chain};

use crate::chain::ViewCall;
use crate::commitment::{self, root::Root};
use crate::jury::BallotRow;
use crate::policy::not_yet::{self, NotYet};
use crate::stats::{self, BallotRecord, Summary};
use crate::{
    chain::{ChainError, ChainProvider},
    contract::IVeritasOracle,
};

/// Why a report could not be audited at all.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// A key the audit needs is missing or has the wrong type.
    #[error("report key `{key}`: {reason}")]
    Shape {
        /// Dotted key.
        key: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The evidence cannot be committed (a float, a non-object item, ...).
    #[error("evidence: {0}")]
    Commitment(#[from] commitment::CommitmentError),
}

/// What the report's own evidence, ballots and policy yield.
#[derive(Debug, Clone, PartialEq)]
pub struct Recomputed {
    /// `question.id` when the report names one (a decimal string in the JSON).
    pub question_id: Option<U256>,
    /// The question text.
    pub question: String,
    /// sha256 of the question text (what the contract stores).
    pub question_hash: B256,
    /// Merkle root over the question and the evidence.
    pub root: Root,
    /// Leaf hashes, question first.
    pub leaves: Vec<B256>,
    /// (YES, NO, NULL) in 1e18 fixed point.
    pub p_fixed: [u128; 3],
    /// Kappa in 1e18 fixed point.
    pub kappa_fixed: i128,
    /// Valid (non-failed) ballots.
    pub valid_ballots: u64,
    /// All ballots, failed ones included.
    pub ballots: u64,
    /// Valid votes (YES, NO, NULL).
    pub counts: [u64; 3],
    /// Routing decided to escalate: the decision recomputed from the report's policy (the
    /// claimed one only when it cannot be recomputed, which `routing.findings` then names).
    pub escalated: bool,
    /// The routing recomputed, the claimed decision, and what differs.
    pub routing: RoutingAudit,
    /// The report round's clock (`question.clock`), when the report has one.
    pub clock: Option<not_yet::RoundClock>,
    /// The "not yet" rule recomputed from `question.clock` (`None` without a clock: an
    /// off-chain report); its differences from the report's `not_yet` are routing findings.
    pub not_yet: Option<NotYet>,
}

impl Recomputed {
    /// Whether the report says "not yet" (recomputed, never the claim).
    pub fn defers(&self) -> bool {
        self.not_yet.as_ref().is_some_and(|n| n.defers)
    }

    /// The `escalated` flag the report posts: its routing's, except that a "not yet" report
    /// does not escalate (a majority of it defers; the contract escalates at the bound).
    pub fn posted_escalated(&self) -> bool {
        self.escalated && !self.defers()
    }
}

/// One value that differs between what was recomputed and what a source claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Where the claim comes from and which field, e.g. `report.root` or `chain.pYes`.
    pub field: String,
    /// The recomputed value.
    pub expected: String,
    /// The claimed value.
    pub found: String,
}

impl Mismatch {
    /// A finding on `field`, named with its source (`report.committee.M`, `chain.pYes`).
    fn new(
        field: impl Into<String>,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Self {
        Self {
            field: field.into(),
            expected: expected.into(),
            found: found.into(),
        }
    }

    /// A finding on the report's own key `field` (named `report.<field>`).
    fn in_report(field: &str, expected: impl Into<String>, found: impl Into<String>) -> Self {
        Self::new(format!("report.{field}"), expected, found)
    }
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: recomputed {}, found {}",
            self.field, self.expected, self.found
        )
    }
}

fn shape(key: &'static str, reason: impl Into<String>) -> AuditError {
    AuditError::Shape {
        key,
        reason: reason.into(),
    }
}

/// Recompute root, leaves, posterior integers, kappa and escalation from a report.
///
/// # Errors
/// [`AuditError::Commitment`] when the evidence as written cannot be committed.
pub fn recompute(report: &AuditReport) -> Result<Recomputed, AuditError> {
    let question = report.question.text.as_str();
    let clarifications = report.question.clarifications.as_slice();
    let commitment = commitment::commit(question, clarifications, report.evidence_as_written())?;
    let ballots: Vec<BallotRecord> = report.ballots.iter().map(BallotRow::record).collect();
    let summary = stats::summarize(&ballots);
    let mut routing = routing::recompute(report, question, &summary);
    let not_yet = recompute_not_yet(report, question, clarifications, &mut routing);
    Ok(Recomputed {
        question_id: report.question.id,
        question: question.to_owned(),
        question_hash: B256::from_slice(&Sha256::digest(question.as_bytes())),
        root: commitment.root,
        leaves: commitment.leaves.iter().copied().map(B256::from).collect(),
        p_fixed: summary.p_fixed,
        kappa_fixed: summary.kappa_fixed,
        valid_ballots: summary.valid,
        ballots: summary.ballots,
        counts: summary.counts.as_array(),
        escalated: routing.escalated(),
        routing,
        clock: report.question.clock,
        not_yet,
    })
}

/// The "not yet" rule on the report's clock and the recomputed routing; what differs from the
/// report's `not_yet` block goes to the routing findings (a report that defers by a rule it
/// does not follow does not audit).
fn recompute_not_yet(
    report: &AuditReport,
    question: &str,
    clarifications: &[String],
    routing: &mut RoutingAudit,
) -> Option<NotYet> {
    let shown = |n: Option<&NotYet>| {
        n.map_or_else(
            || "(missing)".to_owned(),
            |n| serde_json::to_string(n).unwrap_or_default(),
        )
    };
    let Some(clock) = report.question.clock else {
        if report.not_yet.is_some() {
            routing.findings.push(Mismatch::in_report(
                "not_yet",
                "(absent: no question.clock)",
                shown(report.not_yet.as_ref()),
            ));
        }
        return None;
    };
    let recomputed = not_yet::check(question, clarifications, clock, &routing.routing);
    if report.not_yet.as_ref() != Some(&recomputed) {
        routing.findings.push(Mismatch::in_report(
            "not_yet",
            shown(Some(&recomputed)),
            shown(report.not_yet.as_ref()),
        ));
    }
    Some(recomputed)
}

/// Compare the recomputed values with the report's own claims (`root`, `leaves`,
/// `stats.p_fixed`, `stats.kappa_fixed`, and the ballot counts `stats.ballots`, `stats.valid`,
/// `stats.failed`, `stats.counts`: a removed failed ballot changes no posted number, but
/// the report then disagrees with its own ballots), its routing block, and its committee
/// (seed, draws, every position once, stop).
pub fn compare_with_report(rec: &Recomputed, report: &AuditReport) -> Vec<Mismatch> {
    let mut out = commitment_differences(rec, report);
    out.extend(posterior_differences(rec, &report.stats));
    out.extend(count_differences(rec, &report.stats));
    out.extend(rec.routing.findings.iter().cloned());
    out.extend(seed::check(report, &rec.root));
    out
}

/// A finding on the report's `field` unless its claim equals the recomputed value.
fn unless_same<T: PartialEq + ToString>(field: &str, expected: &T, found: &T) -> Option<Mismatch> {
    (expected != found).then(|| Mismatch::in_report(field, expected.to_string(), found.to_string()))
}

/// The report's `root` and `leaves` against the commitment recomputed from its evidence.
fn commitment_differences(rec: &Recomputed, report: &AuditReport) -> Vec<Mismatch> {
    let joined = |leaves: &[B256]| {
        leaves
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let root = unless_same("root", &rec.root, &report.root);
    let leaves = unless_same("leaves", &joined(&rec.leaves), &joined(&report.leaves));
    root.into_iter().chain(leaves).collect()
}

/// The report's `stats.p_fixed` and `stats.kappa_fixed`: the integers a verdict posts.
fn posterior_differences(rec: &Recomputed, stats: &Summary) -> Vec<Mismatch> {
    let names = ["p_fixed[0] (YES)", "p_fixed[1] (NO)", "p_fixed[2] (NULL)"];
    let p = names.into_iter().enumerate().filter_map(|(i, name)| {
        unless_same(&format!("stats.{name}"), &rec.p_fixed[i], &stats.p_fixed[i])
    });
    p.chain(unless_same(
        "stats.kappa_fixed",
        &rec.kappa_fixed,
        &stats.kappa_fixed,
    ))
    .collect()
}

/// The report's ballot counts: they change no posted number, but a report whose counts
/// disagree with its own ballots had ballots removed or added.
fn count_differences(rec: &Recomputed, stats: &Summary) -> Vec<Mismatch> {
    let failed = rec.ballots.saturating_sub(rec.valid_ballots);
    let claimed = stats.counts.as_array();
    [
        ("ballots", rec.ballots, stats.ballots),
        ("valid", rec.valid_ballots, stats.valid),
        ("failed", failed, stats.failed),
        ("counts.YES", rec.counts[0], claimed[0]),
        ("counts.NO", rec.counts[1], claimed[1]),
        ("counts.NULL", rec.counts[2], claimed[2]),
    ]
    .into_iter()
    .filter_map(|(field, expected, found)| {
        unless_same(&format!("stats.{field}"), &expected, &found)
    })
    .collect()
}

/// The question a report is compared with on-chain: question `id` of the oracle at `oracle`,
/// read through `provider`. Built once by the caller, it is what every chain comparison reads.
#[derive(Debug, Clone, Copy)]
pub struct QuestionOnChain<'a> {
    /// The RPC connection.
    pub provider: &'a ChainProvider,
    /// The oracle contract.
    pub oracle: Address,
    /// The question id.
    pub id: U256,
}

impl<'a> QuestionOnChain<'a> {
    /// The oracle contract, for its views.
    fn contract(&self) -> IVeritasOracle::IVeritasOracleInstance<&'a ChainProvider> {
        IVeritasOracle::new(self.oracle, self.provider)
    }
}

/// Compare the recomputed values with the verdict on-chain for the question.
///
/// # Errors
/// [`ChainError`] when the chain cannot be read (no verdict is a mismatch, not an error).
pub async fn compare_with_chain(
    rec: &Recomputed,
    at: QuestionOnChain<'_>,
) -> Result<Vec<Mismatch>, ChainError> {
    use IVeritasOracle::VerdictStatus as S;
    let contract = at.contract();
    let status = contract.verdictStatus(at.id).view("verdictStatus").await?;
    let mut out = Vec::new();
    if let Some(n) = &rec.not_yet {
        out.extend(compare_clock_with_chain(n, rec, at).await?);
    }
    if rec.defers() {
        // A "not yet" report posts no verdict of its own: the round it answered was deferred
        // (checked above), whatever the chain shows now.
        return Ok(out);
    }
    let mut check = |field: &str, expected: String, found: String| {
        if !expected.eq_ignore_ascii_case(&found) {
            out.push(Mismatch::new(format!("chain.{field}"), expected, found));
        }
    };
    // The report's routing fixes the status the chain must show; anything but a posted verdict
    // (Resolved / Escalated) ends the comparison there.
    let expected = if rec.escalated {
        "Escalated"
    } else {
        "Resolved"
    };
    check("verdictStatus", expected.into(), format!("{status:?}"));
    if !matches!(status, S::Resolved | S::Escalated) {
        return Ok(out);
    }
    let v = contract.getVerdict(at.id).view("getVerdict").await?;
    check(
        "questionHash",
        rec.question_hash.to_string(),
        v.questionHash.to_string(),
    );
    check("merkleRoot", rec.root.to_string(), v.merkleRoot.to_string());
    check("pYes", rec.p_fixed[0].to_string(), v.pYes.to_string());
    check("pNo", rec.p_fixed[1].to_string(), v.pNo.to_string());
    check("pNull", rec.p_fixed[2].to_string(), v.pNull.to_string());
    check(
        "fleissKappa",
        I256::try_from(rec.kappa_fixed)
            .map(|k| k.to_string())
            .unwrap_or_default(),
        v.fleissKappa.to_string(),
    );
    Ok(out)
}

/// Check the report's clock against the chain (the block's timestamp, the ask time, the
/// horizon, the round) and, for a "not yet" report, that its round was deferred.
async fn compare_clock_with_chain(
    n: &NotYet,
    rec: &Recomputed,
    at: QuestionOnChain<'_>,
) -> Result<Vec<Mismatch>, ChainError> {
    let Some(clock) = rec.clock else {
        return Ok(Vec::new());
    };
    let mut out = clock_differences(&clock, at).await?;
    if n.defers {
        out.extend(deferred_round_still_open(&clock, at).await?);
    }
    Ok(out)
}

/// The report's `question.clock` against the chain at its block: that block's timestamp, and
/// the question's ask time, horizon and round there.
async fn clock_differences(
    clock: &not_yet::RoundClock,
    at: QuestionOnChain<'_>,
) -> Result<Vec<Mismatch>, ChainError> {
    let block = at
        .provider
        .get_block_by_number(clock.block.into())
        .await
        .map_err(|e| ChainError::rpc("eth_getBlockByNumber", e))?;
    let timestamp = block.map_or("(no such block)".into(), |b| b.header.timestamp.to_string());
    let then = crate::contract::reader::round_clock_at(
        at.provider,
        at.oracle,
        at.id,
        clock.block,
        clock.now,
    )
    .await?;
    Ok([
        (
            "block timestamp (question.clock.now)",
            clock.now.to_string(),
            timestamp,
        ),
        (
            "askedAt (question.clock.asked_at)",
            clock.asked_at.to_string(),
            then.asked_at.to_string(),
        ),
        (
            "maxHorizon (question.clock.horizon)",
            clock.horizon.to_string(),
            then.horizon.to_string(),
        ),
        (
            "deferral.count (question.clock.round)",
            clock.round.to_string(),
            then.round.to_string(),
        ),
    ]
    .into_iter()
    .filter(|(_, expected, found)| expected != found)
    .map(|(field, expected, found)| Mismatch::new(format!("chain.{field}"), expected, found))
    .collect())
}

/// A finding when the round a "not yet" report deferred is still open on the chain: the
/// round must be over, deferred or ended otherwise (the deferrals spent, or a minority
/// "not yet" outvoted).
async fn deferred_round_still_open(
    clock: &not_yet::RoundClock,
    at: QuestionOnChain<'_>,
) -> Result<Option<Mismatch>, ChainError> {
    let c = at.contract();
    let now = c.deferral(at.id).view("deferral").await?;
    let status = c.verdictStatus(at.id).view("verdictStatus").await?;
    let open = now.count <= U256::from(clock.round)
        && matches!(status, IVeritasOracle::VerdictStatus::Asked);
    Ok(open.then(|| {
        Mismatch::new(
            "chain.deferral.count",
            format!(
                "more than {}, or a verdict (the round this report said \"not yet\" in is over)",
                clock.round
            ),
            format!("{} and still Asked", now.count),
        )
    }))
}

/// The latest block, and the logs of event `signature` about the question from `from_block` to it.
async fn question_logs(
    at: QuestionOnChain<'_>,
    signature: B256,
    from_block: u64,
) -> Result<(u64, Vec<alloy::rpc::types::Log>), ChainError> {
    let latest = at
        .provider
        .get_block_number()
        .await
        .map_err(|e| ChainError::rpc("eth_blockNumber", e))?;
    let filter = Filter::new()
        .address(at.oracle)
        .event_signature(signature)
        .topic1(at.id)
        .from_block(from_block)
        .to_block(latest);
    let logs = at
        .provider
        .get_logs(&filter)
        .await
        .map_err(|e| ChainError::rpc("eth_getLogs", e))?;
    Ok((latest, logs))
}

/// Compare the report's `question.clarifications` with the question's `QuestionClarified` logs
/// (from `from_block`): each one missing, added or different is a mismatch naming
/// `question.clarifications[k]` (a clarification the jurors did not read, or read altered).
///
/// # Errors
/// [`ChainError`] when the chain cannot be read or a log is not what the contract emits.
pub async fn compare_clarifications_with_chain(
    report: &AuditReport,
    at: QuestionOnChain<'_>,
    from_block: u64,
) -> Result<Vec<Mismatch>, ChainError> {
    let reported = &report.question.clarifications;
    let (_, logs) = question_logs(
        at,
        IVeritasOracle::QuestionClarified::SIGNATURE_HASH,
        from_block,
    )
    .await?;
    let mut on_chain =
        crate::watcher::events::decode_clarifications(&logs).map_err(|e| ChainError::Contract {
            op: "QuestionClarified",
            reason: e.to_string(),
        })?;
    on_chain.sort_by_key(|c| c.index);
    let mut out = Vec::new();
    for k in 0..on_chain.len().max(reported.len()) {
        let chain_text = on_chain
            .get(k)
            .map(|c| String::from_utf8_lossy(&c.text).into_owned());
        let report_text = reported.get(k);
        if chain_text.as_ref() != report_text {
            out.push(Mismatch::new(
                format!("report.question.clarifications[{k}]"),
                chain_text.map_or_else(
                    || "(none on chain)".into(),
                    |t| serde_json::Value::from(t).to_string(),
                ),
                report_text.map_or_else(
                    || "(missing)".into(),
                    |t| serde_json::Value::from(t.as_str()).to_string(),
                ),
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::{Value, json};

    use super::fixture::{fields, read, report};
    use super::*;

    fn recomputed(r: &Value) -> Recomputed {
        recompute(&read(r)).unwrap()
    }

    #[test]
    fn an_honest_report_matches_itself() {
        let r = read(&report());
        let rec = recompute(&r).unwrap();
        assert_eq!(rec.question_id, Some(U256::from(7)));
        assert_eq!(rec.valid_ballots, 3);
        assert_eq!(rec.p_fixed.iter().sum::<u128>(), stats::WAD);
        assert!(!rec.escalated, "{:?}", rec.routing);
        assert_eq!(rec.root, r.root);
        assert_eq!(rec.leaves, r.leaves);
        assert_eq!(rec.p_fixed, r.stats.p_fixed);
        assert_eq!(rec.kappa_fixed, r.stats.kappa_fixed);
        assert_eq!(compare_with_report(&rec, &r), vec![]);
    }

    #[test]
    fn the_question_id_is_a_decimal_string_or_null() {
        let mut r = report();
        r["question"]["id"] = json!("7");
        assert_eq!(recomputed(&r).question_id, Some(U256::from(7)));
        r["question"]["id"] = json!(null);
        assert_eq!(recomputed(&r).question_id, None);
        // A JSON number is a finding: a reader may already have rounded an id past 2^53.
        for bad in [json!(7), json!("seven"), json!("-7"), json!(true)] {
            r["question"]["id"] = bad.clone();
            assert_eq!(fields(&r), ["report.question.id"], "{bad}");
        }
    }

    #[test]
    fn an_edited_report_is_caught() {
        let mut r = report();
        r["ballots"][2]["vote"] = json!("YES");
        assert!(fields(&r).iter().any(|f| f.contains("p_fixed")));
        let mut r = report();
        r["evidence"][0]["snippet"] = json!("edited");
        assert!(fields(&r).contains(&"report.root".to_string()));
    }

    #[test]
    fn a_removed_failed_ballot_is_caught() {
        // No posted number changes, but the report no longer matches its own ballots.
        let mut r = report();
        r["ballots"].as_array_mut().unwrap().remove(3);
        assert_eq!(
            fields(&r),
            [
                "report.stats.ballots",
                "report.stats.failed",
                "report.ballots (iteration 2, slot 1)",
                "report.committee.calls"
            ]
        );
    }

    #[test]
    fn a_missing_or_wrongly_typed_key_is_one_finding_naming_its_path() {
        type Edit = fn(&mut Value);
        let cases: [(&str, Edit); 6] = [
            ("report.question.text", |r| {
                r["question"].as_object_mut().unwrap().remove("text");
            }),
            ("report.ballots[1].iteration", |r| {
                r["ballots"][1]["iteration"] = json!("two");
            }),
            ("report.ballots[2].vote", |r| {
                r["ballots"][2].as_object_mut().unwrap().remove("vote");
            }),
            ("report.submissions.count", |r| {
                r["submissions"] = json!({"count": "one", "items": []});
            }),
            ("report.committee.seed", |r| {
                r["committee"]["seed"] = json!(7)
            }),
            ("report.routing", |r| {
                r.as_object_mut().unwrap().remove("routing");
            }),
        ];
        for (field, edit) in cases {
            let mut r = report();
            edit(&mut r);
            assert_eq!(fields(&r), [field]);
        }
        let mut r = report();
        r["stats"]["p_fixed"][0] = json!("0.5");
        let m = AuditReport::from_json(&r).unwrap_err();
        assert!(m.field.starts_with("report.stats.p_fixed"), "{m}");
    }

    #[test]
    fn the_evidence_is_committed_as_written() {
        // A key no node writes changes the root: a typed item would drop it, and the edit
        // would audit.
        let r = report();
        let mut extra = r.clone();
        extra["evidence"][0]["note"] = json!("added");
        assert_ne!(recomputed(&extra).root, recomputed(&r).root);
        let found = fields(&extra);
        assert!(
            found.starts_with(&["report.root".into(), "report.leaves".into()]),
            "{found:?}"
        );
        let mut r = report();
        r["evidence"][0]["score"] = json!("high");
        r["evidence"][0]["weight"] = json!(0.5);
        assert!(matches!(
            recompute(&read(&r)),
            Err(AuditError::Commitment(_))
        ));
    }

    #[test]
    fn the_daemons_report_audits_as_its_file_does() {
        let r = read(&report());
        let again = AuditReport::as_written(r.report()).unwrap();
        assert_eq!(again.evidence_as_written(), r.evidence_as_written());
        assert_eq!(recompute(&again).unwrap(), recompute(&r).unwrap());
    }
}
