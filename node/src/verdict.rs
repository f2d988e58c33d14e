//! The pooled verdict of several operators' reports, built the way the contract builds it
//! (pure: no I/O, no async), and the verdict as the chain states it.
//!
//! The chain reader returns these types and the auditor compares against them, so they live
//! here, below both: `chain` does not import the audit, and the audit's comparisons
//! (`audit::pooled`) do not live in the chain module.
//!
//! `VeritasOracle` pools the reports of one question in report order (the order of their
//! `ReportSubmitted` logs):
//!
//! - counts: the sum of every report's (n_YES, n_NO, n_NULL); the triple is the 1e18
//!   largest-remainder split of α = Σn + 1, computed here by [`stats::to_wad`], the very function
//!   behind `veritas stats` and the single-report audit;
//! - kappa: the minimum of the reports' kappas;
//! - escalated: at least half of the reports escalated, or at least half of them lead (ties in
//!   YES, NO, NULL order, [`leading_outcome`]) with an outcome other than the pooled counts'
//!   (the minimum weight of a dissent: with three or more reports one dissenting report does not
//!   escalate alone), or the pooled counts tie for the top, or the verdict was posted by
//!   `finalize` with fewer reports than the quorum, or (at the quorum) more than half of the
//!   reports said "not yet" when the question could not be deferred again (its deferrals
//!   spent, or its horizon passed): a "not yet" report leads with "not yet", never with the
//!   pooled outcome, so it is dissent too;
//! - root: the digest d1 = root1, di = sha256(d(i-1) ‖ rooti) — so one report's root is its own
//!   bundle root, as in version 1 — and `finalize` posts the digest of the reports it has.
//!
//! An `Arbitrated` verdict keeps the pooled root and kappa but shows the arbiter's triple;
//! `audit::pooled::compare_with_chain` checks the pooled triple against the `VerdictPosted` event then.

use alloy::primitives::Address;
use sha2::{Digest, Sha256};

use crate::commitment::root::Root;
use crate::stats::{self, posterior::leading_outcome};

/// One operator's report as its `ReportSubmitted` event states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportClaim {
    /// The reporting operator.
    pub operator: Address,
    /// Its bundle's Merkle root.
    pub root: Root,
    /// Its valid ballots (YES, NO, NULL).
    pub counts: [u64; 3],
    /// Its Fleiss' kappa in 1e18 fixed point.
    pub kappa: i128,
    /// Its routing escalated.
    pub escalated: bool,
    /// It said "not yet" (`ReportNotYet`).
    pub not_yet: bool,
}

/// Why a pooled verdict is escalated (any number of these; none means resolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EscalationReason {
    /// At least half of the reports were escalated by their operators' routing.
    ReportEscalated,
    /// At least half of the reports lead with an outcome other than the pooled one.
    LeadersDiffer,
    /// Fewer reports than the quorum: posted by `finalize` after the report window.
    QuorumNotMet,
    /// The pooled counts tie for the top: no outcome leads.
    TopTie,
    /// More than half of the quorum's reports said "not yet" with no deferral left.
    DeferralsSpent,
}

impl std::fmt::Display for EscalationReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::ReportEscalated => "a report escalated",
            Self::LeadersDiffer => "leading outcomes differ",
            Self::QuorumNotMet => "quorum not met",
            Self::TopTie => "the pooled counts tie for the top",
            Self::DeferralsSpent => "not yet, with no deferral left",
        })
    }
}

/// The verdict the contract posts for a list of reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pooled {
    /// Reports pooled.
    pub reports: usize,
    /// Summed counts (YES, NO, NULL).
    pub counts: [u64; 3],
    /// The 1e18 triple of α = counts + 1.
    pub p_fixed: [u128; 3],
    /// The minimum reported kappa.
    pub kappa: i128,
    /// The roots digest.
    pub root: Root,
    /// Whether the verdict is escalated.
    pub escalated: bool,
    /// Why (empty when resolved).
    pub reasons: Vec<EscalationReason>,
}

/// The roots digest: d1 = root1, di = sha256(d(i-1) ‖ rooti); `None` for no root. A
/// [`Root`] too: it takes the verdict's `merkleRoot`, and one report's digest is its root.
pub fn roots_digest<'a>(roots: impl IntoIterator<Item = &'a Root>) -> Option<Root> {
    let mut digest: Option<Root> = None;
    for root in roots {
        digest = Some(match digest {
            None => *root,
            Some(d) => {
                let mut h = Sha256::new();
                h.update(d);
                h.update(root);
                Root::from(<[u8; 32]>::from(h.finalize()))
            }
        });
    }
    digest
}

