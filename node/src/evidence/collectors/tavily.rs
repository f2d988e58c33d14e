//! Tavily web search (`POST {endpoint}/search`), the prototype's search engine.
//!
//! The API key comes from an environment variable and lives only in the `Authorization`
//! header: it is redacted from `Debug`, never logged, never put in errors. Retries live here
//! and only here: timeouts, transport errors, 5xx and 429 are retried with exponential
//! backoff (a 429's `Retry-After` wins over the backoff, up to `max_backoff`); 401/403 stop at
//! once with an error that says to check the key.
//!
//! What the API answers is bounded: at most [`MAX_BODY_BYTES`] of body within `timeout` (the
//! whole request, connecting to last byte; see [`crate::http_limits`]), and each result's URL,
//! title and text are cleaned and capped by [`crate::evidence::text`] before they become hits.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use reqwest::header::AUTHORIZATION;
use serde::Deserialize;
use serde_json::json;

use super::{Collector, CollectorError, Hit, SearchRequest, clean_hit};
use crate::bundle::Source;
use crate::evidence::normalize::truncate_chars;
use crate::http_limits::{BodyError, MAX_BODY_BYTES, read_body};
use crate::secret::Secret;
use crate::{
    clock::{self, SharedClock},
    retry::{Backoff, retry_after_at},
};
pub use veritas_core::config::evidence::TavilyConfig;

const SERVICE: &str = "tavily";

/// The Tavily client.
#[derive(Debug, Clone)]
pub struct TavilyCollector {
    config: TavilyConfig,
    api_key: Secret,
    client: reqwest::Client,
    /// What backoff waits and `Retry-After` dates are read on.
    clock: SharedClock,
}

#[derive(Debug, Deserialize)]
struct SearchResponse {
    #[serde(default)]
    results: Vec<SearchResult>,
}

#[derive(Debug, Deserialize)]
struct SearchResult {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    content: String,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    published_date: Option<String>,
}

impl TavilyCollector {
    /// A client whose key is read from the variable named by `config.api_key_env`.
    ///
    /// # Errors
    /// [`CollectorError::MissingApiKey`] when the variable is unset or empty.
    pub fn from_env(config: TavilyConfig) -> Result<Self, CollectorError> {
        let key = std::env::var(&config.api_key_env)
            .ok()
            .filter(|k| !k.trim().is_empty())
            .ok_or_else(|| CollectorError::MissingApiKey {
                env: config.api_key_env.clone(),
            })?;
        Self::new(config, key)
    }

    /// A client with an explicit key.
    ///
    /// # Errors
    /// [`CollectorError::Transport`] when the HTTP client cannot be built (TLS setup).
    pub fn new(config: TavilyConfig, api_key: String) -> Result<Self, CollectorError> {
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(|err| CollectorError::Transport {
                service: SERVICE.to_owned(),
                reason: err.to_string(),
            })?;
        Ok(Self {
            config,
            api_key: Secret::new(api_key),
            client,
            clock: clock::system(),
        })
    }

    /// The same collector waiting its backoffs on `clock` (a manual clock in tests: the waits
    /// are read off the clock instead of slept).
    #[must_use]
    pub fn with_clock(mut self, clock: SharedClock) -> Self {
        self.clock = clock;
        self
    }

