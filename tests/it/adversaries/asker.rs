//! The asker as an adversary, end to end against the real `veritas run` binary and anvil.
//!
//! Anyone can ask, for the ask fee (0 by default), so an ask is the cheapest attack there is.
//! Each hostile ask below must fail (or be answered) on its own: the node stays up, a plain
//! question asked after them gets its verdict, and a restart re-reads the hostile range
//! without dying on it.

use std::time::Duration;

use crate::support::{self, Node};
use alloy::primitives::U256;
use veritas::contract::IVeritasOracle;

const REPLAY: &str = r#"{"default": {"votes": ["YES", "YES", "NO", "YES", "NULL", "YES"]}}"#;

/// 2,048 bytes (the contract's maximum) of control characters, bidi overrides and markup: a
/// valid question, if a hostile one, that must be answered like any other.
fn hostile_text() -> String {
    let mut text = String::from("\u{202E}?sey\u{202C} <script>alert(1)</script>\u{2066}");
    let controls: Vec<char> = (0u8..0x20)
        .map(char::from)
        .chain(['\u{7f}', '\u{200B}', '\u{2067}', '\u{2069}'])
        .collect();
    for c in controls.iter().cycle() {
        if text.len() + c.len_utf8() > 2048 {
            break;
        }
        text.push(*c);
    }
    while text.len() < 2048 {
        text.push('x');
    }
    text
}

/// The job's stage and last error, through the node's store.
fn job(node: &Node, id: U256) -> (String, Option<String>) {
    let job = node
        .store()
        .unwrap()
        .job(id)
        .unwrap()
        .expect("the job is stored");
    (job.stage.as_str().to_owned(), job.last_error)
}

fn assert_running(node: &mut Node) {
    let child = node.child.as_mut().expect("node started");
    assert!(
        child.try_wait().unwrap().is_none(),
        "the node exited\n{}",
        node.log_text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_asks_fail_alone_and_the_node_answers_the_next_question_across_a_restart() {
    let (chain, mut node) = support::chain_and_node(REPLAY, "").await;

    // resolveAfter past anything SQLite's signed 64 bits or the contract's 40 bits hold: the
    // contract refuses it at the ask since it has a horizon (`maxHorizon`, 1 year), so no such
    // question reaches the node any more. (Before, the node stored each as a failed job: a
    // lying RPC forging one is still refused at the edge, `watcher::events`.)
    let asker = chain.wallet(2);
    let oracle = IVeritasOracle::new(chain.oracle, &asker);
    let rules = veritas::contract::reader::current_rules(&oracle)
        .await
        .unwrap();
    for resolve_after in [1u64 << 63, u64::MAX] {
        let refused = oracle
            .askQuestion("Far away?".into(), resolve_after, rules.clone())
            .call()
            .await
            .unwrap_err();
        let error = refused.as_decoded_error::<IVeritasOracle::VeritasTooFarAhead>();
        assert_eq!(
            error.map(|e| e.resolveAfter),
            Some(U256::from(resolve_after)),
            "{refused}"
        );
    }
    let text = hostile_text();
    assert_eq!(text.len(), 2048);
    let hostile = chain.ask_paying(&text, U256::ZERO, 0).await;
    let not_utf8 = chain.ask_raw_bytes(b"\xff\xfe\x00 not text").await;
    let plain = chain.ask(&["A plain question after them?"]).await[0];

    chain
        .wait_verdicts(&[plain, hostile], Duration::from_secs(60))
        .await;
    node.wait_stage(not_utf8, "failed", Duration::from_secs(10))
        .await;
    assert!(job(&node, not_utf8).1.unwrap().contains("not valid UTF-8"));
    // The hostile text went through byte for byte.
    let report = node.report_with_tx(hostile, Duration::from_secs(10)).await;
    assert_eq!(report["question"]["text"], text.as_str());
    assert_running(&mut node);
    let metrics = node.metrics().await;
    assert!(
        metrics.contains("veritas_questions_rejected_total 1"),
        "{metrics}"
    );

    // A restart re-reads the hostile range (restart_overlap) and must not die on it either.
    node.stop();
    node.start();
    let after = chain.ask(&["And one after the restart?"]).await[0];
    chain.wait_verdicts(&[after], Duration::from_secs(60)).await;
    assert_running(&mut node);
    for id in [not_utf8] {
        assert_eq!(job(&node, id).0, "failed", "question {id}");
        assert_eq!(chain.verdict_events(id).await, 0);
    }
    assert_eq!(chain.verdict_events(plain).await, 1);
    node.stop();
}
