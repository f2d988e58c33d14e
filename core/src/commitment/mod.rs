//! RFC 6962 Merkle commitment of a question and its evidence bundle (pure, no I/O).
//!
//! the book's auditor specification, "Evidence commitment", which auditors rebuild bit for bit:
//! - leaf 0 is the question: the UTF-8 bytes of the text exactly as asked on-chain;
//! - leaves 1..=c are the asker's clarifications in order, each the RFC 8785 (JCS) form of
//!   `{"clarification": k, "text": …}` ([`clarification_leaf`]); none for most questions;
//! - leaf c+i (i = 1..=n) is evidence item i in bundle order: its JSON object in JCS
//!   canonical form ([`canonical_json`]); items hold strings, integers (|x| < 2^53),
//!   booleans and nulls, never floats;
//! - every leaf is hashed as SHA256(0x00 ‖ data) and the tree is RFC 6962's Merkle Tree Hash
//!   ([`tree`]), so any RFC 6962 / Certificate Transparency tool can check a root or an
//!   inclusion proof.
//!
//! Why JCS: an item's bytes must not depend on who serialised it (key order, whitespace,
//! escapes), or an honest auditor would rebuild a different root from the same report.

mod jcs;
pub mod root;
mod strict;
pub mod tree;

use serde_json::Value;

use crate::bundle::Bundle;
use root::Root;

pub use jcs::{MAX_SAFE_INTEGER, canonical_json};
pub use strict::StrictValue;
pub use tree::{
    Hash, InclusionProof, audit_path_len, leaf_hash, merkle_root, node_hash, prove, verify_proof,
};

/// Why a bundle cannot be committed or a proof built. Every variant is a property of the
/// input, so none is retryable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommitmentError {
    /// A JSON number with a fraction or an exponent (`1.5`, `1.0`, `1e3`).
    #[error("{}: {value} is not an integer; evidence holds strings, integers, booleans and nulls only (no floats)", place(*item, field))]
    Float {
        /// 0-based position in the evidence array (`None` for a bare value).
        item: Option<usize>,
        /// Path of the field inside the item (`a.b[2]`; empty for the item itself).
        field: String,
        /// The number as written.
        value: String,
    },
    /// An integer outside ±(2^53 − 1), which RFC 8785 (I-JSON) cannot represent exactly.
    #[error("{}: integer {value} is outside ±(2^53 - 1) (RFC 8785 / I-JSON)", place(*item, field))]
    IntegerOutOfRange {
        /// 0-based position in the evidence array (`None` for a bare value).
        item: Option<usize>,
        /// Path of the field inside the item.
        field: String,
        /// The number as written.
        value: String,
    },
    /// An evidence item that is not a JSON object.
    #[error("evidence[{item}]: an evidence item must be a JSON object, found {found}")]
    NotAnObject {
        /// 0-based position in the evidence array.
        item: usize,
        /// The JSON type found instead.
        found: &'static str,
    },
    /// An evidence item that could not be turned into JSON.
    #[error("evidence[{item}]: cannot encode as JSON: {message}")]
    Encode {
        /// 0-based position in the evidence array.
        item: usize,
        /// The encoder's message.
        message: String,
    },
    /// A proof was asked for a leaf the tree does not have.
    #[error("leaf index {index} is out of range for a tree of {size} leaves")]
    LeafOutOfRange {
        /// The index asked for.
        index: usize,
        /// Number of leaves.
        size: usize,
    },
    /// A tree needs at least one leaf.
    #[error("a Merkle tree needs at least one leaf")]
    Empty,
}

/// `evidence[i].field`, `evidence[i]`, `$.field` or `$` for error messages.
fn place(item: Option<usize>, field: &str) -> String {
    let base = item.map_or_else(|| "$".to_owned(), |i| format!("evidence[{i}]"));
    if field.is_empty() {
        base
    } else if field.starts_with('[') {
        format!("{base}{field}")
    } else {
        format!("{base}.{field}")
    }
}

/// The commitment of one bundle: its leaf hashes (question first) and their root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commitment {
    /// RFC 6962 Merkle Tree Hash of `leaves`.
    pub root: Root,
    /// Leaf hashes SHA256(0x00 ‖ data): the question, then each evidence item.
    pub leaves: Vec<Hash>,
}

