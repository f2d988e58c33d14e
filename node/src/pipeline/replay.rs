//! The replay resolver: an instant, scripted committee for tests and load runs.
//!
//! It is **not** a juror and never the default (`node.resolver = "replay"` selects it): it
//! replays votes from a JSON script instead of asking models, so the chain, store and post
//! path can be exercised end to end in milliseconds. Its reports are real reports (empty
//! evidence bundle, committed with the same RFC 6962 code; statistics from the same `stats`
//! code), so they pass `veritas audit` like any other.
//!
//! Script format (`node.replay_file`):
//!
//! ```json
//! { "default": { "votes": ["YES", "YES", "NO"], "decision": "resolve" },
//!   "questions": { "Is the sky green?": { "votes": [null, null, null] } } }
//! ```
//!
//! `null` is a failed ballot. `decision` defaults to `resolve`; `delay_ms` (default 0) makes
//! the answer slow, so crash tests can kill the node mid-resolution. Ballots are grouped into
//! iterations of [`BALLOTS_PER_ITERATION`].

use std::collections::HashMap;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{QuestionInput, ResolveError, Resolver};
use crate::{
    commitment,
    stats::{self, BallotRecord, Outcome},
};

/// Ballots per iteration in replayed reports.
pub const BALLOTS_PER_ITERATION: usize = 3;

/// One scripted outcome.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Votes in order; `null` for a failed ballot.
    pub votes: Vec<Option<Outcome>>,
    /// `resolve` or `escalate`.
    #[serde(default = "resolve")]
    pub decision: String,
    /// Milliseconds to wait before answering (simulates a slow committee in crash tests).
    #[serde(default)]
    pub delay_ms: u64,
}

fn resolve() -> String {
    "resolve".into()
}

/// The whole script file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayScript {
    /// Used for questions not listed.
    pub default: Script,
    /// Per question text.
    #[serde(default)]
    pub questions: HashMap<String, Script>,
}

impl Default for ReplayScript {
    fn default() -> Self {
        Self {
            default: Script {
                votes: vec![Some(Outcome::Yes), Some(Outcome::Yes), Some(Outcome::No)],
                decision: resolve(),
                delay_ms: 0,
            },
            questions: HashMap::new(),
        }
    }
}

/// Replays scripted votes; see the module docs.
#[derive(Debug, Clone, Default)]
pub struct ReplayResolver {
    script: ReplayScript,
}

impl ReplayResolver {
    /// A resolver replaying `script`.
    pub fn new(script: ReplayScript) -> Self {
        Self { script }
    }

    /// Build the report for one question (pure; exposed for tests).
    ///
    /// # Errors
    /// [`ResolveError`] (not retryable) when the script's decision is not resolve/escalate.
    pub fn report(&self, question: &QuestionInput) -> Result<Value, ResolveError> {
        let script = self
            .script
            .questions
            .get(&question.text)
            .unwrap_or(&self.script.default);
        if script.decision != "resolve" && script.decision != "escalate" {
            return Err(ResolveError {
                reason: format!("replay decision {:?}", script.decision),
                retryable: false,
            });
        }
        let evidence: Vec<Value> = Vec::new();
        let commitment =
            commitment::commit(&question.text, &evidence).map_err(|e| ResolveError {
                reason: e.to_string(),
                retryable: false,
            })?;
        let records: Vec<BallotRecord> = script
            .votes
            .iter()
            .enumerate()
            .map(|(i, vote)| BallotRecord {
                iteration: u32::try_from(i / BALLOTS_PER_ITERATION + 1).unwrap_or(u32::MAX),
                model: "replay".into(),
                archetype: "replay".into(),
                vote: *vote,
            })
            .collect();
        let summary = stats::summarize(&records);
        let mut slots = std::collections::HashMap::<u32, u32>::new();
        let mut slot = |b: &BallotRecord| {
            let next = slots.entry(b.iteration).or_insert(0);
            *next += 1;
            *next - 1
        };
        let ballots: Vec<Value> = records
            .iter()
            .map(|b| {
                json!({
                    "iteration": b.iteration, "slot": slot(b), "model": b.model, "archetype": b.archetype,
                    "vote": b.vote, "confidence": b.vote.map(|_| 1.0),
                    "supporting_evidence_ids": [], "refuting_evidence_ids": [], "rubric_scores": {},
                    "reasoning": b.vote.map(|_| "replayed vote (test resolver)"),
                    "latency_ms": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0,
                    "failure": if b.vote.is_none() { json!("replayed failure") } else { Value::Null },
                })
            })
            .collect();
        let iterations = records.last().map_or(0, |b| b.iteration);
        Ok(json!({
            "question": { "text": question.text, "id": question.id, "chain_id": question.chain_id, "oracle": question.oracle },
            "evidence": evidence,
            "leaves": commitment.leaves_hex(),
            "root": commitment.root_hex(),
            "ballots": ballots,
            "stats": summary,
            "routing": { "decision": script.decision, "reasons": ["replay script"] },
            "committee": { "resolver": "replay", "M": BALLOTS_PER_ITERATION, "stop_iteration": iterations, "seed": null },
        }))
    }
}

#[async_trait]
impl Resolver for ReplayResolver {
    async fn resolve(&self, question: &QuestionInput) -> Result<Value, ResolveError> {
        let script = self
            .script
            .questions
            .get(&question.text)
            .unwrap_or(&self.script.default);
        if script.delay_ms > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(script.delay_ms)).await;
        }
        self.report(question)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::audit;

    fn input(text: &str) -> QuestionInput {
        QuestionInput {
            id: "1".into(),
            text: text.into(),
            asker: "0x".into(),
            chain_id: 31337,
            oracle: "0x".into(),
        }
    }

    #[test]
    fn reports_audit_cleanly() {
        let script: ReplayScript = serde_json::from_str(
            r#"{"default":{"votes":["YES","NO","YES","NULL"]},"questions":{"bad":{"votes":[null,null],"decision":"escalate"}}}"#,
        )
        .unwrap();
        let r = ReplayResolver::new(script);
        let report = r.report(&input("Is it?")).unwrap();
        let rec = audit::recompute(&report).unwrap();
        assert_eq!(audit::compare_with_report(&rec, &report), vec![]);
        assert_eq!(rec.valid_ballots, 4);
        let bad = r.report(&input("bad")).unwrap();
        let rec = audit::recompute(&bad).unwrap();
        assert_eq!((rec.valid_ballots, rec.escalated), (0, true));
    }
}
