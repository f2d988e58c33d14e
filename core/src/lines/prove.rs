//! The RFC 6962 audit path of one leaf of a bundle (`veritas prove`): one JSON object
//! `{"root","index","size","leaf","path":[…]}` that [`super::verify_proof`] reads.

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use super::commit::BundleInput;
use super::parse_line;
use crate::commitment::{InclusionProof, prove, root::Root};

/// A proof together with the root it leads to: what `prove` prints and `verify-proof` reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootedProof {
    /// The Merkle root.
    pub root: Root,
    /// The audit path.
    #[serde(flatten)]
    pub proof: InclusionProof,
}

/// Build the proof of leaf `index` of the bundle in `text`.
///
/// # Errors
/// A bad bundle or an index outside the tree.
pub fn prove_text(text: &str, index: usize) -> anyhow::Result<RootedProof> {
    let bundle: BundleInput = parse_line(text).context("bad bundle")?;
    let c = bundle.commit().context("cannot commit the bundle")?;
    let proof = prove(&c.leaves, index)?;
    Ok(RootedProof {
        root: c.root,
        proof,
    })
}
