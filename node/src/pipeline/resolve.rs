//! One question to one typed [`Report`]: evidence → commitment → committee → stats → routing.
//!
//! [`resolve`] is the only place that turns a question into a verdict. `veritas resolve`,
//! `veritas eval`, `veritas demo` and the daemon all call it (the daemon through
//! [`CommitteeResolver`], the [`Resolver`] the job pipeline runs), so an off-chain report and
//! an on-chain one are built by the same steps:
//!
//! 1. evidence: gathered (the planner model when configured, else the fallback plan; every
//!    collector; the bundle rules) or given by the caller;
//! 2. one RFC 6962 commitment of the bundle, passed on (never recomputed);
//! 3. the committee, seeded from values the chain fixed before the evidence existed
//!    ([`SeedSource`]; off-chain from the root and the question id);
//! 4. the report, built once and finished ([`Report::from_parts`]): statistics of the ballots,
//!    the routing decision (with the planner's classification), the committee's seed inputs
//!    and, for an on-chain question, each submission's fate. Nothing patches it afterwards.

use std::sync::Arc;

use alloy::primitives::{Address, B256, U256};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::{
    bundle::{Bundle, EvidenceItem, Rubric},
    commitment::{Commitment, commit_bundle},
    config::Config,
    evidence::{Gatherer, SearchRecord, onchain::ChainSubmission},
    jury::{
        BallotRow, SeedInputs, SeedSource,
        committee::{Committee, IterationProgress, run_committee},
    },
    live::LiveEvents,
    llm::{ChatModel, openai::OpenAiChat},
    policy::{RoutingPolicy, not_yet::RoundClock},
    report::{QuestionInfo, Report, ReportParts},
};

/// An on-chain question as the daemon hands it to a [`Resolver`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuestionInput {
    /// On-chain id.
    pub id: U256,
    /// The text exactly as asked (Merkle leaf 0).
    pub text: String,
    /// Who asked.
    pub asker: Address,
    /// Chain id of the oracle.
    pub chain_id: u64,
    /// The oracle address.
    pub oracle: Address,
    /// The question's `resolveAfter` (unix seconds, 0 = at once): evidence cutoff.
    pub resolve_after: u64,
    /// Hash of the block holding the `QuestionAsked` log (seeds the committee).
    pub block_hash: B256,
    /// The operator this node reports as (seeds the committee: each node draws its own).
    pub operator: Address,
    /// The question's confirmed on-chain submissions, by index (the job pipeline fills them
    /// from the store); they enter the bundle as `source: "submitted"` hits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub submissions: Vec<ChainSubmission>,
    /// The asker's clarifications (`QuestionClarified`), in order (the job pipeline fills them
    /// from the store): shown to every juror after the question, committed right after it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clarifications: Vec<String>,
    /// The chain's clock of this report round (the job pipeline reads it when the round
    /// starts): with it the report applies the "not yet" rule ([`crate::policy::not_yet`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<RoundClock>,
}

impl QuestionInput {
    /// The report's `question` block: the text, and where it was asked.
    pub fn info(&self) -> QuestionInfo {
        QuestionInfo {
            text: self.text.clone(),
            id: Some(self.id),
            chain_id: Some(self.chain_id),
            oracle: Some(self.oracle),
            clarifications: self.clarifications.clone(),
            clock: self.clock,
        }
    }

    /// The committee seed's source: the chain's values, fixed before any evidence is gathered.
    pub fn seed_source(&self) -> SeedSource {
        SeedSource::Chain(SeedInputs {
            chain_id: self.chain_id,
            oracle: self.oracle,
            question_id: self.id,
            operator: self.operator,
            block_hash: self.block_hash,
        })
    }

    /// The evidence cutoff: documents published after `resolveAfter` are not evidence.
    pub fn cutoff(&self) -> Option<DateTime<Utc>> {
        i64::try_from(self.resolve_after)
            .ok()
            .filter(|t| *t > 0)
            .and_then(|t| DateTime::from_timestamp(t, 0))
    }
}

/// Why a question could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct ResolveError {
    /// What went wrong.
    pub reason: String,
    /// Whether trying again later may succeed (a model server down, a rate limit).
    pub retryable: bool,
}

impl ResolveError {
    /// A failure that trying again will not fix.
    pub fn permanent(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            retryable: false,
        }
    }
}

/// Turns an on-chain question into its report; the job pipeline's only view of resolution.
#[async_trait]
pub trait Resolver: Send + Sync {
    /// Resolve one question.
    ///
    /// # Errors
    /// [`ResolveError`], saying whether a retry may help.
    async fn resolve(&self, question: &QuestionInput) -> Result<Report, ResolveError>;
}

