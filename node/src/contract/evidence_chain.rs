//! The oracle's evidence hash chain (pure: no I/O; the watcher and `veritas audit` share it).
//!
//! `submitEvidence` keeps no item in storage, only one contract-wide head:
//!
//! ```text
//! head_0 = keccak256(abi.encode(chainId, oracle))
//! head_n = keccak256(abi.encode(head_{n-1}, id, submitter, url, title, snippet))
//! ```
//!
//! and emits every field with the new head in `EvidenceSubmitted`. Whoever holds the items
//! of a range of submissions in order can recompute every link, so a node proves its report
//! considered every submitted item, and a missing item breaks the chain at the next link.
//!
//! `string` and `bytes` have the same ABI encoding, so the fields are hashed as the event's
//! raw bytes: a submission whose text is not valid UTF-8 still links.

use alloy::{
    primitives::{Address, B256, Bytes, U256, keccak256},
    rpc::types::Log,
    sol_types::{SolEvent, SolValue},
};

use super::IVeritasOracle;

/// `head_0` of the oracle at `oracle` on chain `chain_id`: the head before any submission.
pub fn head0(chain_id: u64, oracle: Address) -> B256 {
    keccak256((U256::from(chain_id), oracle).abi_encode_params())
}

/// The head after a submission: `keccak256(abi.encode(prev, id, submitter, url, title,
/// snippet))`, exactly as `submitEvidence` computes it.
pub fn link(
    prev: B256,
    id: U256,
    submitter: Address,
    url: &[u8],
    title: &[u8],
    snippet: &[u8],
) -> B256 {
    keccak256(
        (
            prev,
            id,
            submitter,
            Bytes::copy_from_slice(url),
            Bytes::copy_from_slice(title),
            Bytes::copy_from_slice(snippet),
        )
            .abi_encode_params(),
    )
}

/// One `EvidenceSubmitted` log, its text fields kept as the event's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmittedLog {
    /// Question id (topic 1).
    pub question_id: U256,
    /// Submitter (topic 2).
    pub submitter: Address,
    /// The question's item number, from 1.
    pub index: u64,
    /// The contract's evidence head after this item.
    pub evidence_head: B256,
    /// URL bytes.
    pub url: Bytes,
    /// Title bytes.
    pub title: Bytes,
    /// Snippet bytes.
    pub snippet: Bytes,
    /// Block of the log.
    pub block_number: u64,
    /// Hash of that block.
    pub block_hash: B256,
    /// Position of the log in its block.
    pub log_index: u64,
    /// The submitting transaction.
    pub tx_hash: Option<B256>,
}

impl SubmittedLog {
    /// The head this item yields after `prev`.
    pub fn link_from(&self, prev: B256) -> B256 {
        link(
            prev,
            self.question_id,
            self.submitter,
            &self.url,
            &self.title,
            &self.snippet,
        )
    }
}

/// Why an `EvidenceSubmitted` log could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("EvidenceSubmitted log: {0}")]
pub struct DecodeError(pub String);

/// Decode an `EvidenceSubmitted` log without interpreting its strings as UTF-8.
///
/// # Errors
/// [`DecodeError`] for another event, missing topics or block fields, or bad ABI data.
pub fn decode(log: &Log) -> Result<SubmittedLog, DecodeError> {
    let topics = log.topics();
    if topics.first() != Some(&IVeritasOracle::EvidenceSubmitted::SIGNATURE_HASH) {
        return Err(DecodeError("not an EvidenceSubmitted log".into()));
    }
    let (Some(id), Some(submitter)) = (topics.get(1), topics.get(2)) else {
        return Err(DecodeError("missing indexed topics".into()));
    };
    let (index, evidence_head, url, title, snippet) =
        <(U256, B256, Bytes, Bytes, Bytes)>::abi_decode_params(&log.data().data)
            .map_err(|e| DecodeError(e.to_string()))?;
    let (Some(block_number), Some(block_hash)) = (log.block_number, log.block_hash) else {
        return Err(DecodeError("log has no block (pending?)".into()));
    };
    Ok(SubmittedLog {
        question_id: U256::from_be_bytes(id.0),
        submitter: Address::from_word(*submitter),
        index: u64::try_from(index).map_err(|_| DecodeError(format!("index {index}")))?,
        evidence_head,
        url,
        title,
        snippet,
        block_number,
        block_hash,
        log_index: log.log_index.unwrap_or_default(),
        tx_hash: log.transaction_hash,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use alloy::primitives::{address, b256};

    use super::*;

    /// Reference vectors computed independently with Foundry's `cast`:
    /// `cast keccak $(cast abi-encode "f(uint256,address)" 31337 0x5FbDB2315678afecb367f032d93F642f64180aa3)`
    /// and `cast keccak $(cast abi-encode "f(bytes32,uint256,address,string,string,string)" \
    ///   <head0> 1 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC https://a.example/x A "text a")`.
    #[test]
    fn links_match_cast() {
        let oracle = address!("5FbDB2315678afecb367f032d93F642f64180aa3");
        let h0 = head0(31337, oracle);
        assert_eq!(h0, HEAD0);
        let submitter = address!("3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
        let h1 = link(
            h0,
            U256::from(1),
            submitter,
            b"https://a.example/x",
            b"A",
            b"text a",
        );
        assert_eq!(h1, HEAD1);
        // Any field changes the link.
        assert_ne!(
            link(
                h0,
                U256::from(2),
                submitter,
                b"https://a.example/x",
                b"A",
                b"text a"
            ),
            h1
        );
        assert_ne!(
            link(
                h0,
                U256::from(1),
                submitter,
                b"https://a.example/x",
                b"",
                b"Atext a"
            ),
            h1
        );
    }

    const HEAD0: B256 = b256!("4eff3c5b1f35f65d2bda0ccda908c188864ba7e5ec40a4fd1eb5969fe8758cae");
    const HEAD1: B256 = b256!("19946efce6d5b3286531d81375993e2b77a33440baec5967e6104af6db9c9141");
}
