//! Statistics benchmarks: `cargo bench -p veritas-node --bench stats`.
//!
//! `summarize/30` and `/300` are the full statistics of a ballot set; `stats_line/30` is one
//! `veritas stats` input line end to end (JSON parsing, statistics, JSON output), the
//! figure the ≤ 20 µs per set target is about.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use veritas::cli::stats::stats_line;
use veritas::stats::{
    BallotRecord, BallotRef, Outcome, credible_intervals, effective_sample_size, fleiss_kappa,
    monte_carlo_intervals, subject_counts, summarize, to_wad,
};

/// `n` ballots of a committee with M = 3 per iteration, 3 models, ~5% failed ballots.
fn ballots(n: usize, seed: u64) -> Vec<BallotRecord> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| BallotRecord {
            iteration: (i / 3) as u32 + 1,
            model: format!("model-{}", rng.random_range(0..3)),
            archetype: format!("archetype-{}", rng.random_range(0..6)),
            vote: if rng.random_bool(0.05) {
                None
            } else {
                Some(Outcome::ALL[[0, 0, 0, 1, 2][rng.random_range(0..5)]])
            },
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("summarize");
    for n in [30, 300] {
        let set = ballots(n, n as u64);
        g.bench_with_input(BenchmarkId::from_parameter(n), &set, |b, set| {
            b.iter(|| summarize(black_box(set)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("stats_line");
    for n in [30, 300] {
        let line = serde_json::to_string(&ballots(n, n as u64)).unwrap();
        g.bench_with_input(BenchmarkId::from_parameter(n), &line, |b, line| {
            b.iter(|| stats_line(black_box(line)).unwrap())
        });
    }
    g.finish();

    let set = ballots(30, 30);
    let counts = [20, 6, 3];
    c.bench_function("parts/to_wad", |b| b.iter(|| to_wad(black_box(counts))));
    c.bench_function("parts/credible_intervals", |b| {
        b.iter(|| credible_intervals(black_box(counts)))
    });
    let subjects = subject_counts(&set);
    c.bench_function("parts/fleiss_kappa_10_iterations", |b| {
        b.iter(|| fleiss_kappa(black_box(&subjects)))
    });
    c.bench_function("parts/effective_sample_size", |b| {
        b.iter(|| effective_sample_size(black_box(&set)))
    });
    c.bench_function("parts/subject_counts", |b| {
        b.iter(|| subject_counts(black_box(&set)))
    });
    let line = serde_json::to_string(&set).unwrap();
    c.bench_function("parts/parse_30", |b| {
        b.iter(|| serde_json::from_str::<Vec<BallotRecord>>(black_box(&line)).unwrap())
    });
    c.bench_function("parts/parse_30_borrowed", |b| {
        b.iter(|| serde_json::from_str::<Vec<BallotRef<'_>>>(black_box(&line)).unwrap())
    });
    let summary = summarize(&set);
    c.bench_function("parts/serialize_summary", |b| {
        b.iter(|| serde_json::to_string(black_box(&summary)).unwrap())
    });
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    c.bench_function("parts/monte_carlo_10000", |b| {
        b.iter(|| monte_carlo_intervals(black_box(counts), 10_000, &mut rng))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
