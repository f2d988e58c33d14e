//! A small honest report for the audit's unit tests, and the re-sealing a careful forger does
//! after an edit (statistics, routing and call count recomputed, so only the check under test
//! can catch the edit).

use alloy::primitives::U256;
use serde_json::{Value, json};

use super::AuditReport;
use crate::bundle::EvidenceItem;
use crate::commitment;
use crate::jury::{Sampler, committee_seed};
use crate::policy::{RoutingInputs, RoutingPolicy, route};
use crate::stats::{self, BallotRecord};

/// The question of [`report`].
pub(crate) const QUESTION: &str = "Did the Calderwick council approve the bike lane?";

/// A policy under which a clear lead resolves (the fixture has four ballots of two models).
pub(crate) fn lenient() -> RoutingPolicy {
    RoutingPolicy {
        min_posterior: 0.0,
        min_lower_bound: 0.0,
        min_kappa: -1.0,
        min_valid_ballots: 1,
        min_effective_lower_bound: 0.0,
        ..RoutingPolicy::default()
    }
}

/// Question 7, off-chain seed, T = M = 2, four ballots drawn from the seed (the last one
/// failed), routed with [`lenient`]: resolves YES.
pub(crate) fn report() -> Value {
    let evidence = json!([{"id": 1, "url": "https://a", "title": "Council approves bike lane",
        "snippet": "The Calderwick council approved the bike lane.", "published_at": null,
        "source": "local", "submitter": null}]);
    let c = commitment::commit(QUESTION, &[], evidence.as_array().unwrap_or(&Vec::new()))
        .unwrap_or_else(|e| panic!("{e}"));
    let seed = committee_seed(&c.root, &U256::from(7).to_be_bytes::<32>());
    let (archetypes, jurors) = (["a", "b", "c"], ["m1", "m2"]);
    let mut sampler = Sampler::new(seed, vec![1; 3], vec![1; 2]).unwrap_or_else(|e| panic!("{e}"));
    let votes = [json!("YES"), json!("YES"), json!("NO"), Value::Null];
    let ballots: Vec<Value> = votes
        .into_iter()
        .enumerate()
        .map(|(i, vote)| {
            let (a, j) = sampler.draw();
            let failure = vote.is_null().then_some("timeout");
            json!({"iteration": i / 2 + 1, "slot": i % 2, "model": jurors[j],
                "archetype": archetypes[a], "vote": vote, "confidence": null,
                "reasoning": null, "latency_ms": 5, "prompt_tokens": 10,
                "completion_tokens": 2, "cost_usd": 0.0, "failure": failure})
        })
        .collect();
    let weights = |names: &[&str]| -> Value {
        names
            .iter()
            .map(|n| json!({"name": n, "weight": 1}))
            .collect()
    };
    let mut r = json!({
        "question": {"text": QUESTION, "id": "7"},
        "committee": {"T": 2, "M": 2, "epsilon": 0.02, "tau": 2, "min_ballots": 6,
            "early_stopping": true, "seed": format!("0x{}", hex::encode(seed)),
            "stop_iteration": 2, "stopped_early": false, "calls": 4, "divergences": [],
            "archetype_weights": weights(&archetypes), "juror_weights": weights(&jurors)},
        "evidence": evidence,
        "leaves": c.leaves_hex(),
        "root": c.root,
        "ballots": ballots,
        "routing": {"policy": lenient()},
    });
    reseal(&mut r);
    r
}

/// Recompute `stats`, `committee.calls` and `routing` (from its own policy) after an edit.
pub(crate) fn reseal(r: &mut Value) {
    let records: Vec<BallotRecord> =
        serde_json::from_value(r["ballots"].clone()).unwrap_or_else(|e| panic!("{e}"));
    let summary = stats::summarize(&records);
    let items: Vec<EvidenceItem> =
        serde_json::from_value(r["evidence"].clone()).unwrap_or_else(|e| panic!("{e}"));
    let policy: RoutingPolicy =
        serde_json::from_value(r["routing"]["policy"].clone()).unwrap_or_else(|e| panic!("{e}"));
    let inputs = RoutingInputs::from_bundle(r["question"]["text"].as_str().unwrap_or(""), &items);
    r["routing"] = json!(route(&summary, &inputs, &policy));
    r["stats"] = json!(summary);
    r["committee"]["calls"] = json!(records.len());
}

/// `r` read as the audit reads it.
pub(crate) fn read(r: &Value) -> AuditReport {
    AuditReport::from_json(r).unwrap_or_else(|m| panic!("{m}"))
}

/// The fields of `r`'s mismatches against itself: the one naming a key that does not read, or
/// every value that differs from its recomputation.
pub(crate) fn fields(r: &Value) -> Vec<String> {
    let report = match AuditReport::from_json(r) {
        Ok(report) => report,
        Err(m) => return vec![m.field],
    };
    let rec = super::recompute(&report).unwrap_or_else(|e| panic!("{e}"));
    super::compare_with_report(&rec, &report)
        .into_iter()
        .map(|m| m.field)
        .collect()
}
