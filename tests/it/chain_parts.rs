//! The watcher and the poster against a real anvil (some through a fault-injecting proxy).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    sync::{Arc, atomic::Ordering},
    time::Duration,
};

use alloy::{
    primitives::{Address, I256, U256},
    providers::Provider,
};
use serde_json::Value;
use tokio::sync::Notify;
use veritas::{
    chain,
    commitment::root::Root,
    devnet::{AnvilOptions, repo_root},
    poster::{Posted, Poster, PosterConfig},
    store::{PostIntent, Stage, Store, TxStatus},
    watcher::{WatchState, Watcher, WatcherConfig},
};

use crate::support::{
    Chain, operator,
    proxy::{Fault, FaultPlan, start_faulty_proxy, start_proxy},
};

async fn mine(chain: &Chain, blocks: u64) {
    let _: Value = chain
        .reader()
        .raw_request("anvil_mine".into(), (U256::from(blocks),))
        .await
        .unwrap();
}

fn watcher(
    url: &str,
    chain: &Chain,
    store: &Arc<Store>,
    confirmations: u64,
    max_range: u64,
) -> (Watcher, Arc<WatchState>) {
    let state = Arc::new(WatchState::default());
    let w = Watcher::new(
        chain::connect(url, Duration::from_secs(5)).unwrap(),
        Arc::clone(store),
        WatcherConfig {
            oracle: chain.oracle,
            confirmations,
            poll_interval: Duration::from_millis(50),
            max_log_range: max_range,
            start_block: 0,
            restart_overlap: 40,
        },
        Arc::clone(&state),
        Arc::new(Notify::new()),
    )
    .unwrap();
    (w, state)
}

