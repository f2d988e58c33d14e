//! Collectors: the places evidence comes from, behind one trait.
//!
//! Each collector turns the plan's queries into ranked [`Hit`]s, exactly as its source returned
//! them (raw URL, raw date, full passage): normalisation, deduplication and trimming happen
//! once, later, in [`crate::evidence::bundle_rules`], so the report can show what every
//! collector found before any of it was dropped. Collectors are independent and combinable: a
//! node may run web search, the local corpus and submitted evidence together, and one failing
//! collector does not stop the others.

pub mod local;
pub mod submitted;
pub mod tavily;

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::bundle::Source;
use crate::evidence::text;

pub use local::{LocalConfig, LocalCorpus};
pub use submitted::{SubmittedConfig, SubmittedEvidence};
pub use tavily::{TavilyCollector, TavilyConfig};
pub use veritas_core::config::evidence::CollectorsConfig;

/// One search result as a collector returned it, before any bundle rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// The query that found it (`None` for evidence that is not searched, like submissions).
    pub query: Option<String>,
    /// 0-based position in that query's result list (or in the submission file).
    pub rank: u32,
    /// The source's own relevance score (BM25 for the local corpus, Tavily's score for the
    /// web); only comparable within one collector, so bundles rank by `rank`, not by this.
    pub score: f64,
    /// The URL as returned.
    pub url: String,
    /// The title as returned.
    pub title: String,
    /// The text as returned (the best-matching passage for the local corpus).
    pub snippet: String,
    /// The publication date as returned, in whatever format the source uses.
    pub published_at: Option<String>,
    /// Which kind of collector produced it.
    pub source: Source,
    /// Who submitted it, for submitted evidence.
    pub submitter: Option<String>,
}

/// What one collector returned for one question: its hits, or why it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectorHits {
    /// The collector's name (`tavily`, `local`, `submitted`).
    pub collector: String,
    /// Every hit, in the order returned (query by query).
    pub hits: Vec<Hit>,
    /// The error that stopped the collector, if any (its hits are then empty).
    pub error: Option<String>,
}

/// What a collector is asked for.
#[derive(Debug, Clone, Copy)]
pub struct SearchRequest<'a> {
    /// The question text.
    pub question: &'a str,
    /// The planned queries.
    pub queries: &'a [String],
    /// The resolution time: sources that can filter by date are asked for nothing later.
    pub resolve_after: Option<DateTime<Utc>>,
}

/// A source of evidence.
#[async_trait]
pub trait Collector: Send + Sync {
    /// Stable name used in reports and logs.
    fn name(&self) -> &str;

    /// Run the request and return the hits, ranked within each query.
    ///
    /// # Errors
    /// [`CollectorError`] when the source cannot be searched.
    async fn collect(&self, request: &SearchRequest<'_>) -> Result<Vec<Hit>, CollectorError>;
}

/// Why a collector failed.
#[derive(Debug, thiserror::Error)]
pub enum CollectorError {
    /// The API key environment variable is unset or empty.
    #[error("environment variable {env} holding the API key is not set")]
    MissingApiKey {
        /// The variable's name.
        env: String,
    },
    /// The service rejected the credentials: retrying will not help.
    #[error("{service} rejected the API key (HTTP {status}); check the key in the environment")]
    Unauthorized {
        /// Which service.
        service: String,
        /// 401 or 403.
        status: u16,
    },
    /// Too many requests; the service may say when to come back.
    #[error("{service} is rate limiting (HTTP 429), retry after {retry_after:?}")]
    RateLimited {
        /// Which service.
        service: String,
        /// The `Retry-After` delay, when given.
        retry_after: Option<Duration>,
    },
    /// Another error status.
    #[error("{service} answered HTTP {status}: {body}")]
    Status {
        /// Which service.
        service: String,
        /// The status code.
        status: u16,
        /// A bounded excerpt of the body.
        body: String,
    },
    /// The request took longer than the configured timeout.
    #[error("{service} did not answer within {after:?}")]
    Timeout {
        /// Which service.
        service: String,
        /// The timeout.
        after: Duration,
    },
    /// Connection or protocol failure.
    #[error("request to {service} failed: {reason}")]
    Transport {
        /// Which service.
        service: String,
        /// What went wrong.
        reason: String,
    },
    /// The answer could not be parsed.
    #[error("{service} answered something unreadable: {reason}")]
    Malformed {
        /// Which service.
        service: String,
        /// The parse error.
        reason: String,
    },
    /// A file or folder could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A submission file is not in the expected format.
    #[error("bad submitted evidence in {path}: {reason}")]
    BadSubmission {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The search index could not be built or queried.
    #[error("local index error: {0}")]
    Index(String),
}

impl CollectorError {
    /// Whether retrying the same request may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            CollectorError::RateLimited { .. }
            | CollectorError::Timeout { .. }
            | CollectorError::Transport { .. } => true,
            CollectorError::Status { status, .. } => *status >= 500,
            CollectorError::MissingApiKey { .. }
            | CollectorError::Unauthorized { .. }
            | CollectorError::Malformed { .. }
            | CollectorError::Io { .. }
            | CollectorError::BadSubmission { .. }
            | CollectorError::Index(_) => false,
        }
    }
}

