//! Acting from the web view with the user's own wallet, end to end: a real anvil, a real node,
//! headless Chromium driven by `tests/browser/wallet.mjs` with an injected EIP-1193 provider
//! that signs with a test key (viem's local account) and sends raw transactions to the anvil.
//!
//! From the question page: connect, submit evidence (the provisional posterior appears without a
//! reload), four refused actions that send nothing (late evidence, an appeal before a court and
//! a finalize after the verdict refused by the page's checks, a zero beneficiary by the
//! contract's simulation; each with the contract's sentence from `POST /explain`), a dispute
//! with its bond, court fee and deadline shown first; the court's page lists the case with both
//! sides and its ERC-1497 case file; the judge (this test) rules and the page shows the ruling.
//! The node's court and wallet routes (`/cases`, `/cases/{id}/evidence.json`, `/abi`,
//! `/explain`) are checked here as JSON.

use std::time::Duration;

use alloy::{
    primitives::{Address, U256, aliases::U96},
    sol_types::SolError,
};
use serde_json::Value;
use veritas::{
    contract::IVeritasOracle,
    devnet::{ANVIL_KEYS, AnvilOptions},
};

use crate::{
    support::{self, Chain, Node},
    web_view::{INSTALL_CHROMIUM, Script, chromium, out_dir},
};

/// The scripted resolver's votes: its verdict resolves (not escalated), so it can be disputed.
const REPLAY: &str = r#"{"default": {"votes": ["YES", "YES", "NO", "YES", "NULL", "YES"]}}"#;

/// The wallet's account: anvil's development key 5 (no operator, not the judge).
const WALLET: usize = 5;

/// Seconds of chain time the question stays open for evidence: the browser starts, connects,
/// submits and sees a provisional run within it.
const OPEN_FOR: u64 = 45;

