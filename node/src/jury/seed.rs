//! Where the committee's randomness comes from.
//!
//! On-chain, the seed is fixed by the chain before the node gathers any evidence:
//!
//! ```text
//! seed = sha256(abi.encode(uint256 chainId, address oracle, uint256 questionId,
//!                          address operator, bytes32 questionBlockHash))
//! ```
//!
//! `questionBlockHash` is the hash of the block that holds the `QuestionAsked` log. Nothing the
//! operator controls after the question is asked enters it: reordering, retouching or padding
//! the evidence changes the Merkle root but not the draw, so an operator cannot grind evidence
//! until the committee suits it. The operator's address is in it so every node of a quorum
//! draws its own committee. An auditor recomputes it with
//! `cast abi-encode "f(uint256,address,uint256,address,bytes32)" … | xxd -r -p | sha256sum`.
//!
//! Off-chain (`veritas resolve`, `eval`, `demo` without a chain) there is no chain to fix it,
//! and the seed stays the evidence commitment's: sha256(root ‖ question id), reproducible
//! from the report alone. Nothing is settled off-chain, so there is nothing to grind for.

use alloy::{
    primitives::{Address, B256, U256},
    sol_types::SolValue,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::sampler::committee_seed;
use crate::commitment::root::Root;

/// The chain-fixed inputs of an on-chain committee seed; the report records them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedInputs {
    /// Chain id of the oracle.
    pub chain_id: u64,
    /// The oracle contract.
    pub oracle: Address,
    /// The question id (decimal in JSON).
    #[serde(with = "crate::decimal")]
    pub question_id: U256,
    /// The reporting operator.
    pub operator: Address,
    /// Hash of the block that holds the question's `QuestionAsked` log.
    pub block_hash: B256,
}

impl SeedInputs {
    /// sha256 of the ABI encoding of the five inputs (see the module docs).
    pub fn seed(&self) -> [u8; 32] {
        let encoded = (
            U256::from(self.chain_id),
            self.oracle,
            self.question_id,
            self.operator,
            self.block_hash,
        )
            .abi_encode_params();
        Sha256::digest(encoded).into()
    }
}

/// How a committee is seeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedSource {
    /// On-chain: from [`SeedInputs`], before any evidence exists.
    Chain(SeedInputs),
    /// Off-chain: from the evidence root and this id (zero when there is none).
    Offline {
        /// The question id the report names, or zero.
        question_id: U256,
    },
}

impl SeedSource {
    /// The 32-byte ChaCha20 seed, given the bundle's root (used off-chain only).
    pub fn seed(&self, root: &Root) -> [u8; 32] {
        match self {
            SeedSource::Chain(inputs) => inputs.seed(),
            SeedSource::Offline { question_id } => {
                committee_seed(root, &question_id.to_be_bytes::<32>())
            }
        }
    }

    /// The chain inputs, when there are any (the report's `committee.seed_inputs`).
    pub fn inputs(&self) -> Option<SeedInputs> {
        match self {
            SeedSource::Chain(inputs) => Some(*inputs),
            SeedSource::Offline { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;

    fn inputs() -> SeedInputs {
        SeedInputs {
            chain_id: 31337,
            oracle: Address::repeat_byte(0x11),
            question_id: U256::from(7),
            operator: Address::repeat_byte(0x22),
            block_hash: B256::repeat_byte(0x33),
        }
    }

    #[test]
    fn the_encoding_is_five_abi_words() {
        // The auditor's recipe: cast abi-encode "f(uint256,address,uint256,address,bytes32)"
        // 31337 0x11…11 7 0x22…22 0x33…33, then sha256 of those 160 bytes.
        let mut words = Vec::new();
        words.extend_from_slice(&U256::from(31337).to_be_bytes::<32>());
        words.extend_from_slice(&[0u8; 12]);
        words.extend_from_slice(&[0x11; 20]);
        words.extend_from_slice(&U256::from(7).to_be_bytes::<32>());
        words.extend_from_slice(&[0u8; 12]);
        words.extend_from_slice(&[0x22; 20]);
        words.extend_from_slice(&[0x33; 32]);
        let expected: [u8; 32] = Sha256::digest(&words).into();
        assert_eq!(inputs().seed(), expected);
    }

    #[test]
    fn the_chain_seed_ignores_the_evidence() {
        let source = SeedSource::Chain(inputs());
        let (one, two) = (Root::from([1; 32]), Root::from([2; 32]));
        assert_eq!(source.seed(&one), source.seed(&two));
        let offline = SeedSource::Offline {
            question_id: U256::from(7),
        };
        assert_ne!(offline.seed(&one), offline.seed(&two));
    }

    #[test]
    fn inputs_round_trip_through_json() {
        let json = serde_json::to_value(inputs()).unwrap();
        assert_eq!(json["question_id"], "7");
        let back: SeedInputs = serde_json::from_value(json).unwrap();
        assert_eq!(back, inputs());
    }

    proptest! {
        #[test]
        fn every_input_moves_the_seed(which in 0usize..5, byte in 1u8..=255) {
            let base = inputs();
            let mut other = base;
            match which {
                0 => other.chain_id ^= u64::from(byte),
                1 => other.oracle = Address::repeat_byte(0x11 ^ byte),
                2 => other.question_id ^= U256::from(byte),
                3 => other.operator = Address::repeat_byte(0x22 ^ byte),
                _ => other.block_hash = B256::repeat_byte(0x33 ^ byte),
            }
            prop_assert_ne!(base.seed(), other.seed());
        }
    }
}
