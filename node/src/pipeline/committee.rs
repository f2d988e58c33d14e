//! The product resolver: evidence → commitment → committee → routing → report.
//!
//! It glues the evidence [`Gatherer`] to the jury's committee and report code; everything it
//! calls is owned by those modules. The report it returns is the jury's [`crate::report::Report`]
//! as JSON, which the pipeline audits before posting.

use alloy::primitives::U256;
use async_trait::async_trait;
use chrono::DateTime;
use serde_json::Value;

use super::{QuestionInput, ResolveError, Resolver};
use crate::{
    cli::resolve::resolve_bundle, config::Config, evidence::Gatherer, jury::committee::Committee,
    policy::RoutingPolicy, report::QuestionInfo,
};

/// Gathers evidence and runs the committee on each question.
pub struct CommitteeResolver {
    gatherer: Gatherer,
    committee: Committee,
    policy: RoutingPolicy,
}

impl std::fmt::Debug for CommitteeResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommitteeResolver")
            .field("gatherer", &self.gatherer)
            .finish_non_exhaustive()
    }
}

impl CommitteeResolver {
    /// Build the collectors and the juror pool once (the local corpus index and the embedded
    /// model are loaded here, not per question).
    ///
    /// # Errors
    /// A collector or juror that cannot start, as text for the operator.
    pub fn from_config(config: &Config) -> Result<Self, String> {
        let gatherer =
            Gatherer::from_config(&config.evidence).map_err(|e| format!("evidence: {e}"))?;
        let committee = config.jury.build().map_err(|e| format!("jury: {e}"))?;
        Ok(Self {
            gatherer,
            committee,
            policy: config.routing,
        })
    }
}

#[async_trait]
impl Resolver for CommitteeResolver {
    async fn resolve(&self, q: &QuestionInput) -> Result<Value, ResolveError> {
        // Documents published after the question's resolveAfter are not evidence for it.
        let cutoff = i64::try_from(q.resolve_after)
            .ok()
            .filter(|t| *t > 0)
            .and_then(|t| DateTime::from_timestamp(t, 0));
        let gathered = self
            .gatherer
            .gather(&q.text, cutoff, None)
            .await
            .map_err(|e| ResolveError {
                retryable: e.is_retryable(),
                reason: format!("evidence: {e}"),
            })?;
        let bundle = gathered.to_bundle(&q.text);
        let id: U256 = q.id.parse().map_err(|_| ResolveError {
            reason: format!("bad question id {}", q.id),
            retryable: false,
        })?;
        let info = QuestionInfo {
            text: q.text.clone(),
            id: Some(q.id.clone()),
            chain_id: Some(q.chain_id),
            oracle: Some(q.oracle.clone()),
        };
        let report = resolve_bundle(
            &self.committee,
            &self.policy,
            info,
            bundle,
            gathered.plan.rubric.clone(),
            id.to_be_bytes::<32>(),
            &mut |p| {
                tracing::debug!(target: "veritas::pipeline", iteration = p.iteration, valid = p.valid, failed = p.failed, "committee iteration");
            },
        )
        .await
        // The committee could not run at all (bad shape, sampler); failing jurors are not errors.
        .map_err(|e| ResolveError { reason: format!("committee: {e:#}"), retryable: false })?;
        serde_json::to_value(&report).map_err(|e| ResolveError {
            reason: format!("report: {e}"),
            retryable: false,
        })
    }
}
