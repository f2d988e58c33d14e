//! The RFC 6962 Merkle Tree Hash over SHA-256, built with rs_merkle, and its audit paths.
//!
//! RFC 6962 §2.1: leaf hash = SHA256(0x00 ‖ data), node hash = SHA256(0x01 ‖ left ‖ right),
//! and a tree of n leaves splits at the largest power of two below n. rs_merkle builds the
//! tree bottom-up, pairing neighbours and promoting an odd last node unchanged; with the
//! [`Rfc6962`] hasher below that is the same tree for every n (the tests compare both against
//! a direct recursive implementation of the RFC for n = 1..=70 and random sizes, roots and
//! audit paths alike). The domain-separation prefixes make a leaf impossible to pass off as
//! an inner node (second-preimage resistance).

use rs_merkle::{Hasher, MerkleProof, MerkleTree};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{CommitmentError, root::Root};

/// A 32-byte SHA-256 digest.
pub type Hash = [u8; 32];

/// rs_merkle hasher for RFC 6962 inner nodes. Leaves are hashed by [`leaf_hash`] before
/// they enter rs_merkle, which only ever combines nodes.
#[derive(Debug, Clone, Copy)]
pub struct Rfc6962;

impl Hasher for Rfc6962 {
    type Hash = Hash;

    /// Plain SHA-256 (rs_merkle never calls it on its own once `concat_and_hash` is
    /// overridden; leaves are hashed with the 0x00 prefix by [`leaf_hash`]).
    fn hash(data: &[u8]) -> Hash {
        Sha256::digest(data).into()
    }

    /// SHA256(0x01 ‖ left ‖ right); a node without a right sibling is carried up unchanged
    /// (what RFC 6962's split at the largest power of two amounts to).
    fn concat_and_hash(left: &Hash, right: Option<&Hash>) -> Hash {
        match right {
            Some(right) => node_hash(left, right),
            None => *left,
        }
    }
}

/// RFC 6962 leaf hash: SHA256(0x00 ‖ data).
pub fn leaf_hash(data: &[u8]) -> Hash {
    Sha256::new()
        .chain_update([0x00])
        .chain_update(data)
        .finalize()
        .into()
}

/// RFC 6962 inner node hash: SHA256(0x01 ‖ left ‖ right).
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    Sha256::new()
        .chain_update([0x01])
        .chain_update(left)
        .chain_update(right)
        .finalize()
        .into()
}

/// The Merkle Tree Hash of leaf hashes; one leaf's root is that leaf's hash.
///
/// # Errors
/// [`CommitmentError::Empty`] for no leaves (a commitment always has the question).
pub fn merkle_root(leaves: &[Hash]) -> Result<Root, CommitmentError> {
    MerkleTree::<Rfc6962>::from_leaves(leaves)
        .root()
        .map(Root::from)
        .ok_or(CommitmentError::Empty)
}

/// An RFC 6962 audit path: the sibling hashes from the leaf up to the root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InclusionProof {
    /// 0-based leaf index (0 is the question, i is evidence item i).
    pub index: usize,
    /// Number of leaves in the tree.
    pub size: usize,
    /// The leaf hash being proven.
    #[serde(with = "hex32")]
    pub leaf: Hash,
    /// Sibling hashes, leaf level first (RFC 6962 §2.1.1 PATH order).
    #[serde(with = "hex32_vec")]
    pub path: Vec<Hash>,
}

/// The audit path of leaf `index`.
///
/// # Errors
/// [`CommitmentError::LeafOutOfRange`] when `index` ≥ `leaves.len()`.
pub fn prove(leaves: &[Hash], index: usize) -> Result<InclusionProof, CommitmentError> {
    let Some(leaf) = leaves.get(index) else {
        return Err(CommitmentError::LeafOutOfRange {
            index,
            size: leaves.len(),
        });
    };
    let tree = MerkleTree::<Rfc6962>::from_leaves(leaves);
    let path = tree.proof(&[index]).proof_hashes().to_vec();
    Ok(InclusionProof {
        index,
        size: leaves.len(),
        leaf: *leaf,
        path,
    })
}

/// Does `proof` lead from its leaf to `root`? False for an index outside the tree or a path
/// of the wrong length (rs_merkle would ignore surplus hashes; an audit path has exactly
/// one hash per level of the leaf's RFC 6962 subtree split).
pub fn verify_proof(root: &Root, proof: &InclusionProof) -> bool {
    if proof.index >= proof.size || proof.path.len() != audit_path_len(proof.index, proof.size) {
        return false;
    }
    MerkleProof::<Rfc6962>::new(proof.path.clone()).verify(
        *root.as_bytes(),
        &[proof.index],
        &[proof.leaf],
        proof.size,
    )
}