    /// One query, with retries.
    ///
    /// # Errors
    /// The last attempt's [`CollectorError`], or the first non-retryable one.
    pub async fn search(
        &self,
        query: &str,
        resolve_after: Option<DateTime<Utc>>,
    ) -> Result<Vec<Hit>, CollectorError> {
        let backoff = Backoff::new(self.config.initial_backoff, self.config.max_backoff);
        let mut attempt = 1u32;
        loop {
            match self.search_once(query, resolve_after).await {
                Ok(hits) => return Ok(hits),
                Err(err) if err.is_retryable() && attempt < self.config.max_attempts => {
                    let retry_after = match &err {
                        CollectorError::RateLimited { retry_after, .. } => *retry_after,
                        _ => None,
                    };
                    let wait = backoff.wait(attempt - 1, retry_after);
                    tracing::warn!(target: "veritas::evidence::tavily", attempt, wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX), error = %err, "search failed, retrying");
                    self.clock.sleep(wait).await;
                    attempt += 1;
                }
                Err(err) => return Err(err),
            }
        }
    }

    async fn search_once(
        &self,
        query: &str,
        resolve_after: Option<DateTime<Utc>>,
    ) -> Result<Vec<Hit>, CollectorError> {
        let url = format!("{}/search", self.config.endpoint.trim_end_matches('/'));
        let body = self.request_body(query, resolve_after);
        let response = self
            .client
            .post(&url)
            .header(AUTHORIZATION, format!("Bearer {}", self.api_key.expose()))
            .json(&body)
            .send()
            .await
            .map_err(|err| self.transport_error(&err))?;

        let status = response.status();
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return Err(CollectorError::Unauthorized {
                service: SERVICE.to_owned(),
                status: status.as_u16(),
            });
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            return Err(CollectorError::RateLimited {
                service: SERVICE.to_owned(),
                retry_after: retry_after_at(response.headers(), self.clock.now_utc()),
            });
        }
        let text = self.read_text(response, status).await?;
        if !status.is_success() {
            // An error page that echoes the request must not carry the key into logs.
            let body = self.api_key.scrub(&text, "<redacted>");
            return Err(CollectorError::Status {
                service: SERVICE.to_owned(),
                status: status.as_u16(),
                body: truncate_chars(&body, 300),
            });
        }
        tracing::trace!(target: "veritas::evidence::tavily", body = %text, "search response");
        let parsed: SearchResponse =
            serde_json::from_str(&text).map_err(|err| CollectorError::Malformed {
                service: SERVICE.to_owned(),
                reason: err.to_string(),
            })?;
        Ok(hits(query, parsed))
    }

    /// The search request: `resolve_after` becomes Tavily's `end_date`.
    fn request_body(&self, query: &str, resolve_after: Option<DateTime<Utc>>) -> serde_json::Value {
        let mut body = json!({
            "query": query,
            "search_depth": self.config.search_depth,
            "topic": self.config.topic,
            "max_results": self.config.max_results,
            "include_answer": false,
            "include_raw_content": false,
            "include_images": false,
        });
        if let Some(at) = resolve_after {
            // Tavily's end_date is inclusive and day-granular; the bundle's cutoff is exact.
            body["end_date"] = json!(at.format("%Y-%m-%d").to_string());
        }
        body
    }

    /// The response's text, at most [`MAX_BODY_BYTES`]. A success whose body cannot be read
    /// is a transport error, one too large malformed; an error status keeps its own error.
    async fn read_text(
        &self,
        response: reqwest::Response,
        status: StatusCode,
    ) -> Result<String, CollectorError> {
        match read_body(response, MAX_BODY_BYTES).await {
            Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
            Err(BodyError::Read(err)) if status.is_success() => Err(self.transport_error(&err)),
            // An error status stays that error, whatever became of its page.
            Err(err) if !status.is_success() => Ok(err.to_string()),
            Err(too_large) => Err(CollectorError::Malformed {
                service: SERVICE.to_owned(),
                reason: too_large.to_string(),
            }),
        }
    }

    fn transport_error(&self, err: &reqwest::Error) -> CollectorError {
        if err.is_timeout() {
            CollectorError::Timeout {
                service: SERVICE.to_owned(),
                after: self.config.timeout,
            }
        } else {
            // reqwest's Display holds the URL (no credentials: the key is only in a header).
            CollectorError::Transport {
                service: SERVICE.to_owned(),
                reason: err.to_string(),
            }
        }
    }
}

#[async_trait]
impl Collector for TavilyCollector {
    fn name(&self) -> &str {
        SERVICE
    }

    async fn collect(&self, request: &SearchRequest<'_>) -> Result<Vec<Hit>, CollectorError> {
        let mut hits = Vec::new();
        for query in request.queries {
            hits.extend(self.search(query, request.resolve_after).await?);
        }
        Ok(hits)
    }
}

/// The response's results as hits in rank order; one that fails the hit checks is left out
/// (and logged).
fn hits(query: &str, parsed: SearchResponse) -> Vec<Hit> {
    parsed
        .results
        .into_iter()
        .enumerate()
        .filter_map(|(rank, result)| {
            let hit = Hit {
                query: Some(query.to_owned()),
                rank: u32::try_from(rank).unwrap_or(u32::MAX),
                score: result.score.unwrap_or(0.0),
                url: result.url,
                title: result.title,
                snippet: result.content,
                published_at: result.published_date,
                source: Source::Web,
                submitter: None,
            };
            clean_hit(hit)
                .inspect_err(|err| tracing::warn!(target: "veritas::evidence::tavily", rank, error = %err, "search result left out"))
                .ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_never_prints() {
        let collector = TavilyCollector::new(TavilyConfig::default(), "tvly-SECRET123".to_owned());
        let shown = format!("{collector:?}");
        assert!(!shown.contains("SECRET123"), "{shown}");
        assert!(shown.contains("redacted"));
    }

    #[test]
    fn a_missing_key_is_a_clear_error() {
        let config = TavilyConfig {
            api_key_env: "VERITAS_TEST_TAVILY_KEY_THAT_IS_NEVER_SET".to_owned(),
            ..TavilyConfig::default()
        };
        let err = TavilyCollector::from_env(config).err();
        assert!(matches!(err, Some(CollectorError::MissingApiKey { .. })));
    }
}
