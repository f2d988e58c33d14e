//! An OpenAI-compatible chat-completions client (OpenAI, OpenRouter, Together, vLLM, Ollama,
//! llama.cpp's server...).
//!
//! Structured output is negotiated once per server and remembered for the client's life:
//! `response_format: {type: "json_schema"}` first; a server that refuses it — any 4xx or 5xx
//! whose body names `response_format` or `json_schema` (llama.cpp's server answers 400,
//! llama-cpp-python's 500 with a validation error) — is asked again in JSON mode
//! (`{type: "json_object"}`), and one that refuses that too, with no `response_format` at all
//! (the prompt still asks for the JSON object). The juror validates every answer against the
//! ballot schema whatever the mode, so a weaker mode costs failed ballots, never bad ones. Retrying lives here and only here: transport errors,
//! timeouts, 429 and 5xx are retried with exponential backoff and full jitter, and a
//! `Retry-After` header is honoured when it asks for longer (never beyond `max_backoff`).
//! Answers are bounded: at most [`MAX_BODY_BYTES`] of body (an answer over it fails that
//! call, see [`crate::http_limits`]) within `timeout`, which covers the whole attempt from
//! connecting to the body's last byte. The API key comes from
//! an environment variable named in the configuration and never appears in logs, errors or
//! `Debug` output.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Value, json};

use super::{ChatModel, ChatRequest, ChatResponse, LlmError};
use crate::{
    clock::{self, SharedClock},
    http_limits::{BodyError, MAX_BODY_BYTES, read_body},
    retry::{Backoff, retry_after_at},
    secret::Secret,
};
pub use veritas_core::config::model::OpenAiConfig;

/// Longest server error body kept in an error, in characters.
const BODY_EXCERPT: usize = 300;

/// Longest model name kept from an answer, in characters (it is written into every ballot).
const MODEL_NAME_CHARS: usize = 200;

/// The client.
#[derive(Debug)]
pub struct OpenAiChat {
    config: OpenAiConfig,
    label: String,
    endpoint: String,
    key: Option<Secret>,
    http: reqwest::Client,
    /// The [`OutputMode`] this server accepted (as its `u8`), downgraded on refusals.
    output_mode: AtomicU8,
    /// Whether the cache fields are still sent (cleared when the server refuses them).
    cache_fields: AtomicBool,
    /// What backoff waits and `Retry-After` dates are read on.
    clock: SharedClock,
}

/// The request fields that ask a server to cache the prompt prefix.
const CACHE_FIELDS: [&str; 2] = ["cache_prompt", "prompt_cache_key"];

/// Whether `e` is the server refusing the cache fields: an error status whose body names one.
fn refuses_cache_fields(e: &LlmError) -> bool {
    matches!(e, LlmError::Status { status, body } if *status >= 400
        && CACHE_FIELDS.iter().any(|f| body.contains(f)))
}

/// How structured output is asked for, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// `response_format: {type: "json_schema", strict: true}`.
    JsonSchema = 0,
    /// `response_format: {type: "json_object"}`.
    JsonObject = 1,
    /// No `response_format`: the prompt alone asks for JSON.
    Plain = 2,
}

impl OutputMode {
    fn from_u8(v: u8) -> Self {
        match v {
            0 => OutputMode::JsonSchema,
            1 => OutputMode::JsonObject,
            _ => OutputMode::Plain,
        }
    }

    /// The next weaker mode, if any.
    fn weaker(self) -> Option<Self> {
        match self {
            OutputMode::JsonSchema => Some(OutputMode::JsonObject),
            OutputMode::JsonObject => Some(OutputMode::Plain),
            OutputMode::Plain => None,
        }
    }

    /// Whether `e` is the server refusing this mode: an error status whose body names what
    /// the mode sent. Servers disagree on the status (400, 422, 500), not on naming the field.
    fn refused_by(self, e: &LlmError) -> bool {
        let LlmError::Status { status, body } = e else {
            return false;
        };
        let names = |word: &str| body.contains(word);
        *status >= 400
            && match self {
                OutputMode::JsonSchema => names("response_format") || names("json_schema"),
                OutputMode::JsonObject => names("response_format") || names("json_object"),
                OutputMode::Plain => false,
            }
    }
}