/// Poll until caught up.
async fn catch_up(w: &mut Watcher) -> usize {
    let mut new = 0;
    loop {
        let poll = w.poll_once().await.unwrap();
        new += poll.new_questions;
        if !poll.behind {
            return new;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watcher_shrinks_refused_ranges_waits_for_confirmations_and_rereads_overlap() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let (url, proxy) = start_proxy(&chain.anvil.url, 8).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open_in(dir.path()).unwrap());

    chain.ask(&["First?"]).await;
    mine(&chain, 30).await;
    chain.ask(&["Second?"]).await;
    mine(&chain, 30).await;
    let last = chain.ask(&["Third, in the head block?"]).await;

    let (mut w, state) = watcher(&url, &chain, &store, 3, 1_000);
    assert_eq!(
        catch_up(&mut w).await,
        2,
        "the head question has 1 confirmation of 3"
    );
    assert!(proxy.count(Fault::RangeRefused) > 0);
    assert!(state.range.load(Ordering::Relaxed) <= 8);
    assert!(store.job(last[0]).unwrap().is_none());
    mine(&chain, 2).await;
    assert_eq!(catch_up(&mut w).await, 1);
    let job = store.job(last[0]).unwrap().unwrap();
    assert_eq!(
        (job.stage, job.question.question.as_str()),
        (Stage::Queued, "Third, in the head block?")
    );

    // An outage is an error for this poll, and the cursor stays put.
    let cursor = store.cursor().unwrap();
    proxy.down.store(true, Ordering::Relaxed);
    mine(&chain, 5).await;
    let err = w.poll_once().await.unwrap_err();
    assert!(err.is_retryable(), "{err}");
    assert_eq!(store.cursor().unwrap(), cursor);
    proxy.down.store(false, Ordering::Relaxed);

    // A restart re-reads the overlap: nothing is inserted twice.
    drop(w);
    let (mut w, _) = watcher(&url, &chain, &store, 3, 1_000);
    assert_eq!(catch_up(&mut w).await, 0);
    assert_eq!(store.counts().unwrap().total, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_log_page_is_noticed_and_read_again() {
    let chain = Chain::start(AnvilOptions::default()).await;
    // The first page that holds logs is answered `[]`, as by a backend that lags behind.
    let plan = FaultPlan {
        empty_pages: 1,
        ..FaultPlan::quiet(1_000)
    };
    let (url, proxy) = start_faulty_proxy(&chain.anvil.url, plan).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open_in(dir.path()).unwrap());
    let (mut w, state) = watcher(&url, &chain, &store, 1, 1_000);
    assert_eq!(catch_up(&mut w).await, 0);
    let ids = chain
        .ask(&["Hidden by an empty page?", "And its neighbour?"])
        .await;

    let first = w.poll_once().await.unwrap_err();
    assert!(
        matches!(
            first,
            chain::ChainError::IncompleteLogs {
                found: 0,
                expected: 2,
                ..
            }
        ),
        "{first}"
    );
    assert!(first.is_retryable());
    assert_eq!(proxy.count(Fault::EmptyPage), 1);
    assert_eq!(catch_up(&mut w).await, 2, "read again, both stored");
    for id in ids {
        assert!(store.job(id).unwrap().is_some());
    }
    assert_eq!(state.incomplete_pages.load(Ordering::Relaxed), 1);
}

/// An intent for `id` whose report (in `dir`) holds the counts (4, 2, 1): posterior (5, 3, 2)/10.
fn intent(id: U256, root: u8, dir: &std::path::Path) -> PostIntent {
    let report_path = dir.join(format!("report-{id}.json"));
    std::fs::write(
        &report_path,
        r#"{"stats":{"counts":{"YES":4,"NO":2,"NULL":1}}}"#,
    )
    .unwrap();
    PostIntent {
        not_yet: false,
        round: 0,
        question_id: id,
        merkle_root: Root::from([root; 32]),
        kappa: I256::try_from(-250_000_000_000_000_000i64).unwrap(),
        counts: Some([4, 2, 1]),
        escalated: false,
        report_path: report_path.display().to_string(),
    }
}

async fn setup_poster(
    chain: &Chain,
    receipt_timeout: Duration,
) -> (Arc<Store>, Arc<Poster>, tempfile::TempDir) {
    setup_poster_batching(chain, receipt_timeout, Duration::from_millis(20)).await
}

/// A poster whose batch leader waits `batch_window` for others to join.
async fn setup_poster_batching(
    chain: &Chain,
    receipt_timeout: Duration,
    batch_window: Duration,
) -> (Arc<Store>, Arc<Poster>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open_in(dir.path()).unwrap());
    let poster = Arc::new(Poster::new(
        chain.reader(),
        operator(),
        Arc::clone(&store),
        PosterConfig {
            oracle: chain.oracle,
            chain_id: 31337,
            receipt_timeout,
            receipt_poll: Duration::from_millis(20),
            batch_window,
            max_batch: 50,
            stake_top_up_limit: U256::ZERO,
        },
    ));
    (store, poster, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poster_batches_reports_and_treats_an_existing_verdict_as_done() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let ids = chain.ask(&["A?", "B?", "C?", "D?", "E?"]).await;
    // A window of 2 s: the five posts are ready together (their intents saved first), and
    // none may miss the batch because a busy machine delayed its task past a short window.
    let (store, poster, dir) =
        setup_poster_batching(&chain, Duration::from_secs(10), Duration::from_secs(2)).await;
    let (mut w, _) = watcher(&chain.anvil.url, &chain, &store, 1, 1_000);
    catch_up(&mut w).await;

    let mut ready = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let job = store.job(*id).unwrap().unwrap();
        let saved = store
            .save_intent(&intent(*id, i as u8 + 1, dir.path()))
            .unwrap();
        ready.push((job.question, saved));
    }
    let mut handles = Vec::new();
    for (question, saved) in ready {
        let poster = Arc::clone(&poster);
        handles.push(tokio::spawn(async move {
            poster.post(&question, &saved).await.unwrap()
        }));
    }
    for h in handles {
        assert!(matches!(h.await.unwrap(), Posted::Mined { .. }));
    }
    // Ready together, the five reports went out in one `submitReports` transaction.
    let txs: Vec<_> = ids
        .iter()
        .flat_map(|id| store.txs_for(*id).unwrap())
        .inspect(|t| assert_eq!(t.status, TxStatus::Mined))
        .map(|t| (t.tx_hash, t.nonce))
        .collect();
    assert_eq!(txs.len(), 5, "one row per question");
    assert!(
        txs.iter().all(|t| *t == txs[0]) && txs[0].1 == 0,
        "one batch transaction at nonce 0: {txs:?}"
    );

    // A second node (fresh store) with the same verdicts: the chain says done, nothing sent.
    let (store2, poster2, dir2) = setup_poster(&chain, Duration::from_secs(10)).await;
    let (mut w2, _) = watcher(&chain.anvil.url, &chain, &store2, 1, 1_000);
    catch_up(&mut w2).await;
    let job = store2.job(ids[0]).unwrap().unwrap();
    let saved = store2.save_intent(&intent(ids[0], 1, dir2.path())).unwrap();
    assert_eq!(
        poster2.post(&job.question, &saved).await.unwrap(),
        Posted::AlreadyOnChain
    );
    assert!(store2.txs_for(ids[0]).unwrap().is_empty());
    for id in &ids {
        assert_eq!(chain.verdict_events(*id).await, 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stuck_transaction_is_replaced_with_bumped_fees() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let ids = chain.ask(&["Stuck?"]).await;
    // The replacement's receipt wait must outlast the miner's poll below (~10 ms).
    let (store, poster, dir) = setup_poster(&chain, Duration::from_secs(2)).await;
    let (mut w, _) = watcher(&chain.anvil.url, &chain, &store, 1, 1_000);
    catch_up(&mut w).await;
    let qid = ids[0];
    let job = store.job(qid).unwrap().unwrap();
    let saved = store.save_intent(&intent(ids[0], 9, dir.path())).unwrap();

    let reader = chain.reader();
    let _: Value = reader
        .raw_request("evm_setAutomine".into(), (false,))
        .await
        .unwrap();
    let err = poster.post(&job.question, &saved).await.unwrap_err();
    assert!(
        matches!(err, chain::ChainError::ReceiptTimeout { .. }),
        "{err}"
    );
    assert!(err.is_retryable());
    let first = store.txs_for(qid).unwrap();
    assert_eq!((first.len(), first[0].status), (1, TxStatus::Pending));

    // The next attempt finds it stuck past receipt_timeout and replaces it at the same nonce.
    // Mining resumes once the replacement is in anvil's pool, not after a guessed delay: mined
    // earlier, the block would hold the stuck transaction instead.
    let miner = {
        let reader = chain.reader();
        let store = Arc::clone(&store);
        tokio::spawn(async move {
            loop {
                let txs = store.txs_for(qid).unwrap();
                if let Some(replacement) = txs.get(1)
                    && reader
                        .get_transaction_by_hash(replacement.tx_hash)
                        .await
                        .unwrap()
                        .is_some()
                {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            let _: Value = reader
                .raw_request("evm_setAutomine".into(), (true,))
                .await
                .unwrap();
            let _: Value = reader
                .raw_request("anvil_mine".into(), (U256::from(1),))
                .await
                .unwrap();
        })
    };
    let posted = poster.post(&job.question, &saved).await.unwrap();
    miner.await.unwrap();
    assert!(matches!(posted, Posted::Mined { .. }), "{posted:?}");
    let txs = store.txs_for(qid).unwrap();
    assert_eq!(txs.len(), 2);
    let (old, new) = (&txs[0], &txs[1]);
    assert_eq!(old.nonce, new.nonce);
    assert_eq!(
        (old.status, new.status),
        (TxStatus::Dropped, TxStatus::Mined)
    );
    let fee = |f: &u128| *f;
    assert!(
        fee(&new.max_fee_per_gas) * 100 >= fee(&old.max_fee_per_gas) * 110,
        "bumped by at least 10%"
    );
    assert_eq!(chain.verdict_events(ids[0]).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_reorged_out_before_its_confirmations_is_never_stored() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open_in(dir.path()).unwrap());
    let (mut w, _) = watcher(&chain.anvil.url, &chain, &store, 3, 1_000);

    let gone = chain.ask(&["Reorged away?"]).await;
    mine(&chain, 1).await; // 2 confirmations of 3
    assert_eq!(catch_up(&mut w).await, 0);
    let _: Value = chain
        .reader()
        .raw_request("anvil_rollback".into(), (2u64,))
        .await
        .unwrap();
    // The same id is now taken by another question, which does get confirmed.
    let kept = chain.ask(&["Included instead?"]).await;
    assert_eq!(gone, kept, "the rollback freed the id");
    mine(&chain, 5).await;
    assert_eq!(catch_up(&mut w).await, 1);
    let job = store.job(kept[0]).unwrap().unwrap();
    assert_eq!(job.question.question, "Included instead?");
    assert_eq!(store.counts().unwrap().total, 1);
}

/// A contract's runtime code as `forge build` wrote it (`out/<name>.sol/<name>.json`), with the
/// byte ranges of its immutables (zero in the artifact, filled in by the constructor).
fn deployed_artifact(name: &str) -> (Vec<u8>, Vec<std::ops::Range<usize>>) {
    let path = repo_root()
        .unwrap()
        .join(format!("out/{name}.sol/{name}.json"));
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let code = &json["deployedBytecode"];
    let hex = code["object"].as_str().unwrap();
    let bytes = alloy::hex::decode(hex).unwrap();
    let mut ranges = Vec::new();
    if let Some(refs) = code["immutableReferences"].as_object() {
        for positions in refs.values() {
            for p in positions.as_array().unwrap() {
                let start = p["start"].as_u64().unwrap() as usize;
                ranges.push(start..start + p["length"].as_u64().unwrap() as usize);
            }
        }
    }
    (bytes, ranges)
}

alloy::sol! {
    /// The oracle's two getters outside `IVeritasOracle` (script/Shipped.sol's `IOracleModules`).
    #[sol(rpc)]
    interface IOracleModules {
        function COURT_MODULE() external view returns (address);
        function ADMIN_MODULE() external view returns (address);
    }
}

/// The chain the demo and these tests deploy runs the very runtime code that forge's tests test:
/// those deploy the same `out/` artifacts through `script/Shipped.sol` (the oracle and its modules
/// compile via-IR in their own profile, the tests without, and never import them). The oracle's
/// code on chain equals its artifact outside its immutables, which hold its modules' addresses,
/// and each module there equals its own artifact outside its one immutable, its own address.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chain_runs_the_artifacts_the_forge_tests_test() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let reader = chain.reader();
    let (artifact, immutables) = deployed_artifact("VeritasOracle");
    let modules = IOracleModules::new(chain.oracle, &reader);
    let court = modules.COURT_MODULE().call().await.unwrap();
    let admin = modules.ADMIN_MODULE().call().await.unwrap();
    let mut on_chain = reader.get_code_at(chain.oracle).await.unwrap().to_vec();
    assert_eq!(on_chain.len(), artifact.len(), "oracle: code length");
    assert!(
        !immutables.is_empty(),
        "the oracle keeps its modules' addresses immutable"
    );
    for range in &immutables {
        let held = Address::from_slice(&on_chain[range.end - 20..range.end]);
        assert!(
            held == court || held == admin,
            "an oracle immutable holds {held}"
        );
        on_chain[range.clone()].copy_from_slice(&artifact[range.clone()]);
    }
    assert!(
        on_chain == artifact,
        "the oracle on chain is not out/VeritasOracle.sol's runtime code"
    );
    for (name, address) in [("VeritasCourtModule", court), ("VeritasAdminModule", admin)] {
        let (artifact, immutables) = deployed_artifact(name);
        assert!(!immutables.is_empty(), "{name} keeps its own address");
        let mut on_chain = reader.get_code_at(address).await.unwrap().to_vec();
        assert_eq!(on_chain.len(), artifact.len(), "{name}: code length");
        for range in &immutables {
            assert_eq!(
                Address::from_slice(&on_chain[range.end - 20..range.end]),
                address,
                "{name}'s immutable is its own address"
            );
            on_chain[range.clone()].copy_from_slice(&artifact[range.clone()]);
        }
        assert!(
            on_chain == artifact,
            "{name} on chain is not out/{name}.sol's runtime code"
        );
    }
}
