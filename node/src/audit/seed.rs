//! The committee draw in a report, recomputed from what the report says it came from.
//!
//! On-chain reports name the chain's values in `committee.seed_inputs` (see
//! [`crate::jury::seed`]); the seed must be their hash, and those values must be the
//! report's own question, chain and oracle. Off-chain reports are seeded from the root and
//! the question id. Then every ballot's (archetype, juror) pair must be the sampler's draw
//! for its (iteration, slot), every position once ([`super::draws`]), so an operator can
//! neither pick which jurors sit on the committee nor drop the ballots it dislikes.

use alloy::primitives::{B256, U256};
use serde_json::Value;

use super::Mismatch;
use crate::jury::{SeedInputs, SeedSource};

/// Mismatches between the report's `committee.seed`, its inputs and its ballots' draws.
pub fn check(report: &Value, root: &B256) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let mut push = |field: &str, expected: String, found: String| {
        out.push(Mismatch {
            field: format!("report.{field}"),
            expected,
            found,
        })
    };
    let text = |pointer: &str| -> Option<String> {
        report.pointer(pointer).map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    };
    let source = match report.pointer("/committee/seed_inputs") {
        None | Some(Value::Null) => {
            let id = text("/question/id")
                .and_then(|s| s.parse::<U256>().ok())
                .unwrap_or(U256::ZERO);
            SeedSource::Offline { question_id: id }
        }
        Some(v) => match serde_json::from_value::<SeedInputs>(v.clone()) {
            Ok(inputs) => {
                let same = |field: &str, claimed: String, own: Option<String>| {
                    let own = own.unwrap_or_else(|| "(missing)".into());
                    (!claimed.eq_ignore_ascii_case(&own)).then(|| (field.to_owned(), own, claimed))
                };
                for (field, own, claimed) in [
                    same(
                        "committee.seed_inputs.question_id",
                        inputs.question_id.to_string(),
                        text("/question/id"),
                    ),
                    same(
                        "committee.seed_inputs.chain_id",
                        inputs.chain_id.to_string(),
                        text("/question/chain_id"),
                    ),
                    same(
                        "committee.seed_inputs.oracle",
                        inputs.oracle.to_string(),
                        text("/question/oracle"),
                    ),
                ]
                .into_iter()
                .flatten()
                {
                    push(&field, own, claimed);
                }
                SeedSource::Chain(inputs)
            }
            Err(e) => {
                push(
                    "committee.seed_inputs",
                    "chain_id, oracle, question_id, operator, block_hash".into(),
                    e.to_string(),
                );
                return out;
            }
        },
    };
    let seed = source.seed(&root.0);
    let expected = format!("0x{}", hex::encode(seed));
    let claimed = text("/committee/seed").unwrap_or_else(|| "(missing)".into());
    if !expected.eq_ignore_ascii_case(&claimed) {
        push("committee.seed", expected, claimed);
        return out;
    }
    out.extend(super::draws::check(report, seed));
    out
}
