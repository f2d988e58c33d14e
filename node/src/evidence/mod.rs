//! Evidence: the search planner, the collectors and the bundle rules.
//!
//! One question goes through three steps, each in its own module:
//!
//! - [`planner`]: an LLM turns the question into 3–5 search queries and a rubric; without a
//!   model, or when it fails, a plain fallback (the question and its key terms) is used and
//!   the reason recorded.
//! - [`collectors`]: web search (Tavily), the local corpus (BM25 over a folder) and submitted
//!   evidence, behind one trait, run together; one failing collector does not stop the rest.
//! - [`bundle_rules`]: normalise URLs, deduplicate, drop documents published after the
//!   resolution time, rank, cap and trim — producing the items that are committed.
//! - [`onchain`]: evidence submitted on-chain, offered to the bundle rules as one more
//!   collector's hits, and each item's fate for the report.
//! - [`text`]: each hit's fields bounded and stripped of control and bidi characters, applied
//!   by every collector that reads text it does not control.
//!
//! [`Gatherer::gather`] runs all three and returns everything the report needs: the plan, every
//! collector's raw hits before deduplication, what was dropped and why, and the bundle.
//! This module does not know about jurors: `jury` and `evidence` only share [`crate::llm`]
//! and [`crate::bundle`].

pub mod bundle_rules;
pub mod collectors;
pub mod demo;
pub mod normalize;
pub mod onchain;
pub mod planner;
pub mod text;

use chrono::{DateTime, Utc};
use futures::future::join_all;
use serde::{Deserialize, Serialize};

use crate::bundle::{Bundle, EvidenceItem};
use crate::llm::ChatModel;

pub use bundle_rules::{BundleRules, Dropped};
pub use collectors::{
    Collector, CollectorError, CollectorHits, CollectorsConfig, Hit, SearchRequest,
};
pub use planner::{Plan, PlannerConfig};
pub use veritas_core::config::evidence::EvidenceConfig;

/// Everything gathered for one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gathered {
    /// The queries and rubric used, and why the fallback was used if it was.
    pub plan: Plan,
    /// Every collector's hits before any bundle rule, or its error.
    pub raw_hits: Vec<CollectorHits>,
    /// Hits and documents left out of the bundle, with the reason.
    pub dropped: Vec<Dropped>,
    /// The evidence items to commit, ids 1..=n.
    pub bundle: Vec<EvidenceItem>,
}

impl Gathered {
    /// The bundle to commit: the question text exactly as asked, and the evidence items.
    pub fn to_bundle(&self, question: &str) -> Bundle {
        Bundle {
            question: question.to_owned(),
            clarifications: Vec::new(),
            evidence: self.bundle.clone(),
        }
    }

    /// What the report keeps about the search (the bundle itself is the report's `evidence`).
    pub fn record(&self, resolve_after: Option<DateTime<Utc>>) -> SearchRecord {
        SearchRecord {
            resolve_after: resolve_after.map(normalize::format_published),
            plan: self.plan.clone(),
            raw_hits: self.raw_hits.clone(),
            dropped: self.dropped.clone(),
        }
    }
}

/// How the evidence of a report was found: the report's `search` key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchRecord {
    /// The date cutoff applied (RFC 3339), if any.
    pub resolve_after: Option<String>,
    /// The queries and rubric, and why the fallback plan was used if it was.
    pub plan: Plan,
    /// Every collector's hits before deduplication, or its error.
    pub raw_hits: Vec<CollectorHits>,
    /// What the bundle rules left out, and why.
    pub dropped: Vec<Dropped>,
}

