//! The embedded juror on the real default model (gemma-3-270m GGUF installed by `make setup`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a panic is the report
#![cfg(feature = "llama")]

use std::path::Path;
use std::sync::Arc;

use veritas::bundle::{Bundle, EvidenceItem, Rubric, Source};
use veritas::commitment::commit_bundle;
use veritas::jury::committee::{Committee, CommitteeConfig, PoolMember, run_committee};
use veritas::jury::local::{CANDIDATES, LocalJuror, prefix, suffix};
use veritas::jury::{Archetype, committee_seed};
use veritas::llm::llama::{LocalModel, LocalModelConfig, resolve_model_path};

fn model() -> Arc<LocalModel> {
    let mut cfg = LocalModelConfig::default();
    cfg.path = resolve_model_path(&cfg.path);
    assert!(
        Path::new(&cfg.path).is_file(),
        "{} missing: run `make setup` first",
        cfg.path.display()
    );
    Arc::new(LocalModel::load(&cfg).unwrap())
}

/// The five personas' prompt suffixes and the scored candidate words.
fn suffixes_and_candidates() -> (Vec<String>, Vec<String>) {
    let suffixes = Archetype::shipped().iter().map(suffix).collect();
    let candidates = CANDIDATES.iter().map(|c| (*c).to_owned()).collect();
    (suffixes, candidates)
}

fn bundle() -> Bundle {
    Bundle {
        question: "Global warming is driving polar bears toward extinction".into(),
        clarifications: Vec::new(),
        evidence: vec![EvidenceItem {
            id: 1,
            url: "https://en.wikipedia.org/wiki/Habitat_destruction".into(),
            title: "Habitat destruction".into(),
            snippet: "Rising global temperatures, caused by the greenhouse effect, contribute to \
                      habitat destruction, endangering various species, such as the polar bear."
                .into(),
            published_at: None,
            source: Source::Local,
            submitter: None,
        }],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_model_scores_and_votes() {
    let m = model();
    let archetypes = Archetype::shipped();
    let (suffixes, candidates) = suffixes_and_candidates();
    let a = m
        .score(prefix(&bundle()), suffixes.clone(), candidates.clone())
        .await
        .unwrap();
    // Each of " YES", " NO", " NULL" is one token of gemma's vocabulary.
    for c in &a.candidates {
        println!("{:?} -> {:?}", c.text, c.tokens);
        assert!(
            c.is_single_token(),
            "{:?} is {} tokens",
            c.text,
            c.tokens.len()
        );
    }
    assert_eq!(a.suffixes.len(), 5);
    for s in &a.suffixes {
        let total: f64 = s.probabilities.iter().sum();
        assert!(total > 0.0 && total <= 1.0 + 1e-9, "{:?}", s.probabilities);
    }
    println!(
        "prefix {} tokens in {:?}; suffixes {:?}",
        a.prefix_tokens,
        a.prefix_latency,
        a.suffixes
            .iter()
            .map(|s| (s.suffix_tokens, s.latency))
            .collect::<Vec<_>>()
    );
    // Deterministic given the prompt (the KV cache is reset between requests).
    let b = m
        .score(prefix(&bundle()), suffixes, candidates)
        .await
        .unwrap();
    for (x, y) in a.suffixes.iter().zip(&b.suffixes) {
        for (p, q) in x.probabilities.iter().zip(&y.probabilities) {
            assert!((p - q).abs() < 1e-6, "{p} vs {q}");
        }
    }

    // A committee of the embedded juror: every ballot valid, probabilities recorded.
    let juror = Arc::new(LocalJuror::new(m, archetypes.clone(), false));
    let committee = Committee {
        archetype_weights: vec![1; archetypes.len()],
        archetypes,
        jurors: vec![PoolMember { juror, weight: 1 }],
        config: CommitteeConfig {
            iterations: 3,
            early_stopping: false,
            ..CommitteeConfig::default()
        },
    };
    let b = bundle();
    let root = commit_bundle(&b).unwrap().root;
    let run = run_committee(
        &committee,
        Arc::new(b),
        Arc::new(Rubric::default()),
        committee_seed(&root, &[0u8; 32]),
        root,
        &mut |_| {},
    )
    .await
    .unwrap();
    assert_eq!(run.ballots.len(), 9);
    for ballot in &run.ballots {
        assert!(ballot.failure.is_none(), "{:?}", ballot.failure);
        let p = ballot.probabilities.unwrap();
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert_eq!(ballot.confidence, Some(p[ballot.vote.unwrap().index()]));
        assert!(ballot.prompt_tokens > 50);
    }
}

/// The shared prefix's cache is reused across suffixes: each suffix is forgotten before the
/// next, so a persona scores the same after the others as on its own, and a prompt that cannot
/// fit the context is refused with an error rather than decoded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_suffix_scores_as_if_decoded_alone() {
    let m = model();
    let (suffixes, candidates) = suffixes_and_candidates();
    let together = m
        .score(prefix(&bundle()), suffixes.clone(), candidates.clone())
        .await
        .unwrap();
    for (i, alone_suffix) in suffixes.iter().enumerate().skip(1) {
        let alone = m
            .score(
                prefix(&bundle()),
                vec![alone_suffix.clone()],
                candidates.clone(),
            )
            .await
            .unwrap();
        for (p, q) in together.suffixes[i]
            .probabilities
            .iter()
            .zip(&alone.suffixes[0].probabilities)
        {
            assert!(
                (p - q).abs() < 1e-4,
                "suffix {i}: {p} after the others, {q} alone"
            );
        }
    }

    let too_long = "evidence ".repeat(5000);
    let err = m
        .score(too_long, suffixes, candidates)
        .await
        .expect_err("a prefix longer than the context must be refused");
    assert!(err.to_string().contains("does not fit"), "{err}");
}

/// A file that is not a GGUF model is refused with an error that names it: llama.cpp's null
/// model never reaches the rest of the engine.
#[test]
fn a_file_that_is_not_a_model_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("not-a-model.gguf");
    std::fs::write(&path, b"GGUF, but only these words").unwrap();
    let cfg = LocalModelConfig {
        path,
        ..LocalModelConfig::default()
    };
    let err = LocalModel::load(&cfg).expect_err("a text file is not a model");
    let text = err.to_string();
    assert!(
        text.contains("cannot load") && text.contains("not-a-model.gguf"),
        "{text}"
    );
}
