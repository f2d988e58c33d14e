//! The Merkle root of a bundle (question as leaf 0) as one type from the commitment to the
//! report, the store, the chain and the audit (pure, no I/O).
//!
//! A root is not just any 32 bytes: it must not be mixed up with a transaction, block or
//! question hash, and it has one text form everywhere it is written (reports, proofs, API
//! answers, SQL): `0x` and 64 lower-case hex digits. Hex appears only at those edges; the ABI
//! edge converts to and from alloy's `B256` at the contract call or the event decode.
//!
//! It sits below the rest of `commitment` (its own row in the layer table) so the store,
//! the decoded events and the verdict, which sit below the Merkle code, can hold it too.

use std::{fmt, str::FromStr};

use alloy_primitives::B256;
use serde::{
    Deserialize, Deserializer, Serialize, Serializer,
    de::{self, SeqAccess, Visitor, value::SeqAccessDeserializer},
};

/// An RFC 6962 Merkle root of a question and its evidence bundle.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Root(B256);

/// Why a text is not a root.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a Merkle root (0x and 64 hex digits): {0}")]
pub struct RootError(String);

impl Root {
    /// The root of these bytes.
    pub const fn new(bytes: [u8; 32]) -> Self {
        Self(B256::new(bytes))
    }

    /// The 32 bytes, as hashed into seeds and digests.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0.0
    }

    /// The 64 hex digits without `0x`: the name of the report file written for it.
    pub fn file_stem(&self) -> String {
        hex::encode(self.0)
    }
}

impl From<[u8; 32]> for Root {
    fn from(bytes: [u8; 32]) -> Self {
        Self::new(bytes)
    }
}

/// The event decode and view edge: the ABI's `bytes32 merkleRoot`.
impl From<B256> for Root {
    fn from(word: B256) -> Self {
        Self(word)
    }
}

/// The contract call edge.
impl From<Root> for B256 {
    fn from(root: Root) -> Self {
        root.0
    }
}

impl AsRef<[u8]> for Root {
    fn as_ref(&self) -> &[u8] {
        self.0.as_slice()
    }
}

/// `0x` and 64 lower-case hex digits, whatever the flags (B256's `{:#}` would shorten it).
impl fmt::Display for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// As [`fmt::Display`], so logs read as they did when roots were `B256`.
impl fmt::Debug for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// 64 hex digits, `0x` optional, either case: what `B256` reads.
impl FromStr for Root {
    type Err = RootError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse::<B256>()
            .map(Self)
            .map_err(|e| RootError(e.to_string()))
    }
}

/// The [`fmt::Display`] string in JSON (B256's form, so files written before stay identical).
impl Serialize for Root {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// Everything `B256` reads (a hex string, an array of 32 bytes, raw bytes), so old files still
/// read; a bad string is named with what a root looks like.
impl<'de> Deserialize<'de> for Root {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            d.deserialize_any(RootVisitor)
        } else {
            B256::deserialize(d).map(Self)
        }
    }
}

struct RootVisitor;

impl<'de> Visitor<'de> for RootVisitor {
    type Value = Root;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Merkle root: 0x and 64 hex digits")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Root, E> {
        v.parse().map_err(|e| E::custom(format!("{v:?}: {e}")))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Root, E> {
        B256::try_from(v).map(Root).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Root, A::Error> {
        B256::deserialize(SeqAccessDeserializer::new(seq)).map(Root)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const TEXT: &str = "0xfe50d01dcdcdc44b13b2018e698b6d9c62423cec63a6fe124f7032a7471c239c";

    fn root() -> Root {
        TEXT.parse().unwrap()
    }

    #[test]
    fn json_is_the_0x_string_and_reads_back() {
        let json = serde_json::to_string(&root()).unwrap();
        assert_eq!(json, format!("\"{TEXT}\""));
        assert_eq!(serde_json::from_str::<Root>(&json).unwrap(), root());
        // Byte-identical to the B256 it replaces, in every form it is printed.
        let word = B256::from(root());
        assert_eq!(json, serde_json::to_string(&word).unwrap());
        assert_eq!(root().to_string(), TEXT);
        assert_eq!(format!("{:#}", root()), TEXT);
        assert_eq!(format!("{:?}", root()), format!("{word:?}"));
        assert_eq!(root().file_stem(), TEXT[2..]);
    }

    #[test]
    fn reads_what_b256_read() {
        let upper = format!("\"{}\"", TEXT[2..].to_uppercase());
        assert_eq!(serde_json::from_str::<Root>(&upper).unwrap(), root());
        let bytes = serde_json::to_string(&root().as_bytes().to_vec()).unwrap();
        assert_eq!(serde_json::from_str::<Root>(&bytes).unwrap(), root());
        assert_eq!(Root::from(*root().as_bytes()), root());
    }

    #[test]
    fn a_bad_value_is_refused_saying_what_a_root_is() {
        let err = serde_json::from_str::<Root>(r#""0x00""#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "\"0x00\": not a Merkle root (0x and 64 hex digits): invalid string length at line 1 column 6"
        );
        let err = serde_json::from_str::<Root>("7").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: integer `7`, expected a Merkle root: 0x and 64 hex digits at line 1 column 1"
        );
        let odd = format!("{}g", &TEXT[..TEXT.len() - 1]);
        assert!(odd.parse::<Root>().is_err());
        assert!(serde_json::from_str::<Root>("[1, 2]").is_err());
    }
}
