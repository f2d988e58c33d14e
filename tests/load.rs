//! Load: a burst of questions on anvil, the node with the instant replay resolver.
//! Figures: verdicts per second, peak RSS of the node, SQLite size; 0 lost, 0 duplicated.
//!
//! `cargo test -p veritas-node --test load -- --ignored --nocapture` (`LOAD_QUESTIONS`, default
//! 200; `LOAD_CONCURRENCY`, default 32).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::{Duration, Instant};

use alloy::{
    network::EthereumWallet,
    primitives::U256,
    providers::{Provider, ProviderBuilder},
    signers::local::PrivateKeySigner,
};
use support::{Chain, Node};
use veritas::chain::{
    IVeritasOracle,
    devnet::{ANVIL_KEYS, AnvilOptions},
};

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "load run (about a minute); see the module docs"]
async fn burst_of_questions() {
    let n = env_or("LOAD_QUESTIONS", 200);
    let concurrency = env_or("LOAD_CONCURRENCY", 32);
    let chain = Chain::start(AnvilOptions::default()).await;
    let mut node = Node::configure(
        &chain,
        r#"{"default": {"votes": ["YES", "YES", "NO"]}}"#,
        &format!("concurrency = {concurrency}"),
    );
    node.start();
    let warm = chain.ask(&["Warm-up?"]).await;
    chain.wait_verdicts(&warm, Duration::from_secs(30)).await;

    let asker: PrivateKeySigner = ANVIL_KEYS[2].parse().unwrap();
    let provider = ProviderBuilder::new()
        .wallet(EthereumWallet::from(asker))
        .connect_http(chain.anvil.url.parse().unwrap());
    let oracle = IVeritasOracle::new(chain.oracle, &provider);
    let started = Instant::now();
    for i in 0..n {
        // Not waiting for each receipt: that is the burst. Mining is checked below.
        let _pending = oracle
            .askQuestion(format!("Load question {i}?"), 0)
            .send()
            .await
            .unwrap();
    }
    let asked = started.elapsed();
    // Anvil may mine the last sends a moment after they return.
    let count = loop {
        let count = oracle.questionCount().call().await.unwrap();
        if count.to::<usize>() == n + 1 {
            break count;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "asks not mined"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let ids: Vec<U256> = (2..=count.to::<u64>()).map(U256::from).collect();
    assert_eq!(ids.len(), n);
    let pid = node.child.as_ref().unwrap().id();
    let mut peak_kb = 0u64;
    let reader = chain.reader();
    let contract = IVeritasOracle::new(chain.oracle, &reader);
    loop {
        let posted = contract.verdictCount().call().await.unwrap().to::<usize>();
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status"))
            && let Some(kb) = status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        {
            peak_kb = kb;
        }
        if posted == n + 1 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "{posted} of {n} after 10 min"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let total = started.elapsed();
    for id in &ids {
        assert_eq!(chain.verdict_events(*id).await, 1, "question {id}");
    }
    let db = node.data_dir().join("veritas.sqlite");
    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let db_bytes = size(&db) + size(&db.with_extension("sqlite-wal"));
    let blocks = reader.get_block_number().await.unwrap();
    println!(
        "load: {n} questions asked in {:.1} s; all {n} verdicts after {:.1} s = {:.1} verdicts/s; \
         peak RSS {:.1} MB; sqlite {:.1} MB (with WAL); {blocks} blocks; 0 lost, 0 duplicated; concurrency {concurrency}",
        asked.as_secs_f64(),
        total.as_secs_f64(),
        n as f64 / total.as_secs_f64(),
        peak_kb as f64 / 1024.0,
        db_bytes as f64 / 1e6,
    );
    node.terminate();
}
