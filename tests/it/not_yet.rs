//! "Not yet", end to end: three real `veritas run` processes (keys 1, 3, 4; quorum 3) on a real
//! anvil, each with its own store, resolving with the replay resolver (scripted votes, the
//! product's report and routing path).
//!
//! - a question asked before its deadline, whose committee leans NO, is deferred (every node
//!   says "not yet"), not settled NO and not escalated; with anvil's clock moved past the
//!   deadline, the nodes resolve it again, and it settles;
//! - one whose committee finds that the event already happened resolves YES before its
//!   deadline;
//! - a deadline far enough ahead keeps every round "not yet": the eighth "not yet" majority
//!   escalates (the contract's bound), and each node applied each deferral exactly once;
//! - a report saved before a crash, for a round deferred meanwhile, is not sent into the next
//!   round while the node's watcher lags: the node waits for it and resolves the round afresh.
//!
//! Every report of every round audits (recomputed from its file, the deferral checked on the
//! chain); the deferred round's report is kept beside the new one.

use std::{collections::BTreeMap, time::Duration};

use alloy::{
    primitives::{Address, U256},
    providers::Provider,
    rpc::types::Filter,
    sol_types::SolEvent,
};
use chrono::DateTime;
use serde_json::Value;
use veritas::{
    audit,
    contract::{IVeritasOracle, IVeritasOracle::VerdictStatus as S},
    devnet::AnvilOptions,
};

use crate::support::{Chain, Node, wait};

const WAIT: Duration = Duration::from_secs(90);
const KEYS: [usize; 3] = [1, 3, 4];
const DAY: u64 = 86_400;

/// The chain's clock (the latest block's timestamp).
async fn chain_now(chain: &Chain) -> u64 {
    let block = chain
        .reader()
        .get_block_by_number(alloy::eips::BlockNumberOrTag::Latest)
        .await
        .unwrap()
        .unwrap();
    block.header.timestamp
}

/// "5 March 2027": the date `days` after the chain's clock, as a question writes it.
fn date_after(now: u64, days: u64) -> String {
    DateTime::from_timestamp(i64::try_from(now + days * DAY).unwrap(), 0)
        .unwrap()
        .format("%-d %B %Y")
        .to_string()
}

/// Start the three nodes with `script` as their committee; the first with `env`.
async fn nodes(chain: &Chain, script: &str, env: &[(&str, &str)]) -> Vec<Node> {
    let mut nodes: Vec<Node> = KEYS
        .into_iter()
        .map(|key| Node::configure_as(chain, key, script, ""))
        .collect();
    nodes[0].start_with_env(env);
    for node in &mut nodes[1..] {
        node.start();
    }
    for node in &nodes {
        node.api_addr(WAIT).await;
    }
    nodes
}

/// Wait until `id` has been deferred `count` times; returns when its reports open again.
async fn wait_deferrals(chain: &Chain, nodes: &[Node], id: U256, count: u64) -> u64 {
    let reader = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &reader);
    let seen = std::cell::Cell::new(U256::ZERO);
    wait::until(
        WAIT,
        || {
            let logs: Vec<String> = nodes.iter().map(Node::log_text).collect();
            let logs = logs.join("\n----\n");
            format!(
                "question {id}: {} deferrals, not {count}\n{logs}",
                seen.get()
            )
        },
        async || {
            let d = oracle.deferral(id).call().await.unwrap();
            assert!(
                d.count <= U256::from(count),
                "question {id} deferred {} times, expected {count}",
                d.count
            );
            seen.set(d.count);
            (d.count == U256::from(count)).then(|| u64::try_from(d.reportsOpenAt).unwrap())
        },
    )
    .await
}

/// The operators of every `ReportNotYet` of `id`.
async fn not_yet_reporters(chain: &Chain, id: U256) -> Vec<Address> {
    let filter = Filter::new()
        .address(chain.oracle)
        .event_signature(IVeritasOracle::ReportNotYet::SIGNATURE_HASH)
        .topic1(id)
        .from_block(0u64);
    chain
        .reader()
        .get_logs(&filter)
        .await
        .unwrap()
        .iter()
        .map(|log| {
            log.log_decode::<IVeritasOracle::ReportNotYet>()
                .unwrap()
                .inner
                .data
                .operator
        })
        .collect()
}

