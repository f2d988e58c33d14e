//! The committee draw in a report, recomputed from what the report says it came from.
//!
//! On-chain reports name the chain's values in `committee.seed_inputs` (see
//! [`crate::jury::seed`]); the seed must be their hash, and those values must be the
//! report's own question, chain and oracle. Off-chain reports are seeded from the root and
//! the question id. Then every ballot's (archetype, juror) pair must be the sampler's draw
//! for its (iteration, slot), every position once ([`super::draws`]), so an operator can
//! neither pick which jurors sit on the committee nor drop the ballots it dislikes.

use alloy::primitives::{B256, U256};

use super::{AuditReport, Claim, Mismatch};
use crate::commitment::root::Root;
use crate::jury::SeedSource;

/// Mismatches between the report's `committee.seed`, its inputs and its ballots' draws.
pub fn check(report: &AuditReport, root: &Root) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let mut push = |field: &str, expected: String, found: String| {
        out.push(Mismatch {
            field: format!("report.{field}"),
            expected,
            found,
        })
    };
    let question = &report.question;
    let own_id = question.id.ok().copied().flatten().map(|id| id.0);
    let source = match &report.committee.seed_inputs.inputs {
        Claim::Absent | Claim::Is { value: None, .. } => SeedSource::Offline {
            question_id: own_id.unwrap_or(U256::ZERO),
        },
        Claim::Is {
            value: Some(inputs),
            ..
        } => {
            // Each input the chain fixed must be the report's own question's.
            let same = [
                (
                    "committee.seed_inputs.question_id",
                    own_id == Some(inputs.question_id),
                    question.id.bare(),
                    inputs.question_id.to_string(),
                ),
                (
                    "committee.seed_inputs.chain_id",
                    question.chain_id.ok() == Some(&inputs.chain_id),
                    question.chain_id.bare(),
                    inputs.chain_id.to_string(),
                ),
                (
                    "committee.seed_inputs.oracle",
                    question.oracle.ok() == Some(&inputs.oracle),
                    question.oracle.bare(),
                    inputs.oracle.to_string(),
                ),
            ];
            for (field, same, own, claimed) in same {
                if !same {
                    push(field, own, claimed);
                }
            }
            SeedSource::Chain(*inputs)
        }
        Claim::Not { why, .. } => {
            push(
                "committee.seed_inputs",
                "chain_id, oracle, question_id, operator, block_hash".into(),
                why.clone(),
            );
            return out;
        }
    };
    let seed = source.seed(root);
    let claimed = &report.committee.seed;
    if claimed.ok() != Some(&B256::from(seed)) {
        push(
            "committee.seed",
            format!("0x{}", hex::encode(seed)),
            claimed.bare(),
        );
        return out;
    }
    out.extend(super::draws::check(report, seed));
    out
}
