//! `veritas commit` input: JSON lines of bundles, as an auditor or a report file hands them
//! over. Every line either gives a commitment that holds up (JCS idempotent and lossless,
//! root reproducible, proofs verify) or a typed error naming the line; nothing is dropped.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use veritas_core::bundle::Bundle;
use veritas_core::commitment::{
    CommitmentError, StrictValue, canonical_json, clarification_leaf, commit, commit_bundle,
    leaf_hash, merkle_root, prove, root::Root, verify_proof,
};
use veritas_core::lines::commit::{BundleInput, commit_line};
use veritas_core::lines::{map_lines, parse_line};

/// RFC 8785 §3.2.3: every object's members in UTF-16 code unit order.
fn assert_sorted(value: &Value) {
    match value {
        Value::Object(map) => {
            let keys: Vec<Vec<u16>> = map.keys().map(|k| k.encode_utf16().collect()).collect();
            assert!(
                keys.windows(2).all(|w| w[0] < w[1]),
                "unsorted members: {map:?}"
            );
            map.values().for_each(assert_sorted);
        }
        Value::Array(items) => items.iter().for_each(assert_sorted),
        _ => {}
    }
}

/// JCS on any value: canonical text re-reads (strictly) to the same value, is sorted, and
/// canonicalises to itself.
fn check_jcs(value: &Value) -> Option<String> {
    match canonical_json(value) {
        Ok(canon) => {
            let StrictValue(again) = serde_json::from_str(&canon)
                .unwrap_or_else(|e| panic!("canonical form {canon:?} does not parse: {e}"));
            assert_eq!(&again, value, "canonical form {canon:?} lost information");
            assert_sorted(&again);
            assert_eq!(
                canonical_json(&again).as_ref(),
                Ok(&canon),
                "JCS not idempotent"
            );
            assert!(!canon.contains(['\n', '\r']), "raw line break in {canon:?}");
            Some(canon)
        }
        Err(e) => {
            assert!(matches!(
                e,
                CommitmentError::Float { .. } | CommitmentError::IntegerOutOfRange { .. }
            ));
            assert!(!e.to_string().is_empty());
            None
        }
    }
}

/// One non-blank line.
fn check_line(line: &str) -> Option<String> {
    // Any JSON value at all goes through JCS (nested evidence values do).
    if let Ok(StrictValue(value)) = serde_json::from_str(line) {
        check_jcs(&value);
    }
    let result = commit_line(line);
    assert_eq!(commit_line(line), result, "commit is not deterministic");
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            // The message names the problem, not the generic fallback of `parse_line`.
            assert!(!e.message.trim().is_empty(), "error without a message");
            assert_ne!(e.message, "invalid input", "unexplained error");
            return None;
        }
    };
    let bundle: BundleInput = parse_line(line).unwrap_or_else(|e| panic!("committed but: {e}"));
    let printed: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("output: {e}"));
    let hex = |v: &Value| -> [u8; 32] {
        v.as_str()
            .and_then(|s| s.strip_prefix("0x"))
            .and_then(hex_decode)
            .unwrap_or_else(|| panic!("bad hash {v}"))
    };
    let root = Root::from(hex(&printed["root"]));
    let leaves: Vec<[u8; 32]> = printed["leaves"]
        .as_array()
        .unwrap_or_else(|| panic!("no leaves in {out}"))
        .iter()
        .map(hex)
        .collect();
    // Leaf 0 is the question; leaves 1..=c the clarifications; leaf c+i the JCS bytes of item
    // i; the root is their tree's.
    let clarifications = bundle.clarifications();
    let c = clarifications.len();
    assert_eq!(
        leaves.len(),
        1 + c + bundle.evidence.len(),
        "a leaf was lost"
    );
    assert_eq!(leaves[0], leaf_hash(bundle.question_text().as_bytes()));
    for (k, text) in clarifications.iter().enumerate() {
        let data = clarification_leaf(k + 1, text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(leaves[1 + k], leaf_hash(data.as_bytes()));
    }
    let mut canonical_items = Vec::new();
    for (item, leaf) in bundle.evidence.iter().zip(&leaves[1 + c..]) {
        let canon = check_jcs(item).unwrap_or_else(|| panic!("committed item fails JCS"));
        assert_eq!(*leaf, leaf_hash(canon.as_bytes()));
        canonical_items.push(serde_json::from_str::<Value>(&canon).unwrap_or(Value::Null));
    }
    assert_eq!(merkle_root(&leaves), Ok(root));
    // The same items re-read from their canonical form commit to the same root.
    let again = commit(bundle.question_text(), clarifications, &canonical_items);
    assert_eq!(
        again.map(|c| c.root),
        Ok(root),
        "root changed after JCS round trip"
    );
    // Inclusion proofs of the first, middle and last leaves verify; tampered ones do not.
    let n = leaves.len();
    for index in [0, n / 2, n - 1] {
        let proof = prove(&leaves, index).unwrap_or_else(|e| panic!("prove {index}: {e}"));
        assert!(verify_proof(&root, &proof), "proof of leaf {index} fails");
        let mut bad = proof.clone();
        bad.leaf[31] ^= 1;
        assert!(!verify_proof(&root, &bad), "tampered leaf {index} verifies");
    }
    assert!(matches!(
        prove(&leaves, n),
        Err(CommitmentError::LeafOutOfRange { .. })
    ));
    // A typed bundle (what the daemon commits) and its JSON line (what an auditor feeds
    // `veritas commit`) give the same root.
    if let Ok(typed) = serde_json::from_str::<Bundle>(line) {
        let c = commit_bundle(&typed).unwrap_or_else(|e| panic!("typed bundle: {e}"));
        let text = serde_json::to_string(&typed).unwrap_or_default();
        let via_cli: Value = commit_line(&text)
            .ok()
            .and_then(|o| serde_json::from_str(&o).ok())
            .unwrap_or_else(|| panic!("typed bundle rejected by commit: {text}"));
        assert_eq!(via_cli["root"].as_str(), Some(c.root.to_string().as_str()));
    }
    Some(out)
}

fn hex_decode(s: &str) -> Option<[u8; 32]> {
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

fuzz_target!(|data: &[u8]| {
    // The whole input as a JSON-lines file: all lines commit, in order, or the first bad
    // line is named and nothing is printed.
    let whole = map_lines(data, commit_line);
    let mut expected = String::new();
    let mut failed = false;
    for raw in data.split(|&b| b == b'\n') {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let Ok(line) = std::str::from_utf8(raw) else {
            failed = true;
            break;
        };
        if line.trim().is_empty() {
            continue;
        }
        match check_line(line) {
            Some(out) => {
                expected.push_str(&out);
                expected.push('\n');
            }
            None => {
                failed = true;
                break;
            }
        }
    }
    match whole {
        Ok(out) => {
            assert!(!failed, "a bad line was accepted");
            assert_eq!(out, expected, "lines lost or reordered");
        }
        Err(e) => {
            assert!(failed, "a good file was rejected: {e}");
            assert!(e.to_string().starts_with("line "), "{e}");
        }
    }
});