/// Length of the audit path of leaf `index` in a tree of `size` leaves: the number of
/// RFC 6962 splits on the way down to that leaf.
pub fn audit_path_len(mut index: usize, mut size: usize) -> usize {
    let mut len = 0;
    while size > 1 {
        let k = largest_power_of_two_below(size);
        if index < k {
            size = k;
        } else {
            index -= k;
            size -= k;
        }
        len += 1;
    }
    len
}

/// The largest power of two strictly below `n` (n ≥ 2).
fn largest_power_of_two_below(n: usize) -> usize {
    1 << (usize::BITS - 1 - (n - 1).leading_zeros())
}

/// Hex strings `0x…` (lower case on output; either case and an optional `0x` on input).
fn to_hex(h: &Hash) -> String {
    format!("0x{}", hex::encode(h))
}

fn from_hex<E: serde::de::Error>(s: &str) -> Result<Hash, E> {
    let digits = s.strip_prefix("0x").unwrap_or(s);
    let mut out = [0u8; 32];
    hex::decode_to_slice(digits, &mut out)
        .map_err(|e| E::custom(format!("bad 32-byte hex {s:?}: {e}")))?;
    Ok(out)
}

/// serde for one hash as `0x` hex.
pub mod hex32 {
    use super::Hash;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialise as `0x` + 64 lower-case hex digits.
    pub fn serialize<S: Serializer>(h: &Hash, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::to_hex(h))
    }

    /// Parse 64 hex digits, `0x` optional.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Hash, D::Error> {
        super::from_hex(&String::deserialize(d)?)
    }
}

/// serde for a list of hashes as `0x` hex strings.
pub mod hex32_vec {
    use super::Hash;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serialise as a JSON array of `0x` hex strings.
    pub fn serialize<S: Serializer>(hs: &[Hash], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(hs.iter().map(super::to_hex))
    }

    /// Parse an array of hex strings.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Hash>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|s| super::from_hex(s))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use proptest::prelude::*;

    /// RFC 6962 §2.1 MTH, written directly from the RFC's recursion.
    fn rfc_root(leaves: &[Hash]) -> Hash {
        match leaves.len() {
            0 => Sha256::digest([]).into(),
            1 => leaves[0],
            n => {
                let k = largest_power_of_two_below(n);
                node_hash(&rfc_root(&leaves[..k]), &rfc_root(&leaves[k..]))
            }
        }
    }

    /// RFC 6962 §2.1.1 PATH(m, D[n]).
    fn rfc_path(m: usize, leaves: &[Hash]) -> Vec<Hash> {
        let n = leaves.len();
        if n <= 1 {
            return Vec::new();
        }
        let k = largest_power_of_two_below(n);
        if m < k {
            let mut p = rfc_path(m, &leaves[..k]);
            p.push(rfc_root(&leaves[k..]));
            p
        } else {
            let mut p = rfc_path(m - k, &leaves[k..]);
            p.push(rfc_root(&leaves[..k]));
            p
        }
    }

    /// RFC 9162 §2.1.3.2 audit path verification, independent of rs_merkle.
    fn rfc_verify(root: &Root, p: &InclusionProof) -> bool {
        if p.index >= p.size {
            return false;
        }
        let (mut f_n, mut s_n) = (p.index, p.size - 1);
        let mut r = p.leaf;
        for h in &p.path {
            if s_n == 0 {
                return false;
            }
            if f_n & 1 == 1 || f_n == s_n {
                r = node_hash(h, &r);
                if f_n & 1 == 0 {
                    while f_n & 1 == 0 && f_n != 0 {
                        f_n >>= 1;
                        s_n >>= 1;
                    }
                }
            } else {
                r = node_hash(&r, h);
            }
            f_n >>= 1;
            s_n >>= 1;
        }
        s_n == 0 && r == *root.as_bytes()
    }

    fn leaves(n: usize) -> Vec<Hash> {
        (0..n)
            .map(|i| leaf_hash(format!("leaf {i}").as_bytes()))
            .collect()
    }

