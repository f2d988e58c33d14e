//! End-to-end, the read side of several operators: `veritas audit --question` rebuilding a
//! pooled verdict, `veritas verdict` showing every report and the challenge window, `veritas
//! operator balance|withdraw` moving exactly the credited wei, the credits metric, and the
//! contract's pooling checked against the auditor's on random counts.
//!
//! Real anvil, real oracle, the real `veritas` binary. Operator A is the node (anvil key 1),
//! operator B is the owner (key 0) submitting hand-built reports with alloy.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{path::Path, process::Command, time::Duration};

use alloy::{
    network::EthereumWallet,
    primitives::{Address, B256, I256, U256, aliases::U96},
    providers::{DynProvider, Provider, ProviderBuilder},
    rpc::types::Filter,
    signers::local::PrivateKeySigner,
    sol_types::SolEvent,
};
use rand::{Rng, SeedableRng, rngs::StdRng};
use serde_json::{Value, json};
use veritas::{
    audit::{
        self,
        pooled::{self, ReportClaim},
    },
    bundle::EvidenceItem,
    commitment::{self, root::Root},
    contract::IVeritasOracle,
    devnet::{ANVIL_KEYS, AnvilOptions},
    jury::SeedInputs,
    pipeline::replay::replay_policy,
    policy::{Decision, RoutingInputs, route},
    stats::{self, BallotRecord},
};

use crate::support::{Chain, Node, operator, wait};

const REPLAY: &str = r#"{"default": {"votes": ["YES", "YES", "NO", "YES", "NULL", "YES"]}}"#;
const QUESTION: &str = "Did the committee of two agree?";
/// An odd fee, so the split leaves a remainder for the first reporter.
const FEE: u64 = 1_000_000_000_000_001;
const CHALLENGE: u32 = 600;

fn key(i: usize) -> PrivateKeySigner {
    ANVIL_KEYS[i].parse().unwrap()
}

fn sender(chain: &Chain, i: usize) -> DynProvider {
    ProviderBuilder::new()
        .wallet(EthereumWallet::from(key(i)))
        .connect_http(chain.anvil.url.parse().unwrap())
        .erased()
}

/// Owner: quorum, challenge window and ask fee for the next questions; key 0 also reports.
async fn configure(chain: &Chain, quorum: u8, challenge: u32, fee: u64) {
    let p = sender(chain, 0);
    let oracle = IVeritasOracle::new(chain.oracle, &p);
    // The devnet's court stays the arbitrator; a challenge window needs a bond (contract v3).
    let mut params = oracle.parameters().call().await.unwrap();
    params.quorum = quorum;
    params.maxBallotsPerReport = 30;
    params.reportWindow = 3600;
    params.challengeWindow = challenge;
    params.askFee = U96::from(fee);
    // One BOND_UNIT (1e12 wei): contract v3 refuses a smaller nonzero bond (issue #43).
    params.disputeBond = U96::from(u64::from(challenge > 0) * 1_000_000_000_000);
    params.evidenceFee = U96::ZERO;
    // The operator first: v3 refuses a quorum the active operators cannot reach. It stakes, as
    // its reports lock the bond (one BOND_UNIT with a challenge window).
    for call in [
        oracle
            .addOperator(key(0).address())
            .into_transaction_request(),
        oracle
            .stake(key(0).address())
            .value(U256::from(1_000_000_000_000_000_000u64))
            .into_transaction_request(),
        oracle
            .setParameters(params, String::new())
            .into_transaction_request(),
    ] {
        chain.send_ok(0, call, "configure").await;
    }
}

async fn ask(chain: &Chain, text: &str, fee: u64) -> U256 {
    chain.ask_paying(text, U256::from(fee), 0).await
}

