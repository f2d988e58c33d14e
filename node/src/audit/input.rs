//! The report as the audit reads it: parsed once from its JSON into typed claims.
//!
//! A report is hostile input and the audit's job is to name what is wrong with it, so each
//! key is read as a [`Claim`]: its typed value when it has the shape the auditor spec gives
//! it, else the text as written and why it does not parse (with its JSON path, from
//! `serde_path_to_error`). The checks compare typed values and name a malformed claim as a
//! mismatch, as they name a wrong one: a missing `committee.M` is a finding, not a refusal.
//! Only the keys without which nothing can be recomputed (`question.text`, `question.id`,
//! `evidence`, `ballots`, `routing.decision`) refuse the report, in [`super::recompute`].
//! Keys the audit does not read are ignored, as before (the spec fixes the keys it reads).
//!
//! This module is the audit's one JSON edge; two parts stay JSON here, on purpose:
//!
//! - the evidence items, as written: the spec commits the canonical JSON (JCS) of each item
//!   as it appears in the file, so a typed item would drop unknown keys or normalise values
//!   and change the leaf hashes of a third-party or tampered file;
//! - the `routing` block, which the spec compares key by key with the JSON of the block the
//!   audit recomputes (so an invented key is named too).

use std::borrow::Cow;

use alloy::primitives::{Address, B256, U256};
use serde::{Deserialize, Deserializer, de::DeserializeOwned};
use serde_json::{Map, Value};

use super::Mismatch;
use crate::bundle::EvidenceItem;
use crate::commitment::root::Root;
use crate::decimal::Dec;
use crate::jury::{SeedInputs, committee::Weight};
use crate::policy::{Decision, Routing, RoutingPolicy};
use crate::question::QuestionKind;
use crate::stats::BallotRecord;

/// One key of the report: absent, its typed value, or not of its type.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Claim<T> {
    /// The key is not in the file.
    #[default]
    Absent,
    /// The typed value, and its JSON as written (for the messages).
    Is {
        /// The value.
        value: T,
        /// Its JSON text.
        json: String,
    },
    /// The key's value does not have the type the spec gives it.
    Not {
        /// Its JSON text.
        json: String,
        /// Why it does not parse, with its path below the key.
        why: String,
    },
}

impl<T: DeserializeOwned> Claim<T> {
    /// Read `value` as a `T`.
    fn of(value: &Value) -> Self {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(typed) => Self::Is {
                value: typed,
                json: value.to_string(),
            },
            Err(e) => Self::Not {
                json: value.to_string(),
                why: e.to_string(),
            },
        }
    }
}

impl<T> Claim<T> {
    /// The typed value, if the key has one.
    pub fn ok(&self) -> Option<&T> {
        match self {
            Self::Is { value, .. } => Some(value),
            _ => None,
        }
    }

    /// The JSON as written (strings quoted), or `(missing)`.
    pub fn shown(&self) -> String {
        match self {
            Self::Absent => "(missing)".into(),
            Self::Is { json, .. } | Self::Not { json, .. } => json.clone(),
        }
    }

    /// As [`Claim::shown`], strings without their quotes.
    pub fn bare(&self) -> String {
        let json = self.shown();
        serde_json::from_str::<String>(&json).unwrap_or(json)
    }

    /// `Err(why)`: absent (`missing`) or not of its type.
    ///
    /// # Errors
    /// The reason the key has no typed value.
    pub fn required(&self) -> Result<&T, String> {
        match self {
            Self::Is { value, .. } => Ok(value),
            Self::Absent => Err("missing".into()),
            Self::Not { why, .. } => Err(why.clone()),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Claim<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Self::of(&Value::deserialize(d)?))
    }
}

/// A block of claims; anything but an object reads as a block with every key absent (the
/// checks then name each key they need as missing, as a lookup by path did).
fn block<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(d: D) -> Result<T, D::Error> {
    let value = Value::deserialize(d)?;
    Ok(T::deserialize(&value).unwrap_or_default())
}

/// As [`block`], `None` when the key is `null`.
fn nullable_block<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(
    d: D,
) -> Result<Option<T>, D::Error> {
    let value = Value::deserialize(d)?;
    Ok((!value.is_null()).then(|| T::deserialize(&value).unwrap_or_default()))
}

/// The `question` block.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct QuestionClaims {
    /// The question text (leaf 0).
    pub text: Claim<String>,
    /// The on-chain id; `null` or absent off-chain.
    pub id: Claim<Option<Dec<U256>>>,
    /// The chain id, on-chain.
    pub chain_id: Claim<u64>,
    /// The oracle, on-chain.
    pub oracle: Claim<Address>,
    /// The asker's clarifications (leaves 1..=c); absent when none.
    pub clarifications: Claim<Vec<String>>,
    /// The chain's clock of the report round (what the "not yet" rule read); on-chain only.
    pub clock: Claim<crate::policy::not_yet::RoundClock>,
}

