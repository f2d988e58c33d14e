//! End to end, offline: every demo question through the real evidence pipeline (fallback
//! planner, local BM25 corpus over `corpus/demo`, bundle rules), checking that the documents
//! that settle each question are found and that documents published after its resolution time
//! are excluded.

use std::path::PathBuf;

use veritas::evidence::bundle_rules::DropReason;
use veritas::evidence::collectors::LocalConfig;
use veritas::evidence::demo::{DemoQuestion, Expected, load_questions};
use veritas::evidence::normalize::parse_published;
use veritas::evidence::{CollectorsConfig, EvidenceConfig, Gatherer};

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/demo")
}

fn questions() -> Vec<DemoQuestion> {
    match load_questions(&corpus_dir()) {
        Ok(q) => q,
        Err(err) => panic!("{err}"),
    }
}

fn gatherer() -> Gatherer {
    let config = EvidenceConfig {
        collectors: CollectorsConfig {
            local: LocalConfig {
                dir: corpus_dir(),
                ..LocalConfig::default()
            },
            ..CollectorsConfig::default()
        },
        ..EvidenceConfig::default()
    };
    match Gatherer::from_config(&config) {
        Ok(g) => g,
        Err(err) => panic!("{err}"),
    }
}

#[test]
fn the_demo_set_has_yes_no_and_null_questions() {
    let questions = questions();
    assert!((3..=5).contains(&questions.len()));
    for expected in [Expected::Yes, Expected::No, Expected::Null] {
        assert!(
            questions.iter().any(|q| q.expected == expected),
            "{expected:?}"
        );
    }
}

#[tokio::test]
async fn every_demo_question_finds_its_evidence_and_none_from_after_its_resolution_time() {
    let gatherer = gatherer();
    for question in questions() {
        let gathered = match gatherer
            .gather(&question.text, Some(question.resolve_after), None)
            .await
        {
            Ok(g) => g,
            Err(err) => panic!("{}: {err}", question.id),
        };
        let bundle_urls: Vec<&str> = gathered.bundle.iter().map(|i| i.url.as_str()).collect();
        let ranks: Vec<Option<usize>> = question
            .key_urls
            .iter()
            .map(|key| bundle_urls.iter().position(|u| u == key).map(|p| p + 1))
            .collect();
        eprintln!(
            "{}: key documents at bundle positions {ranks:?} of {}",
            question.id,
            bundle_urls.len()
        );

        assert!(
            gathered.plan.fallback_reason.is_some(),
            "no planner model in this test"
        );
        assert!(
            !gathered.bundle.is_empty() && gathered.bundle.len() <= 6,
            "{}",
            question.id
        );
        let ids: Vec<u32> = gathered.bundle.iter().map(|i| i.id).collect();
        assert_eq!(
            ids,
            (1..=u32::try_from(ids.len()).unwrap_or(0)).collect::<Vec<_>>()
        );
        for (key, rank) in question.key_urls.iter().zip(&ranks) {
            assert!(
                rank.is_some(),
                "{}: {key} missing from {bundle_urls:?}",
                question.id
            );
        }
        for late in &question.late_urls {
            assert!(
                !bundle_urls.contains(&late.as_str()),
                "{}: late {late} in bundle",
                question.id
            );
            let raw_found = gathered
                .raw_hits
                .iter()
                .flat_map(|c| &c.hits)
                .any(|h| &h.url == late);
            assert!(
                raw_found,
                "{}: the late document should be retrieved, then cut",
                question.id
            );
            assert!(
                gathered.dropped.iter().any(|d| &d.url == late
                    && matches!(d.reason, DropReason::PublishedAfterCutoff { .. })),
                "{}: {late} not recorded as dropped for its date",
                question.id
            );
        }
        for item in &gathered.bundle {
            if let Some(published) = &item.published_at {
                let at = parse_published(published).ok();
                assert!(
                    at.is_some_and(|at| at <= question.resolve_after),
                    "{published}"
                );
            }
            assert!(item.snippet.split_whitespace().count() <= 200);
        }
    }
}

/// A measurement, not a check (run with `--ignored --nocapture`): index a synthetic corpus of
/// 5,000 documents of ~150 words (deterministic pseudo-text) and time the first search (which
/// builds the index), a repeat search (index reused) and a search after one file changed.
#[test]
#[ignore = "measurement; prints timings"]
fn measure_local_corpus_at_5000_documents() {
    // It times searches: no other long test beside it.
    let _alone = crate::support::measuring_blocking();
    use std::time::Instant;

    use veritas::evidence::collectors::LocalCorpus;

    const WORDS: &[&str] = &[
        "council", "harbour", "ferry", "library", "marathon", "budget", "street", "vote",
        "festival", "river", "school", "bridge", "parking", "tender", "lantern", "pier", "runner",
        "record", "hours", "rates", "water", "market", "bus", "route", "mayor", "island", "storm",
        "repair", "opening", "sunday", "crowd", "ticket", "lane", "kerb",
    ];
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(err) => panic!("{err}"),
    };
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for i in 0..5_000 {
        let mut text = format!(
            "---\ntitle: Document {i}\nurl: https://synthetic.example/{i}\npublished: 2026-01-01\n---\n"
        );
        for paragraph in 0..3 {
            let words: Vec<&str> = (0..50)
                .map(|_| WORDS[(next() % WORDS.len() as u64) as usize])
                .collect();
            text.push_str(&words.join(" "));
            text.push_str(if paragraph < 2 { ".\n\n" } else { ".\n" });
        }
        if let Err(err) = std::fs::write(dir.path().join(format!("doc{i}.md")), text) {
            panic!("{err}");
        }
    }
    let corpus = match LocalCorpus::open(&LocalConfig {
        dir: dir.path().to_path_buf(),
        ..LocalConfig::default()
    }) {
        Ok(c) => c,
        Err(err) => panic!("{err}"),
    };
    let queries = vec![
        "harbour ferry pier repair".to_owned(),
        "marathon record runner".to_owned(),
    ];
    let timed = |label: &str| {
        let started = Instant::now();
        let hits = match corpus.search_blocking(&queries) {
            Ok(hits) => hits.len(),
            Err(err) => panic!("{label}: {err}"),
        };
        eprintln!("{label}: {:?} ({hits} hits)", started.elapsed());
        // Every query's words are in the corpus: a search that finds nothing is broken.
        assert!(hits > 0, "{label}: no hits");
    };
    timed("first search, builds the index of 5,000 documents / 15,000 passages");
    timed("second search, index reused");
    if let Err(err) = std::fs::write(
        dir.path().join("doc0.md"),
        "changed\n\nthe harbour pier is repaired",
    ) {
        panic!("{err}");
    }
    timed("search after one file changed, index rebuilt");
}
