//! The `[evidence]` section: the search planner, the collectors and the bundle rules. The
//! node's `evidence` runs them.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Evidence settings: planner, collectors and bundle rules. Every field has a default, so the
/// node's config may embed this under `[evidence]` and set only what differs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvidenceConfig {
    /// The search planner.
    pub planner: PlannerConfig,
    /// Which collectors run.
    pub collectors: CollectorsConfig,
    /// Bundle limits.
    pub bundle: BundleRules,
}

/// Planner settings; every field has a default so a config file may omit any of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlannerConfig {
    /// Ask the model for a plan; when false the fallback plan is always used.
    pub enabled: bool,
    /// Fewest queries a model plan may hold.
    pub min_queries: usize,
    /// Most queries a model plan may hold.
    pub max_queries: usize,
    /// Longest query, in characters.
    pub max_query_chars: usize,
    /// Most rubric criteria a model plan may hold.
    pub max_criteria: usize,
    /// Longest criterion description, in characters.
    pub max_criterion_chars: usize,
    /// Sampling temperature of the planning call (low: plans should be repeatable).
    pub temperature: f32,
    /// Token budget of the planning call: room for the largest plan the schema admits (see
    /// the test `the_default_budget_covers_the_largest_plan_the_schema_admits`), or a
    /// grammar-bound answer is cut mid-plan and falls back.
    pub max_tokens: u32,
}

impl Default for PlannerConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            min_queries: 3,
            max_queries: 5,
            max_query_chars: 200,
            max_criteria: 6,
            max_criterion_chars: 300,
            temperature: 0.2,
            max_tokens: 1_500,
        }
    }
}

/// Which collectors run, and their settings. The local corpus is on by default (offline);
/// web search needs an API key and is opt-in; submitted evidence needs a file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CollectorsConfig {
    /// Tavily web search.
    pub tavily: TavilyConfig,
    /// The local document folder.
    pub local: LocalConfig,
    /// Evidence submitted by participants.
    pub submitted: SubmittedConfig,
}

/// Tavily settings; the key itself is not here, only the name of the variable holding it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TavilyConfig {
    /// Run web search (needs the API key in the environment).
    pub enabled: bool,
    /// Base URL; `/search` is appended.
    pub endpoint: String,
    /// Name of the environment variable holding the API key.
    pub api_key_env: String,
    /// Results per query (Tavily allows 0–20).
    pub max_results: u32,
    /// `basic` (1 credit) or `advanced` (2 credits).
    pub search_depth: String,
    /// `general` or `news` (news results carry a publication date).
    pub topic: String,
    /// Timeout of one HTTP request, from connecting to the last byte of the answer.
    #[serde(with = "humantime_serde")]
    pub timeout: Duration,
    /// Attempts per query, the first included.
    pub max_attempts: u32,
    /// Backoff before the second attempt; doubled after each further failure.
    #[serde(with = "humantime_serde")]
    pub initial_backoff: Duration,
    /// Upper bound of any wait between attempts, `Retry-After` included.
    #[serde(with = "humantime_serde")]
    pub max_backoff: Duration,
}

impl Default for TavilyConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            endpoint: "https://api.tavily.com".to_owned(),
            api_key_env: "TAVILY_API_KEY".to_owned(),
            max_results: 5,
            search_depth: "basic".to_owned(),
            topic: "general".to_owned(),
            timeout: Duration::from_secs(20),
            max_attempts: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
        }
    }
}

/// Local corpus settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LocalConfig {
    /// Search the folder.
    pub enabled: bool,
    /// The folder (searched recursively for `.md`, `.markdown` and `.txt` files).
    pub dir: PathBuf,
    /// Documents returned per query.
    pub max_hits_per_query: usize,
}

impl Default for LocalConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            dir: PathBuf::from("corpus/demo"),
            max_hits_per_query: 5,
        }
    }
}

/// Submitted-evidence settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SubmittedConfig {
    /// Read submissions when a file is given.
    pub enabled: bool,
    /// The JSON file of submissions.
    pub file: Option<PathBuf>,
}

impl Default for SubmittedConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            file: None,
        }
    }
}

/// Bundle limits; defaults are the prototype's (6 items, 200-word snippets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BundleRules {
    /// Most items in a bundle.
    pub max_items: usize,
    /// Slots of `max_items` reserved for submitted evidence, and the most submitted items a
    /// bundle holds (its cap; the rest are recorded as dropped).
    pub max_submitted: usize,
    /// Most words in a snippet.
    pub max_snippet_words: usize,
    /// Most characters in a snippet (guards text without word boundaries).
    pub max_snippet_chars: usize,
    /// Most characters in a title.
    pub max_title_chars: usize,
    /// Keep documents with no (readable) publication date.
    pub keep_undated: bool,
    /// The RRF constant k (60 in the original paper: damps the weight of the very top ranks).
    pub rrf_k: u32,
}

impl Default for BundleRules {
    fn default() -> Self {
        Self {
            max_items: 6,
            // Half the default bundle: submissions are heard, and cannot crowd out the search.
            max_submitted: 3,
            max_snippet_words: 200,
            // 200 English words average ~1,200 characters; room for long words, not for blobs.
            max_snippet_chars: 2_000,
            max_title_chars: 200,
            keep_undated: true,
            rrf_k: 60,
        }
    }
}