/// Pool `reports` (in report order) as the contract does for a question of quorum `quorum`.
/// `None` without any report (no verdict: the question is open, or Expired).
pub fn pool(reports: &[ReportClaim], quorum: u64) -> Option<Pooled> {
    let first = reports.first()?;
    let mut counts = [0u64; 3];
    for r in reports {
        for (sum, n) in counts.iter_mut().zip(r.counts) {
            *sum = sum.saturating_add(n);
        }
    }
    let kappa = reports.iter().map(|r| r.kappa).min().unwrap_or(first.kappa);
    let mut reasons = Vec::new();
    let n = reports.len();
    let escalating = reports.iter().filter(|r| r.escalated).count();
    if escalating > 0 && escalating * 2 >= n {
        reasons.push(EscalationReason::ReportEscalated);
    }
    let leader = leading_outcome(counts);
    let dissent = reports
        .iter()
        .filter(|r| r.not_yet || leading_outcome(r.counts) != leader)
        .count();
    if dissent > 0 && dissent * 2 >= n {
        reasons.push(EscalationReason::LeadersDiffer);
    }
    if (reports.len() as u64) < quorum {
        reasons.push(EscalationReason::QuorumNotMet);
    } else if reports.iter().filter(|r| r.not_yet).count() * 2 > n {
        // A posted verdict with a "not yet" majority: the question could not be deferred.
        reasons.push(EscalationReason::DeferralsSpent);
    }
    if top_tie(counts) {
        reasons.push(EscalationReason::TopTie);
    }
    Some(Pooled {
        reports: reports.len(),
        counts,
        p_fixed: stats::to_wad(counts),
        kappa,
        root: roots_digest(reports.iter().map(|r| &r.root)).unwrap_or(first.root),
        escalated: !reasons.is_empty(),
        reasons,
    })
}

/// Whether the two largest of `counts` are equal (the contract's tie for the top).
fn top_tie(c: [u64; 3]) -> bool {
    let mut sorted = c;
    sorted.sort_unstable();
    sorted[2] == sorted[1]
}

/// A posted verdict as one source on-chain states it (`getVerdict`, or the `VerdictPosted`
/// event): the triple, kappa, root and, for the event, the escalation flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostedVerdict {
    /// (pYes, pNo, pNull).
    pub p_fixed: [u128; 3],
    /// Kappa, 1e18.
    pub kappa: i128,
    /// The stored root (digest).
    pub root: Root,
    /// The escalation flag, when the source states it.
    pub escalated: Option<bool>,
}

/// The statuses a question may show once `pooled` was posted: `Resolved` for a resolved
/// verdict, `Escalated` for an escalated one; then before its court (`Disputed`), `Arbitrated`
/// or `Defaulted` after either — a resolved verdict reaches the court only by a dispute, an
/// escalated one only without (`disputed` says whether a disputer filed one). An escalation
/// nobody took to court also ends `Defaulted`.
pub fn status_consistent(pooled: &Pooled, status: &str, disputed: bool) -> bool {
    match status {
        "Resolved" => !pooled.escalated,
        "Escalated" => pooled.escalated,
        "Disputed" | "Arbitrated" | "Defaulted" => pooled.escalated != disputed,
        _ => false,
    }
}

