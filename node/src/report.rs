//! The per-question report file: bundle, ballots and statistics, as auditors need them.
//!
//! Top-level keys (what the book's auditor guide reads): `question`, `evidence` (the items exactly as committed),
//! `leaves` and `root` (0x-hex), `ballots` (every ballot, failed ones with `vote: null` and a
//! `failure`), `stats` (exactly the `veritas stats` object of those ballots), `routing`,
//! `committee` (T, M, ε, τ, seed, stop iteration, weights), `search` when the node gathered
//! the evidence itself (queries, rubric source, every collector's raw hits before
//! deduplication, what was dropped and why), `submissions` for on-chain questions (every
//! submitted item, its hash-chain link and its fate) and `tx` once posted. The types
//! deserialise too, so `veritas audit` reads reports back with them.

use alloy::primitives::{Address, B256, U256};
use serde::{Deserialize, Serialize};

use crate::bundle::{Bundle, EvidenceItem, Rubric};
use crate::commitment::{Commitment, CommitmentError, commit_bundle, root::Root};
use crate::evidence::{
    SearchRecord,
    onchain::{self, ChainSubmission, SubmissionsRecord},
};
use crate::jury::committee::{CommitteeInfo, CommitteeRun};
use crate::jury::{BallotRow, SeedInputs};
use crate::policy::{
    Routing, RoutingInputs, RoutingPolicy,
    not_yet::{self, NotYet, RoundClock},
    route,
};
use crate::stats::{BallotRecord, Summary, summarize};

/// The question block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionInfo {
    /// The question text exactly as asked (leaf 0).
    pub text: String,
    /// On-chain question id, when asked on-chain (a decimal string in JSON).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::decimal::option"
    )]
    pub id: Option<U256>,
    /// Chain id, when on-chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    /// Oracle contract address, when on-chain (checksummed in JSON).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "checksummed")]
    pub oracle: Option<Address>,
    /// The asker's clarifications (`QuestionClarified`), in order: the bundle's leaves right
    /// after the question. Absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clarifications: Vec<String>,
    /// The chain's clock of this report round (ask time, the block read, the horizon, the
    /// deferrals so far), for an on-chain question: what the "not yet" rule read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<RoundClock>,
}

/// An address in JSON as EIP-55 writes it (alloy's own serde writes lowercase hex); read in
/// any case.
mod checksummed {
    use alloy::primitives::Address;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(
        value: &Option<Address>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(address) => s.serialize_str(&address.to_checksum(None)),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Address>, D::Error> {
        Option::<Address>::deserialize(d)
    }
}

/// The posting transaction, once sent (filled by the node).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxInfo {
    /// Transaction hash (0x-hex in JSON).
    pub hash: B256,
    /// Block number it was mined in, when known.
    #[serde(default)]
    pub block: Option<u64>,
    /// Gas the transaction used, when this process saw its receipt.
    #[serde(default)]
    pub gas_used: Option<u64>,
}

/// One question's report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The question.
    pub question: QuestionInfo,
    /// The evidence items exactly as committed.
    pub evidence: Vec<EvidenceItem>,
    /// The rubric jurors scored.
    #[serde(default)]
    pub rubric: Rubric,
    /// Leaf hashes (leaf 0 is the question), 0x-hex in JSON.
    pub leaves: Vec<B256>,
    /// Merkle root, 0x-hex in JSON.
    pub root: Root,
    /// Every ballot, valid or failed.
    pub ballots: Vec<BallotRow>,
    /// The `veritas stats` object of `ballots`.
    pub stats: Summary,
    /// Resolve or escalate, and why.
    pub routing: Routing,
    /// Whether this report says "not yet" (the question's deadline is still ahead and routing
    /// did not resolve YES), for an on-chain question with a `clock`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_yet: Option<NotYet>,
    /// The committee's parameters and how it stopped.
    pub committee: CommitteeInfo,
    /// How the evidence was found (plan, every collector's raw hits, drops), when the node
    /// searched for it rather than being handed a bundle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchRecord>,
    /// Every on-chain submission of the question the node considered (their hash-chain
    /// links and fates), for on-chain questions; `veritas audit` checks it against the chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submissions: Option<SubmissionsRecord>,
    /// The posting transaction, once sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx: Option<TxInfo>,
}

