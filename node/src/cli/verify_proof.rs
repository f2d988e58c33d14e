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

use super::jsonl::{parse_line, read_input};
use super::prove::RootedProof;
use crate::commitment::verify_proof;

/// Arguments of `veritas verify-proof`.
#[derive(Debug, Args)]
pub struct VerifyProofArgs {
    /// JSON file with the proof; `-` or nothing reads stdin.
    pub input: Option<PathBuf>,
}

/// Parse and check a proof document.
///
/// # Errors
/// The text is not a proof document.
pub fn verify_text(text: &str) -> anyhow::Result<bool> {
    let doc: RootedProof = parse_line(text).context("bad proof")?;
    Ok(verify_proof(&doc.root, &doc.proof))
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::cli::prove::prove_text;

    #[test]
    fn prove_then_verify_and_tamper() {
        let bundle = r#"{"question":"Q?","evidence":[{"id":1},{"id":2},{"id":3}]}"#;
        for index in 0..4 {
            let proof = prove_text(bundle, index).unwrap();
            let text = serde_json::to_string(&proof).unwrap();
            assert!(
                text.starts_with(r#"{"root":"0x"#) && text.contains(r#""index":"#),
                "{text}"
            );
            assert!(verify_text(&text).unwrap());
            let mut bad = proof.clone();
            bad.proof.leaf[0] ^= 1;
            assert!(!verify_text(&serde_json::to_string(&bad).unwrap()).unwrap());
        }
        assert!(prove_text(bundle, 4).is_err());
        assert!(verify_text(r#"{"root":"0x00"}"#).is_err());
    }
}
