//! The embedded local model: llama.cpp, through its C API (`llama/engine.rs`), reading any
//! GGUF file.
//!
//! A base model cannot be trusted to write a JSON ballot, so the embedded juror does not chat:
//! it asks for the *next-token distribution* after a prompt and reads the probabilities of a
//! few candidate words (" YES", " NO", " NULL"). One request carries a shared prefix (the
//! evidence) and several suffixes (one per juror persona): the prefix is decoded once and its
//! KV cache is reused for every suffix, which is what makes a committee affordable on a CPU.
//!
//! llama.cpp contexts are neither `Send` nor cheap, so one worker thread owns the model and a
//! context for the process's lifetime; async callers talk to it over a channel. Requests are
//! served one at a time (the model already uses every configured thread).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use super::LlmError;
pub use veritas_core::config::model::LocalModelConfig;

/// How a candidate word maps onto the model's vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CandidateToken {
    /// The candidate text, e.g. `" YES"`.
    pub text: String,
    /// The token ids the text tokenises to; only the first is scored.
    pub tokens: Vec<i32>,
}

impl CandidateToken {
    /// Whether the text is one token (when not, its probability is the first token's).
    pub fn is_single_token(&self) -> bool {
        self.tokens.len() == 1
    }
}

/// The answer for one suffix: candidate probabilities after prefix + suffix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NextTokenScores {
    /// Softmax probability (over the whole vocabulary) of each candidate's first token, in
    /// the order the candidates were given. Not renormalised.
    pub probabilities: Vec<f64>,
    /// Tokens of the prompt that had to be decoded for this suffix alone.
    pub suffix_tokens: u64,
    /// Decoding time of this suffix (the shared prefix is not included).
    pub latency: Duration,
}

/// The answer to one [`LocalModel::score`] request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreResult {
    /// One entry per suffix, in request order.
    pub suffixes: Vec<NextTokenScores>,
    /// Tokens in the shared prefix.
    pub prefix_tokens: u64,
    /// Decoding time of the shared prefix.
    pub prefix_latency: Duration,
    /// How each candidate tokenised.
    pub candidates: Vec<CandidateToken>,
}

/// One [`LocalModel::score`] request for the worker thread.
#[cfg_attr(
    not(feature = "llama"),
    expect(
        dead_code,
        reason = "only the llama.cpp worker reads a job; without it `load` fails before one is sent"
    )
)]
struct Job {
    prefix: String,
    suffixes: Vec<String>,
    candidates: Vec<String>,
    reply: oneshot::Sender<Result<ScoreResult, LlmError>>,
}

/// A handle to the embedded model's worker thread (cheap to share behind an `Arc`).
#[derive(Debug)]
pub struct LocalModel {
    label: String,
    jobs: mpsc::Sender<Job>,
}

impl LocalModel {
    /// Load the GGUF file and start the worker thread.
    ///
    /// # Errors
    /// [`LlmError::Unavailable`] when the file is missing or llama.cpp cannot load it, or when
    /// the binary was built without the `llama` feature.
    pub fn load(config: &LocalModelConfig) -> Result<Self, LlmError> {
        if !config.path.is_file() {
            return Err(LlmError::Unavailable(format!(
                "model file {} not found (run `make setup` to install the default model)",
                config.path.display()
            )));
        }
        let label = format!(
            "local/{}",
            config
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "model".to_owned())
        );
        let (jobs, rx) = mpsc::channel::<Job>();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(), LlmError>>();
        let config = config.clone();
        std::thread::Builder::new()
            .name("veritas-llama".to_owned())
            .spawn(move || worker::run(&config, rx, ready_tx))
            .map_err(|e| LlmError::Unavailable(format!("cannot start the model thread: {e}")))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Self { label, jobs }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(LlmError::Unavailable(
                "the model thread stopped while loading".to_owned(),
            )),
        }
    }

    /// A stable label for reports, `local/<file stem>`.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Decode `prefix` once, then each suffix after it, and return the probabilities of the
    /// candidates' first tokens as the next token after every suffix.
    ///
    /// # Errors
    /// [`LlmError::Malformed`] when the prompt does not fit the context or does not decode;
    /// [`LlmError::Unavailable`] when the worker thread is gone.
    pub async fn score(
        &self,
        prefix: String,
        suffixes: Vec<String>,
        candidates: Vec<String>,
    ) -> Result<ScoreResult, LlmError> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job {
                prefix,
                suffixes,
                candidates,
                reply,
            })
            .map_err(|_| LlmError::Unavailable("the model thread has stopped".to_owned()))?;
        answer
            .await
            .map_err(|_| LlmError::Unavailable("the model thread dropped the request".to_owned()))?
    }
}