/// A report file as a node writes one (the keys `veritas audit` reads), for `votes` in
/// iterations of three, by `operator` with the committee seeded from the chain (`block_hash`:
/// of the question's block): one archetype and one juror (every draw is theirs), routed by
/// the replay resolver's `resolve` policy.
fn hand_report(
    chain: &Chain,
    id: U256,
    votes: &[&str],
    snippet: &str,
    operator: Address,
    block_hash: B256,
) -> Value {
    let evidence = json!([{"id": 1, "url": "https://example.org/a", "title": "A", "snippet": snippet,
        "published_at": null, "source": "local", "submitter": null}]);
    let c = commitment::commit(QUESTION, &[], evidence.as_array().unwrap()).unwrap();
    let ballots: Vec<Value> = votes
        .iter()
        .enumerate()
        .map(|(i, v)| {
            json!({"iteration": i / 3 + 1, "slot": i % 3, "model": "m", "archetype": "a",
                   "vote": v, "confidence": null, "reasoning": null, "latency_ms": 0,
                   "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "failure": null})
        })
        .collect();
    let records: Vec<BallotRecord> = serde_json::from_value(json!(ballots)).unwrap();
    let summary = stats::summarize(&records);
    let items: Vec<EvidenceItem> = serde_json::from_value(evidence.clone()).unwrap();
    let routing = route(
        &summary,
        &RoutingInputs::from_bundle(QUESTION, &items),
        &replay_policy(Decision::Resolve),
    );
    let iterations = votes.len().div_ceil(3);
    let inputs = SeedInputs {
        chain_id: 31337,
        oracle: chain.oracle,
        question_id: id,
        operator,
        block_hash,
    };
    json!({
        "committee": {"seed": format!("0x{}", hex::encode(inputs.seed())),
                      "seed_inputs": inputs, "T": iterations, "M": 3, "epsilon": 0.02,
                      "tau": 2, "min_ballots": 6, "early_stopping": false,
                      "stop_iteration": iterations, "stopped_early": false,
                      "calls": votes.len(), "divergences": [],
                      "archetype_weights": [{"name": "a", "weight": 1}],
                      "juror_weights": [{"name": "m", "weight": 1}]},
        "question": {"text": QUESTION, "id": id.to_string(), "chain_id": 31337,
                     "oracle": chain.oracle.to_string()},
        "evidence": evidence,
        "leaves": c.leaves_hex(),
        "root": c.root,
        "ballots": ballots,
        "stats": summary,
        "routing": routing,
    })
}

async fn submit(chain: &Chain, signer: usize, id: U256, claim: &ReportClaim) {
    let p = sender(chain, signer);
    let n = claim.counts.map(|c| u16::try_from(c).unwrap());
    let receipt = IVeritasOracle::new(chain.oracle, &p)
        .submitReport(
            id,
            claim.root.into(),
            n[0],
            n[1],
            n[2],
            I256::try_from(claim.kappa).unwrap(),
            claim.escalated,
            false,
        )
        .send()
        .await
        .unwrap()
        .get_receipt()
        .await
        .unwrap();
    assert!(receipt.status(), "submitReport reverted");
}

fn claim_of(report: &Value) -> ReportClaim {
    let rec = audit::recompute(&audit::AuditReport::from_json(report).unwrap()).unwrap();
    ReportClaim {
        not_yet: false,
        operator: Address::ZERO,
        root: rec.root,
        counts: rec.counts,
        kappa: rec.kappa_fixed,
        escalated: rec.escalated,
    }
}

/// `veritas ARGS` in `cwd` with `key` (an anvil key index) as the operator key.
fn cli(args: &[&str], cwd: &Path, key: Option<usize>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_veritas"));
    cmd.args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("VERITAS_PRIVATE_KEY");
    if let Some(k) = key {
        cmd.env("VERITAS_PRIVATE_KEY", ANVIL_KEYS[k]);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

async fn advance(chain: &Chain, seconds: u64) {
    let p = chain.reader();
    let _: Value = p
        .raw_request("evm_increaseTime".into(), [seconds])
        .await
        .unwrap();
    let _: Value = p.raw_request("evm_mine".into(), ()).await.unwrap();
}

async fn wait_reported(chain: &Chain, id: U256, who: Address) {
    let p = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &p);
    wait::until(
        Duration::from_secs(60),
        || format!("no report from {who}"),
        async || {
            oracle
                .hasReported(id, who)
                .call()
                .await
                .unwrap()
                .then_some(())
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_reports_pool_audit_show_and_pay() {
    let chain = Chain::start(AnvilOptions::default()).await;
    configure(&chain, 2, CHALLENGE, FEE).await;
    let mut node = Node::configure(&chain, REPLAY, "");
    node.start();
    let id = ask(&chain, QUESTION, FEE).await;
    let dir = node.dir.path().to_path_buf();
    let (url, oracle) = (chain.anvil.url.clone(), chain.oracle.to_string());
    let on = |args: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        v.extend([
            "--rpc".into(),
            url.clone(),
            "--oracle".into(),
            oracle.clone(),
        ]);
        v
    };
    let run = |args: Vec<String>, key: Option<usize>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cli(&args, &dir, key)
    };

    // Operator A: the node. Operator B: a hand-built report from key 0, which finalises.
    wait_reported(&chain, id, operator().address()).await;
    let api = node.api_addr(Duration::from_secs(10)).await;
    let block_hash: B256 = node.report(id)["committee"]["seed_inputs"]["block_hash"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let b_votes = ["YES", "YES", "NO", "YES", "YES", "NULL"];
    let b = hand_report(&chain, id, &b_votes, "b", key(0).address(), block_hash);
    submit(&chain, 0, id, &claim_of(&b)).await;
    assert_eq!(
        chain.status(id).await,
        IVeritasOracle::VerdictStatus::Resolved
    );
    let b_path = dir.join("b.json");
    std::fs::write(&b_path, b.to_string()).unwrap();
    let b_arg = b_path.to_str().unwrap().to_string();

    // The pooled audit passes: A fetched from the node's API, B from its file.
    let node_url = format!("http://{api}");
    let (code, out, err) = run(
        on(&[
            "audit",
            "--question",
            &id.to_string(),
            "--report",
            &node_url,
            "--report",
            &b_arg,
        ]),
        None,
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("OK:"), "{out}");
    assert!(out.contains("report file"), "{out}");
    assert!(!out.contains("MISMATCH"), "{out}");
    // Without report files the events alone are pooled, and the output says so.
    let (code, out, err) = run(on(&["audit", "--question", &id.to_string()]), None);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("no report given"), "{out}");

    // B with one ballot changed: its counts no longer equal its event.
    let mut tampered = b.clone();
    tampered["ballots"][0]["vote"] = json!("NO");
    let t_path = dir.join("tampered.json");
    std::fs::write(&t_path, tampered.to_string()).unwrap();
    let (code, out, _) = run(
        on(&[
            "audit",
            "--question",
            &id.to_string(),
            "--report",
            t_path.to_str().unwrap(),
        ]),
        None,
    );
    assert_ne!(code, 0, "{out}");
    let b_label = format!("report[2] {}", short(key(0).address()));
    assert!(out.contains(&format!("MISMATCH {b_label}.nYes")), "{out}");
    assert!(out.contains(&format!("MISMATCH {b_label}.nNo")), "{out}");

    // B with other evidence: its root differs from its event (matched by operator here).
    let other = hand_report(&chain, id, &b_votes, "edited", key(0).address(), block_hash);
    let o_path = dir.join("other-root.json");
    std::fs::write(&o_path, other.to_string()).unwrap();
    let explicit = format!("{}={}", key(0).address(), o_path.display());
    let (code, out, _) = run(
        on(&[
            "audit",
            "--question",
            &id.to_string(),
            "--report",
            &explicit,
        ]),
        None,
    );
    assert_ne!(code, 0, "{out}");
    assert!(out.contains(&format!("MISMATCH {b_label}.root")), "{out}");

    // B's committee seeded from another block than the question's: the chain says which.
    let reseeded = hand_report(&chain, id, &b_votes, "b", key(0).address(), B256::ZERO);
    let r_path = dir.join("reseeded.json");
    std::fs::write(&r_path, reseeded.to_string()).unwrap();
    let (code, out, _) = run(
        on(&[
            "audit",
            "--question",
            &id.to_string(),
            "--report",
            r_path.to_str().unwrap(),
        ]),
        None,
    );
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains(&format!(
            "MISMATCH {b_label}.committee.seed_inputs.block_hash"
        )),
        "{out}"
    );

    // `veritas verdict`: both reports and the time left in the challenge window.
    let (code, out, err) = run(on(&["verdict", &id.to_string()]), None);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Resolved (isFinal false)"), "{out}");
    assert!(out.contains("challenge window open"), "{out}");
    assert!(out.contains(&operator().address().to_string()), "{out}");
    assert!(out.contains(&key(0).address().to_string()), "{out}");
    let (code, out, err) = run(on(&["verdict", &id.to_string(), "--json"]), None);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["reports"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(
        v["reports"][0]["operator"]
            .as_str()
            .unwrap()
            .parse::<Address>()
            .unwrap(),
        operator().address()
    );
    assert_eq!(v["parameters"]["quorum"], 2);
    assert_eq!(v["pendingFee"], FEE.to_string());
    let left = v["secondsToFinal"].as_u64().unwrap();
    assert!(left > 0 && left <= u64::from(CHALLENGE), "{v}");
    // Unknown id and wrong address: clear errors.
    let (code, _, err) = run(on(&["verdict", "999"]), None);
    assert_ne!(code, 0);
    assert!(err.contains("unknown"), "{err}");
    let (code, _, err) = run(
        vec![
            "verdict".into(),
            id.to_string(),
            "--rpc".into(),
            chain.anvil.url.clone(),
            "--oracle".into(),
            key(2).address().to_string(),
        ],
        None,
    );
    assert_ne!(code, 0);
    assert!(err.contains("no contract at"), "{err}");
    let (code, _, err) = run(
        vec![
            "verdict".into(),
            id.to_string(),
            "--rpc".into(),
            "http://127.0.0.1:1".into(),
            "--oracle".into(),
            chain.oracle.to_string(),
        ],
        None,
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("cannot use the RPC at http://127.0.0.1:1"),
        "{err}"
    );

    // Past the window: final; settle credits the fee, the first reporter gets the odd wei.
    // The node settles final verdicts too, so ours may find it done (`VeritasAlreadySettled`).
    advance(&chain, u64::from(CHALLENGE) + 1).await;
    let p = sender(&chain, 2);
    let _ = IVeritasOracle::new(chain.oracle, &p)
        .settle(id)
        .send()
        .await;
    let credited = U256::from(FEE / 2 + FEE % 2);
    let reader = chain.reader();
    let view = IVeritasOracle::new(chain.oracle, &reader);
    wait::until(
        Duration::from_secs(20),
        || "fee never credited".to_owned(),
        async || {
            let credits = view.credits(operator().address()).call().await.unwrap();
            (credits == credited).then_some(())
        },
    )
    .await;
    let (_, out, _) = run(on(&["verdict", &id.to_string()]), None);
    assert!(out.contains("(isFinal true): final"), "{out}");

    // The daemon's gauge shows the unpaid credits.
    let metrics = reqwest::get(format!("http://{api}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains(&format!("veritas_operator_credits_wei {credited}\n")),
        "{metrics}"
    );
    node.stop();

    let (code, out, err) = run(on(&["operator", "balance"]), Some(1));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("credits  {credited} wei")), "{out}");
    // The stake the devnet put up for the operator, and no slashing (contract #26).
    assert!(
        out.contains("stake    1000000000000000000 wei (1 ETH) (0 wei (0 ETH) locked by "),
        "{out}"
    );
    assert!(out.contains("slashed  0 wei (0 ETH) (0 times)"), "{out}");

    let me = operator().address();
    let before = reader.get_balance(me).await.unwrap();
    let (code, out, err) = run(on(&["operator", "withdraw", "--json"]), Some(1));
    assert_eq!(code, 0, "{out}\n{err}");
    let w: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(w["withdrawn"], credited.to_string());
    let tx = w["tx"].as_str().unwrap().parse().unwrap();
    let receipt = reader.get_transaction_receipt(tx).await.unwrap().unwrap();
    let gas = U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
    let after = reader.get_balance(me).await.unwrap();
    assert_eq!(after, before + credited - gas, "balance to the wei");

    // Nothing left: a clear refusal, non-zero, and no transaction sent.
    let nonce = reader.get_transaction_count(me).await.unwrap();
    let (code, _, err) = run(on(&["operator", "withdraw"]), Some(1));
    assert_ne!(code, 0);
    assert!(err.contains("nothing to withdraw"), "{err}");
    assert_eq!(reader.get_transaction_count(me).await.unwrap(), nonce);
    assert_eq!(reader.get_balance(me).await.unwrap(), after);
}

fn short(a: Address) -> String {
    let s = a.to_string();
    format!("{}…{}", &s[..6], &s[s.len() - 4..])
}

/// The contract's pooling equals the auditor's on random reports (triple, kappa, digest,
/// escalation), including a verdict finalised below quorum and then arbitrated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contract_pools_like_the_auditor() {
    let chain = Chain::start(AnvilOptions::default()).await;
    configure(&chain, 2, 0, 0).await;
    let reader = chain.reader();
    let oracle = IVeritasOracle::new(chain.oracle, &reader);
    let mut rng = StdRng::seed_from_u64(15);
    let random_claim = |rng: &mut StdRng| {
        let total = rng.random_range(0..=30u64);
        let yes = rng.random_range(0..=total);
        let no = rng.random_range(0..=total - yes);
        ReportClaim {
            not_yet: false,
            operator: Address::ZERO,
            root: Root::from(rng.random::<[u8; 32]>()),
            counts: [yes, no, total - yes - no],
            kappa: rng.random_range(-1_000_000_000_000_000_000i128..=1_000_000_000_000_000_000),
            escalated: rng.random_bool(0.1),
        }
    };
    for case in 0..20 {
        let id = ask(&chain, &format!("case {case}?"), 0).await;
        let claims = [random_claim(&mut rng), random_claim(&mut rng)];
        submit(&chain, 1, id, &claims[0]).await;
        submit(&chain, 0, id, &claims[1]).await;
        let pooled = pooled::pool(&claims, 2).unwrap();
        let v = oracle.getVerdict(id).call().await.unwrap();
        let chain_triple = [v.pYes, v.pNo, v.pNull].map(|p| u128::try_from(p).unwrap());
        assert_eq!(chain_triple, pooled.p_fixed, "case {case}: {claims:?}");
        assert_eq!(Root::from(v.merkleRoot), pooled.root, "case {case}");
        assert_eq!(i128::try_from(v.fleissKappa).unwrap(), pooled.kappa);
        let status = oracle.verdictStatus(id).call().await.unwrap();
        let expected = if pooled.escalated {
            IVeritasOracle::VerdictStatus::Escalated
        } else {
            IVeritasOracle::VerdictStatus::Resolved
        };
        assert_eq!(
            status, expected,
            "case {case}: {claims:?} {:?}",
            pooled.reasons
        );
    }

    // One report, then the report window runs out: `finalize` posts it escalated.
    let id = ask(&chain, "alone?", 0).await;
    let claim = random_claim(&mut rng);
    submit(&chain, 1, id, &claim).await;
    advance(&chain, 3601).await;
    let owner = sender(&chain, 0);
    let as_owner = IVeritasOracle::new(chain.oracle, &owner);
    as_owner
        .finalize(id)
        .send()
        .await
        .unwrap()
        .get_receipt()
        .await
        .unwrap();
    let pooled = pooled::pool(std::slice::from_ref(&claim), 2).unwrap();
    assert!(
        pooled
            .reasons
            .contains(&pooled::EscalationReason::QuorumNotMet)
    );
    let v = oracle.getVerdict(id).call().await.unwrap();
    assert_eq!(Root::from(v.merkleRoot), claim.root);
    assert_eq!(
        oracle.verdictStatus(id).call().await.unwrap(),
        IVeritasOracle::VerdictStatus::Escalated
    );
    // The escalation goes to the court, which rules YES; the audit checks the pooled verdict
    // against the VerdictPosted event and the court's triple against getVerdict.
    const RULING_YES: u64 = 2;
    chain.request_arbitration(2, id).await;
    chain.rule(id, RULING_YES).await;
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = cli(
        &[
            "audit",
            "--question",
            &id.to_string(),
            "--rpc",
            &chain.anvil.url,
            "--oracle",
            &chain.oracle.to_string(),
        ],
        dir.path(),
        None,
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("quorum not met"), "{out}");
    assert!(out.contains("VerdictArbitrated"), "{out}");
    // The events the audit reads are the ones the contract emitted, one each.
    let posted = Filter::new()
        .address(chain.oracle)
        .event_signature(IVeritasOracle::VerdictPosted::SIGNATURE_HASH)
        .topic1(alloy::primitives::B256::from(id))
        .from_block(0u64);
    assert_eq!(reader.get_logs(&posted).await.unwrap().len(), 1);
}
