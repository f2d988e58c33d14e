//! End-to-end, issue #27's role tools: a question's whole life driven by `veritas` subcommands
//! only (as processes, each with its own key as `veritas run` takes it), against a real anvil,
//! the real oracle and court, and three real `veritas run` nodes (replay resolver):
//!
//! ask with a callback to `ExampleConsumer` → evidence → three reports → dispute → ruling for
//! the disputer → appeal → ruling that the verdict stands → execution (the consumer is called
//! back) → every withdrawal; each account's balance change is checked to the wei against the
//! fees, bonds and shares the rules give and the gas its transactions paid
//! (gasUsed × effectiveGasPrice from every receipt since the setup).
//!
//! And the refusals: an action the contract would refuse exits 2 with the contract's
//! sentence and sends nothing (the account's nonce does not move), whether refused by the
//! local check or by the simulation.

use std::{collections::BTreeMap, path::Path, time::Duration};

use alloy::{
    network::TransactionBuilder,
    primitives::{Address, U256, aliases::U96},
    providers::Provider,
    rpc::types::TransactionRequest,
    sol_types::SolValue,
};
use serde_json::Value;
use veritas::{
    contract::IVeritasOracle::{self, VerdictStatus as S},
    devnet::{ANVIL_KEYS, AnvilOptions, artifact_bytecode},
};

use crate::support::{Chain, Node, address, veritas_as};

const YES_MAJORITY: &str = r#"{"default": {"votes": ["YES", "YES", "NO"]}}"#;
const WAIT: Duration = Duration::from_secs(90);
/// Odd, so the reporters' three-way split leaves a remainder for the first reporter.
const ASK_FEE: u64 = 1_000_000_000_000_001;
const BOND: u64 = 10_000_000_000_000_000;
const EVIDENCE_FEE: u64 = 300_000_000_000_000;
const COURT_COST: u64 = 3_000_000_000_000_000;
const APPEAL_COST: u64 = 5_000_000_000_000_000;
const APPEAL_PERIOD: u64 = 300;
const CALLBACK_GAS: &str = "200000";

/// Who is who (anvil key indices).
const OPERATORS: [usize; 3] = [1, 3, 4];
const ASKER: usize = 2;
const DISPUTER: usize = 5;
const JUDGES: [usize; 2] = [6, 7];
const SUBMITTER: usize = 8;
const ANYONE: usize = 9;

alloy::sol! {
    #[sol(rpc)]
    interface IExampleConsumer {
        function records(uint256 id) external view returns (
            uint8 outcome, uint8 status, bool disputed, uint256 pYes, uint256 pNo, uint256 pNull);
    }
}