    #[test]
    fn rs_merkle_matches_rfc_6962_for_1_to_70_leaves() {
        for n in 1..=70 {
            let ls = leaves(n);
            let root = merkle_root(&ls).unwrap();
            assert_eq!(root, Root::from(rfc_root(&ls)), "root, n = {n}");
            for m in 0..n {
                let p = prove(&ls, m).unwrap();
                assert_eq!(p.path, rfc_path(m, &ls), "path, n = {n}, m = {m}");
                assert_eq!(p.path.len(), audit_path_len(m, n));
                assert!(verify_proof(&root, &p), "n = {n}, m = {m}");
                assert!(rfc_verify(&root, &p), "n = {n}, m = {m}");
            }
        }
    }

    #[test]
    fn rfc_6962_known_answers() {
        // Hash of the empty leaf, RFC 6962 / Certificate Transparency test vectors:
        // SHA256(0x00) = 6e340b9c…
        assert_eq!(
            hex::encode(leaf_hash(b"")),
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
        );
        // Three leaves: root = H(1 ‖ H(1 ‖ L0 ‖ L1) ‖ L2).
        let ls = leaves(3);
        assert_eq!(
            merkle_root(&ls).unwrap(),
            Root::from(node_hash(&node_hash(&ls[0], &ls[1]), &ls[2]))
        );
        // One leaf: the root is the leaf hash.
        assert_eq!(merkle_root(&ls[..1]).unwrap(), Root::from(ls[0]));
        assert_eq!(merkle_root(&[]), Err(CommitmentError::Empty));
    }

    #[test]
    fn rejects_out_of_range_and_wrong_length() {
        let ls = leaves(5);
        let root = merkle_root(&ls).unwrap();
        assert_eq!(
            prove(&ls, 5),
            Err(CommitmentError::LeafOutOfRange { index: 5, size: 5 })
        );
        let mut p = prove(&ls, 4).unwrap();
        let mut long = p.clone();
        long.path.push([0; 32]);
        assert!(!verify_proof(&root, &long));
        p.index = 7;
        assert!(!verify_proof(&root, &p));
        let zero = InclusionProof {
            index: 0,
            size: 0,
            leaf: ls[0],
            path: vec![],
        };
        assert!(!verify_proof(&root, &zero));
    }

    #[test]
    fn proof_json_round_trip() {
        let ls = leaves(3);
        let p = prove(&ls, 2).unwrap();
        let json = serde_json::to_string(&p).unwrap();
        assert!(json.starts_with(r#"{"index":2,"size":3,"leaf":"0x"#));
        assert_eq!(serde_json::from_str::<InclusionProof>(&json).unwrap(), p);
        assert!(
            serde_json::from_str::<InclusionProof>(
                r#"{"index":0,"size":1,"leaf":"0x12","path":[]}"#
            )
            .is_err()
        );
    }

    proptest! {
        #[test]
        fn random_sizes_match_rfc(n in 1usize..1200, pick in any::<prop::sample::Index>()) {
            let ls = leaves(n);
            let root = merkle_root(&ls).unwrap();
            prop_assert_eq!(root, Root::from(rfc_root(&ls)));
            let m = pick.index(n);
            let p = prove(&ls, m).unwrap();
            prop_assert_eq!(&p.path, &rfc_path(m, &ls));
            prop_assert!(verify_proof(&root, &p));
        }

        #[test]
        fn every_proof_verifies_and_tampering_fails(
            n in 1usize..200,
            pick in any::<prop::sample::Index>(),
            byte in any::<prop::sample::Index>(),
            bit in 0u8..8,
            what in 0u8..4,
        ) {
            let ls = leaves(n);
            let root = merkle_root(&ls).unwrap();
            let m = pick.index(n);
            let proof = prove(&ls, m).unwrap();
            prop_assert!(verify_proof(&root, &proof));
            prop_assert!(rfc_verify(&root, &proof));
            let mut bad = proof.clone();
            let mut bad_root = *root.as_bytes();
            match what {
                0 => bad.leaf[byte.index(32)] ^= 1 << bit,
                1 if !bad.path.is_empty() => {
                    let i = byte.index(bad.path.len());
                    bad.path[i][byte.index(32)] ^= 1 << bit;
                }
                2 if n > 1 => bad.index = (m + 1 + byte.index(n - 1)) % n,
                _ => bad_root[byte.index(32)] ^= 1 << bit,
            }
            let bad_root = Root::from(bad_root);
            prop_assert!(!verify_proof(&bad_root, &bad));
            prop_assert!(!rfc_verify(&bad_root, &bad));
        }
    }
}