impl OpenAiChat {
    /// A client for `config`, reading the API key from the environment now.
    ///
    /// # Errors
    /// [`LlmError::Unavailable`] when the named key variable is unset or the HTTP client
    /// cannot be built.
    pub fn new(config: OpenAiConfig) -> Result<Self, LlmError> {
        let key = match config.api_key_env.as_deref().filter(|v| !v.is_empty()) {
            Some(var) => Some(std::env::var(var).map_err(|_| {
                LlmError::Unavailable(format!("environment variable {var} (API key) is not set"))
            })?),
            None => None,
        };
        Self::with_api_key(config, key)
    }

    /// A client with an explicit key (`api_key_env` is ignored); for embedding and tests.
    ///
    /// # Errors
    /// [`LlmError::Unavailable`] when the HTTP client cannot be built.
    pub fn with_api_key(config: OpenAiConfig, key: Option<String>) -> Result<Self, LlmError> {
        let key = key.map(Secret::new);
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(|e| LlmError::Unavailable(format!("http client: {e}")))?;
        let endpoint = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
        let label = format!("openai/{}", config.model);
        Ok(Self {
            config,
            label,
            endpoint,
            key,
            http,
            output_mode: AtomicU8::new(OutputMode::JsonSchema as u8),
            cache_fields: AtomicBool::new(true),
            clock: clock::system(),
        })
    }

    /// The same client waiting its backoffs on `clock` (a manual clock in tests: the waits are
    /// read off the clock instead of slept).
    #[must_use]
    pub fn with_clock(mut self, clock: SharedClock) -> Self {
        self.clock = clock;
        self
    }

    /// The configuration (temperature and token limit feed the juror).
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The structured-output mode this server has accepted so far.
    pub fn output_mode(&self) -> OutputMode {
        OutputMode::from_u8(self.output_mode.load(Ordering::Relaxed))
    }

    fn body(&self, request: &ChatRequest, mode: OutputMode) -> Value {
        let mut body = json!({
            "model": self.config.model,
            "messages": [
                { "role": "system", "content": request.system },
                { "role": "user", "content": request.user }
            ],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        });
        if let Some(seed) = request.seed {
            body["seed"] = json!(seed);
        }
        if self.config.cache_prompt && self.cache_fields.load(Ordering::Relaxed) {
            body["cache_prompt"] = json!(true);
            if let Some(key) = &request.cache_key {
                body["prompt_cache_key"] = json!(key);
            }
        }
        if let Some(schema) = &request.json_schema {
            match mode {
                OutputMode::JsonSchema => {
                    body["response_format"] = json!({ "type": "json_schema", "json_schema": {
                        "name": schema.name, "schema": schema.schema, "strict": true } });
                }
                OutputMode::JsonObject => {
                    body["response_format"] = json!({ "type": "json_object" });
                }
                OutputMode::Plain => {}
            }
        }
        body
    }

    /// One HTTP attempt. `Err((error, retry_after))`.
    async fn attempt(&self, body: &Value) -> Result<Value, (LlmError, Option<Duration>)> {
        let mut req = self.http.post(&self.endpoint).json(body);
        if let Some(key) = &self.key {
            req = req.bearer_auth(key.expose());
        }
        let response = req.send().await.map_err(|e| (self.transport(e), None))?;
        let status = response.status();
        let retry_after = retry_after_at(response.headers(), self.clock.now_utc());
        let text = match read_body(response, MAX_BODY_BYTES).await {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(BodyError::Read(e)) => return Err((self.transport(e), None)),
            // An answer this large is not a ballot; sampling again would not shrink it.
            Err(too_large) if status.is_success() => {
                return Err((LlmError::Malformed(too_large.to_string()), None));
            }
            // An error status stays that error (retried if it is 429 or 5xx), its size as body.
            Err(too_large) => too_large.to_string(),
        };
        if !status.is_success() {
            let body: String = self.scrub(&text).chars().take(BODY_EXCERPT).collect();
            return Err((
                LlmError::Status {
                    status: status.as_u16(),
                    body,
                },
                retry_after,
            ));
        }
        serde_json::from_str(&text).map_err(|e| {
            (
                LlmError::Malformed(format!("response is not JSON: {e}")),
                None,
            )
        })
    }

    /// Server text with our API key masked. A server or proxy that echoes the request (its
    /// `Authorization` header) in an error or an answer must not carry the key into errors,
    /// logs or ballots; masking before truncation also hides a cut-off prefix of it.
    fn scrub(&self, text: &str) -> String {
        match &self.key {
            Some(key) => key.scrub(text, "***"),
            None => text.to_owned(),
        }
    }