/// One ballot: what the statistics read ([`BallotRecord`], whose keys are required: the
/// statistics cannot be recomputed without them), and its slot.
#[derive(Debug, Clone, Deserialize)]
#[serde(from = "BallotKeys")]
pub struct BallotClaims {
    /// Iteration, model, archetype and vote.
    pub record: BallotRecord,
    /// Position within the iteration (a bad one is a finding of the draws check).
    pub slot: Claim<u64>,
}

/// [`BallotClaims`] as written: its keys side by side, not a flattened [`BallotRecord`], so
/// that an error names the key (`[1].iteration`), which serde loses through `flatten`.
#[derive(Deserialize)]
struct BallotKeys {
    iteration: u32,
    model: String,
    archetype: String,
    /// Required: `null` for a failed ballot, never a missing key.
    #[serde(deserialize_with = "required")]
    vote: Option<crate::stats::Outcome>,
    #[serde(default)]
    slot: Claim<u64>,
}

/// A key that must be present even when its type is an `Option`.
fn required<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    T::deserialize(d)
}

impl From<BallotKeys> for BallotClaims {
    fn from(b: BallotKeys) -> Self {
        Self {
            record: BallotRecord {
                iteration: b.iteration,
                model: b.model,
                archetype: b.archetype,
                vote: b.vote,
            },
            slot: b.slot,
        }
    }
}

/// The `stats` block's claimed values.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StatsClaims {
    /// (YES, NO, NULL) in 1e18 fixed point.
    pub p_fixed: Claim<Vec<Claim<Dec<u128>>>>,
    /// Kappa in 1e18 fixed point.
    pub kappa_fixed: Claim<Dec<i128>>,
    /// All ballots.
    pub ballots: Claim<u64>,
    /// Valid ballots.
    pub valid: Claim<u64>,
    /// Failed ballots.
    pub failed: Claim<u64>,
    /// Valid votes per outcome.
    #[serde(deserialize_with = "block")]
    pub counts: CountClaims,
}

/// `stats.counts`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CountClaims {
    /// YES votes.
    #[serde(rename = "YES")]
    pub yes: Claim<u64>,
    /// NO votes.
    #[serde(rename = "NO")]
    pub no: Claim<u64>,
    /// NULL votes.
    #[serde(rename = "NULL")]
    pub null: Claim<u64>,
}

/// The `committee` block.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CommitteeClaims {
    /// Ballots per iteration.
    #[serde(rename = "M")]
    pub m: Claim<u64>,
    /// Iterations at most.
    #[serde(rename = "T")]
    pub t: Claim<u64>,
    /// The iteration the committee stopped after.
    pub stop_iteration: Claim<u64>,
    /// KL threshold in bits.
    pub epsilon: Claim<f64>,
    /// Iterations under the threshold to stop.
    pub tau: Claim<u64>,
    /// Valid ballots before stopping.
    pub min_ballots: Claim<u64>,
    /// Whether early stopping was on.
    pub early_stopping: Claim<bool>,
    /// Whether it stopped before T.
    pub stopped_early: Claim<bool>,
    /// Juror calls.
    pub calls: Claim<u64>,
    /// Archetype weights in sampler order.
    pub archetype_weights: Claim<Vec<Claim<Weight>>>,
    /// Juror weights in sampler order.
    pub juror_weights: Claim<Vec<Claim<Weight>>>,
    /// The sampler's seed.
    pub seed: Claim<B256>,
    /// The chain-fixed inputs of an on-chain seed (`null` or absent off-chain).
    pub seed_inputs: SeedInputsClaim,
}

/// `committee.seed_inputs`: the five inputs together, and the two the pooled audit matches
/// a report to its event with, each read on its own (a report naming only its operator is
/// still matched by it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeedInputsClaim {
    /// All five inputs; `null` or absent off-chain.
    pub inputs: Claim<Option<SeedInputs>>,
    /// `operator` alone.
    pub operator: Claim<Address>,
    /// `block_hash` alone.
    pub block_hash: Claim<B256>,
}

impl<'de> Deserialize<'de> for SeedInputsClaim {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Default, Deserialize)]
        #[serde(default)]
        struct Parts {
            operator: Claim<Address>,
            block_hash: Claim<B256>,
        }
        let value = Value::deserialize(d)?;
        let parts = Parts::deserialize(&value).unwrap_or_default();
        Ok(Self {
            inputs: Claim::of(&value),
            operator: parts.operator,
            block_hash: parts.block_hash,
        })
    }
}

