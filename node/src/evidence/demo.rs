//! The demo questions shipped with the demo corpus (`corpus/demo/questions.toml`), for
//! `veritas demo` and the end-to-end tests.
//!
//! Each question names the answer the corpus supports and the documents that settle it, so
//! tests can check retrieval separately from the committee's verdict.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The folder of the demo corpus, relative to the repository root.
pub const DEMO_CORPUS_DIR: &str = "corpus/demo";
/// The demo questions file inside [`DEMO_CORPUS_DIR`].
pub const QUESTIONS_FILE: &str = "questions.toml";

/// The answer the corpus supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Expected {
    /// The corpus shows the event happened.
    Yes,
    /// The corpus shows it did not.
    No,
    /// The corpus cannot settle it.
    Null,
}

/// One demo question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoQuestion {
    /// Short stable key.
    pub id: String,
    /// The question text, as it would be asked on-chain.
    pub text: String,
    /// The resolution time: documents published later must not be used.
    pub resolve_after: DateTime<Utc>,
    /// The answer the corpus supports.
    pub expected: Expected,
    /// URLs of the documents that settle (or, for NULL, bear on) the question.
    pub key_urls: Vec<String>,
    /// URLs of documents published after `resolve_after` that the date cutoff must exclude.
    #[serde(default)]
    pub late_urls: Vec<String>,
    /// Why the expected answer follows from the corpus.
    pub rationale: String,
}

#[derive(Debug, Deserialize)]
struct File {
    question: Vec<DemoQuestion>,
}

/// Why the demo questions could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The file cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid.
    #[error("invalid {path}: {reason}")]
    Parse {
        /// The file.
        path: String,
        /// The TOML error.
        reason: String,
    },
}

/// Load the demo questions from `corpus_dir/questions.toml`.
///
/// # Errors
/// [`DemoError`] when the file is missing or malformed.
pub fn load_questions(corpus_dir: &Path) -> Result<Vec<DemoQuestion>, DemoError> {
    load_questions_file(&corpus_dir.join(QUESTIONS_FILE))
}

/// Load demo questions from a file in the `questions.toml` format (`[[question]]` tables).
///
/// # Errors
/// [`DemoError`] when the file is missing or malformed.
pub fn load_questions_file(path: &Path) -> Result<Vec<DemoQuestion>, DemoError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| DemoError::Io {
        path: shown.clone(),
        source,
    })?;
    let file: File = toml::from_str(&text).map_err(|err| DemoError::Parse {
        path: shown,
        reason: err.to_string(),
    })?;
    Ok(file.question)
}
