//! Commit-reveal reporting (a parameter set with a `revealWindow` and a quorum above 1), with
//! real `veritas run` processes on a real anvil:
//!
//! - the node's commitment is the contract's `reportCommitment`, computed locally;
//! - 3 nodes, quorum 2: each question gets two commits (`ReportCommitted`), then their reveals
//!   (`ReportSubmitted`) post the verdict; every report audits, nothing is slashed, the salts in
//!   the stores are the ones revealed and never appear in a log;
//! - a node SIGKILLed between its commit and the reveal phase reveals once restarted;
//! - a node back after the reveal deadline fails the question (bond lost), and `finalize`
//!   burns its bond.
//!
//! `cargo test -p veritas-node --test commit_reveal -- --nocapture`

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::{collections::BTreeSet, time::Duration};

use alloy::primitives::{Address, B256, I256, U256};
use support::{
    Chain, Node, address,
    commit_reveal::{assert_pooled_audits, commits, saved, slashed},
};
use veritas::chain::{
    IVeritasOracle, IVeritasOracle::VerdictStatus as S, devnet::AnvilOptions,
    poster::report_commitment, poster::verdict::Verdict,
};

const YES_MAJORITY: &str = r#"{"default": {"votes": ["YES", "YES", "NO"]}}"#;
const WAIT: Duration = Duration::from_secs(60);
/// The contract's smallest reveal window.
const REVEAL_WINDOW: u32 = 30;

