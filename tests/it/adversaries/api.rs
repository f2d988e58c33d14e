//! Anyone who reaches the HTTP API as an adversary: a flood of the requests that read the
//! chain (a check is about ten views) must not spend the RPC the node needs. Past
//! `api::shed::MAX_CHAIN_READS_IN_FLIGHT` such requests in flight, one more is answered 503
//! at once, while monitoring (`/metrics`) and store-only routes still answer. The node runs in
//! this process against anvil behind a proxy (`support::proxy`, real HTTP on loopback) that
//! holds every `eth_call` while the test says so: requests held inside their chain reads, not
//! a delay.

use std::{sync::atomic::Ordering, time::Duration};

use alloy::primitives::Address;
use reqwest::StatusCode;
use veritas::api::shed::MAX_CHAIN_READS_IN_FLIGHT;

use crate::support::wait;

const REPLAY: &str = r#"{"default": {"votes": ["YES", "YES", "YES", "YES", "YES", "YES"]}}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_chain_reading_requests_is_shed_past_the_bound_and_monitoring_still_answers() {
    let (chain, mut node, proxy) = crate::support::chain_and_node_behind_proxy(REPLAY).await;
    node.start_in_process().await;
    let id = chain.ask(&["Does the API bound its chain reads?"]).await[0];
    chain.wait_verdicts(&[id], Duration::from_secs(60)).await;
    let api = format!("http://{}", node.api_addr(Duration::from_secs(30)).await);
    let check = format!(
        "{api}/questions/{id}/check/finalize?from={}",
        Address::repeat_byte(0x11)
    );
    let client = reqwest::Client::new();
    let answered = client.get(&check).send().await.unwrap().status();
    assert!(
        answered == StatusCode::OK || answered == StatusCode::CONFLICT,
        "an unheld check answers with a plan or the contract's refusal: {answered}"
    );

    // Four more than the bound, at once, while every view hangs: exactly the bound's worth
    // are let in (held inside their chain reads), the four others are answered 503 at once.
    proxy.hold_calls.store(true, Ordering::Relaxed);
    const EXTRA: usize = 4;
    let flood: Vec<_> = (0..MAX_CHAIN_READS_IN_FLIGHT + EXTRA)
        .map(|_| tokio::spawn(client.get(&check).send()))
        .collect();
    wait::until(
        Duration::from_secs(30),
        || format!("{EXTRA} requests past the bound were not answered while every view hung"),
        async || (flood.iter().filter(|r| r.is_finished()).count() >= EXTRA).then_some(()),
    )
    .await;
    // Outside the bound, during the flood: the scrape (its chain reads time out at 3 s, the
    // page still comes) and a store-only route.
    let scrape = client.get(format!("{api}/metrics")).send().await.unwrap();
    assert_eq!(scrape.status(), StatusCode::OK);
    let provisional = client
        .get(format!("{api}/questions/{id}/provisional"))
        .send()
        .await
        .unwrap();
    assert_eq!(provisional.status(), StatusCode::OK);

    // The provider answers again: the held requests end (a plan, a refusal, or 502 if they
    // outlived the check's own 10 s bound on a slow machine), and none of them was shed.
    proxy.hold_calls.store(false, Ordering::Relaxed);
    let mut shed = Vec::new();
    for request in flood {
        let answer = request.await.unwrap().unwrap();
        if answer.status() == StatusCode::SERVICE_UNAVAILABLE {
            shed.push(answer);
        }
    }
    assert_eq!(
        shed.len(),
        EXTRA,
        "exactly the requests past the bound are shed"
    );
    for answer in shed {
        assert_eq!(answer.headers()["retry-after"], "1");
        let why: serde_json::Value = answer.json().await.unwrap();
        assert!(why["error"].as_str().unwrap().starts_with("busy"), "{why}");
    }
    let again = wait::until(
        Duration::from_secs(30),
        || "the bound did not free after the flood".to_owned(),
        async || {
            let status = client.get(&check).send().await.ok()?.status();
            (status != StatusCode::SERVICE_UNAVAILABLE).then_some(status)
        },
    )
    .await;
    assert!(
        again == StatusCode::OK || again == StatusCode::CONFLICT,
        "{again}"
    );
    assert!(node.is_running());
    node.stop_in_process().await;
}
