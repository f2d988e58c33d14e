//! The committee draw in a report, recomputed from what the report says it came from.
//!
//! On-chain reports name the chain's values in `committee.seed_inputs` (see
//! [`crate::jury::seed`]); the seed must be their hash, and those values must be the
//! report's own question, chain and oracle. Off-chain reports are seeded from the root and
//! the question id. Then every ballot's (archetype, juror) pair must be the sampler's draw
//! for its (iteration, slot), every position once ([`super::draws`]), so an operator can
//! neither pick which jurors sit on the committee nor drop the ballots it dislikes.

use alloy::primitives::{B256, U256};

use super::{AuditReport, Mismatch};
use crate::commitment::root::Root;
use crate::jury::{SeedInputs, SeedSource};
use crate::report::QuestionInfo;

/// Mismatches between the report's `committee.seed`, its inputs and its ballots' draws.
pub fn check(report: &AuditReport, root: &Root) -> Vec<Mismatch> {
    let (source, mut out) = seed_source(report);
    let seed = source.seed(root);
    let claimed = report.committee.seed;
    if claimed != B256::from(seed) {
        out.push(Mismatch::in_report(
            "committee.seed",
            format!("0x{}", hex::encode(seed)),
            claimed.to_string(),
        ));
        return out;
    }
    out.extend(super::draws::check(report, seed));
    out
}

/// What the report's seed is drawn from: the chain's values in `committee.seed_inputs`, with a
/// finding for each one that is not the report's own question's, or without them (off-chain)
/// its question id.
fn seed_source(report: &AuditReport) -> (SeedSource, Vec<Mismatch>) {
    let own_id = report.question.id;
    match &report.committee.seed_inputs {
        None => (
            SeedSource::Offline {
                question_id: own_id.unwrap_or(U256::ZERO),
            },
            Vec::new(),
        ),
        Some(inputs) => (
            SeedSource::Chain(*inputs),
            foreign_inputs(&report.question, inputs),
        ),
    }
}

/// A finding for each seed input the chain fixed (question id, chain id, oracle) that is not
/// the report's own question's: a seed drawn for another question.
fn foreign_inputs(question: &QuestionInfo, inputs: &SeedInputs) -> Vec<Mismatch> {
    let own = |v: Option<String>| v.unwrap_or_else(|| "(missing)".into());
    [
        (
            "committee.seed_inputs.question_id",
            question.id == Some(inputs.question_id),
            own(question.id.map(|id| id.to_string())),
            inputs.question_id.to_string(),
        ),
        (
            "committee.seed_inputs.chain_id",
            question.chain_id == Some(inputs.chain_id),
            own(question.chain_id.map(|id| id.to_string())),
            inputs.chain_id.to_string(),
        ),
        (
            "committee.seed_inputs.oracle",
            question.oracle == Some(inputs.oracle),
            own(question.oracle.map(|a| a.to_checksum(None))),
            inputs.oracle.to_string(),
        ),
    ]
    .into_iter()
    .filter(|(_, same, _, _)| !same)
    .map(|(field, _, own, claimed)| Mismatch::in_report(field, own, claimed))
    .collect()
}