async fn commit_reveal_chain(operators: &[usize]) -> Chain {
    support::commit_reveal::chain(operators, REVEAL_WINDOW).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_commitment_is_the_contracts() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let reader = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &reader);
    let cases = [
        ([3u16, 1, 0], 250_000_000_000_000_000i128, false, 0x11u8),
        ([0, 0, 5], -1_000_000_000_000_000_000, true, 0xfe),
        ([65_535, 0, 1], 1_000_000_000_000_000_000, false, 0x00),
    ];
    for (i, (counts, kappa, escalated, salt)) in cases.into_iter().enumerate() {
        let v = Verdict {
            id: U256::from(i + 1) << 200,
            merkle_root: B256::repeat_byte(0xa0 + i as u8),
            counts,
            kappa: I256::try_from(kappa).unwrap(),
            escalated,
        };
        let reporter = address(i + 1);
        let salt = B256::repeat_byte(salt);
        let on_chain = oracle
            .reportCommitment(
                v.id,
                reporter,
                v.merkle_root,
                counts[0],
                counts[1],
                counts[2],
                v.kappa,
                escalated,
                salt,
            )
            .call()
            .await
            .unwrap();
        assert_eq!(
            report_commitment(v.id, reporter, &v, salt),
            on_chain,
            "case {i}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_nodes_quorum_two_commit_then_reveal_one_verdict() {
    let chain = commit_reveal_chain(&[1, 3, 4]).await;
    let mut nodes: Vec<Node> = [1, 3, 4]
        .into_iter()
        .map(|key| Node::configure_as(&chain, key, YES_MAJORITY, ""))
        .collect();
    for node in &mut nodes {
        node.start();
    }
    let started = std::time::Instant::now();
    let ids = chain.ask(&["Committed first?", "Revealed second?"]).await;
    for &id in &ids {
        chain.wait_status(id, S::Resolved, WAIT).await;
    }
    println!(
        "commit-reveal: {} questions resolved by reveals in {:.1} s",
        ids.len(),
        started.elapsed().as_secs_f64()
    );
    for &id in &ids {
        assert_eq!(chain.verdict_events(id).await, 1, "{id}");
        let committed = commits(&chain, id).await;
        assert_eq!(
            committed.len(),
            2,
            "two commits (the quorum) on {id}: {committed:?}"
        );
        let committers: BTreeSet<Address> = committed.iter().map(|c| c.0).collect();
        assert_eq!(committers.len(), 2, "an operator committed twice on {id}");
        // Every commit revealed, and only commits were revealed.
        let reporters: BTreeSet<Address> = chain.reports(id).await.iter().map(|r| r.0).collect();
        assert_eq!(reporters, committers, "{id}");
        let mut reporting = Vec::new();
        for (node, key) in nodes.iter().zip([1, 3, 4]) {
            let Some((_, on_chain)) = committed.iter().find(|c| c.0 == address(key)) else {
                continue;
            };
            // The commitment the node saved before signing is the one on-chain.
            assert_eq!(saved(node).get(&id).map(|s| s.0), Some(*on_chain), "{id}");
            reporting.push(node);
        }
        assert_pooled_audits(&chain, id, &reporting).await;
    }
    assert_eq!(slashed(&chain).await, 0, "a commit was slashed");
    for node in &mut nodes {
        node.stop();
        // The salts were never logged.
        let log = node.log_text();
        for (_, salt) in saved(node).values() {
            assert!(
                !log.contains(&format!("{salt:x}")[2..]),
                "a salt in the log"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_killed_between_commit_and_reveal_reveals_after_restart() {
    let chain = commit_reveal_chain(&[1, 3, 4]).await;
    let mut first = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    let mut second = Node::configure_as(&chain, 3, YES_MAJORITY, "");
    let mut third = Node::configure_as(&chain, 4, YES_MAJORITY, "");
    first.start();
    let id = chain.ask(&["Revealed after a restart?"]).await[0];
    // The first node commits alone: the reveal phase waits for the quorum's second commit.
    let deadline = std::time::Instant::now() + WAIT;
    while commits(&chain, id).await.is_empty() {
        assert!(std::time::Instant::now() < deadline, "{}", first.log_text());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    first.kill();
    let (commitment, salt) = saved(&first)[&id];
    second.start();
    let deadline = std::time::Instant::now() + WAIT;
    while commits(&chain, id).await.len() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "{}",
            second.log_text()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The reveal phase is open; the second node reveals, the verdict waits for the first.
    assert_eq!(chain.status(id).await, S::Asked);
    // A third operator arriving now finds the commit phase over: it runs no committee and
    // sends nothing.
    third.start();
    third.wait_stage(id, "reported", WAIT).await;
    assert!(
        !third.report_path(id).exists(),
        "a committee ran too late to commit"
    );
    let sent: i64 = third
        .sqlite()
        .query_row("SELECT count(*) FROM sent_txs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sent, 0, "the third node sent a transaction");
    assert_eq!(chain.status(id).await, S::Asked);
    first.start();
    chain.wait_status(id, S::Resolved, WAIT).await;
    assert_eq!(chain.verdict_events(id).await, 1);
    // Revealed with the salt saved before the crash, not a new one.
    assert_eq!(saved(&first)[&id], (commitment, salt));
    assert_pooled_audits(&chain, id, &[&first, &second]).await;
    assert_eq!(slashed(&chain).await, 0);
    first.stop();
    second.stop();
    third.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reveal_deadline_missed_fails_the_question_and_burns_the_bond() {
    let chain = commit_reveal_chain(&[1, 3]).await;
    let mut late = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    let mut prompt = Node::configure_as(&chain, 3, YES_MAJORITY, "");
    // The late node dies right after its commit is mined, before any reveal.
    late.start_with_env(&[(veritas::crashpoint::ENV, "commit.mined:1")]);
    let id = chain.ask(&["Revealed in time?"]).await[0];
    let status = late.wait_exit(WAIT).expect("commit.mined reached");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    // The prompt node commits (the reveal phase opens) and reveals.
    prompt.start();
    let deadline = std::time::Instant::now() + WAIT;
    while !chain.reports(id).await.iter().any(|r| r.0 == address(3)) {
        assert!(
            std::time::Instant::now() < deadline,
            "{}",
            prompt.log_text()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(commits(&chain, id).await.len(), 2);
    // The reveal window passes with the node down.
    chain.advance(u64::from(REVEAL_WINDOW) + 1).await;
    late.start();
    late.wait_stage(id, "failed", WAIT).await;
    let reason: String = late
        .sqlite()
        .query_row(
            "SELECT last_error FROM jobs WHERE question_id = ?1",
            [id.to_string()],
            |r| r.get(0),
        )
        .unwrap();
    assert!(reason.contains("reveal deadline"), "{reason}");
    assert!(late.log_text().contains("reveal deadline missed"));
    // The prompt node finalizes it (its report was revealed): the late commit is burned.
    chain.wait_status(id, S::Escalated, WAIT).await;
    assert_eq!(slashed(&chain).await, 1);
    late.stop();
    prompt.stop();
}
