//! What [`super`] reads, as typed values: a question's views and events. They serialise for
//! `veritas verdict --json` (camelCase keys as the contract names them, every 1e18 integer and
//! wei amount a decimal string).

use alloy::primitives::{Address, B256, U256};
use serde::Serialize;

use crate::commitment::root::Root;
use crate::contract::IVeritasOracle;
use crate::verdict::{PostedVerdict, ReportClaim};

/// One `ReportSubmitted` event and where it was mined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportEvent {
    /// The reporting operator.
    pub operator: Address,
    /// Its bundle root.
    pub merkle_root: Root,
    /// Valid YES ballots.
    pub n_yes: u64,
    /// Valid NO ballots.
    pub n_no: u64,
    /// Valid NULL ballots.
    pub n_null: u64,
    /// Kappa, 1e18 (decimal string in JSON).
    #[serde(serialize_with = "as_decimal")]
    pub fleiss_kappa: i128,
    /// The operator's routing escalated.
    pub escalated: bool,
    /// The report said "not yet" (a `ReportNotYet` in its transaction).
    pub not_yet: bool,
    /// Block of the report.
    pub block: u64,
    /// Transaction of the report.
    pub tx: B256,
}

impl ReportEvent {
    /// "operator 0x…  YES a NO b NULL c  kappa k  escalated e" (and "  not yet" when it said
    /// so): how `veritas verdict` and the pooled audit list a report.
    pub fn summary(&self) -> String {
        format!(
            "operator {}  YES {} NO {} NULL {}  kappa {}  escalated {}{}",
            self.operator,
            self.n_yes,
            self.n_no,
            self.n_null,
            self.fleiss_kappa,
            self.escalated,
            if self.not_yet { "  not yet" } else { "" }
        )
    }

    /// The report's fields for pooling.
    pub fn claim(&self) -> ReportClaim {
        ReportClaim {
            operator: self.operator,
            root: self.merkle_root,
            counts: [self.n_yes, self.n_no, self.n_null],
            kappa: self.fleiss_kappa,
            escalated: self.escalated,
            not_yet: self.not_yet,
        }
    }
}

/// The question's parameters (fixed at ask time); amounts in wei, decimal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParametersView {
    /// Reports that finalise the verdict.
    pub quorum: u8,
    /// Cap on one report's ballots.
    pub max_ballots_per_report: u16,
    /// Seconds reports are accepted after the window opens.
    pub report_window: u32,
    /// Seconds a resolved verdict can be disputed.
    pub challenge_window: u32,
    /// Wei the ask cost at least.
    #[serde(serialize_with = "as_decimal")]
    pub ask_fee: U256,
    /// Wei a dispute bonds at least.
    #[serde(serialize_with = "as_decimal")]
    pub dispute_bond: U256,
    /// Wei per submitted evidence item.
    #[serde(serialize_with = "as_decimal")]
    pub evidence_fee: U256,
}

impl From<&IVeritasOracle::Parameters> for ParametersView {
    fn from(p: &IVeritasOracle::Parameters) -> Self {
        Self {
            quorum: p.quorum,
            max_ballots_per_report: p.maxBallotsPerReport,
            report_window: p.reportWindow,
            challenge_window: p.challengeWindow,
            ask_fee: U256::from(p.askFee),
            dispute_bond: U256::from(p.disputeBond),
            evidence_fee: U256::from(p.evidenceFee),
        }
    }
}

/// `getVerdict`: the prototype's reading shape; integers as decimal strings in JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerdictView {
    /// sha256 of the question text.
    pub question_hash: B256,
    /// Root (one report) or roots digest.
    pub merkle_root: Root,
    /// 1e18 YES.
    #[serde(serialize_with = "as_decimal")]
    pub p_yes: u128,
    /// 1e18 NO.
    #[serde(serialize_with = "as_decimal")]
    pub p_no: u128,
    /// 1e18 NULL.
    #[serde(serialize_with = "as_decimal")]
    pub p_null: u128,
    /// Kappa, 1e18.
    #[serde(serialize_with = "as_decimal")]
    pub fleiss_kappa: i128,
    /// Time of the posting or arbitration.
    pub timestamp: u64,
}