/// A report claim of operator and root `byte`, for the tests here and in `audit::pooled`.
#[cfg(test)]
pub(crate) fn test_claim(byte: u8, counts: [u64; 3], kappa: i128, escalated: bool) -> ReportClaim {
    ReportClaim {
        not_yet: false,
        operator: Address::with_last_byte(byte),
        root: Root::from(alloy::primitives::B256::with_last_byte(byte)),
        counts,
        kappa,
        escalated,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use alloy::primitives::B256;
    use proptest::prelude::*;

    use super::{test_claim as claim, *};
    use crate::stats::{BallotRecord, Outcome, summarize};

    /// The contract's `_leading`, written as the Solidity reads.
    fn contract_leading(c: [u64; 3]) -> usize {
        if c[0] >= c[1] && c[0] >= c[2] {
            0
        } else if c[1] >= c[2] {
            1
        } else {
            2
        }
    }

    /// Ballots with exactly these counts, spread over iterations (what `veritas stats` reads).
    fn ballots(counts: [u64; 3]) -> Vec<BallotRecord> {
        let mut out = Vec::new();
        for (k, n) in counts.into_iter().enumerate() {
            for i in 0..n {
                out.push(BallotRecord {
                    iteration: (i % 5) as u32 + 1,
                    model: format!("m{k}"),
                    archetype: "a".into(),
                    vote: Some(Outcome::ALL[k]),
                });
            }
        }
        out
    }

    #[test]
    fn one_report_is_its_own_verdict() {
        let p = pool(&[claim(1, [4, 1, 0], 500, false)], 1).unwrap();
        assert_eq!(p.root, Root::from(B256::with_last_byte(1)));
        assert_eq!(
            p.p_fixed,
            [
                625_000_000_000_000_000,
                250_000_000_000_000_000,
                125_000_000_000_000_000
            ]
        );
        assert_eq!(p.kappa, 500);
        assert!(!p.escalated);
        assert!(pool(&[], 1).is_none());
    }

    #[test]
    fn not_yet_reports_dissent_and_a_posted_majority_of_them_spent_the_deferrals() {
        let not_yet = |byte| ReportClaim {
            not_yet: true,
            ..claim(byte, [1, 2, 0], 0, false)
        };
        // One "not yet" of three agreeing counts: dissent, but not half.
        let one = pool(
            &[
                not_yet(1),
                claim(2, [1, 2, 0], 0, false),
                claim(3, [1, 2, 0], 0, false),
            ],
            3,
        )
        .unwrap();
        assert!(one.reasons.is_empty(), "{:?}", one.reasons);
        // Two of three: dissent, and (posted at the quorum) no deferral was left.
        let two = pool(&[not_yet(1), not_yet(2), claim(3, [1, 2, 0], 0, false)], 3).unwrap();
        assert_eq!(
            two.reasons,
            [
                EscalationReason::LeadersDiffer,
                EscalationReason::DeferralsSpent
            ]
        );
        // Below the quorum (posted by `finalize`): the window closed, not the deferrals.
        let short = pool(&[not_yet(1), not_yet(2)], 3).unwrap();
        assert!(short.reasons.contains(&EscalationReason::QuorumNotMet));
        assert!(!short.reasons.contains(&EscalationReason::DeferralsSpent));
    }

    #[test]
    fn digest_chains_sha256_in_report_order() {
        let (a, b, c) = (
            Root::from(B256::with_last_byte(1)),
            Root::from(B256::with_last_byte(2)),
            Root::from(B256::with_last_byte(3)),
        );
        let h = |x: Root, y: Root| {
            let mut bytes = x.as_bytes().to_vec();
            bytes.extend_from_slice(y.as_bytes());
            Root::from(<[u8; 32]>::from(Sha256::digest(&bytes)))
        };
        assert_eq!(roots_digest([&a]), Some(a));
        assert_eq!(roots_digest([&a, &b]), Some(h(a, b)));
        assert_eq!(roots_digest([&a, &b, &c]), Some(h(h(a, b), c)));
        assert_ne!(roots_digest([&b, &a]), roots_digest([&a, &b]));
        assert_eq!(roots_digest([]), None);
    }

    #[test]
    fn escalation_reasons() {
        let agree = [
            claim(1, [5, 1, 0], 900, false),
            claim(2, [3, 0, 1], -20, false),
        ];
        let p = pool(&agree, 2).unwrap();
        assert!(!p.escalated, "{:?}", p.reasons);
        assert_eq!(p.kappa, -20);
        assert_eq!(p.counts, [8, 1, 1]);
        // A tie leads with the earlier outcome, as `_leading` does: (2,2,0) leads YES.
        let tie = [claim(1, [2, 2, 0], 0, false), claim(2, [3, 0, 0], 0, false)];
        assert!(!pool(&tie, 2).unwrap().escalated);
        let differ = [claim(1, [1, 2, 0], 0, false), claim(2, [3, 0, 0], 0, false)];
        assert_eq!(
            pool(&differ, 2).unwrap().reasons,
            [EscalationReason::LeadersDiffer]
        );
        let flagged = [claim(1, [3, 0, 0], 0, false), claim(2, [3, 0, 0], 0, true)];
        assert_eq!(
            pool(&flagged, 2).unwrap().reasons,
            [EscalationReason::ReportEscalated]
        );
        // One dissenting report out of three does not escalate; two out of four do.
        let one_of_three = [
            claim(1, [5, 1, 0], 0, false),
            claim(2, [4, 1, 0], 0, false),
            claim(3, [0, 3, 0], 0, true),
        ];
        assert!(!pool(&one_of_three, 3).unwrap().escalated);
        let two_of_four = [
            claim(1, [5, 1, 0], 0, false),
            claim(2, [4, 1, 0], 0, true),
            claim(3, [0, 3, 0], 0, true),
            claim(4, [0, 3, 0], 0, false),
        ];
        assert_eq!(
            pool(&two_of_four, 4).unwrap().reasons,
            [
                EscalationReason::ReportEscalated,
                EscalationReason::LeadersDiffer
            ]
        );
        // A tie for the top escalates, whatever the reports say: 15/15/0 has no leader.
        let even = [claim(1, [15, 15, 0], 0, false)];
        assert_eq!(pool(&even, 1).unwrap().reasons, [EscalationReason::TopTie]);
        let short = pool(&agree[..1], 2).unwrap();
        assert_eq!(short.reasons, [EscalationReason::QuorumNotMet]);
        assert_eq!(short.root, Root::from(B256::with_last_byte(1)));
    }

    #[test]
    fn statuses_follow_the_lifecycle() {
        let resolved = pool(&[claim(1, [3, 0, 0], 0, false)], 1).unwrap();
        let escalated = pool(&[claim(1, [3, 0, 0], 0, true)], 1).unwrap();
        assert!(status_consistent(&resolved, "Resolved", false));
        assert!(status_consistent(&resolved, "Disputed", true));
        assert!(status_consistent(&resolved, "Arbitrated", true));
        assert!(!status_consistent(&resolved, "Arbitrated", false));
        assert!(!status_consistent(&resolved, "Escalated", false));
        assert!(status_consistent(&escalated, "Escalated", false));
        assert!(status_consistent(&escalated, "Arbitrated", false));
        assert!(!status_consistent(&escalated, "Resolved", false));
        // v3: an escalation goes to the court with no disputer, and a failed court defaults.
        assert!(status_consistent(&escalated, "Disputed", false));
        assert!(!status_consistent(&escalated, "Disputed", true));
        assert!(!status_consistent(&resolved, "Disputed", false));
        assert!(status_consistent(&escalated, "Defaulted", false));
        assert!(status_consistent(&resolved, "Defaulted", true));
        assert!(!status_consistent(&resolved, "Defaulted", false));
        assert!(!status_consistent(&escalated, "Asked", false));
    }

    proptest! {
        /// The pooled triple is `veritas stats` of the pooled counts, bit for bit, and the
        /// escalation and kappa follow the contract's rules.
        #[test]
        fn pooled_equals_stats_of_pooled_counts(
            reports in prop::collection::vec(
                (prop::array::uniform3(0u64..=12), -1_000i128..=1_000, any::<bool>()), 1..=7),
            quorum in 1u64..=7,
        ) {
            let claims: Vec<ReportClaim> = reports
                .iter()
                .enumerate()
                .map(|(i, (c, k, e))| claim(i as u8 + 1, *c, *k, *e))
                .collect();
            let p = pool(&claims, quorum).unwrap();
            let total = [0, 1, 2].map(|k| claims.iter().map(|c| c.counts[k]).sum::<u64>());
            prop_assert_eq!(p.counts, total);
            prop_assert_eq!(p.p_fixed, summarize(&ballots(total)).p_fixed);
            prop_assert_eq!(p.p_fixed.iter().sum::<u128>(), stats::WAD);
            prop_assert_eq!(p.kappa, claims.iter().map(|c| c.kappa).min().unwrap());
            let n = claims.len();
            let pooled = contract_leading(total);
            let dissent = claims.iter().filter(|c| contract_leading(c.counts) != pooled).count();
            let escalating = claims.iter().filter(|c| c.escalated).count();
            let mut top = total;
            top.sort_unstable();
            let expected = (escalating > 0 && escalating * 2 >= n)
                || (dissent > 0 && dissent * 2 >= n)
                || top[2] == top[1]
                || (claims.len() as u64) < quorum;
            prop_assert_eq!(p.escalated, expected);
        }

        /// `leading_outcome` is the contract's `_leading`, ties included.
        #[test]
        fn leader_is_the_contracts(c in prop::array::uniform3(0u64..4)) {
            prop_assert_eq!(leading_outcome(c).index(), contract_leading(c));
        }
    }
}
