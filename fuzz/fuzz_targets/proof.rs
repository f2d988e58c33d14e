//! `veritas verify-proof` input: a proof document from anyone. The answer must be exactly
//! RFC 9162 §2.1.3.2's (checked against an independent implementation of it below, not
//! rs_merkle), or a typed error; never a panic, whatever `index`, `size` and `path` say.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sha2::{Digest, Sha256};
use veritas_core::lines::prove::RootedProof;
use veritas_core::lines::verify_proof::verify_text;

fn node(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([0x01]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// RFC 9162 §2.1.3.2, "Verifying an Inclusion Proof", step by step.
fn rfc9162_verify(doc: &RootedProof) -> bool {
    let p = &doc.proof;
    if p.index >= p.size {
        return false;
    }
    let (mut fnode, mut snode) = (p.index, p.size - 1);
    let mut r = p.leaf;
    for step in &p.path {
        if snode == 0 {
            return false;
        }
        if fnode & 1 == 1 || fnode == snode {
            r = node(step, &r);
            while fnode & 1 == 0 && fnode != 0 {
                fnode >>= 1;
                snode >>= 1;
            }
        } else {
            r = node(&r, step);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    snode == 0 && r == *doc.root.as_bytes()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match verify_text(text) {
        Ok(valid) => {
            let doc: RootedProof = serde_json::from_str(text)
                .unwrap_or_else(|e| panic!("verify_text read what serde cannot: {e}"));
            assert_eq!(
                valid,
                rfc9162_verify(&doc),
                "disagrees with RFC 9162 on {doc:?}"
            );
            // What `veritas prove` would print for it reads back to the same answer.
            let printed = serde_json::to_string(&doc).unwrap_or_default();
            assert_eq!(verify_text(&printed).ok(), Some(valid), "{printed}");
        }
        Err(e) => {
            let message = format!("{e:#}");
            assert!(
                !message.ends_with("invalid input"),
                "unexplained error: {message}"
            );
        }
    }
});