/// `search.plan`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct PlanClaims {
    /// The planner's classification of the question.
    pub question_kind: Claim<Option<QuestionKind>>,
}

/// `search`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SearchClaims {
    /// The search plan.
    #[serde(deserialize_with = "block")]
    pub plan: PlanClaims,
}

/// `submissions`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SubmissionsClaims {
    /// The claimed number of submissions.
    pub count: Claim<u64>,
    /// Every submission with its link and fate.
    pub items: Claim<Vec<crate::evidence::onchain::SubmissionEntry>>,
}

/// `tx`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TxClaims {
    /// The posting transaction.
    pub hash: Claim<B256>,
}

/// A report as the audit reads it (see the module docs).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AuditReport {
    /// `question`.
    #[serde(deserialize_with = "block")]
    pub question: QuestionClaims,
    /// `evidence`, each item as written (committed as written: see the module docs).
    pub evidence: Claim<Vec<Value>>,
    /// `leaves`.
    pub leaves: Claim<Vec<Claim<B256>>>,
    /// `root`.
    pub root: Claim<Root>,
    /// `ballots`.
    pub ballots: Claim<Vec<BallotClaims>>,
    /// `stats`.
    #[serde(deserialize_with = "block")]
    pub stats: StatsClaims,
    /// `routing`, as written (compared key by key: see the module docs).
    pub routing: Claim<Map<String, Value>>,
    /// `not_yet`, present with `question.clock`.
    pub not_yet: Claim<crate::policy::not_yet::NotYet>,
    /// `committee`.
    #[serde(deserialize_with = "block")]
    pub committee: CommitteeClaims,
    /// `search`.
    #[serde(deserialize_with = "block")]
    pub search: SearchClaims,
    /// `submissions`, `None` when absent or `null`.
    #[serde(deserialize_with = "nullable_block")]
    pub submissions: Option<SubmissionsClaims>,
    /// `tx`.
    #[serde(deserialize_with = "block")]
    pub tx: TxClaims,
}

/// What a bundled evidence item says of itself (for the submissions check).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ItemClaims {
    /// The item's id in the bundle.
    pub id: Claim<u64>,
    /// Its URL.
    pub url: Claim<String>,
    /// Its submitter, for submitted items.
    pub submitter: Claim<String>,
}

impl AuditReport {
    /// Read a report's JSON. Never fails: a key of the wrong type is a [`Claim::Not`] (and
    /// anything but an object a report with every key absent), named by the checks.
    pub fn from_json(report: &Value) -> Self {
        Self::deserialize(report).unwrap_or_default()
    }

    /// The evidence items as the node's types read them (what routing reads).
    ///
    /// # Errors
    /// Why they do not parse, with the path of the first bad one.
    pub fn evidence_items(&self) -> Result<Vec<EvidenceItem>, String> {
        let items = Value::Array(self.evidence.ok().cloned().unwrap_or_default());
        serde_path_to_error::deserialize(&items).map_err(|e| e.to_string())
    }

    /// The evidence item of id `id`, read for what it says of itself.
    pub fn evidence_item(&self, id: u64) -> Option<ItemClaims> {
        self.evidence
            .ok()?
            .iter()
            .map(|v| ItemClaims::deserialize(v).unwrap_or_default())
            .find(|i| i.id.ok() == Some(&id))
    }

    /// `routing.decision`.
    ///
    /// # Errors
    /// Neither `resolve` nor `escalate`: the text found.
    pub fn decision(&self) -> Result<Decision, String> {
        let found = self.routing.ok().and_then(|r| r.get("decision"));
        found
            .and_then(|d| Decision::deserialize(d).ok())
            .ok_or_else(|| {
                format!(
                    "expected resolve or escalate, found {}",
                    found.map_or_else(|| "nothing".into(), Value::to_string)
                )
            })
    }

    /// `routing.policy`, every threshold stated (a missing one would silently take its
    /// default, a threshold the report never stated).
    ///
    /// # Errors
    /// The finding: missing, a threshold missing, or not a policy.
    pub fn policy(&self) -> Result<RoutingPolicy, Mismatch> {
        let Some(stated) = self
            .routing
            .ok()
            .and_then(|r| r.get("policy"))
            .filter(|v| !v.is_null())
        else {
            return Err(Mismatch::in_report(
                "routing.policy",
                "the thresholds the decision was made with",
                "(missing)",
            ));
        };
        if let (Value::Object(keys), Some(stated)) = (
            serde_json::to_value(RoutingPolicy::default()).unwrap_or(Value::Null),
            stated.as_object(),
        ) && let Some(key) = keys.keys().find(|k| !stated.contains_key(*k))
        {
            return Err(Mismatch::in_report(
                &format!("routing.policy.{key}"),
                "a stated threshold",
                "(missing)",
            ));
        }
        RoutingPolicy::deserialize(stated)
            .map_err(|e| Mismatch::in_report("routing.policy", "a routing policy", e.to_string()))
    }