/// `veritas ARGS --rpc-url .. --oracle .. --json` as anvil's account `key`; the parsed JSON
/// object on success, panics (with stderr) on failure.
fn cli(chain: &Chain, dir: &Path, key: usize, args: &[&str]) -> Value {
    let (code, out, err) = run(chain, dir, key, args);
    assert_eq!(code, 0, "veritas {args:?} failed:\n{err}");
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

fn run(chain: &Chain, dir: &Path, key: usize, args: &[&str]) -> (i32, String, String) {
    let oracle = chain.oracle.to_string();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--rpc-url", &chain.anvil.url, "--oracle", &oracle]);
    veritas_as(&all, dir, Some(ANVIL_KEYS[key]))
}

fn wei(v: &Value) -> U256 {
    v.as_str()
        .unwrap_or_else(|| panic!("not a wei string: {v}"))
        .parse()
        .unwrap()
}

/// Deploy `name` from key 0 with constructor `args`; its address.
async fn deploy(chain: &Chain, name: &str, args: Vec<u8>) -> Address {
    let mut code = artifact_bytecode(name).unwrap().to_vec();
    code.extend(args);
    let receipt = chain
        .send_ok(
            0,
            TransactionRequest::default().with_deploy_code(code),
            name,
        )
        .await;
    receipt.contract_address.unwrap()
}

/// Gas paid by each sender in blocks `from..=latest`: Σ gasUsed × effectiveGasPrice.
async fn gas_paid(chain: &Chain, from: u64) -> BTreeMap<Address, U256> {
    let reader = chain.reader();
    let latest = reader.get_block_number().await.unwrap();
    let mut paid = BTreeMap::new();
    for n in from..=latest {
        for r in reader.get_block_receipts(n.into()).await.unwrap().unwrap() {
            *paid.entry(r.from).or_insert(U256::ZERO) +=
                U256::from(r.gas_used) * U256::from(r.effective_gas_price);
        }
    }
    paid
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_questions_whole_life_through_the_cli_every_wei_accounted_for() {
    let (ask_fee, bond, evidence_fee) = (
        U256::from(ASK_FEE),
        U256::from(BOND),
        U256::from(EVIDENCE_FEE),
    );
    let (court_cost, appeal_cost) = (U256::from(COURT_COST), U256::from(APPEAL_COST));
    let chain = Chain::start_with(AnvilOptions::default(), &OPERATORS, |p| {
        p.quorum = 3;
        p.challengeWindow = 3600;
        p.askFee = U96::from(ASK_FEE);
        p.disputeBond = U96::from(BOND);
        p.evidenceFee = U96::from(EVIDENCE_FEE);
    })
    .await;
    // A court with two judges (one appeal), fees and an appeal period, for the next questions.
    let judges: Vec<Address> = JUDGES.iter().map(|k| address(*k)).collect();
    let court = deploy(
        &chain,
        "VeritasCourt",
        (judges, court_cost, appeal_cost, U256::from(APPEAL_PERIOD)).abi_encode_params(),
    )
    .await;
    let owner = chain.wallet(0);
    let oracle = IVeritasOracle::new(chain.oracle, &owner);
    let mut parameters = oracle.parameters().call().await.unwrap();
    parameters.arbitrator = court;
    let call = oracle
        .setParameters(parameters, String::new())
        .into_transaction_request();
    chain.send_ok(0, call, "setParameters").await;
    let parameters_id = oracle.parametersId().call().await.unwrap();
    let consumer = deploy(
        &chain,
        "ExampleConsumer",
        (chain.oracle, parameters_id, court).abi_encode_params(),
    )
    .await;
    let mut nodes: Vec<Node> = OPERATORS
        .iter()
        .map(|key| Node::configure_as(&chain, *key, YES_MAJORITY, ""))
        .collect();
    for node in &mut nodes {
        node.start();
    }
    let reader = chain.reader();
    let view = IVeritasOracle::new(chain.oracle, &reader);
    let everyone: Vec<usize> = [
        &OPERATORS[..],
        &[ASKER, DISPUTER, SUBMITTER, ANYONE],
        &JUDGES[..],
    ]
    .concat();
    let mut start = BTreeMap::new();
    for key in &everyone {
        start.insert(*key, reader.get_balance(address(*key)).await.unwrap());
    }
    let oracle_start = reader.get_balance(chain.oracle).await.unwrap();
    let first_block = reader.get_block_number().await.unwrap() + 1;
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let consumer_s = consumer.to_string();
    let court_s = court.to_string();

    // The asker: rules pinned, a callback, the fee paid by the command.
    let asked = cli(
        &chain,
        dir,
        ASKER,
        &[
            "ask",
            "Did the lane open on time?",
            "--resolve-after",
            "20s",
            "--callback",
            &consumer_s,
            "--callback-gas",
            CALLBACK_GAS,
            "--json",
        ],
    );
    let id: U256 = wei(&asked["id"]);
    let id_s = id.to_string();
    // The command prepaid the callback's gas at its transaction's gas price (issue #43): the
    // limit and the oracle's part, which whoever delivers the final status is paid.
    let deposit = wei(&asked["callback_deposit"]);
    let callback_gas: u64 = CALLBACK_GAS.parse().unwrap();
    assert!(deposit >= U256::from(callback_gas + 25_000), "{asked}");
    assert_eq!(wei(&asked["paid"]), ask_fee + deposit);
    assert_eq!(asked["parameters_id"], parameters_id);
    assert_eq!(
        asked["arbitrator"]
            .as_str()
            .unwrap()
            .parse::<Address>()
            .unwrap(),
        court
    );
    assert_eq!(
        asked["consumer"]
            .as_str()
            .unwrap()
            .parse::<Address>()
            .unwrap(),
        consumer
    );

    // A market participant: one evidence item, its index and its link of the hash chain.
    let item = cli(
        &chain,
        dir,
        SUBMITTER,
        &[
            "evidence",
            "submit",
            &id_s,
            "--url",
            "https://example.org/lane",
            "--title",
            "Lane opening",
            "--snippet",
            "The lane opened at 9:00 as planned.",
            "--json",
        ],
    );
    assert_eq!(item["index"], "1");
    assert_eq!(wei(&item["fee"]), evidence_fee);
    let head = view.evidenceHead().call().await.unwrap();
    assert_eq!(
        item["evidence_head"]
            .as_str()
            .unwrap()
            .parse::<alloy::primitives::B256>()
            .unwrap(),
        head
    );
    assert!(item["previous_head"].is_string(), "{item}");

    // Reports open (the nodes wait for their clocks to pass resolveAfter): the three nodes
    // report and the verdict posts (YES leads).
    chain.wait_status(id, S::Resolved, WAIT).await;
    let reports = chain.reports(id).await;
    assert_eq!(reports.len(), 3);

    // The disputer claims NO; the stakes are shown and the court is paid on top of the bond.
    let disputed = cli(
        &chain,
        dir,
        DISPUTER,
        &[
            "dispute", &id_s, "--claim", "0.1", "0.85", "0.05", "--yes", "--json",
        ],
    );
    assert_eq!(wei(&disputed["bond"]), bond);
    assert_eq!(wei(&disputed["court_fee"]), court_cost);
    assert_eq!(wei(&disputed["total"]), bond + court_cost);
    let dispute_id = disputed["dispute_id"].as_str().unwrap().to_string();
    assert_eq!(chain.status(id).await, S::Disputed);
    let records = IExampleConsumer::new(consumer, &reader);
    let r = records.records(id).call().await.unwrap();
    assert!(
        r.disputed && r.outcome == 0,
        "the consumer noted the dispute only"
    );

    // Round 0: the first judge takes the disputer's triple; an operator appeals; round 1: the
    // second judge lets the verdict stand.
    let ruled = cli(
        &chain,
        dir,
        JUDGES[0],
        &[
            "court",
            "rule",
            &dispute_id,
            "5",
            "--court",
            &court_s,
            "--json",
        ],
    );
    assert_eq!(ruled["round"], "0");
    let appealed = cli(&chain, dir, OPERATORS[0], &["appeal", &id_s, "--json"]);
    assert_eq!(wei(&appealed["paid"]), appeal_cost);
    let ruled = cli(
        &chain,
        dir,
        JUDGES[1],
        &[
            "court",
            "rule",
            &dispute_id,
            "1",
            "--court",
            &court_s,
            "--json",
        ],
    );
    assert_eq!(ruled["round"], "1");
    chain.advance(APPEAL_PERIOD).await;
    let executed = cli(
        &chain,
        dir,
        ANYONE,
        &[
            "court",
            "execute",
            &dispute_id,
            "--court",
            &court_s,
            "--json",
        ],
    );
    assert_eq!(executed["status"], "Arbitrated");
    assert_eq!(executed["disputer_won"], false);
    assert!(
        executed["callback"]
            .as_str()
            .unwrap()
            .starts_with("delivered Arbitrated"),
        "{executed}"
    );
    let r = records.records(id).call().await.unwrap();
    assert_eq!(r.outcome, 1, "the consumer recorded YES");
    assert_eq!(r.status, S::Arbitrated as u8);
    // Nothing is owed any more: a retry is refused (see the refusals test for the nonce).
    let (code, _, err) = run(&chain, dir, ANYONE, &["callback", "retry", &id_s]);
    assert_eq!(code, 2, "a refusal exits 2: {err}");
    assert!(err.contains("has no callback owed"), "{err}");
    // Whoever sent the execution paid the consumer's gas, and was paid the asker's deposit.
    let out = cli(&chain, dir, ANYONE, &["operator", "withdraw", "--json"]);
    assert_eq!(wei(&out["withdrawn"]), deposit);

    // The verdict stood, so the operator's appeal against the round-0 ruling won: the losing
    // disputer's bond refunds it first (up to the appeal's cost); the reporters share the fee
    // and the rest of the bond less its burned half, equally, the first reporter taking the
    // remainder; the judges take their rounds' fees.
    let refund = appeal_cost.min(bond);
    let forfeit = bond - refund;
    let burned_bond = forfeit * U256::from(5_000) / U256::from(10_000);
    let pot = ask_fee + forfeit - burned_bond;
    let share = pot / U256::from(3);
    let first = reports[0].0;
    let mut credit = BTreeMap::new();
    for key in OPERATORS {
        let extra = if address(key) == first {
            pot % U256::from(3)
        } else {
            U256::ZERO
        };
        credit.insert(key, share + extra);
    }
    *credit.get_mut(&OPERATORS[0]).unwrap() += refund;
    for key in OPERATORS {
        let out = cli(&chain, dir, key, &["operator", "withdraw", "--json"]);
        assert_eq!(wei(&out["withdrawn"]), credit[&key], "operator {key}");
    }
    for (key, fee) in [(JUDGES[0], court_cost), (JUDGES[1], appeal_cost)] {
        let out = cli(
            &chain,
            dir,
            key,
            &["court", "withdraw", "--court", &court_s, "--json"],
        );
        assert_eq!(wei(&out["withdrawn"]), fee, "judge {key}");
    }
    // The disputer lost: nothing to withdraw, and nothing is sent.
    let (code, _, err) = run(&chain, dir, DISPUTER, &["operator", "withdraw"]);
    assert_eq!(code, 2, "a refusal exits 2: {err}");
    assert!(err.contains("nothing to withdraw"), "{err}");

    // Every wei: each account moved by exactly what the rules say, less the gas it paid.
    for node in &mut nodes {
        node.stop();
    }
    let gas = gas_paid(&chain, first_block).await;
    let mut expected: BTreeMap<usize, (U256, U256)> = BTreeMap::new(); // (in, out)
    for key in &everyone {
        expected.insert(*key, (U256::ZERO, U256::ZERO));
    }
    for key in OPERATORS {
        expected.get_mut(&key).unwrap().0 += credit[&key];
    }
    expected.get_mut(&OPERATORS[0]).unwrap().1 += appeal_cost;
    expected.get_mut(&ASKER).unwrap().1 += ask_fee + deposit;
    expected.get_mut(&ANYONE).unwrap().0 += deposit;
    expected.get_mut(&SUBMITTER).unwrap().1 += evidence_fee;
    expected.get_mut(&DISPUTER).unwrap().1 += bond + court_cost;
    expected.get_mut(&JUDGES[0]).unwrap().0 += court_cost;
    expected.get_mut(&JUDGES[1]).unwrap().0 += appeal_cost;
    for key in &everyone {
        let who = address(*key);
        let (gained, paid) = expected[key];
        let spent = gas.get(&who).copied().unwrap_or_default();
        let end = reader.get_balance(who).await.unwrap();
        assert_eq!(
            end + paid + spent,
            start[key] + gained,
            "account {key} ({who})"
        );
    }
    for (who, spent) in &gas {
        assert!(
            everyone.iter().any(|k| address(*k) == *who),
            "{who} sent a transaction ({spent} wei of gas) and is not accounted for"
        );
    }
    // The oracle keeps the burned wei (half the bond left after the refund, the evidence fee) and
    // the stakes, which nobody lost; the court keeps nothing.
    let burn: Address = "0x000000000000000000000000000000000000dEaD"
        .parse()
        .unwrap();
    assert_eq!(chain.credits(burn).await, burned_bond + evidence_fee);
    assert_eq!(
        reader.get_balance(chain.oracle).await.unwrap(),
        oracle_start + burned_bond + evidence_fee
    );
    assert_eq!(reader.get_balance(court).await.unwrap(), U256::ZERO);
    for key in OPERATORS {
        let s = view.operatorStake(address(key)).call().await.unwrap();
        assert_eq!(
            s.staked,
            veritas::devnet::DEVNET_OPERATOR_STAKE,
            "operator {key}"
        );
        assert_eq!(s.locked, U256::ZERO);
    }
}

/// Refused actions: each exits 2 with the contract's sentence, and the account's nonce
/// does not move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_action_says_the_contracts_sentence_and_sends_nothing() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let reader = chain.reader();
    let nonce = |key: usize| {
        let reader = reader.clone();
        async move { reader.get_transaction_count(address(key)).await.unwrap() }
    };
    let asked = cli(
        &chain,
        dir,
        ASKER,
        &["ask", "Is it open?", "--resolve-after", "1m", "--json"],
    );
    let id = asked["id"].as_str().unwrap().to_string();
    chain.advance(61).await;

    let late = format!("Evidence for {id} is accepted only before its");
    let local = "checked before sending";
    let cases: [(usize, Vec<&str>, &str, &str); 4] = [
        // Evidence after resolveAfter: refused by the local check.
        (
            SUBMITTER,
            vec![
                "evidence",
                "submit",
                &id,
                "--url",
                "https://example.org/late",
            ],
            &late,
            local,
        ),
        // No verdict yet: nothing to dispute.
        (
            DISPUTER,
            vec!["dispute", &id, "--claim", "0.1", "0.85", "0.05", "--yes"],
            "Only a Resolved verdict within its challenge window can be disputed",
            local,
        ),
        // No consumer: no callback owed.
        (
            ANYONE,
            vec!["callback", "retry", &id],
            "has no callback owed",
            local,
        ),
        // An epoch that is not in force: the local checks pass, the simulation reverts.
        (
            ASKER,
            vec!["ask", "Is it closed?", "--epoch", "999"],
            "The ask expected operator epoch 999, but",
            "simulated; no transaction sent",
        ),
    ];
    for (key, args, sentence, how) in cases {
        let before = nonce(key).await;
        let (code, _, err) = run(&chain, dir, key, &args);
        assert_eq!(code, 2, "{args:?}: a refusal exits 2: {err}");
        assert!(err.contains(sentence), "{args:?}: {err}");
        assert!(err.contains(how), "{args:?}: {err}");
        assert_eq!(nonce(key).await, before, "{args:?} sent a transaction");
    }
}
