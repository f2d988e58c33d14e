//! Evidence submitted by participants: read from a JSON file today, from the chain later.
//!
//! The file is a JSON array of items:
//!
//! ```json
//! [{"url": "https://…", "title": "…", "snippet": "…", "published_at": "2026-03-11",
//!   "submitter": "0x…"}]
//! ```
//!
//! Submissions are not searched: every item is a hit, ranked in file order, marked
//! `source: "submitted"` and carrying its submitter. The bundle rules treat them like any
//! other hit (same dedup, trimming, cap and date cutoff), so a submission cannot bypass the
//! temporal filter.

use std::path::PathBuf;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::{Collector, CollectorError, Hit, SearchRequest};
use crate::bundle::Source;
use crate::evidence::normalize::{is_web_url, truncate_chars};
pub use veritas_core::config::evidence::SubmittedConfig;

/// One submission as written in the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// Where the text comes from.
    pub url: String,
    /// Its title.
    #[serde(default)]
    pub title: String,
    /// The submitted excerpt.
    pub snippet: String,
    /// Publication date, when known.
    #[serde(default)]
    pub published_at: Option<String>,
    /// Who submitted it (an address).
    pub submitter: String,
}

/// The submitted-evidence collector.
#[derive(Debug, Clone)]
pub struct SubmittedEvidence {
    origin: Origin,
}

/// Where submissions are read from.
#[derive(Debug, Clone)]
enum Origin {
    /// A JSON file, read on each collection (so late submissions are seen).
    File(PathBuf),
    /// Items already in memory (decoded from chain events by the caller).
    Items(Vec<Submission>),
}

impl SubmittedEvidence {
    /// Read submissions from `file` on each collection (so late submissions are seen).
    pub fn new(file: PathBuf) -> Self {
        Self {
            origin: Origin::File(file),
        }
    }

    /// Use submissions already in memory, for example decoded from chain events.
    pub fn from_items(items: Vec<Submission>) -> Self {
        Self {
            origin: Origin::Items(items),
        }
    }

    /// Read and check the submissions.
    ///
    /// # Errors
    /// [`CollectorError::Io`] when the file is unreadable, [`CollectorError::BadSubmission`]
    /// when it is not an array of submissions, when an item has an empty URL, snippet or
    /// submitter, or a URL that is not `http:` or `https:` (the reason names the item).
    pub async fn read(&self) -> Result<Vec<Submission>, CollectorError> {
        let (items, path) = match &self.origin {
            Origin::Items(items) => (items.clone(), PathBuf::from("<in memory>")),
            Origin::File(file) => {
                let text =
                    tokio::fs::read_to_string(file)
                        .await
                        .map_err(|source| CollectorError::Io {
                            path: file.clone(),
                            source,
                        })?;
                let items: Vec<Submission> =
                    serde_json::from_str(&text).map_err(|err| CollectorError::BadSubmission {
                        path: file.clone(),
                        reason: err.to_string(),
                    })?;
                (items, file.clone())
            }
        };
        for (i, item) in items.iter().enumerate() {
            let empty = [
                ("url", &item.url),
                ("snippet", &item.snippet),
                ("submitter", &item.submitter),
            ]
            .into_iter()
            .find(|(_, v)| v.trim().is_empty());
            if let Some((field, _)) = empty {
                return Err(CollectorError::BadSubmission {
                    path,
                    reason: format!("item {i} has an empty {field}"),
                });
            }
            // A participant cites the web: a `javascript:` or `data:` "source" is a script or
            // an inline page, and `local:` names the node's own corpus.
            if !is_web_url(&item.url) {
                return Err(CollectorError::BadSubmission {
                    path,
                    reason: format!(
                        "item {i} has a url that is not http(s): {:?}",
                        truncate_chars(item.url.trim(), 100)
                    ),
                });
            }
        }
        Ok(items)
    }
}

#[async_trait]
impl Collector for SubmittedEvidence {
    fn name(&self) -> &str {
        "submitted"
    }

    async fn collect(&self, _request: &SearchRequest<'_>) -> Result<Vec<Hit>, CollectorError> {
        Ok(self
            .read()
            .await?
            .into_iter()
            .enumerate()
            .map(|(rank, item)| Hit {
                query: None,
                rank: u32::try_from(rank).unwrap_or(u32::MAX),
                score: 0.0,
                url: item.url,
                title: item.title,
                snippet: item.snippet,
                published_at: item.published_at,
                source: Source::Submitted,
                submitter: Some(item.submitter.trim().to_owned()),
            })
            // Bounded and cleaned like every other collector's hits; an overlong URL is left out.
            .filter_map(|hit| {
                super::clean_hit(hit)
                    .map_err(|e| tracing::warn!(target: "veritas::evidence", error = %e, "submitted item left out"))
                    .ok()
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn collect(json: &str) -> Result<Vec<Hit>, CollectorError> {
        let dir = tempfile::tempdir().map_err(|source| CollectorError::Io {
            path: PathBuf::from("tempdir"),
            source,
        })?;
        let file = dir.path().join("submitted.json");
        std::fs::write(&file, json).map_err(|source| CollectorError::Io {
            path: file.clone(),
            source,
        })?;
        let request = SearchRequest {
            question: "q",
            queries: &[],
            resolve_after: None,
        };
        SubmittedEvidence::new(file).collect(&request).await
    }

    #[tokio::test]
    async fn submissions_become_ranked_hits_with_their_submitter() {
        let hits = collect(
            r#"[{"url": "https://a.example/x", "title": "A", "snippet": "text a", "submitter": "0xabc"},
                {"url": "https://b.example/y", "snippet": "text b", "published_at": "2026-03-01", "submitter": " 0xdef "}]"#,
        )
        .await;
        let hits = match hits {
            Ok(h) => h,
            Err(err) => panic!("{err}"),
        };
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].source, Source::Submitted);
        assert_eq!(hits[0].submitter.as_deref(), Some("0xabc"));
        assert_eq!(hits[1].rank, 1);
        assert_eq!(hits[1].submitter.as_deref(), Some("0xdef"));
        assert_eq!(hits[1].published_at.as_deref(), Some("2026-03-01"));
        assert_eq!(hits[1].query, None);
    }

    #[tokio::test]
    async fn bad_files_are_rejected_with_the_reason() {
        let missing_submitter =
            r#"[{"url": "https://a.example", "snippet": "s", "submitter": ""}]"#;
        let err = collect(missing_submitter)
            .await
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("item 0 has an empty submitter"), "{err}");
        let unknown =
            r#"[{"url": "https://a.example", "snippet": "s", "submitter": "0x1", "score": 1}]"#;
        assert!(matches!(
            collect(unknown).await,
            Err(CollectorError::BadSubmission { .. })
        ));
        assert!(matches!(
            collect("{}").await,
            Err(CollectorError::BadSubmission { .. })
        ));
    }

    #[tokio::test]
    async fn a_url_that_is_not_http_is_rejected_naming_the_item() {
        for url in [
            "javascript:alert(1)",
            "java\tscript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "local:demo/council-minutes-2026-03-10.md",
            "/relative/path",
        ] {
            let json = serde_json::json!([
                {"url": "https://a.example/x", "snippet": "s", "submitter": "0x1"},
                {"url": url, "snippet": "s", "submitter": "0x2"}
            ])
            .to_string();
            let err = collect(&json)
                .await
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                err.contains("item 1 has a url that is not http(s)"),
                "{url}: {err}"
            );
        }
    }
}
