//! Check an inclusion proof against its root (`veritas verify-proof`): one JSON object
//! `{"root","index","size","leaf","path":[…]}`, as [`super::prove`] writes it.

use anyhow::Context as _;

use super::parse_line;
use super::prove::RootedProof;
use crate::commitment::verify_proof;

/// Parse and check a proof document.
///
/// # Errors
/// The text is not a proof document.
pub fn verify_text(text: &str) -> anyhow::Result<bool> {
    let doc: RootedProof = parse_line(text).context("bad proof")?;
    Ok(verify_proof(&doc.root, &doc.proof))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::lines::prove::prove_text;

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