    /// Every key of the recomputed routing block whose JSON differs from the report's, and
    /// every key only the report has.
    pub fn routing_differences(&self, recomputed: &Routing) -> Vec<Mismatch> {
        let recomputed = match serde_json::to_value(recomputed) {
            Ok(Value::Object(keys)) => keys,
            _ => Map::new(),
        };
        let empty = Map::new();
        let stated = self.routing.ok().unwrap_or(&empty);
        let mut keys: Vec<&String> = recomputed.keys().chain(stated.keys()).collect();
        keys.sort();
        keys.dedup();
        let show = |v: Option<&Value>, absent: &str| {
            v.map_or_else(
                || absent.to_owned(),
                |v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                },
            )
        };
        keys.into_iter()
            .filter_map(|key| {
                let (expected, found) = (recomputed.get(key), stated.get(key));
                (expected != found).then(|| {
                    Mismatch::in_report(
                        &format!("routing.{key}"),
                        show(expected, "(absent)"),
                        show(found, "(missing)"),
                    )
                })
            })
            .collect()
    }
}

/// Anything the audit functions take as a report: its typed [`AuditReport`], or its JSON
/// (read into one on the way in, for callers holding a report's JSON).
pub trait AsAuditReport {
    /// The report as the audit reads it.
    fn audit_report(&self) -> Cow<'_, AuditReport>;
}

impl AsAuditReport for AuditReport {
    fn audit_report(&self) -> Cow<'_, AuditReport> {
        Cow::Borrowed(self)
    }
}

impl AsAuditReport for Value {
    fn audit_report(&self) -> Cow<'_, AuditReport> {
        Cow::Owned(AuditReport::from_json(self))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn a_claim_is_typed_absent_or_not_with_its_path() {
        let r = AuditReport::from_json(&json!({
            "committee": {"M": 2, "T": "two", "juror_weights": [{"name": "m", "weight": "1"}]},
            "ballots": [{"iteration": 1, "model": "m", "archetype": "a", "vote": "YES"},
                        {"iteration": "one", "model": "m", "archetype": "a", "vote": null}],
        }));
        assert_eq!(r.committee.m.ok(), Some(&2));
        assert_eq!(r.committee.stop_iteration, Claim::Absent);
        assert_eq!(r.committee.t.shown(), "\"two\"");
        assert_eq!(r.committee.t.bare(), "two");
        let weights = r.committee.juror_weights.ok().unwrap();
        assert!(matches!(&weights[0], Claim::Not { why, .. } if why.starts_with("weight: ")));
        let why = r.ballots.required().unwrap_err();
        assert!(why.starts_with("[1]"), "{why}");
        assert!(why.contains("invalid type"), "{why}");
    }

    #[test]
    fn big_integers_are_decimal_strings_and_counts_are_numbers() {
        // As the node writes them: a JSON number may already have lost digits of a 1e18
        // value, and a count written as text is not the count the spec gives.
        let r = AuditReport::from_json(&json!({
            "question": {"id": "7", "chain_id": 31337},
            "stats": {"p_fixed": ["1", 2], "kappa_fixed": "-3", "ballots": 4, "valid": "4"},
        }));
        assert_eq!(r.question.id.ok(), Some(&Some(Dec(U256::from(7)))));
        assert_eq!(r.question.chain_id.ok(), Some(&31337));
        let p = r.stats.p_fixed.ok().unwrap();
        assert_eq!(p[0].ok(), Some(&Dec(1)));
        assert!(matches!(&p[1], Claim::Not { json, .. } if json == "2"));
        assert_eq!(r.stats.kappa_fixed.ok(), Some(&Dec(-3)));
        assert_eq!(r.stats.ballots.ok(), Some(&4));
        assert!(matches!(&r.stats.valid, Claim::Not { json, .. } if json == "\"4\""));
        for bad in [json!(7), json!(7.0), json!("-7"), json!({}), json!(true)] {
            let r = AuditReport::from_json(&json!({"question": {"id": bad.clone()}}));
            assert!(matches!(r.question.id, Claim::Not { .. }), "{bad}");
        }
    }

    #[test]
    fn anything_but_an_object_is_a_report_with_every_key_absent() {
        for v in [
            json!([]),
            json!("x"),
            json!({"question": 3, "committee": []}),
        ] {
            let r = AuditReport::from_json(&v);
            assert_eq!(r.question.text, Claim::Absent, "{v}");
            assert_eq!(r.committee.m, Claim::Absent, "{v}");
        }
    }
}