/// Where a question's evidence comes from.
#[derive(Debug, Clone)]
pub enum Evidence {
    /// Plan, search and bundle with the engine's collectors; documents published after
    /// `resolve_after` are excluded. The report records the search (`search`).
    Gather {
        /// The evidence cutoff.
        resolve_after: Option<DateTime<Utc>>,
        /// An on-chain question's submissions, offered to the bundle rules with the
        /// collectors' hits; the report records each one's fate. `None` for a question not
        /// asked on-chain (the report has no `submissions` key).
        submissions: Option<Vec<ChainSubmission>>,
    },
    /// These items, as given (ids 1..n), scored on `rubric`; the report has no `search`.
    Given {
        /// The items in bundle order.
        items: Vec<EvidenceItem>,
        /// The rubric jurors score.
        rubric: Rubric,
        /// An on-chain question's submissions, recorded with their fate (none is added to
        /// the given items); `None` off-chain.
        submissions: Option<Vec<ChainSubmission>>,
    },
}

/// What [`resolve`] needs besides the question, built once (the local corpus index and the
/// embedded model are loaded here, not per question).
pub struct Engine {
    gatherer: Option<Gatherer>,
    planner: Option<OpenAiChat>,
    committee: Committee,
    policy: RoutingPolicy,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("gatherer", &self.gatherer)
            .field(
                "planner",
                &self.planner.as_ref().map(|p| p.config().model.clone()),
            )
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Build the jury, the routing policy, the planner model (`[planner_model]`) and, when
    /// `gather` is set, the evidence collectors from one configuration.
    ///
    /// # Errors
    /// A collector, planner or juror that cannot start, naming the section.
    pub fn from_config(config: &Config, gather: bool) -> Result<Self, ResolveError> {
        let gatherer = gather
            .then(|| Gatherer::from_config(&config.evidence))
            .transpose()
            .map_err(|e| ResolveError::permanent(format!("evidence: {e}")))?;
        let planner = config
            .planner_model
            .clone()
            .map(OpenAiChat::new)
            .transpose()
            .map_err(|e| ResolveError::permanent(format!("planner_model: {e}")))?;
        let committee = crate::jury::pool::build(&config.jury)
            .map_err(|e| ResolveError::permanent(format!("jury: {e}")))?;
        Ok(Self::new(gatherer, planner, committee, config.routing))
    }

    /// Assemble an engine from its parts (tests, embedding).
    pub fn new(
        gatherer: Option<Gatherer>,
        planner: Option<OpenAiChat>,
        committee: Committee,
        policy: RoutingPolicy,
    ) -> Self {
        Self {
            gatherer,
            planner,
            committee,
            policy,
        }
    }

    /// The committee (T and M feed progress bars and call budgets).
    pub fn committee(&self) -> &Committee {
        &self.committee
    }
}

