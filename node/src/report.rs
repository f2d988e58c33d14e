//! The per-question report file: bundle, ballots and statistics, as auditors need them.
//!
//! Top-level keys (DESIGN.md §5): `question`, `evidence` (the items exactly as committed),
//! `leaves` and `root` (0x-hex), `ballots` (every ballot, failed ones with `vote: null` and a
//! `failure`), `stats` (exactly the `veritas stats` object of those ballots), `routing`,
//! `committee` (T, M, ε, τ, seed, stop iteration, weights), `search` when the node gathered
//! the evidence itself (queries, rubric source, every collector's raw hits before
//! deduplication, what was dropped and why), `submissions` for on-chain questions (every
//! submitted item, its hash-chain link and its fate) and `tx` once posted. The types
//! deserialise too, so `veritas audit` reads reports back with them.

use serde::{Deserialize, Serialize};

use crate::bundle::{Bundle, EvidenceItem, Rubric};
use crate::commitment::{Commitment, CommitmentError, commit_bundle};
use crate::evidence::{SearchRecord, onchain::SubmissionsRecord};
use crate::jury::BallotRow;
use crate::jury::committee::{CommitteeInfo, CommitteeRun};
use crate::policy::{Routing, RoutingInputs, RoutingPolicy, route};
use crate::stats::{BallotRecord, Summary, summarize};

/// The question block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionInfo {
    /// The question text exactly as asked (leaf 0).
    pub text: String,
    /// On-chain question id (decimal), when asked on-chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Chain id, when on-chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    /// Oracle contract address, when on-chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oracle: Option<String>,
}

/// The posting transaction, once sent (filled by the node).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxInfo {
    /// Transaction hash, 0x-hex.
    pub hash: String,
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
    /// Leaf hashes, 0x-hex (leaf 0 is the question).
    pub leaves: Vec<String>,
    /// Merkle root, 0x-hex.
    pub root: String,
    /// Every ballot, valid or failed.
    pub ballots: Vec<BallotRow>,
    /// The `veritas stats` object of `ballots`.
    pub stats: Summary,
    /// Resolve or escalate, and why.
    pub routing: Routing,
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

impl Report {
    /// Assemble a report from a committee run and the bundle's commitment (computed once by
    /// the caller, the same one that seeded the committee): summarises the ballots with the
    /// same function as `veritas stats`, and routes.
    pub fn assemble(
        question: QuestionInfo,
        bundle: &Bundle,
        rubric: &Rubric,
        commitment: &Commitment,
        run: CommitteeRun,
        policy: &RoutingPolicy,
    ) -> Self {
        let records: Vec<BallotRecord> = run.ballots.iter().map(BallotRow::record).collect();
        let stats = summarize(&records);
        // Routing hook (issue 14): the question's kind and the bundle's relevance come from
        // the committed bundle alone, so `veritas audit` can recompute them.
        let inputs = RoutingInputs::from_bundle(&bundle.question, &bundle.evidence);
        let routing = route(&stats, &inputs, policy);
        Self {
            question,
            evidence: bundle.evidence.clone(),
            rubric: rubric.clone(),
            leaves: commitment.leaves_hex(),
            root: commitment.root_hex(),
            ballots: run.ballots,
            stats,
            routing,
            committee: run.info,
            search: None,
            submissions: None,
            tx: None,
        }
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