impl Commitment {
    /// The leaves as `0x` hex strings.
    pub fn leaves_hex(&self) -> Vec<String> {
        self.leaves
            .iter()
            .map(|l| format!("0x{}", hex::encode(l)))
            .collect()
    }
}

/// The leaf data of a bundle, question first: what gets hashed with the 0x00 prefix.
///
/// # Errors
/// [`CommitmentError::NotAnObject`], [`CommitmentError::Float`] or
/// [`CommitmentError::IntegerOutOfRange`] naming the item and field.
pub fn leaf_data(
    question: &str,
    clarifications: &[String],
    evidence: &[Value],
) -> Result<Vec<Vec<u8>>, CommitmentError> {
    let mut data = Vec::with_capacity(1 + clarifications.len() + evidence.len());
    data.push(question.as_bytes().to_vec());
    for (i, text) in clarifications.iter().enumerate() {
        data.push(clarification_leaf(i + 1, text)?.into_bytes());
    }
    for (item, value) in evidence.iter().enumerate() {
        if !value.is_object() {
            return Err(CommitmentError::NotAnObject {
                item,
                found: json_type(value),
            });
        }
        data.push(jcs::canonical_item(value, Some(item))?.into_bytes());
    }
    Ok(data)
}

/// The leaf data of clarification number `index` (from 1): the RFC 8785 form of
/// `{"clarification": index, "text": text}`. An object with its own key, so it can never be read
/// as the question (raw text) or as an evidence item (which has an `id`).
///
/// # Errors
/// [`CommitmentError::IntegerOutOfRange`] for an index past 2^53 (the contract allows 4).
pub fn clarification_leaf(index: usize, text: &str) -> Result<String, CommitmentError> {
    jcs::canonical_item(
        &serde_json::json!({ "clarification": index, "text": text }),
        None,
    )
}

/// Commit a question, its clarifications (in order) and its evidence items (JSON objects, in
/// bundle order).
///
/// # Errors
/// As [`leaf_data`]: an item that is not an object, holds a float or an unsafe integer.
pub fn commit(
    question: &str,
    clarifications: &[String],
    evidence: &[Value],
) -> Result<Commitment, CommitmentError> {
    let leaves: Vec<Hash> = leaf_data(question, clarifications, evidence)?
        .iter()
        .map(|d| leaf_hash(d))
        .collect();
    let root = merkle_root(&leaves)?;
    Ok(Commitment { root, leaves })
}

