//! End-to-end: the real node against a real anvil running the real oracle.
//!
//! Covers the node issue's acceptance tests: verdicts equal to their reports and passing
//! `veritas audit`; SIGKILL mid-resolution and restart → exactly one verdict per question;
//! an RPC outage (anvil stopped and restarted) → nothing missed; a juror that fails every
//! call → never posted.
//!
//! The tests whose subject is the process (SIGKILL, SIGTERM, the RPC outage, the key kept out
//! of the log) run the `veritas` binary; the others run the daemon in this process
//! (`Node::start_in_process`, the `daemon::run` that `veritas run` calls) and read the node's
//! state through its HTTP API and its reports, not its log.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use alloy::primitives::U256;
use veritas::{audit, contract::IVeritasOracle, devnet::AnvilOptions};

use crate::support::{self, Chain, Node, assert_audits, veritas, wait};

const REPLAY: &str = r#"{"default": {"votes": ["YES", "YES", "NO", "YES", "NULL", "YES"]}}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_questions_three_audited_verdicts() {
    let (chain, mut node) = support::chain_and_node_in_process(REPLAY, "").await;
    let ids = chain
        .ask_and_wait(
            &[
                "Is water wet?",
                "Did it rain in Paris on 2025-07-14?",
                "Is 7 prime?",
            ],
            Duration::from_secs(60),
        )
        .await;

    for id in &ids {
        let report = node.report_with_tx(*id, Duration::from_secs(10)).await;
        assert_audits(&chain, &report, *id).await;
        assert!(
            report["tx"]["hash"].is_string(),
            "report records its tx: {report}"
        );
        assert_eq!(chain.verdict_events(*id).await, 1);
        // The CLI agrees, and exits 0.
        let path = node.report_path(*id);
        let (code, out, err) = veritas(
            &["audit", path.to_str().unwrap(), "--rpc", &chain.anvil.url],
            node.dir.path(),
        );
        assert_eq!(code, 0, "{out}\n{err}");
        assert!(out.contains("OK"), "{out}");
    }
    // An edited report is caught, naming the field, with a non-zero exit.
    let mut edited = node.report(ids[0]);
    edited["stats"]["p_fixed"][0] = serde_json::json!("1");
    let path = node.dir.path().join("edited.json");
    std::fs::write(&path, serde_json::to_string(&edited).unwrap()).unwrap();
    let (code, out, _) = veritas(
        &["audit", path.to_str().unwrap(), "--rpc", &chain.anvil.url],
        node.dir.path(),
    );
    assert_ne!(code, 0);
    assert!(out.contains("MISMATCH report.stats.p_fixed[0]"), "{out}");

    // `veritas verdict --json` reads the chain.
    let (code, out, err) = veritas(
        &[
            "verdict",
            &ids[0].to_string(),
            "--json",
            "--rpc-url",
            &chain.anvil.url,
            "--oracle",
            &chain.oracle.to_string(),
        ],
        node.dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["status"], "Resolved");
    assert_eq!(
        v["verdict"]["pYes"],
        node.report(ids[0])["stats"]["p_fixed"][0]
    );

    // Graceful shutdown ends cleanly (SIGTERM's exit code: sigterm_drains_in_flight_...).
    node.stop_in_process().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_mid_resolution_then_restart_posts_exactly_once() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let replay = r#"{"default": {"votes": ["YES", "NO", "YES"], "delay_ms": 200}}"#;
    let mut node = Node::configure(&chain, replay, "");
    let ids = chain
        .ask(&["Q one?", "Q two?", "Q three?", "Q four?", "Q five?"])
        .await;
    // Each run dies by SIGKILL at a named point of the pipeline (`veritas::crashpoint`), so
    // every kill lands where it claims: while a question is resolving, with its report on disk
    // but no intent, with a signed transaction not yet broadcast, and with one mined that the
    // store does not know of. A kill that never lands fails the test.
    for (point, n) in [
        ("job.resolving", 1),
        ("report.written", 2),
        ("tx.recorded", 1),
        ("tx.mined", 1),
    ] {
        node.start_crashing_at(point, n);
        node.wait_crashed(&format!("{point}:{n}"), Duration::from_secs(60));
    }
    node.start();
    chain.wait_verdicts(&ids, Duration::from_secs(90)).await;
    // Even a verdict mined just before a SIGKILL gets its tx key on the next run.
    for id in &ids {
        node.report_with_tx(*id, Duration::from_secs(10)).await;
    }
    for id in &ids {
        assert_eq!(
            chain.verdict_events(*id).await,
            1,
            "question {id}: {}",
            node.log_text()
        );
        let report = audit::AuditReport::from_json(&node.report(*id)).unwrap();
        let rec = audit::recompute(&report).unwrap();
        assert_eq!(
            audit::compare_with_chain(&rec, chain.question(&chain.reader(), *id))
                .await
                .unwrap(),
            vec![]
        );
    }
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rpc_outage_recovers_and_misses_nothing() {
    let state_dir = tempfile::tempdir().unwrap();
    let chain = Chain::start(AnvilOptions {
        state: Some(state_dir.path().join("anvil.json")),
        ..Default::default()
    })
    .await;
    let replay = r#"{"default": {"votes": ["YES", "YES", "NO"], "delay_ms": 300}}"#;
    let mut node = Node::configure(&chain, replay, "");
    node.start();
    let first = chain
        .ask_and_wait(&["Before the outage?"], Duration::from_secs(30))
        .await;

    // Asked just before the RPC goes away: its post has to wait for the chain to come back.
    let during = chain.ask(&["Right before the outage?"]).await;
    let mut chain = chain;
    chain.anvil.stop();
    // The outage lasts until the node has noticed it (a failed watcher poll, counted on its
    // metrics page), however slow the machine.
    wait::until(
        Duration::from_secs(60),
        || format!("the outage was never noticed: {}", node.log_text()),
        async || (node.metric("veritas_rpc_errors_total").await? >= 1.0).then_some(()),
    )
    .await;
    chain.anvil.restart().await.unwrap();
    let after = chain.ask(&["After the outage?", "And another?"]).await;

    let all: Vec<U256> = first.iter().chain(&during).chain(&after).copied().collect();
    chain.wait_verdicts(&all, Duration::from_secs(90)).await;
    for id in &all {
        assert_eq!(chain.verdict_events(*id).await, 1, "question {id}");
    }
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_juror_failing_every_call_is_never_posted() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let replay = r#"{"default": {"votes": ["YES", "NO", "YES"]},
                     "questions": {"Unanswerable?": {"votes": [null, null, null, null, null, null]}}}"#;
    let mut node = Node::configure(&chain, replay, "");
    // A committee without a valid ballot is retried; three attempts show it, quickly.
    node.edit_config("max_attempts = 50", "max_attempts = 3");
    node.start();
    let ids = chain.ask(&["Unanswerable?", "Answerable?"]).await;
    let invalid_utf8 = chain.ask_raw_bytes(b"Is \xff\xfe valid?").await;
    chain
        .wait_verdicts(&ids[1..], Duration::from_secs(30))
        .await;
    // Give the failing one time to be tried and refused.
    let client = reqwest::Client::new();
    let addr = node.api_addr(Duration::from_secs(20)).await;
    let job = wait_until_failed(&addr, ids[0]).await;
    assert!(
        job["job"]["last_error"]
            .as_str()
            .unwrap()
            .contains("no valid ballot"),
        "{job}"
    );
    assert_eq!(job["job"]["attempts"], 3, "retried, then failed: {job}");
    // A question that is not valid UTF-8 is kept, failed with a clear reason, never posted.
    let body = wait_until_failed(&addr, invalid_utf8).await;
    assert_eq!(body["job"]["stage"], "failed", "{body}");
    assert!(
        body["job"]["last_error"]
            .as_str()
            .unwrap()
            .contains("UTF-8"),
        "{body}"
    );
    assert_eq!(chain.verdict_events(invalid_utf8).await, 0);
    assert_eq!(
        chain.status(ids[0]).await,
        IVeritasOracle::VerdictStatus::Asked
    );
    assert_eq!(chain.verdict_events(ids[0]).await, 0);
    let reported = wait_until_stage(&addr, ids[1], REPORTED).await;
    let stage = reported["job"]["stage"].as_str().unwrap().to_owned();
    // Metrics and health answer.
    let metrics = client
        .get(format!("http://{addr}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("veritas_questions{stage=\"failed\"} 2"),
        "{metrics}"
    );
    assert!(
        metrics.contains(&format!("veritas_questions{{stage=\"{stage}\"}} 1")),
        "{metrics}"
    );
    assert!(
        metrics.contains("veritas_wallet_balance_ether"),
        "{metrics}"
    );
    let ready = client
        .get(format!("http://{addr}/readyz"))
        .send()
        .await
        .unwrap();
    assert_eq!(ready.status(), 200);
    let root = node.report(ids[1])["root"].as_str().unwrap().to_string();
    let bundle = support::get_json(&format!("http://{addr}/bundles/{root}")).await;
    assert_eq!(bundle["question"]["text"], "Answerable?");
    // The operator key appears nowhere the node writes or serves.
    let key = veritas::devnet::ANVIL_KEYS[1].trim_start_matches("0x");
    let report_text = std::fs::read_to_string(node.report_path(ids[1])).unwrap();
    for (what, text) in [
        ("log", node.log_text()),
        ("metrics", metrics.clone()),
        ("report", report_text),
    ] {
        assert!(
            !text.contains(key),
            "the private key leaked into the {what}"
        );
    }
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_in_flight_questions_and_exits_zero() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let replay = r#"{"default": {"votes": ["YES", "NO", "YES"], "delay_ms": 1500}}"#;
    let mut node = Node::configure(&chain, replay, "");
    node.start();
    // Wait until the node is up (its API answers) before asking.
    node.metrics().await;
    let ids = chain.ask(&["In flight at SIGTERM?"]).await;
    // Picked up and resolving (for 1.5 s): the signal lands while it is in flight.
    node.wait_stage(ids[0], "resolving", Duration::from_secs(20))
        .await;
    assert_eq!(node.terminate(), Some(0), "{}", node.log_text());
    // The drain let it finish: the verdict is on-chain although the node has exited.
    assert_eq!(chain.verdict_events(ids[0]).await, 1, "{}", node.log_text());
    assert!(node.log_text().contains("draining in-flight questions"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn veritas_ask_with_resolve_after_waits_then_posts() {
    let (chain, mut node) = support::chain_and_node_in_process(REPLAY, "").await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_veritas"))
        .args([
            "ask",
            "Will this wait three seconds?",
            "--resolve-after",
            "3s",
        ])
        .args([
            "--rpc-url",
            &chain.anvil.url,
            "--oracle",
            &chain.oracle.to_string(),
        ])
        .env("VERITAS_PRIVATE_KEY", veritas::devnet::ANVIL_KEYS[2])
        .current_dir(node.dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id: U256 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    chain.wait_verdicts(&[id], Duration::from_secs(30)).await;
    // Chain times, not the test's clock: the question had to wait (its resolveAfter was after
    // its block) and the verdict came at or after resolveAfter.
    let reader = chain.reader();
    let contract = IVeritasOracle::new(chain.oracle, &reader);
    let q = contract.getQuestion(id).call().await.unwrap();
    let v = contract.getVerdict(id).call().await.unwrap();
    assert!(
        q.resolveAfter > q.askedAt,
        "resolveAfter {} not after the ask at {}",
        q.resolveAfter,
        q.askedAt
    );
    assert!(v.timestamp >= U256::from(q.resolveAfter));
    assert_eq!(chain.verdict_events(id).await, 1);
    node.stop_in_process().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_faulty_rpc_loses_nothing_and_duplicates_nothing() {
    let chain = Chain::start(AnvilOptions::default()).await;
    // A quarter of the requests fail: drops, delays, 429s, 5xx, lost answers (including for
    // eth_sendRawTransaction). `tests/it/reliability_rpc.rs` runs the full fault set longer.
    let plan = support::proxy::FaultPlan {
        seed: 4,
        per_mille: 250,
        ..support::proxy::FaultPlan::quiet(16)
    };
    let (proxy_url, proxy) = support::proxy::start_faulty_proxy(&chain.anvil.url, plan).await;
    let mut node = Node::configure(&chain, REPLAY, "");
    let config = std::fs::read_to_string(&node.config)
        .unwrap()
        .replace(&chain.anvil.url, &proxy_url);
    std::fs::write(&node.config, config).unwrap();
    node.start();
    let questions: Vec<String> = (0..8)
        .map(|i| format!("Faulty RPC question {i}?"))
        .collect();
    let refs: Vec<&str> = questions.iter().map(String::as_str).collect();
    let ids = chain.ask(&refs).await;
    let done = std::cell::Cell::new(0);
    wait::until(
        Duration::from_secs(60),
        || format!("{} verdicts only: {}", done.get(), node.log_text()),
        async || {
            let mut answered = 0;
            for id in &ids {
                if chain.status(*id).await != IVeritasOracle::VerdictStatus::Asked {
                    answered += 1;
                }
            }
            done.set(answered);
            (answered == ids.len()).then_some(())
        },
    )
    .await;
    for id in &ids {
        assert_eq!(
            chain.verdict_events(*id).await,
            1,
            "question {id}: {}",
            node.log_text()
        );
    }
    assert!(proxy.total_faults() > 10, "{:?}", proxy.counts());
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_committee_path_with_the_jury_replay_juror_posts_an_audited_verdict() {
    let (chain, mut node) = support::chain_and_committee_node_in_process(REPLAY).await;
    let ids = chain
        .ask_and_wait(
            &["Did the Calderwick City Council approve the Harbour Street protected bike lane before 1 April 2026?"],
            Duration::from_secs(120),
        )
        .await;
    let report = node.report(ids[0]);
    assert!(
        !report["evidence"].as_array().unwrap().is_empty(),
        "evidence from the corpus: {report}"
    );
    assert_audits(&chain, &report, ids[0]).await;
    assert_eq!(chain.verdict_events(ids[0]).await, 1);
    node.stop_in_process().await;
}

/// Poll the node's `/questions/{id}` until its job is `failed`; panics after 20 s.
async fn wait_until_failed(
    addr: &impl std::fmt::Display,
    id: impl std::fmt::Display,
) -> serde_json::Value {
    wait_until_stage(addr, id, &["failed"]).await
}

/// The stages of a job whose report is on-chain (the follower moves it on from `reported`).
const REPORTED: &[&str] = &[
    "reported",
    "finalised",
    "final",
    "disputed",
    "arbitrated",
    "expired",
];

/// Polls the API until the question's job reaches one of `stages`: the chain can show a
/// verdict a moment before the node has read its receipt and recorded it.
async fn wait_until_stage(
    addr: &impl std::fmt::Display,
    id: impl std::fmt::Display,
    stages: &[&str],
) -> serde_json::Value {
    let last = std::cell::RefCell::new(serde_json::Value::Null);
    wait::until(
        Duration::from_secs(20),
        || format!("never reached stage {stages:?}: {}", last.borrow()),
        async || {
            let body = support::get_json(&format!("http://{addr}/questions/{id}")).await;
            let reached = stages.iter().any(|s| body["job"]["stage"] == *s);
            *last.borrow_mut() = body.clone();
            reached.then_some(body)
        },
    )
    .await
}

/// The planner's answer the chat-completions double gives (queries and rubric).
const PLAN: &str = r#"{"queries": ["Harbour Street bike lane council vote", "Calderwick council minutes March 2026", "protected bike lane approval Calderwick"],
  "rubric": [{"id": "council_vote", "description": "A recorded council vote approving the lane before 1 April 2026"}]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_plans_with_the_configured_planner_and_resolve_reads_the_same_file() {
    let (double, base_url) = support::chat_double::serve_with(|body, _| {
        support::chat_double::completion(&body["model"], PLAN)
    })
    .await;
    let chain = Chain::start(AnvilOptions::default()).await;
    let mut node = Node::configure_committee(&chain, REPLAY);
    let mut config = std::fs::read_to_string(&node.config).unwrap();
    config.push_str(&format!(
        "\n[planner_model]\nbase_url = \"{base_url}\"\nmodel = \"planner-double\"\napi_key_env = \"\"\n"
    ));
    std::fs::write(&node.config, config).unwrap();
    node.start_in_process().await;
    let question = "Did the Calderwick City Council approve the Harbour Street protected bike lane before 1 April 2026?";
    let ids = chain
        .ask_and_wait(&[question], Duration::from_secs(120))
        .await;

    let report = node.report(ids[0]);
    let plan = &report["search"]["plan"];
    let expected: serde_json::Value = serde_json::from_str(PLAN).unwrap();
    // The question text is always searched too, first.
    let mut queries = vec![serde_json::json!(question)];
    queries.extend(expected["queries"].as_array().unwrap().iter().cloned());
    assert_eq!(plan["queries"], serde_json::json!(queries), "{report}");
    assert_eq!(plan["rubric"]["criteria"], expected["rubric"], "{report}");
    assert!(plan["fallback_reason"].is_null(), "{plan}");
    assert_eq!(report["rubric"]["criteria"], expected["rubric"]);
    assert_audits(&chain, &report, ids[0]).await;
    let planner_calls = double.requests.lock().unwrap().len();
    assert_eq!(planner_calls, 1, "one planning call for one question");
    node.stop_in_process().await;

    // `veritas resolve` reads the very same file: same planner, same plan.
    let out = node.dir.path().join("resolve.json");
    let (code, stdout, stderr) = veritas(
        &[
            "resolve",
            question,
            "--config",
            node.config.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        node.dir.path(),
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let offline: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(
        offline["search"]["plan"]["queries"],
        serde_json::json!(queries)
    );
    assert_eq!(double.requests.lock().unwrap().len(), 2);
}

/// Contract v3 locks each report's bond of the reporter's free stake. A bond above the free
/// stake is a wait, not a failure: with no top-up allowed, or a limit too low, the question
/// waits with its reason visible and no attempt spent; with a limit that covers it the node
/// stakes exactly the shortfall from its key and reports.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_bond_above_the_free_stake_waits_or_is_topped_up_within_the_limit() {
    const ETH: u64 = 1_000_000_000_000_000_000;
    // The devnet stakes 1 ETH for the operator; this set bonds 2 ETH per report.
    let chain = Chain::start_with(AnvilOptions::default(), &[1], |p| {
        p.challengeWindow = 3600;
        p.disputeBond = alloy::primitives::aliases::U96::from(2 * ETH);
    })
    .await;
    let id = chain.ask(&["Is water wet?"]).await[0];
    let stake = || async {
        let view = IVeritasOracle::new(chain.oracle, chain.reader())
            .operatorStake(support::operator().address())
            .call()
            .await
            .unwrap();
        (view.staked, view.locked)
    };
    let mut node = Node::configure(&chain, REPLAY, "");
    let mut limit = "0".to_string();
    node.edit_config(
        "rpc_timeout = \"2s\"",
        "rpc_timeout = \"2s\"\nstake_top_up_limit = \"0\"",
    );
    for next in ["0", "1500000000000000000", "3000000000000000000"] {
        node.edit_config(
            &format!("stake_top_up_limit = \"{limit}\""),
            &format!("stake_top_up_limit = \"{next}\""),
        );
        limit = next.to_string();
        node.start_in_process().await;
        if next.starts_with('3') {
            break;
        }
        let (attempts, error) = wait_job_error(
            &node,
            id,
            &format!("above chain.stake_top_up_limit ({next} wei)"),
        )
        .await;
        assert_eq!(attempts, 0, "a shortfall spends no attempt: {error}");
        assert!(
            error.contains("below the report bond 2000000000000000000 wei"),
            "{error}"
        );
        node.stop_in_process().await;
        assert_eq!(
            stake().await,
            (U256::from(ETH), U256::ZERO),
            "nothing staked"
        );
    }
    // 1 ETH staked + the 1 ETH shortfall fits the 3 ETH limit: topped up, then reported.
    chain.wait_verdicts(&[id], Duration::from_secs(60)).await;
    // The chain's state shows the top-up: the operator's stake grew by exactly the shortfall.
    assert_eq!(
        stake().await,
        (U256::from(2 * ETH), U256::from(2 * ETH)),
        "exactly the shortfall staked, and the report locks it all"
    );
    node.stop_in_process().await;
}

/// The job of `id`'s attempts and last error (from the in-process node's API), once that
/// error contains `needle`; panics after 30 s.
async fn wait_job_error(node: &Node, id: U256, needle: &str) -> (i64, String) {
    let last = std::cell::RefCell::new(serde_json::Value::Null);
    wait::until(
        Duration::from_secs(30),
        || format!("job {id} never failed with {needle:?}\n{}", last.borrow()),
        async || {
            let body = node.question(id).await;
            let found = match (
                body["job"]["attempts"].as_i64(),
                body["job"]["last_error"].as_str(),
            ) {
                (Some(attempts), Some(error)) if error.contains(needle) => {
                    Some((attempts, error.to_owned()))
                }
                _ => None,
            };
            *last.borrow_mut() = body;
            found
        },
    )
    .await
}