/// `report` recomputes to itself and agrees with the chain on its clock, and, when it says
/// "not yet", on its round having been deferred.
async fn assert_round_audits(chain: &Chain, report: &Value, id: U256) {
    let report = &audit::AuditReport::from_json(report).unwrap();
    let rec = audit::recompute(report).unwrap();
    assert_eq!(audit::compare_with_report(&rec, report), vec![], "{id}");
    let chain_checks = audit::compare_with_chain(&rec, chain.question(&chain.reader(), id))
        .await
        .unwrap();
    if rec.defers() {
        assert_eq!(chain_checks, vec![], "{id}");
    } else {
        // A pooled verdict is not one report's numbers: only the clock is this report's own.
        let own: Vec<_> = chain_checks
            .iter()
            .filter(|m| m.field.contains("clock") || m.field.contains("deferral"))
            .collect();
        assert!(own.is_empty(), "{id}: {own:?}");
    }
}

/// `veritas audit --question ID` with every node's report file: the pooled verdict of the
/// question's last round rebuilt from its reports and events (earlier rounds' events are not
/// pooled).
fn assert_question_audits(chain: &Chain, nodes: &[Node], id: U256) {
    let mut args = vec![
        "audit".to_owned(),
        "--question".to_owned(),
        id.to_string(),
        "--rpc".to_owned(),
        chain.anvil.url.clone(),
        "--oracle".to_owned(),
        chain.oracle.to_string(),
    ];
    for node in nodes {
        args.push("--report".to_owned());
        args.push(node.report_path(id).display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = crate::support::veritas(&args, &std::env::temp_dir());
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!out.contains("MISMATCH"), "{out}");
}

fn read(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deferred_before_the_deadline_resolved_after_it_and_yes_settles_early() {
    // A report window of ten days: the round that reopens after the deferral is still open
    // when the chain's clock jumps past the deadline.
    let chain = Chain::start_with(AnvilOptions::default(), &KEYS, |p| {
        p.quorum = 3;
        p.reportWindow = 10 * 86_400;
    })
    .await;
    let now = chain_now(&chain).await;
    let deadline = date_after(now, 3);
    let ferry = format!("Will the Calderwick ferry resume service before {deadline}?");
    let timetable = format!("Will the Calderwick ferry timetable be published before {deadline}?");
    // The ferry question's committee finds no resumption (NO leads); the timetable's finds it
    // published (YES leads).
    let script = format!(
        r#"{{"default": {{"votes": ["NO", "NO", "YES"]}},
            "questions": {{"{timetable}": {{"votes": ["YES", "YES", "NO"]}}}}}}"#
    );
    // The first node dies inside the transaction that applies the deferral; restarted, it
    // applies it once from the blocks it reads again.
    let mut nodes = nodes(
        &chain,
        &script,
        &[(veritas::crashpoint::ENV, "deferral.applying:1")],
    )
    .await;
    let ids = chain.ask(&[&ferry, &timetable]).await;
    let (ferry_id, timetable_id) = (ids[0], ids[1]);

    // NO before the deadline: every node says "not yet", the question is deferred, neither
    // settled nor escalated. The first node dies applying the deferral, maybe before it saw the
    // timetable question (asked a block later under load): restarted before that one is awaited.
    let opens = wait_deferrals(&chain, &nodes, ferry_id, 1).await;
    nodes[0].wait_crashed("deferral.applying:1", WAIT);
    assert_eq!(
        nodes[0]
            .store()
            .unwrap()
            .job(ferry_id)
            .unwrap()
            .unwrap()
            .round,
        0,
        "nothing of the deferral was committed"
    );
    nodes[0].start();

    // YES already happened: settled before the deadline.
    chain.wait_status(timetable_id, S::Resolved, WAIT).await;
    let reader = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &reader);
    let v = oracle.getVerdict(timetable_id).call().await.unwrap();
    assert!(v.pYes > v.pNo, "timetable: YES leads");
    assert!(not_yet_reporters(&chain, timetable_id).await.is_empty());
    assert_eq!(chain.status(ferry_id).await, S::Asked);
    assert!(opens > chain_now(&chain).await, "reports reopen later");
    let mut reporters = not_yet_reporters(&chain, ferry_id).await;
    reporters.sort();
    let mut keys: Vec<Address> = KEYS.iter().map(|k| crate::support::address(*k)).collect();
    keys.sort();
    assert_eq!(reporters, keys);
    for node in &nodes {
        node.wait_stage(ferry_id, "queued", WAIT).await;
        // The web view's data: deferred, until when, how many times.
        let addr = node.api_addr(WAIT).await;
        let page: Value = reqwest::get(format!("http://{addr}/questions/{ferry_id}"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(page["status"], "deferred", "{page:#}");
        assert_eq!(page["deferrals"][0]["resolve_after"], opens);
        assert_eq!(page["max_deferrals"], 7);
    }
    // The report window runs again from the reopening: `finalize` is refused until it ends,
    // by the node's check as by the contract.
    let addr = nodes[1].api_addr(WAIT).await;
    let from = crate::support::address(5);
    let check = format!("http://{addr}/questions/{ferry_id}/check/finalize?from={from}");
    let refused = reqwest::get(check).await.unwrap();
    assert_eq!(refused.status(), 409);
    let refused: Value = refused.json().await.unwrap();
    assert_eq!(refused["error"], "VeritasReportWindowOpen", "{refused}");
    let deadline = refused["args"][1]["value"].as_str().unwrap_or_default();
    assert!(
        deadline.starts_with(&format!("{} (", opens + 10 * DAY)),
        "the window runs from the reopening at {opens}: {refused}"
    );

    // The chain's clock passes the deadline: the nodes resolve it again, and NO settles.
    chain.advance(5 * DAY).await;
    chain.wait_status(ferry_id, S::Resolved, WAIT).await;
    let v = oracle.getVerdict(ferry_id).call().await.unwrap();
    assert!(v.pNo > v.pYes, "ferry: NO leads after the deadline");
    let not_yet = not_yet_reporters(&chain, ferry_id).await;
    assert_eq!(not_yet.len(), 3, "no new not-yet: {not_yet:?}");
    for node in &nodes {
        node.report_with_tx(ferry_id, WAIT).await;
    }
    assert_question_audits(&chain, &nodes, ferry_id);
    // The chain now runs days ahead of the wall clock and mines only on demand: one more
    // block lets the verdict's settlement turns pass.
    chain.advance(3600).await;
    for node in &nodes {
        node.wait_stage(ferry_id, "final", WAIT).await;
        // The deferred round's report is kept; the new one is round 1's.
        let first = read(
            &node
                .data_dir()
                .join(format!("reports/{ferry_id}.round-0.json")),
        );
        assert_eq!(first["not_yet"]["defers"], true, "{first:#}");
        assert_eq!(first["question"]["clock"]["round"], 0);
        assert_round_audits(&chain, &first, ferry_id).await;
        let second = node.report(ferry_id);
        assert_eq!(second["not_yet"]["defers"], false);
        assert_eq!(second["question"]["clock"]["round"], 1);
        assert!(
            second["not_yet"]["reason"]
                .as_str()
                .unwrap()
                .contains("has passed")
        );
        assert_round_audits(&chain, &second, ferry_id).await;
        let early = node.report(timetable_id);
        assert_eq!(early["not_yet"]["defers"], false);
        assert_round_audits(&chain, &early, timetable_id).await;
        // The store applied the deferral once and remembers what it had reported.
        let store = node.store().unwrap();
        let deferrals = store.deferrals(ferry_id).unwrap();
        assert_eq!(deferrals.len(), 1);
        assert_eq!(deferrals[0].not_yet, Some(true));
        assert!(
            deferrals[0]
                .report_path
                .as_deref()
                .unwrap()
                .ends_with(".round-0.json")
        );
        assert_eq!(store.job(ferry_id).unwrap().unwrap().round, 1);
    }
}

/// A node killed with its round-0 report saved but not sent comes back after the other
/// operator's "not yet" deferred the question and the next round opened. Until its watcher
/// applies the deferral, the saved report answers a round that is gone, and the contract takes
/// reports without a round: sent now, it would count in round 1. The node must wait for its
/// watcher instead (its confirmations raised past the chain's height hold the watcher back for
/// as long as the test needs), then resolve round 1 afresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_saved_for_a_deferred_round_is_not_sent_into_the_next() {
    let chain = Chain::start_with(AnvilOptions::default(), &[1, 3], |p| p.quorum = 1).await;
    let now = chain_now(&chain).await;
    let question = format!(
        "Will the Calderwick ferry resume service before {}?",
        date_after(now, 30)
    );
    let script = r#"{"default": {"votes": ["NO", "NO", "YES"]}}"#;
    let mut late = Node::configure_as(&chain, 1, script, "");
    let mut other = Node::configure_as(&chain, 3, script, "");
    late.start_crashing_at("intent.saved", 1);
    let id = chain.ask(&[&question]).await[0];
    late.wait_crashed("intent.saved:1", WAIT);
    other.start();
    let opens = wait_deferrals(&chain, std::slice::from_ref(&other), id, 1).await;
    other.stop();
    let wait = opens.saturating_sub(chain_now(&chain).await);
    chain.advance(wait + 1).await;

    // Round 1 is open, and the late node's store still holds its round-0 report.
    let late_key = crate::support::address(1);
    late.edit_config("confirmations = 1", "confirmations = 1000000");
    late.start();
    let error = wait::until(
        WAIT,
        || {
            format!(
                "the late node neither reported nor waited\n{}",
                late.log_text()
            )
        },
        async || {
            // A "not yet" at quorum 1 defers at once: its log, not `hasReported`, tells.
            let sent = not_yet_reporters(&chain, id).await.contains(&late_key);
            let error = late.last_error(id);
            (sent || !error.is_empty()).then_some((sent, error))
        },
    )
    .await;
    assert_eq!(
        error,
        (
            false,
            "the chain is in report round 1, the store in round 0: waiting for the watcher"
                .to_owned()
        ),
        "{}",
        late.log_text()
    );

    // Its watcher reads the deferral: round 1 is resolved afresh (still "not yet", so quorum 1
    // defers again), and the round-0 report is kept as such.
    late.stop();
    late.edit_config("confirmations = 1000000", "confirmations = 1");
    late.start();
    wait_deferrals(&chain, std::slice::from_ref(&late), id, 2).await;
    late.wait_stage(id, "queued", WAIT).await;
    let store = late.store().unwrap();
    let deferrals = store.deferrals(id).unwrap();
    assert_eq!(deferrals.len(), 2, "{deferrals:?}");
    assert_eq!(deferrals[0].not_yet, Some(true), "the round-0 intent, kept");
    assert_eq!(deferrals[1].not_yet, Some(true), "the fresh round-1 report");
    let round_one = read(&late.data_dir().join(format!("reports/{id}.json")));
    assert_eq!(round_one["question"]["clock"]["round"], 1, "{round_one:#}");
    assert_eq!(
        not_yet_reporters(&chain, id).await,
        vec![crate::support::address(3), late_key]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferral_loop_ends_in_escalation_at_the_bound() {
    let chain = Chain::start_with(AnvilOptions::default(), &KEYS, |p| p.quorum = 3).await;
    let reader = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &reader);
    let bound = u64::try_from(oracle.MAX_DEFERRALS().call().await.unwrap()).unwrap();
    assert_eq!(
        bound,
        u64::from(veritas::contract::roles::MAX_DEFERRALS),
        "the node's copy of MAX_DEFERRALS"
    );
    let now = chain_now(&chain).await;
    // Every backoff together is about 55 days: the deadline stays ahead of every round.
    let question = format!(
        "Will the Harbour Street bike lane open before {}?",
        date_after(now, 120)
    );
    let nodes = nodes(
        &chain,
        r#"{"default": {"votes": ["NO", "NO", "YES"]}}"#,
        &[],
    )
    .await;
    let id = chain.ask(&[&question]).await[0];
    for count in 1..=bound {
        let opens = wait_deferrals(&chain, &nodes, id, count).await;
        let wait = opens.saturating_sub(chain_now(&chain).await);
        chain.advance(wait + 1).await;
    }
    chain.wait_status(id, S::Escalated, WAIT).await;
    assert_eq!(
        oracle.deferral(id).call().await.unwrap().count,
        U256::from(bound)
    );
    // Every node said "not yet" once per round: bound deferred rounds and the last one.
    let mut per_operator: BTreeMap<Address, u64> = BTreeMap::new();
    for operator in not_yet_reporters(&chain, id).await {
        *per_operator.entry(operator).or_default() += 1;
    }
    assert_eq!(per_operator.len(), 3);
    assert!(
        per_operator.values().all(|n| *n == bound + 1),
        "{per_operator:?}"
    );
    for node in &nodes {
        node.report_with_tx(id, WAIT).await;
    }
    assert_question_audits(&chain, &nodes, id);
    for node in &nodes {
        node.wait_stage(id, "finalised", WAIT).await;
        let store = node.store().unwrap();
        let counts: Vec<u32> = store
            .deferrals(id)
            .unwrap()
            .iter()
            .map(|d| d.count)
            .collect();
        assert_eq!(
            counts,
            (1..=u32::try_from(bound).unwrap()).collect::<Vec<_>>()
        );
        assert_eq!(
            u64::from(store.job(id).unwrap().unwrap().round),
            bound,
            "each deferral applied exactly once"
        );
        let last = node.report(id);
        assert_eq!(last["not_yet"]["defers"], true);
        assert_round_audits(&chain, &last, id).await;
        for round in 0..bound {
            assert!(
                node.data_dir()
                    .join(format!("reports/{id}.round-{round}.json"))
                    .is_file(),
                "round {round}'s report is kept"
            );
        }
    }
}
