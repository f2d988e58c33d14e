//! The part of llama.cpp's C API the embedded juror needs, behind a safe interface: load a
//! GGUF model, tokenise, decode on sequence 0, read the last token's logits, forget positions.
//!
//! The node binds `llama-cpp-sys-2` directly, without its `common` feature: llama.cpp's
//! `common` library (argument parsing, chat templates, an HTTP client) is about half of
//! llama.cpp's build, a cold `make demo`'s longest step, and none of it is used here. The
//! `llama-cpp-2` wrapper turns that feature on unconditionally, so this module replaces the
//! dozen calls the juror made through it.
//!
//! Every pointer llama.cpp hands out is checked for null and owned by exactly one value that
//! frees it on drop ([`Model`], [`Context`], [`Batch`]).

use std::ffi::{CStr, CString, c_char, c_void};
use std::path::Path;
use std::ptr::NonNull;
use std::sync::OnceLock;

use llama_cpp_sys_2 as sys;

use super::super::LlmError;

/// Tokens decoded per `llama_decode` call (the context's `n_batch`).
const BATCH: usize = 512;

/// llama.cpp's backend may be initialised once per process; its log lines go to `tracing`
/// (target `llama_cpp`, quiet unless `VERITAS_LOG` asks for it) instead of stderr.
fn init_backend() {
    static INIT: OnceLock<()> = OnceLock::new();
    INIT.get_or_init(|| {
        // SAFETY: `forward_log` is a plain function that lives for the whole program and
        // ignores its user-data pointer; llama_log_set installs it for ggml as well.
        unsafe {
            sys::llama_log_set(Some(forward_log), std::ptr::null_mut());
            sys::llama_backend_init();
        }
    });
}

/// llama.cpp's log callback. It must not unwind into C, and nothing in it can panic.
unsafe extern "C" fn forward_log(level: sys::ggml_log_level, text: *const c_char, _: *mut c_void) {
    if text.is_null() {
        return;
    }
    // SAFETY: llama.cpp passes a NUL-terminated string that lives for the call.
    let text = unsafe { CStr::from_ptr(text) }.to_string_lossy();
    let text = text.trim_end();
    if text.is_empty() {
        return;
    }
    match level {
        sys::GGML_LOG_LEVEL_ERROR => tracing::error!(target: "llama_cpp", "{text}"),
        sys::GGML_LOG_LEVEL_WARN => tracing::warn!(target: "llama_cpp", "{text}"),
        sys::GGML_LOG_LEVEL_INFO => tracing::info!(target: "llama_cpp", "{text}"),
        _ => tracing::debug!(target: "llama_cpp", "{text}"),
    }
}

/// A loaded model and one context on it (the worker thread owns exactly one).
///
/// Fields drop in declaration order: the context before the model it was made from.
pub(super) struct Engine {
    ctx: Context,
    batch: Batch,
    /// Borrowed from the model, which outlives every use of it here.
    vocab: NonNull<sys::llama_vocab>,
    n_vocab: usize,
    /// Held for its drop, after the context's.
    _model: Model,
}

