//! The replay resolver: scripted votes for tests and load runs, on the product's path.
//!
//! Never the default (`node.resolver = "replay"` selects it): instead of asking models it
//! gives [`resolve`](super::resolve::resolve) an [`engine`] whose one juror is a replay juror
//! ([`crate::jury::replay`]) answering each seat of the committee from a JSON script, so the
//! chain, store and post path can be exercised end to end in milliseconds, and every report is
//! built as a committee's is (empty evidence bundle, the same commitment, seeded draws,
//! committee loop, statistics and routing), so it passes `veritas audit` like any other.
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

use std::{sync::Arc, time::Duration};

use super::resolve::{self as pipeline, Engine, Evidence, QuestionInput, ResolveError, Resolver};
use crate::{
    bundle::Rubric,
    jury::{
        archetype::Archetype,
        committee::{Committee, CommitteeConfig, PoolMember},
        replay::{ReplayJuror, Script as JurorScript},
    },
    policy::{Decision, RoutingPolicy},
    report::Report,
    stats::Outcome,
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

    /// The script of the question `text`.
    fn script(&self, text: &str) -> &Script {
        self.script
            .questions
            .get(text)
            .unwrap_or(&self.script.default)
    }
}

/// The engine a script resolves its question with: one replay juror under one `replay`
/// persona, the votes in full iterations of M (no early stopping, so every vote is cast), no
/// collectors and no planner, and the routing of [`replay_policy`] for the script's decision.
///
/// # Errors
/// [`ResolveError`] (not retryable) when the script's decision is not resolve/escalate.
pub fn engine(script: &Script) -> Result<Engine, ResolveError> {
    let decision = match script.decision.as_str() {
        "resolve" => Decision::Resolve,
        "escalate" => Decision::Escalate,
        other => {
            return Err(ResolveError::permanent(format!(
                "replay decision {other:?}"
            )));
        }
    };
    let m = (1..=BALLOTS_PER_ITERATION)
        .rev()
        .find(|m| script.votes.len().is_multiple_of(*m))
        .unwrap_or(1);
    let too_many = || ResolveError::permanent("replay script: too many votes");
    let per_iteration = u32::try_from(m).map_err(|_| too_many())?;
    let iterations = u32::try_from(script.votes.len() / m)
        .map_err(|_| too_many())?
        .max(1);
    let juror = ReplayJuror::new(
        "replay",
        JurorScript::Seats {
            votes: script.votes.clone(),
            per_iteration,
        },
        Duration::ZERO,
    );
    let committee = Committee {
        archetypes: vec![Archetype {
            name: "replay".into(),
            bias: "none: a scripted test juror".into(),
            prompt: "You are a scripted test juror; your votes come from the replay script.".into(),
        }],
        archetype_weights: vec![1],
        jurors: vec![PoolMember {
            juror: Arc::new(juror),
            weight: 1,
        }],
        config: CommitteeConfig {
            iterations,
            ballots_per_iteration: per_iteration,
            early_stopping: false,
            concurrency: m,
            ..CommitteeConfig::default()
        },
    };
    Ok(Engine::new(None, None, committee, replay_policy(decision)))
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
    /// The product's path ([`pipeline::resolve`]) with the script's [`engine`] and no evidence; the
    /// on-chain submissions are recorded as the committee resolver records them.
    async fn resolve(&self, question: &QuestionInput) -> Result<Report, ResolveError> {
        let script = self.script(&question.text);
        let engine = engine(script)?;
        if script.delay_ms > 0 {
            tokio::time::sleep(Duration::from_millis(script.delay_ms)).await;
        }
        let evidence = Evidence::Given {
            items: Vec::new(),
            rubric: Rubric::default(),
            submissions: Some(question.submissions.clone()),
        };
        pipeline::resolve(
            &engine,
            question.info(),
            question.seed_source(),
            evidence,
            &mut |_| {},
            &mut |_| {},
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::audit;

    fn input(text: &str) -> QuestionInput {
        QuestionInput {
            clock: None,
            id: alloy::primitives::U256::from(1),
            text: text.into(),
            asker: alloy::primitives::Address::ZERO,
            chain_id: 31337,
            oracle: alloy::primitives::Address::ZERO,
            resolve_after: 0,
            block_hash: alloy::primitives::B256::repeat_byte(0x42),
            operator: alloy::primitives::Address::repeat_byte(0x07),
            submissions: Vec::new(),
            clarifications: Vec::new(),
        }
    }

    #[tokio::test]
    async fn reports_audit_cleanly() {
        let script: ReplayScript = serde_json::from_str(
            r#"{"default":{"votes":["YES","NO","YES","NULL"]},"questions":{"bad":{"votes":[null,null],"decision":"escalate"}}}"#,
        )
        .unwrap();
        let r = ReplayResolver::new(script);
        let report =
            audit::AuditReport::as_written(&r.resolve(&input("Is it?")).await.unwrap()).unwrap();
        let rec = audit::recompute(&report).unwrap();
        assert_eq!(audit::compare_with_report(&rec, &report), vec![]);
        assert_eq!(rec.valid_ballots, 4);
        let bad = audit::AuditReport::as_written(&r.resolve(&input("bad")).await.unwrap()).unwrap();
        let rec = audit::recompute(&bad).unwrap();
        assert_eq!((rec.valid_ballots, rec.escalated), (0, true));
    }

    /// Each seat gets its scripted vote whatever order the committee's concurrent ballots
    /// run in, and the iterations are the script's full rows of M.
    #[tokio::test]
    async fn every_seat_casts_its_scripted_vote() {
        use Outcome::{No, Null, Yes};
        let votes = vec![Some(Yes), None, Some(No), Some(Null), Some(Yes), Some(Yes)];
        let r = ReplayResolver::new(ReplayScript {
            default: Script {
                votes: votes.clone(),
                decision: "resolve".into(),
                delay_ms: 0,
            },
            questions: HashMap::new(),
        });
        for _ in 0..5 {
            let report = r.resolve(&input("Is it?")).await.unwrap();
            let cast: Vec<_> = report.ballots.iter().map(|b| b.vote).collect();
            assert_eq!(cast, votes);
            let seats: Vec<_> = report
                .ballots
                .iter()
                .map(|b| (b.iteration, b.slot))
                .collect();
            assert_eq!(seats, vec![(1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)]);
            assert!(report.ballots[1].failure.is_some());
        }
    }
}