/// Resolve a model path given relative to the repository root or the working directory.
pub fn resolve_model_path(path: &Path) -> PathBuf {
    if path.is_absolute() || path.exists() {
        return path.to_path_buf();
    }
    // `cargo run` from node/ or a test binary: try the workspace root too.
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    if workspace.exists() {
        workspace
    } else {
        path.to_path_buf()
    }
}

#[cfg(feature = "llama")]
mod engine;

#[cfg(feature = "llama")]
mod worker {
    use std::time::Instant;

    use super::engine::Engine;
    use super::*;

    pub(super) fn run(
        config: &LocalModelConfig,
        jobs: mpsc::Receiver<Job>,
        ready: mpsc::Sender<Result<(), LlmError>>,
    ) {
        let threads = i32::try_from(config.threads.max(1)).unwrap_or(2);
        let mut engine = match Engine::load(&config.path, config.context_tokens.max(256), threads) {
            Ok(engine) => engine,
            Err(e) => {
                let _ = ready.send(Err(e));
                return;
            }
        };
        let _ = ready.send(Ok(()));
        tracing::info!(target: "veritas::llm", path = %config.path.display(), threads, "embedded model loaded");
        while let Ok(job) = jobs.recv() {
            let result = score(&mut engine, &job);
            let _ = job.reply.send(result);
        }
    }

    fn score(engine: &mut Engine, job: &Job) -> Result<ScoreResult, LlmError> {
        let mut candidates = Vec::with_capacity(job.candidates.len());
        for text in &job.candidates {
            let tokens = engine.tokenize(text, false)?;
            if tokens.is_empty() {
                return Err(LlmError::Malformed(format!(
                    "candidate {text:?} has no token"
                )));
            }
            candidates.push(CandidateToken {
                text: text.clone(),
                tokens,
            });
        }
        let prefix = engine.tokenize(&job.prefix, true)?;
        let n_ctx = engine.n_ctx();
        let started = Instant::now();
        engine.clear();
        if prefix.is_empty() || prefix.len() >= n_ctx {
            return Err(LlmError::Malformed(format!(
                "prompt prefix of {} tokens does not fit the {n_ctx}-token context",
                prefix.len()
            )));
        }
        let prefix_len = i32::try_from(prefix.len()).unwrap_or(i32::MAX);
        engine.decode(&prefix, 0)?;
        let prefix_latency = started.elapsed();
        let mut suffixes = Vec::with_capacity(job.suffixes.len());
        for suffix in &job.suffixes {
            let t0 = Instant::now();
            let tokens = engine.tokenize(suffix, false)?;
            if tokens.is_empty() || prefix.len() + tokens.len() >= n_ctx {
                return Err(LlmError::Malformed(format!(
                    "suffix of {} tokens does not fit after a {}-token prefix in {n_ctx}",
                    tokens.len(),
                    prefix.len()
                )));
            }
            engine.decode(&tokens, prefix_len)?;
            let logits = engine.last_logits()?;
            let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let denom: f64 = logits.iter().map(|&l| f64::from(l - max).exp()).sum();
            let probabilities = candidates
                .iter()
                .map(|c| {
                    usize::try_from(c.tokens[0])
                        .ok()
                        .and_then(|i| logits.get(i))
                        .map(|&l| f64::from(l - max).exp() / denom)
                        .unwrap_or(0.0)
                })
                .collect();
            // Drop the suffix from the cache so the next persona starts right after the prefix.
            engine.forget_from(prefix_len)?;
            suffixes.push(NextTokenScores {
                probabilities,
                suffix_tokens: tokens.len() as u64,
                latency: t0.elapsed(),
            });
        }
        Ok(ScoreResult {
            suffixes,
            prefix_tokens: prefix.len() as u64,
            prefix_latency,
            candidates,
        })
    }
}

#[cfg(not(feature = "llama"))]
mod worker {
    use super::*;

    pub(super) fn run(
        _config: &LocalModelConfig,
        _jobs: mpsc::Receiver<Job>,
        ready: mpsc::Sender<Result<(), LlmError>>,
    ) {
        let _ = ready.send(Err(LlmError::Unavailable(
            "this binary was built without the `llama` feature (embedded model)".to_owned(),
        )));
    }
}
