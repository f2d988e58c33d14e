//! Commitment benchmarks: `cargo bench -p veritas-node --bench commitment`.
//!
//! A bundle of the default size (question + 6 items, 7 leaves) end to end, and the tree
//! alone over 7 and 10,000 leaves; proof generation (builds the tree) and verification.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::json;
use veritas::commitment::{commit, leaf_hash, merkle_root, prove, verify_proof};

fn bench(c: &mut Criterion) {
    let evidence: Vec<_> = (1..=6)
        .map(|i| {
            json!({
                "id": i,
                "url": format!("https://example.org/article/{i}"),
                "title": "A title of a few words",
                "snippet": "word ".repeat(200),
                "published_at": "2026-01-01T00:00:00Z",
                "source": "web",
                "submitter": null,
            })
        })
        .collect();
    c.bench_function("commit/bundle_7_leaves", |b| {
        b.iter(|| commit(black_box("Will it rain?"), &[], black_box(&evidence)).unwrap())
    });

    let mut g = c.benchmark_group("merkle_root");
    for n in [7usize, 10_000] {
        let leaves: Vec<_> = (0..n).map(|i| leaf_hash(&i.to_le_bytes())).collect();
        g.bench_with_input(BenchmarkId::from_parameter(n), &leaves, |b, l| {
            b.iter(|| merkle_root(black_box(l)).unwrap())
        });
    }
    g.finish();

    let mut g = c.benchmark_group("proof");
    for n in [7usize, 10_000] {
        let leaves: Vec<_> = (0..n).map(|i| leaf_hash(&i.to_le_bytes())).collect();
        let root = merkle_root(&leaves).unwrap();
        let index = n * 2 / 3;
        g.bench_with_input(BenchmarkId::new("prove", n), &leaves, |b, l| {
            b.iter(|| prove(black_box(l), index).unwrap())
        });
        let proof = prove(&leaves, index).unwrap();
        g.bench_with_input(BenchmarkId::new("verify", n), &proof, |b, p| {
            b.iter(|| verify_proof(black_box(&root), black_box(p)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