async fn get_json(url: &str) -> Value {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wallet_submits_evidence_disputes_and_sees_the_ruling_from_the_web_view() {
    let Some(browser) = support::tool_or_skip(chromium(), "chromium", INSTALL_CHROMIUM) else {
        return;
    };
    assert!(
        veritas::web::wallet_bundled(),
        "this node was built without the wallet bundle: run `make wallet` and build again"
    );
    let chain = Chain::start_with(
        AnvilOptions {
            block_time: Some(1),
            ..AnvilOptions::default()
        },
        &[1],
        |p| {
            p.challengeWindow = 3600;
            // One BOND_UNIT: contract v3 refuses a smaller nonzero bond.
            p.disputeBond = U96::from(1_000_000_000_000u64);
        },
    )
    .await;
    // The scripted resolver (as in `web_view`'s pooled test): it resolves whatever the evidence,
    // and its bundle holds the question only (the committee path's routing guards escalated this
    // question in a trial, and an escalated verdict cannot be disputed).
    let mut node = Node::configure_as(&chain, 1, REPLAY, "");
    node.edit_config(
        "drain_timeout = \"5s\"",
        "drain_timeout = \"5s\"\nprovisional_interval = \"1s\"",
    );
    node.start();
    let addr = node.api_addr(Duration::from_secs(30)).await;
    let api = format!("http://{addr}");
    let rpc = veritas::chain::connect(&chain.anvil.url, Duration::from_secs(5)).unwrap();
    let now = veritas::chain::latest_block(&rpc).await.unwrap().1;
    // The wallet's account asks, so that the page can clarify the question.
    let id = chain
        .ask_as(
            WALLET,
            "Did the Harbour Street protected bike lane open before April 2026?",
            U256::ZERO,
            now + OPEN_FOR,
        )
        .await;

    let id_text = id.to_string();
    let mut script = Script::run(
        "wallet.mjs",
        &browser,
        &addr,
        &[
            "--question",
            &id_text,
            "--rpc",
            &chain.anvil.url,
            "--key",
            ANVIL_KEYS[WALLET],
        ],
    );
    let line = script.next();
    assert_eq!(
        line,
        "EVIDENCE",
        "browser script: {line}\n{}",
        node.log_text()
    );
    let reader = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &reader);
    let mine = oracle
        .evidenceOf(id, support::address(WALLET))
        .call()
        .await
        .unwrap();
    assert_eq!(mine.items, U256::from(1), "the page's evidence is on-chain");
    assert_eq!(
        oracle.clarificationCount(id).call().await.unwrap(),
        U256::from(1),
        "the page's clarification is on-chain"
    );

    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    while chain.status(id).await != IVeritasOracle::VerdictStatus::Resolved {
        assert!(
            std::time::Instant::now() < deadline,
            "question {id} is {:?}, not Resolved\n{}",
            chain.status(id).await,
            node.log_text()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    node.wait_stage(id, "finalised", Duration::from_secs(30))
        .await;
    script.send("RESOLVED");
    let line = script.next();
    assert_eq!(
        line,
        "DISPUTED",
        "browser script: {line}\n{}",
        node.log_text()
    );
    let case = oracle.getCase(id).call().await.unwrap();
    assert_eq!(case.disputer, support::address(WALLET));

    // The court's routes, as JSON: typed values (addresses, decimal strings, unix seconds).
    let cases = get_json(&format!("{api}/cases")).await;
    let listed = &cases["cases"][0];
    assert_eq!(listed["id"], id_text, "{cases}");
    assert_eq!(listed["status"], "disputed");
    let address = |v: &Value| v.as_str().unwrap().parse::<Address>().unwrap();
    assert_eq!(
        address(&listed["court"]["disputer"]),
        support::address(WALLET),
        "{listed}"
    );
    let wad = |pct: u64| (U256::from(pct) * U256::from(10u64).pow(U256::from(16))).to_string();
    assert_eq!(
        listed["court"]["claimed"],
        serde_json::json!([wad(10), wad(85), wad(5)])
    );
    assert_eq!(listed["court"]["deadline"], case.deadline);
    assert_eq!(listed["submissions"].as_array().unwrap().len(), 1);
    // The other side: the bundle the node's report commits to (this node's own report: it has
    // the file; the scripted resolver's bundle holds no item).
    assert!(listed["reports"][0]["evidence"].is_array(), "{listed}");
    assert!(listed["second_opinion"]["stats"].is_object(), "{listed}");
    let file = reqwest::get(format!("{api}/cases/{id}/evidence.json"))
        .await
        .unwrap();
    assert_eq!(
        file.headers()["content-disposition"],
        format!("attachment; filename=\"veritas-case-{id}.json\"").as_str()
    );
    let file: Value = file.json().await.unwrap();
    assert_eq!(file["disputeID"], case.disputeId.to_string());
    assert_eq!(
        reqwest::get(format!("{api}/cases/999/evidence.json"))
            .await
            .unwrap()
            .status(),
        404
    );
    // The sentences come from the node: revert data in, the contract's sentence out.
    let client = reqwest::Client::new();
    let data = IVeritasOracle::VeritasZeroAddress {}.abi_encode();
    let explained: Value = client
        .post(format!("{api}/explain"))
        .json(&serde_json::json!({"data": alloy::hex::encode_prefixed(data)}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        explained["sentence"],
        "The zero address is not allowed here."
    );
    let unknown = client
        .post(format!("{api}/explain"))
        .json(&serde_json::json!({"data": "0xdeadbeef"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 422);
    let abi = get_json(&format!("{api}/abi")).await;
    assert_eq!(address(&abi["oracle"]), chain.oracle);
    assert_eq!(abi["chain_id"], 31337);

    // The judge rules NO (3) and executes the ruling.
    chain.rule(id, 3).await;
    script.send("RULED");
    let result = script.result(|| node.log_text());
    eprintln!("wallet: {result}");
    assert_eq!(
        result["sent"], 3,
        "the clarification, the evidence and the dispute only: {result}"
    );
    let refused: Vec<&str> = result["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["error"].as_str().unwrap())
        .collect();
    assert_eq!(
        refused,
        [
            "VeritasClarificationLength",
            "VeritasEvidenceClosed",
            "VeritasClarificationClosed",
            "VeritasZeroAddress",
            "VeritasNotInCourt",
            "VeritasNotOpen"
        ]
    );
    assert!(
        result["refused"][1]["sentence"]
            .as_str()
            .unwrap()
            .contains("is accepted only before its"),
        "{result}"
    );
    assert!(
        !node
            .log_text()
            .contains(ANVIL_KEYS[WALLET].trim_start_matches("0x")),
        "the wallet's key reached the node"
    );
    for shot in ["wallet-connected.png", "court.png"] {
        assert!(out_dir().join(shot).is_file(), "no screenshot {shot}");
    }
    node.stop();
}
