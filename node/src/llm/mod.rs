//! Model clients shared by the evidence planner and the jurors.
//!
//! [`ChatModel`] is the one seam both sides use for free-text and JSON answers: the
//! OpenAI-compatible HTTP client implements it, and so can any test double. `jury` and
//! `evidence` depend on this module, never on each other.

pub mod llama;
pub mod openai;

use std::time::Duration;

use async_trait::async_trait;

/// One chat-completion request: a system prompt, a user prompt and the output contract.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The system prompt (persona, rules).
    pub system: String,
    /// The user prompt (question, evidence, task).
    pub user: String,
    /// When set, the answer must be a JSON document matching this JSON Schema.
    pub json_schema: Option<JsonSchema>,
    /// Sampling temperature.
    pub temperature: f32,
    /// Upper bound on generated tokens.
    pub max_tokens: u32,
    /// Sampling seed for servers that honour one (reproducibility is best effort there).
    pub seed: Option<u64>,
    /// Names the prompt prefix this request shares with others (one per question's committee),
    /// for servers that route or cache by a key (OpenAI's `prompt_cache_key`).
    pub cache_key: Option<String>,
}

/// A named JSON Schema for structured output.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonSchema {
    /// Schema name, as OpenAI's `response_format.json_schema.name` wants it (`[a-zA-Z0-9_-]+`).
    pub name: String,
    /// The schema itself.
    pub schema: serde_json::Value,
}

/// What a model answered and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// The message content (JSON text when a schema was requested).
    pub content: String,
    /// The model that answered, as the server names it.
    pub model: String,
    /// Prompt tokens of the request (cached ones included).
    pub prompt_tokens: u64,
    /// Of those, the tokens the server served from its prompt cache instead of computing them
    /// (OpenAI's and llama.cpp's `usage.prompt_tokens_details.cached_tokens`, else llama.cpp's
    /// `timings.cache_n`); 0 when the server does not say.
    pub cached_prompt_tokens: u64,
    /// Completion tokens billed.
    pub completion_tokens: u64,
    /// Cost in US dollars from the configured per-token prices (0 for local models).
    pub cost_usd: f64,
    /// Wall time of the call including retries.
    pub latency: Duration,
}

impl From<&ChatResponse> for veritas_core::ballot::Usage {
    /// The usage a chat response reports.
    fn from(response: &ChatResponse) -> Self {
        Self {
            prompt_tokens: response.prompt_tokens,
            cached_prompt_tokens: response.cached_prompt_tokens,
            completion_tokens: response.completion_tokens,
            cost_usd: response.cost_usd,
        }
    }
}

/// A chat-completion model.
#[async_trait]
pub trait ChatModel: Send + Sync {
    /// A stable label for reports and metrics (for example `openai/gpt-4o-mini`).
    fn label(&self) -> &str;

    /// Send one request.
    ///
    /// # Errors
    /// Transport failures, refusals and malformed answers, as [`LlmError`].
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError>;

    /// Whether the server is asked to keep a request's prompt prefix for the next request
    /// (llama.cpp's `cache_prompt`): then a question's first ballot is worth sending alone, so
    /// the others find its prefix cached instead of each computing it on an empty slot.
    fn caches_prompt_prefix(&self) -> bool {
        false
    }
}

/// Why a model call failed.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The HTTP request could not be made or timed out.
    #[error("request to {endpoint} failed: {reason}")]
    Transport {
        /// The endpoint called (never includes credentials).
        endpoint: String,
        /// What went wrong.
        reason: String,
    },
    /// The server answered with an error status.
    #[error("server answered {status}: {body}")]
    Status {
        /// HTTP status code.
        status: u16,
        /// A bounded excerpt of the body.
        body: String,
    },
    /// The call timed out.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The answer could not be understood.
    #[error("malformed answer: {0}")]
    Malformed(String),
    /// The model is not usable (missing file, missing API key, bad configuration).
    #[error("model unavailable: {0}")]
    Unavailable(String),
}

impl LlmError {
    /// Whether retrying the same call may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::Transport { .. } | LlmError::Timeout(_) => true,
            LlmError::Status { status, .. } => *status == 429 || *status >= 500,
            LlmError::Malformed(_) | LlmError::Unavailable(_) => false,
        }
    }
}