impl VerdictView {
    /// As a [`PostedVerdict`] to compare with (`getVerdict` states no escalation flag).
    pub fn verdict(&self) -> PostedVerdict {
        PostedVerdict {
            p_fixed: [self.p_yes, self.p_no, self.p_null],
            kappa: self.fleiss_kappa,
            root: self.merkle_root,
            escalated: None,
        }
    }
}

/// The `VerdictPosted` event: the pooled verdict as posted (an arbitration does not change it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PostedEvent {
    /// Root or digest.
    pub merkle_root: Root,
    /// 1e18 (YES, NO, NULL), decimal strings in JSON.
    #[serde(serialize_with = "triple_as_decimal")]
    pub p_fixed: [u128; 3],
    /// Kappa, 1e18.
    #[serde(serialize_with = "as_decimal")]
    pub fleiss_kappa: i128,
    /// Posted escalated.
    pub escalated: bool,
    /// Who sent the posting transaction (quorum-th reporter, or `finalize`'s caller).
    pub poster: Address,
    /// Its block.
    pub block: u64,
}

impl PostedEvent {
    /// As a [`PostedVerdict`] to compare with.
    pub fn verdict(&self) -> PostedVerdict {
        PostedVerdict {
            p_fixed: self.p_fixed,
            kappa: self.fleiss_kappa,
            root: self.merkle_root,
            escalated: Some(self.escalated),
        }
    }
}

/// A dispute.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisputeView {
    /// Who disputed.
    pub disputer: Address,
    /// The bond in wei.
    #[serde(serialize_with = "as_decimal")]
    pub bond: U256,
}

/// Everything the chain says about one question, as of `block`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionView {
    /// Question id.
    #[serde(serialize_with = "as_decimal")]
    pub id: U256,
    /// The oracle.
    pub oracle: Address,
    /// Chain id.
    pub chain_id: u64,
    /// Block every value was read at.
    pub block: u64,
    /// That block's timestamp ("now" for the windows).
    pub block_timestamp: u64,
    /// `verdictStatus` (Asked, Resolved, Escalated, Arbitrated, Disputed, Expired).
    pub status: String,
    /// `isFinal`.
    pub is_final: bool,
    /// `finalAt` (0 while unknown: Asked, Escalated, Disputed).
    pub final_at: u64,
    /// Seconds until final: `Some(0)` once final, `None` while unknown.
    pub seconds_to_final: Option<u64>,
    /// sha256 of the question text.
    pub question_hash: B256,
    /// Who asked.
    pub asker: Address,
    /// Time of the ask.
    pub asked_at: u64,
    /// Earliest report time, as asked.
    pub resolve_after: u64,
    /// When reports open: as asked, or after the latest deferral.
    pub reports_open_at: u64,
    /// Deferrals so far ("not yet" majorities and too-early rulings).
    pub deferrals: u64,
    /// `MAX_DEFERRALS`: the next "not yet" majority after that many escalates.
    pub max_deferrals: u64,
    /// The asker's clarifications, in order (text as UTF-8, invalid bytes replaced).
    pub clarifications: Vec<String>,
    /// Hash of the block holding the question's `QuestionAsked` log (a committee seed input),
    /// when the log is within the scanned range.
    pub asked_block_hash: Option<B256>,
    /// When the report window closes (`reports_open_at` + reportWindow).
    pub report_window_closes_at: u64,
    /// The question's parameters.
    pub parameters: ParametersView,
    /// `pendingFee`: wei held and not yet credited.
    #[serde(serialize_with = "as_decimal")]
    pub pending_fee: U256,
    /// `getVerdict`, when a verdict exists.
    pub verdict: Option<VerdictView>,
    /// The `VerdictPosted` event, when a verdict exists.
    pub posted: Option<PostedEvent>,
    /// The arbiter's triple (`VerdictArbitrated`), once ruled.
    #[serde(serialize_with = "opt_triple_as_decimal")]
    pub arbitrated: Option<[u128; 3]>,
    /// The dispute, when one was filed.
    pub dispute: Option<DisputeView>,
    /// Every report, in report order.
    pub reports: Vec<ReportEvent>,
}

fn as_decimal<T: std::fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.to_string())
}

fn triple_as_decimal<S: serde::Serializer>(v: &[u128; 3], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(u128::to_string))
}

fn opt_triple_as_decimal<S: serde::Serializer>(
    v: &Option<[u128; 3]>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match v {
        Some(t) => triple_as_decimal(t, s),
        None => s.serialize_none(),
    }
}