/// Resolve one question: evidence, one commitment, the seeded committee, statistics, routing.
///
/// `seed` says where the committee's randomness comes from: the chain for an on-chain question
/// (the evidence cannot move it), the root and the id off-chain.
/// `on_search` sees the search record as soon as the evidence is gathered (before the
/// committee, which can take a while); `progress` is called after every iteration.
///
/// # Errors
/// [`ResolveError`]: evidence that cannot be gathered (retryable when every collector failed
/// on a transient error), a bundle that cannot be committed, or a committee that cannot run
/// at all (failing jurors are not errors: their ballots are in the report).
pub async fn resolve(
    engine: &Engine,
    question: QuestionInfo,
    seed: SeedSource,
    evidence: Evidence,
    on_search: &mut (dyn FnMut(&SearchRecord) + Send),
    progress: &mut (dyn FnMut(&IterationProgress<'_>) + Send),
) -> Result<Report, ResolveError> {
    let (items, rubric, search, submissions) = match evidence {
        Evidence::Given {
            items,
            rubric,
            submissions,
        } => (items, rubric, None, submissions),
        Evidence::Gather {
            resolve_after,
            submissions,
        } => {
            let (items, rubric, search) = gather(
                engine,
                &question.text,
                resolve_after,
                submissions.as_deref(),
            )
            .await?;
            on_search(&search);
            (items, rubric, Some(search), submissions)
        }
    };
    let (bundle, commitment) = commit_evidence(&question, items)?;
    let source = seed;
    let seed = source.seed(&commitment.root);
    let bundle = Arc::new(bundle);
    let rubric = Arc::new(rubric);
    let run = run_committee(
        &engine.committee,
        Arc::clone(&bundle),
        Arc::clone(&rubric),
        seed,
        commitment.root,
        progress,
    )
    .await
    // The committee could not run at all (bad shape, sampler); failing jurors are not errors.
    .map_err(|e| ResolveError::permanent(format!("committee: {e}")))?;
    Ok(Report::from_parts(ReportParts {
        question,
        bundle: &bundle,
        rubric: &rubric,
        commitment: &commitment,
        run,
        policy: &engine.policy,
        seed_inputs: source.inputs(),
        search,
        submissions: submissions.as_deref(),
    }))
}

/// The bundle jurors see (question, clarifications, evidence) and its Merkle commitment,
/// whose root seeds the committee and is what gets posted.
fn commit_evidence(
    question: &QuestionInfo,
    items: Vec<EvidenceItem>,
) -> Result<(Bundle, Commitment), ResolveError> {
    let bundle = Bundle {
        question: question.text.clone(),
        clarifications: question.clarifications.clone(),
        evidence: items,
    };
    let commitment = commit_bundle(&bundle)
        .map_err(|e| ResolveError::permanent(format!("cannot commit the evidence: {e}")))?;
    Ok((bundle, commitment))
}

/// Plan, search and bundle the evidence of `question` with the engine's collectors, the
/// question's on-chain submissions offered to the bundle rules alongside their hits.
async fn gather(
    engine: &Engine,
    question: &str,
    resolve_after: Option<DateTime<Utc>>,
    submissions: Option<&[ChainSubmission]>,
) -> Result<(Vec<EvidenceItem>, Rubric, SearchRecord), ResolveError> {
    let gatherer = engine.gatherer.as_ref().ok_or_else(|| {
        ResolveError::permanent("evidence: this engine was built without collectors")
    })?;
    let given = match submissions {
        Some(items) if !items.is_empty() => {
            vec![crate::evidence::onchain::collector_hits(items)]
        }
        _ => Vec::new(),
    };
    let gathered = gatherer
        .gather_with(
            question,
            resolve_after,
            engine.planner.as_ref().map(|p| p as &dyn ChatModel),
            given,
        )
        .await
        .map_err(|e| ResolveError {
            retryable: e.is_retryable(),
            reason: format!("evidence: {e}"),
        })?;
    let search = gathered.record(resolve_after);
    Ok((gathered.bundle, gathered.plan.rubric, search))
}

/// The daemon's resolver: gathers evidence and runs the committee on each on-chain question.
#[derive(Debug)]
pub struct CommitteeResolver {
    engine: Engine,
    /// Where each iteration's ballots are published as they arrive (the web view).
    live: Option<Arc<LiveEvents>>,
}

/// A ballot as the live view receives it: the question it belongs to, then the report's row.
#[derive(Debug, Serialize)]
struct LiveBallot<'a> {
    #[serde(serialize_with = "crate::decimal::serialize")]
    question: U256,
    #[serde(flatten)]
    ballot: &'a BallotRow,
}

impl CommitteeResolver {
    /// Build the engine (collectors, planner model, jurors) once.
    ///
    /// # Errors
    /// As [`Engine::from_config`].
    pub fn from_config(config: &Config) -> Result<Self, ResolveError> {
        Ok(Self {
            engine: Engine::from_config(config, true)?,
            live: None,
        })
    }

    /// Publish every ballot to `live` as its iteration completes.
    pub fn with_live(mut self, live: Arc<LiveEvents>) -> Self {
        self.live = Some(live);
        self
    }
}

#[async_trait]
impl Resolver for CommitteeResolver {
    async fn resolve(&self, q: &QuestionInput) -> Result<Report, ResolveError> {
        resolve(
            &self.engine,
            q.info(),
            q.seed_source(),
            Evidence::Gather {
                resolve_after: q.cutoff(),
                submissions: Some(q.submissions.clone()),
            },
            &mut |_| {},
            &mut |p| {
                tracing::debug!(target: "veritas::pipeline", iteration = p.iteration, valid = p.valid, failed = p.failed, "committee iteration");
                if let Some(live) = &self.live {
                    for ballot in p.ballots {
                        live.publish("ballot", &LiveBallot { question: q.id, ballot });
                    }
                }
            },
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::time::Duration;

    use alloy::primitives::B256;

    use super::*;
    use crate::commitment::root::Root;
    use crate::{
        audit,
        bundle::Source,
        jury::{
            Archetype, CommitteeConfig,
            committee::PoolMember,
            replay::{ReplayJuror, Script},
        },
        stats::Outcome,
    };

    /// Three replay jurors with unequal weights, so the draw shows in the ballots.
    fn engine() -> Engine {
        let juror = |label: &str, vote, weight| PoolMember {
            juror: Arc::new(ReplayJuror::new(label, Script::Fixed(vote), Duration::ZERO)),
            weight,
        };
        let archetypes = Archetype::shipped();
        let archetype_weights = (1..=archetypes.len() as u64).collect();
        let committee = Committee {
            archetypes,
            archetype_weights,
            jurors: vec![
                juror("a", Outcome::Yes, 1),
                juror("b", Outcome::No, 2),
                juror("c", Outcome::Yes, 3),
            ],
            config: CommitteeConfig {
                early_stopping: false,
                iterations: 4,
                ..CommitteeConfig::default()
            },
        };
        Engine::new(None, None, committee, RoutingPolicy::default())
    }

    fn item(id: u32, snippet: &str) -> EvidenceItem {
        EvidenceItem {
            id,
            url: format!("https://example.org/{id}"),
            title: format!("Item {id}"),
            snippet: snippet.into(),
            published_at: None,
            source: Source::Local,
            submitter: None,
        }
    }

    fn question() -> QuestionInput {
        QuestionInput {
            clock: None,
            id: U256::from(9),
            text: "Did the council approve the lane?".into(),
            asker: Address::repeat_byte(1),
            chain_id: 31337,
            oracle: Address::repeat_byte(2),
            resolve_after: 0,
            block_hash: B256::repeat_byte(3),
            operator: Address::repeat_byte(4),
            submissions: Vec::new(),
            clarifications: Vec::new(),
        }
    }

    async fn report(q: &QuestionInput, items: Vec<EvidenceItem>) -> Report {
        let evidence = Evidence::Given {
            items,
            rubric: Rubric::default(),
            submissions: None,
        };
        resolve(
            &engine(),
            q.info(),
            q.seed_source(),
            evidence,
            &mut |_| {},
            &mut |_| {},
        )
        .await
        .unwrap()
    }

    fn draws(report: &Report) -> Vec<(String, String)> {
        report
            .ballots
            .iter()
            .map(|b| (b.archetype.clone(), b.model.clone()))
            .collect()
    }

    #[tokio::test]
    async fn editing_the_evidence_cannot_change_the_committee() {
        let q = question();
        let one = report(&q, vec![item(1, "The council approved it.")]).await;
        let other = report(
            &q,
            vec![item(1, "Reordered."), item(2, "Padded to move the root.")],
        )
        .await;
        assert_ne!(one.root, other.root);
        assert_eq!(one.committee.seed, other.committee.seed);
        assert_eq!(draws(&one), draws(&other));
        assert_eq!(draws(&one).len(), 12);
        // The report's JSON names the id as a decimal string.
        let json = serde_json::to_value(&one).unwrap();
        assert_eq!(json["committee"]["seed_inputs"]["question_id"], "9");
        assert_eq!(
            one.committee.seed,
            B256::from(q.seed_source().seed(&Root::from([0; 32])))
        );
        // Another operator (or another block) draws another committee.
        let mut q2 = q.clone();
        q2.operator = Address::repeat_byte(5);
        let theirs = report(&q2, vec![item(1, "The council approved it.")]).await;
        assert_ne!(draws(&one), draws(&theirs));
    }

    #[tokio::test]
    async fn the_audit_recomputes_the_seed_and_every_draw() {
        let q = question();
        let r = report(&q, vec![item(1, "The council approved it.")]).await;
        // Audited as an auditor reads it: from the report's JSON.
        let mismatches = |r: &Report| -> Vec<String> {
            let json = audit::AuditReport::from_json(&serde_json::to_value(r).unwrap()).unwrap();
            let rec = audit::recompute(&json).unwrap();
            audit::compare_with_report(&rec, &json)
                .into_iter()
                .map(|m| m.field)
                .collect()
        };
        assert_eq!(mismatches(&r), Vec::<String>::new());
        // A seed claimed from other inputs, inputs naming another question, a swapped juror.
        let mut bad = r.clone();
        bad.committee.seed_inputs.as_mut().unwrap().block_hash = B256::ZERO;
        assert_eq!(mismatches(&bad), ["report.committee.seed"]);
        let mut bad = r.clone();
        bad.committee.seed_inputs.as_mut().unwrap().question_id = U256::from(10);
        assert!(
            mismatches(&bad).contains(&"report.committee.seed_inputs.question_id".to_owned()),
            "{:?}",
            mismatches(&bad)
        );
        let mut bad = r.clone();
        let other = if bad.ballots[0].model == "a" {
            "b"
        } else {
            "a"
        };
        bad.ballots[0].model = other.into();
        assert_eq!(mismatches(&bad), ["report.ballots[0].model"]);
    }
}