/// Commit a [`Bundle`]: each [`crate::bundle::EvidenceItem`] is committed as its serde
/// JSON object (every field, `null` for absent options).
///
/// # Errors
/// As [`commit`]; with the typed items only an out-of-range integer is possible.
pub fn commit_bundle(bundle: &Bundle) -> Result<Commitment, CommitmentError> {
    let evidence = bundle
        .evidence
        .iter()
        .enumerate()
        .map(|(item, e)| {
            serde_json::to_value(e).map_err(|err| CommitmentError::Encode {
                item,
                message: err.to_string(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    commit(&bundle.question, &bundle.clarifications, &evidence)
}

/// The JSON type name of a value, for error messages.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::bundle::{EvidenceItem, Source};
    use proptest::prelude::*;
    use serde_json::json;
    use sha2::{Digest, Sha256};

    /// The worked example of the book's auditor specification; the expected hex strings
    /// were computed with `printf '\000%s' … | sha256sum` and `xxd -r -p`, not with this code.
    fn example() -> (String, Vec<Value>) {
        (
            "Did it rain in Paris on 2026-07-14?".to_owned(),
            vec![
                json!({"id": 1, "url": "https://example.org/paris-14-july", "title": "Paris weather, 14 July", "snippet": "Showers all afternoon.", "published_at": "2026-07-15T08:00:00Z", "source": "web", "submitter": null}),
                json!({"id": 2, "url": "file:releves/2026-07.txt", "title": "Relevé météo", "snippet": "Ciel sec à Montsouris.", "published_at": null, "source": "local", "submitter": null}),
            ],
        )
    }

    /// Clarifications are leaves 1..=c in order, as `{"clarification":k,"text":…}` in JCS;
    /// evidence follows; none leaves the commitment exactly as before.
    #[test]
    fn clarifications_come_right_after_the_question() {
        let q = "Will the ferry resume before 1 February 2026?";
        let ev = vec![json!({"id": 1, "title": "t"})];
        let texts = vec![
            "The Calder Line.".to_owned(),
            "Times are UTC \"strictly\".".to_owned(),
        ];
        let data = leaf_data(q, &texts, &ev).unwrap();
        assert_eq!(data.len(), 4);
        assert_eq!(data[0], q.as_bytes());
        assert_eq!(
            String::from_utf8(data[1].clone()).unwrap(),
            r#"{"clarification":1,"text":"The Calder Line."}"#
        );
        assert_eq!(
            String::from_utf8(data[2].clone()).unwrap(),
            r#"{"clarification":2,"text":"Times are UTC \"strictly\"."}"#
        );
        assert_eq!(data[3], br#"{"id":1,"title":"t"}"#);
        let plain = commit(q, &[], &ev).unwrap();
        let clarified = commit(q, &texts, &ev).unwrap();
        assert_ne!(
            clarified.root, plain.root,
            "a clarification changes the root"
        );
        let reordered = commit(q, &[texts[1].clone(), texts[0].clone()], &ev).unwrap();
        assert_ne!(reordered.root, clarified.root, "and so does their order");
        assert_eq!(
            plain.leaves.len(),
            2,
            "none: the question and the items, as before"
        );
    }

    #[test]
    fn readme_worked_example() {
        let (q, ev) = example();
        let c = commit(&q, &[], &ev).unwrap();
        assert_eq!(
            c.leaves_hex(),
            [
                "0xb35620240c5776a6d6822ffcaee068e035046363b23216d204d4e8e1636e794b",
                "0x6506a52f5d13035b794d69a206359178cc8dbd4fe097967f0fc32e52fe533c60",
                "0x7ac782435a514b161d89bc569132a4ad6019104ad2d0d7aa83f5856efcd64d66",
            ]
        );
        assert_eq!(
            c.root.to_string(),
            "0xfe50d01dcdcdc44b13b2018e698b6d9c62423cec63a6fe124f7032a7471c239c"
        );
    }

    #[test]
    fn leaves_are_prefixed_hashes_of_question_and_jcs_items() {
        let (q, ev) = example();
        let c = commit(&q, &[], &ev).unwrap();
        let sha = |bytes: &[u8]| -> Hash { Sha256::digest(bytes).into() };
        let mut l0 = vec![0u8];
        l0.extend_from_slice(q.as_bytes());
        assert_eq!(c.leaves[0], sha(&l0));
        let item1 = r#"{"id":1,"published_at":"2026-07-15T08:00:00Z","snippet":"Showers all afternoon.","source":"web","submitter":null,"title":"Paris weather, 14 July","url":"https://example.org/paris-14-july"}"#;
        let mut l1 = vec![0u8];
        l1.extend_from_slice(item1.as_bytes());
        assert_eq!(c.leaves[1], sha(&l1));
        // Three leaves: root = SHA256(0x01 ‖ SHA256(0x01 ‖ L0 ‖ L1) ‖ L2).
        let mut inner = vec![1u8];
        inner.extend_from_slice(&c.leaves[0]);
        inner.extend_from_slice(&c.leaves[1]);
        let mut top = vec![1u8];
        top.extend_from_slice(&sha(&inner));
        top.extend_from_slice(&c.leaves[2]);
        assert_eq!(c.root, Root::from(sha(&top)));
    }

    #[test]
    fn question_only_root_is_its_leaf() {
        let c = commit("Is water wet?", &[], &[]).unwrap();
        assert_eq!(c.leaves.len(), 1);
        assert_eq!(c.root, Root::from(c.leaves[0]));
    }

    #[test]
    fn bundle_and_json_commit_alike() {
        let (q, ev) = example();
        let bundle = Bundle {
            question: q.clone(),
            clarifications: Vec::new(),
            evidence: vec![
                EvidenceItem {
                    id: 1,
                    url: "https://example.org/paris-14-july".into(),
                    title: "Paris weather, 14 July".into(),
                    snippet: "Showers all afternoon.".into(),
                    published_at: Some("2026-07-15T08:00:00Z".into()),
                    source: Source::Web,
                    submitter: None,
                },
                EvidenceItem {
                    id: 2,
                    url: "file:releves/2026-07.txt".into(),
                    title: "Relevé météo".into(),
                    snippet: "Ciel sec à Montsouris.".into(),
                    published_at: None,
                    source: Source::Local,
                    submitter: None,
                },
            ],
        };
        assert_eq!(
            commit_bundle(&bundle).unwrap(),
            commit(&q, &[], &ev).unwrap()
        );
    }

    #[test]
    fn rejects_non_objects_and_floats_naming_item_and_field() {
        let err = commit("q", &[], &[json!({"a": 1}), json!([1, 2])]).unwrap_err();
        assert_eq!(
            err,
            CommitmentError::NotAnObject {
                item: 1,
                found: "an array"
            }
        );
        assert_eq!(
            err.to_string(),
            "evidence[1]: an evidence item must be a JSON object, found an array"
        );
        let err = commit("q", &[], &[json!({"meta": {"score": 0.5}})]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "evidence[0].meta.score: 0.5 is not an integer; evidence holds strings, integers, booleans and nulls only (no floats)"
        );
    }

    /// Random JSON objects of allowed values, with keys that exercise JCS sorting.
    fn item() -> impl Strategy<Value = serde_json::Map<String, Value>> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-(MAX_SAFE_INTEGER as i64)..=MAX_SAFE_INTEGER as i64).prop_map(|i| json!(i)),
            "\\PC{0,12}".prop_map(Value::String),
            "[\\x00-\\x1f\"\\\\\u{7f}\u{2028}é😀]{0,6}".prop_map(Value::String),
        ];
        let value = leaf.prop_recursive(2, 12, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z😀\u{fb01}]{1,3}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        });
        prop::collection::btree_map("[a-zA-Z_😀\u{fb01}\u{e000}]{1,8}", value, 1..8)
            .prop_map(|m| m.into_iter().collect())
    }

    proptest! {
        #[test]
        fn root_ignores_key_order(items in prop::collection::vec(item(), 0..5), q in "\\PC{0,40}", seed: u64) {
            let ev: Vec<Value> = items.iter().cloned().map(Value::Object).collect();
            let base = commit(&q, &[], &ev).unwrap();
            // The same items with members in a different (seeded) order, re-serialised and re-read.
            let shuffled: Vec<Value> = items.iter().map(|m| {
                let mut entries: Vec<_> = m.clone().into_iter().collect();
                let len = entries.len() as u64;
                entries.rotate_left((seed % len.max(1)) as usize);
                if seed % 2 == 1 { entries.reverse(); }
                let text = serde_json::to_string_pretty(&Value::Object(entries.into_iter().collect())).unwrap();
                serde_json::from_str(&text).unwrap()
            }).collect();
            prop_assert_eq!(commit(&q, &[], &shuffled).unwrap(), base);
        }

        #[test]
        fn any_edited_byte_changes_the_root(
            items in prop::collection::vec(item(), 1..4),
            q in "[ -~]{1,40}",
            which in any::<prop::sample::Index>(),
            pos in any::<prop::sample::Index>(),
            delta in 1u8..=255,
        ) {
            let ev: Vec<Value> = items.iter().cloned().map(Value::Object).collect();
            let base = commit(&q, &[], &ev).unwrap();
            let data = leaf_data(&q, &[], &ev).unwrap();
            // Edit one byte of one leaf's committed bytes; a leaf that is no longer valid
            // UTF-8 JSON cannot be committed by `commit`, so compare at the leaf level.
            let l = which.index(data.len());
            let mut edited = data.clone();
            let p = pos.index(edited[l].len().max(1));
            if edited[l].is_empty() { edited[l].push(delta) } else { edited[l][p] = edited[l][p].wrapping_add(delta) }
            let leaves: Vec<Hash> = edited.iter().map(|d| leaf_hash(d)).collect();
            prop_assert_ne!(merkle_root(&leaves).unwrap(), base.root);
            // And through the public API: edit one byte of the question text.
            let mut qb = q.clone().into_bytes();
            let qp = pos.index(qb.len());
            qb[qp] = if qb[qp] == b'a' { b'b' } else { b'a' };
            let q2 = String::from_utf8(qb).unwrap();
            prop_assert_ne!(commit(&q2, &[], &ev).unwrap().root, base.root);
        }
    }
}
