//! `veritas verify-proof [FILE|-]`: check an inclusion proof against its root.
//!
//! Reads one JSON object `{"root","index","size","leaf","path":[…]}` (as `veritas prove`
//! prints it), prints `{"valid":true|false}` and exits non-zero unless the path leads from
//! the leaf to the root.
//!
//! ```sh
//! veritas prove bundle.json 1 | veritas verify-proof
//! ```

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;

use super::jsonl::read_input;
pub use veritas_core::lines::verify_proof::verify_text;

/// Arguments of `veritas verify-proof`.
#[derive(Debug, Args)]
pub struct VerifyProofArgs {
    /// JSON file with the proof; `-` or nothing reads stdin.
    pub input: Option<PathBuf>,
}

/// Run `veritas verify-proof`.
///
/// # Errors
/// Unreadable or malformed input, or a proof that does not verify.
pub fn run(args: VerifyProofArgs) -> anyhow::Result<super::output::Output> {
    let bytes = read_input(args.input.as_deref())?;
    let text = std::str::from_utf8(&bytes).context("the proof is not UTF-8")?;
    let valid = verify_text(text)?;
    // JSON with or without `--json`.
    let value = serde_json::json!({ "valid": valid });
    let output = super::output::Output::json(value.clone(), value.to_string());
    if !valid {
        return Err(super::output::FailedWith::error(
            output,
            "the proof does not lead from the leaf to the root",
        ));
    }
    Ok(output)
}
