//! Several independent nodes settle one verdict (contract v2), against a real anvil and real
//! `veritas run` processes, each with its own key, data directory and scripted committee:
//!
//! - 3 nodes, quorum 2, one SIGKILLed for the whole run → every question is final from the
//!   other two; the killed node, restarted, reports nothing stale and sends nothing;
//! - a node whose committee votes the other way → escalated, never settled by the majority;
//! - the report window running out with one report → the node finalizes it escalated; with
//!   none → `Expired` and the asker's fee refunded;
//! - a dispute → `Disputed`, the node's second opinion for the court, the court (contract v3's
//!   `VeritasCourt`) ruling both ways, and every balance checked to the wei;
//! - an escalation nobody takes to court → `Defaulted` once its court window is over, followed by
//!   every node;
//! - a key added after an ask → never reports on that question (contract v3's operator epochs),
//!   and its node fails the question before any committee runs.

use std::{collections::BTreeSet, time::Duration};

use alloy::{
    primitives::{Address, U256, aliases::U96},
    providers::Provider,
};
use veritas::{
    contract::{IVeritasOracle, IVeritasOracle::VerdictStatus as S},
    devnet::AnvilOptions,
};

use crate::support::{Chain, Node, address, get_json, wait};

const YES_MAJORITY: &str = r#"{"default": {"votes": ["YES", "YES", "NO"]}}"#;
const NO_MAJORITY: &str = r#"{"default": {"votes": ["NO", "NO", "YES"]}}"#;
const WAIT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_nodes_quorum_two_finalise_without_the_killed_one() {
    let chain = Chain::start_with(AnvilOptions::default(), &[1, 3, 4], |p| p.quorum = 2).await;
    let mut nodes: Vec<Node> = [1, 3, 4]
        .into_iter()
        .map(|key| Node::configure_as(&chain, key, YES_MAJORITY, ""))
        .collect();
    for node in &mut nodes {
        node.start();
    }
    // The third node is up, then SIGKILLed before any question exists.
    nodes[2].api_addr(WAIT).await;
    nodes[2].kill();

    let ids = chain.ask(&["First?", "Second?", "Third?", "Fourth?"]).await;
    let reader = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &reader);
    for &id in &ids {
        chain.wait_status(id, S::Resolved, WAIT).await;
        let reports = chain.reports(id).await;
        let operators: BTreeSet<Address> = reports.iter().map(|r| r.0).collect();
        assert_eq!(operators, BTreeSet::from([address(1), address(3)]), "{id}");
        assert_eq!(chain.verdict_events(id).await, 1);
        // The contract pooled the two reports' counts: α = Σ counts + 1.
        let pooled: [u64; 3] =
            std::array::from_fn(|k| reports.iter().map(|r| u64::try_from(r.1[k]).unwrap()).sum());
        let v = oracle.getVerdict(id).call().await.unwrap();
        let wad = veritas::stats::to_wad(pooled);
        assert_eq!(
            [v.pYes, v.pNo, v.pNull],
            wad.map(U256::from),
            "pooled triple of {id}"
        );
        for node in &nodes[..2] {
            node.wait_stage(id, "final", WAIT).await;
        }
    }
    // Each node drew its own committee from the chain's values: same block, other operator.
    let seeds: Vec<_> = nodes[..2]
        .iter()
        .map(|n| n.report(ids[0])["committee"]["seed_inputs"].clone())
        .collect();
    assert_eq!(seeds[0]["block_hash"], seeds[1]["block_hash"]);
    assert_ne!(seeds[0]["operator"], seeds[1]["operator"]);
    assert_ne!(
        nodes[0].report(ids[0])["committee"]["seed"],
        nodes[1].report(ids[0])["committee"]["seed"]
    );

    // The killed node comes back: every question already has its verdict.
    nodes[2].start();
    for &id in &ids {
        nodes[2].wait_stage(id, "final", WAIT).await;
        assert_eq!(chain.reports(id).await.len(), 2, "a stale report for {id}");
        assert_eq!(chain.verdict_events(id).await, 1);
    }
    let sent = nodes[2].store().unwrap().all_txs().unwrap();
    assert!(
        sent.is_empty(),
        "the restarted node sent transactions: {sent:?}"
    );
    for node in &mut nodes {
        node.stop();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_voting_the_other_way_escalates_instead_of_being_outvoted() {
    let chain = Chain::start_with(AnvilOptions::default(), &[1, 3], |p| p.quorum = 2).await;
    let mut yes = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    let mut no = Node::configure_as(&chain, 3, NO_MAJORITY, "");
    yes.start();
    no.start();
    let id = chain.ask(&["Did it happen?"]).await[0];
    chain.wait_status(id, S::Escalated, WAIT).await;
    let reports = chain.reports(id).await;
    assert_eq!(reports.len(), 2);
    // Neither operator escalated: the disagreement between them did.
    assert!(reports.iter().all(|r| !r.2), "{reports:?}");
    for node in [&yes, &no] {
        node.wait_stage(id, "finalised", WAIT).await;
    }
    yes.stop();
    no.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_escalation_nobody_takes_to_court_defaults_and_every_node_follows() {
    let chain = Chain::start_with(AnvilOptions::default(), &[1, 3], |p| p.quorum = 2).await;
    let mut yes = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    let mut no = Node::configure_as(&chain, 3, NO_MAJORITY, "");
    yes.start();
    no.start();
    let id = chain.ask(&["Did it happen, or not?"]).await[0];
    chain.wait_status(id, S::Escalated, WAIT).await;
    let reader = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &reader);
    let window = oracle
        .questionParameters(id)
        .call()
        .await
        .unwrap()
        .arbitrationWindow;
    // Before the court window is over, nobody can close it by default.
    let anyone = chain.wallet(5);
    let as_anyone = IVeritasOracle::new(chain.oracle, &anyone);
    assert!(as_anyone.resolveByDefault(id).call().await.is_err());
    chain.advance(u64::from(window) + 1).await;
    let receipt = as_anyone
        .resolveByDefault(id)
        .send()
        .await
        .unwrap()
        .get_receipt()
        .await
        .unwrap();
    assert!(receipt.status());
    assert_eq!(chain.status(id).await, S::Defaulted);
    let v = oracle.getVerdict(id).call().await.unwrap();
    assert_eq!(
        [v.pYes, v.pNo, v.pNull],
        veritas::contract::UNRESOLVABLE_TRIPLE
    );
    for node in [&yes, &no] {
        node.wait_stage(id, "defaulted", WAIT).await;
    }
    yes.stop();
    no.stop();
}

/// Contract v3 binds a question to the operators of its ask's epoch: a key added afterwards
/// never reports on it (the owner cannot reach an open question's quorum with new keys), and
/// its node fails that question at once, before any committee runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_added_after_the_ask_fails_that_question_before_any_committee() {
    let chain = Chain::start_with(AnvilOptions::default(), &[1], |_| {}).await;
    let before = chain.ask(&["Asked before the new key?"]).await[0];
    chain.add_operator(3).await;
    let mut late = Node::configure_as(&chain, 3, YES_MAJORITY, "");
    late.start();
    late.wait_stage(before, "failed", WAIT).await;
    let reason = late.last_error(before);
    assert!(reason.contains("epoch"), "{reason}");
    assert!(
        !late.report_path(before).exists(),
        "a committee ran for a question the key cannot report on"
    );
    // The operator of the ask's epoch answers it; a question asked now is the new key's too.
    let mut first = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    first.start();
    chain.wait_status(before, S::Resolved, WAIT).await;
    assert_eq!(chain.reports(before).await[0].0, address(1));
    first.stop();
    let after = chain.ask(&["Asked after the new key?"]).await[0];
    chain.wait_status(after, S::Resolved, WAIT).await;
    assert_eq!(chain.reports(after).await[0].0, address(3));
    late.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_report_window_escalates_one_report_and_expires_none() {
    let fee = U256::from(1_000_000_000_000_000u64);
    let chain = Chain::start_with(AnvilOptions::default(), &[1, 3], |p| {
        p.quorum = 2;
        p.reportWindow = 30;
        p.askFee = U96::from(1_000_000_000_000_000u64);
    })
    .await;
    // One report of the two needed: the node closes the window itself once it is over.
    let mut node = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    node.start();
    let one = chain.ask_paying("One report?", fee, 0).await;
    node.wait_stage(one, "reported", WAIT).await;
    assert_eq!(chain.status(one).await, S::Asked);
    chain.advance(31).await;
    chain.wait_status(one, S::Escalated, WAIT).await;
    node.wait_stage(one, "finalised", WAIT).await;
    node.stop();

    // No report at all: anyone may close it, and the asker gets the fee back.
    let none = chain.ask_paying("No report?", fee, 0).await;
    chain.advance(31).await;
    let asker = chain.wallet(2);
    let receipt = IVeritasOracle::new(chain.oracle, &asker)
        .finalize(none)
        .send()
        .await
        .unwrap()
        .get_receipt()
        .await
        .unwrap();
    assert!(receipt.status());
    assert_eq!(chain.status(none).await, S::Expired);
    assert_eq!(chain.credits(address(2)).await, fee);
    let before = chain.reader().get_balance(address(2)).await.unwrap();
    let receipt = IVeritasOracle::new(chain.oracle, &asker)
        .withdraw()
        .send()
        .await
        .unwrap()
        .get_receipt()
        .await
        .unwrap();
    let gas = U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
    let after = chain.reader().get_balance(address(2)).await.unwrap();
    assert_eq!(after, before + fee - gas, "the refund, to the wei");
    // A node started afterwards sees the question end without running its committee.
    node.start();
    node.wait_stage(none, "expired", WAIT).await;
    assert!(!node.report_path(none).exists());
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dispute_goes_to_the_arbiter_and_every_wei_is_accounted_for() {
    let fee = U256::from(1_000_000_000_000_000u64);
    let bond = U256::from(10_000_000_000_000_000u64);
    let chain = Chain::start_with(AnvilOptions::default(), &[1], |p| {
        p.challengeWindow = 3600;
        p.askFee = U96::from(1_000_000_000_000_000u64);
        p.disputeBond = U96::from(10_000_000_000_000_000u64);
    })
    .await;
    let mut node = Node::configure_as(&chain, 1, YES_MAJORITY, "");
    node.start();
    let upheld = chain.ask_paying("Upheld?", fee, 0).await;
    let overturned = chain.ask_paying("Overturned?", fee, 0).await;
    for id in [upheld, overturned] {
        chain.wait_status(id, S::Resolved, WAIT).await;
        node.wait_stage(id, "finalised", WAIT).await;
    }
    let reader = chain.reader();
    let balance = |who: Address| {
        let reader = reader.clone();
        async move { reader.get_balance(who).await.unwrap() }
    };
    let start_balance = balance(chain.oracle).await;
    // The two fees and the operator's stake (the devnet stakes for each operator it adds).
    assert_eq!(
        start_balance,
        fee * U256::from(2) + veritas::devnet::DEVNET_OPERATOR_STAKE
    );

    // Key 5 disputes both within the window.
    let disputer = chain.wallet(5);
    let disputer_start = balance(address(5)).await;
    let mut disputer_gas = U256::ZERO;
    // Each claims a NO-leaning triple (contract v3: a dispute states what it holds right).
    let wad = |x: u64| U256::from(x) * U256::from(10_000_000_000_000_000u64);
    let claim = [wad(10), wad(85), wad(5)];
    for id in [upheld, overturned] {
        let receipt = IVeritasOracle::new(chain.oracle, &disputer)
            .dispute(id, claim[0], claim[1], claim[2], address(5))
            .value(bond)
            .send()
            .await
            .unwrap()
            .get_receipt()
            .await
            .unwrap();
        assert!(receipt.status());
        disputer_gas += U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
        assert_eq!(chain.status(id).await, S::Disputed);
    }
    // The node follows, and its committee gives the arbiter a second opinion.
    let addr = node.api_addr(WAIT).await;
    for id in [upheld, overturned] {
        node.wait_stage(id, "disputed", WAIT).await;
        let body = wait::until(
            WAIT,
            || format!("no second opinion for {id}"),
            async || {
                let body = get_json(&format!("http://{addr}/questions/{id}")).await;
                body["second_opinion"]["root"].is_string().then_some(body)
            },
        )
        .await;
        assert_eq!(body["lifecycle"]["status"], "Disputed");
        assert_eq!(
            body["lifecycle"]["disputer"]
                .as_str()
                .unwrap()
                .to_lowercase(),
            address(5).to_string().to_lowercase()
        );
        assert_eq!(body["lifecycle"]["bond"], bond.to_string());
        assert_eq!(body["operator_reports"].as_array().unwrap().len(), 1);
    }

    // The court (the devnet's VeritasCourt, judge key 0) keeps the verdict on one and takes the
    // disputer's triple on the other.
    const VERDICT_STANDS: u64 = 1;
    const DISPUTER_TRIPLE: u64 = 6;
    for (id, ruling) in [(upheld, VERDICT_STANDS), (overturned, DISPUTER_TRIPLE)] {
        chain.rule(id, ruling).await;
        assert_eq!(chain.status(id).await, S::Arbitrated);
        node.wait_stage(id, "arbitrated", WAIT).await;
    }
    // Upheld: the operator gets the fee and half the disputer's bond (the other half is burned);
    // overturned: the disputer gets its bond back, the fee and half the operator's slashed
    // report bond (contract #26).
    let half = bond / U256::from(2);
    let operator_credit = fee + half;
    let disputer_credit = fee + bond + half;
    assert_eq!(chain.credits(address(1)).await, operator_credit);
    assert_eq!(chain.credits(address(5)).await, disputer_credit);
    let (staked, locked, _) = {
        let s = IVeritasOracle::new(chain.oracle, &chain.reader())
            .operatorStake(address(1))
            .call()
            .await
            .unwrap();
        (s.staked, s.locked, s.openReports)
    };
    assert_eq!(
        staked,
        veritas::devnet::DEVNET_OPERATOR_STAKE - bond,
        "slashed once"
    );
    assert_eq!(locked, U256::ZERO);
    for (key, credit) in [(1, operator_credit), (5, disputer_credit)] {
        let who = address(key);
        let before = balance(who).await;
        let receipt = IVeritasOracle::new(chain.oracle, &chain.wallet(key))
            .withdraw()
            .send()
            .await
            .unwrap()
            .get_receipt()
            .await
            .unwrap();
        let gas = U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
        assert_eq!(balance(who).await, before + credit - gas, "key {key}");
        if key == 5 {
            disputer_gas += gas;
        }
    }
    // Two bonds paid, one returned with the overturned question's fee and half the slashed
    // bond: down half a bond, up the fee, less gas.
    assert_eq!(
        balance(address(5)).await,
        disputer_start + fee - half - disputer_gas
    );
    // The oracle keeps the operator's remaining stake and the burned halves, nothing else.
    assert_eq!(
        balance(chain.oracle).await,
        staked + bond,
        "the oracle keeps only the stake and the burned wei"
    );
    assert_eq!(
        chain
            .credits(
                "0x000000000000000000000000000000000000dEaD"
                    .parse()
                    .unwrap()
            )
            .await,
        bond
    );
    node.stop();
}
