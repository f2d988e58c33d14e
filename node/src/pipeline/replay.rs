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
//! full iterations of M = 3 ballots ([`BALLOTS_PER_ITERATION`]), or 2 or 1 when the number of
//! votes is not a multiple of 3, as a committee always fills every (iteration, slot).
//!
//! The decision is not written over the routing: it chooses the policy the report is routed
//! with, by the node's own rule, so `veritas audit` recomputes it like any other.
//! [`replay_policy`] `resolve` lets any clear YES or NO lead with a defined kappa resolve (the
//! relevance floor, correlation guard and yes/no check off: no evidence, one model), so a tie,
//! a NULL lead or a lone ballot escalates even when scripted `resolve`; `escalate` asks a
//! posterior of 1, which no committee reaches.

use std::collections::HashMap;

use async_trait::async_trait;
use serde::Deserialize;

use super::resolve::{QuestionInput, ResolveError, Resolver};
use crate::{
    bundle::{Bundle, Rubric},
    commitment,
    jury::{
        BallotRow,
        committee::{CommitteeInfo, CommitteeRun, Weight},
    },
    policy::{Decision, RoutingPolicy},
    report::{Report, ReportParts},
    stats::{EarlyStopping, Outcome},
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
    /// The report is a [`Report`] like the committee's: an empty bundle committed with the
    /// same code, the scripted ballots in full iterations, one archetype and one juror
    /// weighted 1, their statistics, and the routing of [`replay_policy`] for the decision
    /// the script names.
    ///
    /// # Errors
    /// [`ResolveError`] (not retryable) when the script's decision is not resolve/escalate.
    pub fn report(&self, question: &QuestionInput) -> Result<Report, ResolveError> {
        let script = self
            .script
            .questions
            .get(&question.text)
            .unwrap_or(&self.script.default);
        let decision = match script.decision.as_str() {
            "resolve" => Decision::Resolve,
            "escalate" => Decision::Escalate,
            other => {
                return Err(ResolveError::permanent(format!(
                    "replay decision {other:?}"
                )));
            }
        };
        let bundle = Bundle {
            question: question.text.clone(),
            evidence: Vec::new(),
        };
        let commitment = commitment::commit_bundle(&bundle)
            .map_err(|e| ResolveError::permanent(e.to_string()))?;
        let m = (1..=BALLOTS_PER_ITERATION)
            .rev()
            .find(|m| script.votes.len().is_multiple_of(*m))
            .unwrap_or(1);
        let ballots: Vec<BallotRow> = script
            .votes
            .iter()
            .enumerate()
            .map(|(i, vote)| {
                let iteration = u32::try_from(i / m + 1).unwrap_or(u32::MAX);
                BallotRow {
                    iteration,
                    slot: u32::try_from(i % m).unwrap_or(u32::MAX),
                    model: "replay".into(),
                    archetype: "replay".into(),
                    vote: *vote,
                    confidence: vote.map(|_| 1.0),
                    supporting_evidence_ids: Vec::new(),
                    refuting_evidence_ids: Vec::new(),
                    rubric_scores: Default::default(),
                    reasoning: vote.map(|_| "replayed vote (test resolver)".into()),
                    latency_ms: 0,
                    prompt_tokens: 0,
                    cached_prompt_tokens: 0,
                    completion_tokens: 0,
                    cost_usd: 0.0,
                    probabilities: None,
                    failure: vote.is_none().then(|| "replayed failure".into()),
                }
            })
            .collect();
        let iterations = ballots.last().map_or(0, |b| b.iteration);
        let stopping = EarlyStopping::default();
        let source = question.seed_source();
        let seed = source.seed(&commitment.root);
        let info = CommitteeInfo {
            iterations,
            ballots_per_iteration: u32::try_from(m).unwrap_or(u32::MAX),
            epsilon: stopping.epsilon,
            tau: stopping.tau,
            min_ballots: stopping.min_ballots,
            early_stopping: false,
            seed: alloy::primitives::B256::from(seed),
            // Recorded by the report from the chain's inputs.
            seed_inputs: None,
            stop_iteration: iterations,
            stopped_early: false,
            calls: ballots.len() as u64,
            divergences: Vec::new(),
            // One archetype and one juror: every draw is ("replay", "replay").
            archetype_weights: vec![replay_weight()],
            juror_weights: vec![replay_weight()],
        };
        let run = CommitteeRun {
            ballots,
            info,
            elapsed: std::time::Duration::ZERO,
        };
        Ok(Report::from_parts(ReportParts {
            question: question.info(),
            bundle: &bundle,
            rubric: &Rubric::default(),
            commitment: &commitment,
            run,
            policy: &replay_policy(decision),
            seed_inputs: source.inputs(),
            search: None,
            submissions: Some(&question.submissions),
        }))
    }
}

fn replay_weight() -> Weight {
    Weight {
        name: "replay".into(),
        weight: 1,
    }
}

/// The policy a scripted decision is routed with (see the module docs).
pub fn replay_policy(decision: Decision) -> RoutingPolicy {
    RoutingPolicy {
        min_posterior: if decision == Decision::Escalate {
            1.0
        } else {
            0.0
        },
        min_lower_bound: 0.0,
        min_kappa: -1.0,
        min_valid_ballots: 1,
        min_effective_lower_bound: 0.0,
        min_relevance: 0.0,
        min_relevant_terms: 0,
        yes_no_only: false,
    }
}

#[async_trait]
impl Resolver for ReplayResolver {
    async fn resolve(&self, question: &QuestionInput) -> Result<Report, ResolveError> {
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
            id: alloy::primitives::U256::from(1),
            text: text.into(),
            asker: alloy::primitives::Address::ZERO,
            chain_id: 31337,
            oracle: alloy::primitives::Address::ZERO,
            resolve_after: 0,
            block_hash: alloy::primitives::B256::repeat_byte(0x42),
            operator: alloy::primitives::Address::repeat_byte(0x07),
            submissions: Vec::new(),
        }
    }

    #[test]
    fn reports_audit_cleanly() {
        let script: ReplayScript = serde_json::from_str(
            r#"{"default":{"votes":["YES","NO","YES","NULL"]},"questions":{"bad":{"votes":[null,null],"decision":"escalate"}}}"#,
        )
        .unwrap();
        let r = ReplayResolver::new(script);
        let report = serde_json::to_value(r.report(&input("Is it?")).unwrap()).unwrap();
        let rec = audit::recompute(&report).unwrap();
        assert_eq!(audit::compare_with_report(&rec, &report), vec![]);
        assert_eq!(rec.valid_ballots, 4);
        let bad = serde_json::to_value(r.report(&input("bad")).unwrap()).unwrap();
        let rec = audit::recompute(&bad).unwrap();
        assert_eq!((rec.valid_ballots, rec.escalated), (0, true));
    }
}