/// Why evidence could not be gathered at all.
#[derive(Debug, thiserror::Error)]
pub enum EvidenceError {
    /// A configured collector could not start.
    #[error("collector setup failed: {0}")]
    Setup(#[from] CollectorError),
    /// No collector is enabled.
    #[error("no evidence collector is enabled")]
    NoCollectors,
    /// Every collector failed; the question cannot be resolved on evidence.
    #[error("every collector failed: {}", .failures.iter().map(|(name, err)| format!("{name}: {err}")).collect::<Vec<_>>().join("; "))]
    AllCollectorsFailed {
        /// Each collector's name and error.
        failures: Vec<(String, CollectorError)>,
    },
}

impl EvidenceError {
    /// Whether trying again later may succeed (every collector failed on retryable errors).
    pub fn is_retryable(&self) -> bool {
        match self {
            EvidenceError::Setup(_) | EvidenceError::NoCollectors => false,
            EvidenceError::AllCollectorsFailed { failures } => {
                failures.iter().all(|(_, err)| err.is_retryable())
            }
        }
    }
}

/// The planner, the collectors and the rules, built once and reused across questions (the local
/// corpus keeps its index between questions).
pub struct Gatherer {
    config: EvidenceConfig,
    collectors: Vec<Box<dyn Collector>>,
}

impl std::fmt::Debug for Gatherer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gatherer")
            .field(
                "collectors",
                &self.collectors.iter().map(|c| c.name()).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Gatherer {
    /// Build the collectors the configuration enables.
    ///
    /// # Errors
    /// [`EvidenceError::Setup`] when an enabled collector cannot start,
    /// [`EvidenceError::NoCollectors`] when none is enabled.
    pub fn from_config(config: &EvidenceConfig) -> Result<Self, EvidenceError> {
        let collectors = collectors::build(&config.collectors)?;
        Self::with_collectors(config.clone(), collectors)
    }

    /// Use the given collectors (in this order) with the planner and bundle settings of
    /// `config`; its `collectors` section is ignored.
    ///
    /// # Errors
    /// [`EvidenceError::NoCollectors`] when `collectors` is empty.
    pub fn with_collectors(
        config: EvidenceConfig,
        collectors: Vec<Box<dyn Collector>>,
    ) -> Result<Self, EvidenceError> {
        if collectors.is_empty() {
            return Err(EvidenceError::NoCollectors);
        }
        Ok(Self { config, collectors })
    }

    /// Plan, search every collector concurrently and build the bundle.
    ///
    /// `resolve_after` is the question's resolution time: documents published after it are
    /// excluded. `planner` is the model that plans the search; `None` uses the fallback plan.
    ///
    /// # Errors
    /// [`EvidenceError::AllCollectorsFailed`] when no collector returned (even an empty list of
    /// hits counts as an answer).
    pub async fn gather(
        &self,
        question: &str,
        resolve_after: Option<DateTime<Utc>>,
        planner: Option<&dyn ChatModel>,
    ) -> Result<Gathered, EvidenceError> {
        self.gather_with(question, resolve_after, planner, Vec::new())
            .await
    }

    /// [`Gatherer::gather`], with `given` hits added before the collectors' (e.g. the
    /// question's on-chain submissions, [`onchain::collector_hits`]): they pass the same bundle
    /// rules. They do not count as a collector that answered: if every collector fails, the
    /// gathering fails.
    ///
    /// # Errors
    /// As [`Gatherer::gather`].
    pub async fn gather_with(
        &self,
        question: &str,
        resolve_after: Option<DateTime<Utc>>,
        planner: Option<&dyn ChatModel>,
        given: Vec<CollectorHits>,
    ) -> Result<Gathered, EvidenceError> {
        let plan = planner::plan(question, resolve_after, &self.config.planner, planner).await;
        let request = SearchRequest {
            question,
            queries: &plan.queries,
            resolve_after,
        };
        let outcomes = join_all(self.collectors.iter().map(|c| c.collect(&request))).await;

        let mut raw_hits = given;
        let mut failures = Vec::new();
        for (collector, outcome) in self.collectors.iter().zip(outcomes) {
            let name = collector.name().to_owned();
            match outcome {
                Ok(hits) => {
                    tracing::info!(target: "veritas::evidence", collector = %name, hits = hits.len(), "collector finished");
                    raw_hits.push(CollectorHits {
                        collector: name,
                        hits,
                        error: None,
                    });
                }
                Err(err) => {
                    tracing::warn!(target: "veritas::evidence", collector = %name, error = %err, "collector failed");
                    raw_hits.push(CollectorHits {
                        collector: name.clone(),
                        hits: Vec::new(),
                        error: Some(err.to_string()),
                    });
                    failures.push((name, err));
                }
            }
        }
        if failures.len() == self.collectors.len() {
            return Err(EvidenceError::AllCollectorsFailed { failures });
        }

        let built = bundle_rules::build(&raw_hits, resolve_after, &self.config.bundle);
        tracing::info!(target: "veritas::evidence", items = built.items.len(), dropped = built.dropped.len(), fallback = plan.fallback_reason.is_some(), "bundle built");
        Ok(Gathered {
            plan,
            raw_hits,
            dropped: built.dropped,
            bundle: built.items,
        })
    }
}

/// One-shot convenience: build the collectors from `config` and gather once. A long-running
/// node should keep a [`Gatherer`] instead, so the local index is not rebuilt per question.
///
/// # Errors
/// As [`Gatherer::from_config`] and [`Gatherer::gather`].
pub async fn gather(
    question: &str,
    resolve_after: Option<DateTime<Utc>>,
    config: &EvidenceConfig,
    planner: Option<&dyn ChatModel>,
) -> Result<Gathered, EvidenceError> {
    Gatherer::from_config(config)?
        .gather(question, resolve_after, planner)
        .await
}

#[cfg(test)]
mod tests {
    use async_trait::async_trait;

    use super::*;
    use crate::bundle::Source;

    /// A collector that returns fixed hits or a fixed error: the combination logic under test
    /// is `Gatherer`'s, not the collectors' (those have their own tests).
    struct Fixed {
        name: &'static str,
        outcome: fn() -> Result<Vec<Hit>, CollectorError>,
    }

    #[async_trait]
    impl Collector for Fixed {
        fn name(&self) -> &str {
            self.name
        }

        async fn collect(&self, _request: &SearchRequest<'_>) -> Result<Vec<Hit>, CollectorError> {
            (self.outcome)()
        }
    }

    fn one_hit() -> Result<Vec<Hit>, CollectorError> {
        Ok(vec![Hit {
            query: None,
            rank: 0,
            score: 0.0,
            url: "https://e.example/x?utm_source=a".to_owned(),
            title: "t".to_owned(),
            snippet: "s".to_owned(),
            published_at: None,
            source: Source::Submitted,
            submitter: Some("0x1".to_owned()),
        }])
    }

    fn rate_limited() -> Result<Vec<Hit>, CollectorError> {
        Err(CollectorError::RateLimited {
            service: "tavily".to_owned(),
            retry_after: None,
        })
    }

    fn unauthorized() -> Result<Vec<Hit>, CollectorError> {
        Err(CollectorError::Unauthorized {
            service: "tavily".to_owned(),
            status: 401,
        })
    }

    #[tokio::test]
    async fn a_failing_collector_is_recorded_and_the_others_still_count() {
        let gatherer = Gatherer::with_collectors(
            EvidenceConfig::default(),
            vec![
                Box::new(Fixed {
                    name: "submitted",
                    outcome: one_hit,
                }),
                Box::new(Fixed {
                    name: "tavily",
                    outcome: unauthorized,
                }),
            ],
        );
        let gathered = match gatherer {
            Ok(g) => g.gather("Is x true?", None, None).await,
            Err(err) => panic!("{err}"),
        };
        let gathered = match gathered {
            Ok(g) => g,
            Err(err) => panic!("{err}"),
        };
        assert_eq!(gathered.raw_hits.len(), 2);
        assert!(
            gathered.raw_hits[1]
                .error
                .as_deref()
                .unwrap_or_default()
                .contains("401")
        );
        assert_eq!(
            gathered.raw_hits[0].hits[0].url,
            "https://e.example/x?utm_source=a"
        );
        assert_eq!(gathered.bundle.len(), 1);
        assert_eq!(gathered.bundle[0].url, "https://e.example/x");
        assert_eq!(
            gathered.plan.fallback_reason.as_deref(),
            Some("no planner model configured")
        );
    }

    #[tokio::test]
    async fn all_collectors_failing_is_an_error_that_knows_if_it_is_retryable() {
        let gather = |outcome: fn() -> Result<Vec<Hit>, CollectorError>| async move {
            let gatherer = Gatherer::with_collectors(
                EvidenceConfig::default(),
                vec![Box::new(Fixed {
                    name: "tavily",
                    outcome,
                })],
            )?;
            gatherer.gather("q", None, None).await
        };
        let err = gather(rate_limited).await.err();
        assert!(
            err.as_ref().is_some_and(EvidenceError::is_retryable),
            "{err:?}"
        );
        let err = gather(unauthorized).await.err();
        assert!(err.as_ref().is_some_and(|e| !e.is_retryable()), "{err:?}");
        assert!(matches!(
            Gatherer::with_collectors(EvidenceConfig::default(), Vec::new()),
            Err(EvidenceError::NoCollectors)
        ));
    }

    #[test]
    fn an_empty_config_section_gets_every_default_and_old_fields_still_parse() {
        let config: EvidenceConfig = match toml::from_str("") {
            Ok(c) => c,
            Err(err) => panic!("{err}"),
        };
        assert_eq!(config, EvidenceConfig::default());
        let text = r#"
            [planner]
            max_queries = 4
            [collectors.tavily]
            enabled = true
            timeout = "5s"
            [collectors.local]
            dir = "my/corpus"
            [bundle]
            max_items = 8
        "#;
        let config: EvidenceConfig = match toml::from_str(text) {
            Ok(c) => c,
            Err(err) => panic!("{err}"),
        };
        assert_eq!(config.planner.max_queries, 4);
        assert_eq!(config.planner.min_queries, 3);
        assert_eq!(
            config.collectors.tavily.timeout,
            std::time::Duration::from_secs(5)
        );
        assert_eq!(config.collectors.tavily.api_key_env, "TAVILY_API_KEY");
        assert_eq!(config.bundle.max_items, 8);
        assert_eq!(config.bundle.max_snippet_words, 200);
    }
}