impl Engine {
    /// Load the GGUF file at `path` with a `context_tokens` window and `threads` CPU threads.
    pub(super) fn load(path: &Path, context_tokens: u32, threads: i32) -> Result<Self, LlmError> {
        init_backend();
        let unavailable =
            |what: &str| LlmError::Unavailable(format!("cannot {what} {}", path.display()));
        let c_path = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| unavailable("pass a path with a NUL byte to llama.cpp:"))?;
        // SAFETY: a valid C string and llama.cpp's own default parameters.
        let model = NonNull::new(unsafe {
            sys::llama_model_load_from_file(c_path.as_ptr(), sys::llama_model_default_params())
        })
        .map(Model)
        .ok_or_else(|| unavailable("load"))?;
        // SAFETY: `model` is a live model; the vocabulary lives as long as it.
        let vocab =
            NonNull::new(unsafe { sys::llama_model_get_vocab(model.0.as_ptr()) }.cast_mut())
                .ok_or_else(|| unavailable("read the vocabulary of"))?;
        // SAFETY: `vocab` is live.
        let n_vocab = usize::try_from(unsafe { sys::llama_vocab_n_tokens(vocab.as_ptr()) })
            .map_err(|_| unavailable("read the vocabulary size of"))?;
        // SAFETY: llama.cpp's default context parameters, then plain integers.
        let mut params = unsafe { sys::llama_context_default_params() };
        params.n_ctx = context_tokens;
        params.n_batch = BATCH as u32;
        params.n_ubatch = BATCH as u32;
        params.n_threads = threads;
        params.n_threads_batch = threads;
        // SAFETY: `model` is live and outlives the context (see the field order of `Engine`).
        let ctx = NonNull::new(unsafe { sys::llama_init_from_model(model.0.as_ptr(), params) })
            .map(Context)
            .ok_or_else(|| unavailable("create a llama.cpp context for"))?;
        Ok(Self {
            ctx,
            batch: Batch::new(),
            vocab,
            n_vocab,
            _model: model,
        })
    }

    /// The context window in tokens.
    pub(super) fn n_ctx(&self) -> usize {
        // SAFETY: `ctx` is live.
        unsafe { sys::llama_n_ctx(self.ctx.0.as_ptr()) as usize }
    }

    /// Tokenise `text`; `add_special` adds the model's BOS token where it wants one.
    pub(super) fn tokenize(&self, text: &str, add_special: bool) -> Result<Vec<i32>, LlmError> {
        let len = i32::try_from(text.len())
            .map_err(|_| LlmError::Malformed("a prompt of more than 2 GiB".to_owned()))?;
        let tokenize_into = |tokens: &mut Vec<i32>| {
            let capacity = i32::try_from(tokens.len()).unwrap_or(i32::MAX);
            // SAFETY: `text` is `len` readable bytes, `tokens` has room for `capacity` tokens.
            unsafe {
                sys::llama_tokenize(
                    self.vocab.as_ptr(),
                    text.as_ptr().cast(),
                    len,
                    tokens.as_mut_ptr(),
                    capacity,
                    add_special,
                    false,
                )
            }
        };
        // A token per byte plus BOS and EOS is room enough; a negative count would be the room
        // llama.cpp needs (i32::MIN: more than i32::MAX tokens).
        let mut tokens: Vec<i32> = vec![0; text.len() + 2];
        let mut n = tokenize_into(&mut tokens);
        if n < 0 && n != i32::MIN {
            tokens.resize(n.unsigned_abs() as usize, 0);
            n = tokenize_into(&mut tokens);
        }
        let n = usize::try_from(n).map_err(|_| {
            LlmError::Malformed(format!(
                "llama.cpp could not tokenise a text of {} bytes",
                text.len()
            ))
        })?;
        tokens.truncate(n);
        Ok(tokens)
    }

    /// Decode `tokens` at positions `start..` on sequence 0, in batches of [`BATCH`]; only the
    /// last token's logits are computed.
    pub(super) fn decode(&mut self, tokens: &[i32], start: i32) -> Result<(), LlmError> {
        let failed = |what: String| LlmError::Malformed(format!("llama.cpp decode failed: {what}"));
        let mut pos = start;
        for (c, chunk) in tokens.chunks(BATCH).enumerate() {
            let last_chunk = (c + 1) * BATCH >= tokens.len();
            self.batch.fill(chunk, pos, last_chunk);
            // SAFETY: `ctx` is live; the batch's arrays hold `chunk.len()` valid entries.
            let status = unsafe { sys::llama_decode(self.ctx.0.as_ptr(), self.batch.raw) };
            if status != 0 {
                return Err(failed(format!("status {status}")));
            }
            pos = pos
                .checked_add(chunk.len() as i32)
                .ok_or_else(|| failed("position overflow".to_owned()))?;
        }
        Ok(())
    }

    /// The logits after the last decoded token, one per vocabulary entry.
    pub(super) fn last_logits(&self) -> Result<&[f32], LlmError> {
        // SAFETY: `ctx` is live; -1 is the last output of the last decode.
        let data = unsafe { sys::llama_get_logits_ith(self.ctx.0.as_ptr(), -1) };
        if data.is_null() {
            return Err(LlmError::Malformed(
                "llama.cpp has no logits to read".to_owned(),
            ));
        }
        // SAFETY: llama.cpp's logits row holds `n_vocab` floats and stays valid until the next
        // decode, which needs `&mut self`.
        Ok(unsafe { std::slice::from_raw_parts(data, self.n_vocab) })
    }

    /// Forget every decoded token.
    pub(super) fn clear(&mut self) {
        // SAFETY: `ctx` is live; its memory lives as long as it.
        unsafe { sys::llama_memory_clear(sys::llama_get_memory(self.ctx.0.as_ptr()), true) }
    }

    /// Forget the tokens of sequence 0 at positions `from..`.
    pub(super) fn forget_from(&mut self, from: i32) -> Result<(), LlmError> {
        // SAFETY: `ctx` is live; its memory lives as long as it.
        let removed = unsafe {
            sys::llama_memory_seq_rm(sys::llama_get_memory(self.ctx.0.as_ptr()), 0, from, -1)
        };
        if removed {
            Ok(())
        } else {
            Err(LlmError::Malformed(format!(
                "llama.cpp could not drop the tokens after position {from}"
            )))
        }
    }
}

/// A loaded model, freed on drop.
struct Model(NonNull<sys::llama_model>);

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: owned here alone; every context made from it is dropped first.
        unsafe { sys::llama_model_free(self.0.as_ptr()) }
    }
}

/// A context on a [`Model`], freed on drop.
struct Context(NonNull<sys::llama_context>);

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: owned here alone.
        unsafe { sys::llama_free(self.0.as_ptr()) }
    }
}

/// One reusable `llama_batch` of [`BATCH`] tokens on sequence 0.
struct Batch {
    raw: sys::llama_batch,
}

impl Batch {
    fn new() -> Self {
        // SAFETY: allocates token, pos, n_seq_id, seq_id (one id each) and logits arrays.
        Self {
            raw: unsafe { sys::llama_batch_init(BATCH as i32, 0, 1) },
        }
    }

    /// Put `tokens` (at most [`BATCH`]) at positions `start..`; logits for the last one only
    /// when `last_chunk`.
    fn fill(&mut self, tokens: &[i32], start: i32, last_chunk: bool) {
        let n = tokens.len().min(BATCH);
        for (i, &token) in tokens[..n].iter().enumerate() {
            // SAFETY: i < BATCH, the size every array was allocated with; each seq_id entry
            // points to room for one id.
            unsafe {
                *self.raw.token.add(i) = token;
                *self.raw.pos.add(i) = start + i as i32;
                *self.raw.n_seq_id.add(i) = 1;
                **self.raw.seq_id.add(i) = 0;
                *self.raw.logits.add(i) = i8::from(last_chunk && i + 1 == n);
            }
        }
        self.raw.n_tokens = n as i32;
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        // SAFETY: allocated by llama_batch_init and freed only here.
        unsafe { sys::llama_batch_free(self.raw) }
    }
}
