//! Acting from the web view with the user's own wallet, end to end: a real anvil, a real node,
//! headless Chromium driven by `tests/browser/wallet.mjs` with an injected EIP-1193 provider
//! that signs with a test key (viem's local account) and sends raw transactions to the anvil.
//!
//! From the question page: connect, clarify, submit evidence (the provisional posterior appears
//! without a reload), refused actions that send nothing (late evidence, a late clarification,
//! a zero beneficiary, an appeal before a court and a finalize after the verdict refused by the
//! node's check, `GET /questions/{id}/check/{action}`, with the contract's sentence; an item
//! reviewed while open and sent after by the contract's simulation, explained by `POST
//! /explain`; a malformed percentage by the node's message), a dispute with its bond, court fee
//! and deadline shown first; the court's page lists the case with both
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
    support::{self, Chain, Node, get_json},
    web_view::{INSTALL_CHROMIUM, Script, chromium, out_dir},
};

/// The scripted resolver's votes: its verdict resolves (not escalated), so it can be disputed.
const REPLAY: &str = r#"{"default": {"votes": ["YES", "YES", "NO", "YES", "NULL", "YES"]}}"#;

/// The wallet's account: anvil's development key 5 (no operator, not the judge).
const WALLET: usize = 5;

/// Seconds of chain time the question stays open for evidence: the browser starts, connects,
/// submits and sees a provisional run within it.
const OPEN_FOR: u64 = 45;

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
    // The page's part inside the window is done: the chain's clock moves past the window instead
    // of the test waiting it out (the window's end is what the refusals below are about).
    chain.advance(OPEN_FOR).await;

    chain
        .wait_status(
            id,
            IVeritasOracle::VerdictStatus::Resolved,
            Duration::from_secs(90),
        )
        .await;
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
    assert_eq!(
        result["refused"][1], result["refused"][2],
        "the simulation and the node's check refuse late evidence alike: {result}"
    );
    assert!(
        result["malformed"]["error"] == "",
        "a malformed percentage is the node's message, not a contract error: {result}"
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

/// `GET /questions/{id}/check/{action}` against a real chain, and the CLI beside it: an
/// accepted plan (the call, its value, the lines), a refusal with the contract's sentence
/// (409), malformed input (400), an unknown action (404); and for the same chain state the
/// page's endpoint and `veritas evidence submit` refuse with the same sentence (one rule in
/// `contract::roles`, two tools).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_endpoint_plans_refuses_as_the_contract_and_agrees_with_the_cli() {
    let (chain, node) = support::chain_and_node_in_process(REPLAY, "").await;
    let api = format!("http://{}", node.api_addr(Duration::from_secs(30)).await);
    let rpc = veritas::chain::connect(&chain.anvil.url, Duration::from_secs(5)).unwrap();
    let now = veritas::chain::latest_block(&rpc).await.unwrap().1;
    let id = chain
        .ask_as(WALLET, "Is the ferry running?", U256::ZERO, now + 3600)
        .await;
    let from = support::address(WALLET).to_string();
    let check = |action: &str, query: &[(&str, &str)]| {
        let url =
            reqwest::Url::parse_with_params(&format!("{api}/questions/{id}/check/{action}"), query)
                .unwrap();
        async move {
            let r = reqwest::get(url).await.unwrap();
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap())
        }
    };
    let evidence = [
        ("from", from.as_str()),
        ("url", "https://ferry.example/timetable"),
        ("title", "Timetable"),
        ("snippet", "Sailings resume on Monday."),
    ];

    // Accepted: the call the page encodes, the fee it pays, the lines it shows.
    let (status, plan) = check("evidence", &evidence).await;
    assert_eq!(status, 200, "{plan}");
    assert_eq!(plan["call"]["function"], "submitEvidence", "{plan}");
    assert_eq!(plan["call"]["args"][0], id.to_string());
    assert_eq!(plan["call"]["args"][1], "https://ferry.example/timetable");
    let reader = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &reader);
    let fee = oracle.nextEvidenceFee(id).call().await.unwrap();
    assert_eq!(plan["value"], fee.to_string(), "a decimal string: {plan}");
    assert_eq!(plan["lines"][0][0], "evidence fee", "{plan}");
    let (status, plan) = check("clarify", &[("from", &from), ("text", "Any sailing.")]).await;
    assert_eq!(status, 200, "{plan}");
    assert_eq!(plan["value"], "0");

    // Refused by the contract's rules: its error, arguments and sentence.
    let stranger = support::address(SUBMITTER_KEY).to_string();
    let (status, refused) = check("clarify", &[("from", &stranger), ("text", "Mine.")]).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["error"], "VeritasNotAsker");
    assert_eq!(refused["args"][1]["value"], stranger, "{refused}");
    let (status, refused) = check("appeal", &[("from", &from)]).await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (409, Some("VeritasNotInCourt"))
    );

    // Malformed input: 400 with a message; an unknown action: 404.
    let (status, bad) = check("appeal", &[("from", "0x12")]).await;
    assert_eq!(status, 400, "{bad}");
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .contains("from is not an address"),
        "{bad}"
    );
    let dispute = [
        ("from", from.as_str()),
        ("yes", "ten"),
        ("no", "85"),
        ("null", "5"),
    ];
    let (status, bad) = check("dispute", &dispute).await;
    assert_eq!(status, 400, "{bad}");
    assert!(
        bad["error"]
            .as_str()
            .unwrap()
            .contains("is not a percentage"),
        "{bad}"
    );
    let (status, bad) = check("appeal", &[("from", from.as_str()), ("amount", "1")]).await;
    assert_eq!(status, 400, "an unknown field: {bad}");
    let (status, bad) = check("withdraw", &[("from", &from)]).await;
    assert_eq!(status, 404, "{bad}");

    // The same chain state, the page's endpoint and the CLI: the same refusal sentence.
    chain.advance(3601).await;
    let (status, refused) = check("evidence", &evidence).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["error"], "VeritasEvidenceClosed");
    let sentence = refused["sentence"].as_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let oracle_address = chain.oracle.to_string();
    let id_text = id.to_string();
    let (code, _, err) = support::veritas_as(
        &[
            "evidence",
            "submit",
            &id_text,
            "--url",
            evidence[1].1,
            "--title",
            evidence[2].1,
            "--snippet",
            evidence[3].1,
            "--rpc-url",
            &chain.anvil.url,
            "--oracle",
            &oracle_address,
        ],
        dir.path(),
        Some(ANVIL_KEYS[WALLET]),
    );
    assert_eq!(code, 2, "a refusal exits 2: {err}");
    assert!(
        err.contains(&format!("VeritasEvidenceClosed: {sentence}"))
            && err.contains("checked before sending"),
        "the CLI and the page refuse alike:\nCLI: {err}\npage: {sentence}"
    );
}

/// An account that is neither operator, judge nor the wallet's.
const SUBMITTER_KEY: usize = 8;