/// Build the collectors an `[evidence.collectors]` section enables, in a fixed order:
/// submitted, local, tavily (the order breaks ranking ties in the bundle).
///
/// # Errors
/// [`CollectorError`] when an enabled collector cannot start (missing API key, unreadable
/// corpus folder).
pub fn build(config: &CollectorsConfig) -> Result<Vec<Box<dyn Collector>>, CollectorError> {
    let mut collectors: Vec<Box<dyn Collector>> = Vec::new();
    if let Some(file) = config
        .submitted
        .file
        .as_ref()
        .filter(|_| config.submitted.enabled)
    {
        collectors.push(Box::new(SubmittedEvidence::new(file.clone())));
    }
    if config.local.enabled {
        collectors.push(Box::new(LocalCorpus::open(&config.local)?));
    }
    if config.tavily.enabled {
        collectors.push(Box::new(TavilyCollector::from_env(config.tavily.clone())?));
    }
    Ok(collectors)
}

/// A collector's hit with its fields bounded and cleaned (see [`text`]'s docs).
///
/// # Errors
/// [`text::UrlTooLong`]: the hit is not offered (the caller logs or records it).
pub fn clean_hit(hit: Hit) -> Result<Hit, text::UrlTooLong> {
    text::check_url(&hit.url)?;
    Ok(Hit {
        title: text::clean(&hit.title, text::MAX_TITLE_CHARS),
        snippet: text::clean(&hit.snippet, text::MAX_SNIPPET_CHARS),
        published_at: hit
            .published_at
            .as_deref()
            .map(|d| text::clean(d, text::MAX_DATE_CHARS)),
        ..hit
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(url: &str, title: &str, snippet: &str) -> Hit {
        Hit {
            query: None,
            rank: 0,
            score: 0.0,
            url: url.to_owned(),
            title: title.to_owned(),
            snippet: snippet.to_owned(),
            published_at: Some("2026-01-01\u{202E}".to_owned()),
            source: Source::Web,
            submitter: None,
        }
    }

    #[test]
    fn a_hit_is_bounded_and_an_overlong_url_refused() {
        let hostile = format!("{}{}", "\u{202E}\u{0}".repeat(1024), "t".repeat(5_000));
        let cleaned = clean_hit(hit("https://a.example/x", &hostile, &hostile.repeat(10)));
        let cleaned = cleaned.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cleaned.title, "t".repeat(text::MAX_TITLE_CHARS));
        assert_eq!(cleaned.snippet.chars().count(), text::MAX_SNIPPET_CHARS);
        assert!(cleaned.snippet.chars().all(|c| c == 't'));
        assert_eq!(cleaned.published_at.as_deref(), Some("2026-01-01"));
        assert_eq!(cleaned.url, "https://a.example/x");

        let at_limit = format!("https://a.example/{}", "p".repeat(text::MAX_URL_BYTES - 18));
        assert_eq!(at_limit.len(), text::MAX_URL_BYTES);
        assert!(clean_hit(hit(&at_limit, "t", "s")).is_ok());
        let over = format!("{at_limit}p");
        assert_eq!(
            clean_hit(hit(&over, "t", "s")).err(),
            Some(text::UrlTooLong(text::MAX_URL_BYTES + 1))
        );
    }
}
