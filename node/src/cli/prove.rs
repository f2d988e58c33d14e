//! `veritas prove FILE INDEX`: the RFC 6962 audit path of one leaf of a bundle.
//!
//! FILE holds one bundle `{"question":…,"evidence":[…]}` (a report file works too); INDEX
//! is the leaf (0 = the question, i = evidence item i). Prints one JSON object
//! `{"root","index","size","leaf","path":[…]}` that `veritas verify-proof` reads.
//!
//! ```sh
//! veritas prove bundle.json 2 > proof.json && veritas verify-proof proof.json
//! ```

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;

use super::jsonl::read_input;
pub use veritas_core::lines::prove::{RootedProof, prove_text};

/// Arguments of `veritas prove`.
#[derive(Debug, Args)]
pub struct ProveArgs {
    /// A JSON file with one bundle (or a report); `-` reads stdin.
    pub file: PathBuf,
    /// Leaf index: 0 is the question, i is evidence item i.
    pub index: usize,
}

/// Run `veritas prove`.
///
/// # Errors
/// Unreadable or bad bundle, or an index outside the tree.
pub fn run(args: ProveArgs) -> anyhow::Result<super::output::Output> {
    let bytes = read_input(Some(&args.file))?;
    let text = std::str::from_utf8(&bytes)
        .with_context(|| format!("{} is not UTF-8", args.file.display()))?;
    let proof = prove_text(text, args.index).with_context(|| {
        format!(
            "cannot prove leaf {} of {}",
            args.index,
            args.file.display()
        )
    })?;
    // JSON with or without `--json`.
    Ok(super::output::Output::json(
        serde_json::to_value(&proof)?,
        serde_json::to_string(&proof)?,
    ))
}
