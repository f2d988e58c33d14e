//! End-to-end: evidence submitted on-chain (`submitEvidence`) against a real anvil and the real
//! `veritas` binary.
//!
//! - submissions appear in the node's final bundle as `source: "submitted"` with the
//!   submitter's address; the stored hash chain ends at the contract's `evidenceHead()`;
//!   `veritas audit --rpc` passes, and a report with one submission removed fails naming it;
//! - while the question is open, a submission triggers a provisional run served by the API,
//!   rate-limited (submissions arriving within the interval are coalesced into one run);
//! - more submissions than the reserved room: the extra ones are dropped with their reason;
//! - a submission mined just before `resolveAfter` but confirmed after it still enters the
//!   final bundle (the final run waits until the store holds `evidenceCount(id)` items);
//! - the watcher notices an `eth_getLogs` page that hides submissions (the hash chain does not
//!   reach `evidenceHead()`), reads it again, and a restart's overlap stores nothing twice.
//!
//! Anvil mines a block every second here, so the chain's clock moves past `resolveAfter`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use alloy::{
    primitives::{Address, U256},
    providers::Provider,
};
use serde_json::Value;
use veritas::{
    contract::{IVeritasOracle, evidence_chain},
    devnet::{ANVIL_KEYS, AnvilOptions},
};

use crate::support::{self, Chain, Node, get_json, veritas, wait};

/// The submitters: anvil's development accounts 3 and 4 (`ANVIL_KEYS` indices).
const SUBMITTERS: [usize; 2] = [3, 4];

/// Seconds between the ask and `resolveAfter`: room for the submissions and a provisional run.
const OPEN_FOR: u64 = 25;

async fn chain_time(chain: &Chain) -> u64 {
    let provider = veritas::chain::connect(&chain.anvil.url, Duration::from_secs(5)).unwrap();
    veritas::chain::latest_block(&provider).await.unwrap().1
}

/// Ask `text` from account 2, open for evidence `OPEN_FOR` seconds of chain time.
async fn ask_open(chain: &Chain, text: &str) -> U256 {
    let resolve_after = chain_time(chain).await + OPEN_FOR;
    chain.ask_paying(text, U256::ZERO, resolve_after).await
}

/// Once every submission is mined, move the chain's clock past `resolveAfter` (the window's
/// end is not what these tests wait for).
async fn close_window(chain: &Chain) {
    chain.advance(OPEN_FOR).await;
}

/// `submitEvidence` from submitter `who` (0 or 1), paying the question's evidence fee.
async fn submit(chain: &Chain, who: usize, id: U256, url: &str, title: &str, snippet: &str) {
    chain
        .submit_evidence(SUBMITTERS[who], id, url, title, snippet)
        .await;
}

fn address(who: usize) -> Address {
    support::address(SUBMITTERS[who])
}

/// The live event stream from its start until a line containing `needle` (10 s at most);
/// returns that line.
async fn read_events_until(api: &str, needle: &str) -> String {
    let mut response = reqwest::get(format!("{api}/events?after=0")).await.unwrap();
    let mut text = String::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let chunk = tokio::time::timeout_at(deadline.into(), response.chunk())
            .await
            .unwrap_or_else(|_| panic!("no {needle:?} event in: {text}"))
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk.unwrap_or_default()));
        if let Some(at) = text.find(needle) {
            let rest = &text[at..];
            if let Some(end) = rest.find("\n\n") {
                return rest[..end].to_owned();
            }
        }
    }
}

/// Configure a committee node (replay juror, demo corpus) with `node_keys` added to `[node]`
/// and `tail` appended to the config.
fn configure_node(chain: &Chain, node_keys: &str, tail: &str) -> Node {
    let node = Node::configure_committee(chain, "{}");
    node.edit_config(
        "drain_timeout = \"5s\"",
        &format!("drain_timeout = \"5s\"\n{node_keys}"),
    );
    let text = std::fs::read_to_string(&node.config).unwrap();
    std::fs::write(&node.config, format!("{text}\n{tail}\n")).unwrap();
    node
}

