//! The RPC endpoint as an adversary, end to end: the node's daemon (run in this process, as
//! `veritas run` runs it) reads anvil through a proxy (`support::proxy`, real HTTP on
//! loopback) that rewrites `eth_getLogs` answers the way a lying or broken provider could.
//!
//! Each lie must be refused as a page (the watcher keeps its cursor and reads the range again,
//! counted in `veritas_rejected_log_pages_total`); nothing forged reaches the store, the node
//! stays up, and once the provider tells the truth the question is answered with its true text.

use std::time::Duration;

use crate::support::{Node, wait};
use serde_json::{Value, json};

const REPLAY: &str = r#"{"default": {"votes": ["YES", "YES", "NO", "YES", "NULL", "YES"]}}"#;

/// Each lie applies to every log of the page.
fn each_log(result: &mut Value, f: impl Fn(&mut Value)) {
    for log in result.as_array_mut().into_iter().flatten() {
        f(log);
    }
}

/// The logs' block moved beyond what SQLite holds (once a fatal store error for the watcher).
fn block_2_63(result: &mut Value) {
    each_log(result, |log| {
        log["blockNumber"] = json!("0x8000000000000000")
    });
}

/// A log index no block reaches.
fn huge_log_index(result: &mut Value) {
    each_log(result, |log| log["logIndex"] = json!("0xffffffffffffffff"));
}

/// The question's text altered (its last data byte), so it no longer hashes to
/// `questionHash`: a provider putting words in the asker's mouth.
fn altered_text(result: &mut Value) {
    each_log(result, |log| {
        let data = log["data"].as_str().unwrap().to_owned();
        // The text's last byte: the data ends with the text's bytes, zero-padded to 32.
        let hex = data.trim_start_matches("0x");
        let text_end = hex.trim_end_matches('0').len();
        let at = (text_end.saturating_sub(2)) & !1;
        let mut bytes = hex.as_bytes().to_vec();
        bytes[at] = if bytes[at] == b'4' { b'5' } else { b'4' };
        log["data"] = json!(format!("0x{}", String::from_utf8(bytes).unwrap()));
    });
}

/// The logs claimed for another contract's address.
fn other_address(result: &mut Value) {
    each_log(result, |log| {
        log["address"] = json!("0x000000000000000000000000000000000000dead")
    });
}

/// Logs outside the range asked for.
fn out_of_range(result: &mut Value) {
    each_log(result, |log| log["blockNumber"] = json!("0x0"));
}

/// Log pages the node refused so far (its metrics page).
async fn rejected_pages(node: &Node) -> f64 {
    let sample = node.metric("veritas_rejected_log_pages_total").await;
    sample.unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lying_get_logs_is_refused_page_by_page_and_nothing_forged_is_stored() {
    let (chain, mut node, proxy) = crate::support::chain_and_node_behind_proxy(REPLAY).await;
    let lies: [(&str, crate::support::proxy::Lie); 5] = [
        ("block 2^63", block_2_63),
        ("log index 2^64-1", huge_log_index),
        ("altered text", altered_text),
        ("another address", other_address),
        ("out of range", out_of_range),
    ];
    proxy.set_lie(Some(lies[0].1));
    node.start_in_process().await;
    let question = "Does the provider tell the truth?";
    let id = chain.ask(&[question]).await[0];
    for (name, lie) in lies {
        proxy.set_lie(Some(lie));
        let before = rejected_pages(&node).await;
        // Polls back off while they fail (up to 6.4 s apart), hence one refusal per lie.
        wait::until(
            Duration::from_secs(30),
            || format!("lie {name:?} was not refused"),
            async || (rejected_pages(&node).await > before).then_some(()),
        )
        .await;
        assert!(
            node.stages().is_empty(),
            "lie {name:?} reached the store: {:?}",
            node.stages()
        );
        assert!(node.is_running(), "the node died on lie {name:?}");
    }
    assert!(proxy.lies_told() >= 5);

    // The truth, at last: the question is answered, with the text the asker wrote.
    proxy.set_lie(None);
    chain.wait_verdicts(&[id], Duration::from_secs(60)).await;
    let report = node.report_with_tx(id, Duration::from_secs(10)).await;
    assert_eq!(report["question"]["text"], question);
    node.stop_in_process().await;
}
