//! The committee draw in a report, recomputed from what the report says it came from.
//!
//! On-chain reports name the chain's values in `committee.seed_inputs` (see
//! [`crate::jury::seed`]); the seed must be their hash, and those values must be the
//! report's own question, chain and oracle. Off-chain reports are seeded from the root and
//! the question id. Then every ballot's (archetype, juror) pair must be the sampler's draw
//! for its (iteration, slot), so an operator cannot pick which jurors sit on the committee.

use alloy::primitives::{B256, U256};
use serde_json::Value;

use super::Mismatch;
use crate::jury::{Sampler, SeedInputs, SeedSource};

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
    out.extend(draws(report, seed));
    out
}

/// Every ballot's (archetype, juror) against the sampler's draw for its (iteration, slot).
/// Reports without weights (the replay resolver's) have no draws to check.
fn draws(report: &Value, seed: [u8; 32]) -> Vec<Mismatch> {
    let weights = |key: &str| -> Vec<(String, u64)> {
        report
            .pointer(&format!("/committee/{key}"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|w| {
                        (
                            w["name"].as_str().unwrap_or_default().to_owned(),
                            w["weight"].as_u64().unwrap_or(0),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (archetypes, jurors) = (weights("archetype_weights"), weights("juror_weights"));
    let per_iteration = report.pointer("/committee/M").and_then(Value::as_u64);
    let ballots = report.get("ballots").and_then(Value::as_array);
    let (Some(m), Some(ballots)) = (per_iteration, ballots) else {
        return Vec::new();
    };
    if archetypes.is_empty() || jurors.is_empty() || m == 0 {
        return Vec::new();
    }
    let Ok(mut sampler) = Sampler::new(
        seed,
        archetypes.iter().map(|w| w.1).collect(),
        jurors.iter().map(|w| w.1).collect(),
    ) else {
        return vec![Mismatch {
            field: "report.committee.archetype_weights".into(),
            expected: "weights with a positive total".into(),
            found: "nothing to draw from".into(),
        }];
    };
    let position = |b: &Value| {
        let iteration = b["iteration"].as_u64().unwrap_or(0);
        match b["slot"].as_u64() {
            Some(slot) if iteration >= 1 && slot < m => (iteration - 1).saturating_mul(m) + slot,
            _ => u64::MAX,
        }
    };
    let mut order: Vec<(u64, usize)> = ballots
        .iter()
        .enumerate()
        .map(|(i, b)| (position(b), i))
        .collect();
    order.sort_unstable();
    let mut out = Vec::new();
    let mut drawn = 0u64;
    let mut pair = (0usize, 0usize);
    for (at, i) in order {
        // Draws are consumed in (iteration, slot) order; a gap or a repeat is itself a finding.
        if at < drawn || at == u64::MAX {
            out.push(Mismatch {
                field: format!("report.ballots[{i}].slot"),
                expected: format!("a fresh draw at or after position {drawn}"),
                found: format!("position {at}"),
            });
            continue;
        }
        while drawn <= at {
            pair = sampler.draw();
            drawn += 1;
        }
        let b = &ballots[i];
        for (key, expected) in [
            ("archetype", &archetypes[pair.0].0),
            ("model", &jurors[pair.1].0),
        ] {
            let found = b[key].as_str().unwrap_or("(missing)");
            if found != expected {
                out.push(Mismatch {
                    field: format!("report.ballots[{i}].{key}"),
                    expected: expected.clone(),
                    found: found.to_owned(),
                });
            }
        }
    }
    out
}