/// [`configure_node`], started in this process; returns it with its API's base URL.
async fn start_node_in_process(chain: &Chain, node_keys: &str, tail: &str) -> (Node, String) {
    let mut node = configure_node(chain, node_keys, tail);
    node.start_in_process().await;
    let api = format!("http://{}", node.api());
    (node, api)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submissions_enter_the_bundle_run_provisionally_and_audit_against_the_chain() {
    let chain = Chain::start(AnvilOptions {
        block_time: Some(1),
        ..AnvilOptions::default()
    })
    .await;
    let (mut node, api) = start_node_in_process(&chain, "provisional_interval = \"6s\"", "").await;
    let id = ask_open(
        &chain,
        "Did the harbor street bike lane open before April 2026?",
    )
    .await;

    // One submission: a provisional run follows, served by the API.
    submit(
        &chain,
        0,
        id,
        "https://citizen.example/harbor-lane?utm_source=chain",
        "Harbor lane opened",
        "The harbor street bike lane opened to riders on 12 March 2026.",
    )
    .await;
    let first = wait::until(
        Duration::from_secs(20),
        || format!("no provisional run\n{}", node.log_text()),
        async || {
            let v = get_json(&format!("{api}/questions/{id}/provisional")).await;
            v["runs"].as_array().and_then(|r| r.first()).cloned()
        },
    )
    .await;
    assert_eq!(first["submissions"], 1, "{first}");
    assert_eq!(first["summary"]["included"], serde_json::json!([1]));
    assert!(first["summary"]["p_fixed"].is_array(), "{first}");
    // ... and announced on the live event stream.
    let provisional_event = read_events_until(&api, "event: provisional").await;
    assert!(
        provisional_event.contains(&format!("\"question\":\"{id}\"")),
        "{provisional_event}"
    );

    // Two more inside the interval: coalesced into one second run that sees all three.
    submit(
        &chain,
        1,
        id,
        "https://council.example/minutes-2026-03",
        "Council minutes",
        "Minutes record the bike lane on harbor street as complete.",
    )
    .await;
    submit(
        &chain,
        0,
        id,
        "https://citizen.example/photo",
        "Photo of the lane",
        "A photo of cyclists on the new harbor street lane.",
    )
    .await;
    let runs = wait::until(
        Duration::from_secs(30),
        || "no second provisional run".to_owned(),
        async || {
            let v = get_json(&format!("{api}/questions/{id}/provisional")).await;
            let runs = v["runs"].as_array().cloned().unwrap_or_default();
            (runs.len() >= 2).then_some(runs)
        },
    )
    .await;
    assert_eq!(runs[1]["submissions"], 3, "coalesced: {runs:?}");
    let gap = runs[1]["created_at"].as_i64().unwrap() - runs[0]["created_at"].as_i64().unwrap();
    assert!(gap >= 6_000, "rate limited to one run per 6 s: {gap} ms");
    // The question's page carries them too.
    let page = get_json(&format!("{api}/questions/{id}")).await;
    assert!(page["provisional"].as_array().unwrap().len() >= 2, "{page}");
    assert_eq!(page["submissions"].as_array().unwrap().len(), 3, "{page}");

    // The final verdict, after resolveAfter.
    close_window(&chain).await;
    chain.wait_verdicts(&[id], Duration::from_secs(60)).await;
    let report = node.report_with_tx(id, Duration::from_secs(10)).await;
    assert_eq!(report["submissions"]["count"], 3, "{report}");
    let submitted: Vec<&Value> = report["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["source"] == "submitted")
        .collect();
    assert_eq!(submitted.len(), 3, "{}", report["evidence"]);
    assert!(submitted.iter().any(|e| {
        e["url"] == "https://citizen.example/harbor-lane"
            && e["submitter"] == address(0).to_checksum(None)
    }));
    assert!(
        submitted
            .iter()
            .any(|e| e["submitter"] == address(1).to_checksum(None))
    );
    for item in report["submissions"]["items"].as_array().unwrap() {
        assert_eq!(item["status"], "included", "{item}");
    }
    // No provisional run after the question closed, and none was ever posted.
    assert_eq!(chain.verdict_events(id).await, 1);

    // The stored chain: head_0 → ... → the contract's evidenceHead(), every link recomputed.
    let reader = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &reader);
    let chain_id = reader.get_chain_id().await.unwrap();
    // The store's test API: the question's stored submissions, by index (the only question
    // here, so every link of the contract-wide chain).
    let rows = node.store().unwrap().submissions(id).unwrap();
    assert_eq!(rows.len(), 3);
    let mut head = evidence_chain::head0(chain_id, chain.oracle);
    for row in &rows {
        assert_eq!(row.prev_head, head);
        head = evidence_chain::link(head, id, row.submitter, &row.url, &row.title, &row.snippet);
        assert_eq!(row.evidence_head, head);
    }
    assert_eq!(head, oracle.evidenceHead().call().await.unwrap());

    // The audit passes on the report, and fails naming a removed submission.
    let path = node.report_path(id);
    let (code, out, err) = veritas(
        &["audit", path.to_str().unwrap(), "--rpc", &chain.anvil.url],
        node.dir.path(),
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("3 on-chain item(s)"), "{out}");
    let mut edited = report.clone();
    edited["submissions"]["items"]
        .as_array_mut()
        .unwrap()
        .remove(1);
    edited["submissions"]["count"] = serde_json::json!(2);
    let edited_path = node.dir.path().join("dropped-one.json");
    std::fs::write(&edited_path, serde_json::to_string(&edited).unwrap()).unwrap();
    let (code, out, _) = veritas(
        &[
            "audit",
            edited_path.to_str().unwrap(),
            "--rpc",
            &chain.anvil.url,
        ],
        node.dir.path(),
    );
    assert_eq!(code, 1, "{out}");
    let named = out
        .lines()
        .find(|l| l.contains("MISMATCH submissions[2]"))
        .unwrap_or_else(|| panic!("no mismatch naming item 2: {out}"));
    assert!(
        named.contains("missing from the report")
            && named.contains("https://council.example/minutes-2026-03"),
        "{named}"
    );
    node.stop_in_process().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submissions_beyond_the_reserved_room_are_dropped_with_their_reason() {
    let chain = Chain::start(AnvilOptions {
        block_time: Some(1),
        ..AnvilOptions::default()
    })
    .await;
    let (mut node, _api) = start_node_in_process(
        &chain,
        "provisional_interval = \"0s\"",
        "[evidence.bundle]\nmax_submitted = 2",
    )
    .await;
    let id = ask_open(
        &chain,
        "Did the harbor street bike lane open before April 2026?",
    )
    .await;
    for i in 1..=4 {
        submit(
            &chain,
            i % 2,
            id,
            &format!("https://flood.example/{i}"),
            &format!("Claim {i}"),
            &format!("The harbor street bike lane opened, says claim {i}."),
        )
        .await;
    }
    close_window(&chain).await;
    chain.wait_verdicts(&[id], Duration::from_secs(60)).await;
    let report = node.report_with_tx(id, Duration::from_secs(10)).await;
    let items = report["submissions"]["items"].as_array().unwrap();
    let statuses: Vec<&str> = items
        .iter()
        .map(|i| i["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["included", "included", "dropped", "dropped"],
        "{items:?}"
    );
    for (rank, item) in items[2..].iter().enumerate() {
        assert_eq!(item["dropped"]["reason"], "submitted_over_cap", "{item}");
        assert_eq!(item["dropped"]["rank"], rank + 3, "{item}");
        assert_eq!(item["dropped"]["cap"], 2, "{item}");
    }
    let dropped = report["search"]["dropped"].as_array().unwrap();
    assert!(
        dropped
            .iter()
            .any(|d| d["url"] == "https://flood.example/4" && d["reason"] == "submitted_over_cap"),
        "{dropped:?}"
    );
    assert_eq!(
        report["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["source"] == "submitted")
            .count(),
        2
    );
    // A node without provisional runs has none (the store's test API).
    assert_eq!(node.store().unwrap().provisional_runs(id).unwrap().len(), 0);
    let path = node.report_path(id);
    let (code, out, err) = veritas(
        &["audit", path.to_str().unwrap(), "--rpc", &chain.anvil.url],
        node.dir.path(),
    );
    assert_eq!(code, 0, "{out}\n{err}");
    node.stop_in_process().await;
}

/// Poll until caught up.
async fn catch_up(w: &mut veritas::watcher::Watcher) {
    while w.poll_once().await.unwrap().behind {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_page_hiding_submissions_is_noticed_and_read_again() {
    use std::sync::{Arc, atomic::Ordering};
    use support::proxy::{Fault, FaultPlan, start_faulty_proxy};
    use veritas::{
        store::Store,
        watcher::{WatchState, Watcher, WatcherConfig},
    };

    let chain = Chain::start(AnvilOptions::default()).await;
    let (url, proxy) = start_faulty_proxy(&chain.anvil.url, FaultPlan::quiet(1_000)).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open_in(dir.path()).unwrap());
    let watcher = |store: &Arc<Store>| {
        let state = Arc::new(WatchState::default());
        let w = Watcher::new(
            veritas::chain::connect(&url, Duration::from_secs(5)).unwrap(),
            Arc::clone(store),
            WatcherConfig {
                oracle: chain.oracle,
                confirmations: 1,
                poll_interval: Duration::from_millis(50),
                max_log_range: 1_000,
                start_block: 0,
                restart_overlap: 40,
            },
            Arc::clone(&state),
            Arc::new(tokio::sync::Notify::new()),
        )
        .unwrap();
        (w, state)
    };
    let (mut w, state) = watcher(&store);
    let id = ask_open(&chain, "Hidden evidence?").await;
    catch_up(&mut w).await;
    assert!(store.job(id).unwrap().is_some());

    // The next page that holds logs (the two submissions) is answered `[]`.
    proxy.set_plan(FaultPlan {
        empty_pages: 1,
        ..FaultPlan::quiet(1_000)
    });
    submit(&chain, 0, id, "https://a.example/1", "One", "First item.").await;
    submit(&chain, 1, id, "https://a.example/2", "Two", "Second item.").await;
    let cursor = store.cursor().unwrap();
    let err = w.poll_once().await.unwrap_err();
    assert!(
        matches!(err, veritas::chain::ChainError::IncompleteEvidence { .. }),
        "{err}"
    );
    assert!(err.is_retryable());
    assert_eq!(proxy.count(Fault::EmptyPage), 1);
    assert_eq!(store.cursor().unwrap(), cursor, "the cursor stays");
    assert!(store.submissions(id).unwrap().is_empty());
    assert_eq!(state.broken_evidence_pages.load(Ordering::Relaxed), 1);

    catch_up(&mut w).await;
    let stored = store.submissions(id).unwrap();
    assert_eq!(stored.iter().map(|s| s.index).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(stored[1].prev_head, stored[0].evidence_head);
    assert_eq!(state.submissions_seen.load(Ordering::Relaxed), 2);
    drop(w);

    // A restart re-reads the overlap from `evidenceHead()` at the block before it.
    let (mut w, _) = watcher(&store);
    catch_up(&mut w).await;
    assert_eq!(store.submissions(id).unwrap(), stored);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_last_minute_submission_confirmed_after_resolve_after_is_not_missed() {
    let chain = Chain::start(AnvilOptions {
        block_time: Some(1),
        ..AnvilOptions::default()
    })
    .await;
    let mut node = configure_node(&chain, "provisional_interval = \"0s\"", "");
    node.start();
    node.api_addr(Duration::from_secs(30)).await;
    // Five confirmations: an item mined a second before `resolveAfter` is stored ~3 s after
    // the job is due.
    node.edit_config("confirmations = 1", "confirmations = 5");
    node.stop();
    node.start();
    let resolve_after = chain_time(&chain).await + 10;
    let id = chain
        .ask_paying("Did the lane open?", U256::ZERO, resolve_after)
        .await;
    wait::until(
        Duration::from_secs(30),
        || "the chain's clock never reached resolveAfter - 3 s".to_owned(),
        async || (chain_time(&chain).await + 3 >= resolve_after).then_some(()),
    )
    .await;
    submit(
        &chain,
        0,
        id,
        "https://late.example/news",
        "Late news",
        "The lane opened on the last day.",
    )
    .await;
    chain.wait_verdicts(&[id], Duration::from_secs(60)).await;
    let report = node.report_with_tx(id, Duration::from_secs(10)).await;
    assert_eq!(report["submissions"]["count"], 1, "{}", node.log_text());
    assert_eq!(report["submissions"]["items"][0]["status"], "included");
    assert!(
        node.log_text()
            .contains("submissions not complete yet; deferring"),
        "the final run waited for the watcher"
    );
    node.stop();
}

/// Quorum 2: both nodes put the on-chain submissions in their bundles (each with its submitter),
/// each report's links recompute, the chain check finds nothing missing, and the pooled
/// verdict audits with both reports.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_node_of_a_quorum_bundles_the_submissions() {
    let chain = Chain::start_with(
        AnvilOptions {
            block_time: Some(1),
            ..AnvilOptions::default()
        },
        &[1, 3],
        |p| p.quorum = 2,
    )
    .await;
    let mut nodes = Vec::new();
    for key in [1, 3] {
        let mut node = Node::configure_committee(&chain, "{}");
        node.key = ANVIL_KEYS[key];
        node.edit_config(
            "drain_timeout = \"5s\"",
            "drain_timeout = \"5s\"\nprovisional_interval = \"0s\"",
        );
        node.start();
        nodes.push(node);
    }
    let id = ask_open(
        &chain,
        "Did the harbor street bike lane open before April 2026?",
    )
    .await;
    // Keys 5 and 6 submit (the operators' keys send their own reports).
    for (who, url) in [
        (5, "https://citizen.example/harbor-lane"),
        (6, "https://council.example/minutes-2026-03"),
    ] {
        let wallet = chain.wallet(who);
        let receipt = IVeritasOracle::new(chain.oracle, &wallet)
            .submitEvidence(
                id,
                url.into(),
                "Harbor lane".into(),
                "It opened in March 2026.".into(),
            )
            .send()
            .await
            .unwrap()
            .get_receipt()
            .await
            .unwrap();
        assert!(receipt.status(), "submitEvidence reverted");
    }
    close_window(&chain).await;
    chain
        .wait_verdicts(&[id], Duration::from_secs(OPEN_FOR + 60))
        .await;
    let mut args = vec![
        "audit".to_string(),
        "--question".into(),
        id.to_string(),
        "--rpc".into(),
        chain.anvil.url.clone(),
    ];
    for node in &nodes {
        let report = node.report_with_tx(id, Duration::from_secs(30)).await;
        let submitted: Vec<String> = report["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["source"] == "submitted")
            .map(|e| e["submitter"].as_str().unwrap().to_lowercase())
            .collect();
        let expected: Vec<String> = [5, 6]
            .iter()
            .map(|k| support::address(*k).to_string().to_lowercase())
            .collect();
        assert_eq!(submitted, expected, "{}", report["evidence"]);
        assert_eq!(report["submissions"]["count"], 2);
        let typed = veritas::audit::AuditReport::from_json(&report).unwrap();
        assert_eq!(veritas::audit::check_submissions(&typed).unwrap(), vec![]);
        let provider = veritas::chain::connect(&chain.anvil.url, Duration::from_secs(5)).unwrap();
        let missing = veritas::audit::compare_submissions_with_chain(
            &typed,
            chain.question(&provider, id),
            0,
        )
        .await
        .unwrap();
        assert_eq!(missing, vec![]);
        args.push("--report".into());
        args.push(node.report_path(id).display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = veritas(&args, nodes[0].dir.path());
    assert_eq!(code, 0, "{out}\n{err}");
    for node in &mut nodes {
        node.stop();
    }
}
