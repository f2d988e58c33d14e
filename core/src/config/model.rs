//! The `[planner_model]` section and a juror's model: an OpenAI-compatible server, or the
//! embedded llama.cpp model file. The clients that use them live in the node's `llm`.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One OpenAI-compatible model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpenAiConfig {
    /// Base URL up to and including `/v1` (e.g. `http://127.0.0.1:11434/v1` for Ollama).
    pub base_url: String,
    /// The model name the server knows.
    pub model: String,
    /// Name of the environment variable holding the API key (unset: no key is sent, as
    /// local servers want).
    pub api_key_env: Option<String>,
    /// Sampling temperature (0.8: jurors should disagree when the evidence is unclear).
    pub temperature: f32,
    /// Upper bound on generated tokens per ballot.
    pub max_tokens: u32,
    /// Timeout of one HTTP attempt, from connecting to the last byte of the answer.
    #[serde(with = "humantime_serde")]
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff; doubles each retry (full jitter: a uniform wait in [0, backoff]).
    #[serde(with = "humantime_serde")]
    pub initial_backoff: Duration,
    /// Cap on one wait, `Retry-After` included.
    #[serde(with = "humantime_serde")]
    pub max_backoff: Duration,
    /// US dollars per million prompt tokens computed by the server.
    pub price_prompt_per_million: f64,
    /// US dollars per million prompt tokens served from the server's prompt cache (hosted APIs
    /// bill them at a discount); unset: the same as `price_prompt_per_million`.
    pub price_cached_input_per_million: Option<f64>,
    /// Ask the server to keep and reuse the prompt prefix: llama.cpp's `cache_prompt` and a
    /// per-question `prompt_cache_key` (OpenAI). Dropped by itself, for good, when a server
    /// refuses either field.
    pub cache_prompt: bool,
    /// US dollars per million completion tokens.
    pub price_completion_per_million: f64,
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        Self {
            base_url: "https://api.openai.com/v1".to_owned(),
            model: "gpt-4o-mini".to_owned(),
            api_key_env: Some("OPENAI_API_KEY".to_owned()),
            temperature: 0.8,
            max_tokens: 600,
            timeout: Duration::from_secs(60),
            max_retries: 4,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            price_prompt_per_million: 0.0,
            price_cached_input_per_million: None,
            price_completion_per_million: 0.0,
            cache_prompt: true,
        }
    }
}

/// How to load and run the embedded model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LocalModelConfig {
    /// The GGUF file.
    pub path: PathBuf,
    /// CPU threads for decoding (default 2: this project's reference machine has 2 cores).
    pub threads: u32,
    /// Context window in tokens (prefix + the longest suffix must fit).
    pub context_tokens: u32,
}

impl Default for LocalModelConfig {
    fn default() -> Self {
        Self {
            path: PathBuf::from("tools/models/gemma-3-270m-q4_k_m.gguf"),
            threads: 2,
            context_tokens: 4096,
        }
    }
}