    fn transport(&self, e: reqwest::Error) -> LlmError {
        if e.is_timeout() {
            LlmError::Timeout(self.config.timeout)
        } else {
            // `without_url` keeps query strings out of errors; the endpoint is logged plainly.
            LlmError::Transport {
                endpoint: self.endpoint.clone(),
                reason: e.without_url().to_string(),
            }
        }
    }

    fn backoff(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        Backoff::new(self.config.initial_backoff, self.config.max_backoff).wait(retry, retry_after)
    }

    fn parse(&self, value: &Value, latency: Duration) -> Result<ChatResponse, LlmError> {
        let message = &value["choices"][0]["message"];
        let content = message["content"].as_str().ok_or_else(|| {
            let refusal = message["refusal"].as_str().unwrap_or("no content");
            LlmError::Malformed(format!("answer without content: {}", self.scrub(refusal)))
        })?;
        let prompt_tokens = value["usage"]["prompt_tokens"].as_u64().unwrap_or(0);
        let completion_tokens = value["usage"]["completion_tokens"].as_u64().unwrap_or(0);
        // A server's claim is bounded by the prompt it was sent: a larger figure is not a count.
        let cached_prompt_tokens = value["usage"]["prompt_tokens_details"]["cached_tokens"]
            .as_u64()
            .or_else(|| value["timings"]["cache_n"].as_u64())
            .unwrap_or(0)
            .min(prompt_tokens);
        let cost_usd = self.cost(prompt_tokens, cached_prompt_tokens, completion_tokens);
        Ok(ChatResponse {
            content: self.scrub(content),
            model: self
                .scrub(value["model"].as_str().unwrap_or(&self.config.model))
                .chars()
                .take(MODEL_NAME_CHARS)
                .collect(),
            prompt_tokens,
            cached_prompt_tokens,
            completion_tokens,
            cost_usd,
            latency,
        })
    }

    /// US dollars for one call: computed and cached prompt tokens and completion tokens, each
    /// at its own price.
    fn cost(&self, prompt: u64, cached: u64, completion: u64) -> f64 {
        let c = &self.config;
        let cached_price = c
            .price_cached_input_per_million
            .unwrap_or(c.price_prompt_per_million);
        (prompt - cached.min(prompt)) as f64 * c.price_prompt_per_million / 1e6
            + cached as f64 * cached_price / 1e6
            + completion as f64 * c.price_completion_per_million / 1e6
    }
}

#[async_trait]
impl ChatModel for OpenAiChat {
    fn label(&self) -> &str {
        &self.label
    }

    fn caches_prompt_prefix(&self) -> bool {
        self.config.cache_prompt && self.cache_fields.load(Ordering::Relaxed)
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let mut retry = 0u32;
        loop {
            let mode = self.output_mode();
            let body = self.body(request, mode);
            match self.attempt(&body).await {
                Ok(value) => return self.parse(&value, started.elapsed()),
                Err((e, _))
                    if request.json_schema.is_some()
                        && mode.refused_by(&e)
                        && mode.weaker().is_some() =>
                {
                    let next = mode.weaker().unwrap_or(OutputMode::Plain);
                    tracing::info!(target: "veritas::llm", model = %self.label, error = %e,
                        from = ?mode, to = ?next, "server refuses this structured-output mode; asking with a weaker one");
                    // Only ever downgrade: a concurrent request may have gone further already.
                    self.output_mode.fetch_max(next as u8, Ordering::Relaxed);
                }
                Err((e, _))
                    if refuses_cache_fields(&e)
                        && self.cache_fields.swap(false, Ordering::Relaxed) =>
                {
                    tracing::info!(target: "veritas::llm", model = %self.label, error = %e,
                        "server refuses the prompt-cache fields; asking without them");
                }
                Err((e, retry_after)) if e.is_retryable() && retry < self.config.max_retries => {
                    let wait = self.backoff(retry, retry_after);
                    tracing::warn!(target: "veritas::llm", model = %self.label, error = %e, retry = retry + 1,
                        wait_ms = wait.as_millis() as u64, "retrying chat completion");
                    self.clock.sleep(wait).await;
                    retry += 1;
                }
                Err((e, _)) => return Err(e),
            }
        }
    }
}