/// Everything a report is made of. A report is built once from its parts
/// ([`Report::from_parts`]) and not patched afterwards, so what routing read and what the
/// file says come from one place.
#[derive(Debug)]
pub struct ReportParts<'a> {
    /// The question block.
    pub question: QuestionInfo,
    /// The committed bundle.
    pub bundle: &'a Bundle,
    /// The rubric jurors scored.
    pub rubric: &'a Rubric,
    /// The bundle's commitment (computed once by the caller, the one that seeded the
    /// committee).
    pub commitment: &'a Commitment,
    /// The committee's ballots and parameters.
    pub run: CommitteeRun,
    /// The routing policy.
    pub policy: &'a RoutingPolicy,
    /// The chain's seed inputs of an on-chain committee (the report records them).
    pub seed_inputs: Option<SeedInputs>,
    /// How the evidence was found, when the node searched for it; its planner's
    /// classification of the question feeds routing.
    pub search: Option<SearchRecord>,
    /// The on-chain question's submissions (each one's fate is recorded); `None` off-chain,
    /// where the report has no `submissions` key.
    pub submissions: Option<&'a [ChainSubmission]>,
}

impl Report {
    /// Build the report: summarise the ballots with the same function as `veritas stats`,
    /// route once on the bundle (and the planner's classification, when there is one), and
    /// record the fate of every on-chain submission.
    pub fn from_parts(parts: ReportParts<'_>) -> Self {
        let bundle = parts.bundle;
        let run = parts.run;
        let records: Vec<BallotRecord> = run.ballots.iter().map(BallotRow::record).collect();
        let stats = summarize(&records);
        // Routing hook (issue 14): the question's kind and the bundle's relevance come from
        // the committed bundle alone, so `veritas audit` can recompute them; a planner that
        // classified the question as not yes/no adds that reason.
        let mut inputs = RoutingInputs::from_bundle(&bundle.question, &bundle.evidence);
        inputs.planner_kind = parts.search.as_ref().and_then(|s| s.plan.question_kind);
        let routing = route(&stats, &inputs, parts.policy);
        let not_yet = parts
            .question
            .clock
            .map(|clock| not_yet::check(&bundle.question, &bundle.clarifications, clock, &routing));
        let dropped = parts.search.as_ref().map(|s| s.dropped.as_slice());
        let submissions = parts
            .submissions
            .map(|items| onchain::record(items, &bundle.evidence, dropped));
        let mut committee = run.info;
        if parts.seed_inputs.is_some() {
            committee.seed_inputs = parts.seed_inputs;
        }
        Self {
            question: parts.question,
            evidence: bundle.evidence.clone(),
            rubric: parts.rubric.clone(),
            leaves: parts
                .commitment
                .leaves
                .iter()
                .copied()
                .map(B256::from)
                .collect(),
            root: parts.commitment.root,
            ballots: run.ballots,
            stats,
            routing,
            not_yet,
            committee,
            search: parts.search,
            submissions,
            tx: None,
        }
    }

    /// [`Report::from_parts`] without seed inputs, search record or submissions.
    pub fn assemble(
        question: QuestionInfo,
        bundle: &Bundle,
        rubric: &Rubric,
        commitment: &Commitment,
        run: CommitteeRun,
        policy: &RoutingPolicy,
    ) -> Self {
        Self::from_parts(ReportParts {
            question,
            bundle,
            rubric,
            commitment,
            run,
            policy,
            seed_inputs: None,
            search: None,
            submissions: None,
        })
    }

    /// Commit `bundle`, then [`Report::assemble`] (for callers that did not commit it yet).
    ///
    /// # Errors
    /// [`CommitmentError`] when the bundle cannot be committed.
    pub fn build(
        question: QuestionInfo,
        bundle: &Bundle,
        rubric: &Rubric,
        run: CommitteeRun,
        policy: &RoutingPolicy,
    ) -> Result<Self, CommitmentError> {
        let commitment = commit_bundle(bundle)?;
        Ok(Self::assemble(
            question,
            bundle,
            rubric,
            &commitment,
            run,
            policy,
        ))
    }

    /// The failed ballots and their reasons.
    pub fn failures(&self) -> impl Iterator<Item = &BallotRow> {
        self.ballots.iter().filter(|b| b.failure.is_some())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_oracle_is_written_checksummed_and_read_in_any_case() {
        let checksummed = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
        let oracle: Address = checksummed.parse().unwrap();
        let question = QuestionInfo {
            text: "q".into(),
            id: Some(U256::from(7)),
            chain_id: Some(31337),
            oracle: Some(oracle),
            clarifications: Vec::new(),
            clock: None,
        };
        let written = serde_json::to_value(&question).unwrap();
        assert_eq!(written["oracle"], checksummed);
        assert_eq!(written["id"], "7");
        let read: QuestionInfo =
            serde_json::from_value(json!({"text": "q", "oracle": checksummed.to_lowercase()}))
                .unwrap();
        assert_eq!(read.oracle, Some(oracle));
        let tx: TxInfo =
            serde_json::from_value(json!({"hash": format!("0x{}", "ab".repeat(32))})).unwrap();
        assert_eq!(tx.hash, B256::repeat_byte(0xab));
        assert!(serde_json::from_value::<TxInfo>(json!({"hash": "0x12"})).is_err());
    }
}
